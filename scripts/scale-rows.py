#!/usr/bin/env python3
"""Writes FILE with its rows scaled by K: every tensor type of rank >= 2 whose leading
dimension equals the first argument's leading dimension R gets K * R (x16 benchmark
sizes: "16x the rows", ../shared/anchors.md). Rank-1 tensors are left alone (they are
column parameters in the workloads this is used on: seed_10op, layernorm, softmax,
rmsnorm, two_reductions, pointwise_chain_100, diamond_wide); a workload with per-row
rank-1 tensors (log_softmax_nll's targets) cannot be scaled by this rule.

    scripts/scale-rows.py examples/softmax.mlir 16 > /tmp/softmax_x16.mlir
"""
import re
import sys


def main():
    path, k = sys.argv[1], int(sys.argv[2])
    text = open(path).read()
    m = re.search(r"func\.func @\w+\(%\w+: tensor<(\d+)x", text)
    if not m:
        sys.exit(f"{path}: no function whose first argument has rank >= 2")
    rows = m.group(1)

    def scale(t):
        dims = t.group(1).split("x")
        if len(dims) >= 3 and dims[0] == rows:
            dims[0] = str(int(rows) * k)
        return "tensor<" + "x".join(dims) + ">"

    sys.stdout.write(re.sub(r"tensor<([0-9x]+x[a-z0-9]+)>", scale, text))


if __name__ == "__main__":
    main()
