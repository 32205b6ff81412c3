"""Real TorchInductor's decisions on small programs: for each program, the kernels it
generates (Triton on CUDA, C++ on CPU; names from its output code), to compare with
fuselab's Inductor strategy on the same programs (test/Transforms/*/ quote these).

    python3 tools/fidelity/inductor_probe.py [--device cuda|cpu] [NAME ...]

Each program is the PyTorch form of a test's MLIR function of the same name.
"""

import argparse
import json
import re

import torch


def sum_then_broadcast(x, z):
    # test/Transforms/UnrollSmallReductions: a 4-element row sum feeding a broadcast.
    return z * torch.exp(x).sum(dim=1, keepdim=True)


def neighbour_sum(x, w):
    return torch.exp(x).sum(dim=1) * w


def eight_sum_then_broadcast(x, z):
    # 8 elements: not below the threshold, stays a reduction.
    return z * torch.exp(x).sum(dim=1, keepdim=True)


def mid_sum(x):
    # test/Transforms/SplitReductions: a full sum over 2^20 elements, negated.
    return -torch.exp(x).sum()


def big_amax(x):
    return torch.abs(x).amax()


def odd_sum(x):
    # 1000 x 1001 elements: the split does not divide them.
    return -torch.exp(x).sum()


PROGRAMS = {
    "mid_sum": (mid_sum, [(1024, 1024)]),
    "big_amax": (big_amax, [(8192, 4096)]),
    "odd_sum": (odd_sum, [(1000, 1001)]),
    "sum_then_broadcast": (sum_then_broadcast, [(4096, 4), (4096, 64)]),
    "neighbour_sum": (neighbour_sum, [(4096, 4), (4096,)]),
    "eight_sum_then_broadcast": (eight_sum_then_broadcast, [(4096, 8), (4096, 64)]),
}


def probe(name, device):
    from torch._inductor.utils import run_and_get_code

    fn, shapes = PROGRAMS[name]
    args = [torch.randn(s, device=device) for s in shapes]
    torch._dynamo.reset()
    _, code = run_and_get_code(torch.compile(fn, dynamic=False), *args)
    # Generated kernels (each defined once in the output code; this programs' kernels
    # are each called once).
    kernels = sorted(set(re.findall(r"def (triton_\w+|cpp_\w+)\(", "\n".join(code))))
    return {"program": name, "device": device, "kernels": len(kernels), "kernel_names": kernels}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = p.parse_args()
    for name in a.names or PROGRAMS:
        print(json.dumps(probe(name, a.device)))


if __name__ == "__main__":
    main()
