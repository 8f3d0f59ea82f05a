"""tile-mlir's kernels, one a module, each built on the pipelining parts
and configured by a frozen dataclass (configs.py, importable without
MLIR): gemm_hopper, attention, gemm_mma, softmax, rmsnorm, reduce_sum and
elementwise; reference/ states each one's order of operations in numpy
(docs/kernels.md)."""
