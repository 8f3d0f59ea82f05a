#!/usr/bin/env python3
"""The SM clock, power and throttle reasons while a GEMM runs back to back,
for the bench/gemm_hopper kernels and cuBLAS on the same data: whether a
kernel is slower per step or runs at a lower clock (the H200 is held at its
power limit by a dense GEMM).

    PYTHONPATH=python python3 bench/gemm_hopper/clocks.py build/gemm_hopper_stream_k $OUT/clocks.json

Each kernel runs for SECONDS, launches queued ahead; NVML is sampled while
they run (its clock, power and throttle reasons), and the launches are timed
by CUDA events over the same span.
"""

import importlib.util
import json
import os
import sys
import time

import pynvml
import torch

from tile_mlir import runtime

SECONDS = 2.5
BATCH = 20  # launches queued between samples

HERE = os.path.dirname(os.path.abspath(__file__))
# bench/gemm_hopper/run.py under its own name (bench/gemm's run.py imports
# bench/gpu/run.py as run).
_spec = importlib.util.spec_from_file_location("gemm_hopper_run", os.path.join(HERE, "run.py"))
gemm_hopper_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gemm_hopper_run)
# NVML's name for the throttle reasons before 12.5.
clock_event_reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
    pynvml.nvmlDeviceGetCurrentClocksThrottleReasons


def measure(fn, handle):
    """(ms a launch, median SM MHz, median W, throttle reasons seen) over
    SECONDS of back-to-back launches of `fn`."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    clocks, powers, reasons = [], [], set()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    launches, began = 0, time.time()
    while time.time() - began < SECONDS:
        for _ in range(BATCH):
            fn()
        launches += BATCH
        clocks.append(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))
        powers.append(pynvml.nvmlDeviceGetPowerUsage(handle) / 1000)
        reasons.add(clock_event_reasons(handle))
    stop.record()
    torch.cuda.synchronize()
    # The first samples may come before the queue is full: the later half.
    half = len(clocks) // 2
    return (start.elapsed_time(stop) / launches, sorted(clocks[half:])[len(clocks[half:]) // 2],
            sorted(powers[half:])[len(powers[half:]) // 2], sorted(reasons))


def main(artifacts, report_path):
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    report = {"device": torch.cuda.get_device_name(), "seconds": SECONDS,
              "power_limit_w": pynvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1000,
              "max_sm_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM), "runs": {}}
    gen = torch.Generator(device="cuda").manual_seed(5)
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith(".json") and "e4m3" not in f):
        kernel = runtime.load(os.path.join(artifacts, file))
        (m, k), (n, _) = kernel.params[0].shape, kernel.params[1].shape
        # cuBLAS right after each kernel, on the same data: the clock
        # also drifts with the temperature.
        runs = gemm_hopper_run.ours_and_cublas(kernel, file, gen)
        entry = report["runs"][file[:-5]] = {}
        for name, fn in runs.items():
            ms, mhz, watts, reasons = measure(fn, handle)
            entry[name] = {"ms": ms, "TFLOPs": 2.0 * m * n * k / ms / 1e9, "sm_mhz": mhz, "watts": watts,
                           "clock_event_reasons": reasons}
        entry["ratio_vs_cublas"] = entry["cublas"]["ms"] / entry["tile_mlir"]["ms"]
        print(file[:-5], entry, flush=True)
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
