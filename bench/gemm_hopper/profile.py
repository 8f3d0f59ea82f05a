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
        runs = gemm_hopper_run.ours_and_cublas(runtime.load(os.path.join(artifacts, file)), file, gen)
        for run in [runs["tile_mlir"], runs["cublas"]] * 4:
            run()
        torch.cuda.synchronize()
        print(file, "launched", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
