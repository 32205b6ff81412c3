"""Real TorchInductor's decisions on the programs of `programs.py`: for each, the kernels
Inductor generates (Triton on CUDA, C++ on CPU; names from its output code, each
defined once) and, with `--export DIR`, the program exported for `fuse-import`
(`torch.export` + `run_decompositions()`, weights are inputs: nothing to strip).

    python3 tools/fidelity/inductor_probe.py [--device cuda|cpu] [--export DIR] [--json F] [--code DIR] [NAME ...]

`tools/fidelity/compare.py` then runs fuselab's Inductor strategy on the archives and
compares the kernel counts (docs/strategies/inductor.md, "Fidelity").
"""

import argparse
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from programs import PROGRAMS, Program, inputs, probe_all  # noqa: E402


def probe(name, device, export_dir, compile_=True, code_dir=None):
    import io

    from torch._inductor.utils import run_and_get_code

    fn, specs = PROGRAMS[name]
    args = inputs(specs, device)
    row = {"program": name, "device": device, "torch": torch.__version__}
    if compile_:
        torch._dynamo.reset()
        _, code = run_and_get_code(torch.compile(fn, dynamic=False), *args)
        text = "\n".join(code)
        # Triton kernels are `def triton_...(`; C++ kernels `cpp_fused_... = async_compile.cpp_pybinding(`.
        triton = re.findall(r"def (triton_\w+)\(", text)
        cpp = re.findall(r"^(cpp_\w+) = async_compile\.cpp", text, re.MULTILINE)
        kernels = sorted(set(triton + cpp))
        externs = sorted(set(re.findall(r"extern_kernels\.(\w+)\(", text)))
        # Library calls writing straight into a view of a larger buffer (a cat's slice).
        into_views = len(re.findall(r"extern_kernels\.\w+\([^\n]*out=reinterpret_tensor\(", text))
        row.update(kernels=len(kernels), kernel_names=kernels, extern_kernels=externs)
        if into_views:
            row["extern_into_views"] = into_views
        if code_dir:
            with open(os.path.join(code_dir, f"{name}.{device}.py"), "w") as f:
                f.write(text)
    if export_dir:
        from export_fixtures import strip

        try:
            cpu_args = tuple(a.cpu() for a in args)
            ep = torch.export.export(Program(fn), cpu_args).run_decompositions()
            buf = io.BytesIO()
            torch.export.save(ep, buf)
            buf.seek(0)
            # Without the sample inputs: the importer reads only model.json.
            strip(buf, os.path.join(export_dir, f"{name}.pt2"))
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            row["export_error"] = f"{type(e).__name__}: {e}"[:300]
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--export")
    p.add_argument("--no-compile", action="store_true", help="only export")
    p.add_argument("--json")
    p.add_argument("--code", help="also write each program's generated code to this folder")
    a = p.parse_args()
    for folder in (a.export, a.code):
        if folder:
            os.makedirs(folder, exist_ok=True)
    probe_all(a.names, lambda name: probe(name, a.device, a.export, not a.no_compile, a.code), a.json)

if __name__ == "__main__":
    main()
