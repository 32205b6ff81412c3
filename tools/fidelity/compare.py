"""fuselab's strategies against the real systems on the programs of `programs.py`:
imports each exported archive (`fuse-import`), runs strategy S's pipeline from aten
(as `fuse-opt --help` prints it) for the target the reference was measured on,
and compares the number of kernels with the reference's: for the Inductor strategy the
generated (non-library) kernels against the kernels Inductor generated
(`inductor_probe.py`'s JSON), for the TVM strategy every fused group (TVM fuses
matmuls and convolutions into its groups) against the `call_tir`s of Relax's `main`
(`tvm_probe.py`'s JSON).

    python3 tools/fidelity/compare.py [--bin DIR] [--strategy inductor|tvm] [--target gpu]
        [--reference test/Fidelity/Inputs/inductor-h200.json]
        [--archives test/Fidelity/Inputs/inductor] [--count kernels|calls] [--allow-errors]

Prints one row per program and `exact kernel-count matches: N of M`; exit status 1
when a program does not import or compile. The tools are taken from `--bin`, else from
PATH, else from target/debug.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys


def strategy_pipeline(binary_dir, strategy):
    """The pipeline from aten of `strategy`, from `fuse-opt --help` ("pipeline from aten:")."""
    text = subprocess.run(
        [os.path.join(binary_dir, "fuse-opt"), "--help"], capture_output=True, text=True, check=True
    ).stdout
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:1] == [strategy] and i + 1 < len(lines) and "pipeline from aten:" in lines[i + 1]:
            return lines[i + 1].split("pipeline from aten:", 1)[1].strip()
    raise SystemExit(f"fuse-opt --help names no pipeline for strategy {strategy!r}")


def fuselab_kernels(binary_dir, archive, target, strategy):
    """fuselab's kernels (names) for one archive, or an error message."""
    imported = subprocess.run(
        [os.path.join(binary_dir, "fuse-import"), archive], capture_output=True, text=True
    )
    if imported.returncode != 0:
        return None, imported.stderr.strip().splitlines()[0] if imported.stderr else "fuse-import failed"
    fused = subprocess.run(
        [
            os.path.join(binary_dir, "fuse-opt"),
            "-",
            f"--target={target}",
            # The strategy's whole pipeline from aten (its graph passes, lowering options
            # and fusion), as fuse-opt --help prints it: one source of truth.
            f"--pass-pipeline=builtin.module({strategy_pipeline(binary_dir, strategy)})",
            "--fusion-report=-",
            "-o",
            os.devnull,
        ],
        input=imported.stdout,
        capture_output=True,
        text=True,
    )
    if fused.returncode != 0:
        return None, fused.stderr.strip().splitlines()[0] if fused.stderr else "fuse-opt failed"
    report = json.loads(fused.stdout)
    names = []
    for f in report["functions"]:
        for k in f["kernels"]:
            # Relax's count is its call_tirs: kernels computed from constants only are
            # evaluated when TVM builds the module, and a builtin is no call_tir
            # (fusion/tvm/fold_constant.rs); Inductor's is its generated kernels, where
            # the C++ back end writes the kernels between two library calls into one
            # function (evaluation "grouped": joined to the one before it with '+').
            if strategy == "tvm":
                if not k.get("evaluation"):
                    names.append(k["name"])
            elif not k.get("extern"):
                if k.get("evaluation") == "grouped" and names:
                    names[-1] += "+" + k["name"]
                else:
                    names.append(k["name"])
    return names, None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser()
    on_path = shutil.which("fuse-opt")
    default_bin = os.path.dirname(on_path) if on_path else os.path.join(repo, "target", "debug")
    p.add_argument("--bin", default=default_bin)
    p.add_argument("--strategy", default="inductor", choices=["inductor", "tvm"])
    p.add_argument("--target", default="gpu")
    p.add_argument("--reference", default=os.path.join(repo, "test", "Fidelity", "Inputs", "inductor-h200.json"))
    p.add_argument("--archives", default=os.path.join(repo, "test", "Fidelity", "Inputs", "inductor"))
    p.add_argument(
        "--count",
        default="kernels",
        choices=["kernels", "calls"],
        help="the reference's distinct generated kernels, or its kernel calls (a kernel may run several times)",
    )
    p.add_argument("--allow-errors", action="store_true", help="exit 0 when a program does not import or compile")
    a = p.parse_args()
    with open(a.reference) as f:
        reference = json.load(f)
    matches, failures = 0, 0
    # One space between fields (FileCheck-friendly): program, the reference's kernels,
    # fuselab's, whether they are equal, fuselab's kernel names.
    print(f"program {'tvm' if a.strategy == 'tvm' else 'inductor'} fuselab match fuselab-kernels")
    for row in reference:
        name = row["program"]
        want = row.get("kernel_calls" if a.count == "calls" else "kernels")
        names, error = fuselab_kernels(a.bin, os.path.join(a.archives, f"{name}.pt2"), a.target, a.strategy)
        if error:
            failures += 1
            print(f"{name} {want} - ERROR {error}")
            continue
        same = want == len(names)
        matches += same
        print(f"{name} {want} {len(names)} {'yes' if same else 'NO'} {' '.join(names)}")
    print(f"exact kernel-count matches: {matches} of {len(reference)}")
    print(f"programs that do not import or compile: {failures} of {len(reference)}")
    sys.exit(1 if failures and not a.allow_errors else 0)


if __name__ == "__main__":
    main()
