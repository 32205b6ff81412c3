#!/usr/bin/env python3
"""Runs fuse-gpu bundles on an NVIDIA GPU (no MLIR here: PTX + manifest.json only).

    python3 tools/gpu/run.py BUNDLE_DIR... [--runs 50] [--warmup 5] [--no-inductor]
                              [--no-torch-check] [--no-autotune] [--check-only] [--json FILE]

For each bundle (docs/gpu.md has the format): regenerates the inputs from the seed with
the portable generator (the same as fuse-gpu's), loads kernels.ptx with cupy, runs the
launch plan (kernels by cupy, library kernels -- mm, bmm, convolution -- by torch, i.e.
cuBLAS/cuDNN as Inductor's extern kernels), then
  * checks every output against the CPU oracle's samples in the manifest (fuselab's
    tolerance: |got - want| <= atol * max(1, max|want|) + rtol * |want|, NaNs alike),
  * checks every output in full against PyTorch eager on the same inputs, when the
    function is one of fuselab.models.workloads' (same argument order) or the bundle's
    folder is named after a program of tools/fidelity/programs.py (`NAME.STRATEGY`),
  * checks every launch variant (fuse-gpu --autotune: a reduction kernel in other warp
    counts) the same way, then times each variant of a step alone on the plan's buffers
    (L2 flushed before each launch, median) and keeps the fastest -- Inductor's
    CachingAutotuner.benchmark_all_configs at a kernel's first call (--no-autotune:
    the default kernels),
  * times the plan with CUDA events (median of --runs after --warmup), and in the same
    process TorchInductor (torch.compile of the workload) on the same inputs, and prints
    the ratio fuselab / Inductor.
Exit 1 if any check fails.
"""
import argparse
import json
import os
import statistics
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The bundle reader (plan runner and portable inputs) is the package's, loaded from the
# working tree: the device has the tree but not the built extension, which
# fuselab.runtime does not need.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from fuselab.dtypes import DTYPES  # noqa: E402
from fuselab.runtime import Bundle, mix, portable_input  # noqa: E402,F401


def close(got, want, atol, rtol, max_abs):
    got = got.double()
    want = want.double()
    nan_ok = torch.equal(torch.isnan(got), torch.isnan(want))
    both = ~torch.isnan(want)
    tol = atol * max(1.0, max_abs) + rtol * want.abs()
    diff = (got - want).abs()
    bad = both & ~(diff <= tol) & ~((got == want) & both)
    return nan_ok and not bool(bad.any()), float(diff[both].max()) if bool(both.any()) else 0.0


def oracle_check(b):
    results = []
    if not b.m.get("oracle"):
        return results
    for o in b.m["oracle"]["outputs"]:
        flat = b.flat[o["buffer"]]
        n = flat.numel()
        count = o["count"]
        idx = torch.tensor([j * n // count for j in range(count)], device="cuda")
        got = flat[idx].double().cpu()
        want = torch.tensor([float(v) for v in o["values"]], dtype=torch.float64)
        ok, err = close(got, want, o["atol"], o["rtol"], o["max_abs"])
        results.append((ok, err))
    return results


TOL = {torch.float32: (1e-4, 1e-3), torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2)}


def workload(name):
    try:
        from fuselab.models import workloads
    except ImportError:
        return None
    entry = workloads.WORKLOADS.get(name)
    return entry[0] if entry else None


def program(path):
    """The fidelity program (tools/fidelity/programs.py) a bundle folder `NAME.STRATEGY`
    was built from, if NAME is one: its function, to check and time like a workload."""
    name = os.path.basename(os.path.normpath(path)).split(".")[0]
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fidelity"))
    try:
        from programs import PROGRAMS
    except ImportError:
        return None
    entry = PROGRAMS.get(name)
    return entry[0] if entry else None


def reference(fn, b):
    """PyTorch's outputs of `fn` on the bundle's inputs."""
    with torch.no_grad():
        return fn(*b.inputs)


def torch_check(b, ref):
    """Compares the bundle's outputs with PyTorch's (`ref`, from `reference`)."""
    refs = ref if isinstance(ref, tuple) else (ref,)
    outs = b.outputs()
    if len(refs) != len(outs):
        return None
    res = []
    for r, g in zip(refs, outs):
        atol, rtol = TOL.get(g.dtype, (0.0, 0.0))
        r = r.reshape(g.shape)
        ok, err = close(g, r, atol, rtol, float(r.double().abs().max()) if r.numel() else 0.0)
        res.append((ok, err))
    return res


def variant_steps(b):
    return [(i, s) for i, s in enumerate(b.m["steps"]) if s["op"] == "launch" and s.get("variants")]


def check_variants(b, ref):
    """Runs the plan once per variant rank j (every step with a j-th variant launches
    it, the others their own kernel) and checks the outputs as the default plan's:
    (variant kernels checked, all PASS)."""
    steps = variant_steps(b)
    ranks = max((len(s["variants"]) for _, s in steps), default=0)
    ok = True
    for j in range(1, ranks + 1):
        b.choice = {i: b.candidates(s)[j] for i, s in steps if len(s["variants"]) >= j}
        b.run()
        torch.cuda.synchronize()
        oc = oracle_check(b)
        ok &= all(good for good, _ in oc)
        if ref is not None:
            tc = torch_check(b, ref)
            ok &= tc is None or all(good for good, _ in tc)
    b.choice = {}
    return sum(len(s["variants"]) for _, s in steps), ok


def autotune(b, reps=20):
    """Each step's kernels timed alone on the plan's buffers (after a full run: they
    hold its values), the L2 cache flushed before each launch, as triton's do_bench does
    for Inductor's benchmark_all_configs; the fastest by median is kept in b.choice.
    Returns [{step, kernel, threads, us: [per candidate]}]."""
    flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
    chosen = []
    for i, s in variant_steps(b):
        medians = []
        for kernel, block in b.candidates(s):
            b.launch(s, kernel, block)
            torch.cuda.synchronize()
            times = []
            for _ in range(reps):
                flush.zero_()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                b.launch(s, kernel, block)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) * 1000.0)
            medians.append(statistics.median(times))
        best = min(range(len(medians)), key=medians.__getitem__)
        b.choice[i] = b.candidates(s)[best]
        kernel, block = b.choice[i]
        chosen.append({"step": i, "kernel": kernel, "threads": block[0], "us": [round(t, 2) for t in medians]})
    return chosen


def time_it(f, runs, warmup):
    for _ in range(warmup):
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        f()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1000.0)
    return statistics.median(times)


def kernel_time(f, runs):
    """Mean GPU time per call of every kernel (and copy) `f` launches, from the CUDA
    profiler (CUPTI sees cupy's launches and torch's alike)."""
    return kernel_times(f, runs)[0]


def kernel_times(f, runs):
    """`kernel_time`, and each kernel's share: [[name, us per call]], largest first."""
    from torch.profiler import ProfilerActivity, profile

    f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            f()
        torch.cuda.synchronize()
    events = [(e.key[:80], e.self_device_time_total / runs) for e in prof.key_averages() if e.self_device_time_total > 0]
    events.sort(key=lambda kv: -kv[1])
    return sum(us for _, us in events), [[k, round(us, 2)] for k, us in events]


def registers(b):
    """Registers and local (spill) bytes per thread of each kernel the bundle launched."""
    return {
        name: [f.attributes.get("num_regs"), f.attributes.get("local_size_bytes")]
        for name, f in b.kernels.items()
    }


def minimal_bytes(b):
    size = {"f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i1": 1}
    return sum(
        (int(np.prod(x["shape"])) if x["shape"] else 1) * size[x["dtype"]]
        for x in b.m["buffers"]
        if x["role"] in ("input", "output")
    )


def copy_bandwidth():
    """TB/s of a 1 GiB device-to-device copy (read + write), kernel time."""
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    us = kernel_time(lambda: dst.copy_(src), 10)
    return 2 * src.numel() * 4 / (us * 1e-6) / 1e12


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bundles", nargs="+")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--no-inductor", action="store_true")
    p.add_argument("--no-torch-check", action="store_true")
    p.add_argument("--check-only", action="store_true", help="run and check, no timing")
    p.add_argument("--no-autotune", action="store_true", help="time the steps' own kernels, not the fastest variants")
    p.add_argument("--json")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows, failed = [], False
    compiled_cache = {}
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from progress import progress

    for path in progress(a.bundles, "run.py", "bundles"):
        row = {"bundle": path}
        try:
            b = Bundle(path)
            row.update(function=b.m["function"], strategy=b.m["strategy"], launches=sum(s["op"] == "launch" for s in b.m["steps"]))
            b.run()
            torch.cuda.synchronize()
            oc = oracle_check(b)
            row["oracle"] = "PASS" if oc and all(ok for ok, _ in oc) else ("-" if not oc else "FAIL")
            row["oracle_max_abs_err"] = max((e for _, e in oc), default=0.0)
            fn = workload(b.m["function"]) or program(path)
            ref = reference(fn, b) if fn is not None and not a.no_torch_check else None
            if ref is not None:
                tc = torch_check(b, ref)
                row["torch"] = "-" if tc is None else ("PASS" if all(ok for ok, _ in tc) else "FAIL")
                row["torch_max_abs_err"] = max((e for _, e in tc or []), default=0.0)
            tested, variants_ok = check_variants(b, ref)
            if tested:
                row["variants"] = f"{tested} {'PASS' if variants_ok else 'FAIL'}"
            failed |= row.get("oracle") == "FAIL" or row.get("torch") == "FAIL" or not variants_ok
            if a.check_only:
                rows.append(row)
                if row.get("oracle") == "FAIL" or not variants_ok:
                    print(json.dumps(row), flush=True)
                continue
            if tested and not a.no_autotune:
                row["autotune"] = autotune(b)
                b.choice = {}
                row["fuselab_default_us"] = kernel_time(b.run, a.runs)
                b.choice = {c["step"]: (c["kernel"], [c["threads"], 1, 1]) for c in row["autotune"]}
            row["fuselab_wall_us"] = time_it(b.run, a.runs, a.warmup)
            row["fuselab_us"], row["fuselab_kernels"] = kernel_times(b.run, a.runs)
            row["registers"] = registers(b)
            row["fuselab_tbs"] = minimal_bytes(b) / (row["fuselab_us"] * 1e-6) / 1e12
            if fn is not None and not a.no_inductor:
                key = (b.m["function"], id(fn), tuple(tuple(t.shape) for t in b.inputs))
                if key not in compiled_cache:
                    torch._dynamo.reset()
                    compiled_cache[key] = torch.compile(fn, dynamic=False)
                compiled = compiled_cache[key]
                with torch.no_grad():
                    call = lambda: compiled(*b.inputs)  # noqa: E731
                    row["inductor_wall_us"] = time_it(call, a.runs, a.warmup)
                    row["inductor_us"], row["inductor_kernels"] = kernel_times(call, a.runs)
                row["inductor_tbs"] = minimal_bytes(b) / (row["inductor_us"] * 1e-6) / 1e12
                row["ratio"] = row["fuselab_us"] / row["inductor_us"]
        except Exception as e:  # one bundle's failure is reported, the others run
            row["error"] = f"{type(e).__name__}: {e}"
            failed = True
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    if a.check_only:
        bad = [
            r
            for r in rows
            if "error" in r or r.get("oracle") == "FAIL" or r.get("torch") == "FAIL" or "FAIL" in r.get("variants", "")
        ]
        checked = sum(r.get("oracle") == "PASS" for r in rows)
        print(f"checked {len(rows)} bundles: {len(rows) - len(bad)} PASS ({checked} against oracle samples), {len(bad)} FAIL or error")
        for r in bad:
            print(json.dumps(r))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
        return 1 if failed else 0
    print(f"copy bandwidth (1 GiB, kernel time): {copy_bandwidth():.2f} TB/s")
    print("kernel time per call (profiler), us; TB/s on minimal bytes (inputs read once, outputs written once)")
    print("(untuned: the steps' own kernels, when autotuning chose variants)")
    print(f"{'bundle':36s} {'launch':>6s} {'oracle':>6s} {'torch':>6s} {'fuselab':>9s} {'TB/s':>5s} {'inductor':>9s} {'TB/s':>5s} {'ratio':>6s} {'untuned':>8s}")
    for r in rows:
        name = r["bundle"].replace("gpu-bundles/", "")
        if "error" in r:
            print(f"{name:36s} ERROR {r['error']}")
            continue
        print(
            f"{name:36s} {r['launches']:6d} {r.get('oracle', '-'):>6s} {r.get('torch', '-'):>6s} "
            f"{r['fuselab_us']:9.1f} {r['fuselab_tbs']:5.2f} {r.get('inductor_us', float('nan')):9.1f} "
            f"{r.get('inductor_tbs', float('nan')):5.2f} {r.get('ratio', float('nan')):6.2f}"
            + (f" {r['fuselab_default_us']:8.1f}" if "fuselab_default_us" in r else f" {'-':>8s}")
        )
    for r in rows:
        if "FAIL" in r.get("variants", ""):
            print(f"{r['bundle']}: a launch variant FAILS its check ({r['variants']})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
