#!/usr/bin/env python3
"""Writes a random unfused aten DAG of N elementwise ops on 64x64 tensors (each op reads
one or two of the last 16 values): the input of the CPU lowering's size benchmark in
docs/performance.md.  Usage: scripts/random-dag.py N > dag.mlir"""

import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
random.seed(5)
t = "tensor<64x64xf32>"
lines = [f"func.func @dag(%x: {t}, %y: {t}) -> {t} {{"]
values = ["%x", "%y"]
binary = ["aten.add", "aten.mul", "aten.sub", "aten.maximum"]
unary = ["aten.exp", "aten.sin", "aten.relu", "aten.neg", "aten.tanh"]
for i in range(n):
    if random.random() < 0.4:
        a = random.choice(values[-8:])
        lines.append(f'  %v{i} = "{random.choice(unary)}"({a}) : ({t}) -> {t}')
    else:
        a, b = random.choice(values[-8:]), random.choice(values[-16:])
        lines.append(f'  %v{i} = "{random.choice(binary)}"({a}, {b}) : ({t}, {t}) -> {t}')
    values.append(f"%v{i}")
lines.append(f"  return %v{n - 1} : {t}\n}}")
print("\n".join(lines))
