"""Tutorial 1: vector add, out = x + y over n float32 values.

The one new idea: a kernel is a Python function whose body spells PTX
instructions, one `T.cuda.tile.apply` each, over register tiles.
`T.function` traces it once into MLIR; `tile_mlir.interpret` runs it on the
CPU, exactly (on a GPU: `tile_mlir.compile(vector_add)(x, y, out)`).

Each thread owns one 16-byte vector (4 values) of each array: a register
tile of shape (1, 4) filled by one `ld.global.v4.f32`, and the block's
threads take consecutive vectors, so a warp's loads are whole lines.
"""

import numpy as np

import tile_mlir
from tile_mlir import script as T

N, BLOCK = 8192, 128            # values; threads a block
VECTORS = N // 4                # 16-byte vectors: one a thread


@T.function
def vector_add(X: T.Tensor((VECTORS, 4), "float32"), Y: T.Tensor((VECTORS, 4), "float32"),
               Out: T.Tensor((VECTORS, 4), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=VECTORS // BLOCK, block=BLOCK))
    v = T.block_id() * BLOCK + T.thread_id()            # this thread's vector: an index expression
    x = T.alloc_local((1, 4), "float32")                 # register tiles of this thread
    y = T.alloc_local((1, 4), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], x, X[v:v + 1])
    T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], y, Y[v:v + 1])
    # add.rn.f32 is a scalar form: over a (4, 1) view it repeats 4 times.
    T.cuda.tile.apply(T.ptx["add.rn.f32"], x.reshape((4, 1)), x.reshape((4, 1)), y.reshape((4, 1)))
    T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[v:v + 1], x)


def main():
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal((VECTORS, 4)).astype(np.float32) for _ in range(2))
    out = np.zeros_like(x)
    tile_mlir.interpret(vector_add, x, y, out)
    assert np.array_equal(out, x + y)                   # add.rn is IEEE: numpy's float32 sum exactly
    return out


if __name__ == "__main__":
    main()
    print(tile_mlir.compile(vector_add, target="sm_90", cubin=False).ptx)
