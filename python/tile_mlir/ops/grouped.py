"""tile_mlir.ops.grouped_matmul: the mixture-of-experts GEMM of each
expert's rows by its own weights (issue 59; kernels/gemm_grouped.py), in
the two layouts DeepGEMM and torch._grouped_mm take:

- masked, `grouped_matmul(a, b, counts=counts)`: a (E, capacity, K),
  counts (E,) int32, the rows of each expert in use (0 to capacity); C
  (E, capacity, N), each expert's first counts[e] rows a_e @ b_e (decode:
  a fixed grid for any counts, so a CUDA graph captures it);
- contiguous, `grouped_matmul(a, b, offs=offs)`: a (M, K), the experts'
  rows back to back, offs (E,) int32 the end of each expert's rows
  (torch._grouped_mm's convention: expert e has rows offs[e - 1] to
  offs[e], the first from 0); C (M, N). The schedule (each tile's expert,
  first row and end) is made from the offsets on the device by torch
  (searchsorted over the tiles' cumulative counts: no host
  synchronization).

Block-scaled e4m3 (DeepSeek-V3's format, DeepGEMM's promotion): a and b
torch.float8_e4m3fn with float32 `scale_a` (a's rows by K / 128: 1 x 128
blocks) and `scale_b` (E, N / 128, K / 128: 128 x 128 blocks); each block
of 128 of K multiplied on the tensor cores into a fresh partial, which is
added to the total outside them, times the blocks' scales' product
(rounded once); C bf16. N and K multiples of 128.

b (E, K, N), bf16 or fp16 as a, is taken as it is where it is the
transposed view of a contiguous (E, N, K) (a Linear weight's layout, out
by in), else copied once to it; N a multiple of 64 and K of 8 (TMA's
rows: whole 16 bytes). C is rounded once to the inputs' type; its rows
in no expert (past the count, or past offs[-1]) are zeros (C is
allocated zeroed: the kernel never writes them). A count past the
capacity, or offsets that decrease or pass M, are the caller's bug: the
interpreter reports a count (the GPU takes it clamped) and offsets fail
an asynchronous device assertion (torch._assert_async: no
synchronization); nothing is written out of bounds either way.
"""

from typing import Optional

import torch

from . import launch
from .launch import require

DTYPES = (torch.bfloat16, torch.float16, torch.float8_e4m3fn)
E4M3 = torch.float8_e4m3fn
BLOCK = 128  # e4m3's scale blocks: 1 x 128 of a, 128 x 128 of b


def check(a: torch.Tensor, b: torch.Tensor, counts=None, offs=None, scale_a=None, scale_b=None):
    """(E, rows, N, K) of a valid call (rows: the capacity, or M), or the
    error naming the argument."""
    launch.tensor(a, "a", (2, 3), DTYPES)
    launch.tensor(b, "b", (3,), DTYPES)
    launch.same_placement(a=a, b=b)
    name, groups = ("counts", counts) if a.dim() == 3 else ("offs", offs)
    other = "offs" if a.dim() == 3 else "counts"
    require(groups is not None, name, f"missing: a of {a.dim()} dimensions takes {name}")
    require((offs if a.dim() == 3 else counts) is None, other, f"given with a of {a.dim()} dimensions (it takes "
            f"{name})")
    launch.tensor(groups, name, (1,), (torch.int32,))
    require(groups.device == a.device, name, f"on {groups.device}; a is on {a.device}")
    *lead, rows, k = a.shape
    e, k_b, n = b.shape
    require(not lead or lead[0] == e, "b", f"{e} experts; a has {lead[0] if lead else 0}")
    require(k_b == k, "b", f"its {k_b} rows do not match a's {k} columns")
    require(groups.shape[0] == e, name, f"{groups.shape[0]} {name} for {e} experts")
    require(min(e, rows, n, k) >= 1, "a", f"an empty problem: {e} experts, {rows} rows, {n} x {k}")
    require(n % 64 == 0, "b", f"N {n} is not a multiple of 64 (the kernel's tiles)")
    require(k % 8 == 0, "a", f"K {k} is not a multiple of 8 (TMA's rows are whole 16 bytes)")
    _check_scales(a, (e, rows, n, k), scale_a, scale_b)
    return e, rows, n, k


def _check_scales(a, extents, scale_a, scale_b):
    """e4m3 takes float32 block scales, scale_a of a's rows by K / 128 (a's
    leading dimensions first) and scale_b (E, N / 128, K / 128); the 16-bit
    types take none."""
    e, rows, n, k = extents
    if a.dtype != E4M3:
        require(scale_a is None and scale_b is None, "scale_a" if scale_a is not None else "scale_b",
                f"given for {a.dtype}: only e4m3 takes block scales")
        return
    require(k % BLOCK == 0 and n % BLOCK == 0, "b", f"N {n} and K {k}: e4m3's scale blocks are 128 x 128")
    want = {"scale_a": (*a.shape[:-1], k // BLOCK), "scale_b": (e, n // BLOCK, k // BLOCK)}
    for name, scale in (("scale_a", scale_a), ("scale_b", scale_b)):
        require(scale is not None, name, "missing: e4m3 takes block scales")
        launch.tensor(scale, name, (len(want[name]),), (torch.float32,))
        require(tuple(scale.shape) == want[name], name, f"shape {tuple(scale.shape)}; the blocks make "
                f"{want[name]}")
        require(scale.device == a.device, name, f"on {scale.device}; a is on {a.device}")


def _config(n, experts, dtype):
    """The tile: 128 x 256 for 16-bit inputs of at most 8 experts, where it
    measured faster than 128 x 128 (an H100, one run of ops_grouped's
    16-bit cases both ways: 7 of DeepSeek-V3's 8 cases of 8 experts by
    5-19%, one 2% slower; all 11 of 64 or more experts slower, by 4-22%);
    else 128 x 128 (e4m3's scale blocks are 128 columns), or 64 where N is
    not a multiple of 128."""
    from ..kernels.configs import GroupedGemmConfig  # no MLIR: the GPU machine runs precompiled kernels
    if dtype != E4M3 and experts <= 8 and n % 256 == 0:
        return GroupedGemmConfig(bn=256)
    return GroupedGemmConfig(bn=128 if n % 128 == 0 else 64)  # e4m3: N a multiple of 128, checked


def schedule(offs: torch.Tensor, rows: int, bm: int, table_rows: int) -> torch.Tensor:
    """The contiguous layout's tiles (table_rows, 4) int32: (expert, first
    row, end of its rows, 0), each expert's rows in tiles of bm in order;
    rows past the last tile end at 0. On the device, without reading the
    offsets on the host; offsets that decrease or pass `rows` fail
    torch._assert_async."""
    ends = offs.long()
    starts = torch.cat([ends.new_zeros(1), ends[:-1]])
    torch._assert_async(((ends >= starts).all() & (ends[-1] <= rows)))
    tiles = (ends - starts + bm - 1) // bm
    last = torch.cumsum(tiles, 0)
    tau = torch.arange(table_rows, device=offs.device)
    expert = torch.searchsorted(last, tau, right=True).clamp(max=ends.numel() - 1)
    row0 = starts[expert] + (tau - (last - tiles)[expert]) * bm
    live = tau < last[-1]
    table = torch.stack([expert, torch.where(live, row0, 0), torch.where(live, ends[expert], 0),
                         torch.zeros_like(tau)], -1)
    return table.int()


def grouped_matmul_impl(a: torch.Tensor, b: torch.Tensor, counts: Optional[torch.Tensor] = None,
                        offs: Optional[torch.Tensor] = None, scale_a: Optional[torch.Tensor] = None,
                        scale_b: Optional[torch.Tensor] = None) -> torch.Tensor:
    e, rows, n, k = check(a, b, counts, offs, scale_a, scale_b)
    a_rows = launch.aligned(a.contiguous())
    bt = b.transpose(1, 2)
    bt = launch.aligned(bt if bt.is_contiguous() else bt.contiguous())
    c = torch.zeros((*a.shape[:-1], n), dtype=_out_dtype(a), device=a.device)
    config, dtype = _config(n, e, a.dtype), launch.NAMES[a.dtype]
    layout = "masked" if a.dim() == 3 else "contiguous"
    spec = {"op": "grouped_matmul", "kernel": f"grouped_gemm_{layout}", "shape": [e, rows, n, k],
            "bn": config.bn, **({"dtype": dtype} if dtype != "bfloat16" else {})}

    def build():
        from ..kernels import gemm_grouped as G
        if layout == "masked":
            return G.grouped_gemm_masked(G.MaskedProblem(e, rows, n, k, dtype), config)
        return G.grouped_gemm_contiguous(G.ContiguousProblem(e, rows, n, k, dtype), config)
    if layout == "masked":
        groups = counts.view(e, 1)
    else:
        bm = 64 * config.consumers
        groups = schedule(offs, rows, bm, -(-rows // bm) + e)
    scales = [] if scale_a is None else [scale_a.contiguous(), scale_b.contiguous()]
    args = [launch.bits(a_rows), launch.bits(bt), launch.bits(c), groups, *scales]
    launch.by_signature(("grouped_matmul", layout, e, rows, n, k, a.dtype), a, lambda: None,
                        lambda _: [(spec, build)], lambda _: [args])
    return c


grouped_matmul_op = torch.library.custom_op("tile_mlir::grouped_matmul", mutates_args=())(grouped_matmul_impl)


@grouped_matmul_op.register_fake
def _(a, b, counts=None, offs=None, scale_a=None, scale_b=None):
    _, _, n, _ = check(a, b, counts, offs, scale_a, scale_b)
    return a.new_empty((*a.shape[:-1], n), dtype=_out_dtype(a))


def _out_dtype(a):
    """C's type: the inputs' 16-bit type, bf16 for e4m3."""
    return torch.bfloat16 if a.dtype == E4M3 else a.dtype


def grouped_matmul(a, b, counts=None, offs=None, scale_a=None, scale_b=None):
    """The module docstring's product, through the op (torch.compile
    traces it; autograd does not follow it)."""
    given = (("counts", counts), ("offs", offs), ("scale_a", scale_a), ("scale_b", scale_b))
    launch.tensors(a=a, b=b, **{name: t for name, t in given if t is not None})
    return grouped_matmul_op(a, b, counts, offs, scale_a, scale_b)
