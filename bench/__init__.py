"""tile-mlir's benchmarks: one module a benchmark, run by `python -m bench`
(bench/README.md)."""

import importlib


def kernels(module: str):
    """tile_mlir.kernels.<module>, imported when an entry is built, not
    when a benchmark is: it needs MLIR, which the GPU machine that runs the
    artifacts does not have."""
    return importlib.import_module(f"tile_mlir.kernels.{module}")
