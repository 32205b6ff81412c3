#!/usr/bin/env python3
"""fuselab's compiled CPU code against torch.compile (Inductor's C++ back end), side by side.

    python3 tools/bench/vs_torch.py [--runs 10] [--rounds 3] [--threads 1,2]
                                    [--workloads a,b] [--bin target/release] [--json FILE]

Per thread count T, for --rounds alternating rounds over the workloads: fuselab's
`fuse-run examples/W.mlir --bench --no-check --strategy inductor` with OMP_NUM_THREADS=T
(`--parallel true` when T > 1: OpenMP row chunks and GEMMs split into T bands; `--parallel
false` at 1: the serial code) and, in this process, the same
workload from fuselab.models.workloads compiled by `torch.compile` with
`torch.set_num_threads(T)`, each the median of --runs calls after a warm-up. Prints the
median over rounds of each side and the ratio fuselab / torch.compile, plus the machine,
allocator, torch version and load average; --json writes the same as data.
Inputs: torch's from fuselab.models.workloads (weights scaled as there); fuselab's drawn from N(0, 1)
by fuse-run (same shapes and dtypes, other values).
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.append(os.path.join(ROOT, "python"))  # fuselab.models, installed or not
from fuselab.models.workloads import WORKLOADS  # noqa: E402


def fuselab_ms(binary, workload, runs, parallel):
    """fuse-run's median in ms; `parallel`: 0 (one thread) or the thread count."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [os.path.join(binary, "fuse-run"), os.path.join(ROOT, "examples", workload + ".mlir"),
               "--bench", "--no-check", "--runs", str(runs), "--strategy", "inductor",
               "--bench-json", out.name]
        env = dict(os.environ)
        # fuse-run's default (--parallel auto) is parallel steps on OMP_NUM_THREADS
        # threads, serial code on one.
        env["OMP_NUM_THREADS"] = str(parallel or 1)
        cmd += ["--parallel", "true" if parallel else "false"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
        data = json.load(open(out.name))
    return data["functions"][0]["strategies"][0]["median_s"] * 1e3


def torch_ms(compiled, inputs, runs):
    compiled(*inputs)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        compiled(*inputs)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def machine():
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    preload = os.environ.get("LD_PRELOAD", "")
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "allocator": "tcmalloc" if "tcmalloc" in preload else "glibc malloc",
        "torch": torch.__version__,
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--bin", default=os.path.join(ROOT, "target", "release"))
    p.add_argument("--json")
    a = p.parse_args()
    names = [w for w in a.workloads.split(",") if w]
    unknown = [w for w in names if w not in WORKLOADS]
    if unknown:
        p.error("unknown workloads: " + ", ".join(unknown))
    rows = []
    for threads in [int(t) for t in a.threads.split(",")]:
        torch.set_num_threads(threads)
        compiled = {}
        for w in names:
            fn, make_inputs = WORKLOADS[w]
            torch._dynamo.reset()
            compiled[w] = (torch.compile(fn), make_inputs())
            with torch.no_grad():
                compiled[w][0](*compiled[w][1])
        samples = {w: ([], []) for w in names}
        for _ in range(a.rounds):
            for w in names:
                samples[w][0].append(fuselab_ms(a.bin, w, a.runs, threads if threads > 1 else 0))
                with torch.no_grad():
                    samples[w][1].append(torch_ms(*compiled[w], a.runs))
        for w in names:
            f, t = (statistics.median(s) for s in samples[w])
            rows.append({"workload": w, "threads": threads, "fuselab_ms": f, "torch_compile_ms": t,
                         "ratio": f / t, "fuselab_rounds": samples[w][0], "torch_rounds": samples[w][1]})
    info = machine()
    print("machine: %(cpu)s, %(cores)s cores, %(allocator)s, torch %(torch)s, load %(load_average)s" % info)
    print("| workload | threads | fuselab ms | torch.compile ms | fuselab / torch |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %d | %.3g | %.3g | %.2f |" % (r["workload"], r["threads"], r["fuselab_ms"],
                                                 r["torch_compile_ms"], r["ratio"]))
    by_threads = {}
    for r in rows:
        by_threads.setdefault(r["threads"], []).append(r["ratio"])
    for t, ratios in sorted(by_threads.items()):
        print("geometric mean, %d thread%s: %.2f" % (t, "" if t == 1 else "s", statistics.geometric_mean(ratios)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": info, "runs": a.runs, "rounds": a.rounds, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
