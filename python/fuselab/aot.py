"""Ahead of time: ``fuselab.aot_compile(model, example_inputs, path)`` compiles a model for
the GPU target into a package; ``fuselab.load(path)`` runs it where only torch, cupy and a
CUDA GPU exist — no compiler, no MLIR (AOTInductor's split: compile on one machine,
deploy on another).

A package is a folder:
- ``kernels.ptx``, ``manifest.json``: the GPU bundle (``fuselab-gpu-bundle/1``,
  docs/gpu.md), as ``fuse-gpu -o DIR --samples 0`` writes it;
- ``weights.pt``: the lifted parameters, buffers and constants, included (``torch.save``
  of a list, in the bundle's input order);
- ``program.json``: ``{"format": "fuselab-aot/1", "fuselab": version, "strategy",
  "inputs": [{"user": k} | {"weight": i}], "out_spec": torch's pytree spec}`` — which
  bundle input is the caller's k-th argument and which the i-th weight, and how the
  outputs nest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from typing import Any, Sequence

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils import _pytree as pytree

FORMAT = "fuselab-aot/1"


def aot_compile(model: torch.nn.Module, example_inputs: Sequence[torch.Tensor], path: str, *,
                strategy: str = "inductor") -> str:
    """Compiles ``model`` on inputs like ``example_inputs`` for the GPU target with
    ``strategy`` into the package folder ``path`` (created); returns ``path``. Raises
    ValueError with fuselab's located message when the model does not compile (an op
    outside the op table: there is no eager fallback ahead of time)."""
    from fuselab.graph import Unsupported

    try:
        write_package(model, example_inputs, path, strategy)
    except Unsupported as e:
        raise ValueError(f"fuselab.aot_compile: {e}") from None
    return path


def write_package(model: torch.nn.Module, example_inputs: Sequence[Any], path: str, strategy: str,
                  name: str = "forward") -> None:
    """The package of ``model`` in ``path``; raises :class:`fuselab.graph.Unsupported`
    (``by_import`` when the importer refused the graph, so that its other regions may
    still compile)."""
    _write(_Imported(model, example_inputs, name), path, strategy)


class _Imported:
    """A model exported and imported: the aten text, the lifted inputs, the output spec."""

    def __init__(self, model: torch.nn.Module, example_inputs: Sequence[Any], name: str) -> None:
        from fuselab import _native
        from fuselab.graph import Unsupported, export_archive, lifted_inputs

        ep, archive = export_archive(model, example_inputs)
        try:
            self.text: str = _native.import_pt2(archive, name)
        except ValueError as e:
            raise Unsupported(str(e), by_import=True) from None
        self.name = name
        # Weights copied to the CPU once: the key hashes their bytes, the package saves them.
        self.lifted = [e if isinstance(e, int) else e.cpu() for e in lifted_inputs(ep)]
        self.out_spec = pytree.treespec_dumps(ep.call_spec.out_spec)

    def key(self, strategy: str) -> str:
        """What the package depends on, hashed: the aten text (deterministic, unlike the
        archive's bytes), every weight's dtype, shape and bytes, the output structure,
        the strategy and fuselab's version."""
        from fuselab import _native

        h = hashlib.sha256()
        for part in (FORMAT, _native.version(), strategy, self.name, self.text, self.out_spec):
            h.update(part.encode())
            h.update(b"\0")
        for entry in self.lifted:
            if isinstance(entry, int):
                h.update(f"user {entry}\0".encode())
            else:
                h.update(f"{entry.dtype} {list(entry.shape)}\0".encode())
                h.update(entry.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
        return h.hexdigest()[:40]


def _write(imported: _Imported, path: str, strategy: str) -> None:
    from fuselab import _native
    from fuselab.graph import Unsupported

    os.makedirs(path, exist_ok=True)
    try:
        _native.compile_gpu(imported.text, imported.name, strategy, path)
    except ValueError as e:
        raise Unsupported(str(e)) from None
    weights: list[torch.Tensor] = []
    inputs: list[dict[str, int]] = []
    for entry in imported.lifted:
        if isinstance(entry, int):
            inputs.append({"user": entry})
        else:
            inputs.append({"weight": len(weights)})
            weights.append(entry)
    torch.save(weights, os.path.join(path, "weights.pt"))
    program = {
        "format": FORMAT,
        "fuselab": _native.version(),
        "strategy": strategy,
        "inputs": inputs,
        "out_spec": imported.out_spec,
    }
    with open(os.path.join(path, "program.json"), "w", encoding="utf-8") as f:
        json.dump(program, f, indent=1)
        f.write("\n")


def cache_dir() -> str | None:
    """Where compiled GPU packages are kept across processes: ``$FUSELAB_CACHE_DIR``, else
    ``~/.cache/fuselab``; ``None`` when ``FUSELAB_CACHE=0`` turns the cache off."""
    if os.environ.get("FUSELAB_CACHE", "1") == "0":
        return None
    return os.environ.get("FUSELAB_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "fuselab")


def cached_package(model: torch.nn.Module, example_inputs: Sequence[Any], strategy: str, name: str,
                   directory: str) -> tuple[str, bool]:
    """The package of ``model`` in the cache folder ``directory``: ``(path, hit)``. A miss
    compiles into a temporary folder beside it and renames it into place, so a package
    in the cache is always whole (of two processes racing, one rename wins)."""
    imported = _Imported(model, example_inputs, name)
    path = os.path.join(directory, "gpu", imported.key(strategy))
    if os.path.isfile(os.path.join(path, "program.json")):
        return path, True
    os.makedirs(os.path.dirname(path), exist_ok=True)
    scratch = tempfile.mkdtemp(prefix=os.path.basename(path) + ".", dir=os.path.dirname(path))
    try:
        _write(imported, scratch, strategy)
        os.rename(scratch, path)
    except OSError:
        if not os.path.isfile(os.path.join(path, "program.json")):
            raise
    finally:
        if os.path.isdir(scratch):
            shutil.rmtree(scratch, ignore_errors=True)
    return path, False


class Loaded:
    """A package's program: call it with the model's inputs (CUDA or CPU tensors of the
    compiled shapes and dtypes); outputs are new CUDA tensors in the model's output
    structure."""

    def __init__(self, path: str) -> None:
        with open(os.path.join(path, "program.json"), encoding="utf-8") as f:
            self.program = json.load(f)
        if self.program.get("format") != FORMAT:
            raise ValueError(f"{path}: not a {FORMAT} package (format {self.program.get('format')!r})")
        if not torch.cuda.is_available():
            raise RuntimeError("fuselab.load: the package runs on a CUDA GPU (torch.cuda.is_available() is False)")
        self.path = path
        self.weights = [w.cuda() for w in torch.load(os.path.join(path, "weights.pt"), weights_only=True)]
        self.out_spec = pytree.treespec_loads(self.program["out_spec"])
        self.users = sum(1 for e in self.program["inputs"] if "user" in e)
        self.bundle: Any = None

    def _inputs(self, args: Sequence[Any]) -> list[torch.Tensor]:
        if len(args) != self.users:
            raise ValueError(f"fuselab: the program takes {self.users} inputs, got {len(args)}")
        return [(args[e["user"]] if "user" in e else self.weights[e["weight"]]).detach()
                for e in self.program["inputs"]]

    def __call__(self, *args: Any) -> Any:
        from fuselab.runtime import Bundle

        inputs = self._inputs(args)
        if self.bundle is None:  # the PTX is loaded once
            self.bundle = Bundle(self.path, inputs=inputs)
        else:
            self.bundle.bind(inputs)
        self.bundle.run()
        return pytree.tree_unflatten(self.bundle.outputs(), self.out_spec)


def load(path: str) -> Loaded:
    """The program of the package folder ``path`` (written by :func:`aot_compile`)."""
    return Loaded(path)


class GpuGraph:
    """A graph the ``torch.compile`` backend compiles for the GPU target
    (``options={"target": "gpu"}``): its package written once, at compile time, into the
    on-disk cache (:func:`cached_package`; a later process compiling the same graph with
    the same weights, strategy and fuselab version loads it instead), or with the cache
    off into a temporary folder that lives as long as the graph; run by the same
    :class:`Loaded` program as :func:`load`'s. ``report``: the plan's steps (each kernel's
    name, or a library step's op), as the manifest holds them."""

    def __init__(self, module: torch.nn.Module, example_inputs: Sequence[Any], strategy: str,
                 name: str) -> None:
        from fuselab.graph import Unsupported, check_inputs

        if not torch.cuda.is_available():
            raise Unsupported("the gpu target needs CUDA (torch.cuda.is_available() is False)")
        check_inputs(example_inputs, "cuda", "the gpu target")
        # Exported on the inputs' own device: a graph that makes tensors on the device
        # (Hugging Face models' `arange(..., device=cuda)` position ids) cannot be traced
        # with CPU inputs (FakeTensor refuses the mix). Attention is traced through its
        # math form, as the CPU's `_scaled_dot_product_flash_attention_for_cpu`
        # decomposes: CUDA's fused attention kernels have no core-ATen decomposition.
        inputs = list(example_inputs)
        directory = cache_dir()
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        with sdpa_kernel([SDPBackend.MATH]):
            if directory is None:
                self._dir = tempfile.TemporaryDirectory(prefix="fuselab-gpu-")
                path, hit = self._dir.name, False
                write_package(module, inputs, path, strategy, name)
            else:
                path, hit = cached_package(module, inputs, strategy, name, directory)
        self._program = Loaded(path)
        with open(os.path.join(path, "manifest.json"), encoding="utf-8") as f:
            steps = json.load(f).get("steps", [])
        self.report: list[dict[str, Any]] = [
            {"target": "gpu", "strategy": strategy, "cached": hit,
             "steps": [s.get("kernel") or s.get("op") for s in steps]}
        ]

    def __call__(self, *args: Any) -> Any:
        return self._program(*args)
