"""The 12 shared workloads (their PyTorch definitions, `fuselab.models.workloads`, the one
copy) through torch.compile(backend="fuselab") with every strategy: outputs equal eager
PyTorch's."""

from __future__ import annotations

import warnings

import pytest
import torch

import fuselab
from fuselab.models.workloads import WORKLOADS
from test_backend import assert_same


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_workload_matches_eager(name: str, strategy: str) -> None:
    fn, make_inputs = WORKLOADS[name]
    args = make_inputs()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", fuselab.FallbackWarning)
        got = torch.compile(fn, backend="fuselab", options={"strategy": strategy})(*args)
        assert_same(got, fn(*args))
