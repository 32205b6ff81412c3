"""The ``torch.compile`` backend: ``torch.compile(model, backend="fuselab",
options={"strategy": "tvm", "report": "fusion.json"})``.

Each graph dynamo captures is exported (``torch.export``, core ATen, weights lifted to
inputs), imported into the ``aten`` dialect by fuselab's importer, fused by the chosen
strategy and compiled for the CPU by the JIT; calls run the compiled code on the input
tensors' own storage (non-contiguous inputs are copied once per call) into outputs
allocated by torch.

A graph holding ops the importer does not know is partitioned (:mod:`fuselab.partition`):
its supported regions are compiled, the rest runs in eager PyTorch, with a
:class:`FallbackWarning` naming the eager ops and the report listing every region.
A graph fuselab does not compile at all runs in eager PyTorch, with a
:class:`FallbackWarning` naming the reason (and an entry in the report): no region that
compiles, dynamic shapes, inputs on another device, a graph that mutates its inputs, and a
graph that needs gradients (the backward is not compiled: eager PyTorch computes it).
A wrong result is never the answer to an unsupported graph.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Callable, Mapping, Sequence

import torch

from fuselab.graph import Unsupported, compile_graph
from fuselab.options import Options
from fuselab.partition import NOT_IN_TABLE, partition


class FallbackWarning(UserWarning):
    """A graph runs in eager PyTorch instead of fuselab's code; the message says why."""


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


def _partitioned(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], options: Options,
                 parallel: bool, ops: list[str]) -> Callable[..., Any] | None:
    """``gm`` with its supported regions compiled and the rest eager, with a
    :class:`FallbackWarning` naming the eager ops; None when no region compiles."""
    try:
        result = partition(gm, example_inputs, options.strategy, parallel)
    except Unsupported:
        return None
    except Exception:  # export or interpretation errors: the whole graph runs eagerly
        return None
    eager = result.report[0]["eager_ops"]
    warnings.warn(f"fuselab: ops {eager} run in eager PyTorch ({NOT_IN_TABLE}); "
                  f"{result.compiled_regions} region(s) compiled", FallbackWarning, stacklevel=3)
    _record(options, {"strategy": options.strategy, "ops": ops, "partitions": result.report})
    return result


def fuselab_backend(gm: torch.fx.GraphModule, example_inputs: Sequence[Any],
                    options: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """Compiles ``gm`` (a graph dynamo captured) with fuselab, or returns its eager
    ``forward`` with a :class:`FallbackWarning` when fuselab does not compile it."""
    parsed = Options.parse(options)
    parallel = parsed.parallel if parsed.parallel is not None else torch.get_num_threads() > 1
    ops = sorted({str(n.target) for n in gm.graph.nodes if n.op == "call_function"})
    reason = None
    if torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs
    ):
        reason = "the graph needs gradients (fuselab compiles inference graphs; eager computes the backward)"
    else:
        try:
            compiled = compile_graph(gm, example_inputs, parsed.strategy, parallel)
        except Unsupported as e:
            reason = str(e)
            if e.by_import:
                regions = _partitioned(gm, example_inputs, parsed, parallel, ops)
                if regions is not None:
                    return regions
        except Exception as e:  # export errors: torch's own message
            reason = f"{type(e).__name__}: {e}"
        else:
            _record(parsed, {"strategy": parsed.strategy, "ops": ops, "reports": compiled.report})
            return compiled
    warnings.warn(f"fuselab: running a graph in eager PyTorch: {reason}", FallbackWarning, stacklevel=2)
    _record(parsed, {"strategy": parsed.strategy, "ops": ops, "fallback": reason})
    return gm.forward
