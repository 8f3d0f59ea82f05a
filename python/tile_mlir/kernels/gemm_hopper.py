"""C = A Bt^T on Hopper's warpgroup tensor cores: the persistent,
warp-specialized GEMM with a deferred TMA epilogue (issue #31's result).

A (M x K) and Bt (N x K) are row major (K-major operands) and passed as
their bits: bf16 or fp16 as uint16, e4m3 as uint8. C is M x N in the
inputs' 16-bit type (bf16 for e4m3), each pair rounded to nearest, as
torch.matmul and torch._scaled_mm return it. Any M; N a multiple of 8 and
K of 16 bytes (TMA's row pitch): the tiles and steps past the edges load
zeros and store nothing.

`config.blocks` blocks take the tiles of C in turn (a grouped order,
GroupedTiles). In each block:

- warpgroup 0 produces: one thread loads each step of K (128 bytes a row)
  as two TMA boxes, A's BM x BK and Bt's BN x BK, into a ring of
  `config.stages` slots (TmaRing). The ring runs on across tiles, so the
  next tile's first steps load while the consumers finish a tile;
- warpgroups 1 to `config.consumers` consume: each multiplies its 64 rows
  of the tile by Bt's, four wgmma a step, one step left in flight, and
  frees a step's slot once it has retired;
- the epilogue is deferred: a tile's accumulators are rounded into 64
  registers of pairs, and stored while the next tile's first
  DEFERRED_STEPS steps of wgmma run, a chunk of BN / DEFERRED_STEPS
  columns after each step's issue: stmatrix into the consumer's swizzled
  shared buffer, then one TMA box. The tensor cores never wait for C.

A short M leaves most SMs without a tile; `config.split_k` splits each
tile's steps of K into slices, each slice a unit of work whose float32
partial the consumers store from their registers (st.global) into a
workspace W (split_k, M, N), which kernels/gemm_reduce.py sums in order,
scales and rounds into C.

On integer-valued data small enough that every partial sum is exact, C
equals numpy bit for bit, in the interpreter and on the GPU
(test_kernels_gemm_hopper.py).
"""

from dataclasses import dataclass, replace
from typing import Optional, Tuple

from .. import script as T
from .configs import HopperGemmConfig
from ..pipelining import (EitherTiles, GroupedTiles, NamedBarriers, PipelineState, TmaRing, WarpgroupRoles,
                          WgmmaAccumulator, sync_block)
from ..pipelining.epilogues import stmatrix_place
from .split_k_finish import SplitKFinish, TileFinisher

# No `from __future__ import annotations`: T.function reads the kernel's
# parameter annotations as objects.

# The wgmma kinds of the input types.
KINDS = {"bfloat16": "bf16", "float16": "f16", "e4m3": "e4m3"}
# C's 16-bit types, and the scales the accumulators may be multiplied by.
OUT_KINDS = {"bfloat16": "bf16", "float16": "f16"}
SCALES = ("none", "tensor", "row")
# The deferred epilogue stores the previous tile in this many chunks, one
# after each of the first steps' wgmma.
DEFERRED_STEPS = 4
# The swizzle of a chunk's shared buffer by its columns (rows of 128, 64 or
# 32 bytes): its box's, under which stmatrix's 8 rows of 16 bytes fall on
# distinct banks.
CHUNK_SWIZZLE = {64: "128B", 32: "64B", 16: "32B"}
TMA_LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
TMA_STORE = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"


@dataclass(frozen=True)
class _Geometry:
    """What a problem and a configuration make of each other."""

    m: Optional[int]  # None: each launch's (A's rows)
    n: Optional[int]  # None: each launch's (Bt's rows), at most one tile's bn columns
    k: int
    dtype: str
    config: HopperGemmConfig
    scales: str = "none"  # "tensor": one scale each; "row": A's per row, Bt's per row (C's column)
    out_dtype: Optional[str] = None  # C's 16-bit type: the inputs' (bf16 for e4m3) by default
    partial: bool = False  # float32 accumulators into a workspace, unsplit too (a float32 C)
    # A runtime M known to be at most this (hopper_gemm's max_m): its tile
    # rows, and so the units and the blocks, are constants.
    max_m: Optional[int] = None
    # A runtime N known to be at most this (hopper_gemm's max_n): the
    # accumulators of the columns past it are never stored nor summed.
    max_n: Optional[int] = None
    # Inside the kernel (bound()): M and N, constants or read from A's and
    # Bt's descriptors, and the launch's grid.
    at_launch: Optional[Tuple] = None

    def __post_init__(self):
        if self.dtype not in KINDS:
            raise ValueError(f"dtype is one of {sorted(KINDS)}, got {self.dtype!r}")
        if self.scales not in SCALES:
            raise ValueError(f"scales is one of {SCALES}, got {self.scales!r}")
        if self.out_dtype not in (None, *OUT_KINDS):
            raise ValueError(f"C is one of {sorted(OUT_KINDS)}, got {self.out_dtype!r}")
        if self.max_m is not None and (self.m is not None or self.max_m < 1):
            raise ValueError(f"max_m bounds a runtime M (None) by at least 1, got m {self.m}, max_m {self.max_m}")
        if self.max_n is not None and (self.n is not None or not 1 <= self.max_n <= self.config.bn):
            raise ValueError(f"max_n bounds a runtime N (None) by 1 to bn {self.config.bn}, got n {self.n}, "
                             f"max_n {self.max_n}")
        if min(e for e in (self.m, self.n, self.k) if e is not None) < 1:
            raise ValueError(f"an empty product: {self.m} x {self.n} x {self.k}")
        # TMA takes a tensor's rows at a pitch of whole 16 bytes: A's and
        # Bt's of K elements, C's of N 16-bit ones.
        # (A split-K partial stores no C by TMA: any N.)
        if self.n is None and not self.to_workspace:
            raise ValueError("a runtime N takes a float32 workspace (swap-AB's partial): C's TMA rows need "
                             "N's 16 bytes")
        if self.k * (1 if self.fp8 else 2) % 16 or (not self.to_workspace and self.n * 2 % 16):
            raise ValueError(f"K {self.k} and N {self.n}: a TMA box's rows are whole 16 bytes (K a multiple of "
                             f"{16 if self.fp8 else 8}, N of 8)")
        if self.chunk_cols not in CHUNK_SWIZZLE:
            raise ValueError(f"the epilogue's chunks are {sorted(CHUNK_SWIZZLE)} columns, got {self.chunk_cols}")
        if self.split < 1 or self.steps % self.split:
            raise ValueError(f"K's {self.steps} steps of {self.bk} do not split into {self.split} equal slices")
        if self.to_workspace and (self.scales != "none" or self.out_dtype):
            raise ValueError("a split-K partial is float32: its scales and C's type are the reduction's "
                             "(kernels/gemm_reduce.py)")

    fp8 = property(lambda self: self.dtype == "e4m3")
    # A step is one 128-byte swizzled row: 64 b16 or 128 e4m3 elements, four
    # wgmma of K 16 or 32.
    bk = property(lambda self: 128 if self.fp8 else 64)
    k_step = property(lambda self: 32 if self.fp8 else 16)
    bits = property(lambda self: "uint8" if self.fp8 else "uint16")
    bm = property(lambda self: 64 * self.config.consumers)
    threads = property(lambda self: 128 * (self.config.consumers + 1))
    # Tiles and steps past the edges: TMA's loads fill zeros there (which
    # add nothing) and its stores write only inside C.
    steps = property(lambda self: -(-self.k // self.bk))
    # M and N: constants, or inside the kernel the launch's.
    rows = property(lambda self: self.m if self.m is not None else self.at_launch[0])
    cols = property(lambda self: self.n if self.n is not None else self.at_launch[1])
    runtime = property(lambda self: self.m is None or self.n is None)
    # (rows + bm - 1) // bm, not -(-rows // bm): a runtime M stays known
    # non-negative, so the unit arithmetic divides unsigned. A bounded M's
    # are its bound's (past the rows, a tile loads zeros and stores nothing).
    tiles_m = property(lambda self: (self.rows_bound + self.bm - 1) // self.bm)
    rows_bound = property(lambda self: self.max_m if self.max_m is not None else self.rows)
    # The units (and so the blocks) are constants: M is, or is bounded (a
    # runtime N is at most one tile's columns).
    fixed_units = property(lambda self: self.m is not None or self.max_m is not None)
    # A runtime N is at most one tile's columns (_body traps past them).
    tiles_n = property(lambda self: 1 if self.n is None else -(-self.n // self.config.bn))
    tiles = property(lambda self: self.tiles_m * self.tiles_n)
    split = property(lambda self: self.config.split_k)
    # The accumulators go to a float32 workspace: split along K, or asked.
    to_workspace = property(lambda self: self.split > 1 or self.partial)
    slice_steps = property(lambda self: self.steps // self.split)  # a unit's steps: a tile's, or a slice's
    units = property(lambda self: self.tiles * self.split)
    # The persistent blocks: as many as there are units, at most
    # config.blocks (a kernel of runtime sizes is launched on as many, and
    # checks it); where the units are not constants, the launch's grid
    # (config.grid()).
    blocks = property(lambda self: min(self.config.blocks, self.units) if self.fixed_units else self.at_launch[2])
    grid = property(lambda self: None if self.runtime else self.blocks)

    def bound(self, A, B) -> "_Geometry":
        """The geometry inside the kernel: runtime M and N read once from
        A's and Bt's descriptors (their rows), the blocks from the grid."""
        if not self.runtime:
            return self
        return replace(self, at_launch=(A.extent(0), B.extent(0), T.grid_dim()))

    def round_of(self, unit):
        """The block's round that takes `unit` (a unit bid + r x blocks is
        round r): unit // blocks, as the block id is below the blocks. Not
        (unit - bid) // blocks, whose dividend may be negative as far as
        the index ranges know: a signed 64-bit division a unit, and a
        signed ring index in every step's stage and phase arithmetic."""
        return unit // self.blocks

    def unit(self, unit):
        """(tile, slice) of a unit of work: a tile, or slice unit % split
        of tile unit / split (its steps of K from slice x slice_steps)."""
        if self.split == 1:
            return unit, 0
        return unit // self.split, unit % self.split
    regs = property(lambda self: self.config.bn // 2)
    # The accumulator registers whose columns may be inside C: all, or
    # with max_n those of the first ceil(max_n / 8) blocks of 8 columns
    # (register e holds a column of block e // 4: pipelining's
    # WgmmaAccumulator), registers 0 to 4 ceil(max_n / 8) - 1.
    live_regs = property(lambda self: self.regs if self.max_n is None else min(self.regs,
                                                                                4 * -(-self.max_n // 8)))
    chunk_cols = property(lambda self: self.config.bn // DEFERRED_STEPS)
    out_kind = property(lambda self: OUT_KINDS[self.out_dtype] if self.out_dtype else
                        "bf16" if self.fp8 else KINDS[self.dtype])

    @property
    def order(self):
        # A grid of a partial last group walks row by row: the order that
        # was measured (GroupedTiles' partial groups are not, for this
        # kernel: the 8 bf16 shapes at M 1,024 would change). A runtime M
        # chooses between the two when it runs.
        grouped = GroupedTiles(self.tiles_n, self.config.group_m, self.bm, self.config.bn)
        by_rows = GroupedTiles(self.tiles_n, 1, self.bm, self.config.bn)
        if self.config.group_m == 1:
            return by_rows
        if not self.fixed_units:
            return EitherTiles(self.tiles_m % self.config.group_m == 0, grouped, by_rows)
        return grouped if self.tiles_m % self.config.group_m == 0 else by_rows

    @property
    def wgmma(self) -> str:
        kind = KINDS[self.dtype]
        return f"wgmma.mma_async.sync.aligned.m64n{self.config.bn}k{self.k_step}.f32.{kind}.{kind}"


def _wgmma_step(g: _Geometry, acc, a_s, b_s, slot, a_row, accumulate, fresh=None):
    """One step of K: four wgmma over the 64 rows of A from `a_row` and all
    of Bt's tile in `slot`, committed; then wait until the step before has
    retired. Only 16-bit inputs take the transpose immediates. `fresh`, a
    false predicate, is the first wgmma's scale-d: it starts the
    accumulators at A B, whatever they held."""
    T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    transposes = [] if g.fp8 else [T.uint32(0), T.uint32(0)]
    for kk in range(4):
        ks = slice(g.k_step * kk, g.k_step * (kk + 1))
        b_desc = b_s[slot, 0:g.config.bn, ks].matrix_descriptor()
        a_desc = a_s[slot, a_row:a_row + 64, ks].matrix_descriptor()
        scale_d = fresh if fresh is not None and kk == 0 else accumulate
        T.cuda.tile.apply(T.ptx[g.wgmma], acc, a_desc, b_desc, scale_d, T.int32(1), T.int32(1), *transposes)
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(1))


def _produce(g: _Geometry, A, B, a_s, b_s, ring, bid):
    """Thread 0 of the producer: each step of each of the block's tiles,
    once its slot is free, expects the two boxes' bytes and loads them."""
    for unit in T.serial(bid, g.units, g.blocks):
        tile, part = g.unit(unit)
        row0, col0 = g.order.origin(tile)
        first = g.round_of(unit) * g.slice_steps
        for kt in T.serial(0, g.slice_steps):
            put = PipelineState.producer(g.config.stages, first + kt)
            ring.acquire(put)
            ring.expect(put, (g.bm + g.config.bn) * 128)
            k = (kt + part * g.slice_steps) * g.bk if g.split > 1 else kt * g.bk
            T.cuda.tile.apply(T.ptx[TMA_LOAD], a_s[put.stage], A.tensor_map, (k, row0), ring.full(put))
            T.cuda.tile.apply(T.ptx[TMA_LOAD], b_s[put.stage], B.tensor_map, (k, col0), ring.full(put))


class _DeferredStore:
    """A consumer's rounded pairs of its previous tile (element i holds
    accumulator pair 2i) and their store, chunk by chunk: stmatrix into the
    consumer's shared buffer, then one TMA box of 64 rows by
    `chunk_cols` columns."""

    def __init__(self, g: _Geometry, C, c_s, c, barriers, scale=None):
        self.g, self.C, self.c_s, self.c, self.barriers, self.scale = g, C, c_s, c, barriers, scale
        self.packed = T.alloc_local((1, 1, g.regs // 2), "uint32")

    def round(self, acc, tile, warp, lane):
        """The tile's accumulators, times the scales if there are any
        (mul.rn.f32), rounded to pairs (cvt.rn.*x2.f32 d, a, b puts a in the
        upper half: the pair's second column)."""
        if self.g.scales == "tensor":
            flat = acc.reshape((self.g.regs, 1))
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, self.scale.broadcast((self.g.regs, 1)))
        elif self.g.scales == "row":
            self._scale_rows(acc, tile, warp, lane)
        for i in range(self.g.regs // 2):
            T.cuda.tile.apply(T.ptx[f"cvt.rn.{self.g.out_kind}x2.f32"], self.packed[0, 0:1, i:i + 1],
                              acc[0, 0:1, 2 * i + 1:2 * i + 2], acc[0, 0:1, 2 * i:2 * i + 1])

    def _scale_rows(self, acc, tile, warp, lane):
        """Each accumulator times its row's scale of A, then its column's
        of Bt (torch._scaled_mm's rowwise order: two roundings). Rows and
        columns past C's edges read the last scale (their results are not
        stored)."""
        g, (scale_a, scale_b) = self.g, self.scale
        row0, col0 = g.order.origin(tile)
        by_row, by_col = T.alloc_local((2, 1), "float32"), T.alloc_local((1, 2), "float32")
        places = WgmmaAccumulator(g.config.bn)
        for h in range(2):  # the thread's rows: elements 0-1 and 2-3 of each block of 8 columns
            row, _ = places.place(2 * h, warp, lane, row0 + 64 * self.c, col0)
            row = T.minimum(row, g.rows - 1)
            T.cuda.tile.apply(T.ptx["ld.global.f32"], by_row[h:h + 1], scale_a[row:row + 1])
        for i in range(g.regs // 2):
            _, col = places.place(2 * i, warp, lane, row0, col0)
            col = T.minimum(col, g.cols - 2)
            pair = acc[0, 0:1, 2 * i:2 * i + 2].reshape((2, 1))
            T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], by_col, scale_b[0:1, col:col + 2])
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], pair, pair, by_row[(i % 2):(i % 2) + 1].broadcast((2, 1)))
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], pair, pair, by_col.reshape((2, 1)))

    def store_chunk(self, tile, chunk, warp, lane, p):
        """Chunk `chunk` of `tile`'s pairs. Once the box before has been read
        (cp.async.bulk.wait_group.read, then the warpgroup's barrier),
        stmatrix writes each 16 x 16 block of a warp's fragment (packed 4j
        to 4j + 3 for the block of columns 16j); a fence for the async proxy
        and the barrier again, then one thread stores the box."""
        g, cols = self.g, self.g.chunk_cols
        row0, col0 = g.order.origin(tile)
        with T.if_(p == 0):
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
        self.barriers.sync(self.c)
        row, lane_col = stmatrix_place(warp, lane)
        first = chunk * cols // 16
        for j in range(first, first + cols // 16):
            col = 16 * (j - first) + lane_col
            T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"],
                              self.c_s[self.c, row:row + 1, col:col + 8], self.packed[0, 0:1, 4 * j:4 * j + 4])
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        self.barriers.sync(self.c)
        with T.if_(p == 0):
            T.cuda.tile.apply(T.ptx[TMA_STORE], self.C.tensor_map, (col0 + chunk * cols, row0 + 64 * self.c),
                              self.c_s[self.c])
            T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])


def _multiplier(g: _Geometry, a_s, b_s, ring, acc, t, c):
    """multiply(first, kt): step kt of the unit whose first step is the
    ring's `first`: wait for its slot, issue its wgmma (step 0 starts the
    accumulators afresh) and free the step before's slot."""
    p, stages = t % 128, g.config.stages
    accumulate, fresh = t < g.threads, t >= g.threads  # a true and a false predicate

    def multiply(first, kt):
        get = PipelineState(stages, first + kt)
        ring.wait(get)
        _wgmma_step(g, acc, a_s, b_s, get.stage, 64 * c, accumulate, fresh if isinstance(kt, int) and kt == 0
                    else None)
        if isinstance(kt, int):
            if kt >= 1:
                ring.release(get.behind(1), where=p == 0)
        else:
            ring.release(get.behind(1), where=(kt >= 1) & (p == 0))
    return multiply


def _consume_slices(g: _Geometry, a_s, b_s, ring, W, t, bid, c, finisher=None):
    """Consumer `c`'s units of a split K: each slice's steps, then its
    float32 partial stored from the registers into W[slice] (st.global,
    two columns a store; rows and columns past C's edges store nothing);
    with a `finisher` (split_k_finish.py), the tile's last slice to arrive
    sums them into C."""
    warp, lane, p = (t // 32) % 4, t % 32, t % 128
    acc = T.alloc_local((1, 1, g.regs), "float32")
    multiply = _multiplier(g, a_s, b_s, ring, acc, t, c)
    for unit in T.serial(bid, g.units, g.blocks):
        tile, part = g.unit(unit)
        row0, col0 = g.order.origin(tile)
        first = g.round_of(unit) * g.slice_steps
        multiply(first, 0)
        for kt in T.serial(1, g.slice_steps):
            multiply(first, kt)
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        ring.release(PipelineState(g.config.stages, first + g.slice_steps - 1), where=p == 0)
        places = WgmmaAccumulator(g.config.bn)
        for i in range(g.live_regs // 2):
            row, col = places.place(2 * i, warp, lane, row0 + 64 * c, col0)
            T.cuda.tile.apply(T.ptx["st.global.v2.f32"], W[part, row:row + 1, col:col + 2],
                              acc[0, 0:1, 2 * i:2 * i + 2], pred=(row < g.rows) & (col < g.cols))
        if finisher is not None:
            finisher.arrive(tile, warp, lane, p)


def _consume(g: _Geometry, a_s, b_s, ring, epilogue: _DeferredStore, t, bid, c):
    """Consumer `c`'s tiles: each step waits for its slot, issues its wgmma
    and frees the step before's slot; the previous tile's chunks are
    stored after the first steps; after the last step, the tile's pairs
    are rounded for the next tile (or the end) to store."""
    warp, lane, p = (t // 32) % 4, t % 32, t % 128
    acc = T.alloc_local((1, 1, g.regs), "float32")
    stages = g.config.stages
    multiply = _multiplier(g, a_s, b_s, ring, acc, t, c)

    # The first steps are laid out one by one, each followed by a chunk of
    # the previous tile; a K of fewer steps stores the rest after them.
    peeled = min(DEFERRED_STEPS, g.steps)
    for tile in T.serial(bid, g.tiles, g.blocks):
        first = g.round_of(tile) * g.steps
        for kt in range(DEFERRED_STEPS):
            if kt < peeled:
                multiply(first, kt)
            with T.if_(tile != bid):
                epilogue.store_chunk(tile - g.blocks, kt, warp, lane, p)
        if g.steps > peeled:
            for kt in T.serial(peeled, g.steps):
                multiply(first, kt)
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        ring.release(PipelineState(stages, first + g.steps - 1), where=p == 0)
        epilogue.round(acc, tile, warp, lane)
    with T.if_(bid < g.tiles):
        last = bid + (g.tiles - 1 - bid) // g.blocks * g.blocks
        for chunk in range(DEFERRED_STEPS):
            epilogue.store_chunk(last, chunk, warp, lane, p)
    with T.if_(p == 0):
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))


def scale_product(ScaleA, ScaleB):
    """The product of the two scalar scales, in a register: scale_a x
    scale_b, rounded once (the order stated: the accumulators are then
    multiplied by it, and rounded to C's type)."""
    scale, other = T.alloc_local((1, 1), "float32"), T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], scale, ScaleA)
    T.cuda.tile.apply(T.ptx["ld.global.f32"], other, ScaleB)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], scale, scale, other)
    return scale


def hopper_gemm(m: int, n: int, k: int, dtype: str = "bfloat16", config: "HopperGemmConfig | None" = None,
                scaled=False, out_dtype: Optional[str] = None, partial: bool = False,
                finish: Optional[SplitKFinish] = None, max_m: Optional[int] = None,
                max_n: Optional[int] = None):
    """The kernel for one problem: a T.function of (A, Bt, C), or with
    `scaled` of (A, Bt, C, ScaleA, ScaleB) float32 in global memory:
    True (or "tensor"), two scalars (1, 1) (torch._scaled_mm's per-tensor
    scales) by whose product the accumulators are multiplied; "row",
    ScaleA (M, 1) and ScaleB (1, N) (its rowwise scales): each accumulator
    times its row's, then its column's. Then C's rounding, to `out_dtype`
    ("bfloat16" or "float16"; the inputs' type, bf16 for e4m3, by
    default). With `config.split_k` > 1: the partial GEMM, of (A, Bt, W),
    W (split_k, M, N rounded up to 8) float32, each slice of K's partial
    (any N); its scales and rounding are gemm_reduce.split_k_reduce's; so
    with `partial`, unsplit (W (1, M, N rounded up to 8): a float32 C).
    With `finish` (a SplitKFinish), one launch: (A, Bt, W, C, Counters,
    [ScaleA, ScaleB]), the last slice of each tile to arrive sums W into C
    (split_k_finish.py; Counters (tiles x consumers, 1) uint32, zero).

    `m` None: one kernel for any M, read from A's rows when it runs (the
    tensors' M axes runtime extents), launched with config.grid(M, n)
    blocks; `n` None likewise from Bt's rows, at most config.bn (swap-AB's
    short M as the kernel's N; a launch past it traps), for the float32
    workspace only. `max_m` (with `m` None): M is at most max_m (a launch
    past it traps), so the kernel's tiles and blocks are those of max_m,
    constants, as a constant M's are (a short M's loops fold; it is
    launched on config.grid(max_m, n) blocks, checked: another grid traps).
    A runtime N alone keeps them constant too (and checks the grid);
    `max_n` (with `n` None) bounds it (a launch past it traps), so that the
    accumulators of the columns past it are neither stored nor summed."""
    scales = {False: "none", True: "tensor"}.get(scaled, scaled)
    g = _Geometry(m, n, k, dtype, config or HopperGemmConfig.best(dtype), scales, out_dtype, partial or bool(finish),
                  max_m=max_m, max_n=max_n)
    a_param = T.Tensor((m, k), g.bits, tma=T.TensorMap((g.bm, g.bk), "128B"))
    b_param = T.Tensor((n, k), g.bits, tma=T.TensorMap((g.config.bn, g.bk), "128B"))
    w_param = T.Tensor((g.split, m, None if n is None else -(-n // 8) * 8), "float32")
    if finish is not None:
        return _one_pass_split(g, finish, a_param, b_param, w_param)
    if g.to_workspace:
        @T.function
        def gemm_partial(A: a_param, B: b_param, W: w_param):
            _body(g, A, B, W)
        return gemm_partial
    c_param = T.Tensor((m, n), "uint16", tma=T.TensorMap((64, g.chunk_cols), CHUNK_SWIZZLE[g.chunk_cols]))
    if scales == "none":
        @T.function
        def gemm(A: a_param, B: b_param, C: c_param):
            _body(g, A, B, C)
        return gemm
    shapes = ((1, 1), (1, 1)) if scales == "tensor" else ((m, 1), (1, n))

    @T.function
    def gemm(A: a_param, B: b_param, C: c_param, ScaleA: T.Tensor(shapes[0], "float32"),
             ScaleB: T.Tensor(shapes[1], "float32")):
        _body(g, A, B, C, ScaleA, ScaleB)
    return gemm


def _one_pass_split(g: _Geometry, finish: SplitKFinish, a_param, b_param, w_param):
    """hopper_gemm's kernel with `finish`: the partials, and the tile's sum
    by its last slice, in one launch."""
    if not finish.transposed and finish.kind and g.n % 2:
        raise ValueError(f"C's 16-bit pairs take an even N, got {g.n}")
    c_param = T.Tensor(finish.c_shape(g.m, g.n), "float32" if finish.kind is None else "uint16")
    counters = T.Tensor((None if g.m is None else g.tiles * g.config.consumers, 1), "uint32")
    if finish.scales == "none":
        @T.function
        def gemm_split(A: a_param, B: b_param, W: w_param, C: c_param, Counters: counters):
            _body(g, A, B, W, finish=(finish, C, Counters))
        return gemm_split
    shapes = finish.scale_shapes(g.m, g.n)

    @T.function
    def gemm_split(A: a_param, B: b_param, W: w_param, C: c_param, Counters: counters,
                   ScaleA: T.Tensor(shapes[0], "float32"), ScaleB: T.Tensor(shapes[1], "float32")):
        _body(g, A, B, W, ScaleA, ScaleB, finish=(finish, C, Counters))
    return gemm_split


def _body(g: _Geometry, A, B, C, ScaleA=None, ScaleB=None, finish=None):
    """The kernel's body: shared memory, the ring, then the roles. `C` is
    the workspace W where the accumulators go there; `finish`, (how, C,
    Counters) of a one-launch split (split_k_finish.py)."""
    cfg = g.config
    T.device_entry(launch=T.cuda.LaunchConfig(grid=g.grid, block=g.threads))
    g = g.bound(A, B)
    if g.n is None:
        # A runtime N is one tile's columns at most (tiles_n is 1), and
        # max_n's: past them the kernel would leave C's last columns
        # unwritten.
        with T.if_(g.cols > (g.max_n or cfg.bn)):
            T.cuda.tile.apply(T.ptx["trap"])
    if g.max_m is not None:
        with T.if_(g.rows > g.max_m):  # its tiles would not cover A's rows
            T.cuda.tile.apply(T.ptx["trap"])
    if g.runtime and g.fixed_units:
        # Constant units dealt over constant blocks: a launch on another
        # grid would run some units twice, or none.
        with T.if_(g.at_launch[2] != g.blocks):
            T.cuda.tile.apply(T.ptx["trap"])
    a_s = T.alloc_dynamic_shared((cfg.stages, g.bm, g.bk), g.bits, align=1024).swizzle("128B")
    b_s = T.alloc_dynamic_shared((cfg.stages, cfg.bn, g.bk), g.bits, align=1024).swizzle("128B")
    if not g.to_workspace:
        c_s = T.alloc_dynamic_shared((cfg.consumers, 64, g.chunk_cols), "uint16", align=1024).swizzle(
            CHUNK_SWIZZLE[g.chunk_cols])
    if finish:
        slot = T.alloc_dynamic_shared((cfg.consumers, 1), "uint32")  # each consumer's count, handed round
    t, bid = T.thread_id(), T.block_id()
    ring = TmaRing(cfg.stages, consumers=cfg.consumers)
    ring.init(where=t == 0)
    sync_block()
    stores = NamedBarriers().allocate("stores", threads=128, count=cfg.consumers)
    roles = WarpgroupRoles(t, (cfg.producer_regs, cfg.consumer_regs))
    with roles.producer():
        with T.if_(roles.p == 0):
            _produce(g, A, B, a_s, b_s, ring, bid)
    with roles.consumers() as c:
        scales = finish[0].scales if finish else g.scales
        scale = None  # per tensor: the product, in a register; rowwise: the scales' tensors
        if scales == "tensor":
            scale = scale_product(ScaleA, ScaleB)
        elif scales == "row":
            scale = (ScaleA, ScaleB)
        if g.to_workspace:
            finisher = finish and TileFinisher(g, finish[0], (C, *finish[1:]), slot, stores, c, scale)
            _consume_slices(g, a_s, b_s, ring, C, t, bid, c, finisher)
            return
        _consume(g, a_s, b_s, ring, _DeferredStore(g, C, c_s, c, stores, scale), t, bid, c)
