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
    parametrized = any(m.name == "parametrize" and "strategy" in m.args[0] for m in metafunc.definition.iter_markers())
    if "strategy" in metafunc.fixturenames and not parametrized:
        metafunc.parametrize("strategy", fuselab.strategies())
