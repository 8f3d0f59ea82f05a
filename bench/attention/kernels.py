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
        quad's four lanes follow)."""
        T.cuda.tile.apply(T.ptx["mov.b32"], out.view("uint32"), values[0, 0:1].view("uint32"))
        for b in range(self.regs // 4):
            for j in range(2):
                if b or j:
                    T.cuda.tile.apply(T.ptx[opcode], out, out, values[b, j:j + 1])

    def _quad(self, value, other, opcode):
        """value = opcode over the quad's four lanes (shfl.sync.bfly 1, 2)."""
        for offset in (1, 2):
            T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], other.view("uint32"), value.view("uint32"),
                              T.uint32(offset), T.uint32(31), T.uint32(FULL))
            T.cuda.tile.apply(T.ptx[opcode], value, value, other)

    def step(self, q_s, k_tile, v_tile, q_row, t, threads, j, first_row, scale_log2, mask=None):
        """One key block j: S = Q K^T (rows q_row.. of q_s), the causal mask
        where `mask` holds (keys past first_row + the thread's row are
        -inf), the online softmax, and O += P V issued and committed (the
        caller waits for it)."""
        bn, regs, halves, s = self.bn, self.regs, self.halves, self.s
        warp, lane = (t // 32) % 4, t % 32
        always = t < threads
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        for hf in range(halves):
            for c in range(4):
                T.cuda.tile.apply(T.ptx[f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32.bf16.bf16"], s,
                                  q_s[hf, q_row:q_row + 64, 16 * c:16 * c + 16].matrix_descriptor(),
                                  k_tile[hf, 0:bn, 16 * c:16 * c + 16].matrix_descriptor(),
                                  always if c or hf else t >= threads, T.int32(1), T.int32(1), T.uint32(0),
                                  T.uint32(0))
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        if mask is not None:
            with T.if_(mask):
                flat = s.reshape((regs, 1))
                for e in range(regs):
                    row = first_row + 16 * warp + lane // 4 + 8 * ((e % 4) // 2)
                    key = j * bn + 8 * (e // 4) + 2 * (lane % 4) + e % 2
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
            # P = ex2(S * scale_log2 - m')
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], row, row, T.float32(scale_log2))
            T.cuda.tile.apply(T.ptx["sub.rn.f32"], row, row, st.reshape((1, 1, 1)).broadcast((regs // 4, 2, 1)))
            T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], row, row)
            self._row_reduce(row, ph, "add.rn.f32")
            self._quad(ph, st, "add.rn.f32")
            T.cuda.tile.apply(T.ptx["fma.rn.f32"], lh, lh, ah, ph)
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], self.o_rows[h], self.o_rows[h],
                              ah.reshape((1, 1, 1)).broadcast((halves * 8, 2, 1)))
        # O += P V: registers 8c..8c+7 of S are A's chunk c.
        pairs = s.reshape((regs // 2, 2, 1))
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], self.a.reshape((regs // 2, 1)), pairs[:, 1], pairs[:, 0])
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        for hf in range(halves):
            for c in range(bn // 16):
                T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"], self.o[hf:hf + 1],
                                  self.a[c:c + 1], v_tile[hf, 16 * c:16 * c + 16, 0:64].matrix_descriptor(),
                                  always, T.int32(1), T.int32(1), T.uint32(1))
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])

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


def attention_specialized(bh, seq, scale=None, scale_log2=None, consumers=2, bn=BN, causal=False, d=D, stages=2):
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
    reaches past its first row. No setmaxnreg: ptxas 13.0 ignores it here
    ("unable to determine register count at entry", C7508), since div.rn.f32
    calls its slow path as a subroutine; the 384 threads fit in 168
    registers, and the kernels take 102 to 168."""
    bm, threads = BM * consumers, THREADS * (consumers + 1)
    halves, scale_log2 = _shape_and_scale(seq, bm, bn, d, scale, scale_log2)
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
            c = wg - 1
            rows_from = first_row + 64 * c
            row_state = _RowState(bn, halves)
            with T.until(done):
                T.cuda.tile.apply(wait, done, q_full, T.uint32(0))
            for j in T.serial(0, steps):
                stage = j % stages
                with T.until(done):
                    T.cuda.tile.apply(wait, done, full[stage:stage + 1], T.uint32((j // stages) % 2))
                mask = (j * bn + bn - 1 > rows_from) if causal else None
                row_state.step(q_s, k_s[stage], v_s[stage], 64 * c, p, 128, j, rows_from, scale_log2, mask)
                T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[stage:stage + 1],
                                  pred=p == 0)
            row_state.store(O, q0 + 64 * c, p)

    return attention


# B = 4, H = 16 (the shape) at two sequence lengths.
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
