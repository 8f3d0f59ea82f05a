"""Storing a warpgroup's wgmma accumulators by TMA, shared by the Hopper
GEMM and attention (tile_mlir.kernels): rounded to pairs
of a 16-bit type, written to a swizzled shared buffer by stmatrix, stored
as 64 x 64 boxes by one thread.

    stage_and_store(C, buf, acc, row0, col0, cols=128, warp=warp, lane=lane, p=p,
                    kind="bf16", barrier=T.uint32(stores.id(c)))

The buffer is reused safely: each call first waits until the stores from
it before have read it (cp.async.bulk.wait_group.read), and fences its
stmatrix writes for the async proxy before the store reads them
(test_pipeline_parts.py runs it in the interpreter, which reports either
step left out).
"""

from .. import script as T


def stmatrix_place(warp, lane):
    """The row of a warpgroup's 64 and the column within a 16 x 16 block of
    the address `lane` gives stmatrix .x4 for its warp's block: row
    l % 8 of matrix l / 8, the matrices (rows 0-7, columns 0-7), (8-15,
    0-7), (0-7, 8-15), (8-15, 8-15) of the wgmma D fragment's block."""
    matrix = lane // 8
    return 16 * warp + lane % 8 + 8 * (matrix % 2), 8 * (matrix // 2)


def stage_and_store(C, buf, acc, row0, col0, cols, warp, lane, p, kind, barrier, outer=()):
    """A warpgroup's 64 rows of accumulators `acc` (the D fragment of `cols`
    columns), rounded to `kind` pairs, written to its shared buffer `buf`
    (cols / 64 boxes of 64 x 64, 128-byte swizzled) by stmatrix (each
    16 x 16 block of a warp's D fragment is four 8 x 8 matrices), then
    stored to C's rows row0.. and columns col0.. as 64 x 64 boxes by one
    thread, which nobody waits for here (C of more than two axes: at
    `outer`, its outer coordinates, innermost first; its box 1 on each). The buffer is free once the
    previous stores from it have read it (cp.async.bulk.wait_group.read); a
    barrier of the warpgroup's 128 threads (id `barrier`) orders that wait
    before the writes and the writes (through fence.proxy.async) before the
    stores."""
    regs = T.alloc_local((1, 4), "uint32")
    with T.if_(p == 0):
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
    T.cuda.tile.apply(T.ptx["bar.sync"], barrier, T.uint32(128))
    row, lane_col = stmatrix_place(warp, lane)
    for j in range(cols // 16):
        for mi in range(4):
            q = 2 * j + mi // 2
            e = 4 * q + 2 * (mi % 2)
            T.cuda.tile.apply(T.ptx[f"cvt.rn.{kind}x2.f32"], regs[0:1, mi:mi + 1], acc[0, 0:1, e + 1:e + 2],
                              acc[0, 0:1, e:e + 1])
        col = (16 * j) % 64 + lane_col
        T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"],
                          buf[(16 * j) // 64, row:row + 1, col:col + 8], regs)
    T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
    T.cuda.tile.apply(T.ptx["bar.sync"], barrier, T.uint32(128))
    rank = 2 + len(outer)
    with T.if_(p == 0):
        for block in range(cols // 64):
            T.cuda.tile.apply(T.ptx[f"cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group"], C.tensor_map,
                              (col0 + 64 * block, row0, *outer),
                              buf[block].reshape((1,) * len(outer) + (64, 64)) if outer else buf[block])
        T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
