"""The RMSNorm kernels' results in numpy, in their order of operations
(kernels.py's docstring), with no MLIR: run.py checks the GPU's results
against them on the GPU machine."""

import numpy as np

COLUMNS = 4096
THREADS = 256
PER_THREAD = COLUMNS // THREADS          # 16 values: 4 vectors of 4
WARPS = THREADS // 32
EPS = 1e-6


def normalize_held(held, w_held):
    """The kernel's steps on each thread's 16 values `held` (rows, THREADS,
    16) with its weights `w_held` (THREADS, 16); every operation rounds to
    float32 as IEEE does."""
    f32 = np.float32
    rows = held.shape[0]
    squares = (held * held).astype(f32)
    total = squares[:, :, 0].copy()
    for i in range(1, PER_THREAD):
        total = (total + squares[:, :, i]).astype(f32)
    lanes = total.reshape(rows, WARPS, 32)
    for offset in (16, 8, 4, 2, 1):
        lanes = (lanes + lanes[:, :, np.arange(32) ^ offset]).astype(f32)
    partials = lanes[:, :, 0]
    total = partials[:, 0].copy()
    for i in range(1, WARPS):
        total = (total + partials[:, i]).astype(f32)
    mean = (total * f32(1.0 / COLUMNS)).astype(f32)
    inv = (f32(1) / np.sqrt((mean + f32(EPS)).astype(f32))).astype(f32)
    return ((held * inv[:, None, None]).astype(f32) * w_held[None]).astype(f32)


def reference(x, w):
    """fp32: thread t holds value 1024 k + 4 t + j at position 4 k + j."""
    rows = x.shape[0]
    held = x.reshape(rows, 4, THREADS, 4).transpose(0, 2, 1, 3).reshape(rows, THREADS, PER_THREAD)
    w_held = w.reshape(4, THREADS, 4).transpose(1, 0, 2).reshape(THREADS, PER_THREAD)
    y = normalize_held(held, w_held)
    return y.reshape(rows, THREADS, 4, 4).transpose(0, 2, 1, 3).reshape(rows, COLUMNS)


def widened_bf16(bits):
    """bf16 bits (..., 2, THREADS, 8) in the kernel's held order, as exact
    float32: thread t holds value 2048 k + 8 t + j at position 8 k + j."""
    lead = bits.shape[:-3]
    ordered = np.moveaxis(bits, -2, -3).reshape(lead + (THREADS, PER_THREAD))
    return (ordered.astype(np.uint32) << 16).view(np.float32)


def to_bf16_bits(y):
    """float32 to bf16 bits, rounding to nearest even (cvt.rn.bf16x2.f32);
    no NaN reaches it."""
    bits = y.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def reference_bf16(x_bits, w_bits):
    """bf16 rows and weights given as uint16 bits, the result as bits."""
    rows = x_bits.shape[0]
    held = widened_bf16(x_bits.reshape(rows, 2, THREADS, 8))
    w_held = widened_bf16(w_bits.reshape(2, THREADS, 8))
    y = to_bf16_bits(normalize_held(held, w_held))
    return y.reshape(rows, THREADS, 2, 8).transpose(0, 2, 1, 3).reshape(rows, COLUMNS)
