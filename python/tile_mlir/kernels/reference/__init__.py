"""Each kernel's result in numpy, in the kernel's order of operations, with
no MLIR (the GPU machine checks its results against these, and the tests
check the interpreter's): gemm (exact integer-valued data), softmax,
rmsnorm, reduce_sum."""
