"""The sum kernel's per-block partial sums in numpy, in its order of
operations (kernels.py's docstring), with no MLIR: run.py checks the GPU's
partials bit for bit against them, and the total against float64 within
the bound of the blocks' atomic additions in any order."""

import numpy as np

THREADS = 256
WARPS = THREADS // 32
UNROLL = 8          # 16-byte loads in flight per thread and iteration


def partials(x, blocks):
    """Each block's sum, float32, in the kernel's order."""
    f32 = np.float32
    iterations = x.size // (UNROLL * blocks * THREADS * 4)
    chunks = x.reshape(iterations, UNROLL, blocks, THREADS, 4)
    acc = np.zeros((UNROLL, blocks, THREADS, 4), f32)
    for i in range(iterations):
        acc = (acc + chunks[i]).astype(f32)
    # (u, j) in order, for each thread
    held = acc.transpose(1, 2, 0, 3).reshape(blocks, THREADS, UNROLL * 4)
    total = held[:, :, 0].copy()
    for k in range(1, UNROLL * 4):
        total = (total + held[:, :, k]).astype(f32)
    lanes = total.reshape(blocks, WARPS, 32)
    for offset in (16, 8, 4, 2, 1):
        lanes = (lanes + lanes[:, :, np.arange(32) ^ offset]).astype(f32)
    warp_sums = lanes[:, :, 0]
    block = warp_sums[:, 0].copy()
    for w in range(1, WARPS):
        block = (block + warp_sums[:, w]).astype(f32)
    return block


def atomic_bound(parts):
    """How far a float32 sum of `parts` in any order may lie from their
    exact sum: each of the len(parts) additions rounds by at most half an
    ulp of a running sum no larger than sum(|parts|)."""
    magnitude = float(np.abs(parts.astype(np.float64)).sum())
    return len(parts) * magnitude * 2.0 ** -24
