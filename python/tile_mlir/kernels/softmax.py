"""Row softmax over rows of 4096 values, y = 2^((x - max) log2 e) / sum,
in fp32 and bf16, written with the tile_mlir script front end: one block of
256 threads per row, 16-byte vector loads and stores, warp-shuffle
reductions and one exchange of the eight warps' values through shared
memory for the maximum and one for the sum.

The order of operations, which reference/softmax.py states in numpy:

1. thread t holds 16 values: fp32 x[1024 k + 4 t + j] (four 16-byte
   vectors, k and j in 0..3), or bf16 x[2048 k + 8 t + j] (two vectors, k
   in 0..1, j in 0..7) widened exactly to f32 (a shift and a mask);
2. its maximum, in order, with max.f32; the warp's through five butterfly
   steps; lane 0 of warp w stores it in shared memory, and after bar.sync
   every thread takes the maximum m of the eight in order;
3. e = ex2.approx.ftz.f32((x - m) * log2 e) (sub.rn, mul.rn: no
   contraction into an fma);
4. the sum of its 16 e in order, the butterfly, and the eight warps' sums
   in order after a second exchange (its own shared array, so no thread's
   store races with another's read of the maxima);
5. y = e * rcp.rn(sum); bf16 rounds it to nearest even, two at a time
   (cvt.rn.bf16x2.f32).
"""


from .. import script as T
from ..pipelining.reductions import block_reduce
from .cache_hints import VectorAccess
from .configs import SoftmaxConfig
from .reference.softmax import COLUMNS, LOG2E, PER_THREAD, THREADS, WARPS


def _softmax_f32(rows, config: SoftmaxConfig):
    @T.function
    def softmax_f32(X: T.Tensor((rows, COLUMNS), "float32"), Out: T.Tensor((rows, COLUMNS), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=THREADS))
        maxima = T.alloc_shared((WARPS, 1), "float32")
        sums = T.alloc_shared((WARPS, 1), "float32")
        t, row = T.thread_id(), T.block_id()
        access = VectorAccess(4, config.x_priority, config.out_priority)
        x = T.alloc_local((4, 4), "float32")
        access.load(x, X[row].reshape((4, THREADS, 4))[:, t])
        _softmax_held(x.reshape((PER_THREAD, 1)), maxima, sums, t)
        access.store(Out[row].reshape((4, THREADS, 4))[:, t], x)
    return softmax_f32


def _softmax_bf16(rows):
    """bf16 rows as their bits in int16 arrays (neither numpy nor the
    runtime's CUDA arrays have a bfloat16 dtype)."""
    @T.function
    def softmax_bf16(X: T.Tensor((rows, COLUMNS), "int16"), Out: T.Tensor((rows, COLUMNS), "int16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=THREADS))
        maxima = T.alloc_shared((WARPS, 1), "float32")
        sums = T.alloc_shared((WARPS, 1), "float32")
        t, row = T.thread_id(), T.block_id()
        pairs = T.alloc_local((2, 4), "uint32")  # (k, i): values 8 k + 2 i (low), + 1 (high)
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], pairs,
                          X[row].view("uint32").reshape((2, THREADS, 4))[:, t])
        v = T.alloc_local((2, 4, 2), "float32")
        halves = pairs.reshape((2, 4, 1))
        T.cuda.tile.apply(T.ptx["shl.b32"], v[:, :, 0:1].view("uint32"), halves, T.uint32(16))
        T.cuda.tile.apply(T.ptx["and.b32"], v[:, :, 1:2].view("uint32"), halves, T.uint32(0xFFFF0000))
        _softmax_held(v.reshape((PER_THREAD, 1)), maxima, sums, t)
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], halves, v[:, :, 1:2], v[:, :, 0:1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"],
                          Out[row].view("uint32").reshape((2, THREADS, 4))[:, t], pairs)
    return softmax_bf16


def _softmax_held(v, maxima, sums, t):
    """The module docstring's steps 2-5 on a thread's 16 values `v` (16, 1),
    in place."""
    m = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], m.view("uint32"), v[0:1].view("uint32"))
    for i in range(1, PER_THREAD):
        T.cuda.tile.apply(T.ptx["max.f32"], m, m, v[i:i + 1])
    block_reduce(m, maxima, t, "max.f32")
    T.cuda.tile.apply(T.ptx["sub.rn.f32"], v, v, m.broadcast((PER_THREAD, 1)))
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], v, v, T.float32(float(LOG2E)))
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], v, v)
    s = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], s.view("uint32"), v[0:1].view("uint32"))
    for i in range(1, PER_THREAD):
        T.cuda.tile.apply(T.ptx["add.rn.f32"], s, s, v[i:i + 1])
    block_reduce(s, sums, t, "add.rn.f32")
    T.cuda.tile.apply(T.ptx["rcp.rn.f32"], s, s)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], v, v, s.broadcast((PER_THREAD, 1)))


def softmax(rows: int, dtype: str = "float32", config: "SoftmaxConfig | None" = None):
    """The kernel for `rows` rows of COLUMNS (4096) values: a T.function of
    (X, Out), float32 rows, or bf16 rows as their bits (int16; no cache
    policy)."""
    config = config or SoftmaxConfig.best(dtype)
    if dtype == "bfloat16":
        if config != SoftmaxConfig():
            raise ValueError(f"the bf16 softmax takes no cache policy, not {config}")
        return _softmax_bf16(rows)
    if dtype != "float32":
        raise ValueError(f"softmax takes float32 or bfloat16 rows, not {dtype!r}")
    return _softmax_f32(rows, config)
