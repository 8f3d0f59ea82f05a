"""tile_mlir.ops.grouped_matmul (the masked layout, issue 59's first
step) at DeepSeek-V3's expert shapes (hidden 7168, expert intermediate
2048: gate and up together N 4096 by K 7168, down N 7168 by K 2048), 8
and 64 experts of a capacity of 256 and 1024 rows, each expert's count
drawn uniformly from half the capacity to all of it (decode's masked
layout), bf16, against the peers the device's torch has: torch.bmm and
torch._grouped_mm on the whole capacity (they take no counts: they
multiply every row) and a loop of torch.matmul over each expert's counted
rows (the counts read on the host first, untimed). TFLOP/s count the
rows in use. And the contiguous layout: 4096 and 16,384 tokens split
among the experts at random ends, against torch._grouped_mm on the same
offsets and a loop of torch.matmul. Each result is checked against
float64 on the first experts' rows (relative to the largest element). The op loads its kernel from the ops
cache that `build` filled."""

import json
import os

import torch

from .timing import timed_rounds

SHAPES = {"gate_up": (4096, 7168), "down": (7168, 2048)}  # (N, K) of DeepSeek-V3's experts
EXPERTS, CAPACITIES = (8, 64), (256, 1024)
ROUNDS, REPEATS = 3, 10
ENTRIES = {}


TOKENS = (4096, 16384)  # the contiguous layout's rows, all experts'


def cases():
    for name, (n, k) in SHAPES.items():
        for e in EXPERTS:
            for cap in CAPACITIES:
                yield f"grouped_{name}_e{e}_cap{cap}", (e, cap, n, k)
            for tokens in TOKENS:
                yield f"grouped_contiguous_{name}_e{e}_m{tokens}", (e, -tokens, n, k)


def build(out):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out)
    import tile_mlir.ops as ops
    for name, (e, cap, n, k) in cases():
        meta = dict(device="meta", dtype=torch.bfloat16)
        groups = torch.empty(e, dtype=torch.int32, device="meta")
        if cap > 0:
            ops.precompile("grouped_matmul", torch.empty(e, cap, k, **meta), torch.empty(e, k, n, **meta),
                           counts=groups)
        else:
            ops.precompile("grouped_matmul", torch.empty(-cap, k, **meta), torch.empty(e, k, n, **meta), offs=groups)
        print(name, "precompiled", flush=True)


def contiguous_entry(shape, ops):
    """The contiguous layout: `tokens` rows split among the experts at
    random ends (multiples of 16), against torch._grouped_mm on the same
    offsets and a loop of torch.matmul."""
    e, tokens, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(tokens, k, device="cuda", generator=gen).bfloat16()
    b = torch.randn(e, n, k, device="cuda", generator=gen).bfloat16().transpose(1, 2)
    cuts = torch.sort(torch.randint(0, tokens // 16 + 1, (e - 1,), device="cuda", generator=gen)).values * 16
    offs = torch.cat([cuts, torch.tensor([tokens], device="cuda")]).int()
    got = ops.grouped_matmul(a, b, offs=offs)
    ends = offs.tolist()
    starts = [0] + ends[:-1]
    first = next(i for i in range(e) if ends[i] > starts[i])  # the first expert with rows
    exact = a[starts[first]:ends[first]].double() @ b[first].double()
    entry = {"shape": [e, tokens, n, k], "rows_in_use": tokens, "max_error_relative_to_max":
             float((got[starts[first]:ends[first]].double() - exact).abs().max() / exact.abs().max())}
    runs = {"tile_mlir": lambda: ops.grouped_matmul(a, b, offs=offs),
            "matmul_loop": lambda: [torch.matmul(a[s:t], b[i]) for i, (s, t) in enumerate(zip(starts, ends))]}
    if hasattr(torch, "_grouped_mm"):
        try:
            torch._grouped_mm(a, b, offs=offs)
            runs["grouped_mm"] = lambda: torch._grouped_mm(a, b, offs=offs)
        except RuntimeError as why:
            entry["grouped_mm_unavailable"] = str(why).splitlines()[0][:200]
    return entry, runs, 2.0 * tokens * n * k


def entry_of(shape, ops):
    if shape[1] < 0:
        entry, runs, flops = contiguous_entry((shape[0], -shape[1], *shape[2:]), ops)
        timed_rounds(entry, runs, ROUNDS, REPEATS)
        return _rates(entry, flops)
    e, cap, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(e, cap, k, device="cuda", generator=gen).bfloat16()
    w = torch.randn(e, n, k, device="cuda", generator=gen).bfloat16()  # a Linear weight's layout
    counts = torch.randint(cap // 2, cap + 1, (e,), device="cuda", generator=gen, dtype=torch.int32)
    b = w.transpose(1, 2)
    got = ops.grouped_matmul(a, b, counts=counts)
    host_counts = counts.tolist()
    worst = 0.0
    for i, m in enumerate(host_counts[:2]):
        exact = a[i, :m].double() @ b[i].double()
        worst = max(worst, float((got[i, :m].double() - exact).abs().max() / exact.abs().max()))
    runs = {"tile_mlir": lambda: ops.grouped_matmul(a, b, counts=counts), "bmm": lambda: torch.bmm(a, b),
            "matmul_loop": lambda: [torch.matmul(a[i, :m], b[i]) for i, m in enumerate(host_counts)]}
    entry = {"shape": [e, cap, n, k], "rows_in_use": sum(host_counts), "max_error_relative_to_max": worst}
    if hasattr(torch, "_grouped_mm"):
        try:
            torch._grouped_mm(a, b)
            runs["grouped_mm"] = lambda: torch._grouped_mm(a, b)
        except RuntimeError as why:
            entry["grouped_mm_unavailable"] = str(why).splitlines()[0][:200]
    timed_rounds(entry, runs, ROUNDS, REPEATS)
    return _rates(entry, 2.0 * sum(host_counts) * n * k)


def _rates(entry, flops):
    entry["TFLOPs"] = {key: flops / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_best_peer"] = min(ms for key, ms in entry["ms"].items() if key != "tile_mlir") / \
        entry["ms"]["tile_mlir"]
    return entry


def run(artifacts, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": ROUNDS,
              "repeats": REPEATS, "kernels": {}}
    for name, shape in cases():
        entry = report["kernels"][name] = entry_of(shape, ops)
        print(name, "x%.3f best peer" % entry["ratio_vs_best_peer"],
              {key: round(v, 1) for key, v in entry["TFLOPs"].items()},
              "rel err %.2e" % entry["max_error_relative_to_max"], flush=True)
        ratios = [entry["ratio_vs_best_peer"] for entry in report["kernels"].values()]
        report["summary"] = {"geomean_ratio_vs_best_peer": float(torch.tensor(ratios).log().mean().exp()),
                             "entries": len(ratios)}
        with open(report_path, "w") as f:  # the report so far
            json.dump(report, f, indent=1)
