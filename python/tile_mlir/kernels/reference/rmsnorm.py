"""The RMSNorm kernels' results in numpy, in their order of operations
(kernels.py's docstring), with no MLIR: run.py checks the GPU's results
against them on the GPU machine."""

import numpy as np

COLUMNS = 4096
THREADS = 256                            # the fp32 kernel's default, the bf16 kernel's
WARPS = THREADS // 32
EPS = 1e-6


class Layout:
    """Which values of a row each of `threads` threads holds: `vectors`
    16-byte vectors, value 4 threads k + 4 t + j at position 4 k + j."""

    def __init__(self, threads):
        self.threads, self.warps = threads, threads // 32
        self.vectors = COLUMNS // (4 * threads)
        self.per_thread = 4 * self.vectors

    def held(self, row):
        """A row tile (COLUMNS,) as (vectors, threads, 4): thread t's are [:, t]."""
        return row.reshape((self.vectors, self.threads, 4))


def normalize_held(held, w_held, eps=EPS):
    """The kernel's steps on each thread's values `held` (rows, threads,
    per_thread) with its weights `w_held` (threads, per_thread); every
    operation rounds to float32 as IEEE does."""
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
    mean = (total * f32(1.0 / COLUMNS)).astype(f32)
    inv = (f32(1) / np.sqrt((mean + f32(eps)).astype(f32))).astype(f32)
    return ((held * inv[:, None, None]).astype(f32) * w_held[None]).astype(f32)


def reference(x, w, threads=THREADS, eps=EPS):
    """fp32: thread t holds value 4 threads k + 4 t + j at position 4 k + j."""
    rows, layout = x.shape[0], Layout(threads)
    v = layout.vectors
    held = x.reshape(rows, v, threads, 4).transpose(0, 2, 1, 3).reshape(rows, threads, 4 * v)
    w_held = w.reshape(v, threads, 4).transpose(1, 0, 2).reshape(threads, 4 * v)
    y = normalize_held(held, w_held, eps)
    return y.reshape(rows, threads, v, 4).transpose(0, 2, 1, 3).reshape(rows, COLUMNS)


def widened_bf16(bits):
    """bf16 bits (..., 2, THREADS, 8) in the kernel's held order, as exact
    float32: thread t holds value 2048 k + 8 t + j at position 8 k + j."""
    lead = bits.shape[:-3]
    ordered = np.moveaxis(bits, -2, -3).reshape(lead + (THREADS, 16))
    return (ordered.astype(np.uint32) << 16).view(np.float32)


def to_bf16_bits(y):
    """float32 to bf16 bits, rounding to nearest even (cvt.rn.bf16x2.f32);
    no NaN reaches it."""
    bits = y.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def reference_bf16(x_bits, w_bits, eps=EPS):
    """bf16 rows and weights given as uint16 bits, the result as bits."""
    rows = x_bits.shape[0]
    held = widened_bf16(x_bits.reshape(rows, 2, THREADS, 8))
    w_held = widened_bf16(w_bits.reshape(2, THREADS, 8))
    y = to_bf16_bits(normalize_held(held, w_held, eps))
    return y.reshape(rows, THREADS, 2, 8).transpose(0, 2, 1, 3).reshape(rows, COLUMNS)
