"""fuselab: an operator-fusion compiler on MLIR, for PyTorch users.

``torch.compile(model, backend="fuselab", options={"strategy": "tvm"})`` compiles each
graph dynamo captures with one of fuselab's fusion strategies for the CPU; see
:mod:`fuselab.backend` for the options and for what falls back to eager PyTorch.
``fuselab.compare(model, example_inputs)`` puts every strategy side by side
(:mod:`fuselab.compare`).
"""

from fuselab._native import strategies, version
from fuselab.backend import FallbackWarning, fuselab_backend as backend
from fuselab.compare import Comparison, compare

__all__ = ["backend", "compare", "Comparison", "strategies", "version", "FallbackWarning"]
__version__ = version()
