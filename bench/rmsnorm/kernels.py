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


def rmsnorm_kernel(rows, grid=None, buffers=2, late_weights=False, reread=False, load_after_inverse=False,
                   rows_per_block=1):
    """One block per row, or with `grid`, that many blocks looping over the
    rows (row i * grid + block), w loaded once per block. With
    `late_weights` (one block per row only), w is loaded after the barrier
    instead of first: its 16 registers are then not live across the loads
    of x and the reduction. With `reread` (and late weights) x is loaded
    again after the barrier, as torch.compile's looped Triton reduction
    does (the second read hits the caches): no value of x is live across
    the barrier, which lets more blocks share an SM; `load_after_inverse`
    moves those late loads after the square root and reciprocal, whose
    slow paths are calls that keep every live register. With
    `rows_per_block` (one block per that many rows), a block loads all its
    rows' x before it reduces the first, so more bytes are in flight per
    thread, and w serves them all. A block that loops
    exchanges its warps' sums through `buffers` alternating shared arrays:
    with 2, one barrier per row orders everything (row i + 2 writes what
    row i read only after every thread passed row i + 1's barrier); with 1,
    the next row's stores race with this row's loads, which the interpreter
    reports."""
    blocks = rows // rows_per_block if grid is None else grid
    if rows % blocks:
        raise ValueError(f"{rows} rows do not split over {blocks} blocks")

    @T.function
    def rmsnorm(X: T.Tensor((rows, COLUMNS), "float32"), W: T.Tensor((COLUMNS,), "float32"),
                Out: T.Tensor((rows, COLUMNS), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=THREADS))
        partials = T.alloc_shared((max(buffers, rows_per_block), WARPS, 1), "float32")
        t = T.thread_id()
        # (k, j): value 1024 k + 4 t + j of a row
        w = T.alloc_local((4, 4), "float32")

        def load_weights():
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], w, W.reshape((4, THREADS, 4))[:, t])

        if rows_per_block > 1:
            load_weights()
            normalize_rows(X, Out, w, partials, T.block_id() * rows_per_block, rows_per_block, t)
            return
        if late_weights or reread:
            normalize(X, Out, w, partials[0], T.block_id(), t, load_weights, reread, load_after_inverse)
            return
        load_weights()
        if grid is None:
            normalize(X, Out, w, partials[0], T.block_id(), t)
        else:
            for i in T.serial(0, rows // grid):
                buffer = i % buffers
                normalize(X, Out, w, partials[buffer], i * grid + T.block_id(), t)

    return rmsnorm


def normalize(X, Out, w, partials, row, t, load_weights=None, reread=False, load_after_inverse=False):
    """One row: the steps of the module docstring."""
    x = T.alloc_local((4, 4), "float32")

    def load_x():
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], x, X[row].reshape((4, THREADS, 4))[:, t])

    def after_barrier():
        if reread:
            load_x()
        if load_weights is not None:
            load_weights()

    load_x()
    late = after_barrier if load_weights is not None or reread else None
    normalize_held(x.reshape((PER_THREAD, 1)), w.reshape((PER_THREAD, 1)), partials, t, late, load_after_inverse)
    T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[row].reshape((4, THREADS, 4))[:, t], x)


def normalize_rows(X, Out, w, partials, first, count, t):
    """Rows first .. first + count - 1: every row's x loaded, then each row
    normalized (its warps' sums through its own shared array) and stored."""
    held = []
    for r in range(count):
        x = T.alloc_local((4, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], x, X[first + r].reshape((4, THREADS, 4))[:, t])
        held.append(x)
    for r, x in enumerate(held):
        normalize_held(x.reshape((PER_THREAD, 1)), w.reshape((PER_THREAD, 1)), partials[r], t)
        T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[first + r].reshape((4, THREADS, 4))[:, t], x)


def normalize_held(flat, w, partials, t, late_load=None, load_after_inverse=False):
    """Steps 1-4 on a thread's 16 values `flat` (16, 1) float32, in place,
    with its 16 weights `w`; `late_load` (if given) runs after the barrier,
    or after the inverse (`load_after_inverse`), to load w or the values
    again."""
    squares = T.alloc_local((PER_THREAD, 1), "float32")
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
    if late_load is not None and not load_after_inverse:
        late_load()
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
    if late_load is not None and load_after_inverse:
        late_load()
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, total.broadcast((PER_THREAD, 1)))
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, w)


def widen_bf16(pairs):
    """A (2, 4) tile of bf16 pairs (uint32: value 8 k + 2 i low, + 1 high)
    as a (2, 4, 2) float32 tile, exactly: a shift and a mask."""
    v = T.alloc_local((2, 4, 2), "float32")
    halves = pairs.reshape((2, 4, 1))
    T.cuda.tile.apply(T.ptx["shl.b32"], v[:, :, 0:1].view("uint32"), halves, T.uint32(16))
    T.cuda.tile.apply(T.ptx["and.b32"], v[:, :, 1:2].view("uint32"), halves, T.uint32(0xFFFF0000))
    return v


def rmsnorm_bf16_kernel(rows):
    """bf16 rows and weights as their bits in int16 arrays, one block per
    row: thread t holds x[2048 k + 8 t + j] (two 16-byte vectors) and the
    same weights, widened exactly to f32; steps 1-4 in f32; the result
    rounded to bf16 two at a time (cvt.rn.bf16x2.f32)."""
    @T.function
    def rmsnorm_bf16(X: T.Tensor((rows, COLUMNS), "int16"), W: T.Tensor((COLUMNS,), "int16"),
                     Out: T.Tensor((rows, COLUMNS), "int16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rows, block=THREADS))
        partials = T.alloc_shared((WARPS, 1), "float32")
        t, row = T.thread_id(), T.block_id()
        pairs = T.alloc_local((2, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], pairs, W.view("uint32").reshape((2, THREADS, 4))[:, t])
        w = widen_bf16(pairs)
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], pairs,
                          X[row].view("uint32").reshape((2, THREADS, 4))[:, t])
        v = widen_bf16(pairs)
        normalize_held(v.reshape((PER_THREAD, 1)), w.reshape((PER_THREAD, 1)), partials, t)
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], pairs.reshape((2, 4, 1)), v[:, :, 1:2], v[:, :, 0:1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"],
                          Out[row].view("uint32").reshape((2, THREADS, 4))[:, t], pairs)
    return rmsnorm_bf16

ROWS = 65536
VARIANTS = {"rmsnorm_f32_r65536": (rmsnorm_kernel, dict(rows=ROWS)),
            # persistent: 8 blocks of 256 threads on each of the H200's 132 SMs
            # would not divide 65536 rows; 1024 blocks of 64 rows do.
            "rmsnorm_f32_r65536_g1024": (rmsnorm_kernel, dict(rows=ROWS, grid=1024)),
            "rmsnorm_f32_r65536_g2048": (rmsnorm_kernel, dict(rows=ROWS, grid=2048)),
            "rmsnorm_f32_r65536_late_w": (rmsnorm_kernel, dict(rows=ROWS, late_weights=True)),
            "rmsnorm_f32_r65536_late_w_inv": (rmsnorm_kernel, dict(rows=ROWS, late_weights=True,
                                                                   load_after_inverse=True)),
            "rmsnorm_f32_r65536_reread": (rmsnorm_kernel, dict(rows=ROWS, reread=True)),
            "rmsnorm_f32_r65536_reread_inv": (rmsnorm_kernel, dict(rows=ROWS, reread=True,
                                                                   load_after_inverse=True)),
            "rmsnorm_f32_r65536_rows2": (rmsnorm_kernel, dict(rows=ROWS, rows_per_block=2)),
            "rmsnorm_f32_r65536_rows4": (rmsnorm_kernel, dict(rows=ROWS, rows_per_block=4)),
            "rmsnorm_bf16_r65536": (rmsnorm_bf16_kernel, dict(rows=ROWS))}
