#!/usr/bin/env python3
"""On the GPU: tile_mlir.ops.matmul's split-K plans in one launch (the
tiles' last slices sum the partials, kernels/split_k_finish.py) against
the same plans in two launches (partials, then gemm_reduce), bit for bit,
each one-launch plan called several times in a row (its counters must be
zero again after every launch), on random normal data. Kernels from an
ops cache that bench/ops_gemm's build filled (its shapes, per-tensor
scales for e4m3):

    PYTHONPATH=python python tools/gpu/split_k_check.py build/bench/ops_gemm report.json
"""

import dataclasses
import importlib
import json
import os
import sys

# (M, N, K): Llama-3 8B's output and QKV projections and 70B's down, short M.
SHAPES = [(1, 4096, 4096), (16, 4096, 4096), (128, 4096, 4096), (16, 6144, 4096), (1, 8192, 28672)]
CALLS = 4


def main(cache, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(cache)
    os.environ["TILE_MLIR_AUTOTUNE"] = "0"  # the one candidate offered
    import torch
    import tile_mlir.ops as ops
    matmul = importlib.import_module("tile_mlir.ops.matmul")
    launch = importlib.import_module("tile_mlir.ops.launch")
    rows, candidates = [], matmul.candidates  # (each check offers the op one plan)
    for m, n, k in SHAPES:
        for dtype in ("bfloat16", "e4m3"):
            gen = torch.Generator(device="cuda").manual_seed(m + n + k)
            x = torch.randn((m, k), device="cuda", generator=gen) / k ** 0.25
            w = torch.randn((n, k), device="cuda", generator=gen) / k ** 0.25
            if dtype == "e4m3":
                x, w = x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
                half = torch.full((), 0.5, device="cuda")
                call = lambda: ops.scaled_matmul(x, w.t(), half, half)  # noqa: E731
            else:
                x, w = x.to(torch.bfloat16), w.to(torch.bfloat16)
                call = lambda: ops.matmul(x, w.t())  # noqa: E731
            for plan in candidates(dtype, m, n, k):
                if plan.config.split_k == 1 or plan.one_launch:
                    continue
                results = {}
                for one in (False, True):
                    importlib.reload(launch)  # no launcher kept from the plan before
                    chosen = dataclasses.replace(plan, one_launch=one)
                    matmul.candidates = lambda *args, chosen=chosen: [chosen]
                    results[one] = [call().view(torch.int16).clone() for _ in range(CALLS if one else 1)]
                want = results[False][0]
                rows.append({"shape": [m, n, k], "dtype": dtype, "plan": dataclasses.asdict(plan),
                             "different": [int((got != want).sum()) for got in results[True]],
                             "elements": want.numel()})
                print(rows[-1]["shape"], dtype, plan.config.split_k, plan.swap_ab, rows[-1]["different"], flush=True)
    with open(report_path, "w") as f:
        json.dump({"card": torch.cuda.get_device_name(), "calls": CALLS, "checks": rows}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
