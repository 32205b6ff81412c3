"""Which cat lowering Inductor picks for Swin's patch merging (four strided slices of a
residual sum, concatenated on channels, then a layer norm), and what decides it: each
variant compiled on the device, its Triton kernel calls counted.

    python3 tools/fidelity/cat_probe.py
"""
import re

import torch
import torch.nn.functional as F
from torch._inductor.utils import run_and_get_code


def merge(z):
    v = z.view(1, 8, 8, 16)
    parts = [v[:, 0::2, 0::2, :], v[:, 1::2, 0::2, :], v[:, 0::2, 1::2, :], v[:, 1::2, 1::2, :]]
    return torch.cat(parts, -1).view(1, 16, 64)


def plain(x, y, w, b, g):
    return F.layer_norm(merge(x + y), (64,), g)


def addmm(x, y, w, b, g):
    return F.layer_norm(merge((x.view(64, 16) @ w + b).view(1, 64, 16) + y), (64,), g)


def normed(x, y, w, b, g):
    # The residual reads a layer norm's output (a reduction's consumer).
    h = F.layer_norm(x, (16,))
    return F.layer_norm(merge(h + y), (64,), g)


def pointwise_user(x, y, w, b, g):
    return merge(x + y) * 2.0


def main():
    dev = "cuda"
    args = (
        torch.randn(1, 64, 16, device=dev),
        torch.randn(1, 64, 16, device=dev),
        torch.randn(16, 16, device=dev),
        torch.randn(16, device=dev),
        torch.randn(64, device=dev),
    )
    for fn in (plain, addmm, normed, pointwise_user):
        torch._dynamo.reset()
        _, code = run_and_get_code(torch.compile(fn), *args)
        text = "\n".join(code)
        calls = re.findall(r"\b(triton_\w+)\.run\(", text)
        print(fn.__name__, len(calls), calls)


if __name__ == "__main__":
    main()
