"""Attention forward on Hopper's warpgroup tensor cores (issue #28), written
with the tile_mlir script front end: O = softmax(Q K^T * scale) V for bf16
Q, K, V of head dimension d (64, or 128 in two halves), rows
[batch * heads, seq, d] flattened to [batch * heads * seq, d], f32 O;
causal or not (attention_kernel's arguments).

A block of one warpgroup (128 threads) computes 64 query rows, over blocks
of 64 keys:

1. Q's 64 x 64 tile and each key block's K and V tiles go from global to
   shared memory by cp.async, 128-byte-swizzled, the next key block's in
   flight while one is computed (two stages, one barrier per block);
2. S = Q K^T: four wgmma m64n64k16 (K-major Q and K through
   tile.matrix_descriptor), into 32 f32 registers a thread: rows l/4 and
   l/4 + 8 of its warp's 16, 16 columns each;
3. the online softmax, in base 2 (`scale_log2` = scale * log2 e): each
   thread's row maximum over its 16 values, then over the four lanes of
   its quad (shfl.sync.bfly 1 and 2); m' = max(m, max * scale_log2),
   P = ex2(S * scale_log2 - m'), the row sum likewise, l = l ex2(m - m') +
   sum, and O is rescaled by ex2(m - m');
4. O += P V: P's registers become wgmma's A fragments as they stand (D's
   registers 8c to 8c + 7 are A's of k chunk c, pairs rounded by
   cvt.rn.bf16x2.f32), and V's tile is read MN-major (imm-trans-b 1: its
   rows are the keys);
5. O / l, stored as f32 pairs.
"""

import math

from tile_mlir import script as T
from tile_mlir.pipelining.barriers import NamedBarriers
from tile_mlir.pipelining.epilogues import stage_and_store
from tile_mlir.pipelining.layouts import WgmmaAccumulator
from tile_mlir.pipelining.reductions import butterfly
from tile_mlir.pipelining.roles import ConsumerTurns, WarpgroupRoles
from tile_mlir.pipelining.state import PipelineState

D = 64            # head dimension
BM = 64           # query rows a block
BN = 64           # keys a step
THREADS = 128
WGMMA = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"


class _RowState:
    """One warpgroup's 64 query rows: S's registers (bn / 2 a thread), O's
    (32 a half of 64 columns), P as wgmma A fragments, and each thread's
    two rows' (l/4 and l/4 + 8 of its warp's 16) running maximum m and sum
    l. Element e of a 64 x N D fragment is row l/4 + 8 ((e % 4) / 2),
    column 8 (e / 4) + 2 (l % 4) + e % 2."""

    def __init__(self, bn, halves, wide_pv=True):
        self.bn, self.halves, self.regs, self.wide_pv = bn, halves, bn // 2, wide_pv
        self.s = T.alloc_local((1, 1, self.regs), "float32")
        self.o = T.alloc_local((halves, 1, 32), "float32")
        self.a = T.alloc_local((bn // 16, 1, 4), "uint32")  # P as A fragments, one per k chunk
        self.m = T.alloc_local((2, 1), "float32")
        self.l = T.alloc_local((2, 1), "float32")
        self.max = T.alloc_local((2, 1), "float32")
        self.alpha = T.alloc_local((2, 1), "float32")
        self.partner = T.alloc_local((2, 1), "float32")
        self.reset()
        self.by_row = [self.s.reshape((self.regs // 4, 2, 2, 1))[:, h] for h in range(2)]  # (bn / 8, 2, 1)
        self.o_rows = [self.o.reshape((halves * 8, 2, 2, 1))[:, h] for h in range(2)]

    def reset(self):
        """O = 0, l = 0, m = -inf: before the first key block of rows."""
        T.cuda.tile.apply(T.ptx["mov.b32"], self.o.view("uint32").reshape((32 * self.halves, 1)), T.uint32(0))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.l.view("uint32"), T.uint32(0))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.m.view("uint32"), T.uint32(0xFF800000))  # -inf

    def _row_reduce(self, values, out, opcode):
        """out (1, 1) = opcode over a row's (bn / 8, 2, 1) values (the
        quad's four lanes follow), as a tree: the pairs of each block of
        eight columns, then halves, so that ptxas has independent
        instructions to schedule (a chain leaves it idle slots it fills with
        the wait for the P V before)."""
        n = self.regs // 4
        tree = T.alloc_local((n, 1, 1), "float32")
        T.cuda.tile.apply(T.ptx[opcode], tree, values[:, 0:1], values[:, 1:2])
        while n > 1:
            n //= 2
            T.cuda.tile.apply(T.ptx[opcode], tree[0:n], tree[0:n], tree[n:2 * n])
        T.cuda.tile.apply(T.ptx["mov.b32"], out.view("uint32"), tree[0, 0:1].view("uint32"))

    def issue_s(self, q_s, k_tile, q_row, t, threads):
        """S = Q K^T (rows q_row.. of q_s) issued and committed: four wgmma
        a half of 64 columns (the first one zeroes S)."""
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        for hf in range(self.halves):
            for c in range(4):
                T.cuda.tile.apply(T.ptx[f"wgmma.mma_async.sync.aligned.m64n{self.bn}k16.f32.bf16.bf16"], self.s,
                                  q_s[hf, q_row:q_row + 64, 16 * c:16 * c + 16].matrix_descriptor(),
                                  k_tile[hf, 0:self.bn, 16 * c:16 * c + 16].matrix_descriptor(),
                                  t < threads if c or hf else t >= threads, T.int32(1), T.int32(1), T.uint32(0),
                                  T.uint32(0))
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])

    def softmax(self, t, j, first_row, scale_log2, mask=None):
        """Key block j's S (landed) becomes P = ex2(S * scale_log2 - m')
        in S's registers, with the causal mask where `mask` holds (keys past
        first_row + the thread's row are -inf); m and l move on, and alpha =
        ex2(m - m') is left for rescale_o. O is not touched, so a P V of the
        block before may still be running."""
        regs, s = self.regs, self.s
        warp, lane = (t // 32) % 4, t % 32
        if mask is not None:
            with T.if_(mask):
                flat = s.reshape((regs, 1))
                for e in range(regs):
                    row, key = WgmmaAccumulator(self.bn).place(e, warp, lane, first_row, j * self.bn)
                    T.cuda.tile.apply(T.ptx["mov.b32"], flat[e:e + 1].view("uint32"), T.uint32(0xFF800000),
                                      pred=key > row, preserve_dst=True)
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
                              ph.reshape((1, 1, 1)).broadcast((regs // 4, 2, 1)))
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
        """P's pairs rounded into wgmma's A fragments: S's registers 8c to
        8c + 7 are A's of k chunk c."""
        pairs = self.s.reshape((self.regs // 2, 2, 1))
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], self.a.reshape((self.regs // 2, 1)), pairs[:, 1], pairs[:, 0])

    def issue_pv(self, v_tile, always, fence=True):
        """O += P V issued and committed, from the A fragments as they
        stand (`always` is a true predicate: every wgmma accumulates); V's
        tile is read MN-major. `fence=False` for a caller whose
        wgmma.fence already follows the fragments' writes."""
        if fence:
            T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        if self.wide_pv and self.halves > 1:
            # One wgmma a k chunk over every column of O: V's tile read as
            # one MN-major operand of `halves` swizzled rows (a 3-D
            # descriptor), O's registers the halves' one after the other.
            for c in range(self.bn // 16):
                T.cuda.tile.apply(T.ptx[f"wgmma.mma_async.sync.aligned.m64n{64 * self.halves}k16.f32.bf16.bf16"],
                                  self.o.reshape((1, 1, 32 * self.halves)), self.a[c:c + 1],
                                  v_tile[:, 16 * c:16 * c + 16, 0:64].matrix_descriptor(),
                                  always, T.int32(1), T.int32(1), T.uint32(1))
            T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
            return
        for hf in range(self.halves):
            for c in range(self.bn // 16):
                T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"], self.o[hf:hf + 1],
                                  self.a[c:c + 1], v_tile[hf, 16 * c:16 * c + 16, 0:64].matrix_descriptor(),
                                  always, T.int32(1), T.int32(1), T.uint32(1))
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])

    def step(self, q_s, k_tile, v_tile, q_row, t, threads, j, first_row, scale_log2, mask=None):
        """One key block j, in order: S = Q K^T, its softmax, O rescaled
        and O += P V issued and committed (the caller waits for it)."""
        self.issue_s(q_s, k_tile, q_row, t, threads)
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        self.softmax(t, j, first_row, scale_log2, mask)
        self.rescale_o()
        self.p_fragments()
        self.issue_pv(v_tile, t < threads)

    def store(self, O, row0, t, out="float32", divide="rn"):
        """O / l into rows row0.. of O: as f32 pairs, or (`out`
        "bfloat16") pairs rounded by cvt.rn.bf16x2.f32 into 4-byte words.
        `divide` "rn": each element by div.rn.f32 (correctly rounded; ptxas
        calls its slow path per element); "rcp": times rcp.rn.f32 of l, one
        reciprocal a row (within an ulp of the quotient)."""
        warp, lane = (t // 32) % 4, t % 32
        self._divide(divide)
        packed = T.alloc_local((1, 1), "uint32") if out == "bfloat16" else None
        for hf in range(self.halves):
            for e in range(0, 32, 2):
                r, col = WgmmaAccumulator(64).place(e, warp, lane, row0, 64 * hf)
                if packed is None:
                    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], O[r:r + 1, col:col + 2], self.o[hf, 0:1, e:e + 2])
                    continue
                # cvt.rn.bf16x2.f32 d, a, b puts a in the upper half: column col + 1.
                T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], packed, self.o[hf, 0:1, e + 1:e + 2],
                                  self.o[hf, 0:1, e:e + 1])
                T.cuda.tile.apply(T.ptx["st.global.b32"], O.view("uint32")[r:r + 1, col // 2:col // 2 + 1], packed)

    def store_tma(self, O, buf, row0, t, barrier, divide="rcp"):
        """O / l (as `store`'s) rounded to bf16 pairs into the warpgroup's
        shared buffer `buf` (a 64 x 64 box a half) by stmatrix and stored to
        O's rows row0.. as 64 x 64 boxes by one thread
        (pipelining.epilogues.stage_and_store; the warpgroup's barrier `barrier`). The
        store is not waited for: the next one waits until it has read the
        buffer."""
        self._divide(divide)
        stage_and_store(O, buf, self.o.reshape((1, 1, 32 * self.halves)), row0, 0, 64 * self.halves,
                        (t // 32) % 4, t % 32, t % 128, "bf16", barrier)

    def _divide(self, divide):
        """O / l in place, row by row: div.rn.f32 ("rn") or times rcp.rn.f32
        of l ("rcp")."""
        for h in range(2):
            lh = self.l[h:h + 1]
            if divide == "rcp":
                T.cuda.tile.apply(T.ptx["rcp.rn.f32"], lh, lh)
            T.cuda.tile.apply(T.ptx["div.rn.f32" if divide == "rn" else "mul.rn.f32"], self.o_rows[h],
                              self.o_rows[h], lh.reshape((1, 1, 1)).broadcast((self.halves * 8, 2, 1)))


def _init_barriers(t, *barriers):
    """Thread 0 initializes each (mbarrier, arrivals) of `barriers`; the
    block then waits for them."""
    for barrier, count in barriers:
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], barrier, T.uint32(count), pred=t == 0)
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))


def _wait(done, barrier, parity):
    """Spins until the phase of `barrier` of parity `parity` completed."""
    with T.until(done):
        T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, barrier, T.uint32(parity))


class _Ring:
    """The producer's ring of K's and V's stages (k_s and v_s, stages x
    halves x bn x 64): key block g (the ring's step) is in K's stage g %
    k_stages and V's stage g % v_stages. With as many stages of each, one
    pair of mbarriers a stage serves both: the producer's expect_tx of K's
    and V's bytes completes `full`, and the stage is free once each
    consumer's P V of it retired (`empty`, an arrival a consumer). With
    fewer stages of V, each has its own pair (`full` and `empty` K's,
    `full_v` and `empty_v` V's): K's stage is freed once the S after it is
    issued, V's once its P V retired, as FlashAttention 3's separate
    pipelines. V's ring of 2 then leads as far as a shared ring of 3 (each
    refill waits for the P V two blocks back), and its third stage's bytes
    go to something else. `state` and `done` are the thread's
    mbarrier.arrive state and wait flag."""

    def __init__(self, k_s, v_s, full, empty, state, done, full_v=None, empty_v=None):
        self.k_s, self.v_s, self.full, self.empty, self.state, self.done = k_s, v_s, full, empty, state, done
        self.full_v, self.empty_v = full_v, empty_v
        self.k_stages, self.v_stages = k_s.shape[0], v_s.shape[0]
        self.split = full_v is not None
        self.box_bytes = k_s.shape[1] * k_s.shape[2] * 128  # K's (or V's) boxes of a key block

    def barriers(self, consumers):
        """(mbarrier, arrivals) of each, for _init_barriers."""
        pairs = [pair for s in range(self.k_stages)
                 for pair in ((self.full[s:s + 1], 1), (self.empty[s:s + 1], consumers))]
        if self.split:
            pairs += [pair for s in range(self.v_stages)
                      for pair in ((self.full_v[s:s + 1], 1), (self.empty_v[s:s + 1], consumers))]
        return pairs

    def k(self, g):
        return self.k_s[g % self.k_stages]

    def v(self, g):
        return self.v_s[g % self.v_stages]

    def produce(self, K, V, g, row):
        """The producer's step g: once the consumers freed its stages (after
        the first round), K's and V's boxes of the key block at `row` into
        them, completing their full mbarriers."""
        load = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]
        rings = ((self.full, self.empty, ((self.k_s, K), (self.v_s, V))),) if not self.split else (
            (self.full, self.empty, ((self.k_s, K),)), (self.full_v, self.empty_v, ((self.v_s, V),)))
        for full, empty, tiles in rings:
            stages = full.shape[0]
            put = PipelineState.producer(stages, g)
            stage = put.stage
            with T.if_(g >= stages):
                _wait(self.done, empty[stage:stage + 1], put.phase)
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], self.state,
                              full[stage:stage + 1], T.uint32(len(tiles) * self.box_bytes))
            for tile, tensor in tiles:
                for hf in range(tile.shape[1]):
                    T.cuda.tile.apply(load, tile[stage, hf], tensor.tensor_map, (64 * hf, row), full[stage])

    def wait_k(self, g):
        """Until K of step g (and V, with one ring) has landed."""
        get = PipelineState(self.k_stages, g)
        _wait(self.done, self.full[get.stage:get.stage + 1], get.phase)

    def wait_v(self, g):
        """Until V of step g has landed (waited for with K's in one ring)."""
        if self.split:
            get = PipelineState(self.v_stages, g)
            _wait(self.done, self.full_v[get.stage:get.stage + 1], get.phase)

    def k_empty(self, g):
        """The mbarrier that frees K's stage of step g."""
        stage = g % self.k_stages
        return self.empty[stage:stage + 1]

    def _arrive(self, barrier, p):
        """Consumer thread p's arrival on `barrier` (its warpgroup's one)."""
        T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], self.state, barrier, pred=p == 0)

    def free_k(self, g, p):
        """Consumer thread p frees K's stage of step g (its S retired), with
        two rings; with one, the stage is freed with V's."""
        if self.split:
            self._arrive(self.k_empty(g), p)

    def free_v(self, g, p, keep_k=False):
        """Consumer thread p frees V's stage of step g (its P V retired):
        with one ring the stage, unless `keep_k` (K's rows still in use)."""
        if self.split:
            stage = g % self.v_stages
            self._arrive(self.empty_v[stage:stage + 1], p)
        elif not keep_k:
            self._arrive(self.k_empty(g), p)


def _consume_pipelined(row_state, turns, q_s, ring, g0, steps, q_row, p, rows_from, scale_log2, mask,
                       after_first_issue=None):
    """One consumer's key blocks 0 to steps - 1 of its rows (Q's from
    `q_row` of q_s) in FlashAttention 3's order (attention_specialized's
    `pipelined`); block j is the ring's step g0 + j. `turns` (or None) orders the wgmma issues
    between the consumers. Leaves P of the last block in the fragments,
    its O += P V for _finish_pipelined, and every S retired; with two
    rings, K's stages before the last freed.
    `after_first_issue` (or None) runs once the first S is in flight."""
    wgmma_wait = T.ptx["wgmma.wait_group.sync.aligned"]

    def my_turn():
        if turns:
            turns.wait_turn()

    def their_turn():
        if turns:
            turns.pass_turn()

    ring.wait_k(g0)
    my_turn()
    row_state.issue_s(q_s, ring.k(g0), q_row, p, 128)
    their_turn()
    if after_first_issue:
        after_first_issue()
    T.cuda.tile.apply(wgmma_wait, T.uint32(0))
    row_state.softmax(p, 0, rows_from, scale_log2, mask(0))
    row_state.p_fragments()
    for j in T.serial(1, steps):
        ring.wait_k(g0 + j)
        ring.wait_v(g0 + j - 1)
        my_turn()
        row_state.issue_s(q_s, ring.k(g0 + j), q_row, p, 128)
        row_state.issue_pv(ring.v(g0 + j - 1), p < 128, fence=False)
        their_turn()
        ring.free_k(g0 + j - 1, p)  # its S retired at the wait_group before
        T.cuda.tile.apply(wgmma_wait, T.uint32(1))
        row_state.softmax(p, j, rows_from, scale_log2, mask(j))
        T.cuda.tile.apply(wgmma_wait, T.uint32(0))
        ring.free_v(g0 + j - 1, p)
        row_state.rescale_o()
        row_state.p_fragments()


def _finish_pipelined(row_state, turns, ring, g, p, more=False, keep=False):
    """O += P V of the last key block (the ring's step g), retired, its
    stages freed unless `keep` (K's rows still in use); `more`: whether
    the consumer has rows after these (for turns)."""
    ring.wait_v(g)
    if turns:
        turns.wait_turn()
    row_state.issue_pv(ring.v(g), p < 128)
    if turns:
        turns.pass_turn(more)
    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
    ring.free_v(g, p, keep_k=keep)
    if not keep:
        ring.free_k(g, p)


def _free_once_read(state, barrier, p, when=True):
    """Thread 0 of the warpgroup (`p` its thread) waits until the
    warpgroup's TMA stores have read their shared source
    (cp.async.bulk.wait_group.read), then arrives on `barrier`: that
    buffer is free. `when`: a further condition."""
    with T.if_((p == 0) if when is True else (p == 0) & when):
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, barrier)


def _shape_and_scale(seq, bm, bn, d, scale, scale_log2):
    """The halves of 64 columns of head dimension d, and the softmax scale
    in base 2 (from `scale`, 1 / sqrt(d) by default), once the shapes are
    checked."""
    if seq % bn or seq % bm or bn not in (64, 128) or d not in (64, 128):
        raise ValueError(f"a sequence of {seq} is not a multiple of {bn} and {bm}, or d {d} not 64 or 128")
    if scale_log2 is None:
        scale_log2 = (scale if scale is not None else 1.0 / math.sqrt(d)) * math.log2(math.e)
    return d // 64, scale_log2


def _block_rows(bid, seq, bm, bn, causal):
    """Block `bid`'s first query row within its head, its first rows of Q
    and of K (and V) in the flattened tensors, and its key blocks. Causal
    blocks run the longest first (the last rows see the most keys), so the
    short ones fill the tail."""
    head, place = bid // (seq // bm), bid % (seq // bm)
    first_row = (seq // bm - 1 - place) * bm if causal else place * bm
    steps = (first_row + bm + bn - 1) // bn if causal else seq // bn
    return first_row, head * seq + first_row, head * seq, steps


def attention_kernel(bh, seq, scale=None, scale_log2=None, warpgroups=1, bn=BN, causal=False, d=D):
    """`bh` heads (batch x heads) of `seq` rows each. The softmax scale is
    `scale` (default 1 / sqrt(64)), or `scale_log2` = scale * log2 e
    directly. `warpgroups` > 1: a block of that many warpgroups, 64 query
    rows each, shares each key block's K and V tiles. `bn` keys a step (64
    or 128; 128 keeps K and V in dynamic shared memory). `causal`: query i
    attends to keys 0 to i: a block stops at the key block holding its last
    row, and in that block S is -inf past the row (a predicated mov), so P
    is 0 there. `d` is the head dimension, 64 or 128: a 128 is two halves
    of 64 columns (one 128-byte swizzled row each), in Q's and K's tiles
    two runs of four k steps, in V's and O's two wgmma n64."""
    bm, threads = BM * warpgroups, THREADS * warpgroups
    halves, scale_log2 = _shape_and_scale(seq, bm, bn, d, scale, scale_log2)
    rows = bh * seq
    units = 64 * 2 // 16  # 16-byte pieces of a half's row

    @T.function
    def attention(Q: T.Tensor((rows, d), "uint16"), K: T.Tensor((rows, d), "uint16"),
                  V: T.Tensor((rows, d), "uint16"), O: T.Tensor((rows, d), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=bh * (seq // bm), block=threads))
        q_s = T.alloc_shared((halves, bm, 64), "uint16", align=1024).swizzle("128B")
        alloc = T.alloc_shared if bn == 64 and d == 64 else T.alloc_dynamic_shared
        k_s = alloc((2, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        v_s = alloc((2, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        t, bid = T.thread_id(), T.block_id()
        first_row, q0, k0, steps = _block_rows(bid, seq, bm, bn, causal)
        wg = t // 128

        def copy(tiles, tensor, first, rows=bn):
            """Rows first.. of `tensor` into `tiles`, a half's 64 columns each."""
            for hf in range(halves):
                for p in range(rows * units // threads):
                    piece = p * threads + t
                    r, u = piece // units, piece % units
                    c = 64 * hf + 8 * u
                    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], tiles[hf, r:r + 1, 8 * u:8 * u + 8],
                                      tensor[first + r:first + r + 1, c:c + 8], T.uint32(16))

        def load(block, stage):
            copy(k_s[stage], K, k0 + block * bn)
            copy(v_s[stage], V, k0 + block * bn)
            T.cuda.tile.apply(T.ptx["cp.async.commit_group"])

        state = _RowState(bn, halves)
        copy(q_s, Q, q0, bm)
        load(0, 0)
        for j in T.serial(0, steps):
            stage = j % 2
            nxt = j + 1 - (j + 1) // steps  # the last block loads itself again: in bounds, never read
            load(nxt, 1 - stage)
            T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(1))
            T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            mask = (j == steps - 1) if causal else None  # only the last key block reaches past a row
            state.step(q_s, k_s[stage], v_s[stage], 64 * wg, t, threads, j, first_row + 64 * wg, scale_log2,
                       mask)
            T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        state.store(O, q0 + 64 * wg, t)

    return attention


def attention_specialized(bh, seq, scale=None, scale_log2=None, consumers=2, bn=BN, causal=False, d=D, stages=2,
                          pipelined=False, registers=None, pingpong=False, out="float32", divide="rn", wide_pv=True):
    """Warp-specialized: a producer warpgroup and `consumers` consumer
    warpgroups of 64 query rows each. One producer thread loads the
    block's Q by TMA, then each key block's K and V, `stages` deep, each
    stage's boxes completing its full mbarrier (expect_tx of all their
    bytes); a consumer waits for the stage, runs the step of
    attention_kernel (S = Q K^T, the online softmax, O += P V) and, once
    its P V has retired, one of its threads arrives on the stage's empty
    mbarrier, which the producer waits for before it refills the stage. The
    consumers keep no block barrier between them: one's softmax runs while
    the other's wgmma do. Causal: a consumer masks every key block that
    reaches past its first row.

    `pipelined`: FlashAttention 3's order within a consumer. Key block j's
    S = Q K^T and block j - 1's O += P V are issued together, the softmax
    of S_j runs while P V does (O untouched: its rescale by alpha waits for
    wait_group 0), and the stage of block j - 1 is freed then; so a
    consumer holds S, P's fragments and O at once (bn / 2 + bn / 4 + d / 2
    registers), and a stage is freed a step later than without (take 3).

    `pingpong` (with `pipelined` and two consumers): the consumers take
    turns to issue their wgmma, FlashAttention 3's scheduler barriers:
    consumer c waits for its turn at bar.sync (1 + c, 256) before it issues
    a step's wgmma and gives the other its turn by bar.arrive after, so one's
    softmax runs under the other's wgmma. Consumer 1 gives consumer 0 the
    first turn and gives no turn after its last wgmma.

    `out` "bfloat16": O rounded to bf16 (O is uint16 bits), as the SDPA
    backends return it; `divide`: O / l by div.rn.f32 ("rn") or times
    rcp.rn.f32 of l ("rcp"), see _RowState.store.

    `wide_pv` (d 128): O += P V as one wgmma m64n128k16 a k chunk, V's two
    halves one MN-major operand; else two m64n64k16, a half each.

    `registers` = (producer's, consumers') per thread by setmaxnreg.
    Without it the 384 threads fit in 168 registers, and the first kernels
    take 102 to 168; the pipelined ones at d 128 with 128 keys need more
    (ptxas 13.0 keeps setmaxnreg there, and drops it where 168 suffice)."""
    bm, threads = BM * consumers, THREADS * (consumers + 1)
    halves, scale_log2 = _shape_and_scale(seq, bm, bn, d, scale, scale_log2)
    if pingpong and (consumers != 2 or not pipelined):
        # More consumers would take turns round the ring of barriers the
        # code writes, but no block of 192 rows divides the sequences here
        # and no test runs one.
        raise ValueError("pingpong takes two consumers and pipelined")
    rows = bh * seq
    load = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]

    @T.function
    def attention(Q: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bm, 64), "128B")),
                  K: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bn, 64), "128B")),
                  V: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bn, 64), "128B")),
                  O: T.Tensor((rows, d), "uint16" if out == "bfloat16" else "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=bh * (seq // bm), block=threads))
        q_s = T.alloc_dynamic_shared((halves, bm, 64), "uint16", align=1024).swizzle("128B")
        k_s = T.alloc_dynamic_shared((stages, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        v_s = T.alloc_dynamic_shared((stages, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        q_full = T.alloc_shared((1, 1), "uint64")
        full = T.alloc_shared((stages, 1), "uint64")
        empty = T.alloc_shared((stages, 1), "uint64")
        t, bid = T.thread_id(), T.block_id()
        first_row, q0, k0, steps = _block_rows(bid, seq, bm, bn, causal)
        p = t % 128
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((1, 1), "bool")
        ring = _Ring(k_s, v_s, full, empty, state, done)
        _init_barriers(t, (q_full, 1), *ring.barriers(consumers))
        roles = WarpgroupRoles(t, registers)
        with roles.producer():
            with T.if_(p == 0):
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, q_full,
                                  T.uint32(halves * bm * 128))
                for hf in range(halves):
                    T.cuda.tile.apply(load, q_s[hf], Q.tensor_map, (64 * hf, q0), q_full[0])
                for j in T.serial(0, steps):
                    ring.produce(K, V, j, k0 + j * bn)
        with roles.consumers() as c:
            rows_from = first_row + 64 * c
            row_state = _RowState(bn, halves, wide_pv)

            def mask(j):
                return (j * bn + bn - 1 > rows_from) if causal else None

            turns = ConsumerTurns(c, NamedBarriers().allocate("turns", threads=256, count=2)) if pingpong else None

            _wait(done, q_full, 0)
            if pipelined:
                _consume_pipelined(row_state, turns, q_s, ring, 0, steps, 64 * c, p, rows_from, scale_log2, mask)
                _finish_pipelined(row_state, turns, ring, steps - 1, p)
            else:
                for j in T.serial(0, steps):
                    ring.wait_k(j)
                    row_state.step(q_s, ring.k(j), ring.v(j), 64 * c, p, 128, j, rows_from, scale_log2, mask(j))
                    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
                    ring.free_v(j, p)
            row_state.store(O, q0 + 64 * c, p, out, divide)

    return attention


def attention_persistent(bh, seq, scale=None, scale_log2=None, bn=128, d=D, stages=3, blocks=132,
                         registers=(24, 240), out="bfloat16", divide="rcp", wide_pv=True, epilogue="registers",
                         causal=False, defer_free=True, v_stages=None, q_buffers=1):
    """attention_specialized(pipelined=True, pingpong=True), persistent:
    `blocks` blocks (at most one a unit of work) take the units in turn,
    block b units b, b + blocks, ... Not causal, a unit is a tile of 128
    query rows, each of seq / bn key blocks. Causal, a unit is a pair of
    tiles of one head, row blocks P - 1 - p and p of its P, which see
    (P - p) + (p + 1) = P + 1 tiles' worth of key blocks together: every
    unit the same work, and every step of the ring known in closed form.
    The ring of stages runs on across a block's tiles (a tile's key block j
    is the ring's step g0 + j, g0 the block's key blocks before it), so
    the producer loads a tile's first key blocks while the consumers
    finish the tile before: its last P V, O's division and store. Q has
    one buffer: each consumer arrives on `q_empty` once its last S of a
    tile retired, and the producer waits for both before it loads the next
    tile's Q. The consumers' turns run on across the tiles too. Causal:
    each consumer masks the key blocks that reach past its first row.
    `wide_pv`: as attention_specialized's.

    `epilogue` "tma": each consumer stores its rows of O (in bf16) through
    a shared buffer of its own by TMA boxes (_RowState.store_tma), and
    goes on to its next tile without waiting for them; "registers": by
    st.global from its registers (_RowState.store). The buffers take 16
    KiB at d 64 and 32 KiB at d 128, where 3 stages no longer fit.
    "tma_in_q": the buffer is the consumer's own rows of Q, dead once its
    last S retired. Each consumer's Q then has its own box and mbarriers:
    the consumer frees it (q_empty[c]) once its boxes of O have been read,
    and the producer loads its next Q before the tile's key block `stages`
    (the blocks before need only the tile before). "tma_in_k": the buffer
    is the consumer's own rows of K in the stage of the tile's last key
    block, dead once both consumers' last S retired (each consumer tells
    the other by bar.arrive on barrier 5 + c, 256 threads, and waits for
    the other's by bar.sync); the consumer frees that stage once its boxes
    have been read, and Q is freed as with "registers", with no store in
    the way of the next tile's. `defer_free`: it waits for that read and
    frees the stage once its next tile's first S is in flight (its key
    block `stages` - 1 is the first to need the stage), not at once.

    `v_stages` (fewer than `stages`): V in a ring of its own (_Ring), which
    leaves room for `q_buffers` 2 at d 128: tile n's Q in buffer n % 2,
    loaded once the producer has loaded the tile before's key block 1 (the
    tile before that has then freed the buffer), a tile ahead of its first
    S instead of the tile before's last. Not with "tma_in_q", whose O
    holds Q's buffer."""
    consumers, bm, threads = 2, 2 * BM, 3 * THREADS
    halves, scale_log2 = _shape_and_scale(seq, bm, bn, d, scale, scale_log2)
    if epilogue not in ("registers", "tma", "tma_in_q", "tma_in_k"):
        raise ValueError(f"epilogue {epilogue!r} is not registers, tma, tma_in_q or tma_in_k")
    tma_out, in_q, in_k = epilogue != "registers", epilogue == "tma_in_q", epilogue == "tma_in_k"
    if q_buffers not in (1, 2) or (q_buffers == 2 and in_q):
        raise ValueError(f"{q_buffers} buffers of Q: 1, or 2 with an epilogue other than tma_in_q")
    if in_k and bn != 2 * BM:
        raise ValueError(f"the TMA epilogue through K needs a row of K a query row: {bn} keys a block, not {2 * BM}")
    # Q's parts, each with its own box and mbarriers: a consumer's rows
    # when O goes through them.
    q_parts = consumers if in_q else 1
    q_rows = bm // q_parts
    if tma_out and out != "bfloat16":
        raise ValueError("the TMA epilogue stores O in bf16")
    places, per_tile = seq // bm, bm // bn  # row blocks of a head; key blocks a row block
    if causal and places % 2:
        raise ValueError(f"causal pairs row blocks: a sequence of {seq} is not a multiple of {2 * bm}")
    rows = bh * seq
    units = bh * places // 2 if causal else bh * places
    tiles_a_unit = 2 if causal else 1
    grid = min(blocks, units)

    def tile_of(bid, i, h):
        """Tile h of the block's unit i: its first row within its head, the
        head's first row in the flattened tensors, its key blocks and the
        ring's step of its first."""
        unit = bid + i * grid
        if not causal:
            head, place = unit // places, unit % places
            return place * bm, head * seq, seq // bn, i * (seq // bn)
        head, p = unit // (places // 2), unit % (places // 2)
        place = (places - 1 - p) + h * (2 * p + 1 - places)
        return place * bm, head * seq, (place + 1) * per_tile, (i * (places + 1) + h * (places - p)) * per_tile

    def each_tile(count):
        """(i, h) over the block's units and their tiles."""
        for i in T.serial(0, count):
            for h in (T.serial(0, 2) if causal else (0,)):
                yield i, h

    def q_buffer(n, part):
        """Q's buffer (and mbarriers) of the block's n-th tile, and its use
        there: the phase of its mbarriers."""
        return (part, n) if q_buffers == 1 else (n % 2, n // 2)

    @T.function
    def attention(Q: T.Tensor((rows, d), "uint16", tma=T.TensorMap((q_rows, 64), "128B")),
                  K: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bn, 64), "128B")),
                  V: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bn, 64), "128B")),
                  O: T.Tensor((rows, d), "uint16" if out == "bfloat16" else "float32",
                              **(dict(tma=T.TensorMap((64, 64), "128B")) if tma_out else {}))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=threads))
        qs = q_parts * q_buffers
        q_s = T.alloc_dynamic_shared((qs, halves, q_rows, 64), "uint16", align=1024).swizzle("128B")
        k_s = T.alloc_dynamic_shared((stages, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        v_s = T.alloc_dynamic_shared((v_stages or stages, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        o_s = T.alloc_dynamic_shared((consumers, halves, 64, 64), "uint16", align=1024).swizzle("128B") \
            if epilogue == "tma" else q_s
        q_full, q_empty = T.alloc_shared((qs, 1), "uint64"), T.alloc_shared((qs, 1), "uint64")
        full = T.alloc_shared((stages, 1), "uint64")
        empty = T.alloc_shared((stages, 1), "uint64")
        split = v_stages not in (None, stages)
        full_v = T.alloc_shared((v_stages, 1), "uint64") if split else None
        empty_v = T.alloc_shared((v_stages, 1), "uint64") if split else None
        t, bid = T.thread_id(), T.block_id()
        p = t % 128
        count = (units - bid + grid - 1) // grid  # this block's units
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((1, 1), "bool")
        ring = _Ring(k_s, v_s, full, empty, state, done, full_v, empty_v)
        _init_barriers(t, *[(q_full[x:x + 1], 1) for x in range(qs)],
                       *[(q_empty[x:x + 1], consumers // q_parts) for x in range(qs)], *ring.barriers(consumers))
        roles = WarpgroupRoles(t, registers)
        with roles.producer():
            with T.if_(p == 0):
                load = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]

                def load_q(n, q0):
                    """The block's n-th tile's Q, rows q0.., once the
                    tile that last used each part's buffer has freed it."""
                    for x in range(q_parts):
                        b, phase = q_buffer(n, x)
                        if not isinstance(n, int):  # the first's buffer is free
                            with T.if_(n >= q_buffers):
                                _wait(done, q_empty[b:b + 1], (phase - 1) % 2)
                        T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state,
                                          q_full[b:b + 1], T.uint32(halves * q_rows * 128))
                        for hf in range(halves):
                            T.cuda.tile.apply(load, q_s[b, hf], Q.tensor_map, (64 * hf, q0 + x * q_rows), q_full[b])

                def load_next_q(n, i, h):
                    """The block's tile n + 1's Q, if it has one."""
                    i1, h1 = (i + h, 1 - h) if causal else (i + 1, 0)
                    first_row1, k1, _, _ = tile_of(bid, i1, h1)
                    with T.if_(n + 1 < tiles_a_unit * count):
                        load_q(n + 1, k1 + first_row1)

                if q_buffers == 2:
                    first_row, k0, _, _ = tile_of(bid, 0, 0)
                    load_q(0, k0 + first_row)
                for i, h in each_tile(count):
                    first_row, k0, steps, g0 = tile_of(bid, i, h)
                    n = tiles_a_unit * i + h
                    if not in_q and q_buffers == 1:
                        load_q(n, k0 + first_row)
                    for j in T.serial(0, steps):
                        if in_q:
                            # Q's rows hold the tile before's O until its
                            # boxes are read: the key blocks that need
                            # only that tile go first.
                            with T.if_(j == stages):
                                load_q(n, k0 + first_row)
                        ring.produce(K, V, g0 + j, k0 + j * bn)
                        if q_buffers == 2:
                            # Past key block 1 the consumers have retired
                            # the tile before's last S, which freed the
                            # buffer (a tile of one key block loads it
                            # after its only one).
                            with T.if_(j == min(1, steps - 1) if isinstance(steps, int)
                                       else (j == 1) | (steps == 1)):
                                load_next_q(n, i, h)
                    if in_q and isinstance(steps, int):
                        if steps <= stages:
                            load_q(n, k0 + first_row)
                    elif in_q:
                        with T.if_(steps <= stages):
                            load_q(n, k0 + first_row)
        with roles.consumers() as c:
            row_state = _RowState(bn, halves, wide_pv)
            named = NamedBarriers()
            turns = ConsumerTurns(c, named.allocate("turns", threads=256, count=2))
            # Each consumer's stores of its O (128 threads), and the hand-off
            # of K's rows that hold O (both consumers' last S retired).
            stores = named.allocate("stores", threads=128, count=2)
            handoff = named.allocate("O in K", threads=256, count=2)

            for i, h in each_tile(count):
                first_row, k0, steps, g0 = tile_of(bid, i, h)
                rows_from = first_row + 64 * c
                qb, phase = q_buffer(tiles_a_unit * i + h, c if in_q else 0)
                _wait(done, q_full[qb:qb + 1], phase % 2)

                def free_before():
                    """The ring runs on: the tile before's last key block,
                    whose K's stage held its O, was step g0 - 1."""
                    _free_once_read(state, ring.k_empty(g0 + stages - 1), p, g0 > 0)

                _consume_pipelined(row_state, turns, q_s[qb], ring, g0, steps, 0 if in_q else 64 * c, p, rows_from,
                                   scale_log2, lambda j: (j * bn + bn - 1 > rows_from) if causal else None,
                                   free_before if in_k and defer_free else None)
                if not in_q:
                    T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, q_empty[qb:qb + 1],
                                      pred=p == 0)
                if in_k:
                    handoff.arrive(c)
                more = (i < count - 1) | (h == 0) if causal else i < count - 1
                last = g0 + steps - 1
                _finish_pipelined(row_state, turns, ring, last, p, more, keep=in_k)
                if in_k:
                    handoff.sync(1 - c)
                    rows_of_k = ring.k(last).reshape((halves, 2, 64, 64))[:, c]
                    row_state.store_tma(O, rows_of_k, k0 + rows_from, t, T.uint32(stores.id(c)), divide)
                    if not defer_free:
                        _free_once_read(state, ring.k_empty(last), p)
                elif tma_out:
                    row_state.store_tma(O, o_s[c], k0 + rows_from, t, T.uint32(stores.id(c)), divide)
                else:
                    row_state.store(O, k0 + first_row + 64 * c, p, out, divide)
                if in_q:
                    # Its Q's rows are free once the boxes have read them.
                    _free_once_read(state, q_empty[qb:qb + 1], p)
                row_state.reset()
            if tma_out:
                # The last boxes complete before the block leaves.
                with T.if_(p == 0):
                    T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))

    return attention


# B = 4, H = 16 (the issue's shape) at two sequence lengths.
VARIANTS = {f"attention_d64_b4h16_s{seq}{tag}": (attention_kernel, dict(bh=64, seq=seq, warpgroups=wgs))
            for seq in (1024, 4096) for tag, wgs in (("", 1), ("_wg2", 2))}
# 128 keys a step (wgmma m64n128k16 for S).
VARIANTS.update({f"attention_d64_b4h16_s{seq}_n128": (attention_kernel, dict(bh=64, seq=seq, bn=128))
                 for seq in (1024, 4096)})
# Causal, 128 keys a step.
VARIANTS.update({f"attention_d64_b4h16_s{seq}_n128_causal": (attention_kernel, dict(bh=64, seq=seq, bn=128,
                                                                                      causal=True))
                 for seq in (1024, 4096)})
# Head dimension 128, 64 keys a step, causal and not.
VARIANTS.update({f"attention_d128_b4h16_s{seq}{tag}": (attention_kernel, dict(bh=64, seq=seq, d=128, causal=causal))
                 for seq in (1024, 4096) for tag, causal in (("", False), ("_causal", True))})

# Warp-specialized (attention_specialized): a TMA producer and two consumer
# warpgroups, B = 4, H = 16.
SPECIALIZED = {f"attention_ws_d{d}_b4h16_s{seq}{tag}": (attention_specialized, dict(bh=64, seq=seq, d=d, **kw))
               for d in (64, 128) for seq in (1024, 4096)
               for tag, kw in (("", {}), ("_n128", dict(bn=128)), ("_causal", dict(causal=True)),
                               ("_s3", dict(stages=3)))
               if not (d == 128 and "bn" in kw)}

# FlashAttention 3's order within each consumer (attention_specialized's
# `pipelined`), 128 keys a step, setmaxnreg 24 / 240: B = 4, H = 16 at
# several sequence lengths, causal and not.
PIPELINED = {f"attention_fa3_d{d}_b4h16_s{seq}{tag}": (attention_specialized, dict(
    bh=64, seq=seq, d=d, bn=128, stages=stages, causal=causal, pipelined=True, registers=(24, 240)))
    for d in (64, 128) for seq in (1024, 2048, 4096, 8192) for causal, tag0 in ((False, ""), (True, "_causal"))
    for stages in (2, 3) for tag in (f"{tag0}_s{stages}",)}
# The same with the consumers' wgmma in turns (`pingpong`).
PIPELINED.update({name.replace("fa3", "fa3pp"): (make, dict(kw, pingpong=True))
                  for name, (make, kw) in PIPELINED.items() if name.endswith("_s3") or "s4096" in name})
# Outputs in bf16 (as SDPA's), O / l by one reciprocal a row.
PIPELINED.update({name.replace("fa3pp", "fa3bf"): (make, dict(kw, out="bfloat16", divide="rcp"))
                  for name, (make, kw) in list(PIPELINED.items()) if name.startswith("attention_fa3pp")
                  and name.endswith("_s3")})

# Persistent (attention_persistent), not causal, O in bf16.
PERSISTENT = {f"attention_persistent_d{d}_b4h16_s{seq}": (attention_persistent, dict(bh=64, seq=seq, d=d))
              for d in (64, 128) for seq in (1024, 2048, 4096, 8192)}
# The TMA epilogue, the best of each in bench/attention/results_d64_stages.json
# and results_causal_persistent.json: through the consumer's rows of Q
# ("tma_in_q"; at d 128, 3 stages leave no room for a buffer of O's own),
# with 4 stages at d 64; causal at d 64 through a buffer of its own ("tma")
# with 3.
PERSISTENT_TMA = {f"attention_persistent_d{d}_b4h16_s{seq}{'_causal' if causal else ''}{tag}": (
    attention_persistent, dict(bh=64, seq=seq, d=d, causal=causal, epilogue=epilogue, stages=stages))
    for seq in (1024, 2048, 4096, 8192)
    for d, causal, tag, epilogue, stages in ((64, False, "_tma_in_q_s4", "tma_in_q", 4),
                                             (64, True, "_tma", "tma", 3),
                                             (128, False, "_tma_in_q", "tma_in_q", 3),
                                             (128, True, "_tma_in_q", "tma_in_q", 3))}
# The TMA epilogue through the rows of K of the tile's last key block
# ("tma_in_k"): 3 stages at d 128, 4 and 5 at d 64, beside PERSISTENT_TMA
# in one run (bench/attention/results_tma_in_k.json, with the stage freed
# at once).
PERSISTENT_TMA_IN_K = {f"attention_persistent_d{d}_b4h16_s{seq}{'_causal' if causal else ''}_tma_in_k_s{stages}": (
    attention_persistent, dict(bh=64, seq=seq, d=d, causal=causal, epilogue="tma_in_k", stages=stages))
    for seq in (1024, 2048, 4096, 8192) for causal in (False, True)
    for d, stages in ((64, 4), (64, 5), (128, 3))}
# The same with the stage of O freed at once (`defer_free=False`).
PERSISTENT_TMA_IN_K.update({name + "_free_at_once": (make, dict(kw, defer_free=False))
                            for name, (make, kw) in PERSISTENT_TMA_IN_K.items()})
# The best of each entry with one buffer of Q: through Q's rows with 4
# stages at d 64 (not causal); through K's rows, the stage freed at once,
# with 5 stages at d 64 causal; through K's rows with 3 stages at d 128,
# the stage freed after the next tile's first S except at S 1024 not causal
# (bench/attention/results_defer_free.json; results_final2*.json ran it).
BEST_ONE_Q = {name: PERSISTENT_TMA_IN_K.get(name) or PERSISTENT_TMA[name] for name in (
    f"attention_persistent_d{d}_b4h16_s{seq}{'_causal' if causal else ''}{tag}"
    for seq in (1024, 2048, 4096, 8192) for d, causal, tag in (
        (64, False, "_tma_in_q_s4"), (64, True, "_tma_in_k_s5_free_at_once"),
        (128, False, "_tma_in_k_s3_free_at_once" if seq == 1024 else "_tma_in_k_s3"), (128, True, "_tma_in_k_s3")))}
# Through K's rows with two buffers of Q (the next tile's Q loaded a tile
# ahead): at d 64 in the shared ring, at d 128 with V in a ring of 2 beside
# K's of 3 (where a second Q fits).
DOUBLE_Q = {f"{name}_v2_q2" if kw["d"] == 128 else f"{name}_q2":
            (make, dict(kw, q_buffers=2, **(dict(v_stages=2) if kw["d"] == 128 else {})))
            for name, (make, kw) in PERSISTENT_TMA_IN_K.items()}
# The best of each entry (bench/attention/results_double_q.json, one run
# beside BEST_ONE_Q): two buffers of Q and the stage of O freed after the
# next tile's first S, 4 stages at d 64, except causal at S 4096 and 8192,
# where two buffers lost 4-6% at d 64 and 0.2-0.6% at d 128, and d 128 not
# causal at S 4096 and 8192 (-0.6% and a split result), as BEST_ONE_Q.
BEST = {name: DOUBLE_Q.get(name) or BEST_ONE_Q[name] for name in (
    f"attention_persistent_d{d}_b4h16_s{seq}{'_causal' if causal else ''}{tag}"
    for seq in (1024, 2048, 4096, 8192) for d, causal, tag in (
        (64, False, "_tma_in_k_s4_q2"),
        (64, True, "_tma_in_k_s5_q2" if seq <= 2048 else "_tma_in_k_s5_free_at_once"),
        (128, False, "_tma_in_k_s3_v2_q2" if seq <= 2048 else "_tma_in_k_s3"),
        (128, True, "_tma_in_k_s3_v2_q2" if seq <= 2048 else "_tma_in_k_s3")))}
# d 128 with 2 stages, where O's own buffers fit, with and without them
# (bench/attention/results_tma_epilogue.json).
PERSISTENT_2_STAGES = {f"attention_persistent_d128_b4h16_s{seq}{tag}": (attention_persistent, dict(
    bh=64, seq=seq, d=128, stages=2, **kw)) for seq in (1024, 2048, 4096, 8192)
    for tag, kw in (("_tma_s2", dict(epilogue="tma")), ("_s2", {}))}

# The d 128 kernels with P V as two m64n64k16 a k chunk, a half of V's
# columns each (as before the 3-D descriptor), for an A/B in one run.
HALVES_PV = {name + "_halves_pv": (make, dict(kw, wide_pv=False))
             for name, (make, kw) in dict(PERSISTENT, **PIPELINED).items()
             if kw["d"] == 128 and (make is attention_persistent or name.startswith("attention_fa3bf"))}
