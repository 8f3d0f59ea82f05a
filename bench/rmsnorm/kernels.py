"""RMSNorm over rows of 4096 fp32 values, y = x / sqrt(mean(x^2) + eps) * w,
written with the tile_mlir script front end: one block of `threads` (256
unless given) per row, 16-byte vector loads, a warp-shuffle reduction and
one exchange of the warps' partial sums through shared memory.

Every rounding is IEEE (mul.rn, add.rn, sqrt.rn, rcp.rn), so the result is
a function of the reduction order alone, which rmsnorm_reference.py states
in numpy (with 256 threads, V = 4 vectors each, W = 8 warps):

1. thread t holds x[row, 4 threads k + 4 t + j] for k < V, j < 4 (16-byte
   vectors at 4 threads-value strides: each load is coalesced across the
   block); it sums their squares in order k, j, starting from the first;
2. the warp adds partners' sums in five butterfly steps (16, 8, 4, 2, 1);
3. lane 0 of warp w stores its sum in shared memory; after bar.sync every
   thread adds the W partial sums in order;
4. mean = sum * (1/4096) (exact), inv = rcp.rn(sqrt.rn(mean + eps)), and
   y = (x * inv) * w.
"""

from rmsnorm_reference import COLUMNS, EPS, THREADS, WARPS, Layout
from tile_mlir import script as T
from tile_mlir.pipelining.reductions import block_reduce


def rmsnorm_kernel(rows, grid=None, buffers=2, rows_per_block=1, threads=THREADS, x_priority=None,
                   out_priority=None):
    """One block of `threads` per row, or per `rows_per_block` rows (the
    block loads every row's x before it reduces the first, so more bytes
    are in flight per thread and w serves them all), or with `grid`, that
    many blocks looping over the rows (row i * grid + block), w loaded once
    per block. A block that loops exchanges its warps' sums through
    `buffers` alternating shared arrays: with 2, one barrier per row orders
    everything (row i + 2 writes what row i read only after every thread
    passed row i + 1's barrier); with 1, the next row's stores race with
    this row's loads, which the interpreter reports.

    `x_priority` and `out_priority` (an L2 eviction priority: "evict_last",
    "evict_first", ...) give the loads of x or the stores of Out a cache
    policy of that priority for every line (createpolicy.fractional and
    .L2::cache_hint). On the H200, x's loads with evict_last reach
    torch.compile's speed, which none of the layouts without it did
    (bench/README.md)."""
    layout = Layout(threads)
    blocks = rows // rows_per_block if grid is None else grid
    if rows % blocks:
        raise ValueError(f"{rows} rows do not split over {blocks} blocks")

    @T.function
    def rmsnorm(X: T.Tensor((rows, COLUMNS), "float32"), W: T.Tensor((COLUMNS,), "float32"),
                Out: T.Tensor((rows, COLUMNS), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=threads))
        partials = T.alloc_shared((max(buffers, rows_per_block), layout.warps, 1), "float32")
        t = T.thread_id()
        w = T.alloc_local((layout.vectors, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], w, layout.held(W)[:, t])
        access = Access(layout, x_priority, out_priority)
        if grid is None:
            normalize_rows(X, Out, w, partials, T.block_id() * rows_per_block, rows_per_block, t, layout, access)
        else:
            for i in T.serial(0, rows // grid):
                buffer = i % buffers
                normalize_rows(X, Out, w, partials[buffer:buffer + 1], i * grid + T.block_id(), 1, t, layout,
                               access)

    return rmsnorm


def cache_policy(priority):
    """A 64-bit register holding an L2 policy of `priority` for every line
    it is used on."""
    policy = T.alloc_local((1, 1), "uint64")
    T.cuda.tile.apply(T.ptx[f"createpolicy.fractional.L2::{priority}.b64"], policy)
    return policy


class Access:
    """The loads of x and the stores of Out, each plain or with an L2 cache
    policy of the given priority."""

    def __init__(self, layout, x_priority=None, out_priority=None):
        self.vectors = layout.vectors
        self.x_policy = cache_policy(x_priority) if x_priority else None
        self.out_policy = cache_policy(out_priority) if out_priority else None

    def load(self, x, source):
        self._apply("ld.global", self.x_policy, x, source)

    def store(self, target, x):
        self._apply("st.global", self.out_policy, target, x)

    def _apply(self, access, policy, *operands):
        if policy is None:
            T.cuda.tile.apply(T.ptx[f"{access}.v4.f32"], *operands)
        else:
            T.cuda.tile.apply(T.ptx[f"{access}.L2::cache_hint.v4.f32"], *operands,
                              policy.broadcast((self.vectors, 1)))


def normalize_rows(X, Out, w, partials, first, count, t, layout, access):
    """Rows first .. first + count - 1: every row's x loaded, then each row
    normalized (its warps' sums through its own shared array) and stored."""
    held = []
    for r in range(count):
        x = T.alloc_local((layout.vectors, 4), "float32")
        access.load(x, layout.held(X[first + r])[:, t])
        held.append(x)
    for r, x in enumerate(held):
        normalize_held(x.reshape((layout.per_thread, 1)), w.reshape((layout.per_thread, 1)), partials[r], t,
                       layout)
        access.store(layout.held(Out[first + r])[:, t], x)


def normalize_held(flat, w, partials, t, layout=Layout(THREADS)):
    """Steps 1-4 on a thread's values `flat` (per_thread, 1) float32, in
    place, with its weights `w`."""
    squares = T.alloc_local((layout.per_thread, 1), "float32")
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], squares, flat, flat)
    total = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), squares[0:1].view("uint32"))
    for i in range(1, layout.per_thread):
        T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, squares[i:i + 1])

    block_reduce(total, partials, t, "add.rn.f32")

    T.cuda.tile.apply(T.ptx["mul.rn.f32"], total, total, T.float32(1.0 / COLUMNS))
    T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, T.float32(EPS))
    T.cuda.tile.apply(T.ptx["sqrt.rn.f32"], total, total)
    T.cuda.tile.apply(T.ptx["rcp.rn.f32"], total, total)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, total.broadcast((layout.per_thread, 1)))
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
        partials = T.alloc_shared((WARPS, 1), "float32")  # 256 threads: the default layout
        t, row = T.thread_id(), T.block_id()
        pairs = T.alloc_local((2, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], pairs, W.view("uint32").reshape((2, THREADS, 4))[:, t])
        w = widen_bf16(pairs)
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], pairs,
                          X[row].view("uint32").reshape((2, THREADS, 4))[:, t])
        v = widen_bf16(pairs)
        per_thread = Layout(THREADS).per_thread
        normalize_held(v.reshape((per_thread, 1)), w.reshape((per_thread, 1)), partials, t)
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
            "rmsnorm_f32_r65536_rows2": (rmsnorm_kernel, dict(rows=ROWS, rows_per_block=2)),
            "rmsnorm_f32_r65536_rows4": (rmsnorm_kernel, dict(rows=ROWS, rows_per_block=4)),
            "rmsnorm_f32_r65536_t128": (rmsnorm_kernel, dict(rows=ROWS, threads=128)),
            "rmsnorm_f32_r65536_t512": (rmsnorm_kernel, dict(rows=ROWS, threads=512)),
            "rmsnorm_f32_r65536_t1024": (rmsnorm_kernel, dict(rows=ROWS, threads=1024)),
            "rmsnorm_f32_r65536_t512_rows2": (rmsnorm_kernel, dict(rows=ROWS, threads=512, rows_per_block=2)),
            # x's lines kept in L2 with evict_last, Out's evicted first.
            "rmsnorm_f32_r65536_x_evict_last": (rmsnorm_kernel, dict(rows=ROWS, x_priority="evict_last")),
            "rmsnorm_f32_r65536_t512_x_evict_last": (rmsnorm_kernel, dict(rows=ROWS, threads=512,
                                                                          x_priority="evict_last")),
            "rmsnorm_f32_r65536_t512_x_evict_last_out_evict_first": (
                rmsnorm_kernel, dict(rows=ROWS, threads=512, x_priority="evict_last", out_priority="evict_first")),
            "rmsnorm_f32_r65536_rows2_x_evict_last": (rmsnorm_kernel, dict(rows=ROWS, rows_per_block=2,
                                                                           x_priority="evict_last")),
            "rmsnorm_bf16_r65536": (rmsnorm_bf16_kernel, dict(rows=ROWS))}
