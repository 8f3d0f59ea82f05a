"""RMSNorm over rows of 4096 fp32 values, y = x / sqrt(mean(x^2) + eps) * w,
written with the tile_mlir script front end: one block of 256 threads per
row, 16-byte vector loads, a warp-shuffle reduction and one exchange of the
eight warps' partial sums through shared memory.

Every rounding is IEEE (mul.rn, add.rn, sqrt.rn, rcp.rn), so the result is
a function of the reduction order alone, which rmsnorm_reference.py states in numpy:

1. thread t holds x[row, 1024 k + 4 t + j] for k, j in 0..3 (16-byte vectors
   at 1024-value strides: each load is coalesced across the block); it sums
   their squares in order k = 0..3, j = 0..3, starting from the first;
2. the warp adds partners' sums in five butterfly steps (16, 8, 4, 2, 1);
3. lane 0 of warp w stores its sum in shared memory; after bar.sync every
   thread adds the eight partial sums in order 0..7;
4. mean = sum * (1/4096) (exact), inv = rcp.rn(sqrt.rn(mean + eps)), and
   y = (x * inv) * w.
"""

from rmsnorm_reference import COLUMNS, EPS, PER_THREAD, THREADS, WARPS
from tile_mlir import script as T


def rmsnorm_kernel(rows, grid=None, buffers=2):
    """One block per row, or with `grid`, that many blocks looping over the
    rows (row i * grid + block), w loaded once per block. A block that loops
    exchanges its warps' sums through `buffers` alternating shared arrays:
    with 2, one barrier per row orders everything (row i + 2 writes what
    row i read only after every thread passed row i + 1's barrier); with 1,
    the next row's stores race with this row's loads, which the interpreter
    reports."""
    blocks = rows if grid is None else grid
    if rows % blocks:
        raise ValueError(f"{rows} rows do not split over {blocks} blocks")

    @T.function
    def rmsnorm(X: T.Tensor((rows, COLUMNS), "float32"), W: T.Tensor((COLUMNS,), "float32"),
                Out: T.Tensor((rows, COLUMNS), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=THREADS))
        partials = T.alloc_shared((buffers, WARPS, 1), "float32")
        t = T.thread_id()
        # (k, j): value 1024 k + 4 t + j of a row
        w = T.alloc_local((4, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], w, W.reshape((4, THREADS, 4))[:, t])
        if grid is None:
            normalize(X, Out, w, partials[0], T.block_id(), t)
        else:
            for i in T.serial(0, rows // grid):
                buffer = i % buffers
                normalize(X, Out, w, partials[buffer], i * grid + T.block_id(), t)

    return rmsnorm


def normalize(X, Out, w, partials, row, t):
    """One row: the steps of the module docstring."""
    x = T.alloc_local((4, 4), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], x, X[row].reshape((4, THREADS, 4))[:, t])

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

ROWS = 65536
VARIANTS = {"rmsnorm_f32_r65536": (rmsnorm_kernel, dict(rows=ROWS)),
            # persistent: 8 blocks of 256 threads on each of the H200's 132 SMs
            # would not divide 65536 rows; 1024 blocks of 64 rows do.
            "rmsnorm_f32_r65536_g1024": (rmsnorm_kernel, dict(rows=ROWS, grid=1024)),
            "rmsnorm_f32_r65536_g2048": (rmsnorm_kernel, dict(rows=ROWS, grid=2048))}
