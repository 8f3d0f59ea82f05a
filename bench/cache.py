"""The compile cache across processes: a fresh process compiles a kernel
with an empty cache (the pipeline and ptxas run), then fresh processes
compile it again from the cache, and, as the peer in the same run, with
the cache switched off. Times are of tile_mlir.compile only, medians of
ROUNDS processes each, and of the whole process."""

import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ROUNDS = 5

KIND = "cpu"
ENTRIES = {}

# The SwiGLU kernel (the largest kernel here) and the spec's packed add.
PROGRAM = r"""
import sys, time
sys.path.insert(0, {spec!r})
start = time.perf_counter()
import tile_mlir, packed_add
from tile_mlir.kernels.elementwise import swiglu
imported = time.perf_counter()
kernel = swiglu(1 << 28) if {which!r} == "swiglu" else packed_add.packed_add
built = time.perf_counter()
compiled = tile_mlir.compile(kernel, target="sm_90", cache={cache})
done = time.perf_counter()
print(compiled.from_cache, done - built, done - start)
"""


def one(which, cache_dir, cache=True):
    code = PROGRAM.format(spec=os.path.join(ROOT, "examples", "spec"), which=which, cache=cache)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, TILE_MLIR_CACHE_DIR=cache_dir)).stdout.split()
    return out[0] == "True", float(out[1]), float(out[2])


def run(report_path):
    report = {"rounds": ROUNDS, "kernels": {}}
    for which in ("swiglu", "packed_add"):
        with tempfile.TemporaryDirectory() as cache_dir:
            cold = one(which, cache_dir)
            assert not cold[0]
            hits = [one(which, cache_dir) for _ in range(ROUNDS)]
            misses = [one(which, cache_dir, cache=False) for _ in range(ROUNDS)]
        assert all(h[0] for h in hits) and not any(m[0] for m in misses)
        entry = {
            "first_compile_s": cold[1],
            "cached_compile_s": statistics.median(h[1] for h in hits),
            "uncached_compile_s": statistics.median(m[1] for m in misses),
            "cached_process_s": statistics.median(h[2] for h in hits),
            "uncached_process_s": statistics.median(m[2] for m in misses),
        }
        entry["compile_speedup"] = entry["uncached_compile_s"] / entry["cached_compile_s"]
        entry["process_speedup"] = entry["uncached_process_s"] / entry["cached_process_s"]
        report["kernels"][which] = entry
        print(which, {k: round(v, 4) for k, v in entry.items()})
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
