"""RMSNorm over rows of 4096 values, y = x / sqrt(mean(x^2) + eps) * w, in
float32 or bf16: one block of `threads` per row, 16-byte vector loads, a
warp-shuffle reduction and one exchange of the warps' partial sums through
shared memory.

Every rounding is IEEE (mul.rn, add.rn, sqrt.rn, rcp.rn), so the result is
a function of the reduction order alone, which reference/rmsnorm.py states
in numpy (V vectors of 4 a thread, W warps):

1. thread t holds x[row, 4 threads k + 4 t + j] for k < V, j < 4 (16-byte
   vectors at 4 threads-value strides: each load is coalesced across the
   block); it sums their squares in order k, j, starting from the first;
2. the warp adds partners' sums in five butterfly steps (16, 8, 4, 2, 1);
3. lane 0 of warp w stores its sum in shared memory; after bar.sync every
   thread adds the W partial sums in order;
4. mean = sum * (1/4096) (exact), inv = rcp.rn(sqrt.rn(mean + eps)), and
   y = (x * inv) * w.

bf16 rows and weights (their bits, int16) take 256 threads: thread t holds
x[2048 k + 8 t + j] (two 16-byte vectors) and the same weights, widened
exactly to f32; steps 1-4 in f32; the result rounded to bf16 two at a time
(cvt.rn.bf16x2.f32).
"""

from typing import Optional

from .. import script as T
from .cache_hints import VectorAccess
from .configs import RmsNormConfig
from ..pipelining.reductions import block_reduce
from .reference.rmsnorm import COLUMNS, EPS, THREADS, WARPS, Layout


def _normalize_held(flat, w, partials, t, layout=Layout(THREADS), eps=EPS):
    """Steps 1-4 on a thread's values `flat` (per_thread, 1) float32, in
    place, with its weights `w`."""
    squares = T.alloc_local((layout.per_thread, 1), "float32")
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], squares, flat, flat)
    total = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), squares[0:1].view("uint32"))
    for i in range(1, layout.per_thread):
        T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, squares[i:i + 1])

    block_reduce(total, partials, t, "add.rn.f32")

    T.cuda.tile.apply(T.ptx["mul.rn.f32"], total, total, T.float32(1.0 / COLUMNS))
    T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, T.float32(eps))
    T.cuda.tile.apply(T.ptx["sqrt.rn.f32"], total, total)
    T.cuda.tile.apply(T.ptx["rcp.rn.f32"], total, total)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, total.broadcast((layout.per_thread, 1)))
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, w)


def _rmsnorm_f32(rows, config: RmsNormConfig, eps):
    layout = Layout(config.threads)

    @T.function
    def rmsnorm(X: T.Tensor((rows, COLUMNS), "float32"), W: T.Tensor((COLUMNS,), "float32"),
                Out: T.Tensor((rows, COLUMNS), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=config.threads))
        partials = T.alloc_shared((layout.warps, 1), "float32")
        t = T.thread_id()
        w = T.alloc_local((layout.vectors, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], w, layout.held(W)[:, t])
        access = VectorAccess(layout.vectors, config.x_priority, config.out_priority)
        x = T.alloc_local((layout.vectors, 4), "float32")
        access.load(x, layout.held(X[T.block_id()])[:, t])
        _normalize_held(x.reshape((layout.per_thread, 1)), w.reshape((layout.per_thread, 1)), partials, t,
                        layout, eps)
        access.store(layout.held(Out[T.block_id()])[:, t], x)

    return rmsnorm


def _widen_bf16(pairs):
    """A (2, 4) tile of bf16 pairs (uint32: value 8 k + 2 i low, + 1 high)
    as a (2, 4, 2) float32 tile, exactly: a shift and a mask."""
    v = T.alloc_local((2, 4, 2), "float32")
    halves = pairs.reshape((2, 4, 1))
    T.cuda.tile.apply(T.ptx["shl.b32"], v[:, :, 0:1].view("uint32"), halves, T.uint32(16))
    T.cuda.tile.apply(T.ptx["and.b32"], v[:, :, 1:2].view("uint32"), halves, T.uint32(0xFFFF0000))
    return v


def _rmsnorm_bf16(rows, eps):
    @T.function
    def rmsnorm_bf16(X: T.Tensor((rows, COLUMNS), "int16"), W: T.Tensor((COLUMNS,), "int16"),
                     Out: T.Tensor((rows, COLUMNS), "int16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=THREADS))
        partials = T.alloc_shared((WARPS, 1), "float32")
        t, row = T.thread_id(), T.block_id()
        pairs = T.alloc_local((2, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], pairs, W.view("uint32").reshape((2, THREADS, 4))[:, t])
        w = _widen_bf16(pairs)
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], pairs,
                          X[row].view("uint32").reshape((2, THREADS, 4))[:, t])
        v = _widen_bf16(pairs)
        per_thread = Layout(THREADS).per_thread
        _normalize_held(v.reshape((per_thread, 1)), w.reshape((per_thread, 1)), partials, t, eps=eps)
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], pairs.reshape((2, 4, 1)), v[:, :, 1:2], v[:, :, 0:1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"],
                          Out[row].view("uint32").reshape((2, THREADS, 4))[:, t], pairs)
    return rmsnorm_bf16


def rmsnorm(rows: int, dtype: str = "float32", config: Optional[RmsNormConfig] = None, eps: float = EPS):
    """The kernel for `rows` rows of COLUMNS (4096): a T.function of (X, W,
    Out), float32, or bf16 as their bits (int16; 256 threads, no
    policies). `eps` is rounded to float32 (an immediate of add.rn.f32)."""
    config = config or RmsNormConfig.best(dtype)
    if dtype == "bfloat16":
        if config != RmsNormConfig():
            raise ValueError(f"the bf16 RMSNorm takes {THREADS} threads and no cache policy, not {config}")
        return _rmsnorm_bf16(rows, eps)
    if dtype != "float32":
        raise ValueError(f"rmsnorm takes float32 or bfloat16 rows, not {dtype!r}")
    if COLUMNS % (4 * config.threads) or config.threads % 128:
        raise ValueError(f"{config.threads} threads do not hold whole 16-byte vectors of a row of {COLUMNS} "
                         f"in a multiple of 4 warps")
    return _rmsnorm_f32(rows, config, eps)
