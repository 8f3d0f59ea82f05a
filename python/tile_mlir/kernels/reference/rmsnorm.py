"""The RMSNorm kernels' results in numpy, in their order of operations
(kernels.py's docstring), with no MLIR: run.py checks the GPU's results
against them on the GPU machine."""

import numpy as np

from .rows import RowLayout, narrow, threads_for, widen

COLUMNS = 4096
THREADS = 256                            # the fp32 kernel's default, the bf16 kernel's
WARPS = THREADS // 32
EPS = 1e-6


VALUES_PER_THREAD = {"float32": 8, "bfloat16": 16, "float16": 16}  # 512 and 256 threads at 4096


class Layout:
    """Which values of a row of COLUMNS each of `threads` float32 threads
    holds: `vectors` 16-byte vectors, value 4 threads k + 4 t + j at
    position 4 k + j (the whole-row case of rows.RowLayout)."""

    def __init__(self, threads):
        self.threads, self.warps = threads, threads // 32
        self.vectors = COLUMNS // (4 * threads)
        self.per_thread = 4 * self.vectors

    def held(self, row):
        """A row tile (COLUMNS,) as (vectors, threads, 4): thread t's are [:, t]."""
        return row.reshape((self.vectors, self.threads, 4))


def normalize_held(held, w_held, eps=EPS, width=COLUMNS):
    """The kernel's steps on each thread's values `held` (rows, threads,
    per_thread) with its weights `w_held` (threads, per_thread), the
    vectors past a row 0; every operation rounds to float32 as IEEE
    does."""
    f32 = np.float32
    rows, threads, per_thread = held.shape
    warps = threads // 32
    squares = (held * held).astype(f32)
    total = squares[:, :, 0].copy()
    for i in range(1, per_thread):
        total = (total + squares[:, :, i]).astype(f32)
    lanes = total.reshape(rows, warps, 32)
    for offset in (16, 8, 4, 2, 1):
        lanes = (lanes + lanes[:, :, np.arange(32) ^ offset]).astype(f32)
    partials = lanes[:, :, 0]
    total = partials[:, 0].copy()
    for i in range(1, warps):
        total = (total + partials[:, i]).astype(f32)
    mean = (total * f32(1.0 / width)).astype(f32)
    inv = (f32(1) / np.sqrt((mean + f32(eps)).astype(f32))).astype(f32)
    return ((held * inv[:, None, None]).astype(f32) * w_held[None]).astype(f32)


def reference_rows(x, w, dtype="float32", threads=None, eps=EPS):
    """RMSNorm of rows `x` (rows, width) with weights `w` (width,): float32,
    or 16-bit as uint16 bits (the result in the same form), on the
    kernel's layout (rows.RowLayout)."""
    width = x.shape[1]
    layout = RowLayout(width, threads or threads_for(width, VALUES_PER_THREAD[dtype]), dtype)
    values, weights = (x, w) if dtype == "float32" else (widen(x, dtype), widen(w, dtype))
    y = layout.unheld(normalize_held(layout.held(values, np.float32(0)), layout.held(weights[None], np.float32(0))[0],
                                     eps, width))
    return y if dtype == "float32" else narrow(np.ascontiguousarray(y), dtype)


def reference(x, w, threads=THREADS, eps=EPS):
    """fp32: thread t holds value 4 threads k + 4 t + j at position 4 k + j."""
    return reference_rows(x, w, "float32", threads, eps)


def to_bf16_bits(y):
    """float32 to bf16 bits, rounding to nearest even (cvt.rn.bf16x2.f32);
    no NaN reaches it."""
    return narrow(y, "bfloat16")


def reference_bf16(x_bits, w_bits, eps=EPS):
    """bf16 rows and weights given as uint16 bits, the result as bits."""
    return reference_rows(x_bits, w_bits, "bfloat16", THREADS, eps)
