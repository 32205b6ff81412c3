"""The options of ``torch.compile(..., backend="fuselab", options={...})``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from fuselab import _native

TARGETS = ("cpu", "gpu")


@dataclass(frozen=True)
class Options:
    """What the backend compiles with.

    strategy: a row of the strategy table (``fuselab.strategies()``; default
        ``inductor``).
    target: ``cpu`` (the JIT, default) or ``gpu`` (PTX kernels and library calls on a
        CUDA GPU, :class:`fuselab.aot.GpuGraph`).
    report: a path; every graph's fusion reports (``fuse-opt --fusion-report``'s
        objects) and every fallback with its reason are written there as JSON.
    parallel: run large steps' row chunks on OpenMP threads (default: when
        ``torch.get_num_threads() > 1``).
    """

    strategy: str = "inductor"
    target: str = "cpu"
    report: str | None = None
    parallel: bool | None = None

    @staticmethod
    def parse(options: Mapping[str, Any] | None) -> "Options":
        """Checks and reads ``options``; a ValueError names what is wrong."""
        given = dict(options or {})
        known = {"strategy", "target", "report", "parallel"}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ValueError(f"fuselab: unknown option(s) {unknown}; known: {sorted(known)}")
        parsed = Options(**given)
        _native.check_strategy(parsed.strategy)
        if parsed.target not in TARGETS:
            raise ValueError(f"fuselab: unknown target {parsed.target!r}; one of {list(TARGETS)}")
        return parsed
