#!/usr/bin/env python3
"""One side of the compile-speed benchmark, run in that side's environment.

    python worker.py tile R1,R2,... REPEATS          (tile-mlir: definition to PTX)
    python worker.py peer R1,R2,... REPEATS NVCC_MAX  (apache-tvm-tirx: definition to
                                                     CUDA source, then nvcc to PTX)
Prints one JSON object.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402


def median_time(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def tile(sizes, repeats):
    import tile_mlir
    from tile_mlir import script as T

    rows = []
    for name in ("packed_add", "mixed"):
        for r in sizes:
            make = getattr(kernels, name)
            seconds, kernel = median_time(
                lambda: tile_mlir.compile(make(T, r), target="sm_90", cubin=False), repeats)
            instructions = len(re.findall(r"// begin inline asm", kernel.ptx))
            rows.append({"kernel": name, "R": r, "seconds": seconds, "instructions": instructions})
            print(f"tile {name} R={r}: {seconds:.3f} s, {instructions} instructions", file=sys.stderr)
    return rows


def peer(sizes, repeats, nvcc_max):
    import tvm_tirx as tvm
    from tvm_tirx.script import tirx as T

    rows = []
    for name in ("packed_add", "mixed"):
        for r in sizes:
            make = getattr(kernels, name)

            def source():
                executable = tvm.tirx.compile(make(T, r), target={"kind": "cuda", "arch": "sm_90"},
                                              pipeline="tirx")
                return executable.mod.imports[0].inspect_source()

            seconds, text = median_time(source, repeats)
            row = {"kernel": name, "R": r, "source_seconds": seconds}
            if r <= nvcc_max:
                with tempfile.TemporaryDirectory() as tmp:
                    cu = os.path.join(tmp, "k.cu")
                    with open(cu, "w") as f:
                        f.write(text)

                    def nvcc():
                        subprocess.run(["nvcc", "-ptx", "-arch=sm_90", cu, "-o", os.path.join(tmp, "k.ptx")],
                                       check=True, capture_output=True)
                    nvcc_seconds, _ = median_time(nvcc, 1 if r >= 1024 else repeats)
                row["nvcc_seconds"] = nvcc_seconds
                row["seconds"] = seconds + nvcc_seconds
            rows.append(row)
            print(f"peer {name} R={r}: {row}", file=sys.stderr)
    return rows


if __name__ == "__main__":
    which, sizes, repeats = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3])
    rows = tile(sizes, repeats) if which == "tile" else peer(sizes, repeats, int(sys.argv[4]))
    print(json.dumps(rows))
