"""The mma.sync GEMM (tile_mlir.kernels.gemm_mma) against cuBLAS
(torch.matmul) and Triton's matmul on the same layout (Bt, K contiguous):
bf16 and fp16 at 4096^3, 8192^3 and 64 x 8192 x 8192; s8 against
torch._int_mm at 4096^3 and 8192^3. Each kernel is checked bit for bit on
integer-valued data (s8: modulo 2^32 on the full range) and against
float64 on random normal data."""

import torch

from . import kernels
from .artifacts import beside
from .matmul_peers import REPEATS, ROUNDS, references, run_report
from .timing import timed_rounds

SHAPES = ((4096,) * 3, (8192,) * 3, (64, 8192, 8192))


def _gemm(m, n, k, dtype):
    return lambda: kernels("gemm_mma").gemm_mma(m, n, k, dtype)


ENTRIES = {f"mma_{dtype}_{m}x{n}x{k}": _gemm(m, n, k, dtype) for dtype in ("bfloat16", "float16") for m, n, k in SHAPES}
ENTRIES.update({f"mma_int8_{s}x{s}x{s}": _gemm(s, s, s, "int8") for s in (4096, 8192)})
# The kernels these replaced: bench/gemm/kernels.py's winners (commit
# 14ca50e and before).
BASELINE = {f"mma_{dtype}_{m}x{n}x{k}": ("bench/gemm/kernels.py", "VARIANTS", f"gemm_{dtype}_64x8192x8192_"
                                         "t64x32x64s8_tma_prefetch" if m == 64 else
                                         f"gemm_{dtype}_{m}_t128x256x64s4_tma_prefetch")
            for dtype in ("bfloat16", "float16") for m, n, k in SHAPES}
BASELINE.update({f"mma_int8_{s}x{s}x{s}": ("bench/gemm/kernels.py", "VARIANTS",
                                           f"gemm_int8_{s}_t128x256x128s4_tma_prefetch") for s in (4096, 8192)})


def run_int8(kernel, baseline=None, base_name=None):
    """The s8 kernel (C = A Bt^T, s32) against torch._int_mm on the same
    data: bit for bit against the exact product modulo 2^32 on the full s8
    range, and timed."""
    (m, k), (n, _) = kernel.params[0].shape, kernel.params[1].shape
    gen = torch.Generator(device="cuda").manual_seed(2)
    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8, generator=gen)
    b = torch.randint(-128, 128, (k, n), device="cuda", dtype=torch.int8, generator=gen)
    bt = b.t().contiguous()
    c = torch.empty((m, n), device="cuda", dtype=torch.int32)
    kernel(a, bt, c)
    torch.cuda.synchronize()
    # Exact in float64 on the GPU: |sum| <= 2^14 K < 2^53.
    want = (a.double() @ b.double()).long()
    entry = {"shape": [m, n, k], "dtype": "int8",
             "bit_exact_vs_int64_modulo_2_32": bool(torch.equal(c.long(), ((want + 2**31) % 2**32) - 2**31))}
    # torch._int_mm on the kernel's layout (B column major: Bt row major),
    # cuBLASLt's fast one; row-major B ran 7x slower on the H200.
    b_cols = bt.t()

    def launch(k):
        return lambda: k(a, bt, c, sync=False)
    runs = {"tile_mlir": launch(kernel), "torch_int_mm": lambda: torch._int_mm(a, b_cols),
            "torch_int_mm_row_major_b": lambda: torch._int_mm(a, b)}
    timed_rounds(entry, runs, ROUNDS, REPEATS, beside(launch, baseline, base_name))
    entry["TOPs"] = {key: 2.0 * m * n * k / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_torch_int_mm"] = entry["ms"]["torch_int_mm"] / entry["ms"]["tile_mlir"]
    return entry


def half_entry(kernel, name, tri, baseline=None, base_name=None):
    """A bf16 or fp16 kernel (f32 C) against cuBLAS and Triton on Bt's
    layout: bit for bit on integer data, the error on random normal data
    beside cuBLAS's, timed."""
    (m, k), (n, _) = kernel.params[0].shape, kernel.params[1].shape
    dtype = "bfloat16" if "bfloat16" in name else "float16"
    entry = {"shape": [m, n, k], "dtype": dtype}
    A, B, want, x, y, exact, scale, cublas_error = references(m, n, k, dtype)
    # Bt (N x K, K contiguous); the peers multiply the same layout.
    bt, y = B.t().contiguous(), y.t().contiguous().t()
    c = torch.empty((m, n), device="cuda", dtype=torch.float32)
    kernel(A, bt, c)
    torch.cuda.synchronize()
    entry["bit_exact_integer_data"] = bool(torch.equal(c, want))
    kernel(x.view(torch.uint16), y.t().view(torch.uint16), c)
    torch.cuda.synchronize()
    entry["max_error_relative_to_max"] = float((c.double() - exact).abs().max()) / scale
    entry["cublas_max_error_relative_to_max"] = cublas_error

    def launch(kern):
        return lambda: kern(x.view(torch.uint16), y.t().view(torch.uint16), c, sync=False)
    runs = {"tile_mlir": launch(kernel), "cublas": lambda: torch.matmul(x, y)}
    if tri:
        runs["triton"] = lambda: tri(x, y)
    timed_rounds(entry, runs, ROUNDS, REPEATS, beside(launch, baseline, base_name))
    entry["TFLOPs"] = {key: 2.0 * m * n * k / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_cublas"] = entry["ms"]["cublas"] / entry["ms"]["tile_mlir"]
    if "triton" in runs:
        entry["ratio_vs_triton"] = entry["ms"]["triton"] / entry["ms"]["tile_mlir"]
    return entry


def run(artifacts, report_path):
    run_report(artifacts, report_path, lambda name, kernel, tri, *base: (
        run_int8(kernel, *base) if "int8" in name else half_entry(kernel, name, tri, *base)))
