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

D = 64            # head dimension
BM = 64           # query rows a block
BN = 64           # keys a step
THREADS = 128
FULL = 0xFFFFFFFF
WGMMA = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"


class _RowState:
    """One warpgroup's 64 query rows: S's registers (bn / 2 a thread), O's
    (32 a half of 64 columns), P as wgmma A fragments, and each thread's
    two rows' (l/4 and l/4 + 8 of its warp's 16) running maximum m and sum
    l. Element e of a 64 x N D fragment is row l/4 + 8 ((e % 4) / 2),
    column 8 (e / 4) + 2 (l % 4) + e % 2."""

    def __init__(self, bn, halves):
        self.bn, self.halves, self.regs = bn, halves, bn // 2
        self.s = T.alloc_local((1, 1, self.regs), "float32")
        self.o = T.alloc_local((halves, 1, 32), "float32")
        self.a = T.alloc_local((bn // 16, 1, 4), "uint32")  # P as A fragments, one per k chunk
        self.m = T.alloc_local((2, 1), "float32")
        self.l = T.alloc_local((2, 1), "float32")
        self.max = T.alloc_local((2, 1), "float32")
        self.alpha = T.alloc_local((2, 1), "float32")
        self.partner = T.alloc_local((2, 1), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], self.o.view("uint32").reshape((32 * halves, 1)), T.uint32(0))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.l.view("uint32"), T.uint32(0))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.m.view("uint32"), T.uint32(0xFF800000))  # -inf
        self.by_row = [self.s.reshape((self.regs // 4, 2, 2, 1))[:, h] for h in range(2)]  # (bn / 8, 2, 1)
        self.o_rows = [self.o.reshape((halves * 8, 2, 2, 1))[:, h] for h in range(2)]

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

    def _quad(self, value, other, opcode):
        """value = opcode over the quad's four lanes (shfl.sync.bfly 1, 2)."""
        for offset in (1, 2):
            T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], other.view("uint32"), value.view("uint32"),
                              T.uint32(offset), T.uint32(31), T.uint32(FULL))
            T.cuda.tile.apply(T.ptx[opcode], value, value, other)

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
                    row = first_row + 16 * warp + lane // 4 + 8 * ((e % 4) // 2)
                    key = j * self.bn + 8 * (e // 4) + 2 * (lane % 4) + e % 2
                    T.cuda.tile.apply(T.ptx["mov.b32"], flat[e:e + 1].view("uint32"), T.uint32(0xFF800000),
                                      pred=key > row, preserve_dst=True)
        for h in range(2):
            row, mh, lh = self.by_row[h], self.m[h:h + 1], self.l[h:h + 1]
            st, ah, ph = self.max[h:h + 1], self.alpha[h:h + 1], self.partner[h:h + 1]
            self._row_reduce(row, st, "max.f32")
            self._quad(st, ph, "max.f32")
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
            self._quad(ph, st, "add.rn.f32")
            T.cuda.tile.apply(T.ptx["fma.rn.f32"], lh, lh, ah, ph)

    def rescale_o(self):
        """O *= alpha, row by row (once the P V before has retired)."""
        for h in range(2):
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], self.o_rows[h], self.o_rows[h],
                              self.alpha[h:h + 1].reshape((1, 1, 1)).broadcast((self.halves * 8, 2, 1)))

    def p_fragments(self, a=None):
        """P's pairs rounded into wgmma's A fragments (`a`, or self.a): S's
        registers 8c to 8c + 7 are A's of k chunk c."""
        a = self.a if a is None else a
        pairs = self.s.reshape((self.regs // 2, 2, 1))
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], a.reshape((self.regs // 2, 1)), pairs[:, 1], pairs[:, 0])

    def fragments(self):
        """Another buffer of A fragments, for P of the next key block."""
        return T.alloc_local((self.bn // 16, 1, 4), "uint32")

    def issue_pv(self, v_tile, always, fence=True, a=None):
        """O += P V issued and committed, from the A fragments as they
        stand (`always` is a true predicate: every wgmma accumulates); V's
        tile is read MN-major. `fence=False` for a caller whose
        wgmma.fence already follows the fragments' writes; `a` the
        fragments' buffer (self.a by default)."""
        a = self.a if a is None else a
        if fence:
            T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        for hf in range(self.halves):
            for c in range(self.bn // 16):
                T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"], self.o[hf:hf + 1],
                                  a[c:c + 1], v_tile[hf, 16 * c:16 * c + 16, 0:64].matrix_descriptor(),
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

    def store(self, O, row0, t):
        """O / l into rows row0.. of O, as f32 pairs."""
        warp, lane = (t // 32) % 4, t % 32
        for h in range(2):
            T.cuda.tile.apply(T.ptx["div.rn.f32"], self.o_rows[h], self.o_rows[h],
                              self.l[h:h + 1].reshape((1, 1, 1)).broadcast((self.halves * 8, 2, 1)))
        for hf in range(self.halves):
            for e in range(0, 32, 2):
                r = row0 + 16 * warp + lane // 4 + 8 * ((e % 4) // 2)
                col = 64 * hf + 8 * (e // 4) + 2 * (lane % 4)
                T.cuda.tile.apply(T.ptx["st.global.v2.f32"], O[r:r + 1, col:col + 2], self.o[hf, 0:1, e:e + 2])


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
                          pipelined=False, registers=None, pingpong=False, p_buffers=1):
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

    `p_buffers=2` (with `pipelined`; 3 stages or more): P's A fragments in
    two buffers, key block j's in one while block j - 1's P V reads the
    other, so the softmax of S_j runs under that P V and nothing waits for
    it before the next step (with one buffer, the wait for P V comes right
    after the softmax, and ptxas 13.0 schedules it before the softmax, see
    docs: the softmax then runs after P V). A step: wait for block j's
    stage, then for P V of block j - 2 (behind the stage's wait loop, which
    ptxas does not schedule across), free its stage, rescale O by alpha of
    block j - 1, issue S_j and P V of block j - 1, wait for S_j, then its
    softmax and P's fragments run under that P V. The loop runs two steps
    a turn, so that each buffer is named in the code (registers take no
    runtime index); step 1 comes before it and an odd last step after it.

    `pingpong` (with `pipelined` and two consumers): the consumers take
    turns to issue their wgmma, FlashAttention 3's scheduler barriers:
    consumer c waits for its turn at bar.sync (1 + c, 256) before it issues
    a step's wgmma and gives the other its turn by bar.arrive (2 - c, 256)
    after, so one's softmax runs under the other's wgmma. Consumer 1 gives
    consumer 0 the first turn and takes no turn after its last.

    `registers` = (producer's, consumers') per thread by setmaxnreg.
    Without it the 384 threads fit in 168 registers, and the first kernels
    take 102 to 168; the pipelined ones at d 128 with 128 keys need more
    (ptxas 13.0 keeps setmaxnreg there, and drops it where 168 suffice)."""
    bm, threads = BM * consumers, THREADS * (consumers + 1)
    halves, scale_log2 = _shape_and_scale(seq, bm, bn, d, scale, scale_log2)
    if pingpong and (consumers != 2 or not pipelined):
        raise ValueError("pingpong takes two consumers and pipelined")
    if p_buffers == 2 and (not pipelined or stages < 3):
        # The stage of block j - 2 is freed only in step j: with 2 stages,
        # step j waits for a fill that waits for that release.
        raise ValueError("p_buffers=2 takes pipelined and 3 stages or more")
    rows = bh * seq
    load = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]
    wait = T.ptx["mbarrier.try_wait.parity.shared::cta.b64"]
    stage_bytes = 2 * halves * bn * 128  # K's and V's boxes of bn rows of 128 bytes, each half

    @T.function
    def attention(Q: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bm, 64), "128B")),
                  K: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bn, 64), "128B")),
                  V: T.Tensor((rows, d), "uint16", tma=T.TensorMap((bn, 64), "128B")),
                  O: T.Tensor((rows, d), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=bh * (seq // bm), block=threads))
        q_s = T.alloc_dynamic_shared((halves, bm, 64), "uint16", align=1024).swizzle("128B")
        k_s = T.alloc_dynamic_shared((stages, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        v_s = T.alloc_dynamic_shared((stages, halves, bn, 64), "uint16", align=1024).swizzle("128B")
        q_full = T.alloc_shared((1, 1), "uint64")
        full = T.alloc_shared((stages, 1), "uint64")
        empty = T.alloc_shared((stages, 1), "uint64")
        t, bid = T.thread_id(), T.block_id()
        first_row, q0, k0, steps = _block_rows(bid, seq, bm, bn, causal)
        wg, p = t // 128, t % 128
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((1, 1), "bool")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], q_full, T.uint32(1), pred=t == 0)
        for s in range(stages):
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], full[s:s + 1], T.uint32(1), pred=t == 0)
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], empty[s:s + 1], T.uint32(consumers),
                              pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(wg == 0):
            if registers:
                T.cuda.tile.apply(T.ptx["setmaxnreg.dec.sync.aligned.u32"], T.uint32(registers[0]))
            with T.if_(p == 0):
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, q_full,
                                  T.uint32(halves * bm * 128))
                for hf in range(halves):
                    T.cuda.tile.apply(load, q_s[hf], Q.tensor_map, (64 * hf, q0), q_full[0])
                for j in T.serial(0, steps):
                    stage = j % stages
                    with T.if_(j >= stages):
                        with T.until(done):
                            T.cuda.tile.apply(wait, done, empty[stage:stage + 1], T.uint32((j // stages + 1) % 2))
                    T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state,
                                      full[stage:stage + 1], T.uint32(stage_bytes))
                    for tile, tensor in ((k_s, K), (v_s, V)):
                        for hf in range(halves):
                            T.cuda.tile.apply(load, tile[stage, hf], tensor.tensor_map, (64 * hf, k0 + j * bn),
                                              full[stage])
        with T.if_(wg > 0):
            if registers:
                T.cuda.tile.apply(T.ptx["setmaxnreg.inc.sync.aligned.u32"], T.uint32(registers[1]))
            c = wg - 1
            rows_from = first_row + 64 * c
            row_state = _RowState(bn, halves)

            def wait_full(j, stage):
                with T.until(done):
                    T.cuda.tile.apply(wait, done, full[stage:stage + 1], T.uint32((j // stages) % 2))

            def free(stage):
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[stage:stage + 1],
                                  pred=p == 0)

            def mask(j):
                return (j * bn + bn - 1 > rows_from) if causal else None

            if pingpong:
                mine, others = T.alloc_local((1, 1), "uint32"), T.alloc_local((1, 1), "uint32")
                T.cuda.tile.apply(T.ptx["mov.b32"], mine, T.uint32(1 + c))
                T.cuda.tile.apply(T.ptx["mov.b32"], others, T.uint32(2 - c))
                with T.if_(c == 1):
                    T.cuda.tile.apply(T.ptx["bar.arrive"], T.uint32(1), T.uint32(256))

            def my_turn():
                if pingpong:
                    T.cuda.tile.apply(T.ptx["bar.sync"], mine, T.uint32(256))

            def their_turn():
                if pingpong:
                    T.cuda.tile.apply(T.ptx["bar.arrive"], others, T.uint32(256))

            with T.until(done):
                T.cuda.tile.apply(wait, done, q_full, T.uint32(0))
            if pipelined and p_buffers == 2:
                wgmma_wait = T.ptx["wgmma.wait_group.sync.aligned"]
                buffers = (row_state.a, row_state.fragments())
                wait_full(0, 0)
                my_turn()
                row_state.issue_s(q_s, k_s[0], 64 * c, p, 128)
                their_turn()
                T.cuda.tile.apply(wgmma_wait, T.uint32(0))
                row_state.softmax(p, 0, rows_from, scale_log2, mask(0))
                row_state.p_fragments(buffers[0])

                def free_when(condition, stage):
                    """free(stage) where `condition` holds (a Python bool at a step the code names)."""
                    if isinstance(condition, bool):
                        if condition:
                            free(stage)
                        return
                    with T.if_(condition):
                        free(stage)

                def step(j, mine_now, before_now):
                    """Key block j: P of block j - 1 is in before_now, j's goes to mine_now."""
                    stage, before = j % stages, (j - 1) % stages
                    wait_full(j, stage)
                    T.cuda.tile.apply(wgmma_wait, T.uint32(0))  # P V of block j - 2
                    free_when(j >= 2, (j - 2) % stages)
                    row_state.rescale_o()  # by alpha of block j - 1
                    my_turn()
                    row_state.issue_s(q_s, k_s[stage], 64 * c, p, 128)
                    row_state.issue_pv(v_s[before], p < 128, fence=False, a=before_now)
                    their_turn()
                    T.cuda.tile.apply(wgmma_wait, T.uint32(1))  # S_j
                    row_state.softmax(p, j, rows_from, scale_log2, mask(j))
                    row_state.p_fragments(mine_now)

                def finish(last_p):
                    """P V of the last block, from the buffer that holds its P."""
                    T.cuda.tile.apply(wgmma_wait, T.uint32(0))
                    free_when(steps >= 2, (steps - 2) % stages)
                    row_state.rescale_o()
                    my_turn()
                    row_state.issue_pv(v_s[(steps - 1) % stages], p < 128, a=last_p)
                    if pingpong:
                        with T.if_(c == 0):
                            their_turn()
                    T.cuda.tile.apply(wgmma_wait, T.uint32(0))
                    free((steps - 1) % stages)

                # Step 1 before the loop, so that one P V is in flight
                # wherever the loop begins a turn, after step 1 as after its
                # own last step: ptxas then sees every wait retire the P V
                # before it (with none at the first turn it serializes
                # every wgmma, C7514).
                if isinstance(steps, int):
                    if steps >= 2:
                        step(1, buffers[1], buffers[0])
                    for i in T.serial(0, (steps - 2) // 2):
                        step(2 + 2 * i, buffers[0], buffers[1])
                        step(3 + 2 * i, buffers[1], buffers[0])
                    if steps >= 3 and steps % 2:
                        step(steps - 1, buffers[0], buffers[1])
                    finish(buffers[(steps - 1) % 2])
                else:
                    with T.if_(steps == 1):
                        finish(buffers[0])
                    with T.if_(steps >= 2):
                        step(1, buffers[1], buffers[0])
                        for i in T.serial(0, (steps - 2) // 2):
                            step(2 + 2 * i, buffers[0], buffers[1])
                            step(3 + 2 * i, buffers[1], buffers[0])
                        with T.if_(steps % 2 == 1):
                            step(steps - 1, buffers[0], buffers[1])
                            finish(buffers[0])
                        with T.if_(steps % 2 == 0):
                            finish(buffers[1])
            elif pipelined:
                wait_full(0, 0)
                my_turn()
                row_state.issue_s(q_s, k_s[0], 64 * c, p, 128)
                their_turn()
                T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
                row_state.softmax(p, 0, rows_from, scale_log2, mask(0))
                row_state.p_fragments()
                for j in T.serial(1, steps):
                    stage, before = j % stages, (j - 1) % stages
                    wait_full(j, stage)
                    my_turn()
                    row_state.issue_s(q_s, k_s[stage], 64 * c, p, 128)
                    row_state.issue_pv(v_s[before], p < 128, fence=False)
                    their_turn()
                    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(1))
                    row_state.softmax(p, j, rows_from, scale_log2, mask(j))
                    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
                    free(before)
                    row_state.rescale_o()
                    row_state.p_fragments()
                last = (steps - 1) % stages
                my_turn()
                row_state.issue_pv(v_s[last], p < 128)
                if pingpong:
                    with T.if_(c == 0):
                        their_turn()
                T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
                free(last)
            else:
                for j in T.serial(0, steps):
                    stage = j % stages
                    wait_full(j, stage)
                    row_state.step(q_s, k_s[stage], v_s[stage], 64 * c, p, 128, j, rows_from, scale_log2, mask(j))
                    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
                    free(stage)
            row_state.store(O, q0 + 64 * c, p)

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
# The same with two buffers of P (`p_buffers=2`).
# At d 128 the consumers' registers do not hold two buffers of P beside S
# and O (ptxas serializes the wgmma, C7512): d 64 only.
PIPELINED.update({name.replace("fa3pp", "fa3p2"): (make, dict(kw, p_buffers=2))
                  for name, (make, kw) in PIPELINED.items()
                  if name.startswith("attention_fa3pp_d64") and name.endswith("_s3")})
