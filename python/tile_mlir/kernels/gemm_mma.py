"""C = A Bt^T on the warp tensor cores (mma.sync), for GPUs before Hopper's
wgmma and for the s8 path: fp16 or bf16 A (M x K) and Bt (N x K), both
row major (K contiguous), f32 accumulators and C; or s8 A and Bt with s32
accumulators and C (mma.m16n8k32.s8, sums exact modulo 2^32).

A block of `warps` computes a `block` tile of C over steps of 128 bytes of
K (issue #30's result):

1. thread 0 copies each step as two 128-byte-swizzled TMA boxes, A's
   BM x BK and Bt's BN x BK, `stages` deep: one mbarrier a stage, which
   the boxes' bytes complete; a step's stage is refilled after the block
   barrier that shows every warp is done with it. The boxes' zero fill
   past the tensors' edges takes any M and N (and K, 16-byte rows);
2. each 16 of K loads the next one's fragments by ldmatrix before its
   own mma (double-buffered), and the last one of a step passes the
   barrier, refills, waits for the next step's boxes and loads its first
   fragments before its own mma (CUTLASS's order), so the barrier and a
   step's first ldmatrix overlap the mma of the step before. s8 tiles are
   read as b16 (16 b16 columns are one k32 mma);
3. each thread stores its accumulator pairs (rows g and g + 8, columns
   2t, 2t + 1 of each 16 x 8 block: tile_mlir.fragments), predicated to C.

On integer-valued data small enough that every partial sum is exact the
result equals numpy bit for bit (reference/gemm.py), in the interpreter
and on the H200.
"""

from dataclasses import dataclass
from typing import Optional

from .. import script as T
from .configs import MmaGemmConfig
from ..pipelining import GroupedTiles, Mbarriers, MmaAccumulator, PipelineState, sync_block

# No `from __future__ import annotations`: T.function reads the kernel's
# parameter annotations as objects.

# Per input type: the mma, the tensors' element type, C's, the epilogue's
# store, the bytes of an element.
KINDS = {
    "float16": ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "uint16", "float32", "st.global.v2.f32", 2),
    "bfloat16": ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "uint16", "float32", "st.global.v2.f32", 2),
    "int8": ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "int8", "int32", "st.global.v2.b32", 1),
}
TMA_LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"


@dataclass(frozen=True)
class _Geometry:
    m: int
    n: int
    k: int
    dtype: str
    config: MmaGemmConfig

    def __post_init__(self):
        if self.dtype not in KINDS:
            raise ValueError(f"dtype is one of {sorted(KINDS)}, got {self.dtype!r}")
        if self.bk * self.size != 128:
            raise ValueError(f"a step is 128 bytes of K: {128 // self.size} elements, not {self.bk}")
        if self.wm % 16 or self.wn % 16:
            raise ValueError(f"a {self.wm} x {self.wn} warp tile: need multiples of 16")
        if self.k * self.size % 16:
            raise ValueError(f"K {self.k}: a TMA box's rows are whole 16 bytes")
        if not 3 <= self.config.stages <= self.steps:
            raise ValueError(f"{self.config.stages} stages over {self.steps} steps of K: 3 to the steps")
        if self.blocks_m % self.config.group_m:
            raise ValueError(f"{self.blocks_m} block rows in groups of {self.config.group_m}")

    opcode = property(lambda self: KINDS[self.dtype][0])
    in_type = property(lambda self: KINDS[self.dtype][1])
    out_type = property(lambda self: KINDS[self.dtype][2])
    size = property(lambda self: KINDS[self.dtype][4])
    bm = property(lambda self: self.config.block[0])
    bn = property(lambda self: self.config.block[1])
    bk = property(lambda self: self.config.block[2])
    threads = property(lambda self: 32 * self.config.warps[0] * self.config.warps[1])
    wm = property(lambda self: self.bm // self.config.warps[0])
    wn = property(lambda self: self.bn // self.config.warps[1])
    mt = property(lambda self: self.wm // 16)
    nt = property(lambda self: self.wn // 8)
    kks = property(lambda self: 4)  # 16 b16 columns a mma, 64 a step
    steps = property(lambda self: -(-self.k // self.bk))
    blocks_m = property(lambda self: -(-self.m // self.bm))
    blocks_n = property(lambda self: -(-self.n // self.bn))
    tail = property(lambda self: bool(self.m % self.bm or self.n % self.bn))


class _Warp:
    """A warp's place in the block tile and its fragments, two slots (the
    16 of K in use and the next)."""

    def __init__(self, g: _Geometry, t):
        self.g = g
        warp, self.lane = t // 32, t % 32
        self.row, self.col = (warp // g.config.warps[1]) * g.wm, (warp % g.config.warps[1]) * g.wn
        self.a = T.alloc_local((2, g.mt, 1, 4), "uint32")
        self.b = T.alloc_local((2, g.nt, 1, 2), "uint32")

    def load(self, a_s, b_s, buffer, kk, slot):
        """The fragments of 16 of K (kk) of a stage into `slot`: A's by
        ldmatrix .x4, each lane giving row l % 8 of matrix l / 8 (matrices
        (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15)); Bt's two
        n8 blocks a ldmatrix .x4: (n 0-7, k 0-7), (n 0-7, 8-15), (n 8-15,
        0-7), (n 8-15, 8-15)."""
        lane = self.lane
        lane_row, lane_col = lane % 8 + 8 * ((lane // 8) % 2), 8 * (lane // 16)
        for mi in range(self.g.mt):
            r = self.row + 16 * mi + lane_row
            T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                              self.a[slot][mi:mi + 1].reshape((1, 4)),
                              a_s[buffer, r:r + 1, 16 * kk + lane_col:16 * kk + lane_col + 8])
        for nj in range(self.g.nt // 2):
            r, c = self.col + 16 * nj + 8 * (lane // 16) + lane % 8, 16 * kk + 8 * ((lane // 8) % 2)
            T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                              self.b[slot][2 * nj:2 * nj + 2].reshape((1, 4)), b_s[buffer, r:r + 1, c:c + 8])

    def store(self, C, acc, row0, col0):
        """Each pair of a 16 x 8 block's D fragment (rows g and g + 8,
        columns 2t and 2t + 1: MmaAccumulator), predicated to C where
        blocks reach past its edges."""
        layout = MmaAccumulator(self.g.opcode)
        for mi in range(self.g.mt):
            for ni in range(self.g.nt):
                for half in range(2):
                    r, c = layout.place(2 * half, self.lane, row0 + self.row + 16 * mi, col0 + self.col + 8 * ni)
                    T.cuda.tile.apply(T.ptx[KINDS[self.g.dtype][3]], C[r:r + 1, c:c + 2],
                                      acc[mi, ni:ni + 1, 2 * half:2 * half + 2],
                                      pred=((r < self.g.m) & (c < self.g.n)) if self.g.tail else None)


class _Boxes:
    """The stages of A's and Bt's boxes and their full mbarriers."""

    def __init__(self, g: _Geometry, A, B, row0, col0, t):
        stages = g.config.stages
        self.g, self.A, self.B, self.row0, self.col0, self.t = g, A, B, row0, col0, t
        self.a_box = T.alloc_dynamic_shared((stages, g.bm, g.bk), g.in_type, align=1024).swizzle("128B")
        self.b_box = T.alloc_dynamic_shared((stages, g.bn, g.bk), g.in_type, align=1024).swizzle("128B")
        # s8 boxes read as b16, as the other tiles.
        self.a_s, self.b_s = (self.a_box, self.b_box) if g.size == 2 else (self.a_box.view("uint16"),
                                                                          self.b_box.view("uint16"))
        self.full = Mbarriers(stages, name="full")
        for s in range(stages):
            self.full[s].init(1, where=t == 0)
        sync_block()

    def copy(self, kt):
        """Thread 0 expects step kt's bytes and copies its boxes, for a step
        inside K."""
        if isinstance(kt, int) and kt >= self.g.steps:
            return
        put = PipelineState(self.g.config.stages, kt)
        with T.if_((self.t == 0) if isinstance(kt, int) else (self.t == 0) & (kt < self.g.steps)):
            self.full[put.stage].arrive_expect_tx((self.g.bm + self.g.bn) * 128)
            T.cuda.tile.apply(T.ptx[TMA_LOAD], self.a_box[put.stage], self.A.tensor_map, (kt * self.g.bk, self.row0),
                              self.full[put.stage].tile)
            T.cuda.tile.apply(T.ptx[TMA_LOAD], self.b_box[put.stage], self.B.tensor_map, (kt * self.g.bk, self.col0),
                              self.full[put.stage].tile)

    def refill(self, kt):
        """The block barrier (every warp is done with the stage refilled
        next), the copy of step kt + stages - 1 into it (none past K), then
        the wait for step kt's boxes (none past K)."""
        sync_block()
        self.copy(kt + self.g.config.stages - 1)
        get = PipelineState(self.g.config.stages, kt)
        if isinstance(kt, int):
            self.full[get.stage].wait(get.phase)
        else:
            with T.if_(kt < self.g.steps):
                self.full[get.stage].wait(get.phase)


def gemm_mma(m: int, n: int, k: int, dtype: str = "bfloat16", config: Optional[MmaGemmConfig] = None):
    """The kernel for one problem: a T.function of (A, Bt, C)."""
    g = _Geometry(m, n, k, dtype, config or MmaGemmConfig.best(m, dtype))

    @T.function
    def gemm(A: T.Tensor((m, k), g.in_type, tma=T.TensorMap((g.bm, g.bk), "128B")),
             B: T.Tensor((n, k), g.in_type, tma=T.TensorMap((g.bn, g.bk), "128B")),
             C: T.Tensor((m, n), g.out_type)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=g.blocks_m * g.blocks_n, block=g.threads))
        t, bid = T.thread_id(), T.block_id()
        row0, col0 = GroupedTiles(g.blocks_n, g.config.group_m, g.bm, g.bn).origin(bid)
        boxes = _Boxes(g, A, B, row0, col0, t)
        warp = _Warp(g, t)
        acc = T.alloc_local((g.mt, g.nt, 4), g.out_type)
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((g.mt * g.nt * 4, 1)).view("uint32"), T.uint32(0))
        for s in range(g.config.stages - 1):
            boxes.copy(s)
        boxes.refill(0)
        warp.load(boxes.a_s, boxes.b_s, 0, 0, 0)
        for kt in T.serial(0, g.steps):
            stage = PipelineState(g.config.stages, kt).stage
            for kk in range(g.kks):
                if kk + 1 < g.kks:
                    warp.load(boxes.a_s, boxes.b_s, stage, kk + 1, (kk + 1) % 2)
                else:
                    # (After the last step: a stage's old pieces, unused.)
                    boxes.refill(kt + 1)
                    warp.load(boxes.a_s, boxes.b_s, PipelineState(g.config.stages, kt + 1).stage, 0, (kk + 1) % 2)
                T.cuda.tile.apply(T.ptx[g.opcode], acc, warp.a[kk % 2], warp.b[kk % 2])
        warp.store(C, acc, row0, col0)

    return gemm
