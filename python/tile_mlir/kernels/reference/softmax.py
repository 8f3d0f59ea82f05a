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

from .rows import RowLayout, narrow, threads_for, widen

COLUMNS = 4096
THREADS = 256
WARPS = THREADS // 32
PER_THREAD = COLUMNS // THREADS          # 16 values: the kernels' threads hold about as many
LOG2E = np.float32(1.4426950408889634)


def _block_reduce(per_thread, combine):
    """Thread values (rows, threads) through the butterfly and the warps'
    values in order, as the kernels reduce them."""
    warps = per_thread.shape[1] // 32
    lanes = per_thread.reshape(per_thread.shape[0], warps, 32)
    for offset in (16, 8, 4, 2, 1):
        lanes = combine(lanes, lanes[:, :, np.arange(32) ^ offset])
    partials = lanes[:, :, 0]
    total = partials[:, 0].copy()
    for w in range(1, warps):
        total = combine(total, partials[:, w])
    return total


def exp2_ftz(t):
    """ex2.approx.ftz.f32 as the GPU computes it (interpreter/sfu.py: its
    tables, measured on an H100)."""
    from ...interpreter.sfu import ex2_approx_ftz_f32
    return ex2_approx_ftz_f32(np.asarray(t, np.float32)).astype(np.float32)


def softmax_held(v):
    """Softmax of each row of held values (rows, threads, per_thread)
    float32 (the vectors past the row -inf: their e is 0)."""
    f32 = np.float32
    per_thread = v.shape[2]
    m = v[:, :, 0].copy()
    for i in range(1, per_thread):
        m = np.fmax(m, v[:, :, i])
    m = _block_reduce(m, np.fmax)
    with np.errstate(invalid="ignore"):
        t = ((v - m[:, None, None]).astype(f32) * LOG2E).astype(f32)
    e = exp2_ftz(t)
    s = e[:, :, 0].copy()
    for i in range(1, per_thread):
        s = (s + e[:, :, i]).astype(f32)
    s = _block_reduce(s, lambda a, b: (a + b).astype(f32))
    inv = (f32(1) / s).astype(f32)
    return (e * inv[:, None, None]).astype(f32)


def reference(x, dtype="float32", threads=None):
    """Softmax of rows `x` (rows, width): float32, or 16-bit as uint16 bits
    (the result in the same form), on the kernel's layout."""
    width = x.shape[1]
    layout = RowLayout(width, threads or threads_for(width, PER_THREAD), dtype)
    values = x if dtype == "float32" else widen(x, dtype)
    y = layout.unheld(softmax_held(layout.held(values, np.float32(-np.inf))))
    return y if dtype == "float32" else narrow(np.ascontiguousarray(y), dtype)


def softmax_f32(x):
    return reference(x)


def to_bf16_bits(y):
    """float32 to bf16 bits, rounding to nearest even (cvt.rn.bf16x2.f32);
    no NaN reaches it."""
    return narrow(y, "bfloat16")


def softmax_bf16(bits):
    """Softmax of bf16 rows (uint16 bits), as bf16 bits."""
    return reference(bits, "bfloat16")
