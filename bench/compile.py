"""Compile speed (CPU), tile-mlir against apache-tvm-tirx side by side:
compile_speed/worker.py runs in this environment and in the peer's (a
venv with apache-tvm-tirx, never a project dependency, named by
TILE_MLIR_BENCH_PEER_PYTHON), from definition to PTX (the peer: to CUDA
source, then nvcc)."""

import json
import os
import platform
import subprocess
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compile_speed")
KIND = "cpu"
ENTRIES = {}
SIZES, REPEATS, NVCC_MAX = "8,64,512,1024,4096", 3, 1024  # the peer plus nvcc took 306 s at R=4096


def run_worker(python, *args):
    result = subprocess.run([python, os.path.join(HERE, "worker.py"), *map(str, args)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def run(report_path):
    peer_python = os.environ.get("TILE_MLIR_BENCH_PEER_PYTHON")
    if not peer_python:
        raise SystemExit("compile needs the peer's python: TILE_MLIR_BENCH_PEER_PYTHON=.benchvenv/bin/python")
    tile = run_worker(sys.executable, "tile", SIZES, REPEATS)
    peer = run_worker(peer_python, "peer", SIZES, REPEATS, NVCC_MAX)
    rows = []
    for t in tile:
        p = next(p for p in peer if p["kernel"] == t["kernel"] and p["R"] == t["R"])
        row = {**t, "peer_source_seconds": p["source_seconds"], "peer_seconds": p.get("seconds"),
               "instructions_per_second": t["instructions"] / t["seconds"]}
        row["speedup_vs_peer_source"] = p["source_seconds"] / t["seconds"]
        if p.get("seconds"):
            row["speedup_vs_peer_with_nvcc"] = p["seconds"] / t["seconds"]
        rows.append(row)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "python": platform.python_version(),
              "rows": rows}
    with open(report_path, "w") as f:
        json.dump(result, f, indent=1)
    for r in rows:
        print(f"{r['kernel']:10s} R={r['R']:5d} {r['instructions']:6d} instr  tile {r['seconds']:7.3f} s  "
              f"peer source {r['peer_source_seconds']:7.3f} s  peer+nvcc "
              f"{(r['peer_seconds'] or float('nan')):8.3f} s  x{r.get('speedup_vs_peer_with_nvcc', float('nan')):.1f}")
