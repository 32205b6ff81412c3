"""``fuselab.compare(model, example_inputs)``: every strategy on one model, side by side,
for experiments from a notebook — the Python face of ``fuse-opt --fusion-compare``.

Each strategy compiles the model (``torch.export`` of the whole model, as the backend
compiles a graph, partitioned around ops outside the op table); a row holds the fusion
reports' totals summed over the compiled graphs (kernels, library kernels, launches,
HBM bytes read and written, the largest kernel's bytes), the largest difference from
eager PyTorch's outputs and, with ``time=True``, the median seconds per call beside
eager PyTorch's and ``torch.compile``'s (Inductor), measured in this process one after
another. A strategy that does not compile the model is a row with its reason.

In a notebook the comparison shows as its table and the visual fusion report below it
(the page of ``fuse-opt --fusion-compare=html``: each strategy's graph with its kernels
as groups); :meth:`Comparison.html` returns that page.
"""

from __future__ import annotations

import html
import json
import statistics
import time as clock
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch

from fuselab import _native
from fuselab.graph import Unsupported
from fuselab.partition import Partitioned, compile_or_partition

COLUMNS = ("strategy", "kernels", "extern", "launches", "read MiB", "written MiB", "largest KiB",
           "max |err|", "s/call", "x eager", "x inductor")


@dataclass
class Row:
    """One strategy's result on the model."""

    strategy: str
    kernels: int = 0
    extern_kernels: int = 0
    launches: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    largest_kernel_bytes: int = 0
    max_error: float | None = None
    seconds: float | None = None
    eager_regions: int = 0
    fallback: str | None = None
    reports: list[dict[str, Any]] = field(default_factory=list)

    @property
    def reported(self) -> bool:
        """Whether a fusion pass reported on the strategy's graphs (``unfused`` has none)."""
        return bool(self.reports)

    def cells(self, eager_s: float | None, inductor_s: float | None) -> list[str]:
        """The row as text cells, in :data:`COLUMNS` order."""
        if self.fallback is not None:
            return [self.strategy, f"not compiled: {self.fallback}"] + [""] * (len(COLUMNS) - 2)
        ratio = (lambda base: f"{self.seconds / base:.2f}" if self.seconds and base else "")
        # A strategy without a fusion pass (unfused) writes no report: no totals.
        totals = [
            str(self.kernels), str(self.extern_kernels), str(self.launches),
            f"{self.bytes_read / 2**20:.3f}", f"{self.bytes_written / 2**20:.3f}",
            f"{self.largest_kernel_bytes / 1024:.1f}",
        ] if self.reported else ["no fusion report"] + [""] * 5
        return [
            self.strategy + (f" ({self.eager_regions} eager)" if self.eager_regions else ""),
            *totals,
            "" if self.max_error is None else f"{self.max_error:.2e}",
            "" if self.seconds is None else f"{self.seconds:.3e}",
            ratio(eager_s), ratio(inductor_s),
        ]


@dataclass
class Comparison:
    """The rows of :func:`compare`, printable as text and, in a notebook, as HTML."""

    rows: list[Row]
    eager_seconds: float | None = None
    inductor_seconds: float | None = None
    notes: list[str] = field(default_factory=list)

    def table(self) -> list[list[str]]:
        """Header and rows as text cells."""
        return [list(COLUMNS)] + [r.cells(self.eager_seconds, self.inductor_seconds) for r in self.rows]

    def __str__(self) -> str:
        cells = self.table()
        widths = [max(len(row[i]) for row in cells if i < len(row)) for i in range(len(COLUMNS))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
        if self.eager_seconds is not None:
            lines.append(f"eager {self.eager_seconds:.3e} s/call"
                         + ("" if self.inductor_seconds is None else
                            f", torch.compile (inductor) {self.inductor_seconds:.3e} s/call"))
        return "\n".join(lines + self.notes)

    __repr__ = __str__

    def html(self, title: str = "fuselab.compare") -> str:
        """The visual fusion report of the compiled strategies: one self-contained HTML
        page (the same page as ``fuse-opt --fusion-compare=html``)."""
        results = [{"strategy": r.strategy, "reports": r.reports} for r in self.rows if r.reports]
        return _native.fusion_html(json.dumps(results), title)

    def _repr_html_(self) -> str:
        head, *body = self.table()
        row = lambda cells, tag: "<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in cells) + "</tr>"
        table = ("<table class='fuselab-compare'><thead>" + row(head, "th") + "</thead><tbody>"
                 + "".join(row(r, "td") for r in body) + "</tbody></table>")
        if not any(r.reports for r in self.rows):
            return table
        # The page in a frame of its own: its script and style stay out of the notebook's.
        return (table + "<iframe class='fuselab-report' style='width:100%;height:720px;border:0' srcdoc=\""
                + html.escape(self.html(), quote=True) + "\"></iframe>")


def seconds_per_call(fn: Callable[[], Any], runs: int) -> float:
    """The median wall time of ``runs`` calls of ``fn`` after one warm-up call."""
    fn()
    times = []
    for _ in range(max(runs, 1)):
        start = clock.perf_counter()
        fn()
        times.append(clock.perf_counter() - start)
    return statistics.median(times)


def max_error(got: Any, want: Any) -> float:
    """The largest absolute difference between the leaves of two output structures."""
    got_flat = torch.utils._pytree.tree_leaves(got)
    want_flat = torch.utils._pytree.tree_leaves(want)
    if len(got_flat) != len(want_flat):
        raise ValueError(f"{len(got_flat)} outputs, eager gives {len(want_flat)}")
    errors = [(g.double() - w.double()).abs().max().item() if g.numel() else 0.0
              for g, w in zip(got_flat, want_flat)]
    return max(errors, default=0.0)


def _add_reports(row: Row, reports: Sequence[dict[str, Any]]) -> None:
    for report in reports:
        row.reports.append(report)
        totals = report.get("totals", {})
        row.kernels += totals.get("kernels", 0)
        row.extern_kernels += totals.get("extern_kernels", 0)
        row.launches += totals.get("launches", 0)
        row.bytes_read += totals.get("bytes_read", 0)
        row.bytes_written += totals.get("bytes_written", 0)
        for kernel in report.get("kernels", []):
            row.largest_kernel_bytes = max(row.largest_kernel_bytes,
                                           kernel.get("bytes_read", 0) + kernel.get("bytes_written", 0))


def _compile(model: torch.nn.Module, inputs: Sequence[torch.Tensor], strategy: str,
             parallel: bool, row: Row) -> Callable[..., Any]:
    compiled = compile_or_partition(model, inputs, strategy, parallel)
    if not isinstance(compiled, Partitioned):
        _add_reports(row, compiled.report)
        return compiled
    for region in compiled.report[1:]:
        if "reports" in region:
            _add_reports(row, region["reports"])
        else:
            row.eager_regions += 1
    row.eager_regions += len(compiled.report[0]["eager_ops"])
    return compiled


def compare(model: torch.nn.Module, example_inputs: Sequence[torch.Tensor], *,
            strategies: Sequence[str] | None = None, time: bool = False, runs: int = 10,
            parallel: bool | None = None) -> Comparison:
    """Every strategy (or those given) on ``model`` with ``example_inputs``: a
    :class:`Comparison` of fusion totals, error against eager and, with ``time``, seconds
    per call against eager PyTorch and ``torch.compile`` (CPU, this process)."""
    names = list(strategies) if strategies is not None else _native.strategies()
    for name in names:
        _native.check_strategy(name)
    inputs = tuple(example_inputs)
    if parallel is None:
        parallel = torch.get_num_threads() > 1
    result = Comparison([])
    with torch.no_grad():
        want = model(*inputs)
        if time:
            result.eager_seconds = seconds_per_call(lambda: model(*inputs), runs)
            inductor = torch.compile(model)
            result.inductor_seconds = seconds_per_call(lambda: inductor(*inputs), runs)
        for name in names:
            row = Row(name)
            try:
                compiled = _compile(model, inputs, name, parallel, row)
                row.max_error = max_error(compiled(*inputs), want)
                if time:
                    row.seconds = seconds_per_call(lambda: compiled(*inputs), runs)
            except Unsupported as e:
                row = Row(name, fallback=str(e))
            except Exception as e:  # export errors: torch's own message, as the backend
                row = Row(name, fallback=f"{type(e).__name__}: {e}")
            result.rows.append(row)
    return result
