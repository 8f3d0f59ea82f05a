"""tile_mlir.ops.rms_norm and softmax at the widths models use besides
4096, and one off whole 16-byte vectors (a value a load): 16,384 rows of
1000, 5120 and 8192 values in bf16, fp16 and float32, against torch eager
(F.rms_norm, torch.softmax) and a copy of the same bytes, 3 rounds,
medians; each result bit for bit against the kernel's stated order
(reference/rmsnorm.py, reference/softmax.py) on 32 rows, the softmax
within ex2.approx's error (its ulps), and against float64. The ops load
their kernels from the ops cache that `build` filled."""

import json
import os

import numpy as np
import torch
import torch.nn.functional as F

from tile_mlir.kernels.reference import rmsnorm as rms_reference
from tile_mlir.kernels.reference import softmax as softmax_reference

from .timing import median_ms

ROWS, CHECKED, ROUNDS, EPS = 16384, 32, 3, 1e-6
WIDTHS = (1000, 1001, 5120, 8192)
DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
ENTRIES = {}


def cases():
    for dtype in DTYPES:
        for width in WIDTHS:
            yield dtype, width


def build(out):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out)
    import tile_mlir.ops as ops
    for dtype, width in cases():
        x = torch.empty(ROWS, width, dtype=DTYPES[dtype], device="meta")
        ops.precompile("rms_norm", x, torch.empty(width, dtype=DTYPES[dtype], device="meta"), EPS)
        ops.precompile("softmax", x)
        print(dtype, width, "precompiled", flush=True)


def as_bits(t):
    """numpy of a float32 tensor, or a 16-bit one's bits as uint16."""
    t = t.detach().cpu()
    return t.numpy() if t.dtype == torch.float32 else t.view(torch.int16).numpy().view(np.uint16)


def ulps(got, want, dtype):
    """The largest distance in units of the last place (16-bit: of the type)."""
    if dtype == "float32":
        return int(np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64)).max())
    return int(np.abs(got.astype(np.int64) - want.astype(np.int64)).max())


def entry_of(dtype, width, ops):
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(ROWS, width, device="cuda", generator=gen).to(DTYPES[dtype])
    w = torch.randn(width, device="cuda", generator=gen).to(DTYPES[dtype])
    copy_out = torch.empty_like(x)
    y, s = ops.rms_norm(x, w, EPS), ops.softmax(x)
    xs, ws = as_bits(x[:CHECKED]), as_bits(w)
    want_y = rms_reference.reference_rows(xs, ws, dtype, eps=EPS)
    want_s = softmax_reference.reference(xs, dtype)
    xd = x.double()
    exact_y = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + EPS) * w.double()
    exact_s = torch.softmax(xd, -1)
    entry = {"shape": [ROWS, width], "dtype": dtype,
             "rms_norm_bit_exact_vs_stated_order": bool(np.array_equal(as_bits(y[:CHECKED]), want_y)),
             "softmax_ulps_vs_stated_order": ulps(as_bits(s[:CHECKED]), want_s, dtype),
             "rms_norm_max_error_vs_float64": float((y.double() - exact_y).abs().max()),
             "torch_rms_norm_max_error_vs_float64": float((F.rms_norm(x, (width,), w, EPS).double()
                                                           - exact_y).abs().max()),
             "softmax_max_error_vs_float64": float((s.double() - exact_s).abs().max()),
             "torch_softmax_max_error_vs_float64": float((torch.softmax(x, -1).double() - exact_s).abs().max())}
    runs = {"rms_norm": lambda: ops.rms_norm(x, w, EPS), "torch_rms_norm": lambda: F.rms_norm(x, (width,), w, EPS),
            "softmax": lambda: ops.softmax(x), "torch_softmax": lambda: torch.softmax(x, -1),
            "copy": lambda: copy_out.copy_(x)}
    rounds = {key: [median_ms(fn) for _ in range(ROUNDS)] for key, fn in runs.items()}
    entry["ms"] = {key: float(np.median(v)) for key, v in rounds.items()}
    nbytes = 2 * x.numel() * x.element_size()
    entry["GBps"] = {key: nbytes / ms / 1e6 for key, ms in entry["ms"].items()}
    entry["ratio_vs_torch"] = {op: entry["ms"][f"torch_{op}"] / entry["ms"][op] for op in ("rms_norm", "softmax")}
    entry["of_copy"] = {op: entry["ms"]["copy"] / entry["ms"][op] for op in ("rms_norm", "softmax")}
    return entry


def run(artifacts, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": ROWS, "kernels": {}}
    for dtype, width in cases():
        entry = report["kernels"][f"{dtype}_w{width}"] = entry_of(dtype, width, ops)
        print(dtype, width, {k: round(v, 3) for k, v in entry["ratio_vs_torch"].items()},
              {k: round(v, 3) for k, v in entry["of_copy"].items()}, entry["rms_norm_bit_exact_vs_stated_order"],
              entry["softmax_ulps_vs_stated_order"], flush=True)
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)
