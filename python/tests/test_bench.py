"""``python -m fuselab.bench``: models modules of both kinds load (by dotted name or file), a run measures eager,
Inductor and every strategy asked for with errors against eager, and bad arguments are
refused with the reason (the numbers themselves are the benchmark's, not a test's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from fuselab import bench

ROOT = Path(__file__).resolve().parents[2]


def test_workloads_and_models_files_load(tmp_path: Path) -> None:
    workloads = bench.load_models("fuselab.models.workloads:softmax,layernorm")
    assert list(workloads) == ["softmax", "layernorm"]
    build, make_inputs = workloads["softmax"]
    x, = make_inputs()
    assert torch.equal(build()(x), torch.softmax(x, dim=-1))
    models = tmp_path / "mine.py"
    models.write_text("import torch\nMODELS = {'lin': (lambda: torch.nn.Linear(4, 2), lambda: (torch.ones(3, 4),))}\n")
    (name, (build, make_inputs)), = bench.load_models(str(models)).items()
    assert name == "lin" and build()(*make_inputs()).shape == (3, 2)


@pytest.mark.parametrize("spec, message", [
    ("no/such/file.py", "no models file"),
    ("fuselab.models.workloads:nonesuch", "has no models \\['nonesuch'\\]"),
    ("fuselab.models.nonesuch", "no models module 'fuselab.models.nonesuch'"),
    (f"{ROOT}/python/fuselab/dtypes.py", "neither MODELS nor WORKLOADS"),
])
def test_bad_models_files_are_refused(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bench.load_models(spec)


def test_a_run_measures_every_side_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    code = bench.main(["--models", "fuselab.models.workloads:softmax", "--strategies", "inductor,tvm",
                       "--runs", "2", "--json", str(out)])
    assert code == 0
    (result,) = json.loads(out.read_text())["results"]
    assert result["model"] == "softmax" and result["threads"] == 1
    assert result["eager_s"] > 0 and result["inductor_s"] > 0
    for strategy in ("inductor", "tvm"):
        assert result["seconds"][strategy] > 0
        assert result["max_error"][strategy] <= 1e-5
    printed = capsys.readouterr().out
    assert "threads 1" in printed and "geomean x inductor" in printed and "softmax" in printed


def test_geomean_and_ratio() -> None:
    assert bench.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert bench.geomean([]) is None
    r = bench.Result("m", 1, eager_s=1.0, inductor_s=2.0, seconds={"tvm": 3.0, "x": None})
    assert r.ratio("tvm") == pytest.approx(1.5) and r.ratio("x") is None


def test_bad_arguments_exit_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in ((["--threads", "0"], "positive integers"), (["--strategies", "fastest"], "unknown strategy")):
        with pytest.raises(SystemExit) as exit_:
            bench.main(argv)
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err


def test_a_model_that_cannot_be_built_is_a_row_with_the_reason() -> None:
    def missing() -> torch.nn.Module:
        raise ModuleNotFoundError("No module named 'torchvision'", name="torchvision")

    result = bench.measure("resnet", (missing, lambda: ()), 1, ["inductor"], 1)
    assert result.error is not None and "torchvision" in result.error
    assert "cannot build the model" in bench.render([result], ["inductor"])


def test_a_graph_that_runs_eagerly_is_a_fallback_not_a_time() -> None:
    class Spectrum(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.fft.rfft(x).abs()

    result = bench.measure("fft", (Spectrum, lambda: (torch.randn(4, 64),)), 1, ["inductor"], 1)
    assert "inductor" in result.fallbacks and "eager" in result.fallbacks["inductor"]
    assert result.seconds.get("inductor") is None and result.ratio("inductor") is None
    assert "not compiled" in bench.render([result], ["inductor"])
