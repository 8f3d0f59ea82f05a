"""Tutorial 4: a GEMM on the warp tensor cores, C = A B (fp16 in, f32 out).

The one new idea: mma.sync multiplies fragments, registers spread over the
warp's 32 lanes in the layouts the PTX ISA's tables give.
`T.mma_coordinates(MMA, operand, i)` is (row, column) of this lane's
element i, so each lane loads its fragments straight from global memory
(a fast kernel stages tiles in shared memory and uses ldmatrix:
tile_mlir.kernels.gemm_mma). Each warp computes a 16 x 8 tile of C over K
in steps of 16; the interpreter multiplies with the same tables, so a
fragment loaded against them gives a wrong product here.
"""

import numpy as np

import tile_mlir
from tile_mlir import script as T

MMA = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
M, N, K = 64, 32, 64


@T.function
def gemm(A: T.Tensor((M, K), "uint16"), B: T.Tensor((K, N), "uint16"), C: T.Tensor((M, N), "float32")):
    # One warp a 16 x 8 tile of C: grid (N / 8) x (M / 16).
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(N // 8, M // 16), block=32))
    row0, col0 = T.block_id("y") * 16, T.block_id("x") * 8
    a = T.alloc_local((1, 1, 8), "uint16")        # (m, k, halves): 4 registers
    b = T.alloc_local((1, 1, 4), "uint16")        # (n, k, halves): 2 registers
    acc = T.alloc_local((1, 1, 4), "float32")     # (m, n, registers)
    T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)).view("uint32"), T.uint32(0))
    for kk in T.serial(0, K // 16):               # a runtime loop over K
        k0 = kk * 16
        for i in range(8):
            r, c = T.mma_coordinates(MMA, "a", i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], a.reshape((8, 1))[i:i + 1],
                              A[row0 + r:row0 + r + 1, k0 + c:k0 + c + 1])
        for i in range(4):
            r, c = T.mma_coordinates(MMA, "b", i)  # B's row is k
            T.cuda.tile.apply(T.ptx["ld.global.b16"], b.reshape((4, 1))[i:i + 1],
                              B[k0 + r:k0 + r + 1, col0 + c:col0 + c + 1])
        T.cuda.tile.apply(T.ptx[MMA], acc, a.view("uint32"), b.view("uint32"), acc)
    for i in range(4):
        r, c = T.mma_coordinates(MMA, "d", i)
        T.cuda.tile.apply(T.ptx["st.global.f32"], C[row0 + r:row0 + r + 1, col0 + c:col0 + c + 1],
                          acc.reshape((4, 1))[i:i + 1])


def main():
    # Small integers: every product and partial sum is exact in f32, so C
    # is numpy's product bit for bit whatever the tensor cores' order.
    rng = np.random.default_rng(2)
    a, b = rng.integers(-4, 5, (M, K)), rng.integers(-4, 5, (K, N))
    c = np.zeros((M, N), np.float32)
    tile_mlir.interpret(gemm, a.astype(np.float16).view(np.uint16), b.astype(np.float16).view(np.uint16), c)
    assert np.array_equal(c, (a @ b).astype(np.float32))
    return c


if __name__ == "__main__":
    main()
