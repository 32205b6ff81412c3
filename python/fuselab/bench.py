"""Whole forwards timed side by side: ``python -m fuselab.bench``.

    python -m fuselab.bench [--models MODELS[:NAME,NAME...]]... [--threads 1,2]
                            [--strategies inductor,tvm] [--runs 10] [--json FILE]

Per model and thread count T (``torch.set_num_threads(T)``; fuselab's parallel steps on
when T > 1), in this process one after another: eager PyTorch, ``torch.compile``
(Inductor) and ``torch.compile(backend="fuselab")`` with each strategy — the median wall
time of ``--runs`` calls after a warm-up (:func:`fuselab.compare`'s timer), dynamo's
guards included on both compiled sides — and each strategy's largest difference from
eager's outputs. Prints a table per thread count with each strategy's time over
Inductor's and their geometric mean, with the machine and versions; ``--json`` writes
the same as data. CPU only: the GPU path is measured by ``tools/gpu/run.py`` on bundles.

``MODELS`` is a Python module, by its dotted name or as a file, defining ``MODELS`` (name
to ``(build, make_inputs)``: ``build()`` returns the module, as
:mod:`fuselab.models.corpus`) or ``WORKLOADS`` (name to ``(fn, make_inputs)`` with ``fn``
a function of the inputs, as :mod:`fuselab.models.workloads`, the default).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import sys
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

import fuselab
from fuselab.backend import EAGER_GRAPH, FallbackWarning
from fuselab.compare import max_error, seconds_per_call

DEFAULT_MODELS = "fuselab.models.workloads"

Entry = tuple[Callable[[], torch.nn.Module], Callable[[], tuple[Any, ...]]]


class _Call(torch.nn.Module):
    """A workload function as a module."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _module(path: str) -> Any:
    """The module ``path`` names: a ``.py`` file, or a dotted module name."""
    file = Path(path)
    if file.suffix != ".py":
        try:
            return importlib.import_module(path)
        except ImportError as e:
            raise ValueError(f"fuselab.bench: no models module {path!r} ({e})") from e
    if not file.is_file():
        raise ValueError(f"fuselab.bench: no models file {path!r}")
    loader = importlib.util.spec_from_file_location(f"fuselab_bench_{file.stem}", file)
    if loader is None or loader.loader is None:
        raise ValueError(f"fuselab.bench: cannot load {path!r} as Python")
    module = importlib.util.module_from_spec(loader)
    sys.path.insert(0, str(file.parent))
    try:
        loader.loader.exec_module(module)
    finally:
        sys.path.remove(str(file.parent))
    return module


def load_models(spec: str) -> dict[str, Entry]:
    """The models of ``MODULE[:NAME,NAME...]`` (all of the module's without names; the
    module a dotted name or a ``.py`` file), each as ``(build, make_inputs)``; a
    ValueError names an unknown model or a module defining neither ``MODELS`` nor
    ``WORKLOADS``."""
    path, _, names = spec.partition(":")
    module = _module(path)
    table: dict[str, Entry]
    if hasattr(module, "MODELS"):
        table = dict(module.MODELS)
    elif hasattr(module, "WORKLOADS"):
        table = {name: ((lambda fn=fn: _Call(fn)), inputs) for name, (fn, inputs) in module.WORKLOADS.items()}
    else:
        raise ValueError(f"fuselab.bench: {path!r} defines neither MODELS nor WORKLOADS")
    wanted = [n for n in names.split(",") if n]
    unknown = [n for n in wanted if n not in table]
    if unknown:
        raise ValueError(f"fuselab.bench: {path!r} has no models {unknown}; it has {sorted(table)}")
    return {n: table[n] for n in wanted} if wanted else table


@dataclass
class Result:
    """One model at one thread count: seconds per call of eager, Inductor and each
    strategy (``None``: not compiled, with the reason in ``fallbacks``), and each
    strategy's largest difference from eager."""

    model: str
    threads: int
    eager_s: float | None = None
    inductor_s: float | None = None
    seconds: dict[str, float | None] = field(default_factory=dict)
    max_error: dict[str, float | None] = field(default_factory=dict)
    fallbacks: dict[str, str] = field(default_factory=dict)
    eager_regions: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    def ratio(self, strategy: str) -> float | None:
        """The strategy's time over Inductor's."""
        s = self.seconds.get(strategy)
        return s / self.inductor_s if s and self.inductor_s else None


def measure(name: str, entry: Entry, threads: int, strategies: Sequence[str], runs: int) -> Result:
    """``name`` at ``threads`` threads, each side through ``torch.compile`` as a user runs
    it (dynamo's guards on every call, for fuselab as for Inductor): eager, Inductor and
    ``backend="fuselab"`` with every strategy, timed in this process one after another. A
    strategy whose graphs all ran eagerly is a fallback with the backend's warning; one
    partitioned around eager ops counts its warnings as eager regions."""
    build, make_inputs = entry
    torch.manual_seed(0)
    torch.set_num_threads(threads)
    torch._dynamo.reset()
    try:
        model, inputs = build().eval(), tuple(make_inputs())
    except Exception as e:  # a model class missing here (torchvision), a bad builder
        return Result(name, threads, error=f"cannot build the model: {type(e).__name__}: {e}")
    with torch.no_grad():
        want = model(*inputs)
        result = Result(name, threads, seconds_per_call(lambda: model(*inputs), runs))
        inductor = torch.compile(model)
        result.inductor_s = seconds_per_call(lambda: inductor(*inputs), runs)
        for strategy in strategies:
            torch._dynamo.reset()
            compiled = torch.compile(model, backend="fuselab",
                                     options={"strategy": strategy, "parallel": threads > 1})
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", FallbackWarning)
                try:
                    got = compiled(*inputs)
                except Exception as e:  # the backend falls back rather than raise; a bug if here
                    result.fallbacks[strategy] = f"{type(e).__name__}: {e}"
                    continue
            messages = [str(w.message) for w in caught if issubclass(w.category, FallbackWarning)]
            eager = [m for m in messages if m.startswith(EAGER_GRAPH)]
            if eager and len(eager) == len(messages):
                result.fallbacks[strategy] = eager[0]
                continue
            if messages:
                result.eager_regions[strategy] = len(messages)
            result.max_error[strategy] = max_error(got, want)
            result.seconds[strategy] = seconds_per_call(lambda: compiled(*inputs), runs)
    return result


def geomean(values: Sequence[float]) -> float | None:
    """The geometric mean (``None`` of nothing)."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def render(results: Sequence[Result], strategies: Sequence[str]) -> str:
    """A table per thread count: milliseconds per call, each strategy's ratio to Inductor
    and its largest error, then the geometric mean of the ratios."""
    lines: list[str] = []
    for threads in sorted({r.threads for r in results}):
        rows = [r for r in results if r.threads == threads]
        head = ["model", "eager ms", "inductor ms"] + [f"{s} ms (x ind., err)" for s in strategies]
        cells = [head]
        for r in rows:
            if r.error is not None:
                continue
            line = [r.model, _ms(r.eager_s), _ms(r.inductor_s)]
            for s in strategies:
                if s in r.fallbacks:
                    line.append("not compiled")
                    continue
                ratio, err = r.ratio(s), r.max_error.get(s)
                eager = f", {r.eager_regions[s]} eager" if s in r.eager_regions else ""
                line.append(f"{_ms(r.seconds.get(s))} ({'' if ratio is None else f'{ratio:.2f}'}, "
                            f"{'' if err is None else f'{err:.1e}'}{eager})")
            cells.append(line)
        means = ["geomean x inductor", "", ""]
        for s in strategies:
            m = geomean([x for x in (r.ratio(s) for r in rows) if x is not None])
            means.append("" if m is None else f"{m:.2f}")
        cells.append(means)
        widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
        lines.append(f"threads {threads}")
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
        lines += [f"{r.model}: {r.error}" for r in rows if r.error is not None]
        lines.append("")
    return "\n".join(lines)


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1e3:.3f}"


def machine() -> dict[str, Any]:
    """Where the numbers were measured."""
    return {"machine": platform.machine(), "processor": platform.processor() or platform.platform(),
            "cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__,
            "fuselab": fuselab.__version__}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuselab.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", action="append", metavar="MODULE[:NAME,...]",
                        help="a models module (dotted name or .py file) and, optionally, which of its "
                             f"models (default {DEFAULT_MODELS}; the corpus: fuselab.models.corpus)")
    parser.add_argument("--threads", default="1", help="thread counts, comma-separated (default 1)")
    parser.add_argument("--strategies", default="inductor,tvm", help="fuselab strategies (default inductor,tvm)")
    parser.add_argument("--runs", type=int, default=10, help="timed calls per measurement (default 10)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    args = parser.parse_args(argv)
    try:
        threads = [int(t) for t in args.threads.split(",")]
        if any(t < 1 for t in threads):
            raise ValueError
    except ValueError:
        parser.error(f"--threads takes positive integers, comma-separated, not {args.threads!r}")
    strategies = [s for s in args.strategies.split(",") if s]
    try:
        for s in strategies:
            fuselab._native.check_strategy(s)
        models: dict[str, Entry] = {}
        for spec in args.models or [DEFAULT_MODELS]:
            models.update(load_models(spec))
    except ValueError as e:
        parser.error(str(e))
    results = [measure(name, entry, t, strategies, args.runs) for t in threads for name, entry in models.items()]
    print(render(results, strategies) + json.dumps(machine()))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": machine(), "results": [asdict(r) for r in results]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
