#!/usr/bin/env python3
"""Launches each bench/gemm_hopper kernel of an artifact folder, then
cuBLAS (torch.matmul on Bt's layout) on the same data, twice each after
warm-ups, for Nsight Compute to read their hardware counters:

    ncu --clock-control none --set full --kernel-name regex:'^(gemm|nvjet)' --launch-skip 4 \
        --launch-count 4 --csv --page details \
        python3 bench/gemm_hopper/profile.py build/gemm_hopper_power > $OUT/ncu.csv

(with PYTHONPATH=python). The launch order per kernel file, sorted by
name: 2 warm-ups of each, then ours, cuBLAS, ours, cuBLAS.
"""

import importlib.util
import os
import sys

import torch

from tile_mlir import runtime

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gemm_hopper_run", os.path.join(HERE, "run.py"))
gemm_hopper_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gemm_hopper_run)


def main(artifacts):
    gen = torch.Generator(device="cuda").manual_seed(5)
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json")):
        kernel = runtime.load(os.path.join(artifacts, file))
        (m, k), (n, _) = kernel.params[0].shape, kernel.params[1].shape
        dtype = torch.bfloat16 if "bfloat16" in file else torch.float16
        x = torch.randn(m, k, device="cuda", generator=gen).to(dtype)
        yt = torch.randn(n, k, device="cuda", generator=gen).to(dtype)
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        scratch = gemm_hopper_run.zeroed_scratch(kernel)

        def ours():
            kernel(x.view(torch.uint16), yt.view(torch.uint16), c.view(torch.uint16), *scratch, sync=False)

        def cublas():
            torch.matmul(x, yt.t())
        for run in (ours, cublas, ours, cublas, ours, cublas, ours, cublas):
            run()
        torch.cuda.synchronize()
        print(file, "launched", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
