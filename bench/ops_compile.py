"""What a new shape costs tile_mlir.ops before its first launch: a sweep of
20 token counts M (1 to 4096) through ops.matmul on Llama-3 8B's QKV
projection (N 6144, K 4096, bf16), precompiled from meta tensors (the
kernels the op may choose among, every autotune candidate's), first into
an empty ops cache (each kernel compiled: MLIR, then ptxas), then by a
fresh process from the filled one (each loaded from disk). It counts the
kernels each shape compiles and times each shape's call. M is the
kernels' runtime size and the candidates are its bucket's (the next
power of two), so a shape compiles only what its bucket's plans add."""

import json
import os
import subprocess
import sys
import tempfile

KIND = "cpu"
ENTRIES = {}
TOKENS = (1, 2, 3, 4, 8, 16, 24, 32, 48, 64, 100, 128, 200, 256, 384, 512, 1000, 1024, 2048, 4096)
N, K = 6144, 4096

PROGRAM = r"""
import json, os, sys, time
start = time.perf_counter()
import torch, tile_mlir.ops as ops
imported = time.perf_counter() - start
times, counts = [], []
folder = os.path.join(os.environ["TILE_MLIR_CACHE_DIR"], "ops")
for m in {tokens!r}:
    before = len(os.listdir(folder)) if os.path.isdir(folder) else 0
    a = torch.empty(m, {k}, dtype=torch.bfloat16, device="meta")
    w = torch.empty({n}, {k}, dtype=torch.bfloat16, device="meta")
    begin = time.perf_counter()
    ops.precompile("matmul", a, w.t())
    times.append(time.perf_counter() - begin)
    counts.append(len(os.listdir(folder)) - before)
print(json.dumps({{"import_s": imported, "seconds": times, "compiled": counts}}))
"""


def one_process(cache_dir):
    code = PROGRAM.format(tokens=TOKENS, n=N, k=K)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, TILE_MLIR_CACHE_DIR=cache_dir)).stdout
    return json.loads(out.strip().splitlines()[-1])


def run(report_path):
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = one_process(cache_dir)
        warm = one_process(cache_dir)
    report = {"machine": f"{os.cpu_count()} cores (this repository's build machine)", "shape": {"n": N, "k": K},
              "tokens": list(TOKENS), "empty_cache": cold, "filled_cache": warm,
              "summary": {"kernels_compiled": sum(cold["compiled"]),
                          "empty_cache_seconds": {"total": sum(cold["seconds"]), "max": max(cold["seconds"])},
                          "filled_cache_seconds": {"total": sum(warm["seconds"]), "max": max(warm["seconds"])},
                          "filled_cache_compiled": sum(warm["compiled"])}}
    print(json.dumps(report["summary"], indent=1), flush=True)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    return report

