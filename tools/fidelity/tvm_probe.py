"""Real TVM Relax's fusion decisions on the programs of `programs.py`: each program
exported by `torch.export` (weights are inputs), imported by Relax's
`from_exported_program`, then TVM's own fusion pipeline — LegalizeOps,
AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR — and the `call_tir`s left in
`main` counted (one per fused group: a kernel launch), with their names.

    python3 tools/fidelity/tvm_probe.py [--json F] [NAME ...]

TVM 0.27's importer has no converter for `aten.amax`; the probe gives it one that
emits Relax's own `max` reduction over the same dims ([`AMAX`]), so what follows is
TVM's pipeline unchanged. Needs torch and apache-tvm (PyPI: `pip install torch
apache-tvm`; no GPU). Then
`tools/fidelity/compare.py --strategy tvm --reference F` compares fuselab's TVM
strategy with these counts (docs/strategies/tvm.md, "Fidelity").
"""

import argparse
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from programs import PROGRAMS, Program, inputs, probe_all  # noqa: E402


def amax(node, importer):
    """`aten.amax(x, dims, keepdim)` as Relax's `max` (all dims when `dims` is empty)."""
    from tvm import relax

    x = importer.env[node.args[0]]
    dims = list(node.args[1]) if len(node.args) > 1 else []
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    return importer.block_builder.emit(relax.op.max(x, axis=dims or None, keepdims=keepdim))


AMAX = {"amax.default": amax}


def fused_call_tirs(mod):
    """TVM's fusion pipeline on a Relax module — LegalizeOps, AnnotateTIROpPattern,
    FoldConstant, FuseOps, FuseTIR — and the names of the TIR functions `main` then
    calls, in order (one per fused group: a kernel launch)."""
    import tvm
    from tvm import relax

    pipeline = tvm.transform.Sequential(
        [
            relax.transform.LegalizeOps(),
            relax.transform.AnnotateTIROpPattern(),
            relax.transform.FoldConstant(),
            relax.transform.FuseOps(),
            relax.transform.FuseTIR(),
        ]
    )
    with tvm.transform.PassContext(opt_level=3):
        mod = pipeline(mod)
    call_tir = tvm.ir.Op.get("relax.call_tir")
    names = []

    def visit(e):
        if isinstance(e, relax.Call) and e.op == call_tir:
            names.append(e.args[0].name_hint)

    relax.analysis.post_order_visit(mod["main"].body, visit)
    return names


def relax_groups(name):
    """The names of the TIR functions `main` calls after TVM's fusion, in order."""
    import tvm
    from tvm.relax.frontend.torch import from_exported_program

    fn, specs = PROGRAMS[name]
    exported = torch.export.export(Program(fn), tuple(inputs(specs, "cpu")))
    mod = from_exported_program(exported, custom_convert_map=AMAX)
    return fused_call_tirs(mod), tvm.__version__


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*")
    p.add_argument("--json")
    a = p.parse_args()

    def probe(name):
        names, version = relax_groups(name)
        return {"program": name, "torch": torch.__version__, "tvm": version, "kernels": len(names), "kernel_names": names}

    probe_all(a.names, probe, a.json)

if __name__ == "__main__":
    main()
