"""Shared fixtures: a fresh dynamo cache per test (compiled graphs never leak between
tests) and the strategies of the installed package."""

from __future__ import annotations

import pytest
import torch

import fuselab


@pytest.fixture(autouse=True)
def fresh_dynamo() -> None:
    torch._dynamo.reset()
    torch.manual_seed(0)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "strategy" in metafunc.fixturenames:
        metafunc.parametrize("strategy", fuselab.strategies())
