"""The Hopper GEMM (tile_mlir.kernels.gemm_hopper, M a runtime size, as
tile_mlir.ops launches it) against cuBLAS
(torch.matmul, the faster of B row major and Bt's layout) and Triton's
matmul, and e4m3 against torch._scaled_mm with and without its fast
accumulation: bf16 and fp16 at 4096^3, 8192^3 and 512 x 8192 x 8192, e4m3
at 4096^3 and 8192^3. Each kernel is checked bit for bit on
integer-valued data and against float64 on random normal data. The
baseline (`--baseline REV`) is REV's entry of the same name: a kernel of
a constant M before 2026-12-07."""

import torch

from tile_mlir.kernels.configs import HopperGemmConfig

from . import kernels
from .artifacts import beside
from .matmul_peers import REPEATS, ROUNDS, TORCH_DTYPE, references, run_report
from .timing import timed_rounds

SHAPES = {"bfloat16": ((4096,) * 3, (8192,) * 3, (512, 8192, 8192)), "float16": ((4096,) * 3, (8192,) * 3,
          (512, 8192, 8192)), "e4m3": ((4096,) * 3, (8192,) * 3)}


ENTRIES = {f"hopper_{dtype}_{m}x{n}x{k}":
           (lambda n=n, k=k, dtype=dtype: kernels("gemm_hopper").hopper_gemm(None, n, k, dtype))
           for dtype, shapes in SHAPES.items() for m, n, k in shapes}
# The kernels these replaced: the same entry of the baseline commit (449a9d8
# and before: M a constant).
BASELINE = {name: ("bench/gemm_hopper.py", "ENTRIES", name) for name in ENTRIES}


def problem(name):
    """(m, n, k, dtype) of an entry, from its name (M is the kernel's runtime size)."""
    _, dtype, shape = name.split("_")[:3]
    return (*map(int, shape.split("x")), dtype)


def launcher(kernel, m, n, dtype):
    """The kernel as a call on (A, Bt, C): a kernel of a runtime M on the
    grid the op launches it with, one of a constant M on its own."""
    if kernel.grid is not None:
        return kernel
    grid = (HopperGemmConfig.best(dtype).grid(m, n), 1, 1)
    return lambda *arrays, **options: kernel(*arrays, grid=grid, **options)


def fp8_entry(name, kernel, baseline=None, base_name=None):
    """The e4m3 kernel (C = A Bt^T in bf16, their bits) against
    torch._scaled_mm with unit scales on the same data: bit for bit on
    integer data in {-1, 0, 1} (every partial sum exact), and recorded for
    {-4, ..., 4} (sums to 2^16: whether the tensor cores' fp8 accumulation
    keeps them); the error on random normal e4m3 data against float64,
    beside _scaled_mm's; timed."""
    m, n, k, _ = problem(name)
    kernel = launcher(kernel, m, n, "e4m3")
    entry = {"shape": [m, n, k], "dtype": "e4m3", "output": "bfloat16"}
    one = torch.tensor(1.0, device="cuda")
    c = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    gen = torch.Generator(device="cuda").manual_seed(3)

    def fp8(values):
        return values.to(torch.float8_e4m3fn)

    for key, bound in (("bit_exact_integer_data", 1), ("bit_exact_integer_data_to_4", 4)):
        a = fp8(torch.randint(-bound, bound + 1, (m, k), device="cuda", generator=gen).float())
        b = fp8(torch.randint(-bound, bound + 1, (n, k), device="cuda", generator=gen).float())
        kernel(a.view(torch.uint8), b.view(torch.uint8), c.view(torch.uint16))
        torch.cuda.synchronize()
        want = (a.double() @ b.double().t()).to(torch.bfloat16)
        entry[key] = bool(torch.equal(c, want))
    x = fp8(torch.randn(m, k, device="cuda", generator=gen))
    yt = fp8(torch.randn(n, k, device="cuda", generator=gen))
    exact = x.double() @ yt.double().t()
    scale = float(exact.abs().max())
    kernel(x.view(torch.uint8), yt.view(torch.uint8), c.view(torch.uint16))
    torch.cuda.synchronize()
    entry["max_error_relative_to_max"] = float((c.double() - exact).abs().max()) / scale
    scaled = torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    entry["scaled_mm_max_error_relative_to_max"] = float((scaled.double() - exact).abs().max()) / scale
    # With fast accumulation cuBLASLt keeps the sums in the tensor cores'
    # accumulator, as this kernel does.
    fast = torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True)
    entry["scaled_mm_fast_accum_max_error_relative_to_max"] = float((fast.double() - exact).abs().max()) / scale
    def launch(k):
        return lambda: k(x.view(torch.uint8), yt.view(torch.uint8), c.view(torch.uint16), sync=False)
    runs = {"tile_mlir": launch(kernel),
            "scaled_mm": lambda: torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
            "scaled_mm_fast_accum": lambda: torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one,
                                                             out_dtype=torch.bfloat16, use_fast_accum=True)}
    timed_rounds(entry, runs, ROUNDS, REPEATS, beside(launch, baseline, base_name))
    entry["TFLOPs"] = {key: 2.0 * m * n * k / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_scaled_mm"] = entry["ms"]["scaled_mm"] / entry["ms"]["tile_mlir"]
    entry["ratio_vs_scaled_mm_fast_accum"] = entry["ms"]["scaled_mm_fast_accum"] / entry["ms"]["tile_mlir"]
    return entry


def half_entry(kernel, name, tri, baseline=None, base_name=None):
    """A bf16 or fp16 kernel (C in the inputs' type, its bits) against cuBLAS
    on both layouts of B and Triton: bit for bit on integer data, the error
    on random normal data beside cuBLAS's, timed."""
    m, n, k, dtype = problem(name)
    kernel = launcher(kernel, m, n, dtype)
    entry = {"shape": [m, n, k], "dtype": dtype, "output": dtype}
    A, B, want, x, y, exact, scale, cublas_error = references(m, n, k, dtype)
    bt, yt = B.t().contiguous(), y.t().contiguous()
    c = torch.empty((m, n), device="cuda", dtype=TORCH_DTYPE[dtype])
    kernel(A, bt, c.view(torch.uint16))
    torch.cuda.synchronize()
    entry["bit_exact_integer_data"] = bool(torch.equal(c, want.to(TORCH_DTYPE[dtype])))
    kernel(x.view(torch.uint16), yt.view(torch.uint16), c.view(torch.uint16))
    torch.cuda.synchronize()
    entry["max_error_relative_to_max"] = float((c.double() - exact).abs().max()) / scale
    entry["cublas_max_error_relative_to_max"] = cublas_error
    def launch(k):
        return lambda: k(x.view(torch.uint16), yt.view(torch.uint16), c.view(torch.uint16), sync=False)
    runs = {"tile_mlir": launch(kernel), "cublas": lambda: torch.matmul(x, y),
            "cublas_bt": lambda: torch.matmul(x, yt.t())}
    if tri:
        runs["triton"] = lambda: tri(x, y)
    timed_rounds(entry, runs, ROUNDS, REPEATS, beside(launch, baseline, base_name))
    entry["TFLOPs"] = {key: 2.0 * m * n * k / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_cublas"] = min(entry["ms"]["cublas"], entry["ms"]["cublas_bt"]) / entry["ms"]["tile_mlir"]
    if "triton" in runs:
        entry["ratio_vs_triton"] = entry["ms"]["triton"] / entry["ms"]["tile_mlir"]
    return entry


def run(artifacts, report_path):
    run_report(artifacts, report_path, lambda name, kernel, tri, *base: (
        fp8_entry(name, kernel, *base) if "e4m3" in name else half_entry(kernel, name, tri, *base)))
