"""A stand-in for the parts of ``tvm`` that the spec's examples use, so they
run unchanged apart from their imports:

    from tile_mlir.compat.tvm.script import tirx as T
    from tile_mlir.compat import tvm
"""

from . import runtime, tirx
from .runtime import cpu, cuda

__all__ = ["runtime", "tirx", "cuda", "cpu"]
