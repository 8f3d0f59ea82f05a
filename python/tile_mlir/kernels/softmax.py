"""Row softmax, y = 2^((x - max) log2 e) / sum, over rows of any width
(16-byte vectors where it is whole ones, else a value a load), float32,
bf16 or fp16: one block a row (about 16 values a thread: 256 threads at
4096), 16-byte vector loads and stores,
warp-shuffle reductions and one exchange of the warps' values through
shared memory for the maximum and one for the sum.

The order of operations, which reference/softmax.py states in numpy:

1. thread t holds the values of the row layout (reference/rows.py): at
   4096, float32 x[1024 k + 4 t + j] (four 16-byte vectors), 16-bit x[2048
   k + 8 t + j] (two) widened exactly to f32 (bf16: a shift and a mask;
   fp16: cvt.f32.f16); a vector past a row's end holds -inf;
2. its maximum, in order, with max.f32; the warp's through five butterfly
   steps; lane 0 of warp w stores it in shared memory, and after bar.sync
   every thread takes the maximum m of the warps' in order;
3. e = ex2.approx.ftz.f32((x - m) * log2 e) (sub.rn, mul.rn: no
   contraction into an fma; -inf gives 0);
4. the sum of its e in order, the butterfly, and the warps' sums in order
   after a second exchange (its own shared array, so no thread's store
   races with another's read of the maxima);
5. y = e * rcp.rn(sum); 16-bit rounds it to nearest even, two at a time
   (cvt.rn.bf16x2.f32, cvt.rn.f16x2.f32).
"""


from .. import script as T
from ..pipelining.reductions import block_reduce
from .configs import SoftmaxConfig
from .reference.rows import RowLayout, threads_for
from .reference.softmax import COLUMNS, LOG2E, PER_THREAD
from .rows import held_row

# The kernels' names by dtype (the PTX entry's), and the type their arrays
# are passed as (16-bit values as their bits).
NAMES = {"float32": "softmax_f32", "bfloat16": "softmax_bf16", "float16": "softmax_f16"}
ARRAYS = {"float32": "float32", "bfloat16": "int16", "float16": "int16"}


def _softmax_held(v, maxima, sums, t):
    """The module docstring's steps 2-5 on a thread's values `v`
    (per_thread, 1), in place."""
    per_thread = v.shape[0]
    m = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], m.view("uint32"), v[0:1].view("uint32"))
    for i in range(1, per_thread):
        T.cuda.tile.apply(T.ptx["max.f32"], m, m, v[i:i + 1])
    block_reduce(m, maxima, t, "max.f32")
    T.cuda.tile.apply(T.ptx["sub.rn.f32"], v, v, m.broadcast((per_thread, 1)))
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], v, v, T.float32(float(LOG2E)))
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], v, v)
    s = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], s.view("uint32"), v[0:1].view("uint32"))
    for i in range(1, per_thread):
        T.cuda.tile.apply(T.ptx["add.rn.f32"], s, s, v[i:i + 1])
    block_reduce(s, sums, t, "add.rn.f32")
    T.cuda.tile.apply(T.ptx["rcp.rn.f32"], s, s)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], v, v, s.broadcast((per_thread, 1)))


def softmax(rows: int, dtype: str = "float32", config: "SoftmaxConfig | None" = None, width: int = COLUMNS):
    """The kernel for `rows` rows (None: a runtime extent, the grid given at
    launch) of `width` values (read in 16-byte vectors
    where the width is a multiple of 4 float32 or of 8 bf16 or fp16, else
    a value a load): a T.function of (X, Out),
    float32 rows, or 16-bit rows as their bits (int16; no cache policy).
    One block a row, about PER_THREAD values a thread (rows.threads_for)."""
    config = config or SoftmaxConfig.best(dtype)
    if dtype not in NAMES:
        raise ValueError(f"softmax takes float32, bfloat16 or float16 rows, not {dtype!r}")
    if dtype != "float32" and config != SoftmaxConfig():
        raise ValueError(f"the 16-bit softmax takes no cache policy, not {config}")
    layout = RowLayout(width, threads_for(width, PER_THREAD), dtype)
    array = T.Tensor((rows, width), ARRAYS[dtype])

    def kernel(X: array, Out: array):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=layout.threads))
        maxima = T.alloc_shared((layout.warps, 1), "float32")
        sums = T.alloc_shared((layout.warps, 1), "float32")
        t, row = T.thread_id(), T.block_id()
        held = held_row(layout, config)
        v = held.load(X[row], t, float("-inf"))
        _softmax_held(v, maxima, sums, t)
        held.store(Out[row], t, v)
    kernel.__name__ = kernel.__qualname__ = NAMES[dtype]
    return T.function(kernel)
