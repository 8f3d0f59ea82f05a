"""Attention backward on Hopper's warpgroup tensor cores (issue 57): dK,
dV and dQ of O = softmax(Q K^T scale) V for bf16 (or fp16) Q, K, V and
dO of head dimension 64 or 128 ([heads, seq, d], the head dimension in
boxes of 64 columns), causal (the bottom-right diagonal) or not, any
number of queries and keys (the blocks past them load zeros; keys past
the last are masked; queries past it have zero Q and dO rows, so what
they add is 0, and nothing past either is stored). FlashAttention 2's
order with keys as the rows of every product, so that each operand is
one wgmma already takes:

- a block per (head, 64 keys a consumer warpgroup: `warpgroups` 1 or
  2): K and V loaded once by TMA, then each block of 64 queries' Q and
  dO in a ring of 2 (loaded a step ahead), shared by the warpgroups;
  causal, from the first query block that sees one of its keys, S^T -inf
  past the diagonal in the blocks it crosses (P and dS 0 there);
- S^T = K Q^T and dP^T = V dO^T (wgmma, both operands from shared memory);
- P^T = ex2(S^T scale log2 e - lse2) and dS^T = P^T (dP^T - D), each
  query column's lse2 (the forward's m + log2 l) and D (rowsum(dO O))
  from `Rows` (heads, 2 seq) float32 pairs, loaded by TMA with the
  step's Q and dO and read from shared memory after the products;
- dV += P^T dO and dK += dS^T Q (wgmma, A from the registers: P^T's and
  dS^T's D fragments rounded to bf16 pairs, as the forward's P);
- dS^T to shared memory by stmatrix, then dQ_i = dS K (wgmma, A
  transposed from shared memory), staged in shared memory (float32,
  128-byte swizzled halves of 32 columns) and added to `DQ` (float32,
  zero before) by TMA (cp.reduce.async.bulk.tensor .add: the sum is made
  in L2 a line at a time, where per-thread red.global.add made the
  kernel L2-bound; rows past the last query fall outside the tensor map
  and are dropped); with two warpgroups, warpgroup 1 adds its dQ to
  warpgroup 0's in shared memory first, so one reduction adds 128 keys';
- at the end dK times scale and dV rounded to bf16 and stored from the
  registers; dQ (float32) is the sum of every key block's, unscaled.

d 128 holds dV, dK and dQ as an m64n64 D a box; dV's and dK's products
retire before dQ's accumulators are written, or the registers spill.
"""

import math
from typing import Optional

from .. import script as T
from ..pipelining import PipelineState, TmaRing, WgmmaAccumulator, sync_block
from ..pipelining.epilogues import reduce_add_boxes, stage_f32_pairs, stmatrix_place, store_pairs
from ..pipelining.online_softmax import NEG_INF
from .rows import KINDS  # the inputs' type: the wgmma's, P's and dS's rounding

# No `from __future__ import annotations`: T.function reads the kernel's
# parameter annotations as objects.

# Keys a warpgroup, queries a step; the columns of a TMA box (128 bytes:
# the 128-byte swizzle's span), and the head dimensions, whole boxes.
B, BOX = 64, 64
HEAD_DIMS = (64, 128)
TMA_LOAD = "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
WAIT = "wgmma.wait_group.sync.aligned"
BOX_BYTES = B * BOX * 2


def _accumulate(t, c):
    """wgmma's scale-d: false for the first k chunk (D = A B), true after
    (a runtime predicate: the block is one warpgroup, t < 128)."""
    return t < 128 if c else t >= 128


def _mma(kind):
    return f"wgmma.mma_async.sync.aligned.m64n{B}k16.f32.{kind}.{kind}"


def _smem_product(acc, a_tile, b_tile, t, kind):
    """acc = A B^T over the head dimension: A and B (boxes x 64 x 64: 64
    rows, the head dimension in boxes of 64) K-major shared tiles;
    issued and committed."""
    T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    for c in range(a_tile.shape[0] * BOX // 16):
        box, col = c // 4, 16 * (c % 4)
        T.cuda.tile.apply(T.ptx[_mma(kind)], acc, a_tile[box, 0:B, col:col + 16].matrix_descriptor(),
                          b_tile[box, 0:B, col:col + 16].matrix_descriptor(), _accumulate(t, c),
                          T.int32(1), T.int32(1), T.uint32(0), T.uint32(0))
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])


def _register_product(acc, fragments, b_tile, t, kind):
    """acc += A B over the queries: A from the registers (4 k chunks of 16
    queries), B (boxes x queries x 64) read MN-major, a product of N 64
    a box into acc[box]; issued and committed."""
    T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    for box in range(b_tile.shape[0]):
        for c in range(B // 16):
            T.cuda.tile.apply(T.ptx[_mma(kind)], acc[box:box + 1], fragments[c:c + 1],
                              b_tile[box, 16 * c:16 * c + 16, 0:BOX].matrix_descriptor(),
                              _accumulate(t, 1), T.int32(1), T.int32(1), T.uint32(1))
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])


def _fragments(values, fragments, kind):
    """A thread's 32 float32 D values rounded to `kind` pairs: wgmma A
    fragments (registers 8c to 8c + 7 make k chunk c)."""
    pairs = values.reshape((16, 2, 1))
    T.cuda.tile.apply(T.ptx[f"cvt.rn.{kind}x2.f32"], fragments.reshape((16, 1)), pairs[:, 1], pairs[:, 0])


class _Columns:
    """-lse2 and D of each query column of a thread's S^T fragment, in two
    (32, 1) registers laid out as the fragment's values. The fragment's
    32 values hold 16 columns, two adjacent ones in each block of 8
    (registers 4j to 4j + 3: rows r and r + 8 of columns c, c + 1), so a
    16-byte load a block brings both columns' (lse2, D)."""

    def __init__(self):
        self.pairs = T.alloc_local((8, 4), "float32")  # (lse2, D) of columns c, c + 1 of block j
        self.lse2 = T.alloc_local((32, 1), "float32")  # negated: the fma's addend
        self.d = T.alloc_local((32, 1), "float32")

    def load(self, rows_s, warp, lane):
        """From the step's slot of rows (64 queries' (lse2, D), loaded by
        TMA with Q and dO; queries past the last are zeros, which is
        harmless: their Q and dO rows are zeros too, so P^T = 1 there
        meets dO = 0 and dS^T = 0 meets Q = 0), a 16-byte ld.shared a
        block of 8 columns (the 8 threads that share it read it at once:
        a broadcast); lse2 negated."""
        places = WgmmaAccumulator(B)
        for block in range(8):
            _, col = places.place(4 * block, warp, lane)
            T.cuda.tile.apply(T.ptx["ld.shared.v4.f32"], self.pairs[block:block + 1],
                              rows_s[2 * col:2 * col + 4].reshape((1, 4)))
        lse2 = self.pairs.reshape((16, 2))[:, 0:1]
        T.cuda.tile.apply(T.ptx["neg.f32"], lse2, lse2)
        for e in range(32):
            block, half = e // 4, e % 2
            T.cuda.tile.apply(T.ptx["mov.b32"], self.lse2[e:e + 1].view("uint32"),
                              self.pairs[block:block + 1, 2 * half:2 * half + 1].view("uint32"))
            T.cuda.tile.apply(T.ptx["mov.b32"], self.d[e:e + 1].view("uint32"),
                              self.pairs[block:block + 1, 2 * half + 1:2 * half + 2].view("uint32"))


def attention_backward(bh: int, seq: int, seq_k: Optional[int] = None, scale: Optional[float] = None,
                       causal: bool = False, group: int = 1, dtype: str = "bfloat16", warpgroups: int = 1,
                       d: int = 64):
    """The kernel for `bh` query heads of `seq` queries and `seq_k` keys,
    `group` of them a head of K and V (GQA: a key block's dK and dV sum
    over its group's query heads), head dimension `d` (64 or 128): a
    T.function of (Q, dO, K, V, Rows, DQ, DK, DV), Q and dO (bh, seq, d),
    K, V, dK and dV (bh / group, seq_k, d) bf16 (or `dtype` "float16")
    bits (uint16); Rows (bh, 2 x seq rounded up to even) float32, each
    query's lse2 (base 2, of the scores times scale log2 e) and D in
    turn; DQ (bh, seq, d) float32, zero before, dS K summed (dQ is it
    times scale). `warpgroups` (1 or 2): a block's consumer warpgroups,
    each 64 keys of its block, sharing each step's Q and dO loads and
    summing their dQ products in shared memory before one reduction."""
    seq_k = seq if seq_k is None else seq_k
    if warpgroups not in (1, 2):
        raise ValueError(f"a block is 1 or 2 warpgroups, not {warpgroups}")
    if d not in HEAD_DIMS:
        raise ValueError(f"head dimension {d}: the backward takes {' or '.join(map(str, HEAD_DIMS))}")
    if seq < 1 or seq_k < 1:
        raise ValueError(f"{seq} queries and {seq_k} keys: the backward takes at least one of each")
    if dtype not in KINDS:
        raise ValueError(f"Q, K, V and dO are one of {sorted(KINDS)}, not {dtype!r}")
    if group < 1 or bh % group:
        raise ValueError(f"{bh} query heads do not share heads of K and V in groups of {group}")
    if causal and seq_k < seq:
        raise ValueError(f"{seq_k} keys for {seq} queries: causal takes at least as many keys as queries")
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    box = T.TensorMap((1, B, BOX), "128B")
    q_t = T.Tensor((bh, seq, d), "uint16", tma=box)
    k_t = T.Tensor((bh // group, seq_k, d), "uint16", tma=box)
    # (lse2, D) of each query, a row of pairs a head, its pitch whole 16
    # bytes (an even count of queries; the last past seq unread).
    rows_t = T.Tensor((bh, 2 * (seq + seq % 2)), "float32", tma=T.TensorMap((1, 2 * B), "none"))
    dq_t = T.Tensor((bh, seq, d), "float32", tma=T.TensorMap((1, B, 32), "128B"))
    dk_t = T.Tensor((bh // group, seq_k, d), "uint16")
    shape = _Shape(bh, (seq, seq_k, d), scale, causal, group, KINDS[dtype], warpgroups)

    @T.function
    def attention_backward(Q: q_t, dO: q_t, K: k_t, V: k_t, Rows: rows_t, DQ: dq_t, DK: dk_t, DV: dk_t):
        _body(shape, (Q, dO, K, V, Rows), (DQ, DK, DV))
    return attention_backward


class _Shape:
    def __init__(self, bh, extents, scale, causal, group, kind, warpgroups=1):
        (seq, seq_k, self.d), self.boxes = extents, extents[2] // BOX
        self.bh, self.seq, self.seq_k, self.scale, self.causal = bh, seq, seq_k, scale, causal
        self.kind, self.warpgroups = kind, warpgroups
        self.group, self.kv_heads = group, bh // group
        # A block's keys: 64 a warpgroup.
        self.key_blocks, self.steps = -(-seq_k // (B * warpgroups)), -(-seq // B)
        self.diagonal = seq_k - seq if causal else 0  # query i sees keys up to i + diagonal

    def first_step(self, k0):
        """The first query block that sees a key of the block from k0."""
        if not self.causal:
            return 0
        return T.maximum(k0 - self.diagonal, 0) // B

    def block(self, first, n):
        """(query head of the group, query block) of the block's step n:
        the group's heads in turn, each over its query blocks from
        `first`."""
        if self.group == 1:
            return 0, first + n
        count = self.steps - first
        return n // count, first + n % count

    def masked(self, k0, q0):
        """Whether block (k0, q0) has keys some query does not see: the
        causal diagonal crosses it, or it reaches past the last key; None
        where no block has."""
        crosses = (k0 + B - 1 > q0 + self.diagonal) if self.causal else None
        if not self.key_tail:
            return crosses
        past = k0 + B > self.seq_k
        return past if crosses is None else crosses | past

    def hides(self, key, query):
        """Whether `key` is hidden from `query` (past its diagonal, or past
        the last key)."""
        hidden = None
        if self.causal:
            hidden = key > (query + self.diagonal if self.diagonal else query)
        if self.key_tail:
            past = key >= self.seq_k
            hidden = past if hidden is None else hidden | past
        return hidden

    def warpgroup_of(self, t):
        """(warpgroup, thread within it) of block thread `t`: its keys
        are the block's from 64 x the warpgroup."""
        return (t // 128, t % 128) if self.warpgroups > 1 else (0, t)

    @property
    def key_tail(self):
        """Whether the last block's keys (64 a warpgroup) reach past the
        last key: some warpgroup's keys are masked there."""
        return self.seq_k % (B * self.warpgroups) != 0


def _body(shape: _Shape, inputs, outputs):
    Q, dO, K, V, Rows = inputs
    wgs = shape.warpgroups
    T.device_entry(launch=T.cuda.LaunchConfig(grid=shape.kv_heads * shape.key_blocks, block=128 * wgs))
    # A warpgroup's K, V and dS^T (keys x queries) at its index; rows of
    # the head dimension in boxes of 64 columns; dQ in boxes of 32.
    boxes = shape.boxes
    k_s = T.alloc_dynamic_shared((wgs, boxes, B, BOX), "uint16", align=1024).swizzle("128B")
    v_s = T.alloc_dynamic_shared((wgs, boxes, B, BOX), "uint16", align=1024).swizzle("128B")
    q_s = T.alloc_dynamic_shared((2, boxes, B, BOX), "uint16", align=1024).swizzle("128B")
    do_s = T.alloc_dynamic_shared((2, boxes, B, BOX), "uint16", align=1024).swizzle("128B")
    ds_s = T.alloc_dynamic_shared((wgs, B, B), "uint16", align=1024).swizzle("128B")
    dq_s = T.alloc_dynamic_shared((2 * boxes, B, 32), "float32", align=1024).swizzle("128B")
    rows_s = T.alloc_dynamic_shared((2, 2 * B), "float32", align=128)  # (lse2, D) of a step's queries
    t, bid = T.thread_id(), T.block_id()
    head, k0 = bid // shape.key_blocks, (bid % shape.key_blocks) * B * wgs
    kv = TmaRing(1, consumers=1, name="kv")
    kv.init(where=t == 0, fence=False)
    ring = TmaRing(2, consumers=1, name="q")
    ring.init(where=t == 0)
    sync_block()
    first = shape.first_step(k0)
    with T.if_(t == 0):
        once = PipelineState.producer(1, 0)
        kv.expect(once, 2 * wgs * boxes * BOX_BYTES)
        for w in range(wgs):
            for tile, tensor in ((k_s, K), (v_s, V)):
                for bx in range(boxes):
                    T.cuda.tile.apply(T.ptx[TMA_LOAD], tile[w, bx].reshape((1, B, BOX)), tensor.tensor_map,
                                      (BOX * bx, k0 + B * w, head), kv.full(once))
        _load_step(ring, (q_s, do_s, rows_s), (Q, dO, Rows), (0, first), head * shape.group)
    kv.wait(PipelineState(1, 0))
    acc = _Accumulators(boxes)
    total = (shape.steps - first) * shape.group
    # The ring counts the block's own steps n: query head g of the
    # group, query block i (shape.block).
    for n in T.serial(0, total):
        with T.if_((t == 0) & (n + 1 < total)):
            g, i = shape.block(first, n + 1)
            _load_step(ring, (q_s, do_s, rows_s), (Q, dO, Rows), (n + 1, i), head * shape.group + g)
        g, i = shape.block(first, n)
        q_head = head * shape.group + g
        get = PipelineState(2, n)
        ring.wait(get)
        _step(shape, acc, (k_s, v_s, q_s[get.stage], do_s[get.stage], ds_s, dq_s), rows_s[get.stage], (k0, i * B),
              t)
        ring.release(get, where=t == 0)
        with T.if_(t == 0):
            reduce_add_boxes(outputs[0], dq_s, (0, i * B, q_head))
    with T.if_(t == 0):
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))  # the last reductions done
    _store(shape, acc, outputs, head, k0, t)


def _load_step(ring, tiles, tensors, steps, head):
    """The ring's step n (`steps`: (n, i)): query block i's Q and dO boxes
    and its queries' (lse2, D) into its slot, once it is free."""
    n, i = steps
    put = PipelineState.producer(2, n)
    ring.acquire(put)
    boxes = tiles[0].shape[1]
    ring.expect(put, 2 * boxes * BOX_BYTES + 2 * B * 4)
    for tile, tensor in zip(tiles[:2], tensors[:2]):
        for bx in range(boxes):
            T.cuda.tile.apply(T.ptx[TMA_LOAD], tile[put.stage, bx].reshape((1, B, BOX)), tensor.tensor_map,
                              (BOX * bx, i * B, head), ring.full(put))
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"],
                      tiles[2][put.stage].reshape((1, 2 * B)), tensors[2].tensor_map, (2 * B * i, head),
                      ring.full(put))


class _Accumulators:
    """A thread's registers: dV and dK (kept over the steps), a step's
    S^T, dP^T and dQ, and the A fragments of P^T and dS^T."""

    def __init__(self, boxes):
        # dV, dK and dQ: an m64n64 D a box of the head dimension.
        self.dv = T.alloc_local((boxes, 1, 32), "float32")
        self.dk = T.alloc_local((boxes, 1, 32), "float32")
        self.st = T.alloc_local((1, 1, 32), "float32")
        self.dpt = T.alloc_local((1, 1, 32), "float32")
        self.dq = T.alloc_local((boxes, 1, 32), "float32")
        self.p_a = T.alloc_local((4, 1, 4), "uint32")
        self.ds_a = T.alloc_local((4, 1, 4), "uint32")
        self.columns = _Columns()
        for tile in (self.dv, self.dk):
            T.cuda.tile.apply(T.ptx["mov.b32"], tile.view("uint32").reshape((32 * boxes, 1)), T.uint32(0))


def _step(shape: _Shape, acc: _Accumulators, tiles, rows, origin, t):
    """One block of 64 queries (origin: (k0, q0), the block's first key
    and the step's queries) for the warpgroup of thread `t` (its 64 keys
    from k0 + 64 x its index): the module docstring's steps, up to dQ
    staged in `dq_s` for the block's thread 0 to add to DQ after the
    step."""
    k_all, v_all, q_s, do_s, ds_all, dq_s = tiles
    wg, tw = shape.warpgroup_of(t)
    k_s, v_s, ds_s = k_all[wg], v_all[wg], ds_all[wg]
    k0, q0 = origin[0] + B * wg, origin[1]
    warp, lane = tw // 32, tw % 32
    _smem_product(acc.st, k_s, q_s, tw, shape.kind)
    _smem_product(acc.dpt, v_s, do_s, tw, shape.kind)
    T.cuda.tile.apply(T.ptx[WAIT], T.uint32(0))
    st, dpt = acc.st.reshape((32, 1)), acc.dpt.reshape((32, 1))
    masked = shape.masked(k0, q0)
    if masked is not None:
        with T.if_(masked):
            _hide_keys(st, (k0, q0), shape, warp, lane)
    # The columns' (lse2, D) after the mask: d 128's registers hold both
    # only without the mask's predicates live beside them.
    acc.columns.load(rows, warp, lane)
    # P^T = ex2(S^T scale log2 e - lse2), one rounding before ex2 (fma)
    T.cuda.tile.apply(T.ptx["fma.rn.f32"], st, st, T.float32(shape.scale * math.log2(math.e)), acc.columns.lse2)
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], st, st)
    # dS^T = P^T (dP^T - D)
    T.cuda.tile.apply(T.ptx["sub.rn.f32"], dpt, dpt, acc.columns.d)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], dpt, st, dpt)
    _fragments(st, acc.p_a, shape.kind)
    _fragments(dpt, acc.ds_a, shape.kind)
    _register_product(acc.dv, acc.p_a, do_s, tw, shape.kind)
    _register_product(acc.dk, acc.ds_a, q_s, tw, shape.kind)
    # dS^T into shared memory (keys x queries) for dQ = dS K.
    row, lane_col = stmatrix_place(warp, lane)
    flat = acc.ds_a.reshape((16, 1))
    for j in range(B // 16):
        T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"], ds_s[row:row + 1, 16 * j + lane_col:
                                                                                   16 * j + lane_col + 8],
                          flat[4 * j:4 * j + 4].reshape((1, 4)))
    T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
    with T.if_(t == 0):
        # dq_s is free once the last step's reductions have read it; the
        # barrier tells every thread.
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
    sync_block()
    if shape.boxes > 1:
        # d 128: dV's and dK's products retire (their A fragments free)
        # before dQ's 64 accumulators are written, or the registers spill.
        T.cuda.tile.apply(T.ptx[WAIT], T.uint32(0))
    T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    for bx in range(shape.boxes):
        for c in range(B // 16):
            ds_t = ds_s[16 * c:16 * c + 16, 0:B].matrix_descriptor()  # dS^T's keys, read transposed
            T.cuda.tile.apply(T.ptx[_mma(shape.kind)], acc.dq[bx:bx + 1], ds_t,
                              k_s[bx, 16 * c:16 * c + 16, 0:BOX].matrix_descriptor(), _accumulate(tw, c),
                              T.int32(1), T.int32(1), T.uint32(1), T.uint32(1))
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
    T.cuda.tile.apply(T.ptx[WAIT], T.uint32(0))
    _stage_dq(shape, dq_s, acc.dq, wg, (warp, lane))
    # Every thread's dQ product has read dS^T before the next step writes
    # it, and its dQ is in dq_s before thread 0's reductions read it.
    sync_block()


def _stage_dq(shape: _Shape, dq_s, dq, wg, place):
    """The warpgroups' dQ products into dq_s: one warpgroup's as they are;
    of two, warpgroup 1 adds its own to warpgroup 0's after a barrier
    (the same registers of the same threads: the same places), so one
    reduction a step adds both."""
    warp, lane = place
    if shape.warpgroups == 1:
        stage_f32_pairs(dq_s, dq, warp, lane)
        return
    with T.if_(wg == 0):
        stage_f32_pairs(dq_s, dq, warp, lane)
    sync_block()
    with T.if_(wg == 1):
        stage_f32_pairs(dq_s, dq, warp, lane, add=True)


def _hide_keys(st, origin, shape: _Shape, warp, lane):
    """S^T's elements whose key (row) its query (column) does not see
    (shape.hides) set to -inf: ex2 makes their P, and so dS, 0."""
    places = WgmmaAccumulator(B)
    for e in range(32):
        key, query = places.place(e, warp, lane, *origin)
        T.cuda.tile.apply(T.ptx["mov.b32"], st[e:e + 1].view("uint32"), T.uint32(NEG_INF),
                          pred=shape.hides(key, query), preserve_dst=True)


def _store(shape: _Shape, acc: _Accumulators, outputs, head, k0, t):
    """dK times scale and dV, rounded to the inputs' type, from the
    registers: each warpgroup its 64 keys from k0 + 64 x its index."""
    _, DK, DV = outputs
    dk = acc.dk.reshape((32 * shape.boxes, 1))
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], dk, dk, T.float32(shape.scale))
    rows = shape.seq_k if shape.key_tail else None  # nothing past the last key
    wg, tw = shape.warpgroup_of(t)
    for out, values in ((DK, acc.dk), (DV, acc.dv)):
        store_pairs(out[head], values, tw // 32, tw % 32, k0 + B * wg, rows, shape.kind)
