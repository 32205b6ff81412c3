"""Real TorchInductor's decisions on small programs: for each program, the number of
generated kernels (Triton on CUDA, C++ on CPU) and the bytes they access
(`torch._inductor.metrics.num_bytes_accessed`), to compare with fuselab's Inductor
strategy on the same programs (test/Transforms/*/ quote these figures).

    python3 tools/fidelity/inductor_probe.py [--device cuda|cpu] [NAME ...]

Each program is the PyTorch form of a test's MLIR function of the same name.
"""

import argparse
import json

import torch


def sum_then_broadcast(x, z):
    # test/Transforms/UnrollSmallReductions: a 4-element row sum feeding a broadcast.
    return z * torch.exp(x).sum(dim=1, keepdim=True)


def neighbour_sum(x, w):
    return torch.exp(x).sum(dim=1) * w


def eight_sum_then_broadcast(x, z):
    # 8 elements: not below the threshold, stays a reduction.
    return z * torch.exp(x).sum(dim=1, keepdim=True)


PROGRAMS = {
    "sum_then_broadcast": (sum_then_broadcast, [(4096, 4), (4096, 64)]),
    "neighbour_sum": (neighbour_sum, [(4096, 4), (4096,)]),
    "eight_sum_then_broadcast": (eight_sum_then_broadcast, [(4096, 8), (4096, 64)]),
}


def probe(name, device):
    from torch._inductor import metrics

    fn, shapes = PROGRAMS[name]
    args = [torch.randn(s, device=device) for s in shapes]
    torch._dynamo.reset()
    metrics.reset()
    compiled = torch.compile(fn, dynamic=False)
    compiled(*args)
    return {
        "program": name,
        "device": device,
        "kernels": metrics.generated_kernel_count,
        "bytes": metrics.num_bytes_accessed,
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = p.parse_args()
    for name in a.names or PROGRAMS:
        print(json.dumps(probe(name, a.device)))


if __name__ == "__main__":
    main()
