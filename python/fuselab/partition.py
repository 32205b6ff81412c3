"""Graphs with ops fuselab does not compile: the supported regions are compiled, the rest
runs in eager PyTorch, as Torch-TensorRT's partitioner splits a graph.

The graph is exported (``torch.export``, core ATen after the default decompositions);
each ATen node is supported when its ``torch.ops`` target is in the importer's op table
(``fuselab._native.supported_targets()``: ``aten.mul.Tensor``, the one table); ``torch.fx``'s
``CapabilityBasedPartitioner`` groups supported nodes into the largest acyclic regions
(``getitem`` nodes join their producer's region) and fuses each into a submodule. Each
region is compiled as a graph of its own (:func:`fuselab.graph.compile_graph`, on the
tensors it receives when the graph runs once on the example inputs); a region fuselab
still refuses (an argument or dtype the op table does not take) stays eager. Every
region and every eager op is listed, with its reason, in the result's ``report``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
from torch.utils import _pytree as pytree
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from fuselab import _native
from fuselab.dtypes import DTYPES
from fuselab.graph import Unsupported, compile_graph

NOT_IN_TABLE = "not in fuselab's op table (fuselab._native.supported_targets()) or on a dtype it lacks"


def _target_name(node: torch.fx.Node) -> str:
    return str(node.target)


def _dtypes_known(node: torch.fx.Node) -> bool:
    """Whether every tensor ``node`` reads or makes has a dtype of fuselab's table (the
    exported graph's ``meta["val"]``; complex numbers, f64 and u8 are not)."""
    known = set(DTYPES.values())
    values = [node.meta.get("val")] + [a.meta.get("val") for a in node.all_input_nodes]
    tensors = [t for v in values for t in pytree.tree_leaves(v) if isinstance(t, torch.Tensor)]
    return all(t.dtype in known for t in tensors)


class _OpTable(OperatorSupportBase):
    """An ATen node is supported when the importer maps its target and every tensor it
    reads or makes has a dtype fuselab takes; a ``getitem`` when its producer is
    supported (the partitioner then puts it in the producer's region)."""

    def __init__(self) -> None:
        super().__init__()
        self.targets = frozenset(_native.supported_targets())

    def is_node_supported(self, submodules: Any, node: torch.fx.Node) -> bool:
        if node.op != "call_function":
            return False
        if node.target is operator.getitem:
            producer = node.args[0]
            return isinstance(producer, torch.fx.Node) and self.is_node_supported(submodules, producer)
        return (isinstance(node.target, torch._ops.OpOverload) and _target_name(node) in self.targets
                and _dtypes_known(node))


def unsupported_ops(gm: torch.fx.GraphModule) -> list[str]:
    """The ATen targets of ``gm`` (an exported graph) that the op table lacks, sorted."""
    table = _OpTable()
    return sorted({
        _target_name(n) for n in gm.graph.nodes
        if n.op == "call_function" and n.target is not operator.getitem and not table.is_node_supported({}, n)
    })


class _Region(torch.nn.Module):
    """A compiled region in the partitioned graph's place of its submodule."""

    def __init__(self, compiled: Callable[..., Any]) -> None:
        super().__init__()
        self.compiled = compiled

    def forward(self, *args: Any) -> Any:
        return self.compiled(*args)


class _Capture(torch.fx.Interpreter):
    """Runs the partitioned graph once, keeping each region's input tensors."""

    def __init__(self, gm: torch.fx.GraphModule, regions: set[str]) -> None:
        super().__init__(gm)
        self.regions = regions
        self.inputs: dict[str, tuple[Any, ...]] = {}

    def call_module(self, target: Any, args: Any, kwargs: Any) -> Any:
        if target in self.regions:
            self.inputs[target] = tuple(args)
        return super().call_module(target, args, kwargs)


@dataclass
class Partitioned:
    """The partitioned graph (callable as the original) and what ran where."""

    module: torch.fx.GraphModule
    report: list[dict[str, Any]] = field(default_factory=list)
    compiled_regions: int = 0

    def __call__(self, *args: Any) -> Any:
        return self.module(*args)


def partition(module: torch.nn.Module, example_inputs: Sequence[Any], strategy: str,
              parallel: bool, target: str = "cpu") -> Partitioned:
    """``module`` with its supported regions compiled and the rest eager. Raises
    :class:`Unsupported` when no region compiles (the caller runs the graph eagerly)."""
    with torch.no_grad():
        ep = torch.export.export(module, tuple(example_inputs), strict=False).run_decompositions()
    gm = ep.module()
    eager = unsupported_ops(gm)
    fused = CapabilityBasedPartitioner(gm, _OpTable(), allows_single_node_partition=True).partition_and_fuse()
    regions = [n for n in fused.graph.nodes if n.op == "call_module" and n.target.startswith("fused_")]
    capture = _Capture(fused, {str(n.target) for n in regions})
    with torch.no_grad():
        capture.run(*example_inputs)
    result = Partitioned(fused, [{"eager_ops": eager, "reason": NOT_IN_TABLE}])
    for node in regions:
        name = str(node.target)
        sub = fused.get_submodule(name)
        ops = sorted({_target_name(n) for n in sub.graph.nodes
                      if n.op == "call_function" and n.target is not operator.getitem})
        try:
            compiled = compile_graph(sub, capture.inputs[name], strategy, parallel, name=name, target=target)
        except Unsupported as e:
            result.report.append({"region": name, "ops": ops, "fallback": str(e)})
            continue
        setattr(fused, name, _Region(compiled))
        result.compiled_regions += 1
        result.report.append({"region": name, "ops": ops, "reports": compiled.report})
    if result.compiled_regions == 0:
        raise Unsupported(f"no region of the graph compiles; ops {eager} are {NOT_IN_TABLE}")
    return result


def compile_or_partition(module: torch.nn.Module, example_inputs: Sequence[Any], strategy: str,
                         parallel: bool, target: str = "cpu") -> Callable[..., Any]:
    """``module`` compiled whole (a :class:`fuselab.graph.CompiledGraph`), else — when the
    importer refused it — :func:`partition` (split around what it refuses: a
    :class:`Partitioned`). When neither compiles, raises the whole graph's
    :class:`Unsupported` (or torch's export error): that is the reason worth reporting."""
    try:
        return compile_graph(module, example_inputs, strategy, parallel, target=target)
    except Unsupported as e:
        if not e.by_import:
            raise
        try:
            return partition(module, example_inputs, strategy, parallel, target)
        except Exception:  # no region compiles, or an export/interpretation error
            raise e from None
