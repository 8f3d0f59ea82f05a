"""tile_mlir.ops.matmul and scaled_matmul across Llama-3's projections:
the (N, K) of 8B's and 70B's QKV, output, gate-up and down projections at M
1 to 16384 tokens, bf16 against cuBLAS (torch.matmul) and Triton's matmul,
e4m3 against torch._scaled_mm (per-tensor scales, bf16 out, both
accumulation modes). Each op is called as a user calls it (x @ W^T with W
stored (N, K), as nn.Linear keeps it), its kernels loaded from the ops
cache that `build` filled (every autotune candidate: the first call of a
bucket times them on the device). Each entry's error is against cuBLAS's
result, relative to its largest element."""

import json
import math
import os
import re

import torch

from .timing import timed_rounds

# (model, projection): (N, K).
PROJECTIONS = {
    ("8b", "qkv"): (6144, 4096), ("8b", "o"): (4096, 4096), ("8b", "gate_up"): (28672, 4096),
    ("8b", "down"): (4096, 14336),
    ("70b", "qkv"): (10240, 8192), ("70b", "o"): (8192, 8192), ("70b", "gate_up"): (57344, 8192),
    ("70b", "down"): (8192, 28672)}
TOKENS = (1, 16, 128, 1024, 4096, 16384)
DTYPES = ("bfloat16", "e4m3")
ROUNDS, REPEATS = 3, 10
ENTRIES = {}


def cases():
    """(name, dtype, m, n, k) of every entry."""
    for dtype in DTYPES:
        for (model, proj), (n, k) in PROJECTIONS.items():
            for m in TOKENS:
                yield f"{dtype}_{model}_{proj}_m{m}", dtype, m, n, k


def selected():
    """The cases whose names `TILE_MLIR_SWEEP_ONLY` (a regular expression,
    e.g. "_m(1|16|128)$"; unset: all) matches."""
    only = os.environ.get("TILE_MLIR_SWEEP_ONLY", "")
    return [case for case in cases() if not only or re.search(only, case[0])]


def operands(dtype, m, n, k, device, gen=None):
    """x (M, K) and W (N, K) (random normal on a device; empty on meta), and
    the scales of e4m3."""
    make = (lambda shape: torch.empty(shape, device=device)) if device == "meta" else (
        lambda shape: torch.randn(shape, device=device, generator=gen) / shape[-1] ** 0.25)
    x, w = make((m, k)), make((n, k))
    if dtype == "bfloat16":
        return x.to(torch.bfloat16), w.to(torch.bfloat16), None
    scales = [torch.full((), 0.5 if device != "meta" else 1.0, device=device) for _ in range(2)]
    return x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn), scales


def build(out):
    """Every entry's kernels (each autotune candidate), compiled into `out`
    as an ops cache; `TILE_MLIR_SWEEP_PART` "i/n" builds every n-th from
    the i-th (parallel builds into one cache), and `TILE_MLIR_SWEEP_ONLY`
    (as in `run`) only the entries it matches."""
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out)
    import tile_mlir.ops as ops
    part, parts = (int(x) for x in os.environ.get("TILE_MLIR_SWEEP_PART", "0/1").split("/"))
    for i, (name, dtype, m, n, k) in enumerate(selected()):
        if i % parts != part:
            continue
        x, w, scales = operands(dtype, m, n, k, "meta")
        if scales is None:
            ops.precompile("matmul", x, w.t())
        else:
            ops.precompile("scaled_matmul", x, w.t(), *scales)
        print(name, "precompiled", flush=True)


def peers(dtype, x, w, scales, triton):
    """Each peer's launch."""
    if dtype == "bfloat16":
        return {"cublas": lambda: torch.matmul(x, w.t()), "triton": lambda: triton(x, w.t())}
    runs = {}
    for fast in (False, True):
        runs["scaled_mm_fast_accum" if fast else "scaled_mm"] = (
            lambda fast=fast: torch._scaled_mm(x, w.t(), *scales, out_dtype=torch.bfloat16, use_fast_accum=fast))
    return runs


def entry_of(dtype, m, n, k, triton, ops):
    gen = torch.Generator(device="cuda").manual_seed(0)
    x, w, scales = operands(dtype, m, n, k, "cuda", gen)
    ours = (lambda: ops.matmul(x, w.t())) if scales is None else (lambda: ops.scaled_matmul(x, w.t(), *scales))
    runs = {"tile_mlir": ours, **peers(dtype, x, w, scales, triton)}
    got = ours()  # the first call of its bucket tunes
    exact = runs["cublas" if scales is None else "scaled_mm"]()
    entry = {"shape": [m, n, k], "dtype": dtype,
             "max_diff_vs_peer_relative_to_max": float((got.float() - exact.float()).abs().max()
                                                       / exact.float().abs().max().clamp_min(1e-30))}
    timed_rounds(entry, runs, ROUNDS, REPEATS)
    entry["TFLOPs"] = {key: 2.0 * m * n * k / ms / 1e9 for key, ms in entry["ms"].items()}
    best = min(ms for key, ms in entry["ms"].items() if key != "tile_mlir")
    entry["ratio_vs_best_peer"] = best / entry["ms"]["tile_mlir"]
    return entry


def run(artifacts, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    from .matmul_peers import triton_matmul
    triton, triton_name = triton_matmul()
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton_name,
              "rounds": ROUNDS, "repeats": REPEATS, "kernels": {}}
    for name, dtype, m, n, k in selected():
        entry = report["kernels"][name] = entry_of(dtype, m, n, k, triton, ops)
        print(name, "x%.3f best peer" % entry["ratio_vs_best_peer"],
              {key: round(v, 1) for key, v in entry["TFLOPs"].items()}, flush=True)
        torch.cuda.empty_cache()
        summarize(report)
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)


def summarize(report):
    """Per dtype: the geometric mean of the ratios, the lowest, and the
    worst five entries."""
    report["summary"] = {}
    for dtype in DTYPES:
        ratios = {name: e["ratio_vs_best_peer"] for name, e in report["kernels"].items() if e["dtype"] == dtype}
        if ratios:
            report["summary"][dtype] = {
                "geomean_ratio_vs_best_peer": math.exp(sum(map(math.log, ratios.values())) / len(ratios)),
                "entries": len(ratios), "worst": sorted(ratios.items(), key=lambda kv: kv[1])[:5]}
