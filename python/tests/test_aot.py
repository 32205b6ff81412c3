"""fuselab.aot_compile / fuselab.load: a model compiled for the GPU target into a package
(the bundle, the weights, the program), checked here without a GPU (the bundle
validates, the program maps every input), and run against eager PyTorch where a CUDA GPU
is (the device run in docs/python.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import fuselab
from models import MODELS
from test_backend import assert_same
from fuselab import _native


def test_a_package_holds_a_valid_bundle_and_its_program(tmp_path: Path) -> None:
    build, inputs = MODELS["gelu_mlp"]
    model, args = build().eval(), inputs()
    path = fuselab.aot_compile(model, args, str(tmp_path / "pkg"), strategy="tvm")
    assert _native.validate_bundle(path) == []
    program = json.loads((tmp_path / "pkg/program.json").read_text())
    manifest = json.loads((tmp_path / "pkg/manifest.json").read_text())
    assert program["format"] == "fuselab-aot/1" and program["strategy"] == "tvm"
    assert manifest["format"] == "fuselab-gpu-bundle/1" and manifest["oracle"] is None
    bundle_inputs = [b for b in manifest["buffers"] if b["role"] == "input"]
    assert len(program["inputs"]) == len(bundle_inputs)
    assert [e["user"] for e in program["inputs"] if "user" in e] == list(range(len(args)))
    # Every parameter of the module is a weight of the package, in the bundle's order
    # and with its shape.
    weights = torch.load(tmp_path / "pkg/weights.pt", weights_only=True)
    assert len(weights) == len(list(model.parameters())) + len(list(model.buffers()))
    for entry, b in zip(program["inputs"], sorted(bundle_inputs, key=lambda b: b["index"])):
        if "weight" in entry:
            assert list(weights[entry["weight"]].shape) == b["shape"]


def test_a_model_outside_the_op_table_is_refused_with_its_location(tmp_path: Path) -> None:
    class Spectrum(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.fft.rfft(x).abs()

    with pytest.raises(ValueError, match="does not support this op"):
        fuselab.aot_compile(Spectrum(), (torch.randn(4, 64),), str(tmp_path / "pkg"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message a machine without CUDA gives")
def test_load_without_a_gpu_says_so(tmp_path: Path) -> None:
    build, inputs = MODELS["rmsnorm_two_outputs"]
    path = fuselab.aot_compile(build().eval(), inputs(), str(tmp_path / "pkg"))
    with pytest.raises(RuntimeError, match="CUDA GPU"):
        fuselab.load(path)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="runs PTX: needs a CUDA GPU")
@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_loaded_package_matches_eager(name: str, tmp_path: Path) -> None:
    build, inputs = MODELS[name]
    model, args = build().eval(), inputs()
    program = fuselab.load(fuselab.aot_compile(model, args, str(tmp_path / "pkg")))
    with torch.no_grad():
        assert_same(tuple(t.cpu() for t in torch.utils._pytree.tree_leaves(program(*args))),
                    tuple(torch.utils._pytree.tree_leaves(model(*args))))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the fallback a machine without CUDA takes")
def test_the_gpu_target_without_cuda_falls_back_with_the_reason() -> None:
    build, inputs = MODELS["gelu_mlp"]
    model, args = build().eval(), inputs()
    with torch.no_grad(), pytest.warns(fuselab.FallbackWarning, match="the gpu target needs CUDA"):
        got = torch.compile(model, backend="fuselab", options={"target": "gpu"})(*args)
    assert_same(got, model(*args))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="runs PTX: needs a CUDA GPU")
@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_gpu_target_matches_eager(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    monkeypatch.setenv("FUSELAB_CACHE_DIR", str(tmp_path / "cache"))
    build, inputs = MODELS[name]
    model = build().eval().cuda()
    args = tuple(a.cuda() for a in inputs())
    report = tmp_path / "report.json"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", fuselab.FallbackWarning)
        compiled = torch.compile(model, backend="fuselab", options={"target": "gpu", "report": str(report)})
        assert_same(compiled(*args), model(*args))
        again = tuple(torch.randn_like(a) if a.is_floating_point() else a for a in args)
        assert_same(compiled(*again), model(*again))
    entries = json.loads(report.read_text())
    assert entries and all(r["target"] == "gpu" and r["steps"] for e in entries for r in e["reports"])
    assert not any(r["cached"] for e in entries for r in e["reports"])
    # A new compilation of the same graph (as in a new process) loads the cached package.
    torch._dynamo.reset()
    report.unlink()
    with torch.no_grad():
        compiled = torch.compile(model, backend="fuselab", options={"target": "gpu", "report": str(report)})
        assert_same(compiled(*args), model(*args))
    assert all(r["cached"] for e in json.loads(report.read_text()) for r in e["reports"])


class Positions(torch.nn.Module):
    """Adds an embedding of positions made on the input's device, as Hugging Face models
    make their position ids (`torch.arange(n, device=x.device)`)."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.embedding(torch.arange(x.shape[1], device=x.device))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="runs PTX: needs a CUDA GPU")
def test_a_graph_making_tensors_on_the_device_compiles_for_the_gpu(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    monkeypatch.setenv("FUSELAB_CACHE_DIR", str(tmp_path / "cache"))
    model = Positions().eval().cuda()
    x = torch.randn(2, 16, 8, device="cuda")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", fuselab.FallbackWarning)
        compiled = torch.compile(model, backend="fuselab", options={"target": "gpu"})
        assert_same(compiled(x), model(x))


def test_the_package_cache_hits_on_the_same_graph_and_weights_only(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from fuselab import aot

    build, inputs = MODELS["gelu_mlp"]
    torch.manual_seed(0)
    model, args = build().eval(), inputs()
    first, hit = aot.cached_package(model, args, "inductor", "forward", str(tmp_path))
    assert not hit and _native.validate_bundle(first) == []
    assert [p.name for p in (tmp_path / "gpu").iterdir()] == [Path(first).name]  # no scratch left

    def no_compile(*_: object) -> None:
        raise AssertionError("a cache hit compiled")

    monkeypatch.setattr(_native, "compile_gpu", no_compile)
    again, hit = aot.cached_package(model, args, "inductor", "forward", str(tmp_path))
    assert hit and again == first
    monkeypatch.undo()
    other, hit = aot.cached_package(model, args, "tvm", "forward", str(tmp_path))
    assert not hit and other != first
    with torch.no_grad():
        next(model.parameters()).add_(1.0)
    changed, hit = aot.cached_package(model, args, "inductor", "forward", str(tmp_path))
    assert not hit and changed not in (first, other)


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from fuselab import aot

    monkeypatch.setenv("FUSELAB_CACHE_DIR", str(tmp_path))
    assert aot.cache_dir() == str(tmp_path)
    monkeypatch.setenv("FUSELAB_CACHE", "0")
    assert aot.cache_dir() is None
