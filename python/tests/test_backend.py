"""torch.compile(model, backend="fuselab"): outputs against eager PyTorch, the report,
and every kind of graph that must fall back to eager (with a warning, never a wrong
result)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import torch

import fuselab
from models import MODELS


def assert_same(got: object, want: object) -> None:
    got_flat, want_flat = torch.utils._pytree.tree_flatten(got)[0], torch.utils._pytree.tree_flatten(want)[0]
    assert len(got_flat) == len(want_flat)
    for g, w in zip(got_flat, want_flat):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_compiled_model_matches_eager(name: str, strategy: str, tmp_path: Path) -> None:
    build, inputs = MODELS[name]
    model, args = build().eval(), inputs()
    report = tmp_path / "report.json"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", fuselab.FallbackWarning)
        compiled = torch.compile(model, backend="fuselab", options={"strategy": strategy, "report": str(report)})
        assert_same(compiled(*args), model(*args))
        # A second call runs the cached code on new values.
        again = tuple(torch.randn_like(a) for a in args)
        assert_same(compiled(*again), model(*again))
    entries = json.loads(report.read_text())
    assert entries and all("fallback" not in e for e in entries)
    assert all(e["strategy"] == strategy for e in entries)
    if strategy != "unfused":
        assert any(k for e in entries for r in e["reports"] for k in r.get("kernels", []))


def test_non_contiguous_inputs_are_read_as_torch_strides_say() -> None:
    model = MODELS["gelu_mlp"][0]().eval()
    x = torch.randn(4, 32, 16).transpose(1, 2)
    with torch.no_grad():
        assert_same(torch.compile(model, backend="fuselab")(x), model(x))


def test_an_unsupported_graph_runs_in_eager_with_a_warning(tmp_path: Path) -> None:
    # No region compiles: the FFT is outside the op table, abs reads complex numbers.
    def spectrum(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft(x).abs()

    x = torch.randn(4, 64)
    report = tmp_path / "report.json"
    with pytest.warns(fuselab.FallbackWarning, match="eager"):
        got = torch.compile(spectrum, backend="fuselab", options={"report": str(report)})(x)
    assert_same(got, spectrum(x))
    (entry,) = json.loads(report.read_text())
    assert "fuse-import" in entry["fallback"] and "reports" not in entry


def test_a_graph_that_needs_gradients_falls_back_and_its_gradients_are_eagers() -> None:
    torch.manual_seed(1)
    model = MODELS["gelu_mlp"][0]()
    reference = MODELS["gelu_mlp"][0]()
    reference.load_state_dict(model.state_dict())
    x = torch.randn(4, 16, 32)
    with pytest.warns(fuselab.FallbackWarning, match="gradients"):
        torch.compile(model, backend="fuselab")(x).square().sum().backward()
    reference(x).square().sum().backward()
    for p, q in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad)


def test_dynamic_shapes_fall_back() -> None:
    model = MODELS["rmsnorm_two_outputs"][0]().eval()
    compiled = torch.compile(model, backend="fuselab", dynamic=True)
    with torch.no_grad(), pytest.warns(fuselab.FallbackWarning):
        for rows in (8, 5):
            x = torch.randn(rows, 32)
            assert_same(compiled(x), model(x))


def test_bad_options_are_refused_with_their_name() -> None:
    model = MODELS["integers"][0]()
    x = torch.randn(8, 32)
    for options, message in (({"strategy": "fastest"}, "unknown strategy"), ({"colour": 1}, "unknown option"),
                             ({"target": "tpu"}, "unknown target")):
        torch._dynamo.reset()
        with pytest.raises(Exception, match=message):
            torch.compile(model, backend="fuselab", options=options)(x)


def test_compiled_graph_refuses_inputs_of_another_shape() -> None:
    from fuselab.graph import compile_graph

    model = MODELS["integers"][0]()
    graph = compile_graph(model, (torch.randn(8, 32),), "inductor", False)
    with pytest.raises(ValueError, match="compiled for"):
        graph(torch.randn(4, 32))
