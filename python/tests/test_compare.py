"""fuselab.compare: every strategy on one model, side by side (fusion totals, error
against eager, optional timing), as text and as an HTML table."""

from __future__ import annotations

import pytest
import torch

import fuselab
from test_partition import TopkHead


class Chain(torch.nn.Module):
    """relu(x * 2 + 1) on 64x64 f32: three pointwise ops."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * 2.0 + 1.0)


def test_rows_hold_each_strategys_fusion_totals() -> None:
    x = torch.randn(64, 64)
    result = fuselab.compare(Chain(), (x,), strategies=["unfused", "inductor", "tvm"])
    unfused, inductor, tvm = result.rows
    # Worked by hand: Inductor and TVM fuse the chain into one kernel reading x once and
    # writing the result once, 16 KiB each (64 * 64 * 4 bytes). The unfused pipeline
    # has no fusion pass, so no report.
    for row in (inductor, tvm):
        assert row.reported and (row.kernels, row.launches, row.extern_kernels) == (1, 1, 0)
        assert (row.bytes_read, row.bytes_written) == (16384, 16384)
        assert row.largest_kernel_bytes == 2 * 16384
    assert not unfused.reported and "no fusion report" in str(result)
    assert all(r.max_error is not None and r.max_error <= 1e-6 for r in result.rows)
    assert all(r.seconds is None for r in result.rows) and result.eager_seconds is None


def test_text_and_html_show_every_row() -> None:
    result = fuselab.compare(Chain(), (torch.randn(8, 8),), strategies=["inductor", "tvm"], time=True, runs=2)
    text = str(result)
    assert text.splitlines()[0].split()[:3] == ["strategy", "kernels", "extern"]
    assert "inductor" in text and "tvm" in text and "torch.compile (inductor)" in text
    assert all(r.seconds is not None and r.seconds > 0 for r in result.rows)
    page = result._repr_html_()
    assert page.startswith("<table") and page.count("<tr>") == 3 and "<th>strategy</th>" in page


def test_a_partitioned_model_counts_its_eager_parts() -> None:
    torch.manual_seed(5)
    (row,) = fuselab.compare(TopkHead().eval(), (torch.randn(8, 16),), strategies=["inductor"]).rows
    assert row.fallback is None and row.kernels >= 2 and row.eager_regions == 1
    assert row.max_error is not None and row.max_error <= 1e-4


def test_unknown_strategies_are_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown strategy .fastest. \(expected unfused, inductor"):
        fuselab.compare(Chain(), (torch.randn(4, 4),), strategies=["fastest"])
