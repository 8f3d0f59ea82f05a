"""SwiGLU, silu(x) * y over 2^28 bf16 values (tile_mlir.kernels.elementwise),
against torch eager (F.silu(x) * y) and torch.compile of the same
expression, 5 interleaved rounds; the error against float64 in bf16 ulps."""

import json
import os

import numpy as np
import torch

from tile_mlir import runtime

from . import kernels
from .timing import median_ms, medians_with_ranges



ENTRIES = {"swiglu_n2p28": lambda: kernels("elementwise").swiglu(1 << 28)}


ELEMENTS = 1 << 28
ROUNDS = 5
CHUNK = 1 << 24


def swiglu_eager(x, y):
    return torch.nn.functional.silu(x) * y


def errors(got, x, y):
    """Max error against float64 in bf16 ulps of the exact result, the max
    relative error where the result is normal, and how many results are not
    the correctly rounded bf16."""
    worst_ulp, worst_rel, not_rounded = 0.0, 0.0, 0
    for start in range(0, ELEMENTS, CHUNK):
        xs, ys = x[start:start + CHUNK].double(), y[start:start + CHUNK].double()
        exact = xs * ys / (1 + torch.exp(-xs))
        g = got[start:start + CHUNK].double()
        finite = torch.isfinite(exact)
        magnitude = exact.abs().clamp_min(2.0 ** -126)
        ulp = torch.exp2(torch.floor(torch.log2(magnitude)) - 7)
        err = (g - exact).abs()
        worst_ulp = max(worst_ulp, float((err / ulp)[finite].max()))
        normal = finite & (exact.abs() >= 2.0 ** -126)
        worst_rel = max(worst_rel, float((err / exact.abs())[normal].max()))
        rounded = exact.to(torch.bfloat16)
        not_rounded += int(((got[start:start + CHUNK] != rounded) & finite).sum())
    return {"max_ulp": worst_ulp, "max_relative": worst_rel, "not_correctly_rounded": not_rounded}


def run(artifacts, report_path):
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = (torch.randn(ELEMENTS, device="cuda", generator=gen) * 4).to(torch.bfloat16)
    y = torch.randn(ELEMENTS, device="cuda", generator=gen).to(torch.bfloat16)
    nbytes = 3 * ELEMENTS * 2
    compiled = torch.compile(swiglu_eager)
    peers = {"eager": lambda: swiglu_eager(x, y), "compile": lambda: compiled(x, y)}
    report = {"device": torch.cuda.get_device_name(), "elements": ELEMENTS, "bytes_moved": nbytes,
              "torch": torch.__version__, "peers": {}, "variants": {}}
    for name, fn in peers.items():
        report["peers"][name] = {"errors": errors(fn(), x, y), "rounds": []}
    kernels = {}
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json")):
        name = file[:-5]
        kernel = runtime.load(os.path.join(artifacts, file))
        out = torch.empty_like(x)
        args = [t.view(torch.int32).view(kernel.params[0].shape) for t in (x, y, out)]
        kernel(*args)
        torch.cuda.synchronize()
        kernels[name] = (kernel, args)
        report["variants"][name] = {
            "errors": errors(out, x, y),
            "differs_from_compile": int((out != compiled(x, y)).sum()),
            "rounds": []}
    for _ in range(ROUNDS):
        peer_ms = {name: median_ms(fn) for name, fn in peers.items()}
        for name, ms in peer_ms.items():
            report["peers"][name]["rounds"].append(ms)
        best = min(peer_ms.values())
        for name, (kernel, args) in kernels.items():
            ms = median_ms(lambda: kernel(*args, sync=False))
            report["variants"][name]["rounds"].append({"ms": ms, "ratio_vs_best_peer": best / ms,
                                                       "ratio_vs_eager": peer_ms["eager"] / ms,
                                                       "ratio_vs_compile": peer_ms["compile"] / ms})
    for name, peer in report["peers"].items():
        peer["ms"] = float(np.median(peer["rounds"]))
        peer["TBps"] = nbytes / peer["ms"] / 1e9
    for name, v in report["variants"].items():
        v["TBps"] = nbytes / medians_with_ranges(v, ("ratio_vs_best_peer", "ratio_vs_eager", "ratio_vs_compile")) / 1e9
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    for name, peer in report["peers"].items():
        print(f"torch {name:8s} {peer['TBps']:.3f} TB/s  errors {peer['errors']}")
    for name, v in report["variants"].items():
        print(f"{name:14s} {v['TBps']:.3f} TB/s  x{v['ratio_vs_best_peer']:.3f} best peer "
              f"{v['ratio_vs_best_peer_range']}  x{v['ratio_vs_eager']:.3f} eager  "
              f"x{v['ratio_vs_compile']:.3f} compile  errors {v['errors']}  "
              f"differs from compile {v['differs_from_compile']}")
