"""Tutorial 7: LayerNorm of rows of 1,024 float32 values, a block a row.

The one new idea: a block-wide reduction through shared memory
(`pipelining.block_reduce`: each warp's butterfly, lane 0's partial to
shared memory, a barrier, every thread combining the partials from warp 0
up), twice in one kernel: for the mean, then for the variance. The second
exchange has its own buffer: with one, a fast warp's second partial may
land before a slow warp read its first (the interpreter names the race).
Every rounding is IEEE and its order written, so the result is numpy's
in the same order, bit for bit.

    y = (x - mean) * rsqrt(var + eps) * w + b
"""

import numpy as np

import tile_mlir
from tile_mlir import script as T
from tile_mlir.pipelining import block_reduce

ROWS, WIDTH, THREADS, EPS = 4, 1024, 256, 1e-5
WARPS = THREADS // 32


def layernorm(shared_partials: bool = False):
    """The kernel; `shared_partials`: one partials buffer for both
    reductions (the race)."""
    @T.function
    def layernorm(X: T.Tensor((ROWS, WIDTH), "float32"), W: T.Tensor((WIDTH,), "float32"),
                  B: T.Tensor((WIDTH,), "float32"), Out: T.Tensor((ROWS, WIDTH), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=ROWS, block=THREADS))
        t, row = T.thread_id(), T.block_id()
        means = T.alloc_shared((WARPS, 1), "float32")
        variances = means if shared_partials else T.alloc_shared((WARPS, 1), "float32")
        x, w, b = (T.alloc_local((4, 1), "float32") for _ in range(3))
        for tile, tensor in ((x, X[row]), (w, W), (b, B)):   # thread t: values 4t .. 4t + 3
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], tile.reshape((1, 4)), tensor.reshape((THREADS, 4))[t:t + 1])
        total = T.alloc_local((1, 1), "float32")

        def thread_sum(values):                               # its 4 values in order
            T.cuda.tile.apply(T.ptx["add.rn.f32"], total, values[0:1], values[1:2])
            T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, values[2:3])
            T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, values[3:4])

        thread_sum(x)
        block_reduce(total, means, t, "add.rn.f32")          # every thread: the row's sum
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], total, total, T.float32(1.0 / WIDTH))   # the mean (exact scale)
        T.cuda.tile.apply(T.ptx["sub.rn.f32"], x, x, total.broadcast((4, 1)))          # x - mean
        squares = T.alloc_local((4, 1), "float32")
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], squares, x, x)
        thread_sum(squares)
        block_reduce(total, variances, t, "add.rn.f32")
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], total, total, T.float32(1.0 / WIDTH))   # the variance
        T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, T.float32(EPS))
        T.cuda.tile.apply(T.ptx["sqrt.rn.f32"], total, total)
        T.cuda.tile.apply(T.ptx["rcp.rn.f32"], total, total)                           # 1 / sqrt, both IEEE
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], x, x, total.broadcast((4, 1)))
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], x, x, w)
        T.cuda.tile.apply(T.ptx["add.rn.f32"], x, x, b)
        T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[row].reshape((THREADS, 4))[t:t + 1], x.reshape((1, 4)))
    return layernorm


def reference(x, w, b):
    """The kernel's order in numpy: each thread's 4 values, the warp's
    butterfly (16, 8, 4, 2, 1), the warps' partials from warp 0 up."""
    f32 = np.float32

    def block_sum(values):                                    # (rows, THREADS, 4)
        total = ((values[..., 0] + values[..., 1]).astype(f32) + values[..., 2]).astype(f32)
        total = (total + values[..., 3]).astype(f32)
        lanes = total.reshape(ROWS, WARPS, 32)
        for offset in (16, 8, 4, 2, 1):
            lanes = (lanes + lanes[:, :, np.arange(32) ^ offset]).astype(f32)
        partials, out = lanes[:, :, 0], lanes[:, 0, 0].copy()
        for warp in range(1, WARPS):
            out = (out + partials[:, warp]).astype(f32)
        return out

    held = x.reshape(ROWS, THREADS, 4)
    mean = (block_sum(held) * f32(1.0 / WIDTH)).astype(f32)
    centered = (held - mean[:, None, None]).astype(f32)
    var = (block_sum((centered * centered).astype(f32)) * f32(1.0 / WIDTH)).astype(f32)
    inv = (f32(1) / np.sqrt((var + f32(EPS)).astype(f32))).astype(f32)
    y = ((centered * inv[:, None, None]).astype(f32) * w.reshape(THREADS, 4)).astype(f32)
    return (y + b.reshape(THREADS, 4)).astype(f32).reshape(ROWS, WIDTH)


def main(shared_partials: bool = False):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((ROWS, WIDTH)) * 3 + 1).astype(np.float32)
    w, b = rng.standard_normal(WIDTH).astype(np.float32), rng.standard_normal(WIDTH).astype(np.float32)
    out = np.zeros_like(x)
    tile_mlir.interpret(layernorm(shared_partials), x, w, b, out)
    assert np.array_equal(out, reference(x, w, b))
    return out


if __name__ == "__main__":
    main()
