"""Split-KV's second kernel: each query row's parts (m_s, l_s, O_s), the
attention kernel's with config.splits > 1 (O_s not divided), merged as the
forward's online softmax moves from one key block to the next, in part
order:

    m' = max(m, m_s)
    alpha = ex2(m - m'), beta = ex2(m_s - m')        (ex2.approx.ftz.f32)
    l = l alpha + (l_s beta)                         (mul.rn, then fma.rn)
    O = O alpha, then O = O_s beta + O               (mul.rn, then fma.rn)

from m = -inf, l = 0, O = 0 (the first part's alpha is 0, its beta 1),
then O times rcp.rn(l), rounded once to the inputs' type. Every part
holds a key its rows see (the attention kernel proves it), so m_s is
finite and no step takes ex2(-inf - -inf). With `stats`, each row's merged
m and l, as the unsplit kernel stores them (the log-sum-exp's).

A thread holds four columns of one row (16-byte loads of each part's O):
d / 4 threads a row, 128 threads a block.
"""

from .. import script as T
from ..pipelining.arrivals import last_arrival
from ..pipelining.online_softmax import NEG_INF, merge_rows
from .rows import KINDS

THREADS = 128


class _RowMerge:
    """A thread's running m, l (1, 1) and four columns of O (4, 1)."""

    def __init__(self):
        self.m = T.alloc_local((1, 1), "float32")
        self.l = T.alloc_local((1, 1), "float32")
        self.o = T.alloc_local((4, 1), "float32")
        self.part = T.alloc_local((1, 2), "float32")  # m_s, l_s
        self.o_s = T.alloc_local((4, 1), "float32")
        self.alpha = T.alloc_local((1, 1), "float32")
        self.beta = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], self.m.view("uint32"), T.uint32(NEG_INF))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.l.view("uint32"), T.uint32(0))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.o.view("uint32"), T.uint32(0))

    def add(self, stats, partial):
        """The module docstring's step for one part: `stats` its row's
        (1, 2) m_s and l_s, `partial` the thread's (1, 4) of O_s."""
        T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], self.part, stats)
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], self.o_s.reshape((1, 4)), partial)
        merge_rows((self.m, self.l, self.o), (self.part[0:1, 0:1], self.part[0:1, 1:2], self.o_s),
                   (self.alpha, self.beta))


def attention_combine(splits: int, rows: int, d: int, dtype: str = "bfloat16", stats: bool = False):
    """The kernel merging `splits` parts of `rows` query rows (all heads'
    rows, bh x seq) of head dimension `d`: a T.function of (Partial,
    Stats, O), Partial (splits, rows, d) float32, Stats (splits, rows, 2)
    float32, O (rows, d) bits of `dtype` (uint16); with `stats`, of
    (Partial, Stats, O, Merged): Merged (rows, 2), each row's m and l."""
    if dtype not in KINDS:
        raise ValueError(f"O is one of {sorted(KINDS)}, not {dtype!r}")
    if splits < 2 or rows < 1 or d % 4 or not 4 <= d <= 4 * THREADS:
        raise ValueError(f"{splits} parts of {rows} rows of {d} columns: two parts or more, whole 16 bytes a row")
    per_row = d // 4
    rows_a_block = THREADS // per_row
    partial_t = T.Tensor((splits, rows, d), "float32")
    stats_t = T.Tensor((splits, rows, 2), "float32")
    o_t = T.Tensor((rows, d), "uint16")
    grid = -(-rows // rows_a_block)

    def body(Partial, Stats, O, Merged):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=rows_a_block * per_row))
        t, bid = T.thread_id(), T.block_id()
        row, col = bid * rows_a_block + t // per_row, 4 * (t % per_row)
        inside = row < rows
        read = T.minimum(row, rows - 1) if rows % rows_a_block else row
        merge = _RowMerge()
        for s in T.serial(0, splits):
            merge.add(Stats[s, read:read + 1, 0:2], Partial[s, read:read + 1, col:col + 4])
        T.cuda.tile.apply(T.ptx["rcp.rn.f32"], merge.alpha, merge.l)
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], merge.o, merge.o, merge.alpha.broadcast((4, 1)))
        packed = T.alloc_local((2, 1), "uint32")
        pairs = merge.o.reshape((2, 2, 1))
        T.cuda.tile.apply(T.ptx[f"cvt.rn.{KINDS[dtype]}x2.f32"], packed, pairs[:, 1], pairs[:, 0])
        T.cuda.tile.apply(T.ptx["st.global.v2.b32"], O.view("uint32")[row:row + 1, col // 2:col // 2 + 2],
                          packed.reshape((1, 2)), pred=inside)
        if Merged is not None:
            T.cuda.tile.apply(T.ptx["mov.b32"], merge.part[0:1, 0:1].view("uint32"), merge.m.view("uint32"))
            T.cuda.tile.apply(T.ptx["mov.b32"], merge.part[0:1, 1:2].view("uint32"), merge.l.view("uint32"))
            T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Merged[row:row + 1], merge.part, pred=inside & (col == 0))

    if not stats:
        @T.function
        def attention_combine(Partial: partial_t, Stats: stats_t, O: o_t):
            body(Partial, Stats, O, None)
        return attention_combine

    @T.function
    def attention_combine(Partial: partial_t, Stats: stats_t, O: o_t, Merged: T.Tensor((rows, 2), "float32")):
        body(Partial, Stats, O, Merged)
    return attention_combine


class LaunchMerge:
    """Split-KV's merge in the attention kernel's own launch (its config's
    `one_launch`), as split_k_finish sums a GEMM's slices: after consumer
    `c` stores its part of a tile (its 64 rows' O not divided, m and l),
    its warpgroup arrives at the tile's counter (tile x 2 + c); the
    warpgroup that sees splits - 1 arrivals before its own holds the last
    part: it sets the counter back to 0, merges every part in part order
    (OnlineSoftmax.merge_part: the module docstring's steps, the same bits
    as the combine kernel), divides, and stores O rounded (st.global.b32
    pairs) and, with Merged, the rows' m and l. `arrays`: (Partial, Stats,
    O, Counters, Merged or None); `slot` (2, 1) uint32 shared, each
    consumer's count handed round; `barriers` the consumers' own."""

    def __init__(self, splits, bh, seq, kind, arrays, slot, barriers, c):
        self.splits, self.bh, self.seq, self.kind, self.c = splits, bh, seq, kind, c
        self.partial, self.stats, self.out, self.counters, self.merged = arrays
        self.slot, self.barriers = slot, barriers

    def arrive(self, rows, tile_index, head, rows_from, t):
        """After the warpgroup's part of tile `tile_index` (of `head`, rows
        from `rows_from`) is stored: count it; the last part merges
        (pipelining.last_arrival)."""
        at = tile_index * 2 + self.c
        with last_arrival(self.counters[at:at + 1], self.slot, self.barriers, self.c, t % 128, self.splits):
            self._merge(rows, head, rows_from, t)

    def _merge(self, rows, head, rows_from, t):
        rows.reset()
        for s in T.serial(0, self.splits):  # a loop, not unrolled: each part's O is 32 registers a half
            unit = s * self.bh + head
            rows.merge_part(t, rows_from, self.seq, self.partial[unit], self.stats[unit])
        if self.merged is not None:
            rows.store_stats(self.merged[head], t, rows_from, self.seq)
        rows.divide()
        rows.store_o(self.out[head], t, rows_from, self.seq, self.kind)
