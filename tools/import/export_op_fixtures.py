"""Exports `more_ops.pt2` (test/Import/Inputs) and torch's outputs for seeded inputs
(`more_ops.json`, test/Execution/Inputs, the oracle of `fuse-run --expect`): a module
using the core ATen ops the importer spells with other aten ops (leaky_relu, elu,
clamp.Tensor, log2, log10, tan, pow.Scalar, sign, isnan, isinf, logical_and/or/xor and
bitwise_and/or/xor of masks, max.dim/min.dim values,
constant_pad_nd, index_select) and floor, ceil, round, trunc, prod; and `repeat_ops.pt2`
(`repeat_ops.json`): `repeat` with and without leading dims. Run where torch is installed:
    /opt/tvmvenv/bin/python tools/import/export_op_fixtures.py [NAME ...]
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from export_fixtures import export, tensor_json  # noqa: E402


class MoreOps(torch.nn.Module):
    def forward(self, x, y, lo, hi, idx, rows):
        a = F.leaky_relu(x, 0.1)
        b = F.elu(x, alpha=0.7)
        c = torch.clamp(x, min=lo, max=hi)
        d = torch.log2(y.abs() + 1.0) + torch.log10(y.abs() + 2.0)
        e = torch.tan(x * 0.5)
        f = torch.pow(2.0, x)
        s = torch.sign(y) + torch.isnan(x).float() + torch.isinf(x / 0.0).float()
        m = torch.logical_and(x > 0, y > 0) | torch.logical_or(x > 1, y > 1) ^ torch.logical_xor(x > 0, y < 0)
        m = m & (x < 1.5)
        mx = torch.max(x, dim=1, keepdim=True).values + torch.min(y, dim=0).values
        p = F.pad(x, (1, 2), value=0.5)[:, 1:-2] + F.pad(x, (0, 0, 1, 0))[1:] + F.pad(F.pad(x, (-1, 1)), (1, -1))
        sel = torch.index_select(x, 1, idx) + torch.index_select(y, 0, rows)
        r = torch.floor(x * 3) + torch.ceil(y * 3) + torch.round(x * 2.5) + torch.trunc(y * 3)
        pr = torch.prod(1.0 + 0.1 * x, dim=1, keepdim=True) + torch.prod(1.0 + 0.01 * y)
        return a + b + c + d + e + f * 0.25 + s + m.float() + mx + p + sel + r + pr


class RepeatOps(torch.nn.Module):
    def forward(self, x, v):
        # Tiled along both dims ([4, 4] -> [8, 12]), a 1-D vector tiled into rows ([4] ->
        # [8, 12]), and with a new leading dim ([2, 4, 12], summed over it).
        return x.repeat(2, 3) + v.repeat(8, 3), x.repeat(2, 1, 3).sum(0)


def fixtures():
    gen = torch.Generator().manual_seed(11)
    more = (torch.randn(4, 8, generator=gen), torch.randn(4, 8, generator=gen), -0.5 * torch.rand(8, generator=gen), 0.5 * torch.rand(8, generator=gen), torch.randint(0, 8, (8,), generator=gen), torch.randint(0, 4, (4,), generator=gen))
    repeat = (torch.randn(4, 4, generator=gen), torch.randn(4, generator=gen))
    return {"more_ops": (MoreOps(), more), "repeat_ops": (RepeatOps(), repeat)}


def main():
    chosen = sys.argv[1:]
    for name, (module, inputs) in fixtures().items():
        if chosen and name not in chosen:
            continue
        with torch.no_grad():
            export(name, module, inputs, os.path.join(REPO, "test", "Import", "Inputs"))
            out = module(*inputs)
        outs = out if isinstance(out, tuple) else (out,)
        with open(os.path.join(REPO, "test", "Execution", "Inputs", f"{name}.json"), "w") as f:
            json.dump({"inputs": [tensor_json(t) for t in inputs], "outputs": [tensor_json(t) for t in outs]}, f)


if __name__ == "__main__":
    main()
