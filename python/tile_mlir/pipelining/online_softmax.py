"""The online softmax of one warpgroup's 64 query rows (FlashAttention's
row state), over the registers a wgmma leaves them in: S (the scores of a
key block, a 64 x bn D fragment), O (64 x 64 per half of the head
dimension), P as wgmma A fragments, and each thread's two rows' (l/4 and
l/4 + 8 of its warp's 16) running maximum m and sum l, in base 2:

    rows = OnlineSoftmax(bn=128, halves=2, keys=KeyMask(causal=True))  # m = -inf, l = 0, O = 0
    ...                                              # S = Q K^T into rows.s
    rows.softmax(t, j, first_row, scale_log2, where)  # P = ex2(S scale - m'), m, l, alpha
    rows.rescale_o()                                 # O *= alpha (the P V before retired)
    rows.p_fragments()                               # P rounded into rows.a
    ...                                              # O += P V from rows.a
    rows.store_stats(Stats, t, first_row, seq)      # m and l of the rows inside seq
    rows.divide()                                    # O / l, one reciprocal a row

A key block's keys that a row does not see (KeyMask: past the causal
diagonal, or past the last key) are -inf where the block needs it (`where`,
a runtime condition the kernel proves from the block's place).

The order of every float operation is the one written here (a row's
maximum and sum as a tree over its registers, then the quad's butterfly),
which the interpreter reproduces bit for bit (test_kernels_attention.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .. import script as T
from .epilogues import fragment_pairs, store_pairs
from .layouts import WgmmaAccumulator
from .reductions import butterfly

NEG_INF = 0xFF800000


@dataclass(frozen=True)
class KeyMask:
    """The keys a query row sees: causal, the keys up to its own index plus
    `diagonal` (S_k - S_q: the bottom-right diagonal, FlashAttention's);
    and, where `keys` is set, only the first `keys` (a tail: the key
    block past the last key holds zeros)."""

    causal: bool = False
    diagonal: int = 0
    keys: Optional[int] = None

    def hides(self, row, key):
        """The runtime condition under which `key` is -inf for `row`; None
        where every key is seen."""
        hidden = (key > (row + self.diagonal if self.diagonal else row)) if self.causal else None
        if self.keys is not None:
            past = key >= self.keys
            hidden = past if hidden is None else hidden | past
        return hidden


class OnlineSoftmax:
    """S's registers (bn / 2 a thread), O's (32 a half of 64 columns), P
    as A fragments (one of 4 registers a k chunk of 16), m, l, and the
    step's maximum, alpha and butterfly partner, two rows a thread."""

    def __init__(self, bn: int, halves: int, kind: str = "bf16", keys: KeyMask = KeyMask(causal=True)):
        if kind not in ("bf16", "f16"):
            raise ValueError(f"P is rounded to bf16 or f16 for the P V wgmma, not {kind!r}")
        self.bn, self.halves, self.regs, self.kind, self.keys = bn, halves, bn // 2, kind, keys
        self.s = T.alloc_local((1, 1, self.regs), "float32")
        self.o = T.alloc_local((halves, 1, 32), "float32")
        self.a = T.alloc_local((bn // 16, 1, 4), "uint32")
        self.m = T.alloc_local((2, 1), "float32")
        self.l = T.alloc_local((2, 1), "float32")
        self.max = T.alloc_local((2, 1), "float32")
        self.alpha = T.alloc_local((2, 1), "float32")
        self.partner = T.alloc_local((2, 1), "float32")
        self.reset()
        # A thread's registers by its row h (0: l/4, 1: l/4 + 8): (bn / 8, 2, 1).
        self.by_row = [self.s.reshape((self.regs // 4, 2, 2, 1))[:, h] for h in range(2)]
        self.o_rows = [self.o.reshape((halves * 8, 2, 2, 1))[:, h] for h in range(2)]

    def reset(self):
        """O = 0, l = 0, m = -inf: before a tile's first key block."""
        T.cuda.tile.apply(T.ptx["mov.b32"], self.o.view("uint32").reshape((32 * self.halves, 1)), T.uint32(0))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.l.view("uint32"), T.uint32(0))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.m.view("uint32"), T.uint32(NEG_INF))

    def _row_reduce(self, values, out, opcode):
        """out (1, 1) = opcode over a row's (bn / 8, 2, 1) values as a tree
        (pairs of each block of eight columns, then halves), which gives
        ptxas independent instructions to schedule."""
        n = self.regs // 4
        tree = T.alloc_local((n, 1, 1), "float32")
        T.cuda.tile.apply(T.ptx[opcode], tree, values[:, 0:1], values[:, 1:2])
        while n > 1:
            n //= 2
            T.cuda.tile.apply(T.ptx[opcode], tree[0:n], tree[0:n], tree[n:2 * n])
        T.cuda.tile.apply(T.ptx["mov.b32"], out.view("uint32"), tree[0, 0:1].view("uint32"))

    def mask(self, t, j, first_row, where):
        """Where `where` holds (a runtime condition, or True: a block known
        at trace time to need it), S's keys that the thread's row does not
        see (self.keys) are -inf (key block j; the warpgroup's rows start
        at first_row)."""
        if where is True:
            self._hide_keys(t, j, first_row)
            return
        with T.if_(where):
            self._hide_keys(t, j, first_row)

    def _hide_keys(self, t, j, first_row):
        warp, lane = (t // 32) % 4, t % 32
        flat = self.s.reshape((self.regs, 1))
        for e in range(self.regs):
            row, key = WgmmaAccumulator(self.bn).place(e, warp, lane, first_row, j * self.bn)
            T.cuda.tile.apply(T.ptx["mov.b32"], flat[e:e + 1].view("uint32"), T.uint32(NEG_INF),
                              pred=self.keys.hides(row, key), preserve_dst=True)

    def softmax(self, t, j, first_row, scale_log2, mask=None):
        """Key block j's S (landed) becomes P = ex2(S * scale_log2 - m')
        in S's registers, masked (self.keys) where `mask` holds; m and l move
        on, and alpha = ex2(m - m') is left for rescale_o. O is not
        touched, so a P V of the block before may still be running."""
        if mask is not None:
            self.mask(t, j, first_row, mask)
        for h in range(2):
            row, mh, lh = self.by_row[h], self.m[h:h + 1], self.l[h:h + 1]
            st, ah, ph = self.max[h:h + 1], self.alpha[h:h + 1], self.partner[h:h + 1]
            self._row_reduce(row, st, "max.f32")
            butterfly(st, "max.f32", ph, lanes=4, offsets=(1, 2))  # the quad holds a row
            # m' = max(m, max * scale_log2); alpha = ex2(m - m')
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], st, st, T.float32(scale_log2))
            T.cuda.tile.apply(T.ptx["max.f32"], st, st, mh)
            T.cuda.tile.apply(T.ptx["sub.rn.f32"], ah, mh, st)
            T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], ah, ah)
            T.cuda.tile.apply(T.ptx["mov.b32"], mh.view("uint32"), st.view("uint32"))
            # P = ex2(S * scale_log2 - m'), one rounding before ex2 (fma)
            T.cuda.tile.apply(T.ptx["neg.f32"], ph, st)
            T.cuda.tile.apply(T.ptx["fma.rn.f32"], row, row, T.float32(scale_log2),
                              ph.reshape((1, 1, 1)).broadcast((self.regs // 4, 2, 1)))
            T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], row, row)
            self._row_reduce(row, ph, "add.rn.f32")
            butterfly(ph, "add.rn.f32", st, lanes=4, offsets=(1, 2))
            T.cuda.tile.apply(T.ptx["fma.rn.f32"], lh, lh, ah, ph)

    def rescale_o(self):
        """O *= alpha, row by row (once the P V before has retired)."""
        for h in range(2):
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], self.o_rows[h], self.o_rows[h],
                              self.alpha[h:h + 1].reshape((1, 1, 1)).broadcast((self.halves * 8, 2, 1)))

    def p_fragments(self):
        """P's pairs rounded (to `kind`) into wgmma's A fragments: S's
        registers 8c to 8c + 7 are A's of k chunk c."""
        pairs = self.s.reshape((self.regs // 2, 2, 1))
        T.cuda.tile.apply(T.ptx[f"cvt.rn.{self.kind}x2.f32"], self.a.reshape((self.regs // 2, 1)), pairs[:, 1],
                          pairs[:, 0])

    def store_stats(self, stats, t, first_row, seq):
        """Each row's m (base 2: the scores' maximum times scale_log2) and
        l into stats[first_row + its row] (a (seq, 2) float32 view), from
        the quad's first lane, for the rows below `seq`; before divide(),
        which overwrites l. The row's log-sum-exp of the scaled scores is
        (m + log2 l) ln 2."""
        warp, lane = (t // 32) % 4, t % 32
        pair = T.alloc_local((1, 2), "float32")
        for h in range(2):
            row = first_row + 16 * warp + lane // 4 + 8 * h
            T.cuda.tile.apply(T.ptx["mov.b32"], pair[0:1, 0:1].view("uint32"), self.m[h:h + 1].view("uint32"))
            T.cuda.tile.apply(T.ptx["mov.b32"], pair[0:1, 1:2].view("uint32"), self.l[h:h + 1].view("uint32"))
            with T.if_((lane % 4 == 0) & (row < seq)):
                T.cuda.tile.apply(T.ptx["st.global.v2.f32"], stats[row:row + 1], pair)

    def store_o(self, out, t, first_row, seq, kind=None):
        """O into out[first_row + its row] (a (seq, 64 x halves) view) for
        the rows below `seq`, each pair of adjacent columns by one store: as
        it is (float32, st.global.v2.f32: a part of the keys' sum,
        split-KV), or rounded to `kind` (bf16 or f16 bits, st.global.b32)."""
        store_pairs(out, self.o, (t // 32) % 4, t % 32, first_row, seq, kind)

    def load_o(self, o, src, t, first_row, seq):
        """store_o's inverse for float32: the thread's places of `src` (a
        (seq, 64 x halves) float32 view) into `o` (shaped as self.o), for
        the rows below `seq` (a row past it is never stored, and reads
        nothing)."""
        for hf, e, row, col in fragment_pairs(self.halves, (t // 32) % 4, t % 32, first_row):
            T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], o[hf, 0:1, e:e + 2], src[row:row + 1, col:col + 2],
                              pred=row < seq)

    def merge_part(self, t, first_row, seq, part_o, part_stats):
        """Split-KV's merge: the part of the keys whose O (not divided) and
        rows' m and l are at part_o and part_stats (store_o's and
        store_stats' views) merged into this state as the softmax moves
        from one key block to the next (merge_rows); from reset(), the
        parts in order give the state of the whole row."""
        o_s = T.alloc_local((self.halves, 1, 32), "float32")
        stats = T.alloc_local((2, 2), "float32")  # row h's m_s and l_s
        self.load_o(o_s, part_o, t, first_row, seq)
        warp, lane = (t // 32) % 4, t % 32
        for h in range(2):
            row = first_row + 16 * warp + lane // 4 + 8 * h
            T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], stats[h:h + 1], part_stats[row:row + 1], pred=row < seq)
        o_s_rows = o_s.reshape((self.halves * 8, 2, 2, 1))
        for h in range(2):
            merge_rows((self.m[h:h + 1], self.l[h:h + 1], self.o_rows[h]),
                       (stats[h:h + 1, 0:1], stats[h:h + 1, 1:2], o_s_rows[:, h]),
                       (self.alpha[h:h + 1], self.max[h:h + 1]))

    def divide(self):
        """O / l in place, row by row: times rcp.rn.f32 of l, one reciprocal
        a row (within an ulp of the quotient; div.rn.f32 would take
        ptxas's slow path per element)."""
        for h in range(2):
            lh = self.l[h:h + 1]
            T.cuda.tile.apply(T.ptx["rcp.rn.f32"], lh, lh)
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], self.o_rows[h], self.o_rows[h],
                              lh.reshape((1, 1, 1)).broadcast((self.halves * 8, 2, 1)))


def merge_rows(state, part, scratch):
    """A row's running (m, l, O) merged with a part's (m_s, l_s, O_s),
    float32 registers ((1, 1), (1, 1) and O's values of the row, any
    shape), as the online softmax moves from one key block to the next:

        m' = max(m, m_s); alpha = ex2(m - m'); beta = ex2(m_s - m')
        l = l alpha + (l_s beta); O = O alpha, then O = O_s beta + O

    (mul.rn, fma.rn; l_s is overwritten). `scratch`: two (1, 1) registers
    (alpha, beta). From m = -inf, l = 0, O = 0, the first part's alpha is 0
    and its beta 1; m_s must be finite (a part holds a key the row sees)."""
    (m, l, o), (m_s, l_s, o_s), (alpha, beta) = state, part, scratch
    T.cuda.tile.apply(T.ptx["max.f32"], beta, m, m_s)  # m' (beta's register until m takes it)
    T.cuda.tile.apply(T.ptx["sub.rn.f32"], alpha, m, beta)
    T.cuda.tile.apply(T.ptx["mov.b32"], m.view("uint32"), beta.view("uint32"))
    T.cuda.tile.apply(T.ptx["sub.rn.f32"], beta, m_s, m)
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], alpha, alpha)
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], beta, beta)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], l_s, l_s, beta)
    T.cuda.tile.apply(T.ptx["fma.rn.f32"], l, l, alpha, l_s)
    ones = (1,) * len(o.shape)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], o, o, alpha.reshape(ones).broadcast(o.shape))
    T.cuda.tile.apply(T.ptx["fma.rn.f32"], o, o_s, beta.reshape(ones).broadcast(o.shape), o)
