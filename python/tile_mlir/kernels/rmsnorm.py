"""RMSNorm, y = x / sqrt(mean(x^2) + eps) * w, over rows of any width
(16-byte vectors where it is whole ones, else a value a load), float32,
bf16 or fp16: one block of `threads` per row, 16-byte vector loads, a
warp-shuffle reduction and one exchange of the warps' partial sums through
shared memory.

Every rounding is IEEE (mul.rn, add.rn, sqrt.rn, rcp.rn), so the result is
a function of the reduction order alone, which reference/rmsnorm.py states
in numpy (the row layout of reference/rows.py: V vectors of `vec` values
a thread, W warps):

1. thread t holds x[row, vec (threads k + t) + j] for k < V, j < vec
   (16-byte vectors at vec threads-value strides: each load is coalesced
   across the block; a vector past the row's end holds 0), 16-bit values
   widened exactly to f32 (bf16: a shift and a mask; fp16: cvt.f32.f16);
   it sums their squares in order k, j, starting from the first;
2. the warp adds partners' sums in five butterfly steps (16, 8, 4, 2, 1);
3. lane 0 of warp w stores its sum in shared memory; after bar.sync every
   thread adds the W partial sums in order;
4. mean = sum * (1 / width) (1 / width rounded to f32: exact at 4096),
   inv = rcp.rn(sqrt.rn(mean + eps)), and y = (x * inv) * w; 16-bit rounds
   y to nearest even two at a time (cvt.rn.bf16x2.f32, cvt.rn.f16x2.f32).

At 4096: float32 with `config.threads` (512 best), bf16 and fp16 with 256.
"""

from typing import Optional

from .. import script as T
from .configs import RmsNormConfig
from ..pipelining.reductions import block_reduce
from .reference.rmsnorm import COLUMNS, EPS, VALUES_PER_THREAD
from .reference.rows import RowLayout, threads_for
from .rows import held_row

# The kernels' names by dtype (the PTX entry's), and the type their arrays
# are passed as (16-bit values as their bits).
NAMES = {"float32": "rmsnorm", "bfloat16": "rmsnorm_bf16", "float16": "rmsnorm_f16"}
ARRAYS = {"float32": "float32", "bfloat16": "int16", "float16": "int16"}


def _normalize_held(flat, w, partials, t, width, eps=EPS):
    """Steps 1-4 on a thread's values `flat` (per_thread, 1) float32, in
    place, with its weights `w`."""
    per_thread = flat.shape[0]
    squares = T.alloc_local((per_thread, 1), "float32")
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], squares, flat, flat)
    total = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), squares[0:1].view("uint32"))
    for i in range(1, per_thread):
        T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, squares[i:i + 1])

    block_reduce(total, partials, t, "add.rn.f32")

    T.cuda.tile.apply(T.ptx["mul.rn.f32"], total, total, T.float32(1.0 / width))
    T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, T.float32(eps))
    T.cuda.tile.apply(T.ptx["sqrt.rn.f32"], total, total)
    T.cuda.tile.apply(T.ptx["rcp.rn.f32"], total, total)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, total.broadcast((per_thread, 1)))
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, w)


def rmsnorm(rows: int, dtype: str = "float32", config: Optional[RmsNormConfig] = None, eps: float = EPS,
            width: int = COLUMNS):
    """The kernel for `rows` rows (None: a runtime extent, the grid given at
    launch) of `width` values (read in 16-byte vectors
    where the width is a multiple of 4 float32 or of 8 bf16 or fp16, else
    a value a load): a T.function of (X, W,
    Out), float32, or 16-bit as their bits (int16; no cache policy). One
    block a row, its threads `config.threads` at 4096 float32, else about
    VALUES_PER_THREAD values each. `eps` is rounded to float32 (an
    immediate of add.rn.f32)."""
    if dtype not in NAMES:
        raise ValueError(f"rmsnorm takes float32, bfloat16 or float16 rows, not {dtype!r}")
    config = config or RmsNormConfig.best(dtype, width)
    if dtype != "float32" and (config.x_priority or config.out_priority):
        raise ValueError(f"the 16-bit RMSNorm takes no cache policy, not {config}")
    explicit = dtype == "float32" and width == COLUMNS
    threads = config.threads if explicit else threads_for(width, VALUES_PER_THREAD[dtype])
    if not explicit and config.threads != RmsNormConfig().threads:
        raise ValueError(f"{dtype} rows of {width} take {threads} threads (rows.threads_for); config.threads "
                         f"{config.threads} applies to float32 rows of {COLUMNS}")
    if explicit and (COLUMNS % (4 * threads) or threads % 128):
        raise ValueError(f"{threads} threads do not hold whole 16-byte vectors of a row of {COLUMNS} "
                         f"in a multiple of 4 warps")
    layout = RowLayout(width, threads, dtype)
    array = T.Tensor((rows, width), ARRAYS[dtype])

    def kernel(X: array, W: T.Tensor((width,), ARRAYS[dtype]), Out: array):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=layout.threads))
        partials = T.alloc_shared((layout.warps, 1), "float32")
        t = T.thread_id()
        weights = held_row(layout).load(W, t, 0.0)
        row = T.block_id()
        held = held_row(layout, config)
        v = held.load(X[row], t, 0.0)
        _normalize_held(v, weights, partials, t, width, eps)
        held.store(Out[row], t, v)
    kernel.__name__ = kernel.__qualname__ = NAMES[dtype]
    return T.function(kernel)
