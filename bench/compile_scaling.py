"""tile-opt --tile-expand --convert-tile-to-nvvm on modules of 10^3 to 10^6
instructions: wall time and peak memory (median of repeated runs), on
this machine's CPUs."""

import json
import os
import platform
import statistics
import subprocess
import tempfile
import time


KIND = "cpu"
ENTRIES = {}
SIZES, REPEAT = (1000, 10000, 100000, 1000000), 5


def module(instructions):
    """The packed-add kernel with R repeats: 2R loads, R adds, R stores."""
    r = instructions // 4
    t = f"memref<{r}x1xi32, 5>"
    g = f"memref<{r}x1xi32, 1>"
    return f"""module attributes {{gpu.container_module}} {{
  gpu.module @k [#nvvm.target<chip = "sm_90">] {{
    gpu.func @packed_add(%A: {g}, %B: {g}, %O: {g}) kernel {{
      %a = memref.alloca() : {t}
      %b = memref.alloca() : {t}
      tile.apply "ld.global.b32"(%a, %A) : {t}, {g}
      tile.apply "ld.global.b32"(%b, %B) : {t}, {g}
      tile.apply "add.rn.f16x2"(%a, %a, %b) : {t}, {t}, {t}
      tile.apply "st.global.b32"(%O, %a) : {g}, {t}
      gpu.return
    }}
  }}
}}
"""


def time_tile_opt(path):
    start = time.perf_counter()
    proc = subprocess.Popen(["tile-opt", "--tile-expand", "--convert-tile-to-nvvm", path, "-o", os.devnull])
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"tile-opt failed on {path}")
    return elapsed, usage.ru_maxrss / 1024.0  # MiB


def run(report_path):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            path = os.path.join(tmp, f"k{n}.mlir")
            with open(path, "w") as f:
                f.write(module(n))
            runs = [time_tile_opt(path) for _ in range(REPEAT)]
            seconds = statistics.median(r[0] for r in runs)
            peak = max(r[1] for r in runs)
            rows.append({"instructions": n, "seconds": round(seconds, 3),
                         "seconds_min": round(min(r[0] for r in runs), 3),
                         "seconds_max": round(max(r[0] for r in runs), 3),
                         "peak_mib": round(peak, 1), "instructions_per_second": round(n / seconds)})
            print(f"{n:>9} instructions: {seconds:7.3f} s, peak {peak:8.1f} MiB, {n / seconds:,.0f} instr/s")
    result = {"machine": f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cores",
              "tool": "tile-opt --tile-expand --convert-tile-to-nvvm", "rows": rows}
    with open(report_path, "w") as f:
        json.dump(result, f, indent=1)
