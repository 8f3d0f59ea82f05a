"""Tutorial 5: a warp-specialized pipeline from tile_mlir.pipelining: column
sums of a (steps x 64) x 64 float32 matrix, its row blocks streamed by TMA.

The one new idea: a producer and consumers that never share a barrier
after the start, only a ring of slots in shared memory (TmaRing): the
producer `acquire`s a slot (its consumers have released it), `expect`s the
box's bytes and loads it by TMA; the consumers `wait` for the bytes, read,
and `release`. Which slot and which mbarrier phase a step uses is
PipelineState's, never the kernel's arithmetic. Warpgroup 0 produces
(`WarpgroupRoles`, registers moved to the consumers by setmaxnreg),
warpgroup 1 consumes: thread p sums column p % 64 over half of each
block's rows. Drop the consumers' `wait` or their `release` and the
interpreter stops the kernel with an error at its line (without the
release: the producer's wait that never ends). This is the shape of
tile_mlir.kernels.gemm_hopper, whose consumers issue wgmma instead.
"""

import numpy as np

import tile_mlir
from tile_mlir import pipelining as P
from tile_mlir import script as T

STEPS, STAGES, ROWS, COLS = 6, 3, 64, 64
LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"


@T.function
def column_sums(A: T.Tensor((STEPS * ROWS, COLS), "float32", tma=T.TensorMap((ROWS, COLS))),
                Out: T.Tensor((2, COLS), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
    t = T.thread_id()
    slots = T.alloc_dynamic_shared((STAGES, ROWS, COLS), "float32", align=128)  # 48 KiB: dynamic
    ring = P.TmaRing(STAGES, consumers=128)            # each consumer thread releases
    ring.init(where=t == 0)
    P.sync_block()                                     # the last barrier the roles share
    roles = P.WarpgroupRoles(t, registers=(40, 232))
    with roles.producer():
        with T.if_(roles.p == 0):
            for k in T.serial(0, STEPS):
                put = P.PipelineState.producer(STAGES, k)
                ring.acquire(put)
                ring.expect(put, ROWS * COLS * 4)
                T.cuda.tile.apply(T.ptx[LOAD], slots[put.stage], A.tensor_map, (0, k * ROWS), ring.full(put))
    with roles.consumers():
        p = roles.p
        col, half = p % COLS, p // COLS                # rows half * 32 .. + 31 of each block
        total = T.alloc_local((1, 1), "float32")
        value = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), T.uint32(0))
        for k in T.serial(0, STEPS):
            get = P.PipelineState(STAGES, k)
            ring.wait(get)
            for r in range(32):
                T.cuda.tile.apply(T.ptx["ld.shared.f32"], value,
                                  slots[get.stage, half * 32 + r:half * 32 + r + 1, col:col + 1])
                T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, value)
            ring.release(get)
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[half:half + 1, col:col + 1], total)


def main():
    # Small integers: every sum exact, so any order is numpy's.
    a = np.random.default_rng(3).integers(-8, 9, (STEPS * ROWS, COLS)).astype(np.float32)
    out = np.zeros((2, COLS), np.float32)
    tile_mlir.interpret(column_sums, a, out)
    blocks = a.reshape(STEPS, 2, 32, COLS)
    assert np.array_equal(out, blocks.sum(axis=(0, 2)))
    return out


if __name__ == "__main__":
    main()
