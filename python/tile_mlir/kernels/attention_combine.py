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

THREADS = 128
KINDS = {"bfloat16": "bf16", "float16": "f16"}
NEG_INF = 0xFF800000


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
        m_s, l_s = self.part[0:1, 0:1], self.part[0:1, 1:2]
        merged = self.beta  # m' before beta takes its place
        T.cuda.tile.apply(T.ptx["max.f32"], merged, self.m, m_s)
        T.cuda.tile.apply(T.ptx["sub.rn.f32"], self.alpha, self.m, merged)
        T.cuda.tile.apply(T.ptx["mov.b32"], self.m.view("uint32"), merged.view("uint32"))
        T.cuda.tile.apply(T.ptx["sub.rn.f32"], self.beta, m_s, self.m)
        T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], self.alpha, self.alpha)
        T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], self.beta, self.beta)
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], l_s, l_s, self.beta)
        T.cuda.tile.apply(T.ptx["fma.rn.f32"], self.l, self.l, self.alpha, l_s)
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], self.o, self.o, self.alpha.broadcast((4, 1)))
        T.cuda.tile.apply(T.ptx["fma.rn.f32"], self.o, self.o_s, self.beta.broadcast((4, 1)), self.o)


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
