"""RMSNorm (tile_mlir.kernels.rmsnorm) over 65,536 rows of 4,096 fp32 or bf16
values against torch eager, torch.compile of the same expression and a
copy of the same bytes, 5 rounds, medians; each result against float64
and bit for bit against the kernel's stated order on 64 rows."""

import json
import os

import numpy as np
import torch

from tile_mlir import runtime
from tile_mlir.kernels.reference import rmsnorm as rmsnorm_reference

from . import kernels
from .timing import bandwidth_entry, bandwidth_rounds, print_bandwidth



ENTRIES = {"rmsnorm_f32_r65536": lambda: kernels("rmsnorm").rmsnorm(65536),
           "rmsnorm_bf16_r65536": lambda: kernels("rmsnorm").rmsnorm(65536, "bfloat16")}


ROWS, COLUMNS, EPS = 65536, 4096, 1e-6
ROUNDS = 5
CHECKED_ROWS = 64


def rmsnorm_eager(x, w):
    """torch's expression, in the inputs' dtype (bf16 computes the mean in
    bf16 as a user writing it would get)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def bits(t):
    """A bf16 tensor's bits as numpy uint16."""
    return t.view(torch.int16).cpu().numpy().view(np.uint16)


def run(artifacts, report_path):
    gen = torch.Generator(device="cuda").manual_seed(0)
    x32 = torch.randn(ROWS, COLUMNS, device="cuda", generator=gen)
    w32 = torch.randn(COLUMNS, device="cuda", generator=gen)
    inputs = {"f32": (x32, w32), "bf16": (x32.to(torch.bfloat16), w32.to(torch.bfloat16))}
    compiled = torch.compile(rmsnorm_eager)
    report = {"device": torch.cuda.get_device_name(), "shape": [ROWS, COLUMNS], "torch": torch.__version__,
              "dtypes": {}}
    for dtype, (x, w) in inputs.items():
        nbytes = 2 * x.numel() * x.element_size()
        copy_out = torch.empty_like(x)
        xd, wd = x.double(), w.double()
        exact = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + EPS) * wd
        peers = {"eager": lambda: rmsnorm_eager(x, w), "compile": lambda: compiled(x, w),
                 "copy": lambda: copy_out.copy_(x)}
        entry = bandwidth_entry(nbytes, peers, exact)
        runs = {}
        for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json") and f"_{dtype}_" in f):
            name = file[:-5]
            kernel = runtime.load(os.path.join(artifacts, file))
            args = (x, w) if dtype == "f32" else (x.view(torch.int16), w.view(torch.int16))
            out = torch.empty_like(args[0])
            kernel(*args, out)
            torch.cuda.synchronize()
            sample = slice(0, CHECKED_ROWS)
            if dtype == "f32":
                want = rmsnorm_reference.reference(x[sample].cpu().numpy(), w.cpu().numpy(),
                                                   threads=kernel.block[0]).view(np.uint32)
                got = out[sample].cpu().numpy().view(np.uint32)
                value = out
            else:
                want = rmsnorm_reference.reference_bf16(bits(x[sample]), bits(w))
                got = out[sample].cpu().numpy().view(np.uint16)
                value = out.view(torch.bfloat16)
            runs[name] = lambda kernel=kernel, args=args, out=out: kernel(*args, out, sync=False)
            entry["variants"][name] = {
                "max_abs_error_vs_float64": float((value.double() - exact).abs().max()),
                "bit_exact_vs_stated_order_64_rows": bool(np.array_equal(got, want)),
                "rounds": []}
        bandwidth_rounds(entry, peers, runs, ROUNDS)
        report["dtypes"][dtype] = entry
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print_bandwidth(report, lambda v: f"bit-exact vs stated order {v['bit_exact_vs_stated_order_64_rows']}")
