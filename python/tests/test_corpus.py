"""The corpus models (`fuselab.models.corpus`, the one copy: Hugging Face transformers
and torchvision classes at tiny sizes with random weights, and blocks written here)
through torch.compile(backend="fuselab") with the Inductor and TVM strategies (every
strategy runs the workloads and the small modules; all six on the 38 models took 12 s a
model and strategy here, too long for every `make test`): outputs equal eager PyTorch's, every graph compiled by fuselab except where the importer lacks an op (then
the graph is partitioned around it, with the warning naming the op)."""

from __future__ import annotations

import warnings

import pytest
import torch

import fuselab
from fuselab.models.corpus import MODELS
from test_backend import assert_same

# Models whose graphs hold an op the importer does not express: partitioned around it
# (the warning names it; fuselab.partition).
FALLS_BACK = {"mixtral": "aten.topk"}


@pytest.mark.parametrize("strategy", ["inductor", "tvm"])
@pytest.mark.parametrize("name", list(MODELS))
def test_corpus_model_matches_eager(name: str, strategy: str) -> None:
    build, make_inputs = MODELS[name]
    try:
        model = build().eval()
    except ModuleNotFoundError as e:  # transformers / torchvision not installed
        pytest.skip(f"{name} needs {e.name}")
    args = make_inputs()
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", fuselab.FallbackWarning)
        got = torch.compile(model, backend="fuselab", options={"strategy": strategy})(*args)
        assert_same(got, model(*args))
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, fuselab.FallbackWarning)]
    if name in FALLS_BACK:
        assert fallbacks and all(FALLS_BACK[name] in f for f in fallbacks), fallbacks
    else:
        assert not fallbacks, fallbacks
