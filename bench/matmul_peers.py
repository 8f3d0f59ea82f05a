"""The GEMM benchmarks' peers and reference data (GPU side): Triton's
matmul, and each shape's inputs with their float64 products, computed once
a shape."""

import json

import numpy as np
import torch

from tile_mlir.kernels.reference import gemm as gemm_reference

from .artifacts import kernels as artifact_kernels

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


def run_report(artifacts, report_path, entry_of):
    """A GEMM benchmark's run: every artifact's entry, `entry_of(name,
    kernel, triton, baseline, baseline's name)`, against Triton's matmul and
    the peers its entry times; the report rewritten after every kernel, so
    that a run cut short keeps what it measured."""
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": ROUNDS,
              "repeats": REPEATS, "kernels": {}}
    tri, report["triton"] = triton_matmul()
    for name, kernel, baseline, base_name in artifact_kernels(artifacts):
        entry = report["kernels"][name] = entry_of(name, kernel, tri, baseline, base_name)
        print(name, {key: round(v, 3) for key, v in entry.items() if key.startswith("ratio")},
              {key: entry[key] for key in ("bit_exact_integer_data", "max_error_relative_to_max") if key in entry},
              flush=True)
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)
