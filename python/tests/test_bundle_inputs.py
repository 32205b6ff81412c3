"""The GPU runner's portable input generator (``tools/gpu/run.py``, the Python side of
the bundle schema) against the fixture the Rust side
(``targets/src/gpu/bundle/inputs.rs``) is tested on: the device regenerates exactly the
inputs the oracle saw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import load_tool

FIXTURE = Path(__file__).resolve().parents[2] / "test/Tools/fuse-gpu/Inputs/portable-inputs.json"
CASES = json.loads(FIXTURE.read_text())["cases"]
RUN = load_tool("tools/gpu/run.py")


def test_mix_is_splitmix64() -> None:
    # SplitMix64's published first output for state 0.
    assert RUN.mix(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dtype']}-seed{c['seed']}-input{c['index']}")
def test_run_py_regenerates_the_fixture(case: dict) -> None:
    tensor = RUN.portable_input(case["seed"], case["index"], case["shape"], case["dtype"], case["bound"])
    assert list(tensor.shape) == case["shape"]
    got = [float(v) for v in tensor.double().flatten().tolist()]
    assert got[: len(case["first"])] == [float(v) for v in case["first"]]
