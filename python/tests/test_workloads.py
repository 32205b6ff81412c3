"""The 12 shared workloads (their PyTorch definitions, `tools/gpu/workloads.py`, the one
copy) through torch.compile(backend="fuselab") with every strategy: outputs equal eager
PyTorch's."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from types import ModuleType

import pytest
import torch

import fuselab
from test_backend import assert_same


def _workloads() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "tools" / "gpu" / "workloads.py"
    spec = importlib.util.spec_from_file_location("fuselab_workloads", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WORKLOADS = _workloads().WORKLOADS


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_workload_matches_eager(name: str, strategy: str) -> None:
    fn, make_inputs = WORKLOADS[name]
    args = make_inputs()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", fuselab.FallbackWarning)
        got = torch.compile(fn, backend="fuselab", options={"strategy": strategy})(*args)
        assert_same(got, fn(*args))
