"""Grouped GEMM for mixture-of-experts layers (issue 59, first step): C_e =
A_e B_e^T for each expert e, on Hopper's warpgroup tensor cores, in the
masked layout (DeepGEMM's, for CUDA-graph decode): every expert has the
same capacity of rows and its own count of them in use, read on the
device, so one launch with a fixed grid serves any counts.

    A (E, capacity, K), Bt (E, N, K): bf16 or fp16 bits (uint16), K-major;
    Counts (E, 1) int32: the rows of each expert in use (0 to capacity);
    C (E, capacity, N) of the inputs' type: rows below the count written,
    the others never touched.

A tile is one expert's `consumers` warpgroups of 64 rows by `bn`
columns; `config.blocks` persistent blocks (one launch) take the tiles in
turn, an expert's in groups of `config.group_m` tile rows, column by
column within a group (GroupedTiles: the blocks running at once share
rows of A and columns of B in L2; row by row they read all of an
expert's B for every few rows of A). A tile whose first row is at or past its expert's count is skipped
after reading the count (an expert of 0 tokens costs a load a tile).
Otherwise warpgroup 0's thread 0 loads each step of K (64 elements, one
128-byte swizzled row) of A's and Bt's tiles by TMA into a ring of
`stages` slots that runs on across the block's tiles (each role counts
the tiles it worked, so both agree on the ring's steps), and each
consumer multiplies its 64 rows (four wgmma a step, the step before
retired before its slot is freed). The
epilogue rounds each pair of accumulators once and stores it from the
registers, predicated on the row being below the count: a TMA box
would write the unused rows. Rows past the count that a tile loads are
other tokens' or zeros (A's map ends at the capacity) and are never
stored.

The contiguous layout (grouped_gemm_contiguous: torch._grouped_mm's)
has the experts' rows back to back, A (rows, K) and C (rows, N); a
schedule table gives each block its tile (expert, first row, end of the
expert's rows), made from the offsets by the op on the device. A tile
that reaches into the next expert's rows loads them and stores nothing
there.

No tensor map is edited on the device (tensormap.replace): Bt's map
spans every expert's weights, (E, N, K), the expert one of its
coordinates; A's map spans all rows, an expert's rows a range of them;
and C is stored from the registers, bounded by the expert's rows. One
map each serves every expert of any size.

Block-scaled e4m3 (either layout; DeepSeek-V3's format): ScaleA, A's
1 x 128 scales (its rows by K / 128), and ScaleB, Bt's 128 x 128 ((E, N /
128, K / 128)); a step is one block of 128 of K (four wgmma k32 into a
fresh float32 partial); once it retires, the promotion outside the
tensor cores: total = fma(partial, scale_a[row] x scale_b[block], total),
the scales' product rounded once, the total from +0 (DeepGEMM promotes
at the same interval). C is bf16. K and N are multiples of 128, the
tiles 128 columns (one block of Bt's scales).

On integer-valued data small enough that every partial sum is exact
(and scales that are powers of two), C equals numpy bit for bit in the
stated order (test_kernels_gemm_grouped.py).
"""

from dataclasses import dataclass

from .. import script as T
from ..pipelining import GroupedTiles, PipelineState, TmaRing, WarpgroupRoles, WgmmaAccumulator, sync_block
from ..pipelining.epilogues import DeferredPairs
from .configs import GroupedGemmConfig
from .rows import KINDS

# No `from __future__ import annotations`: T.function reads the kernel's
# parameter annotations as objects.

STEP_BYTES = 128  # a step of K: one 128-byte swizzled row (64 16-bit elements, 128 e4m3)
SCALE_BLOCK = 128  # e4m3's block scales: 1 x 128 of A, 128 x 128 of Bt
TMA_LOAD = "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
# The deferred epilogue (16-bit inputs) stores the previous tile in this
# many chunks, one after each of the next tile's first steps.
DEFERRED_STEPS = 4


class _Types:
    """What the inputs' type makes of a step: the elements' bits, a step's
    elements, the wgmma's K and spelling, its transpose immediates (16-bit
    only), and C's 16-bit type (bf16 for e4m3)."""

    def __init__(self, dtype: str, bn: int):
        self.fp8 = dtype == "e4m3"
        self.bits = "uint8" if self.fp8 else "uint16"
        self.bk = STEP_BYTES if self.fp8 else STEP_BYTES // 2
        self.k_step = 32 if self.fp8 else 16
        kind = "e4m3" if self.fp8 else KINDS[dtype]
        self.wgmma = f"wgmma.mma_async.sync.aligned.m64n{bn}k{self.k_step}.f32.{kind}.{kind}"
        # wgmma's transpose immediates (16-bit inputs only): both K-major.
        self.transposes = () if self.fp8 else (T.uint32(0), T.uint32(0))
        self.out_kind = "bf16" if self.fp8 else kind


@dataclass(frozen=True)
class MaskedProblem:
    """E experts of `capacity` rows each, N by K weights, and the inputs'
    type."""

    experts: int
    capacity: int
    n: int
    k: int
    dtype: str = "bfloat16"

    def check(self, config: GroupedGemmConfig):
        if self.dtype not in (*KINDS, "e4m3"):
            raise ValueError(f"dtype is one of {sorted((*KINDS, 'e4m3'))}, got {self.dtype!r}")
        if self.dtype == "e4m3" and (self.k % SCALE_BLOCK or config.bn != SCALE_BLOCK):
            raise ValueError(f"e4m3 takes block scales of 128: K ({self.k}) a multiple of 128 and tiles of 128 "
                             f"columns (bn {config.bn})")
        if min(self.experts, self.capacity, self.n, self.k) < 1:
            raise ValueError(f"an empty problem: {self.experts} experts of {self.capacity} rows, "
                             f"{self.n} x {self.k}")
        if self.k % 8:
            raise ValueError(f"K {self.k}: TMA's rows are whole 16 bytes (K a multiple of 8)")
        if self.n % config.bn:
            raise ValueError(f"N {self.n} is not a multiple of the tile's {config.bn} columns")


@dataclass(frozen=True)
class ContiguousProblem:
    """E experts' rows back to back (`rows` in all), N by K weights, and
    the inputs' type."""

    experts: int
    rows: int
    n: int
    k: int
    dtype: str = "bfloat16"

    def check(self, config: GroupedGemmConfig):
        MaskedProblem(self.experts, self.rows, self.n, self.k, self.dtype).check(config)

    def table_rows(self, config: GroupedGemmConfig) -> int:
        """The schedule's tiles, at most: each expert's rows in tiles of
        64 x consumers, the last partial, so one tile an expert more than
        the rows make."""
        return -(-self.rows // (64 * config.consumers)) + self.experts


class _MaskedTiles:
    """The masked layout's tiles (`count`, each expert's in turn); at(unit):
    tile `unit`'s expert, first row (within the expert's capacity) and
    first column; the expert's count (`read`) bounds its rows."""

    def __init__(self, problem: MaskedProblem, config: GroupedGemmConfig):
        self.problem, self.bn, self.bm = problem, config.bn, 64 * config.consumers
        self.tiles_m, self.tiles_n = -(-problem.capacity // self.bm), problem.n // config.bn
        self.count = problem.experts * self.tiles_m * self.tiles_n
        # Measured on an H100 (bench/results/ops_grouped.json's run, beside
        # the walk row by row): 4.4% faster over the masked entries, though
        # 5-11% slower at a capacity of 1024, where the tile rows past a
        # count, skipped, recur every tiles_m units and the blocks' fixed
        # stride gives some blocks half the others' work. Groups of tile
        # columns, row by row, would put the skipped rows at the end of each
        # group (not measured yet).
        self.order = GroupedTiles(self.tiles_n, config.group_m, self.bm, self.bn, tiles_m=self.tiles_m)
        self.expert = self.row0 = self.col0 = self.end = None

    def at(self, unit):
        per_expert = self.tiles_m * self.tiles_n
        self.expert = unit // per_expert
        self.row0, self.col0 = self.order.origin(unit % per_expert)

    def read(self, Counts):
        """The expert's count, the rows' bound. A count past the capacity
        (or negative) is a caller's bug: the interpreter reports it at
        this line; the GPU takes it clamped."""
        held = T.alloc_local((1, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.s32"], held, Counts[self.expert:self.expert + 1])
        self.end = held.as_index(self.problem.capacity + 1)

    def a_origin(self, k):
        return (k, self.row0, self.expert)

    def rows(self, C):
        """C's rows of the tile's expert, the tile's columns."""
        return C[self.expert, :, self.col0:self.col0 + self.bn]

    def scale_rows(self, ScaleA):
        """A's block scales of the expert's rows (capacity, K / 128)."""
        return ScaleA[self.expert]


class _TableTiles:
    """The contiguous layout's tiles (`count`); at(unit): the schedule
    table's row and the columns of `unit` in groups of config.group_m
    rows (GroupedTiles over the table's rows by N's tiles). A row is
    (expert, first row, end of the expert's rows, unused), made by the op
    from the offsets on the device (ops.grouped.schedule); a row past the
    last tile has end 0 (nothing to do)."""

    def __init__(self, problem: ContiguousProblem, config: GroupedGemmConfig):
        self.problem, self.bn, self.tiles_n = problem, config.bn, problem.n // config.bn
        self.count = problem.table_rows(config) * self.tiles_n
        # Rows of 1: the origin's row is the table's row.
        self.order = GroupedTiles(self.tiles_n, config.group_m, 1, self.bn, tiles_m=problem.table_rows(config))
        self.tile = self.col0 = self.expert = self.row0 = self.end = None

    def at(self, unit):
        self.tile, self.col0 = self.order.origin(unit)

    def read(self, Table):
        """The tile's row of the table, as indices (clamped: the op makes
        every entry in range)."""
        held = T.alloc_local((1, 4), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], held.view("uint32"),
                          Table[self.tile:self.tile + 1].view("uint32"))
        self.expert = held[0:1, 0:1].as_index(self.problem.experts, mode="clamp")
        self.row0 = held[0:1, 1:2].as_index(self.problem.rows, mode="clamp")
        self.end = held[0:1, 2:3].as_index(self.problem.rows + 1, mode="clamp")

    def a_origin(self, k):
        return (k, self.row0)

    def rows(self, C):
        """C's rows (all experts'), the tile's columns."""
        return C[:, self.col0:self.col0 + self.bn]

    def scale_rows(self, ScaleA):
        """A's block scales (rows, K / 128)."""
        return ScaleA


def grouped_gemm_masked(problem: MaskedProblem, config: GroupedGemmConfig = GroupedGemmConfig()):
    """The kernel of `problem` (module docstring): a T.function of (A, Bt,
    C, Counts), and for e4m3 (ScaleA, ScaleB) after them: ScaleA (E,
    capacity, K / 128) and ScaleB (E, N / 128, K / 128) float32."""
    problem.check(config)
    e, cap, n, k = problem.experts, problem.capacity, problem.n, problem.k
    types, bm = _Types(problem.dtype, config.bn), 64 * config.consumers
    a_param = T.Tensor((e, cap, k), types.bits, tma=T.TensorMap((1, bm, types.bk), "128B"))
    b_param = T.Tensor((e, n, k), types.bits, tma=T.TensorMap((1, config.bn, types.bk), "128B"))
    c_param = T.Tensor((e, cap, n), "uint16")
    counts = T.Tensor((e, 1), "int32")
    if not types.fp8:
        @T.function
        def grouped_gemm(A: a_param, B: b_param, C: c_param, Counts: counts):
            _body(_MaskedTiles(problem, config), config, (A, B, Counts), C)
        return grouped_gemm
    scales_a, scales_b = T.Tensor((e, cap, k // SCALE_BLOCK), "float32"), _scales_b(problem)

    @T.function
    def grouped_gemm_scaled(A: a_param, B: b_param, C: c_param, Counts: counts, ScaleA: scales_a, ScaleB: scales_b):
        _body(_MaskedTiles(problem, config), config, (A, B, Counts), C, (ScaleA, ScaleB))
    return grouped_gemm_scaled


def grouped_gemm_contiguous(problem: ContiguousProblem, config: GroupedGemmConfig = GroupedGemmConfig()):
    """The kernel of the contiguous layout: a T.function of (A, Bt, C,
    Table), A (rows, K) and C (rows, N), each expert's rows back to back;
    Table (problem.table_rows(config), 4) int32 (_TableTiles); for e4m3
    (ScaleA, ScaleB) after them: ScaleA (rows, K / 128) and ScaleB (E,
    N / 128, K / 128) float32."""
    problem.check(config)
    e, rows, n, k = problem.experts, problem.rows, problem.n, problem.k
    types, bm = _Types(problem.dtype, config.bn), 64 * config.consumers
    a_param = T.Tensor((rows, k), types.bits, tma=T.TensorMap((bm, types.bk), "128B"))
    b_param = T.Tensor((e, n, k), types.bits, tma=T.TensorMap((1, config.bn, types.bk), "128B"))
    c_param = T.Tensor((rows, n), "uint16")
    table = T.Tensor((problem.table_rows(config), 4), "int32")
    if not types.fp8:
        @T.function
        def grouped_gemm(A: a_param, B: b_param, C: c_param, Table: table):
            _body(_TableTiles(problem, config), config, (A, B, Table), C)
        return grouped_gemm
    scales_a, scales_b = T.Tensor((rows, k // SCALE_BLOCK), "float32"), _scales_b(problem)

    @T.function
    def grouped_gemm_scaled(A: a_param, B: b_param, C: c_param, Table: table, ScaleA: scales_a, ScaleB: scales_b):
        _body(_TableTiles(problem, config), config, (A, B, Table), C, (ScaleA, ScaleB))
    return grouped_gemm_scaled


def _scales_b(problem):
    """Bt's 128 x 128 block scales: (E, N / 128, K / 128) float32."""
    return T.Tensor((problem.experts, problem.n // SCALE_BLOCK, problem.k // SCALE_BLOCK), "float32")


def _body(tiles, config: GroupedGemmConfig, inputs, C, scales=None):
    """Shared memory, the ring and the roles of a persistent block: each
    role takes the block's tiles in turn (_each_tile), the producer's
    thread 0 loading them, the consumers multiplying them. `scales`:
    e4m3's (ScaleA, ScaleB)."""
    A, B, schedule = inputs
    types, bm = _Types(tiles.problem.dtype, config.bn), 64 * config.consumers
    t = T.thread_id()
    grid = min(config.blocks, tiles.count)
    T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=128 * (config.consumers + 1)))
    a_s = T.alloc_dynamic_shared((config.stages, bm, types.bk), types.bits, align=1024).swizzle("128B")
    b_s = T.alloc_dynamic_shared((config.stages, config.bn, types.bk), types.bits, align=1024).swizzle("128B")
    ring = TmaRing(config.stages, consumers=config.consumers)
    ring.init(where=t == 0)
    sync_block()
    steps = -(-tiles.problem.k // types.bk)
    roles = WarpgroupRoles(t, (config.producer_regs, config.consumer_regs))
    walk = (tiles, schedule, grid, steps)
    with roles.producer():
        with T.if_(roles.p == 0):
            _each_tile(walk, lambda first, _: _produce(tiles, (A, B), (a_s, b_s), ring, (first, steps)))
    with roles.consumers() as c:
        outputs = (C, schedule, steps)
        if scales is None:
            consumer = _DeferredConsumer(tiles, config, (a_s, b_s, ring), (c, t), outputs)
        else:
            consumer = _ScaledConsumer(tiles, config, (a_s, b_s, ring), (c, t), outputs, scales)
        consumer.finish(_each_tile(walk, consumer.tile))


def _each_tile(walk, work):
    """work(first, unit) for each of the block's tiles (bid, bid + grid,
    ...) that has rows below its bound (`first`: the ring's step of its
    first step of K); a tile at or past its bound is skipped. Each role
    counts the tiles it worked in a register (returned), so the
    producer's and the consumers' ring steps agree without the skipped
    ones."""
    tiles, schedule, grid, steps = walk
    worked = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["mov.b32"], worked, T.uint32(0))
    for unit in T.serial(T.block_id(), tiles.count, grid):
        tiles.at(unit)
        tiles.read(schedule)
        with T.if_(tiles.row0 < tiles.end):
            work(worked.as_index(tiles.count + 1, mode="clamp") * steps, unit)
            T.cuda.tile.apply(T.ptx["add.u32"], worked, worked, T.uint32(1))
    return worked


def _produce(tiles, tensors, buffers, ring, counts):
    """Each step of the tile's K (the ring's steps from `first`), once its
    slot is free: the A and Bt boxes."""
    (A, B), (a_s, b_s), (first, steps) = tensors, buffers, counts
    rank, bk = len(tiles.a_origin(0)), a_s.shape[2]
    a_box = (1,) * (rank - 2) + (a_s.shape[1], bk)
    a_load = f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes"
    for kt in T.serial(0, steps):
        put = PipelineState.producer(ring.stages, first + kt)
        ring.acquire(put)
        ring.expect(put, (a_s.shape[1] + b_s.shape[1]) * STEP_BYTES)
        T.cuda.tile.apply(T.ptx[a_load], a_s[put.stage].reshape(a_box), A.tensor_map, tiles.a_origin(kt * bk),
                          ring.full(put))
        T.cuda.tile.apply(T.ptx[TMA_LOAD], b_s[put.stage].reshape((1, b_s.shape[1], bk)), B.tensor_map,
                          (kt * bk, tiles.col0, tiles.expert), ring.full(put))


class _DeferredConsumer:
    """Consumer `c`'s tiles (16-bit inputs): each step waits for its slot,
    issues four wgmma (a tile's first step's first starts the
    accumulators at A B) and frees the step before's slot once it has
    retired; the tile's accumulators are then rounded into registers
    (DeferredPairs) and stored, their rows below the bound, while the next
    tile's first DEFERRED_STEPS steps run, a chunk after each step's
    wgmma (the last tile's after the walk, `finish`). The previous tile's
    place is taken again from its unit, held in a register."""

    def __init__(self, tiles, config: GroupedGemmConfig, pipeline, who, outputs):
        (self.a_s, self.b_s, self.ring), (self.c, t), (self.C, self.schedule, self.steps) = pipeline, who, outputs
        self.tiles, self.config, self.types = tiles, config, _Types(tiles.problem.dtype, config.bn)
        self.previous = type(tiles)(tiles.problem, config)
        self.warp, self.lane, self.p = (t // 32) % 4, t % 32, t % 128
        threads = 128 * (config.consumers + 1)
        self.accumulate, self.fresh = t < threads, t >= threads  # a true and a false predicate
        self.acc = T.alloc_local((1, 1, config.bn // 2), "float32")
        self.pairs = DeferredPairs(config.bn // 64, self.types.out_kind, DEFERRED_STEPS)
        self.previous_unit = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], self.previous_unit, T.uint32(0))

    def tile(self, first_step, unit):
        """The tile of `unit`, whose first step is the ring's `first_step`
        (0: the block's first tile, with no tile before it to store)."""
        self._take_previous()
        self._begin()
        peeled = min(DEFERRED_STEPS, self.steps)
        for kt in range(DEFERRED_STEPS):
            store = self._store_after(first_step, kt)
            if kt < peeled:
                self._step(first_step, kt, store)
            else:
                store()
        for kt in T.serial(peeled, self.steps):
            self._step(first_step, kt)
        self._end(first_step)
        self.pairs.round(self._result().reshape((self.config.bn // 64, 1, 32)))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.previous_unit, T.uint32(unit))

    def finish(self, worked):
        """The last tile's pairs, once the walk has ended (if it worked any)."""
        self._take_previous()
        with T.if_(worked.as_index(self.tiles.count + 1, mode="clamp") > 0):
            for chunk in range(DEFERRED_STEPS):
                self._store(chunk)

    def _take_previous(self):
        """The previous tile's place, from its unit (unit 0 before any:
        its place is read, and nothing is stored)."""
        self.previous.at(self.previous_unit.as_index(self.tiles.count, mode="clamp"))
        self.previous.read(self.schedule)

    def _store_after(self, first_step, chunk):
        """Chunk `chunk` of the previous tile, if there is one."""
        def store():
            with T.if_(first_step > 0):
                self._store(chunk)
        return store

    def _store(self, chunk):
        self.pairs.store(self.previous.rows(self.C), chunk, self.warp, self.lane, self.previous.row0 + 64 * self.c,
                         self.previous.end)

    def _issue(self, stage, d, accumulate):
        """A step's four wgmma from slot `stage` into `d`, the first with
        `accumulate` as its scale-d."""
        types, c = self.types, self.c
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        for kk in range(types.bk // types.k_step):
            ks = slice(types.k_step * kk, types.k_step * (kk + 1))
            a_desc = self.a_s[stage, 64 * c:64 * c + 64, ks].matrix_descriptor()
            b_desc = self.b_s[stage, 0:self.config.bn, ks].matrix_descriptor()
            T.cuda.tile.apply(T.ptx[types.wgmma], d, a_desc, b_desc, accumulate if kk == 0 else self.accumulate,
                              T.int32(1), T.int32(1), *types.transposes)
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])

    def _begin(self):
        """Nothing before a tile's first step: its first wgmma starts the
        accumulators."""

    def _step(self, first_step, kt, between=None):
        """Step kt: wait for its slot, four wgmma (the first step's first
        with a false scale-d: D = A B), `between` (a chunk of the previous
        tile), retire the step before and free its slot."""
        get = PipelineState(self.ring.stages, first_step + kt)
        self.ring.wait(get)
        first = isinstance(kt, int) and kt == 0
        self._issue(get.stage, self.acc, self.fresh if first else self.accumulate)
        if between:
            between()
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(1))
        if not first:
            self.ring.release(get.behind(1), where=self.p == 0)

    def _end(self, first_step):
        """The last step retired and its slot freed."""
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        self.ring.release(PipelineState(self.ring.stages, first_step + self.steps - 1), where=self.p == 0)

    def _result(self):
        return self.acc


class _ScaledConsumer(_DeferredConsumer):
    """Consumer `c`'s tiles of e4m3 with block scales (DeepGEMM's
    promotion): each step (128 of K, one scale block) multiplies into a
    fresh float32 partial (four wgmma k32), waits for it, frees its slot,
    and adds it to the total outside the tensor cores: total = fma(partial,
    scale_a[row, step] x scale_b[tile's 128 columns, step], total), the
    scales' product rounded once, the total from +0. The total is rounded
    to bf16 and stored as the 16-bit consumer's accumulators are (the
    deferred epilogue)."""

    def __init__(self, tiles, config: GroupedGemmConfig, pipeline, who, outputs, scales):
        super().__init__(tiles, config, pipeline, who, outputs)
        self.scale_a, self.scale_b = scales
        regs = config.bn // 2
        self.part, self.total = self.acc, T.alloc_local((1, 1, regs), "float32")
        self.factor, self.other = T.alloc_local((2, 1), "float32"), T.alloc_local((1, 1), "float32")
        self.rows = None

    def _begin(self):
        """The total from +0, and the thread's two rows of the tile:
        registers 0 (row r) and 2 (row r + 8) of the D table; register e is
        on the second where e % 4 is 2 or 3."""
        regs = self.config.bn // 2
        T.cuda.tile.apply(T.ptx["mov.b32"], self.total.view("uint32").reshape((regs, 1)), T.uint32(0))
        places = WgmmaAccumulator(self.config.bn)
        self.rows = [places.place(2 * h, self.warp, self.lane, self.tiles.row0 + 64 * self.c)[0] for h in range(2)]

    def _step(self, first_step, kt, between=None):
        """The step's scales first, so that their loads' latency passes
        while the wgmma run: the thread's two rows (past the bound: the
        last row's, never stored) and the tile's column block. (A second
        partial, to promote a step while the next one's wgmma run, takes
        64 more registers than a block of 384 threads has: it spills, and
        ptxas serializes the wgmma that the promotion's reads overlap.)"""
        tiles, factor, other = self.tiles, self.factor, self.other
        scale_rows = tiles.scale_rows(self.scale_a)
        for h, row in enumerate(self.rows):
            row = T.minimum(row, scale_rows.shape[0] - 1)
            T.cuda.tile.apply(T.ptx["ld.global.f32"], factor[h:h + 1], scale_rows[row:row + 1, kt:kt + 1])
        block = tiles.col0 // SCALE_BLOCK
        T.cuda.tile.apply(T.ptx["ld.global.f32"], other, self.scale_b[tiles.expert, block:block + 1, kt:kt + 1])
        get = PipelineState(self.ring.stages, first_step + kt)
        self.ring.wait(get)
        self._issue(get.stage, self.part, self.fresh)
        if between:
            between()
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        self.ring.release(get, where=self.p == 0)
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], factor, factor, other.broadcast((2, 1)))
        for e in range(self.config.bn // 2):
            h, total = (e % 4) // 2, self.total[0, 0:1, e:e + 1]
            T.cuda.tile.apply(T.ptx["fma.rn.f32"], total, self.part[0, 0:1, e:e + 1], factor[h:h + 1], total)

    def _end(self, first_step):
        """Each step was retired and freed in turn."""

    def _result(self):
        return self.total
