"""Graphs holding ops outside fuselab's op table: the supported regions are compiled,
the rest runs in eager PyTorch (:mod:`fuselab.partition`), outputs equal eager's, and
the report lists every region and every eager op."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import fuselab
from fuselab.partition import unsupported_ops
from test_backend import assert_same


class TopkHead(torch.nn.Module):
    """A linear layer and relu, the top 3 of each row (``aten.topk``: not in the op
    table), then a pointwise tail and a row sum."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(16, 32)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = torch.topk(torch.relu(self.linear(x)), 3, dim=-1)
        return (values * 2.0 + 1.0).sum(-1), indices


def test_supported_regions_compile_around_an_unsupported_op(strategy: str, tmp_path: Path) -> None:
    torch.manual_seed(3)
    model, x = TopkHead().eval(), torch.randn(8, 16)
    report = tmp_path / "report.json"
    with torch.no_grad(), pytest.warns(fuselab.FallbackWarning, match=r"2 region.*aten\.topk\.default"):
        compiled = torch.compile(model, backend="fuselab", options={"strategy": strategy, "report": str(report)})
        assert_same(compiled(x), model(x))
        again = torch.randn(8, 16)
        assert_same(compiled(again), model(again))
    (entry,) = json.loads(report.read_text())
    assert "fallback" not in entry
    eager, *regions = entry["partitions"]
    assert eager["eager_ops"] == ["aten.topk.default"]
    assert len(regions) == 2 and all("reports" in r for r in regions)
    ops = sorted(op for r in regions for op in r["ops"])
    assert "aten.relu.default" in ops and "aten.mul.Tensor" in ops and "aten.topk.default" not in ops
    if strategy != "unfused":
        assert all(r["reports"][0]["kernels"] for r in regions)


def test_ops_on_dtypes_outside_the_table_stay_eager(tmp_path: Path) -> None:
    # abs reads the FFT's complex numbers (a dtype outside the table): eager with the
    # FFT; the + 1 after it compiles.
    def spectrum(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft(x).abs() + 1.0

    x = torch.randn(4, 64)
    report = tmp_path / "report.json"
    with torch.no_grad(), pytest.warns(fuselab.FallbackWarning, match="1 region"):
        got = torch.compile(spectrum, backend="fuselab", options={"report": str(report)})(x)
    assert_same(got, spectrum(x))
    (entry,) = json.loads(report.read_text())
    eager, *regions = entry["partitions"]
    assert eager["eager_ops"] == ["aten._fft_r2c.default", "aten.abs.default"]
    assert [r["ops"] for r in regions] == [["aten.add.Tensor"]] and "reports" in regions[0]


def test_a_region_fuselab_refuses_stays_eager_and_is_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    # A region the compiler refuses (here: the one holding the multiply, refused by a
    # stand-in compiler) runs eagerly; the other still compiles; outputs stay eager's.
    import fuselab.partition as partition

    real = partition.compile_graph

    def refusing(module: torch.nn.Module, *args: object, **kwargs: object) -> object:
        if any(n.target == torch.ops.aten.mul.Tensor for n in module.graph.nodes):
            raise partition.Unsupported("refused by the test")
        return real(module, *args, **kwargs)

    monkeypatch.setattr(partition, "compile_graph", refusing)
    torch.manual_seed(4)
    model, x = TopkHead().eval(), torch.randn(8, 16)
    result = partition.partition(model, (x,), "inductor", False)
    assert result.compiled_regions == 1
    refused = [r for r in result.report[1:] if "fallback" in r]
    assert len(refused) == 1 and refused[0]["fallback"] == "refused by the test"
    assert "aten.mul.Tensor" in refused[0]["ops"]
    with torch.no_grad():
        assert_same(result(x), model(x))


def test_unsupported_ops_reads_the_op_table() -> None:
    ep = torch.export.export(TopkHead().eval(), (torch.randn(2, 16),)).run_decompositions()
    assert unsupported_ops(ep.module()) == ["aten.topk.default"]
