"""The sum of 2^28 float32 values (tile_mlir.kernels.reduce_sum) against
torch.sum eager and compiled and a copy, 5 rounds, medians; the per-block
partial sums bit for bit against the stated order, the total against
float64 within the bound of the blocks' atomic additions in any order."""

import json
import os

import numpy as np
import torch

from tile_mlir import runtime
from tile_mlir.kernels.reference import reduce_sum as sum_reference

from . import kernels
from .timing import median_ms, medians_with_ranges



ENTRIES = {"sum_f32_n2p28": lambda: kernels("reduce_sum").reduce_sum(1 << 28)}


N = 1 << 28
ROUNDS = 5


def run(artifacts, report_path):
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(N, device="cuda", generator=gen)
    copy_out = torch.empty_like(x)
    compiled = torch.compile(torch.sum)
    peers = {"eager": lambda: torch.sum(x), "compile": lambda: compiled(x), "copy": lambda: copy_out.copy_(x)}
    exact = float(x.double().sum())
    report = {"device": torch.cuda.get_device_name(), "n": N, "bytes_read": 4 * N, "torch": torch.__version__,
              "float64_sum": exact, "peers": {}, "variants": {}}
    for name in ("eager", "compile"):
        report["peers"][name] = {"abs_error_vs_float64": abs(float(peers[name]()) - exact), "rounds": []}
    report["peers"]["copy"] = {"rounds": []}
    host = x.cpu().numpy()
    runs = {}
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json")):
        name = file[:-5]
        kernel = runtime.load(os.path.join(artifacts, file))
        blocks = kernel.grid[0]
        parts = torch.zeros(blocks, 1, device="cuda")
        total = torch.zeros(1, 1, device="cuda")
        kernel(x, parts, total)
        torch.cuda.synchronize()
        want = sum_reference.partials(host, blocks)
        got = parts.cpu().numpy().ravel()
        error = abs(float(total.item()) - exact)
        runs[name] = (kernel, parts, total)
        report["variants"][name] = {
            "blocks": blocks,
            "partials_bit_exact_vs_stated_order": bool(np.array_equal(got.view(np.uint32), want.view(np.uint32))),
            "abs_error_vs_float64": error,
            "atomic_bound": sum_reference.atomic_bound(want) + abs(float(want.astype(np.float64).sum()) - exact),
            "rounds": []}
    for _ in range(ROUNDS):
        peer_ms = {name: median_ms(fn) for name, fn in peers.items()}
        for name, ms in peer_ms.items():
            report["peers"][name]["rounds"].append(ms)
        best = min(peer_ms["eager"], peer_ms["compile"])

        for name, (kernel, parts, total) in runs.items():
            def launch():
                total.zero_()
                kernel(x, parts, total, sync=False)
            zero_ms = median_ms(lambda: total.zero_())
            ms = median_ms(launch) - zero_ms
            # copy moves 2 * 4N bytes, the sum reads 4N: the ratio of bandwidths
            report["variants"][name]["rounds"].append({
                "ms": ms, "ratio_vs_best_torch": best / ms, "ratio_vs_copy_bandwidth": peer_ms["copy"] / (2 * ms)})
    for peer in report["peers"].values():
        peer["ms"] = float(np.median(peer["rounds"]))
    report["peers"]["copy"]["GBps"] = 2 * 4 * N / report["peers"]["copy"]["ms"] / 1e6
    for name in ("eager", "compile"):
        report["peers"][name]["GBps"] = 4 * N / report["peers"][name]["ms"] / 1e6
    for v in report["variants"].values():
        v["GBps"] = 4 * N / medians_with_ranges(v, ("ratio_vs_best_torch", "ratio_vs_copy_bandwidth")) / 1e6
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    for name, peer in report["peers"].items():
        print(f"torch {name:8s} {peer['GBps']:.0f} GB/s")
    for name, v in report["variants"].items():
        print(f"{name} {v['GBps']:.0f} GB/s  x{v['ratio_vs_best_torch']:.3f} best torch "
              f"{v['ratio_vs_best_torch_range']}  {v['ratio_vs_copy_bandwidth']:.3f} of copy  "
              f"partials bit-exact {v['partials_bit_exact_vs_stated_order']}  "
              f"error {v['abs_error_vs_float64']:.3g} (bound {v['atomic_bound']:.3g})")
