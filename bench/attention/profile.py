#!/usr/bin/env python3
"""Launches each bench/attention kernel of an artifact folder, then cuDNN's
SDPA on the same inputs, twice each after warm-ups and between
cudaProfilerStart and Stop, for Nsight Compute to read their hardware
counters:

    ncu --clock-control none --profile-from-start off --set full --csv --page raw \
        python3 bench/attention/profile.py build/attention_persistent > $OUT/ncu.csv

(with PYTHONPATH=python). The profiled launches per kernel file, sorted by
name: ours, cuDNN, ours, cuDNN.
"""

import importlib.util
import os
import sys

import torch

from tile_mlir import runtime

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("attention_run", os.path.join(HERE, "run.py"))
attention_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(attention_run)


def main(artifacts):
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json")):
        _, runs = attention_run.ours_and_backends(runtime.load(os.path.join(artifacts, file)), file[:-5])
        for run in [runs["tile_mlir"], runs["cudnn"]] * 2:
            run()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        for run in [runs["tile_mlir"], runs["cudnn"]] * 2:
            run()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        print(file, "launched", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
