"""One FX graph through fuselab: ``torch.export`` to a ``.pt2`` archive in memory, the
Rust importer (one op table, the ``fuse-import`` one), a strategy's pipeline and the CPU
JIT (``fuselab._native``), then a callable running the compiled code on the tensors'
own storage."""

from __future__ import annotations

import io
import json
from typing import Any, Callable, Sequence

import torch
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils import _pytree as pytree

from fuselab import _native
from fuselab.dtypes import DTYPES



class Unsupported(Exception):
    """A graph fuselab does not compile; the message says why (the caller falls back).
    ``by_import``: the importer refused it (an op, an argument or a dtype outside the op
    table), so its other regions may still compile (:mod:`fuselab.partition`)."""

    def __init__(self, message: str, by_import: bool = False) -> None:
        super().__init__(message)
        self.by_import = by_import


def lifted_inputs(ep: torch.export.ExportedProgram) -> list[int | torch.Tensor]:
    """The archive's inputs in its own order: each lifted parameter, buffer or constant
    as its tensor (bound at compile time), each user input as its position in the call.
    Zero-size ones leave the signature, as ``fuse-import`` leaves them out."""
    state = {**ep.state_dict, **getattr(ep, "constants", {})}
    plan: list[int | torch.Tensor] = []
    user = 0
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            plan.append(user)
            user += 1
        else:
            tensor = state[spec.target]
            if tensor.numel() > 0:
                plan.append(tensor.detach().contiguous())
    return plan


def export_archive(module: torch.nn.Module, example_inputs: Sequence[Any]) -> tuple[torch.export.ExportedProgram, bytes]:
    """``module`` exported (non-strict, core ATen) and saved as ``.pt2`` bytes; raises
    :class:`Unsupported` for a graph that mutates its inputs or buffers."""
    with torch.no_grad():
        ep = torch.export.export(module, tuple(example_inputs), strict=False).run_decompositions()
    outputs = ep.graph_signature.output_specs
    if any(spec.kind != OutputKind.USER_OUTPUT for spec in outputs):
        kinds = sorted({spec.kind.name for spec in outputs})
        raise Unsupported(f"the graph mutates its inputs or buffers ({kinds})")
    buffer = io.BytesIO()
    torch.export.save(ep, buffer)
    return ep, buffer.getvalue()


def check_inputs(example_inputs: Sequence[Any], device: str, target: str) -> None:
    """Raises :class:`Unsupported` unless every input is a tensor on ``device``."""
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor):
            raise Unsupported(f"input #{i} is a {type(x).__name__}, not a tensor "
                              "(symbolic sizes are dynamic shapes, not supported)")
        if x.device.type != device:
            raise Unsupported(f"input #{i} is on {x.device}; {target} runs {device.upper()} tensors")


class CompiledGraph:
    """A callable with the module's calling convention, running fuselab's code."""

    def __init__(self, module: torch.nn.Module, example_inputs: Sequence[Any], strategy: str,
                 parallel: bool, name: str) -> None:
        check_inputs(example_inputs, "cpu", "the CPU target")
        ep, archive = export_archive(module, example_inputs)
        try:
            text = _native.import_pt2(archive, name)
        except ValueError as e:
            raise Unsupported(str(e), by_import=True) from None
        try:
            self._graph = _native.compile(text, name, strategy, parallel)
        except ValueError as e:
            raise Unsupported(str(e)) from None
        self._plan = lifted_inputs(ep)
        self._out_spec = ep.call_spec.out_spec
        # The signature, read once (each read of the extension's getters builds lists).
        self._inputs, self._outputs = self._graph.inputs, self._graph.outputs
        mismatch = self._mismatch(self._bound(example_inputs))
        if mismatch is not None:
            raise Unsupported(mismatch)
        self.report: list[dict[str, Any]] = json.loads(self._graph.report)

    def _bound(self, args: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        return [args[p] if isinstance(p, int) else p for p in self._plan]

    def _mismatch(self, inputs: Sequence[torch.Tensor]) -> str | None:
        """How ``inputs`` (bound, in the compiled function's order) differ from the
        compiled signature, or None."""
        want = self._inputs
        if len(inputs) != len(want):
            return f"the compiled function takes {len(want)} inputs, the graph has {len(inputs)}"
        for i, (t, (shape, dtype)) in enumerate(zip(inputs, want)):
            if list(t.shape) != list(shape) or DTYPES.get(dtype) != t.dtype:
                return f"input #{i} is {t.dtype}{list(t.shape)}, compiled for {dtype}{shape}"
        return None

    def __call__(self, *args: Any) -> Any:
        inputs = [t.contiguous() for t in self._bound(args)]
        mismatch = self._mismatch(inputs)
        if mismatch is not None:
            raise ValueError(f"fuselab: {mismatch}")
        outputs = [torch.empty(shape, dtype=DTYPES[dtype]) for shape, dtype in self._outputs]
        self._graph.run([t.data_ptr() for t in inputs] + [o.data_ptr() for o in outputs])
        return pytree.tree_unflatten(outputs, self._out_spec)


def compile_graph(module: torch.nn.Module, example_inputs: Sequence[Any], strategy: str,
                  parallel: bool, name: str = "graph", target: str = "cpu") -> Callable[..., Any]:
    """The compiled callable of ``module`` on inputs like ``example_inputs`` for
    ``target`` (``cpu``: the JIT; ``gpu``: a GPU package run by :mod:`fuselab.runtime`);
    raises :class:`Unsupported` when fuselab does not compile it."""
    if target == "gpu":
        from fuselab.aot import GpuGraph

        return GpuGraph(module, example_inputs, strategy, name)
    return CompiledGraph(module, example_inputs, strategy, parallel, name)
