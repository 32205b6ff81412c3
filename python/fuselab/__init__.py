"""fuselab: an operator-fusion compiler on MLIR, for PyTorch users.

``torch.compile(model, backend="fuselab", options={"strategy": "tvm"})`` compiles each
graph dynamo captures with one of fuselab's fusion strategies for the CPU; see
:mod:`fuselab.backend` for the options and for what falls back to eager PyTorch.
``fuselab.compare(model, example_inputs)`` puts every strategy side by side
(:mod:`fuselab.compare`).
"""

try:
    from fuselab._native import strategies, version
except ImportError:  # the tree without the built extension (a GPU machine running AOT
    # packages): fuselab.runtime and fuselab.aot.load work, compiling does not.
    __all__ = ["load"]
    __version__ = "runtime-only"
else:
    from fuselab.backend import FallbackWarning, fuselab_backend as backend
    from fuselab.compare import Comparison, compare
    from fuselab.aot import aot_compile

    __all__ = ["aot_compile", "backend", "compare", "Comparison", "load", "strategies", "version",
               "FallbackWarning"]
    __version__ = version()

from fuselab.aot import load  # noqa: E402
