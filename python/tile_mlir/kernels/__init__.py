"""tile-mlir's kernels, one a module, each built on the pipelining parts
and configured by a frozen dataclass: the Hopper GEMM (gemm_hopper)."""
