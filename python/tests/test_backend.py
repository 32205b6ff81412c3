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


class Mlp(torch.nn.Module):
    """linear -> relu -> linear -> tanh: a forward the importer takes whole."""

    def __init__(self) -> None:
        super().__init__()
        self.up, self.down = torch.nn.Linear(32, 64), torch.nn.Linear(64, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.down(torch.relu(self.up(x))))


def _training_step(build: type[torch.nn.Module] | object, x: torch.Tensor, report: Path) -> None:
    """One forward and backward through the backend against the same in eager: equal
    outputs, input gradients and parameter gradients."""
    torch.manual_seed(1)
    model, reference = build(), build()  # type: ignore[operator]
    reference.load_state_dict(model.state_dict())
    x_compiled, x_eager = x.clone().requires_grad_(), x.clone().requires_grad_()
    out = torch.compile(model, backend="fuselab", options={"report": str(report)})(x_compiled)
    want = reference(x_eager)
    assert_same(out, want)
    out.square().sum().backward()
    want.square().sum().backward()
    torch.testing.assert_close(x_compiled.grad, x_eager.grad, rtol=1e-4, atol=1e-5)
    for p, q in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)


def test_a_training_step_compiles_forward_and_backward(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", fuselab.FallbackWarning)
        _training_step(Mlp, torch.randn(8, 32), report)
    entries = {e["graph"]: e for e in json.loads(report.read_text())}
    assert set(entries) == {"forward", "backward"}
    # The forward (with the activations it saves) and the backward (mm, relu's and
    # tanh's derivatives, the bias sums) each compile whole: no warning.
    assert entries["forward"]["reports"][0]["kernels"]
    assert entries["backward"]["reports"][0]["kernels"]
    assert not caught, [str(w.message) for w in caught]


def test_a_backward_without_an_input_gradient_is_partitioned(tmp_path: Path) -> None:
    # No gradient for the input: the backward returns None there, which the importer
    # does not express; the partitioner compiles the rest of it.
    torch.manual_seed(2)
    model, reference = Mlp(), Mlp()
    reference.load_state_dict(model.state_dict())
    x = torch.randn(8, 32)
    report = tmp_path / "report.json"
    with pytest.warns(fuselab.FallbackWarning, match="region"):
        torch.compile(model, backend="fuselab", options={"report": str(report)})(x).sum().backward()
    reference(x).sum().backward()
    for p, q in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)
    entries = {e["graph"]: e for e in json.loads(report.read_text())}
    regions = entries["backward"]["partitions"][1:]
    assert any("reports" in r and r["reports"][0]["kernels"] for r in regions)


def test_gradients_stay_eagers_where_a_graph_falls_back(tmp_path: Path) -> None:
    # gelu_mlp's forward saves its layer norm's mean and rstd, which the importer does
    # not compute: that graph runs eagerly, the rest compiles, gradients equal eager's.
    report = tmp_path / "report.json"
    with pytest.warns(fuselab.FallbackWarning):
        _training_step(MODELS["gelu_mlp"][0], torch.randn(4, 16, 32), report)
    graphs = {e["graph"] for e in json.loads(report.read_text())}
    assert graphs == {"forward", "backward"}


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
