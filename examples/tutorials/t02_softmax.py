"""Tutorial 2: softmax of rows of 128 values, one warp a row.

The one new idea: threads of a warp exchange registers with shfl.sync.
Each lane holds 4 values of its warp's row; the row's maximum and sum are
a lane's own 4 values, then a butterfly over the warp (shfl.sync.bfly by
16, 8, 4, 2, 1: `pipelining.butterfly`), after which every lane holds the
row's result. The order of every float operation is the one written, so
the interpreter's result is numpy's in the same order, bit for bit; the
exponential is ex2.approx.ftz.f32, which the interpreter runs as the GPU
computes it (its results, tabulated on an H100: interpreter/sfu.py), and
the reference calls the same function.
"""

import numpy as np

import tile_mlir
from tile_mlir import script as T
from tile_mlir.interpreter.sfu import ex2_approx_ftz_f32
from tile_mlir.pipelining import butterfly

ROWS, WIDTH = 8, 128
LOG2E = np.float32(1.4426950408889634)


@T.function
def softmax(X: T.Tensor((ROWS, 32, 4), "float32"), Out: T.Tensor((ROWS, 32, 4), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=ROWS // 4, block=128))   # 4 warps, a row each
    t = T.thread_id()
    row, lane = T.block_id() * 4 + t // 32, t % 32
    x = T.alloc_local((4, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], x.reshape((1, 4)), X[row, lane:lane + 1])
    partner = T.alloc_local((1, 1), "float32")
    m = T.alloc_local((1, 1), "float32")                 # the row's maximum
    T.cuda.tile.apply(T.ptx["max.f32"], m, x[0:1], x[1:2])
    T.cuda.tile.apply(T.ptx["max.f32"], m, m, x[2:3])
    T.cuda.tile.apply(T.ptx["max.f32"], m, m, x[3:4])
    butterfly(m, "max.f32", partner)                     # every lane: the warp's maximum
    # e = 2^((x - m) log2 e): a subtraction and a multiply, each rounded.
    T.cuda.tile.apply(T.ptx["sub.rn.f32"], x, x, m.broadcast((4, 1)))
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], x, x, T.float32(float(LOG2E)))
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], x, x)
    s = T.alloc_local((1, 1), "float32")                 # the row's sum, likewise
    T.cuda.tile.apply(T.ptx["add.rn.f32"], s, x[0:1], x[1:2])
    T.cuda.tile.apply(T.ptx["add.rn.f32"], s, s, x[2:3])
    T.cuda.tile.apply(T.ptx["add.rn.f32"], s, s, x[3:4])
    butterfly(s, "add.rn.f32", partner)
    T.cuda.tile.apply(T.ptx["rcp.rn.f32"], s, s)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], x, x, s.broadcast((4, 1)))
    T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[row, lane:lane + 1], x.reshape((1, 4)))


def reference(x):
    """The kernel's order in numpy: lane l's 4 values in order, then the
    butterfly (lane l combines with lane l ^ offset)."""
    f32 = np.float32
    lanes = x.reshape(ROWS, 32, 4)

    def reduce(values, combine):
        total = combine(combine(combine(values[..., 0], values[..., 1]), values[..., 2]), values[..., 3])
        for offset in (16, 8, 4, 2, 1):
            total = combine(total, total[:, np.arange(32) ^ offset])
        return total

    m = reduce(lanes, np.fmax)
    e = ex2_approx_ftz_f32(((lanes - m[..., None]).astype(f32) * LOG2E).astype(f32)).astype(f32)
    s = reduce(e, lambda a, b: (a + b).astype(f32))
    return (e * (f32(1) / s)[..., None]).astype(f32)


def main():
    x = (np.random.default_rng(1).standard_normal((ROWS, 32, 4)) * 3).astype(np.float32)
    out = np.zeros_like(x)
    tile_mlir.interpret(softmax, x, out)
    assert np.array_equal(out, reference(x))
    assert np.allclose(out.reshape(ROWS, WIDTH).sum(axis=1), 1, atol=1e-6)
    return out


if __name__ == "__main__":
    main()
