"""Attention forward on Hopper's warpgroup tensor cores: O = softmax(Q K^T
scale) V for bf16 (or fp16) Q, K, V and O of head dimension d (64, or 128 in two
halves of 64 columns), [batch x heads, seq, d]; causal or not; any number
of queries and keys (the tiles past a head's rows load zeros, and store
nothing, by three-axis TMA boxes; the keys past the last one are masked).
Causal with S_k > S_q keys, query i sees the keys up to i + S_k - S_q (the
bottom-right diagonal, FlashAttention's and decode's). FlashAttention 3's
algorithm, persistent and warp-specialized (issue #31's result):

- `config.blocks` blocks take tiles of 128 query rows in turn (HeadTiles:
  causal, a unit is a pair of one head's tiles, so every unit is the same
  work);
- warpgroup 0 produces: one thread loads each tile's Q (a ring of
  `config.q_buffers` buffers) and each key block's K and V (128 keys, a
  ring of `config.stages` slots, or V in a ring of `config.v_stages` of
  its own) by TMA; the rings run on across a block's tiles;
- warpgroups 1 and 2 consume, 64 query rows each, in FlashAttention 3's
  order: key block j's S = Q K^T and block j - 1's O += P V are issued
  together, and S_j's online softmax runs while P V does. The two
  consumers issue their wgmma in turns (ConsumerTurns);
- O / l, rounded to the inputs' type, is stored through the consumer's rows of K in
  the stage of the tile's last key block (dead once both consumers' last
  S retired): stmatrix, then TMA boxes. That stage is freed once the
  boxes have read it, after the next tile's first S is in flight
  (`config.defer_free`) or at once;
- with `stats`, each row's m and l (OnlineSoftmax.store_stats) go to a
  (heads, seq, 2) float32 tensor, from which the op takes the
  log-sum-exp.

Decode's few query rows over many keys (config.splits > 1, split-KV):
each tile's keys in parts of whole key blocks, each part a unit of
HeadTiles, whose O (not divided) and rows' m and l go to float32
workspaces from the registers; attention_combine merges them, in a second
kernel or by each tile's last part in this launch (config.one_launch).
K and V come from contiguous heads or a paged cache and its block table
(attention_keys.py: `paging`).

On data where every step is exact, O equals float64 rounded once by the
final division, in the interpreter (test_kernels_attention.py), split
and paged alike.
"""

import inspect
import math
from dataclasses import dataclass
from typing import Optional

from .. import script as T
from .configs import ATTENTION_BM, ATTENTION_BN, AttentionConfig, split_refusal
from ..pipelining import (ConsumerTurns, HeadTiles, KeyMask, NamedBarriers, OnlineSoftmax, PipelineState, TmaRing,
                          WarpgroupRoles, sync_block)
from ..pipelining.epilogues import stage_and_store
from .attention_combine import LaunchMerge
from .attention_keys import ContiguousKeys, PagedKeys
from .rows import KINDS  # Q, K, V and O's type: the wgmma's and P's rounding

# No `from __future__ import annotations`: T.function reads the kernel's
# parameter annotations as objects.

BM, BN, CONSUMERS = ATTENTION_BM, ATTENTION_BN, 2  # query rows a tile, keys a step, consumer warpgroups
TMA_LOAD = ContiguousKeys.opcode
WAIT = "wgmma.wait_group.sync.aligned"


@dataclass(frozen=True)
class _Problem:
    bh: int
    seq: int
    d: int
    causal: bool
    scale_log2: float
    config: AttentionConfig
    group: int = 1  # query heads a head of K and V serves (GQA; bh of them: MQA)
    seq_k: Optional[int] = None  # keys a head, when not `seq`
    dtype: str = "bfloat16"
    stats: bool = False  # each row's m and l stored (the log-sum-exp's)
    paging: Optional[PagedKeys] = None  # K and V as a paged cache and its block table

    def __post_init__(self):
        if self.seq < 1 or self.d not in (64, 128):
            raise ValueError(f"a sequence of {self.seq} queries, or d {self.d} not 64 or 128")
        if self.dtype not in KINDS:
            raise ValueError(f"Q, K and V are one of {sorted(KINDS)}, not {self.dtype!r}")
        if self.kv_seq < 1 or (self.causal and self.kv_seq < self.seq):
            raise ValueError(f"{self.kv_seq} keys for {self.seq} queries: causal takes at least as many keys as "
                             "queries (the bottom-right diagonal: otherwise the first rows see no key)")
        if self.group < 1 or self.bh % self.group:
            raise ValueError(f"{self.bh} query heads do not share heads of K and V in groups of {self.group}")
        if self.config.q_buffers not in (1, 2):
            raise ValueError(f"Q takes 1 or 2 buffers, not {self.config.q_buffers}")
        if self.paging and (self.paging.batch * self.paging.cache_heads, self.paging.keys) != (self.kv_heads,
                                                                                               self.kv_seq):
            raise ValueError(f"a paged cache of {self.paging.batch} x {self.paging.cache_heads} heads of "
                             f"{self.paging.keys} keys serves {self.kv_heads} heads of {self.kv_seq} keys")
        if self.config.one_launch and self.splits < 2:
            raise ValueError("one_launch merges the parts of split keys: it takes splits of 2 or more")
        why = split_refusal(self.kv_seq, self.splits, self.diagonal if self.causal else None)
        if why:
            raise ValueError(why)

    halves = property(lambda self: self.d // 64)
    kind = property(lambda self: KINDS[self.dtype])
    kv_seq = property(lambda self: self.seq if self.seq_k is None else self.seq_k)
    kv_heads = property(lambda self: self.bh // self.group)
    kv_steps = property(lambda self: -(-self.kv_seq // BN))
    diagonal = property(lambda self: self.kv_seq - self.seq if self.causal else 0)
    splits = property(lambda self: self.config.splits)
    chunk = property(lambda self: -(-self.kv_steps // self.splits))  # key blocks a part of the keys
    # Causal tiles paired by their work (HeadTiles); split, every tile
    # takes a part's blocks and the mask hides the keys past the diagonal.
    paired = property(lambda self: self.causal and self.splits == 1)

    @property
    def places(self) -> int:
        """Query tiles a head: paired, an even number (a tile past the rows
        pairs with the middle one; it loads zeros and stores nothing)."""
        places = -(-self.seq // BM)
        return places + places % 2 if self.paired else places

    @property
    def keys(self) -> KeyMask:
        """The keys a row sees: causal, up to the diagonal (a row inside
        the sequence never sees past the last key); else a tail's, or the
        last part's blocks past the keys (split)."""
        if self.causal:
            return KeyMask(causal=True, diagonal=self.diagonal)
        return KeyMask(keys=self.kv_seq if self.kv_seq % BN or self.padded else None)

    padded = property(lambda self: self.splits * self.chunk > self.kv_steps)  # the last part's blocks past the keys

    def mask(self, rows_from, steps, first_block=0):
        """Whether key block j (of a part from `first_block`) needs the
        mask, for the warpgroup's rows from `rows_from`: causal, where it
        crosses their diagonal; else a block past the last key; None where
        no block does."""
        if self.causal:
            return lambda j: (first_block + j) * BN + BN - 1 > rows_from + self.diagonal
        if self.keys.keys is None:
            return lambda j: None
        if self.splits > 1:
            return lambda j: (first_block + j) * BN + BN > self.kv_seq
        return lambda j: (j == steps - 1) if not isinstance(j, int) else (j == steps - 1) or None
    split = property(lambda self: self.config.v_stages not in (None, self.config.stages))
    source = property(lambda self: self.paging or ContiguousKeys(self.kv_heads, self.kv_seq))
    # The blocks reach past the last key (a tail, or split parts past it).
    past_keys = property(lambda self: self.kv_seq % BN != 0 or self.padded)
    box_bytes = property(lambda self: self.halves * BN * 128)  # K's (or V's) boxes of a key block

    @property
    def tiles(self) -> HeadTiles:
        if self.paired:
            return HeadTiles(self.bh, self.places, BM, BN, True, self.config.blocks,
                             extra_steps=-(-self.diagonal // BN))
        return HeadTiles(self.bh, self.places, BM, BN, False, self.config.blocks, self.chunk, splits=self.splits)

    def first_block(self, tile):
        """The key block a tile's part of the keys starts at."""
        return tile.split * self.chunk if self.splits > 1 else 0


class _KeyValueRing:
    """K's and V's slots (k_s and v_s: slots x halves x BN x 64): one ring
    whose full barrier expects both boxes and whose slot is freed once
    each consumer's P V retired; or, split, K's ring freed once the S
    after it is issued and V's of its own (FlashAttention 3's pipelines)."""

    def __init__(self, pb: _Problem, k_s, v_s, where):
        self.pb, self.k_s, self.v_s = pb, k_s, v_s
        self.k_ring = TmaRing(pb.config.stages, consumers=CONSUMERS, name="kv")
        self.k_ring.init(where, fence=False)
        self.v_ring = self.k_ring
        if pb.split:
            self.v_ring = TmaRing(pb.config.v_stages, consumers=CONSUMERS, name="v")
            self.v_ring.init(where, fence=False)

    def k_state(self, g):
        return PipelineState(self.k_ring.stages, g)

    def v_state(self, g):
        return PipelineState(self.v_ring.stages, g)

    def k(self, g):
        return self.k_s[self.k_state(g).stage]

    def v(self, g):
        return self.v_s[self.v_state(g).stage]

    def produce(self, K, V, g, where):
        """Step g: once its slots are free, K's and V's boxes of the key
        block `where` (pb.source.locate's) into them, completing their full
        barriers."""
        source = self.pb.source
        rings = [(self.k_ring, ((self.k_s, K), (self.v_s, V)))] if not self.pb.split else [
            (self.k_ring, ((self.k_s, K),)), (self.v_ring, ((self.v_s, V),))]
        for ring, tiles in rings:
            put = PipelineState.producer(ring.stages, g)
            ring.acquire(put, branch_first_pass=True)
            ring.expect(put, len(tiles) * self.pb.box_bytes)
            for tile, tensor in tiles:
                for hf in range(self.pb.halves):
                    for dst, coords in source.boxes(tile[put.stage, hf], hf, where):
                        T.cuda.tile.apply(T.ptx[source.opcode], dst, tensor.tensor_map, coords, ring.full(put))

    def wait_k(self, g):
        self.k_ring.wait(self.k_state(g))

    def wait_v(self, g):
        if self.pb.split:
            self.v_ring.wait(self.v_state(g))

    def free_k(self, g, p):
        """K's slot of step g (its S retired), split; else freed with V's."""
        if self.pb.split:
            self.k_ring.release(self.k_state(g), where=p == 0)

    def free_v(self, g, p, keep_k=False):
        """V's slot of step g (its P V retired); one ring: the slot, unless
        `keep_k` (K's rows still hold O)."""
        if self.pb.split or not keep_k:
            self.v_ring.release(self.v_state(g), where=p == 0)

    def free_once_read(self, g, p, when=True):
        """K's slot of step g, once the warpgroup's TMA stores have read
        O from it."""
        with T.if_((p == 0) if when is True else (p == 0) & when):
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
            self.k_ring.release(self.k_state(g))


def _issue_s(rows: OnlineSoftmax, q_tile, q_row, k_tile, p):
    """S = Q K^T (rows q_row.. of q_tile) issued and committed:
    four wgmma a half (the first one's false predicate zeroes S)."""
    T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    for hf in range(rows.halves):
        for c in range(4):
            T.cuda.tile.apply(T.ptx[f"wgmma.mma_async.sync.aligned.m64n{BN}k16.f32.{rows.kind}.{rows.kind}"], rows.s,
                              q_tile[hf, q_row:q_row + 64, 16 * c:16 * c + 16].matrix_descriptor(),
                              k_tile[hf, 0:BN, 16 * c:16 * c + 16].matrix_descriptor(),
                              p < 128 if c or hf else p >= 128, T.int32(1), T.int32(1), T.uint32(0), T.uint32(0))
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])


def _issue_pv(rows: OnlineSoftmax, v_tile, p, fence=True):
    """O += P V issued and committed from the A fragments; V's tile read
    MN-major. At d 128 one wgmma a k chunk covers both halves of O (V's
    tile one operand of two swizzled rows: a 3-D descriptor)."""
    if fence:
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    n = 64 * rows.halves
    o = rows.o.reshape((1, 1, 32 * rows.halves))
    for c in range(BN // 16):
        v = v_tile[:, 16 * c:16 * c + 16, 0:64] if rows.halves > 1 else v_tile[0, 16 * c:16 * c + 16, 0:64]
        T.cuda.tile.apply(T.ptx[f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{rows.kind}.{rows.kind}"], o,
                          rows.a[c:c + 1],
                          v.matrix_descriptor(), p < 128, T.int32(1), T.int32(1), T.uint32(1))
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])


@dataclass
class _Consumer:
    """What a consumer's steps share: its row state, turns, the ring, its
    thread p of the warpgroup, and the softmax scale."""

    rows: OnlineSoftmax
    turns: ConsumerTurns
    kv: _KeyValueRing
    p: object
    scale_log2: float

    def key_blocks(self, q_tile, q_row, g0, steps, rows_from, mask, after_first_issue=None, first_block=0):
        """Key blocks 0 to steps - 1 of the tile's part of the keys (from
        `first_block`; block j: the ring's step g0 + j) in FlashAttention
        3's order; leaves the last block's P in the fragments for finish(),
        every S retired."""
        rows, kv, p = self.rows, self.kv, self.p
        kv.wait_k(g0)
        self.turns.wait_turn()
        _issue_s(rows, q_tile, q_row, kv.k(g0), p)
        self.turns.pass_turn()
        if after_first_issue:
            after_first_issue()
        T.cuda.tile.apply(T.ptx[WAIT], T.uint32(0))
        rows.softmax(p, _key_block(first_block, 0), rows_from, self.scale_log2, mask(0))
        rows.p_fragments()
        for j in T.serial(1, steps):
            kv.wait_k(g0 + j)
            kv.wait_v(g0 + j - 1)
            self.turns.wait_turn()
            _issue_s(rows, q_tile, q_row, kv.k(g0 + j), p)
            _issue_pv(rows, kv.v(g0 + j - 1), p, fence=False)
            self.turns.pass_turn()
            kv.free_k(g0 + j - 1, p)  # its S retired at the wait before
            T.cuda.tile.apply(T.ptx[WAIT], T.uint32(1))
            rows.softmax(p, _key_block(first_block, j), rows_from, self.scale_log2, mask(j))
            T.cuda.tile.apply(T.ptx[WAIT], T.uint32(0))
            kv.free_v(g0 + j - 1, p)
            rows.rescale_o()
            rows.p_fragments()

    def finish(self, g, more):
        """O += P V of the last key block (step g), retired; V's slot
        freed, K's kept (it holds O next). `more`: whether this consumer
        has a tile after this one (for the turns)."""
        self.kv.wait_v(g)
        self.turns.wait_turn()
        _issue_pv(self.rows, self.kv.v(g), self.p)
        self.turns.pass_turn(more)
        T.cuda.tile.apply(T.ptx[WAIT], T.uint32(0))
        self.kv.free_v(g, self.p, keep_k=True)


def _key_block(first_block, j):
    """Key block j of a part of the keys from `first_block` (j itself
    where the keys are one part)."""
    return j if isinstance(first_block, int) and first_block == 0 else first_block + j


def _each_tile(pb: _Problem, count):
    """(i, h) over the block's units and their tiles."""
    for i in T.serial(0, count):
        for h in (T.serial(0, 2) if pb.paired else (0,)):
            yield i, h


def _produce(pb: _Problem, Q, K, V, table, q_s, q_ring, kv, bid):
    """Thread 0 of the producer: each tile's Q, then its key blocks."""
    tiles, q_buffers = pb.tiles, pb.config.q_buffers

    def load_q(n, tile):
        """The block's n-th tile's Q, once its buffer is free."""
        put = PipelineState.producer(q_buffers, n)
        q_ring.acquire(put, branch_first_pass=True)
        q_ring.expect(put, pb.halves * BM * 128)
        for hf in range(pb.halves):
            T.cuda.tile.apply(T.ptx[TMA_LOAD], q_s[put.stage, hf].reshape((1, BM, 64)), Q.tensor_map,
                              (64 * hf, tile.first_row, tile.head), q_ring.full(put))

    def load_next_q(n, i, h):
        """The block's tile n + 1's Q, if it has one."""
        i1, h1 = (i + h, 1 - h) if pb.paired else (i + 1, 0)
        with T.if_(n + 1 < tiles.per_unit * tiles.count(bid)):
            load_q(n + 1, tiles.tile(bid, i1, h1))

    if q_buffers == 2:
        load_q(0, tiles.tile(bid, 0, 0))
    for i, h in _each_tile(pb, tiles.count(bid)):
        tile = tiles.tile(bid, i, h)
        steps, g0 = tile.steps, tile.first_step
        n = tiles.per_unit * i + h
        if q_buffers == 1:
            load_q(n, tile)
        kv_head = tile.head // pb.group if pb.group > 1 else tile.head
        first_block = pb.first_block(tile)
        for j in T.serial(0, steps):
            where = pb.source.locate(table, _key_block(first_block, j) * BN, kv_head, pb.past_keys)
            kv.produce(K, V, g0 + j, where)
            if q_buffers == 2:
                # Past key block 1 the consumers have retired the tile
                # before's last S, which freed the buffer (a tile of one
                # key block loads it after its only one).
                with T.if_(j == min(1, steps - 1) if isinstance(steps, int) else (j == 1) | (steps == 1)):
                    load_next_q(n, i, h)


def _consume(pb: _Problem, outputs, q_s, q_ring, kv, t, bid, c, slot=None):
    """Consumer c's tiles: Q's wait, the key blocks, then O (`outputs`:
    (O, Stats) or, split, (Partial, Stats), and in one launch (O,
    Counters, Merged) more: _store_o or _store_partial; `slot` the one
    launch's counts handed round)."""
    p, tiles, cfg = t % 128, pb.tiles, pb.config
    named = NamedBarriers()
    turns = ConsumerTurns(c, named.allocate("turns", threads=256, count=2))
    stores = named.allocate("stores", threads=128, count=2)
    handoff = named.allocate("O in K", threads=256, count=2)
    consumer = _Consumer(OnlineSoftmax(BN, pb.halves, pb.kind, pb.keys), turns, kv, p, pb.scale_log2)
    merge = LaunchMerge(pb.splits, pb.bh, pb.seq, pb.kind, outputs, slot, stores, c) if slot is not None else None
    for i, h in _each_tile(pb, tiles.count(bid)):
        tile = tiles.tile(bid, i, h)
        steps, g0 = tile.steps, tile.first_step
        rows_from, first_block = tile.first_row + 64 * c, pb.first_block(tile)
        q_get = PipelineState(cfg.q_buffers, tiles.per_unit * i + h)
        q_ring.wait(q_get)
        # The ring runs on: the tile before's last key block, whose K's
        # slot held its O, was step g0 - 1.
        defer = cfg.defer_free and pb.splits == 1
        free_before = (lambda: kv.free_once_read(g0 - 1 + cfg.stages, p, g0 > 0)) if defer else None
        consumer.key_blocks(q_s[q_get.stage], 64 * c, g0, steps, rows_from, pb.mask(rows_from, steps, first_block),
                            free_before, first_block)
        q_ring.release(q_get, where=p == 0)
        last = g0 + steps - 1
        more = (i < tiles.count(bid) - 1) | (h == 0) if pb.paired else i < tiles.count(bid) - 1
        if pb.splits > 1:
            consumer.finish(last, more)
            _store_partial(pb, consumer, outputs[:2], tile, t, rows_from)
            if merge:
                # A warpgroup whose rows are all past the queries (decode's
                # second) has nothing to merge in any part.
                with T.if_(rows_from < pb.seq):
                    merge.arrive(consumer.rows, tile.head * pb.places + tile.first_row // BM, tile.head, rows_from,
                                 t)
        else:
            handoff.arrive(c)
            consumer.finish(last, more)
            handoff.sync(1 - c)
            _store_o(pb, consumer, outputs, tile, t, c, rows_from, stores.id(c))
        consumer.rows.reset()
    with T.if_(p == 0):
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))


def _store_o(pb: _Problem, consumer: _Consumer, outputs, tile, t, c, rows_from, barrier):
    """The rows' m and l (with Stats), then O / l, rounded, through the
    consumer's rows of K in the stage of the tile's last key block (both
    consumers' last S retired: each told the other at `handoff`), by
    stmatrix and TMA boxes; the stage freed once they read it, or after
    the next tile's first S (`defer_free`)."""
    (O, Stats), p, kv = outputs, consumer.p, consumer.kv
    last = tile.first_step + tile.steps - 1
    if Stats is not None:
        consumer.rows.store_stats(Stats[tile.head], t, rows_from, pb.seq)
    consumer.rows.divide()
    rows_of_k = kv.k(last).reshape((pb.halves, 2, 64, 64))[:, c]
    stage_and_store(O, rows_of_k, consumer.rows.o.reshape((1, 1, 32 * pb.halves)), rows_from, 0,
                    64 * pb.halves, (t // 32) % 4, t % 32, p, pb.kind, T.uint32(barrier), outer=(tile.head,))
    if not pb.config.defer_free:
        kv.free_once_read(last, p)


def _store_partial(pb: _Problem, consumer: _Consumer, outputs, tile, t, rows_from):
    """A part of the keys (split): its rows' m and l, and O not divided,
    in float32 from the registers, at unit split x bh + head of Partial
    and Stats; K's slot of its last key block freed at once (it holds no
    O)."""
    Partial, Stats = outputs
    unit = tile.split * pb.bh + tile.head
    consumer.rows.store_stats(Stats[unit], t, rows_from, pb.seq)
    consumer.rows.store_o(Partial[unit], t, rows_from, pb.seq)
    consumer.kv.k_ring.release(consumer.kv.k_state(tile.first_step + tile.steps - 1), where=consumer.p == 0)


def attention(bh: int, seq: int, d: int = 64, causal: bool = False, scale: Optional[float] = None,
              scale_log2: Optional[float] = None, config: Optional[AttentionConfig] = None, group: int = 1,
              seq_k: Optional[int] = None, dtype: str = "bfloat16", stats: bool = False,
              paging: Optional[PagedKeys] = None):
    """The kernel for `bh` heads of `seq` rows: a T.function of (Q, K, V, O),
    Q and O (bh, seq, d), K and V (bh / group, seq_k, d), bf16 (or
    `dtype` "float16") bits (uint16); query head h attends to head h / group of K and V (`group`
    > 1: grouped-query attention), of `seq_k` rows each when not `seq`
    (causal: at least `seq`; the bottom-right diagonal). The softmax scale is `scale`
    (1 / sqrt(d) by default), or `scale_log2` = scale x log2 e directly.
    With `stats`, of (Q, K, V, O, Stats): Stats (bh, seq, 2) float32, each
    row's m and l (OnlineSoftmax.store_stats). With config.splits > 1, of
    (Q, K, V, Partial, Stats): each part s of the keys' O not divided,
    Partial (splits x bh, seq, d) float32, and its rows' m and l, Stats
    (splits x bh, seq, 2), at s x bh + head; attention_combine merges
    them. With `paging` (attention_keys.PagedKeys), K and V are its paged
    cache and its block table BlockTable follows them."""
    if scale_log2 is None:
        scale_log2 = (scale if scale is not None else 1.0 / math.sqrt(d)) * math.log2(math.e)
    pb = _Problem(bh, seq, d, causal, scale_log2, config or AttentionConfig.best(d, causal, seq), group, seq_k,
                  dtype, stats, paging)
    kv = pb.source.param(d)
    params = [("Q", T.Tensor((bh, seq, d), "uint16", tma=T.TensorMap((1, BM, 64), "128B"))), ("K", kv), ("V", kv),
              *pb.source.table_params()]
    if pb.splits > 1:
        units = pb.splits * bh
        params += [("Partial", T.Tensor((units, seq, d), "float32")), ("Stats", T.Tensor((units, seq, 2), "float32"))]
        if pb.config.one_launch:
            params += [("O", T.Tensor((bh, seq, d), "uint16")),
                       ("Counters", T.Tensor((bh * pb.places * CONSUMERS, 1), "uint32"))]
            params += [("Merged", T.Tensor((bh, seq, 2), "float32"))] if stats else []
    else:
        params.append(("O", T.Tensor((bh, seq, d), "uint16", tma=T.TensorMap((1, 64, 64), "128B"))))
        params += [("Stats", T.Tensor((bh, seq, 2), "float32"))] if stats else []
    names = [name for name, _ in params]

    def kernel(*args):
        named = dict(zip(names, args))
        if pb.splits > 1:
            outputs = (named["Partial"], named["Stats"], named.get("O"), named.get("Counters"), named.get("Merged"))
        else:
            outputs = (named["O"], named.get("Stats"))
        _body(pb, (named["Q"], named["K"], named["V"], named.get("BlockTable")), outputs)
    kernel.__signature__ = inspect.Signature([inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                                annotation=spec) for name, spec in params])
    kernel.__name__ = kernel.__qualname__ = "attention_split" if pb.splits > 1 else "attention"
    if pb.config.one_launch:
        kernel.__name__ = kernel.__qualname__ = "attention_split_merged"
    return T.function(kernel)


def _body(pb: _Problem, inputs, outputs):
    """The kernel's body: shared memory, the rings, then the roles;
    `inputs` (Q, K, V, the block table or None), `outputs` (O, Stats or
    None) or, split, (Partial, Stats)."""
    Q, K, V, table = inputs
    cfg, halves = pb.config, pb.halves
    T.device_entry(launch=T.cuda.LaunchConfig(grid=pb.tiles.grid, block=128 * (CONSUMERS + 1)))
    q_s = T.alloc_dynamic_shared((cfg.q_buffers, halves, BM, 64), "uint16", align=1024).swizzle("128B")
    k_s = T.alloc_dynamic_shared((cfg.stages, halves, BN, 64), "uint16", align=1024).swizzle("128B")
    v_s = T.alloc_dynamic_shared((cfg.v_stages or cfg.stages, halves, BN, 64), "uint16",
                                 align=1024).swizzle("128B")
    slot = T.alloc_dynamic_shared((CONSUMERS, 1), "uint32") if cfg.one_launch else None  # LaunchMerge's counts
    t, bid = T.thread_id(), T.block_id()
    q_ring = TmaRing(cfg.q_buffers, consumers=CONSUMERS, name="q")
    q_ring.init(where=t == 0, fence=False)
    kv = _KeyValueRing(pb, k_s, v_s, where=t == 0)
    q_ring.full_barriers.fence_init(where=t == 0)
    sync_block()
    roles = WarpgroupRoles(t, (cfg.producer_regs, cfg.consumer_regs))
    with roles.producer():
        with T.if_(roles.p == 0):
            _produce(pb, Q, K, V, table, q_s, q_ring, kv, bid)
    with roles.consumers() as c:
        _consume(pb, outputs, q_s, q_ring, kv, t, bid, c, slot)
