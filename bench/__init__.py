"""tile-mlir's benchmarks: one module a benchmark, run by `python -m bench`
(bench/README.md)."""
