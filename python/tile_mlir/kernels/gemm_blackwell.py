"""A Blackwell GEMM (sm_100a) on the pipeline layer: C (M x N, bf16) =
A (M x K) Bt (N x K)^T, bf16 inputs, the float32 accumulators in tensor
memory. One 128 x `bn` tile a block; M, N and K multiples of the tile.

Roles (six warps, 192 threads):
- warp 0's first thread, the TMA producer: each K step of 64, once the
  ring's slot is free, A's and Bt's boxes into it (TmaRing with one
  consumer: the MMA's commit frees a slot);
- warp 1 allocates `bn` columns of tensor memory; its first thread, the
  MMA: each step, once the slot's bytes have landed, four
  tcgen05.mma.kind::f16 of K 16 (32 bytes along the 128-byte swizzled
  rows) into D, then tcgen05.commit on the slot's empty barrier (free
  once those MMAs complete); after the last step, a commit on
  `accumulated`;
- warps 2-5, the epilogue: once `accumulated` completes, each warp loads
  its quadrant's 32 rows of D (tcgen05.ld 32x32b, warp w reaching lanes
  32 (w % 4) on), 32 columns at a time, rounds pairs to bf16
  (cvt.rn.bf16x2.f32) and stores them (st.global.v4.b32);
- then warp 1 frees the columns.

Every instruction is the one written here (tile.apply); no CTA pair yet
(cta_group::2 is not interpreted), and no GPU of this kind is lent: the
kernel is proven in the interpreter on exact data and assembled by ptxas
for sm_100a (test_gemm_blackwell.py, its SASS checked).
"""


from dataclasses import dataclass

from .. import script as T
from .. import tcgen05
from ..pipelining import Mbarriers, PipelineState, TmaRing, sync_block

TMA_LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
COMMIT = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"
ALLOC = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"
DEALLOC = "tcgen05.dealloc.cta_group::1.sync.aligned.b32"
BM, ROW_BYTES, MMA_BYTES = 128, 128, 32  # M, and a step's and an mma's K in bytes of a row
COLUMNS = 32  # D's columns an epilogue load moves
# Per input type: the bits TMA moves, the mma's kind and idesc's name.
TYPES = {"bfloat16": ("uint16", "kind::f16", "bf16"), "e4m3": ("uint8", "kind::f8f6f4", "e4m3")}


@dataclass(frozen=True)
class BlackwellGemmConfig:
    """The tile's columns (`bn`: 64, 128 or 256, tensor memory's columns
    too) and the ring's slots."""

    bn: int = 128
    stages: int = 4


@dataclass(frozen=True)
class _Inputs:
    """What the input type decides: the bits TMA moves, the mma's opcode,
    a step's and an mma's K in elements, the instruction descriptor."""

    bits: str
    mma: str
    bk: int
    mma_k: int
    idesc: int

    @classmethod
    def of(cls, dtype: str, bn: int) -> "_Inputs":
        if dtype not in TYPES:
            raise ValueError(f"dtype {dtype!r}: one of {', '.join(TYPES)}")
        bits, kind, element = TYPES[dtype]
        mma = f"tcgen05.mma.cta_group::1.{kind}"
        element_bytes = int(bits[4:]) // 8
        return cls(bits, mma, ROW_BYTES // element_bytes, MMA_BYTES // element_bytes,
                   tcgen05.instruction_descriptor(mma, d="f32", a=element, b=element, m=BM, n=bn))


def blackwell_gemm(m: int, n: int, k: int, dtype: str = "bfloat16",
                   config: BlackwellGemmConfig = BlackwellGemmConfig()):
    """The kernel of one problem: a T.function of (A (m, k), Bt (n, k),
    C (m, n)): bf16 (uint16 bits) or e4m3 (uint8 bits) in, bf16 (uint16
    bits) out."""
    bn, stages = config.bn, config.stages
    inputs = _Inputs.of(dtype, bn)
    bk = inputs.bk
    if m % BM or n % bn or k % bk or bn not in (64, 128, 256):
        raise ValueError(f"{m} x {n} x {k}: M a multiple of {BM}, N of bn ({bn}: 64, 128 or 256), K of {bk}")
    steps, tiles_n = k // bk, n // bn
    a_param = T.Tensor((m, k), inputs.bits, tma=T.TensorMap((BM, bk), "128B"))
    b_param = T.Tensor((n, k), inputs.bits, tma=T.TensorMap((bn, bk), "128B"))
    c_param = T.Tensor((m, n), "uint16")

    @T.function
    def gemm(A: a_param, Bt: b_param, C: c_param):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=(m // BM) * tiles_n, block=192))
        a_s = T.alloc_dynamic_shared((stages, BM, bk), inputs.bits, align=1024).swizzle("128B")
        b_s = T.alloc_dynamic_shared((stages, bn, bk), inputs.bits, align=1024).swizzle("128B")
        slot = T.alloc_shared((1,), "uint32", align=16)
        t, bid = T.thread_id(), T.block_id()
        row0, col0 = bid // tiles_n * BM, bid % tiles_n * bn
        ring = TmaRing(stages, consumers=1)
        accumulated = Mbarriers(1, name="accumulated")
        ring.init(where=t == 0, fence=False)
        accumulated[0].init(1, where=t == 0)
        accumulated.fence_init(where=t == 0)
        with T.if_(t // 32 == 1):
            T.cuda.tile.apply(T.ptx[ALLOC], slot, T.uint32(bn))
        T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        sync_block()
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        base = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], base, slot)
        with T.if_(t == 0):
            _produce(A, Bt, a_s, b_s, ring, (row0, col0), (steps, bk, bn))
        with T.if_(t == 32):
            _multiply(a_s, b_s, ring, accumulated, base, (steps, bn, inputs))
        with T.if_(t >= 64):
            _store(C, accumulated, base, (row0, col0), t, bn)
        T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        sync_block()
        with T.if_(t // 32 == 1):
            T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
            T.cuda.tile.apply(T.ptx[DEALLOC], base, T.uint32(bn))
    return gemm


def _produce(A, Bt, a_s, b_s, ring, origin, shape):
    """The producer: each step's two boxes, once their slot is free."""
    (row0, col0), (steps, bk, bn) = origin, shape
    for kt in T.serial(0, steps):
        put = PipelineState.producer(ring.stages, kt)
        ring.acquire(put)
        ring.expect(put, (BM + bn) * ROW_BYTES)
        T.cuda.tile.apply(T.ptx[TMA_LOAD], a_s[put.stage], A.tensor_map, (kt * bk, row0), ring.full(put))
        T.cuda.tile.apply(T.ptx[TMA_LOAD], b_s[put.stage], Bt.tensor_map, (kt * bk, col0), ring.full(put))


def _multiply(a_s, b_s, ring, accumulated, base, shape):
    """The MMA thread: each step's four products into D (the first of the
    tile without D's input), the slot freed by a commit; the last commit
    tells the epilogue."""
    steps, bn, inputs = shape
    for kt in T.serial(0, steps):
        get = PipelineState(ring.stages, kt)
        ring.wait(get)
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        for j in range(ROW_BYTES // MMA_BYTES):
            ks = slice(inputs.mma_k * j, inputs.mma_k * (j + 1))
            accumulate = kt > 0 if j == 0 else kt >= 0
            T.cuda.tile.apply(T.ptx[inputs.mma], base, a_s[get.stage, 0:BM, ks].matrix_descriptor(format="tcgen05"),
                              b_s[get.stage, 0:bn, ks].matrix_descriptor(format="tcgen05"), T.uint32(inputs.idesc),
                              accumulate)
        T.cuda.tile.apply(T.ptx[COMMIT], ring.empty_barriers[get.stage].tile)
    T.cuda.tile.apply(T.ptx[COMMIT], accumulated[0].tile)


def _store(C, accumulated, base, origin, t, bn):
    """An epilogue warp: its quadrant's 32 rows of D, 32 columns at a time,
    rounded to bf16 pairs and stored."""
    row0, col0 = origin
    warp, lane = t // 32, t % 32
    quadrant = warp % 4
    accumulated[0].wait(0)
    T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
    words = T.alloc_local((COLUMNS,), "uint32")
    pairs = T.alloc_local((COLUMNS // 2, 1), "uint32")
    at = T.alloc_local((1,), "uint32")
    row = row0 + 32 * quadrant + lane
    for chunk in range(bn // COLUMNS):
        T.cuda.tile.apply(T.ptx["add.u32"], at, base, T.uint32((quadrant * 32 << 16) + chunk * COLUMNS))
        T.cuda.tile.apply(T.ptx[f"tcgen05.ld.sync.aligned.32x32b.x{COLUMNS}.b32"], words, at)
        T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
        values = words.view("float32").reshape((COLUMNS // 2, 2))
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], pairs, values[:, 1:2], values[:, 0:1])
        col = (col0 + chunk * COLUMNS) // 2
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"],
                          C.view("uint32")[row:row + 1, col:col + COLUMNS // 2].reshape((COLUMNS // 8, 4)),
                          pairs.reshape((COLUMNS // 8, 4)))
