"""Small modules of the kinds real models are made of, with their inputs."""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn
from torch.nn import functional as F


class GeluMlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up, self.down, self.norm = nn.Linear(32, 64), nn.Linear(64, 32), nn.LayerNorm(32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x + self.down(F.gelu(self.up(x))))


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qkv, self.out = nn.Linear(32, 96), nn.Linear(32, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        w = torch.softmax(q @ k.transpose(-1, -2) / 32**0.5, dim=-1)
        return self.out(w @ v)


class ConvBnRelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.bn(self.conv(x))).mean(dim=(2, 3))


class RmsNormTwoOutputs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(32))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        return y, torch.sigmoid(y).sum(-1)


class Integers(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.where(x > 0, x, 0.5 * x), (x > 0).to(torch.int64).sum(-1)


MODELS: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "gelu_mlp": (GeluMlp, lambda: (torch.randn(4, 16, 32),)),
    "attention": (Attention, lambda: (torch.randn(2, 16, 32),)),
    "conv_bn_relu": (ConvBnRelu, lambda: (torch.randn(2, 3, 16, 16),)),
    "rmsnorm_two_outputs": (RmsNormTwoOutputs, lambda: (torch.randn(8, 32),)),
    "integers": (Integers, lambda: (torch.randn(8, 32),)),
}
