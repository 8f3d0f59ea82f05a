"""Where the time goes past tile-opt: the packed-add kernel at growing sizes
through the whole pipeline (`tile-opt --tile-to-ptx`, whose
gpu-module-to-binary runs LLVM's optimizer and NVPTX back end) and then
ptxas, each stage timed on its own, on this machine's CPUs."""

import json
import os
import platform
import re
import subprocess
import tempfile
import time

from .compile_scaling import module

KIND = "cpu"
ENTRIES = {}
SIZES, LEVELS = (2048, 16384, 65536), (3, 0)


def pass_times(report):
    """Wall seconds per pass from an --mlir-timing report."""
    times = {}
    for line in report.splitlines():
        match = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*)$", line)
        if match:
            name = match.group(2).strip()
            times[name] = times.get(name, 0.0) + float(match.group(1))
    return times


def one(instructions, opt_level, tmp):
    path = os.path.join(tmp, f"k{instructions}.mlir")
    with open(path, "w") as f:
        f.write(module(instructions))
    out = os.path.join(tmp, "out.mlir")
    start = time.perf_counter()
    proc = subprocess.run(["tile-opt", f"--tile-to-ptx=chip=sm_90 O={opt_level}", path, "-o", out,
                           "--mlir-timing"], capture_output=True, text=True, check=True)
    mlir_seconds = time.perf_counter() - start
    times = pass_times(proc.stderr)
    ptx_path = os.path.join(tmp, "k.ptx")
    subprocess.run(["tile-ptx", path, "-o", ptx_path, "-O", str(opt_level)], check=True)
    start = time.perf_counter()
    subprocess.run(["ptxas", "-arch=sm_90", ptx_path, "-o", os.path.join(tmp, "k.cubin")], check=True)
    ptxas_seconds = time.perf_counter() - start
    return {"instructions": instructions, "O": opt_level,
            "tile_passes_seconds": round(times.get("TileExpand", 0) + times.get("ConvertTileToNVVM", 0), 3),
            "llvm_seconds": round(times.get("GpuModuleToBinaryPass", 0), 3),
            "tile_opt_total_seconds": round(mlir_seconds, 3),
            "ptxas_seconds": round(ptxas_seconds, 3)}


def run(report_path):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for level in LEVELS:
            for n in SIZES:
                row = one(n, level, tmp)
                rows.append(row)
                print(row, flush=True)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "kernel": "packed add",
              "rows": rows}
    with open(report_path, "w") as f:
        json.dump(result, f, indent=1)
