"""tile_mlir.ops.grouped_matmul(a, b, counts): the mixture-of-experts
GEMM of each expert's rows by its own weights, in the masked layout
(issue 59, first step; kernels/gemm_grouped.py):

    a (E, capacity, K), b (E, K, N): bf16 or fp16; counts (E,) int32, the
    rows of each expert in use (0 to capacity);
    C (E, capacity, N) = a_e @ b_e on each expert's first counts[e] rows,
    rounded once to the inputs' type; the rows past the count are zeros
    (C is allocated zeroed: the kernel never writes them).

b is taken as it is where it is the transposed view of a contiguous (E, N,
K) (a Linear weight's layout, out by in), else copied once to it; N a
multiple of 64 and K of 8 (TMA's rows: whole 16 bytes). The counts stay
on the device: one launch with a fixed grid serves any counts, so a
CUDA graph captures it (decode). A count past the capacity is a caller's
bug: the interpreter reports it; the GPU takes it clamped.
"""

import torch

from . import launch
from .launch import require

DTYPES = (torch.bfloat16, torch.float16)


def check(a: torch.Tensor, b: torch.Tensor, counts: torch.Tensor):
    """(E, capacity, N, K) of a valid call, or the error naming the
    argument."""
    launch.tensor(a, "a", (3,), DTYPES)
    launch.tensor(b, "b", (3,), DTYPES)
    launch.tensor(counts, "counts", (1,), (torch.int32,))
    launch.same_placement(a=a, b=b)
    require(counts.device == a.device, "counts", f"on {counts.device}; a is on {a.device}")
    (e, cap, k), (e_b, k_b, n) = a.shape, b.shape
    require(e_b == e, "b", f"{e_b} experts; a has {e}")
    require(k_b == k, "b", f"its {k_b} rows do not match a's {k} columns")
    require(counts.shape[0] == e, "counts", f"{counts.shape[0]} counts for {e} experts")
    require(min(e, cap, n, k) >= 1, "a", f"an empty problem: {e} experts of {cap} rows, {n} x {k}")
    require(n % 64 == 0, "b", f"N {n} is not a multiple of 64 (the kernel's tiles)")
    require(k % 8 == 0, "a", f"K {k} is not a multiple of 8 (TMA's rows are whole 16 bytes)")
    return e, cap, n, k


def _config(n):
    from ..kernels.gemm_grouped import GroupedGemmConfig
    return GroupedGemmConfig(bn=128 if n % 128 == 0 else 64)


def grouped_matmul_impl(a: torch.Tensor, b: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    e, cap, n, k = check(a, b, counts)
    a_rows = launch.aligned(a.contiguous())
    bt = b.transpose(1, 2)
    bt = launch.aligned(bt if bt.is_contiguous() else bt.contiguous())
    c = torch.zeros((e, cap, n), dtype=a.dtype, device=a.device)
    config = _config(n)
    spec = {"op": "grouped_matmul", "kernel": "grouped_gemm_masked", "shape": [e, cap, n, k],
            "bn": config.bn, **({"dtype": "float16"} if a.dtype == torch.float16 else {})}

    def build():
        from ..kernels.gemm_grouped import MaskedProblem, grouped_gemm_masked
        return grouped_gemm_masked(MaskedProblem(e, cap, n, k, launch.NAMES[a.dtype]), config)
    args = [launch.bits(a_rows), launch.bits(bt), launch.bits(c), counts.view(e, 1)]
    launch.by_signature(("grouped_matmul", e, cap, n, k, a.dtype), a, lambda: None, lambda _: [(spec, build)],
                        lambda _: [args])
    return c


grouped_matmul_op = torch.library.custom_op("tile_mlir::grouped_matmul", mutates_args=())(grouped_matmul_impl)


@grouped_matmul_op.register_fake
def _(a, b, counts):
    e, cap, n, _ = check(a, b, counts)
    return a.new_empty((e, cap, n))


def grouped_matmul(a, b, counts):
    """The module docstring's product, through the op (torch.compile
    traces it; autograd does not follow it)."""
    launch.tensors(a=a, b=b, counts=counts)
    return grouped_matmul_op(a, b, counts)
