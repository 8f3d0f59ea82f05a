"""RMSNorm over rows of 4096 fp32 values, y = x / sqrt(mean(x^2) + eps) * w,
written with the tile_mlir script front end: one block of 256 threads per
row, 16-byte vector loads, a warp-shuffle reduction and one exchange of the
eight warps' partial sums through shared memory.

Every rounding is IEEE (mul.rn, add.rn, sqrt.rn, rcp.rn), so the result is
a function of the reduction order alone, which `reference` states in numpy:

1. thread t holds x[row, 1024 k + 4 t + j] for k, j in 0..3 (16-byte vectors
   at 1024-value strides: each load is coalesced across the block); it sums
   their squares in order k = 0..3, j = 0..3, starting from the first;
2. the warp adds partners' sums in five butterfly steps (16, 8, 4, 2, 1);
3. lane 0 of warp w stores its sum in shared memory; after bar.sync every
   thread adds the eight partial sums in order 0..7;
4. mean = sum * (1/4096) (exact), inv = rcp.rn(sqrt.rn(mean + eps)), and
   y = (x * inv) * w.
"""

import numpy as np

from tile_mlir import script as T

COLUMNS = 4096
THREADS = 256
PER_THREAD = COLUMNS // THREADS          # 16 values: 4 vectors of 4
WARPS = THREADS // 32
EPS = 1e-6


def rmsnorm_kernel(rows):
    @T.function
    def rmsnorm(X: T.Tensor((rows, COLUMNS), "float32"), W: T.Tensor((COLUMNS,), "float32"),
                Out: T.Tensor((rows, COLUMNS), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=THREADS))
        partials = T.alloc_shared((WARPS, 1), "float32")
        t = T.thread_id()
        row = T.block_id()
        # (k, j): value 1024 k + 4 t + j of the row
        x = T.alloc_local((4, 4), "float32")
        w = T.alloc_local((4, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], x, X[row].reshape((4, THREADS, 4))[:, t])
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], w, W.reshape((4, THREADS, 4))[:, t])

        squares = T.alloc_local((PER_THREAD, 1), "float32")
        flat = x.reshape((PER_THREAD, 1))
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], squares, flat, flat)
        total = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), squares[0:1].view("uint32"))
        for i in range(1, PER_THREAD):
            T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, squares[i:i + 1])

        partner = T.alloc_local((1, 1), "float32")
        for offset in (16, 8, 4, 2, 1):
            T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], partner.view("uint32"), total.view("uint32"),
                              T.uint32(offset), T.uint32(31), T.uint32(0xFFFFFFFF))
            T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, partner)

        warp, lane = t // 32, t % 32
        T.cuda.tile.apply(T.ptx["st.shared.f32"], partials[warp:warp + 1], total, pred=lane == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        sums = T.alloc_local((2, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.shared.v4.f32"], sums, partials.reshape((2, 4)))
        every = sums.reshape((WARPS, 1))
        T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), every[0:1].view("uint32"))
        for i in range(1, WARPS):
            T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, every[i:i + 1])

        T.cuda.tile.apply(T.ptx["mul.rn.f32"], total, total, T.float32(1.0 / COLUMNS))
        T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, T.float32(EPS))
        T.cuda.tile.apply(T.ptx["sqrt.rn.f32"], total, total)
        T.cuda.tile.apply(T.ptx["rcp.rn.f32"], total, total)
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, total.broadcast((PER_THREAD, 1)))
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, w.reshape((PER_THREAD, 1)))
        T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[row].reshape((4, THREADS, 4))[:, t], x)

    return rmsnorm


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


ROWS = 65536
VARIANTS = {"rmsnorm_f32_r65536": (rmsnorm_kernel, dict(rows=ROWS))}
