"""Row softmax (tile_mlir.kernels.softmax) over 65,536 rows of 4,096 fp32 or
bf16 values against torch eager, torch.compile and a copy of the same
bytes, 5 rounds, medians; each result against float64, and bit for bit
against the kernel's stated order on 64 rows (bf16; fp32 in ulps, the
difference ex2.approx's)."""

import json
import os

import numpy as np
import torch

from tile_mlir import runtime
from tile_mlir.kernels.reference import softmax as softmax_reference

from . import kernels
from .timing import bandwidth_entry, bandwidth_rounds, print_bandwidth



ENTRIES = {"softmax_f32_r65536": lambda: kernels("softmax").softmax(65536),
           "softmax_bf16_r65536": lambda: kernels("softmax").softmax(65536, "bfloat16")}
# x kept in L2 (evict_last), and Out evicted first: what lifted RMSNorm's
# float32 kernel to torch.compile's speed, tried on softmax's.
ENTRIES.update({f"softmax_f32_r65536{tag}": (lambda kw=kw: kernels("softmax").softmax(
    65536, config=kernels("configs").SoftmaxConfig(**kw)))
    for tag, kw in (("_x_evict_last", dict(x_priority="evict_last")),
                    ("_x_evict_last_out_evict_first", dict(x_priority="evict_last", out_priority="evict_first")))})


ROWS, COLUMNS = 65536, 4096
ROUNDS = 5
CHECKED_ROWS = 64


def softmax(x):
    return torch.softmax(x, dim=-1)


def ulps(got, want, dtype):
    """|got - want| in units in the last place, elementwise, from the bits
    (both finite and of one sign: softmax is positive)."""
    view = np.int32 if dtype == "f32" else np.int16
    return np.abs(got.view(view).astype(np.int64) - want.view(view).astype(np.int64))


def run(artifacts, report_path):
    gen = torch.Generator(device="cuda").manual_seed(0)
    x32 = torch.randn(ROWS, COLUMNS, device="cuda", generator=gen) * 4
    inputs = {"f32": x32, "bf16": x32.to(torch.bfloat16)}
    compiled = torch.compile(softmax)
    report = {"device": torch.cuda.get_device_name(), "shape": [ROWS, COLUMNS], "torch": torch.__version__,
              "dtypes": {}}
    for dtype, x in inputs.items():
        nbytes = 2 * x.numel() * x.element_size()
        copy_out = torch.empty_like(x)
        exact = torch.softmax(x.double(), dim=-1)
        peers = {"eager": lambda: softmax(x), "compile": lambda: compiled(x), "copy": lambda: copy_out.copy_(x)}
        entry = bandwidth_entry(nbytes, peers, exact)
        runs = {}
        for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json") and f"_{dtype}_" in f):
            name = file[:-5]
            kernel = runtime.load(os.path.join(artifacts, file))
            bits_in = x if dtype == "f32" else x.view(torch.int16)
            out = torch.empty_like(bits_in)
            kernel(bits_in, out)
            torch.cuda.synchronize()
            got = out if dtype == "f32" else out.view(torch.bfloat16)
            sample = x[:CHECKED_ROWS].cpu()
            if dtype == "f32":
                want = softmax_reference.softmax_f32(sample.numpy())
            else:
                want = softmax_reference.softmax_bf16(sample.view(torch.int16).numpy().view(np.uint16)).view(np.int16)
            got_sample = out[:CHECKED_ROWS].cpu().numpy()
            distance = ulps(got_sample, want, dtype)
            runs[name] = lambda kernel=kernel, bits_in=bits_in, out=out: kernel(bits_in, out, sync=False)
            entry["variants"][name] = {
                "max_abs_error_vs_float64": float((got.double() - exact).abs().max()),
                "vs_stated_order_64_rows": {"bit_exact_fraction": float((distance == 0).mean()),
                                            "max_ulps": int(distance.max())},
                "rounds": []}
        bandwidth_rounds(entry, peers, runs, ROUNDS)
        report["dtypes"][dtype] = entry
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print_bandwidth(report, lambda v: f"vs stated order {v['vs_stated_order_64_rows']}")
