#!/usr/bin/env python3
"""Times the bench/gemm kernels (fp16 and bf16, 4096^3 and 8192^3) against
torch.matmul (cuBLAS) and Triton's matmul, and the s8 kernel against
torch._int_mm, in one run, 3 rounds of 10
launches, medians; checks each kernel bit for bit against numpy on
integer-valued data (gemm_reference.py) and against torch on random
normal data (the largest error relative to the result's scale). The
kernels named *_tma* take B as N x K (K contiguous); cuBLAS and Triton
then multiply the same layout.

    PYTHONPATH=python python3 bench/gemm/run.py build/gemm bench/gemm/results.json
"""

import json
import os
import re
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gpu"))
from run import timed_rounds  # noqa: E402  (bench/gpu/run.py's timing)

sys.path.insert(0, HERE)
import gemm_reference  # noqa: E402
from tile_mlir import runtime  # noqa: E402

ROUNDS, REPEATS = 3, 10
TORCH_DTYPE = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def triton_matmul():
    """Triton's matmul: triton.ops.matmul where the installed Triton has it
    (removed in Triton 3), else the Triton tutorial's kernel (03-matrix-
    multiplication) with its autotuned configurations for Hopper-class
    GPUs; (function, name)."""
    try:
        from triton.ops import matmul
        return matmul, "triton.ops.matmul"
    except Exception:  # noqa: BLE001
        pass
    import triton
    import triton.language as tl

    configs = [triton.Config({"BM": bm, "BN": bn, "BK": bk, "G": 8}, num_stages=s, num_warps=w)
               for bm, bn, bk, s, w in ((128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4),
                                        (128, 128, 32, 4, 4), (64, 256, 32, 4, 4))]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        npm, npn = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = pid // (G * npn)
        first = group * G
        size = min(npm - first, G)
        pm = first + (pid % (G * npn)) % size
        pn = (pid % (G * npn)) // size
        rm = (pm * BM + tl.arange(0, BM)) % M
        rn = (pn * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * sam + rk[None, :] * sak
        pb = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(tl.load(pa), tl.load(pb), acc)
            pa += BK * sak
            pb += BK * sbk
        cm = pm * BM + tl.arange(0, BM)
        cn = pn * BN + tl.arange(0, BN)
        # Masked: a skinny M (64) is less than the block's rows.
        tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))

    def matmul(x, y):
        m, k = x.shape
        n = y.shape[1]
        out = torch.empty((m, n), device=x.device, dtype=x.dtype)
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)  # noqa: E731
        kernel[grid](x, y, out, m, n, k, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                     out.stride(0), out.stride(1))
        return out
    return matmul, "Triton tutorial 03 matmul (autotuned)"


def run_int8(kernel):
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
    runs = {"tile_mlir": lambda: kernel(a, bt, c, sync=False), "torch_int_mm": lambda: torch._int_mm(a, b_cols),
            "torch_int_mm_row_major_b": lambda: torch._int_mm(a, b)}
    timed_rounds(entry, runs, ROUNDS, REPEATS)
    entry["TOPs"] = {key: 2.0 * m * n * k / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_torch_int_mm"] = entry["ms"]["torch_int_mm"] / entry["ms"]["tile_mlir"]
    print(f"int8 {m}^3", {key: round(v, 1) for key, v in entry["TOPs"].items()},
          "x%.3f torch._int_mm" % entry["ratio_vs_torch_int_mm"], "bit-exact",
          entry["bit_exact_vs_int64_modulo_2_32"])
    return entry


_REFERENCES = {}


def references(m, n, k, dtype):
    """The inputs of a (shape, dtype) and their float64 products, computed
    once for every kernel of that shape (an 8192^3 float64 product takes
    seconds): integer-valued bits and data, random normal data."""
    key = (m, n, k, dtype)
    if key not in _REFERENCES:
        a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, dtype)
        A = torch.from_numpy(a_bits.view(np.int16)).cuda().view(torch.uint16)
        B = torch.from_numpy(b_bits.view(np.int16)).cuda().view(torch.uint16)
        want = (torch.from_numpy(a).cuda().double() @ torch.from_numpy(b).cuda().double()).float()
        gen = torch.Generator(device="cuda").manual_seed(1)
        x = torch.randn(m, k, device="cuda", generator=gen).to(TORCH_DTYPE[dtype])
        y = torch.randn(k, n, device="cuda", generator=gen).to(TORCH_DTYPE[dtype])
        exact = x.double() @ y.double()
        scale = float(exact.abs().max())
        cublas = torch.matmul(x, y)
        cublas_error = float((cublas.double() - exact).abs().max()) / scale
        _REFERENCES.clear()  # one shape's tensors at a time
        _REFERENCES[key] = (A, B, want, x, y, exact, scale, cublas_error)
    return _REFERENCES[key]


def main(artifacts, report_path):
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": ROUNDS,
              "repeats": REPEATS, "kernels": {}}
    tri, report["triton"] = triton_matmul()
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json")):
        name = file[:-5]
        kernel = runtime.load(os.path.join(artifacts, file))
        if "int8" in name:
            report["kernels"][name] = run_int8(kernel)
            with open(report_path, "w") as f:
                json.dump(report, f, indent=1)
            continue
        if kernel.params[0].shape[0] is None:
            # Compiled for every size (runtime_*): the shape and the block
            # tile from the name, the sizes as arguments, a 2-D grid.
            m, n, k = map(int, re.search(r"_(\d+)x(\d+)x(\d+)_", name).groups())
            bm, bn = map(int, re.search(r"_t(\d+)x(\d+)", name).groups())
            sizes, grid = (m, n, k), (-(-n // bn), -(-m // bm))
        else:
            (m, k), (_, n) = kernel.params[0].shape, kernel.params[1].shape
            sizes, grid = (), None

        def call(a, b, c, sync=True):
            return kernel(a, b, c, *sizes, grid=grid, sync=sync)
        dtype = "bfloat16" if "bfloat16" in name else "float16"
        entry = {"shape": [m, n, k], "dtype": dtype}
        A, B, want, x, y, exact, scale, cublas_error = references(m, n, k, dtype)
        if "_tma" in name:
            # B given N x K (K contiguous), as the TMA kernels take it; the
            # peers multiply by the same layout (y.t() of a contiguous N x K).
            B, y = B.t().contiguous(), y.t().contiguous().t()
        # The kernel's B bits: y's, or the contiguous N x K under y.
        b_arg = (y.t() if "_tma" in name else y).view(torch.uint16)
        # Bit-exact on integer-valued data.
        c = torch.empty((m, n), device="cuda", dtype=torch.float32)
        call(A, B, c)
        torch.cuda.synchronize()
        entry["bit_exact_integer_data"] = bool(torch.equal(c, want))
        # Random normal data against cuBLAS in float64.
        call(x.view(torch.uint16), b_arg, c)
        entry["max_error_relative_to_max"] = float((c.double() - exact).abs().max()) / scale
        entry["cublas_max_error_relative_to_max"] = cublas_error
        flops = 2.0 * m * n * k
        runs = {"tile_mlir": lambda: call(x.view(torch.uint16), b_arg, c, sync=False),
                "cublas": lambda: torch.matmul(x, y)}
        # The tutorial kernel masks no K: a K that is not a multiple of its
        # steps (64) reads past the rows of A.
        if tri and k % 64 == 0:
            runs["triton"] = lambda: tri(x, y)
        timed_rounds(entry, runs, ROUNDS, REPEATS)
        entry["TFLOPs"] = {key: flops / ms / 1e9 for key, ms in entry["ms"].items()}
        entry["ratio_vs_cublas"] = entry["ms"]["cublas"] / entry["ms"]["tile_mlir"]
        if "triton" in runs:
            entry["ratio_vs_triton"] = entry["ms"]["triton"] / entry["ms"]["tile_mlir"]
        report["kernels"][name] = entry
        print(name, {k: round(v, 1) for k, v in entry["TFLOPs"].items()}, "x%.3f cuBLAS" % entry["ratio_vs_cublas"],
              "bit-exact", entry["bit_exact_integer_data"], "rel err %.2e (cuBLAS %.2e)" % (
                  entry["max_error_relative_to_max"], entry["cublas_max_error_relative_to_max"]), flush=True)
        # After every kernel: a run cut short keeps what it measured.
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
