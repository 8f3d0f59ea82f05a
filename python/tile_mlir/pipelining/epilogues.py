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
from .layouts import WgmmaAccumulator


def stmatrix_place(warp, lane):
    """The row of a warpgroup's 64 and the column within a 16 x 16 block of
    the address `lane` gives stmatrix .x4 for its warp's block: row
    l % 8 of matrix l / 8, the matrices (rows 0-7, columns 0-7), (8-15,
    0-7), (0-7, 8-15), (8-15, 8-15) of the wgmma D fragment's block."""
    matrix = lane // 8
    return 16 * warp + lane % 8 + 8 * (matrix % 2), 8 * (matrix // 2)


def fragment_pairs(halves, warp, lane, first_row):
    """(half, register, row, column) of each pair of adjacent columns a
    thread (`lane` of `warp`) holds of a warpgroup's D of `halves` x 64
    columns (an m64n64 fragment a half), from row `first_row`."""
    places = WgmmaAccumulator(64)
    for hf in range(halves):
        for e in range(0, 32, 2):
            yield (hf, e, *places.place(e, warp, lane, first_row, 64 * hf))


def store_pairs(out, acc, warp, lane, first_row, rows=None, kind=None):
    """A warpgroup's D `acc` ((halves, 1, 32) float32) from the registers
    into out[first_row + its row] (a (rows, 64 x halves) view), each pair
    of adjacent columns by one store: as it is (st.global.v2.f32), or
    rounded to `kind` (bf16 or f16 bits, st.global.b32); predicated on the
    row below `rows` where it is given."""
    packed = T.alloc_local((1, 1), "uint32") if kind else None
    for hf, e, row, col in fragment_pairs(acc.shape[0], warp, lane, first_row):
        pair = acc[hf, 0:1, e:e + 2]
        if kind is None:
            T.cuda.tile.apply(T.ptx["st.global.v2.f32"], out[row:row + 1, col:col + 2], pair, **_below(row, rows))
            continue
        T.cuda.tile.apply(T.ptx[f"cvt.rn.{kind}x2.f32"], packed, pair[0:1, 1:2], pair[0:1, 0:1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], out[row:row + 1, col:col + 2].view("uint32"), packed,
                          **_below(row, rows))


class DeferredPairs:
    """A warpgroup's D of `halves` x 64 columns, rounded to `kind` pairs
    (bf16 or f16 bits) and held in registers, then stored from them in
    `chunks` parts, each pair by one st.global.b32 predicated on its row:
    a persistent kernel's deferred epilogue where a TMA box would overrun
    the rows it may write (a grouped GEMM's expert's rows). The kernel
    rounds a tile (`round`) and stores its chunks between the next tile's
    first wgmma (`store`), so the tensor cores do not wait for the
    stores; `packed` is the held pairs (element i: pair i of
    fragment_pairs' order)."""

    def __init__(self, halves: int, kind: str, chunks: int):
        if 16 * halves % chunks:
            raise ValueError(f"{16 * halves} pairs do not split into {chunks} chunks")
        self.halves, self.kind, self.chunks = halves, kind, chunks
        self.packed = T.alloc_local((1, 1, 16 * halves), "uint32")

    def round(self, acc):
        """acc ((halves, 1, 32) float32) into the held pairs (cvt.rn.*x2.f32
        d, a, b puts a in the upper half: the pair's second column)."""
        for hf in range(self.halves):
            for e in range(0, 32, 2):
                i = 16 * hf + e // 2
                T.cuda.tile.apply(T.ptx[f"cvt.rn.{self.kind}x2.f32"], self.packed[0, 0:1, i:i + 1],
                                  acc[hf, 0:1, e + 1:e + 2], acc[hf, 0:1, e:e + 1])

    def store(self, out, chunk, warp, lane, first_row, rows=None):
        """Chunk `chunk` of the held pairs into out[first_row + its row] (a
        (rows, 64 x halves) view), predicated on the row below `rows` where
        it is given."""
        per_chunk = 16 * self.halves // self.chunks
        pairs = list(fragment_pairs(self.halves, warp, lane, first_row))
        for i in range(chunk * per_chunk, (chunk + 1) * per_chunk):
            _, _, row, col = pairs[i]
            T.cuda.tile.apply(T.ptx["st.global.b32"], out[row:row + 1, col:col + 2].view("uint32"),
                              self.packed[0, 0:1, i:i + 1], **_below(row, rows))


def stage_f32_pairs(buf, acc, warp, lane, add=False):
    """A warpgroup's float32 D `acc` ((halves, 1, 32): 64 columns a half)
    into `buf` (halves x 2 boxes of 64 rows x 32 columns, 128-byte rows,
    128-byte swizzled), each pair of adjacent columns by one
    st.shared.v2.f32, then fenced for the async proxy (a TMA store or
    reduction reads it next). Under the swizzle the 8 rows a warp writes
    at once fall on distinct 16-byte units: no bank conflict. With `add`,
    each pair is added (add.rn.f32, into `acc`) to what `buf` holds there
    first (ld.shared.v2.f32): another warpgroup's D staged before it."""
    held = T.alloc_local((1, 2), "float32") if add else None
    for hf, e, row, col in fragment_pairs(acc.shape[0], warp, lane, 0):
        box = (64 * hf + 8 * (e // 4)) // 32  # the pair's columns are one box's
        place, pair = buf[box, row:row + 1, col - 32 * box:col - 32 * box + 2], acc[hf, 0:1, e:e + 2]
        if add:
            T.cuda.tile.apply(T.ptx["ld.shared.v2.f32"], held, place)
            T.cuda.tile.apply(T.ptx["add.rn.f32"], pair.reshape((2, 1)), pair.reshape((2, 1)), held.reshape((2, 1)))
        T.cuda.tile.apply(T.ptx["st.shared.v2.f32"], place, pair)
    T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])


def reduce_add_boxes(C, buf, origin):
    """Adds the boxes of `buf` (stage_f32_pairs') to C, a float32 tensor
    whose tensor map's box is 64 rows x 32 columns (1 on outer axes), at
    `origin` (its coordinates innermost first: column, row, outer...),
    box b at column + 32 b, by TMA (cp.reduce.async.bulk.tensor .add: each
    element added atomically in L2; rows and columns outside the tensor
    are dropped), and commits them as one bulk group. One thread calls
    it; before `buf` is written again that thread waits for the group to
    have read it (cp.async.bulk.wait_group.read) and a barrier tells the
    writers."""
    column, *rest = origin
    rank = 1 + len(rest)
    shape = (1,) * (rank - 2) + buf.shape[1:]
    for b in range(buf.shape[0]):
        T.cuda.tile.apply(T.ptx[f"cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.add.tile.bulk_group"],
                          C.tensor_map, (column + 32 * b, *rest), buf[b].reshape(shape))
    T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])


def _below(row, rows):
    """A store's predicate: the row below `rows`, or none (every row)."""
    return {} if rows is None else {"pred": row < rows}


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
