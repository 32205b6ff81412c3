"""fuselab: an operator-fusion compiler on MLIR, for PyTorch users.

``torch.compile(model, backend="fuselab", options={"strategy": "tvm"})`` compiles each
graph dynamo captures with one of fuselab's fusion strategies for the CPU; see
:mod:`fuselab.backend` for the options and for what falls back to eager PyTorch.
"""

from fuselab._native import strategies, version
from fuselab.backend import FallbackWarning, fuselab_backend as backend

__all__ = ["backend", "strategies", "version", "FallbackWarning"]
__version__ = version()
