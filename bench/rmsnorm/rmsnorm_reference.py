"""The RMSNorm kernel's result in numpy, in its order of operations
(kernels.py's docstring), with no MLIR: run.py checks the GPU's result
against it on the GPU machine."""

import numpy as np

COLUMNS = 4096
THREADS = 256
PER_THREAD = COLUMNS // THREADS          # 16 values: 4 vectors of 4
WARPS = THREADS // 32
EPS = 1e-6


def reference(x, w):
    """The kernel's result in numpy, in its order of operations (module
    docstring); every operation rounds to float32 as IEEE does."""
    f32 = np.float32
    rows = x.shape[0]
    held = x.reshape(rows, 4, THREADS, 4).transpose(0, 2, 1, 3).reshape(rows, THREADS, PER_THREAD)
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
    return ((x * inv[:, None]).astype(f32) * w[None, :]).astype(f32)
