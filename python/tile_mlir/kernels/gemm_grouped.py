"""Grouped GEMM for mixture-of-experts layers (issue 59, first step): C_e =
A_e B_e^T for each expert e, on Hopper's warpgroup tensor cores, in the
masked layout (DeepGEMM's, for CUDA-graph decode): every expert has the
same capacity of rows and its own count of them in use, read on the
device, so one launch with a fixed grid serves any counts.

    A (E, capacity, K), Bt (E, N, K): bf16 or fp16 bits (uint16), K-major;
    Counts (E, 1) int32: the rows of each expert in use (0 to capacity);
    C (E, capacity, N) of the inputs' type: rows below the count written,
    the others never touched.

A block a tile of one expert: `consumers` warpgroups of 64 rows by `bn`
columns. A tile whose first row is at or past its expert's count does
nothing past reading the count (an expert of 0 tokens costs its blocks a
load each). Otherwise warpgroup 0's thread 0 loads each step of K (64
elements, one 128-byte swizzled row) of A's and Bt's tiles by TMA into a
ring of `stages` slots, and each consumer multiplies its 64 rows (four
wgmma a step, the step before retired before its slot is freed). The
epilogue rounds each pair of accumulators once and stores it from the
registers, predicated on the row being below the count: a TMA box
would write the unused rows. Rows past the count that a tile loads are
other tokens' or zeros (A's map ends at the capacity) and are never
stored.

On integer-valued data small enough that every partial sum is exact, C
equals numpy bit for bit (test_kernels_gemm_grouped.py).
"""

from dataclasses import dataclass

from .. import script as T
from ..pipelining import PipelineState, TmaRing, WarpgroupRoles, sync_block
from ..pipelining.epilogues import store_pairs
from .rows import KINDS

# No `from __future__ import annotations`: T.function reads the kernel's
# parameter annotations as objects.

BK = 64  # a step of K: one 128-byte row of 16-bit elements
TMA_LOAD = "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"


@dataclass(frozen=True)
class GroupedGemmConfig:
    """The block tile: `consumers` warpgroups of 64 rows by `bn` columns, a
    ring of `stages` slots; setmaxnreg's registers for the producer and
    the consumers."""

    bn: int = 128
    consumers: int = 2
    stages: int = 4
    producer_regs: int = 40
    consumer_regs: int = 232

    def __post_init__(self):
        if self.bn not in (64, 128, 256):
            raise ValueError(f"bn is 64, 128 or 256, got {self.bn}")
        if self.consumers not in (1, 2):
            raise ValueError(f"a block has 1 or 2 consumer warpgroups, got {self.consumers}")
        if self.stages < 2:
            raise ValueError(f"the ring has at least 2 slots, got {self.stages}")


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
        if self.dtype not in KINDS:
            raise ValueError(f"dtype is one of {sorted(KINDS)}, got {self.dtype!r}")
        if min(self.experts, self.capacity, self.n, self.k) < 1:
            raise ValueError(f"an empty problem: {self.experts} experts of {self.capacity} rows, "
                             f"{self.n} x {self.k}")
        if self.k % 8:
            raise ValueError(f"K {self.k}: TMA's rows are whole 16 bytes (K a multiple of 8)")
        if self.n % config.bn:
            raise ValueError(f"N {self.n} is not a multiple of the tile's {config.bn} columns")


class _Tiles:
    """Block `bid`'s tile: its expert, first row and first column."""

    def __init__(self, problem: MaskedProblem, config: GroupedGemmConfig, bid):
        self.bm = 64 * config.consumers
        self.tiles_m = -(-problem.capacity // self.bm)
        self.tiles_n = problem.n // config.bn
        per_expert = self.tiles_m * self.tiles_n
        self.count = problem.experts * per_expert
        self.expert = bid // per_expert
        within = bid % per_expert
        self.row0, self.col0 = within // self.tiles_n * self.bm, within % self.tiles_n * config.bn


def grouped_gemm_masked(problem: MaskedProblem, config: GroupedGemmConfig = GroupedGemmConfig()):
    """The kernel of `problem` (module docstring): a T.function of (A, Bt,
    C, Counts)."""
    problem.check(config)
    e, cap, n, k = problem.experts, problem.capacity, problem.n, problem.k
    bm = 64 * config.consumers
    a_param = T.Tensor((e, cap, k), "uint16", tma=T.TensorMap((1, bm, BK), "128B"))
    b_param = T.Tensor((e, n, k), "uint16", tma=T.TensorMap((1, config.bn, BK), "128B"))
    c_param = T.Tensor((e, cap, n), "uint16")

    @T.function
    def grouped_gemm(A: a_param, B: b_param, C: c_param, Counts: T.Tensor((e, 1), "int32")):
        _body(problem, config, (A, B, Counts), C)
    return grouped_gemm


def _body(problem: MaskedProblem, config: GroupedGemmConfig, inputs, C):
    A, B, Counts = inputs
    bm = 64 * config.consumers
    t, bid = T.thread_id(), T.block_id()
    tiles = _Tiles(problem, config, bid)
    T.device_entry(launch=T.cuda.LaunchConfig(grid=tiles.count, block=128 * (config.consumers + 1)))
    a_s = T.alloc_dynamic_shared((config.stages, bm, BK), "uint16", align=1024).swizzle("128B")
    b_s = T.alloc_dynamic_shared((config.stages, config.bn, BK), "uint16", align=1024).swizzle("128B")
    held = T.alloc_local((1, 1), "int32")
    T.cuda.tile.apply(T.ptx["ld.global.s32"], held, Counts[tiles.expert:tiles.expert + 1])
    # A count past the capacity (or negative) is a caller's bug: the
    # interpreter reports it at this line; the GPU takes it clamped.
    count = held.as_index(problem.capacity + 1)
    ring = TmaRing(config.stages, consumers=config.consumers)
    ring.init(where=t == 0)
    sync_block()
    steps = -(-problem.k // BK)
    roles = WarpgroupRoles(t, (config.producer_regs, config.consumer_regs))
    with T.if_(tiles.row0 < count):
        with roles.producer():
            with T.if_(roles.p == 0):
                _produce(tiles, (A, B), (a_s, b_s), ring, steps)
        with roles.consumers() as c:
            _consume(problem, config, (a_s, b_s, ring), (tiles, c, t), (C, count, steps))


def _produce(tiles: _Tiles, tensors, buffers, ring, steps):
    """Each step of K, once its slot is free: the A and Bt boxes."""
    (A, B), (a_s, b_s) = tensors, buffers
    for kt in T.serial(0, steps):
        put = PipelineState.producer(ring.stages, kt)
        ring.acquire(put)
        ring.expect(put, (a_s.shape[1] + b_s.shape[1]) * BK * 2)
        T.cuda.tile.apply(T.ptx[TMA_LOAD], a_s[put.stage].reshape((1, a_s.shape[1], BK)), A.tensor_map,
                          (kt * BK, tiles.row0, tiles.expert), ring.full(put))
        T.cuda.tile.apply(T.ptx[TMA_LOAD], b_s[put.stage].reshape((1, b_s.shape[1], BK)), B.tensor_map,
                          (kt * BK, tiles.col0, tiles.expert), ring.full(put))


def _consume(problem: MaskedProblem, config: GroupedGemmConfig, pipeline, who, outputs):
    """Consumer `c`'s 64 rows: each step waits for its slot, issues four
    wgmma (the first step's first starts the accumulators at A B) and
    frees the step before's slot once it has retired; then the rows below
    the count, rounded, from the registers."""
    (a_s, b_s, ring), (tiles, c, t), (C, count, steps) = pipeline, who, outputs
    kind = KINDS[problem.dtype]
    wgmma = f"wgmma.mma_async.sync.aligned.m64n{config.bn}k16.f32.{kind}.{kind}"
    threads = 128 * (config.consumers + 1)
    accumulate, fresh = t < threads, t >= threads  # a true and a false predicate
    p = t % 128
    acc = T.alloc_local((1, 1, config.bn // 2), "float32")

    def step(kt, first):
        """Step kt: wait for its slot, four wgmma (the first step's first
        with a false scale-d: D = A B), commit, retire the step before."""
        get = PipelineState(ring.stages, kt)
        ring.wait(get)
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        for kk in range(BK // 16):
            a_desc = a_s[get.stage, 64 * c:64 * c + 64, 16 * kk:16 * kk + 16].matrix_descriptor()
            b_desc = b_s[get.stage, 0:config.bn, 16 * kk:16 * kk + 16].matrix_descriptor()
            T.cuda.tile.apply(T.ptx[wgmma], acc, a_desc, b_desc, fresh if first and kk == 0 else accumulate,
                              T.int32(1), T.int32(1), T.uint32(0), T.uint32(0))
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(1))
        if not first:
            ring.release(get.behind(1), where=p == 0)
    step(0, True)
    for kt in T.serial(1, steps):
        step(kt, False)
    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
    ring.release(PipelineState(ring.stages, steps - 1), where=p == 0)
    out = C[tiles.expert, :, tiles.col0:tiles.col0 + config.bn]
    store_pairs(out, acc.reshape((config.bn // 64, 1, 32)), p // 32, p % 32, tiles.row0 + 64 * c, count, kind)
