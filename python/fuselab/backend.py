"""The ``torch.compile`` backend: ``torch.compile(model, backend="fuselab",
options={"strategy": "tvm", "report": "fusion.json"})``.

Each graph dynamo captures is exported (``torch.export``, core ATen, weights lifted to
inputs), imported into the ``aten`` dialect by fuselab's importer, fused by the chosen
strategy and compiled for the CPU by the JIT — calls run the compiled code on the input
tensors' own storage (non-contiguous inputs are copied once per call) into outputs
allocated by torch — or, with ``options={"target": "gpu"}``, for the GPU: a package as
:func:`fuselab.aot_compile` writes, run by :mod:`fuselab.runtime` (PTX kernels launched on
torch's current stream, buffers from its caching allocator, library steps through
torch).

A graph holding ops the importer does not know is partitioned (:mod:`fuselab.partition`):
its supported regions are compiled, the rest runs in eager PyTorch, with a
:class:`FallbackWarning` naming the eager ops and the report listing every region.
A graph fuselab does not compile at all runs in eager PyTorch, with a
:class:`FallbackWarning` naming the reason (and an entry in the report): no region that
compiles, dynamic shapes, inputs on another device, a graph that mutates its inputs.
A graph that needs gradients goes through AOTAutograd (as Inductor's does): its forward
and backward ATen graphs are each compiled, partitioned or run eagerly the same way.
A wrong result is never the answer to an unsupported graph.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Callable, Mapping, Sequence

import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch._subclasses.fake_tensor import unset_fake_temporarily

from fuselab.graph import Unsupported
from fuselab.options import Options
from fuselab.partition import NOT_IN_TABLE, Partitioned, compile_or_partition


class FallbackWarning(UserWarning):
    """A graph runs in eager PyTorch instead of fuselab's code; the message says why."""


#: How a :class:`FallbackWarning` for a whole graph run eagerly begins (a partitioned
#: graph's warning, whose other regions compiled, does not).
EAGER_GRAPH = "fuselab: running a graph in eager PyTorch"


def _record(options: Options, entry: dict[str, Any]) -> None:
    if options.report is None:
        return
    try:
        with open(options.report, encoding="utf-8") as f:
            entries = json.load(f)
    except (FileNotFoundError, json.JSONDecodeError):
        entries = []
    entries.append(entry)
    with open(options.report, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)


def _compile(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], options: Options, parallel: bool,
             graph: str, eager: Callable[..., Any]) -> Callable[..., Any]:
    """``gm`` compiled whole, else partitioned around what the importer refuses (with a
    :class:`FallbackWarning` naming the eager ops), else ``eager`` with a
    :class:`FallbackWarning` giving the reason; each outcome one report entry."""
    ops = sorted({str(n.target) for n in gm.graph.nodes if n.op == "call_function"})
    entry = {"strategy": options.strategy, "graph": graph, "ops": ops}
    try:
        compiled = compile_or_partition(gm, example_inputs, options.strategy, parallel, options.target)
    except Unsupported as e:
        reason = str(e)
    except Exception as e:  # export errors: torch's own message
        reason = f"{type(e).__name__}: {e}"
    else:
        if isinstance(compiled, Partitioned):
            eager_ops = compiled.report[0]["eager_ops"]
            why = f": ops {eager_ops} are {NOT_IN_TABLE}" if eager_ops else ""
            warnings.warn(f"fuselab: {compiled.compiled_regions} region(s) of a graph compiled, the rest runs "
                          f"in eager PyTorch{why}", FallbackWarning, stacklevel=3)
            _record(options, {**entry, "partitions": compiled.report})
        else:
            _record(options, {**entry, "reports": compiled.report})
        return compiled
    warnings.warn(f"{EAGER_GRAPH}: {reason}", FallbackWarning, stacklevel=3)
    _record(options, {**entry, "fallback": reason})
    return eager


def _materialized(example_inputs: Sequence[Any]) -> list[Any]:
    """Real tensors of AOTAutograd's fake example inputs' shapes and dtypes (the values
    only feed the partitioner's one run; integers are zeros, valid as indices)."""
    out: list[Any] = []
    for t in example_inputs:
        if not isinstance(t, torch.Tensor):
            out.append(t)
        elif t.dtype.is_floating_point:
            out.append(torch.randn(tuple(t.shape), dtype=t.dtype, device=t.device))
        else:
            out.append(torch.zeros(tuple(t.shape), dtype=t.dtype, device=t.device))
    return out


def _aot_compiler(options: Options, parallel: bool, graph: str) -> Callable[..., Any]:
    """An AOTAutograd compiler: the forward or backward ATen graph through
    :func:`_compile` (eager for that graph: the graph itself), outside AOTAutograd's
    fake mode, boxed as AOTAutograd calls it."""

    def compiler(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> Callable[..., Any]:
        with unset_fake_temporarily():
            compiled = _compile(gm, _materialized(example_inputs), options, parallel, graph, gm)
        return make_boxed_func(compiled)

    return compiler


def fuselab_backend(gm: torch.fx.GraphModule, example_inputs: Sequence[Any],
                    options: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """Compiles ``gm`` (a graph dynamo captured) with fuselab, or returns its eager
    ``forward`` with a :class:`FallbackWarning` when fuselab does not compile it. A graph
    that needs gradients goes through AOTAutograd: its forward and backward ATen graphs
    are compiled (or partitioned, or eager) each on its own."""
    parsed = Options.parse(options)
    parallel = parsed.parallel if parsed.parallel is not None else torch.get_num_threads() > 1
    if torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs
    ):
        return aot_autograd(
            fw_compiler=_aot_compiler(parsed, parallel, "forward"),
            bw_compiler=_aot_compiler(parsed, parallel, "backward"),
        )(gm, example_inputs)
    return _compile(gm, example_inputs, parsed, parallel, "inference", gm.forward)
