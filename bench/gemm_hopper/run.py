#!/usr/bin/env python3
"""Times the bench/gemm_hopper kernels (C = A Bt^T, bf16 and fp16, 4096^3
and 8192^3) against torch.matmul (cuBLAS, on B row major and on Bt's
layout) and Triton's matmul, and the e4m3 ones against torch._scaled_mm,
in one run, 3 rounds of 10 launches, medians;
checks each kernel bit for bit against numpy on integer-valued data and
against float64 on random normal data (the largest error relative to the
result's scale), as bench/gemm/run.py does.

    PYTHONPATH=python python3 bench/gemm_hopper/run.py build/gemm_hopper bench/gemm_hopper/results.json
"""

import importlib.util
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gemm"))
# bench/gemm/run.py under its own name (it imports bench/gpu/run.py as run).
_spec = importlib.util.spec_from_file_location("gemm_run", os.path.join(HERE, "..", "gemm", "run.py"))
gemm_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gemm_run)
ROUNDS, REPEATS, timed_rounds = gemm_run.ROUNDS, gemm_run.REPEATS, gemm_run.timed_rounds
references, triton_matmul = gemm_run.references, gemm_run.triton_matmul

from tile_mlir import runtime  # noqa: E402

TORCH_DTYPE = gemm_run.TORCH_DTYPE


def zeroed_scratch(kernel):
    """The tensors a kernel takes after A, Bt and C, zeroed once: a
    stream-K kernel's workspace and flags (it leaves the flags zero)."""
    return [torch.zeros(param.shape, device="cuda", dtype=getattr(torch, param.dtype))
            for param in kernel.params[3:]]


def ours_and_cublas(kernel, name, gen):
    """Random normal A and Bt for a 16-bit kernel (bf16 where `name` says
    so, else fp16), and two calls on them, not waited for: the kernel (C in
    the inputs' type) and torch.matmul on Bt's layout."""
    (m, k), (n, _) = kernel.params[0].shape, kernel.params[1].shape
    dtype = torch.bfloat16 if "bfloat16" in name else torch.float16
    x = torch.randn(m, k, device="cuda", generator=gen).to(dtype)
    yt = torch.randn(n, k, device="cuda", generator=gen).to(dtype)
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    scratch = zeroed_scratch(kernel)
    return {"tile_mlir": lambda: kernel(x.view(torch.uint16), yt.view(torch.uint16), c.view(torch.uint16), *scratch,
                                        sync=False),
            "cublas": lambda: torch.matmul(x, yt.t())}


def fp8_entry(kernel):
    """The e4m3 kernel (C = A Bt^T in bf16, their bits) against
    torch._scaled_mm with unit scales on the same data: bit for bit on
    integer data in {-1, 0, 1} (every partial sum exact), and recorded for
    {-4, ..., 4} (sums to 2^16: whether the tensor cores' fp8 accumulation
    keeps them); the error on random normal e4m3 data against float64,
    beside _scaled_mm's; timed."""
    (m, k), (n, _) = kernel.params[0].shape, kernel.params[1].shape
    entry = {"shape": [m, n, k], "dtype": "e4m3", "output": "bfloat16"}
    scratch = zeroed_scratch(kernel)
    one = torch.tensor(1.0, device="cuda")
    c = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    gen = torch.Generator(device="cuda").manual_seed(3)

    def fp8(values):
        return values.to(torch.float8_e4m3fn)

    for key, bound in (("bit_exact_integer_data", 1), ("bit_exact_integer_data_to_4", 4)):
        a = fp8(torch.randint(-bound, bound + 1, (m, k), device="cuda", generator=gen).float())
        b = fp8(torch.randint(-bound, bound + 1, (n, k), device="cuda", generator=gen).float())
        kernel(a.view(torch.uint8), b.view(torch.uint8), c.view(torch.uint16), *scratch)
        torch.cuda.synchronize()
        want = (a.double() @ b.double().t()).to(torch.bfloat16)
        entry[key] = bool(torch.equal(c, want))
    x = fp8(torch.randn(m, k, device="cuda", generator=gen))
    yt = fp8(torch.randn(n, k, device="cuda", generator=gen))
    exact = x.double() @ yt.double().t()
    scale = float(exact.abs().max())
    kernel(x.view(torch.uint8), yt.view(torch.uint8), c.view(torch.uint16), *scratch)
    torch.cuda.synchronize()
    entry["max_error_relative_to_max"] = float((c.double() - exact).abs().max()) / scale
    scaled = torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    entry["scaled_mm_max_error_relative_to_max"] = float((scaled.double() - exact).abs().max()) / scale
    # With fast accumulation cuBLASLt keeps the sums in the tensor cores'
    # accumulator, as this kernel does.
    fast = torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True)
    entry["scaled_mm_fast_accum_max_error_relative_to_max"] = float((fast.double() - exact).abs().max()) / scale
    runs = {"tile_mlir": lambda: kernel(x.view(torch.uint8), yt.view(torch.uint8), c.view(torch.uint16),
                                        *scratch, sync=False),
            "scaled_mm": lambda: torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
            "scaled_mm_fast_accum": lambda: torch._scaled_mm(x, yt.t(), scale_a=one, scale_b=one,
                                                             out_dtype=torch.bfloat16, use_fast_accum=True)}
    timed_rounds(entry, runs, ROUNDS, REPEATS)
    entry["TFLOPs"] = {key: 2.0 * m * n * k / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_scaled_mm"] = entry["ms"]["scaled_mm"] / entry["ms"]["tile_mlir"]
    entry["ratio_vs_scaled_mm_fast_accum"] = entry["ms"]["scaled_mm_fast_accum"] / entry["ms"]["tile_mlir"]
    return entry


def main(artifacts, report_path):
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": ROUNDS,
              "repeats": REPEATS, "kernels": {}}
    tri, report["triton"] = triton_matmul()
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json")):
        name = file[:-5]
        kernel = runtime.load(os.path.join(artifacts, file))
        if "e4m3" in name:
            entry = report["kernels"][name] = fp8_entry(kernel)
            print(name, {key: round(v, 1) for key, v in entry["TFLOPs"].items()},
                  "x%.3f _scaled_mm" % entry["ratio_vs_scaled_mm"],
                  "x%.3f fast accum" % entry["ratio_vs_scaled_mm_fast_accum"], "bit-exact", entry["bit_exact_integer_data"],
                  entry["bit_exact_integer_data_to_4"], "rel err %.2e (_scaled_mm %.2e, fast %.2e)" % (
                      entry["max_error_relative_to_max"], entry["scaled_mm_max_error_relative_to_max"],
                      entry["scaled_mm_fast_accum_max_error_relative_to_max"]), flush=True)
            with open(report_path, "w") as f:
                json.dump(report, f, indent=1)
            continue
        (m, k), (n, _) = kernel.params[0].shape, kernel.params[1].shape
        dtype = "bfloat16" if "bfloat16" in name else "float16"
        entry = {"shape": [m, n, k], "dtype": dtype}
        A, B, want, x, y, exact, scale, cublas_error = references(m, n, k, dtype)
        bt, yt = B.t().contiguous(), y.t().contiguous()
        # C in f32, or in the inputs' type as its bits (rounded to nearest,
        # as torch rounds the exact product's f32 value).
        same = kernel.params[2].dtype == "uint16"
        entry["output"] = dtype if same else "float32"
        torch_type = TORCH_DTYPE[dtype] if same else torch.float32
        c = torch.empty((m, n), device="cuda", dtype=torch_type)
        c_arg = c.view(torch.uint16) if same else c
        scratch = zeroed_scratch(kernel)
        kernel(A, bt, c_arg, *scratch)
        torch.cuda.synchronize()
        entry["bit_exact_integer_data"] = bool(torch.equal(c, want.to(torch_type)))
        kernel(x.view(torch.uint16), yt.view(torch.uint16), c_arg, *scratch)
        torch.cuda.synchronize()
        entry["max_error_relative_to_max"] = float((c.double() - exact).abs().max()) / scale
        entry["cublas_max_error_relative_to_max"] = cublas_error
        flops = 2.0 * m * n * k
        runs = {"tile_mlir": lambda: kernel(x.view(torch.uint16), yt.view(torch.uint16), c_arg, *scratch,
                                            sync=False),
                "cublas": lambda: torch.matmul(x, y), "cublas_bt": lambda: torch.matmul(x, yt.t())}
        if tri:
            runs["triton"] = lambda: tri(x, y)
        timed_rounds(entry, runs, ROUNDS, REPEATS)
        entry["TFLOPs"] = {key: flops / ms / 1e9 for key, ms in entry["ms"].items()}
        best = min(entry["ms"]["cublas"], entry["ms"]["cublas_bt"])
        entry["ratio_vs_cublas"] = best / entry["ms"]["tile_mlir"]
        if "triton" in runs:
            entry["ratio_vs_triton"] = entry["ms"]["triton"] / entry["ms"]["tile_mlir"]
        report["kernels"][name] = entry
        print(name, {key: round(v, 1) for key, v in entry["TFLOPs"].items()},
              "x%.3f cuBLAS" % entry["ratio_vs_cublas"], "bit-exact", entry["bit_exact_integer_data"],
              "rel err %.2e (cuBLAS %.2e)" % (entry["max_error_relative_to_max"],
                                              entry["cublas_max_error_relative_to_max"]), flush=True)
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
