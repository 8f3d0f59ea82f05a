"""The kernels' configurations: plain frozen dataclasses, importable
without MLIR (the ops choose among them on a GPU machine that runs
precompiled kernels). Each kernel module re-exports its own."""

from dataclasses import dataclass
from typing import Optional, Tuple

from .reference.rmsnorm import THREADS

@dataclass(frozen=True)
class HopperGemmConfig:
    """The block tile and schedule: `consumers` warpgroups of 64 rows by
    `bn` columns, a ring of `stages` slots, `blocks` persistent blocks
    taking tiles in groups of `group_m` tile rows, setmaxnreg's registers
    for the producer and the consumers; `split_k` > 1: each tile's steps of
    K in that many slices, each slice a unit of work whose float32 partial
    a second kernel sums (kernels/gemm_reduce.py): a short M's few tiles
    spread over the SMs."""

    bn: int = 256
    consumers: int = 2
    stages: int = 4
    group_m: int = 16
    blocks: int = 128
    producer_regs: int = 40
    consumer_regs: int = 232
    split_k: int = 1

    def tiles(self, m: int, n: int) -> int:
        """The tiles of an m x n C: the consumers' 64 rows each by `bn`
        columns (the last ones partial)."""
        return -(-m // (64 * self.consumers)) * -(-n // self.bn)

    def grid(self, m: int, n: int) -> int:
        """The persistent blocks of an m x n C: one a unit of work (a tile,
        or a slice of one), at most `blocks`; a kernel of runtime sizes is
        launched with it."""
        return min(self.blocks, self.tiles(m, n) * self.split_k)

    @classmethod
    def best(cls, dtype: str):
        """The configuration that won on the H200 (bench/README.md):
        128 blocks in groups of 16 for the 16-bit types, one block an SM
        (132) in groups of 8 for e4m3."""
        return cls(blocks=132, group_m=8) if dtype == "e4m3" else cls()

@dataclass(frozen=True)
class AttentionConfig:
    """The rings and the schedule: `stages` slots of K and V (or V in
    `v_stages` of its own), `q_buffers` of Q (2: the next tile's Q loaded
    a tile ahead), whether O's stage is freed after the next tile's first
    S (`defer_free`) or at once, `blocks` persistent blocks, setmaxnreg's
    registers for the producer and the consumers; `splits` > 1: each
    tile's keys in that many parts, each a unit of work whose float32 O, m
    and l a second kernel merges (split-KV, flash-decoding: a few query
    rows over many keys spread over the SMs; kernels/attention_combine.py),
    or with `one_launch`, by each tile's last part in the kernel's own
    launch (attention_combine.LaunchMerge)."""

    stages: int = 3
    v_stages: Optional[int] = None
    q_buffers: int = 1
    defer_free: bool = True
    blocks: int = 132
    producer_regs: int = 24
    consumer_regs: int = 240
    splits: int = 1
    one_launch: bool = False

    @classmethod
    def best(cls, d: int, causal: bool, seq: int):
        """The configuration that won on the H200 for each entry of
        the attention benchmark (B 4, H 16): two buffers of Q where they fit and
        gained (d 64 but causal beyond S 2048; d 128 to S 2048, with V in a
        ring of 2), 4 or 5 stages at d 64, 3 at d 128."""
        if d == 64 and not causal:
            return cls(stages=4, q_buffers=2)
        if d == 64:
            return cls(stages=5, q_buffers=2) if seq <= 2048 else cls(stages=5, defer_free=False)
        return cls(stages=3, v_stages=2, q_buffers=2) if seq <= 2048 else cls(stages=3)

ATTENTION_BM, ATTENTION_BN = 128, 128  # the attention kernel's query rows a tile and keys a step


def split_refusal(keys: int, splits: int, diagonal: Optional[int] = None) -> Optional[str]:
    """Why the attention kernel cannot split `keys` keys in `splits` parts
    of whole key blocks (ceil(blocks / splits) each), or None: every part
    must hold a key, and causal (`diagonal`, S_k - S_q) the last part must
    start at a key every row sees. The kernel raises it; the op's tuner
    times only counts it takes."""
    steps = -(-keys // ATTENTION_BN)
    chunk = -(-steps // splits) if splits >= 1 else 0
    if splits < 1 or (splits - 1) * chunk >= steps:
        return f"{steps} key blocks do not split in {splits} parts of whole key blocks, each with a key"
    first = (splits - 1) * chunk * ATTENTION_BN
    if splits > 1 and diagonal is not None and first > diagonal:
        return (f"causal, the last of {splits} parts of the keys starts at key {first}, which query 0 does not "
                f"see (it sees keys up to {diagonal}): every row sees a key of every part")
    return None


@dataclass(frozen=True)
class MmaGemmConfig:
    """The (M, N, K) block tile (K in elements: 128 bytes), the (M, N) grid
    of warps over it, the stages of boxes in flight and the grouping of
    block rows (Triton's order, for L2)."""

    block: Tuple[int, int, int] = (128, 256, 64)
    warps: Tuple[int, int] = (2, 4)
    stages: int = 4
    group_m: int = 8

    @classmethod
    def best(cls, m: int, dtype: str):
        """What won on the H200 (bench/README.md): 128 x 256 blocks of 64 x
        64 warp tiles, 4 stages; a skinny M (64 or less) 64 x 32 blocks
        with 8 stages, two blocks a multiprocessor."""
        bk = 128 if dtype == "int8" else 64
        if m <= 64:
            return cls(block=(64, 32, bk), warps=(2, 1), stages=8, group_m=1)
        return cls(block=(128, 256, bk))

@dataclass(frozen=True)
class RmsNormConfig:
    """`threads` a row, and the L2 eviction priority of x's loads and of
    Out's stores (createpolicy.fractional and .L2::cache_hint), or None."""

    threads: int = THREADS
    x_priority: Optional[str] = None
    out_priority: Optional[str] = None

    @classmethod
    def best(cls, dtype: str, width: int = 4096):
        """What won on the H200 (bench/README.md): float32 with 512 threads,
        x kept in L2 (evict_last) and Out evicted first, at torch.compile's
        speed where no layout without the policies reached it; bf16 plain.
        Rows of another width take rows.threads_for's threads (`threads`
        applies to float32 rows of 4096)."""
        if dtype == "float32":
            return cls(threads=512 if width == 4096 else THREADS, x_priority="evict_last",
                       out_priority="evict_first")
        return cls()

@dataclass(frozen=True)
class SumConfig:
    """`blocks` blocks, each taking its grid-strided share (2048 won on the
    H200: 1.057x torch.compile, against 1.051x with 1024)."""

    blocks: int = 2048


@dataclass(frozen=True)
class SoftmaxConfig:
    """The L2 eviction priority of the float32 kernel's loads of x and
    stores of Out (createpolicy.fractional and .L2::cache_hint), or None."""

    x_priority: Optional[str] = None
    out_priority: Optional[str] = None

    @classmethod
    def best(cls, dtype: str):
        """Plain: the policies have not been measured on softmax yet."""
        return cls()

# A one-launch split-K's C (kernels/split_k_finish.py): its types and scales.
FINISH_C_KINDS = {"bfloat16": "bf16", "float16": "f16", "float32": None}
FINISH_SCALES = ("none", "tensor", "row")


@dataclass(frozen=True)
class SplitKFinish:
    """What the last slice's block makes of a tile: C's type (bfloat16,
    float16 or float32, the accumulators as they are), the scales (as
    gemm_hopper takes them) and whether C is the GEMM's transpose."""

    out_dtype: str = "bfloat16"
    scales: str = "none"
    transposed: bool = False

    def __post_init__(self):
        if self.out_dtype not in FINISH_C_KINDS or self.scales not in FINISH_SCALES:
            raise ValueError(f"C is one of {sorted(FINISH_C_KINDS)} and scales one of {FINISH_SCALES}, got "
                             f"{self.out_dtype!r}, {self.scales!r}")

    kind = property(lambda self: FINISH_C_KINDS[self.out_dtype])

    def c_shape(self, m, n):
        """C's shape for a GEMM of m x n."""
        return (n, m) if self.transposed else (m, n)

    def scale_shapes(self, m, n):
        """ScaleA's and ScaleB's: (1, 1) each, or rowwise (C's rows, 1) and (1, C's columns)."""
        rows, cols = self.c_shape(m, n)
        return ((1, 1), (1, 1)) if self.scales == "tensor" else ((rows, 1), (1, cols))


SPLIT_K_REDUCE_THREADS = 256  # gemm_reduce.split_k_reduce's block


def split_k_reduce_grid(m: int, n: int) -> int:
    """The blocks of gemm_reduce.split_k_reduce for an m x n C: one vector
    of four columns a thread, at most 8 blocks an SM of 132 (each block
    then loops)."""
    return min(-(-(m * n // 4) // SPLIT_K_REDUCE_THREADS), 132 * 8)


@dataclass(frozen=True)
class GroupedGemmConfig:
    """The block tile: `consumers` warpgroups of 64 rows by `bn` columns, a
    ring of `stages` slots; `blocks` persistent blocks taking the tiles in
    turn (one an SM of an H100), an expert's tiles (the masked layout) or
    the schedule's (contiguous) in groups of `group_m` tile rows, column by
    column within a group (GroupedTiles: blocks running at once share rows
    of A and columns of B in L2); setmaxnreg's registers for the producer
    and the consumers."""

    bn: int = 128
    consumers: int = 2
    stages: int = 4
    blocks: int = 132
    group_m: int = 8
    producer_regs: int = 40
    consumer_regs: int = 232

    def __post_init__(self):
        if self.group_m < 1:
            raise ValueError(f"group_m is at least 1, got {self.group_m}")
        if self.bn not in (64, 128, 256):
            raise ValueError(f"bn is 64, 128 or 256, got {self.bn}")
        if self.consumers not in (1, 2):
            raise ValueError(f"a block has 1 or 2 consumer warpgroups, got {self.consumers}")
        if self.stages < 2:
            raise ValueError(f"the ring has at least 2 slots, got {self.stages}")
        if self.blocks < 1:
            raise ValueError(f"at least one block, got {self.blocks}")
