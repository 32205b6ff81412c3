#!/usr/bin/env python3
"""Records PyTorch's outputs for the edge cases of test/Execution/edge-cases.mlir.

Each case is one function of that file: its inputs (NaN, infinities, signed zeros,
corrections at or beyond N, int64 values, int32 values that wrap) and what torch (CPU, eager) returns for the
same ops. The JSON files are `fuse-run --expect` files: `{"inputs": [...], "outputs":
[...]}` with tensors as `{"shape", "dtype", "data"}`, non-finite floats as "nan", "inf",
"-inf". Usage: python3 tools/record_edge_cases.py OUT_DIR  (needs torch; run where it is
installed, e.g. the device machine) and copy OUT_DIR/*.json to test/Execution/Inputs/.
"""

import json
import math
import os
import sys

import torch

NAN, INF = float("nan"), float("inf")
DTYPES = {torch.float32: "float32", torch.int64: "int64", torch.int32: "int32", torch.bool: "bool"}


def encode(t):
    data = []
    for v in t.flatten().tolist():
        if isinstance(v, bool):
            data.append(v)
        elif isinstance(v, float) and math.isnan(v):
            data.append("nan")
        elif isinstance(v, float) and math.isinf(v):
            data.append("inf" if v > 0 else "-inf")
        else:
            data.append(v)
    return {"shape": list(t.shape), "dtype": DTYPES[t.dtype], "data": data}


def f32(values):
    return torch.tensor(values, dtype=torch.float32)


def i64(values):
    return torch.tensor(values, dtype=torch.int64)


def nan_reductions():
    x = f32([[1.0, NAN, 3.0], [-INF, -INF, -INF]])
    outs = [
        torch.amax(x, dim=1, keepdim=True),
        torch.amin(x, dim=1, keepdim=True),
        torch.sum(x, dim=1, keepdim=True),
        torch.mean(x, dim=1, keepdim=True),
        torch.any(x, dim=1, keepdim=True),
    ]
    return [x], outs


def nan_pointwise():
    x = f32([NAN, 1.0, -1.0, 0.0, INF, -INF])
    y = f32([1.0, NAN, 2.0, -0.0, INF, 1.0])
    gt = torch.gt(x, y)
    outs = [
        torch.maximum(x, y),
        torch.minimum(x, y),
        torch.relu(x),
        gt,
        torch.ne(x, y),
        torch.where(gt, x, y),
        torch.sigmoid(x),
        torch.tanh(x),
        torch.exp(x),
    ]
    return [x, y], outs


def special_values():
    x = f32([0.0, -0.0, -1.0, 0.5, INF, -INF])
    outs = [
        torch.log(x),
        torch.sqrt(x),
        torch.rsqrt(x),
        torch.reciprocal(x),
        torch.erf(x),
        torch.nn.functional.silu(x),
        torch.abs(x),
    ]
    return [x], outs


def gelu_cases():
    # Finite inputs only: at +-inf torch 2.11's CPU kernel returns NaN while its CUDA
    # kernel (and the formula x * Phi(x)) gives +inf and 0; fuselab keeps the formula.
    x = f32([0.0, -0.0, -1.0, 0.5, 10.0, -10.0])
    return [x], [torch.nn.functional.gelu(x), torch.nn.functional.gelu(x, approximate="tanh")]


def pow_cases():
    x = f32([0.0, -2.0, 2.0, -0.5, NAN])
    outs = [torch.pow(x, e) for e in (0.0, 2.0, 3.0, 0.5)]
    return [x], outs


def softmax_inf():
    x = f32([[-INF, 0.0, 1.0], [-INF, -INF, -INF]])
    return [x], [torch.softmax(x, dim=-1), torch.log_softmax(x, dim=-1)]


def var_cases():
    x = f32([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]])
    outs = [torch.var(x, dim=1, correction=c) for c in (5, 4, 0, 1)]
    return [x], outs


def group_norm_cases():
    # 3 groups of 2 channels x 3 positions; the last batch entry's groups are constant
    # (variance 0: rsqrt(eps) scales exact zeros).
    x = torch.arange(36, dtype=torch.float32).reshape(2, 6, 3) * 0.25 - 3.0
    x[1] = torch.tensor([1.5, -2.0, 4.0]).repeat_interleave(6).reshape(6, 3)
    w = f32([1.0, -0.5, 2.0, 0.25, 1.5, -1.0])
    b = f32([0.0, 0.1, -0.2, 0.3, -0.4, 0.5])
    return [x, w, b], [torch.nn.functional.group_norm(x, 3, w, b, eps=1e-5)]


def int_ops():
    a = i64([3, -3, 7, 0])
    b = i64([2, 2, -2, 5])
    outs = [
        a + b,
        a * b,
        a - b,
        torch.maximum(a, b),
        torch.minimum(a, b),
        torch.sum(a, dim=0, keepdim=True),
        torch.lt(a, b),
        torch.eq(a, b),
        a.to(torch.float32),
    ]
    return [a, b], outs


def int32_ops():
    a = torch.tensor([1, -3, 1073741824, 2147483647], dtype=torch.int32)
    b = i64([2, -5, 7, 0])
    x = f32([2.7, -2.7, 100.9, -0.5])
    xi = x.to(torch.int32)
    outs = [
        a + a,
        a * a,
        a.to(torch.int64) + b,
        torch.lt(a, b),
        xi,
        a.to(torch.float32),
        torch.sum(a, dim=0, keepdim=True),
        torch.maximum(a, xi),
        a + b,
    ]
    return [a, b, x], outs


CASES = [
    nan_reductions,
    nan_pointwise,
    special_values,
    gelu_cases,
    pow_cases,
    softmax_inf,
    var_cases,
    group_norm_cases,
    int_ops,
    int32_ops,
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for case in CASES:
        inputs, outputs = case()
        doc = {
            "torch": torch.__version__,
            "inputs": [encode(t) for t in inputs],
            "outputs": [encode(t) for t in outputs],
        }
        path = os.path.join(out, f"edge-{case.__name__.replace('_', '-')}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
            f.write("\n")
        print(path)


if __name__ == "__main__":
    main()
