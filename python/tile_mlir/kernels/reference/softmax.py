"""The softmax kernels' results in numpy, in their order of operations
(kernels.py's docstring), with no MLIR: run.py checks the GPU's results
against them on the GPU machine, and the tests check the interpreter's.

Every step but the exponential is IEEE float32 (numpy's float32 arithmetic
rounds to nearest as sub.rn, mul.rn, add.rn and rcp.rn do). The kernels
compute 2^t with ex2.approx.ftz.f32, which the PTX ISA bounds but does not
fix; here, as in the interpreter, it is the correctly rounded 2^t with
subnormal inputs and results flushed to zero. On a GPU the results differ
from these by ex2's error, which run.py measures."""

import numpy as np

COLUMNS = 4096
THREADS = 256
WARPS = THREADS // 32
PER_THREAD = COLUMNS // THREADS          # 16 values
LOG2E = np.float32(1.4426950408889634)
SMALLEST_NORMAL = np.float32(2.0 ** -126)


def held_f32(x):
    """(rows, THREADS, 16): thread t's values in its order, for float32 rows
    (value 1024 k + 4 t + j at position 4 k + j)."""
    rows = x.shape[0]
    return x.reshape(rows, 4, THREADS, 4).transpose(0, 2, 1, 3).reshape(rows, THREADS, PER_THREAD)


def held_bf16(bits):
    """The same for bf16 rows given as uint16 bits (value 2048 k + 8 t + j
    at position 8 k + j), widened exactly to float32."""
    rows = bits.shape[0]
    ordered = bits.reshape(rows, 2, THREADS, 8).transpose(0, 2, 1, 3).reshape(rows, THREADS, PER_THREAD)
    return (ordered.astype(np.uint32) << 16).view(np.float32)


def _block_reduce(per_thread, combine):
    """Thread values (rows, THREADS) through the butterfly and the eight
    warps' values in order, as the kernels reduce them."""
    lanes = per_thread.reshape(per_thread.shape[0], WARPS, 32)
    for offset in (16, 8, 4, 2, 1):
        lanes = combine(lanes, lanes[:, :, np.arange(32) ^ offset])
    partials = lanes[:, :, 0]
    total = partials[:, 0].copy()
    for w in range(1, WARPS):
        total = combine(total, partials[:, w])
    return total


def exp2_ftz(t):
    """ex2.approx.ftz.f32 as its correctly rounded result."""
    t = np.where(np.abs(t) < SMALLEST_NORMAL, np.float32(0), t)
    with np.errstate(over="ignore"):
        e = np.exp2(t.astype(np.float64)).astype(np.float32)
    return np.where(e < SMALLEST_NORMAL, np.float32(0), e)


def softmax_held(v):
    """Softmax of each row of held values (rows, THREADS, 16) float32."""
    f32 = np.float32
    m = v[:, :, 0].copy()
    for i in range(1, PER_THREAD):
        m = np.fmax(m, v[:, :, i])
    m = _block_reduce(m, np.fmax)
    t = ((v - m[:, None, None]).astype(f32) * LOG2E).astype(f32)
    e = exp2_ftz(t)
    s = e[:, :, 0].copy()
    for i in range(1, PER_THREAD):
        s = (s + e[:, :, i]).astype(f32)
    s = _block_reduce(s, lambda a, b: (a + b).astype(f32))
    inv = (f32(1) / s).astype(f32)
    return (e * inv[:, None, None]).astype(f32)


def softmax_f32(x):
    rows = x.shape[0]
    y = softmax_held(held_f32(x))
    return y.reshape(rows, THREADS, 4, 4).transpose(0, 2, 1, 3).reshape(rows, COLUMNS)


def to_bf16_bits(y):
    """float32 to bf16 bits, rounding to nearest even (cvt.rn.bf16x2.f32);
    no NaN reaches it."""
    bits = y.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def softmax_bf16(bits):
    """Softmax of bf16 rows (uint16 bits), as bf16 bits."""
    rows = bits.shape[0]
    y = to_bf16_bits(softmax_held(held_bf16(bits)))
    return y.reshape(rows, THREADS, 2, 8).transpose(0, 2, 1, 3).reshape(rows, COLUMNS)
