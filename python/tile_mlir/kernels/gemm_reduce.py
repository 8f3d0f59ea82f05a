"""The second half of a split-K GEMM (gemm_hopper with `split_k` > 1):
C = the partials' sum, scaled and rounded. The partial GEMM stores each of
its `split` slices of K as float32 W[s] (split, M, N); here each thread
takes four columns of a row, adds the slices in order (W[0] + W[1] + ...,
add.rn.f32, so the result does not depend on which block ran first), then
applies the scales as the one-pass kernel does (per tensor: times the
scales' product, rounded once; rowwise: times its row's, then its
column's) and rounds once to C's 16-bit type (float32: as it is).

`transposed`: the partial GEMM computed C^T = B^T A^T (swap-AB: a short M
as the GEMM's N, N's rows as its tiles), so W is (split, N, M rounded up
to 8); each thread reads its four columns of C's row as four words of W
and writes C (M, N) as the one-pass kernel would.
"""

from typing import Optional

from .. import script as T
from .configs import SPLIT_K_REDUCE_THREADS, split_k_reduce_grid
from .gemm_hopper import scale_product

THREADS = SPLIT_K_REDUCE_THREADS
KINDS = {"bfloat16": "bf16", "float16": "f16", "float32": None}  # C's type: its rounding (float32: none)
SCALES = ("none", "tensor", "row")


def _scale_vector(acc, scales, ScaleA, ScaleB, row, col):
    """acc (4, 1), the four columns from `col` of `row`, times the scales."""
    if scales == "tensor":
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], acc, acc, scale_product(ScaleA, ScaleB).broadcast((4, 1)))
    elif scales == "row":
        by_row, by_col = T.alloc_local((1, 1), "float32"), T.alloc_local((1, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], by_row, ScaleA[row:row + 1])
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], by_col, ScaleB[0:1, col:col + 4])
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], acc, acc, by_row.broadcast((4, 1)))
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], acc, acc, by_col.reshape((4, 1)))


def _store(C, acc, row, col, kind):
    """acc (1, 4) into C's row from `col`: as it is (float32), or rounded
    to pairs of `kind` (cvt.rn.*x2.f32 d, a, b puts a in the upper half:
    the pair's second column)."""
    if kind is None:
        T.cuda.tile.apply(T.ptx["st.global.v4.f32"], C[row:row + 1, col:col + 4], acc)
        return
    packed = T.alloc_local((1, 2), "uint32")
    pairs = acc.reshape((2, 2))
    T.cuda.tile.apply(T.ptx[f"cvt.rn.{kind}x2.f32"], packed.reshape((2, 1)), pairs[:, 1:2], pairs[:, 0:1])
    T.cuda.tile.apply(T.ptx["st.global.v2.b32"], C[row:row + 1, col:col + 4].view("uint32"), packed)


def split_k_reduce(m: Optional[int], n: int, split: int, out_dtype: str = "bfloat16", scales: str = "none",
                   transposed: bool = False):
    """The kernel: a T.function of (W, C), W (split, m, n) float32 (or
    `transposed`, (split, n, m rounded up to 8)) and C (m, n) as its 16-bit
    bits (float32 `out_dtype`: as it is); with `scales` "tensor" of (W, C, ScaleA, ScaleB) two (1, 1)
    float32, "row" ScaleA (m, 1) and ScaleB (1, n). `m` None: C's rows
    are each launch's (read from C), the grid configs.split_k_reduce_grid(m, n)."""
    if out_dtype not in KINDS or scales not in SCALES:
        raise ValueError(f"C is one of {sorted(KINDS)} and scales one of {SCALES}, got {out_dtype!r}, {scales!r}")
    if n % 4 or min(e for e in (m, n, split) if e is not None) < 1:
        raise ValueError(f"a thread takes four columns: N {n} is not a multiple of 4, or an empty problem")
    quads = n // 4
    grid = None if m is None else split_k_reduce_grid(m, n)
    kind = KINDS[out_dtype]

    def load(W, s, dst, row, col):
        """dst (1, 4) = slice s's four values of C's row `row` from `col`."""
        if not transposed:
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], dst, W[s, row:row + 1, col:col + 4])
            return
        for j in range(4):
            T.cuda.tile.apply(T.ptx["ld.global.f32"], dst[0:1, j:j + 1], W[s, col + j:col + j + 1, row:row + 1])

    def body(W, C, ScaleA=None, ScaleB=None):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=THREADS))
        vectors = C.extent(0) * quads
        blocks = T.grid_dim() if grid is None else grid
        for v in T.serial(T.block_id() * THREADS + T.thread_id(), vectors, blocks * THREADS):
            row, col = v // quads, v % quads * 4
            acc, part = T.alloc_local((1, 4), "float32"), T.alloc_local((1, 4), "float32")
            load(W, 0, acc, row, col)
            for s in range(1, split):
                load(W, s, part, row, col)
                T.cuda.tile.apply(T.ptx["add.rn.f32"], acc.reshape((4, 1)), acc.reshape((4, 1)),
                                  part.reshape((4, 1)))
            _scale_vector(acc.reshape((4, 1)), scales, ScaleA, ScaleB, row, col)
            _store(C, acc, row, col, kind)

    w_shape = (split, n, None if m is None else -(-m // 8) * 8) if transposed else (split, m, n)
    w_param, c_param = T.Tensor(w_shape, "float32"), T.Tensor((m, n), "uint16" if kind else "float32")
    if scales == "none":
        @T.function
        def reduce(W: w_param, C: c_param):
            body(W, C)
        return reduce
    shapes = ((1, 1), (1, 1)) if scales == "tensor" else ((m, 1), (1, n))

    @T.function
    def reduce(W: w_param, C: c_param, ScaleA: T.Tensor(shapes[0], "float32"), ScaleB: T.Tensor(shapes[1], "float32")):
        body(W, C, ScaleA, ScaleB)
    return reduce
