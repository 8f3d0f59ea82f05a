#!/usr/bin/env python3
"""cp.async with an L2 cache policy on the GPU, as ptxas assembles it.

The cp.async GEMM of bench/gemm (commit 14ca50e, loaded from git) with
`l2_priority` (every cp.async spelled
`.L2::cache_hint` with a createpolicy register) stopped the H200 with
CUDA_ERROR_ILLEGAL_INSTRUCTION. In its SASS, from ptxas 13.0 at -O1 and
above, each LDGSTS takes its shared address as a register plus a uniform
register and its policy as a descriptor, and both uniform registers it
names (UR0, UR1) are written nowhere in the kernel; at -O0 the LDGSTS
names the registers that hold the policy. This runs one small GEMM (256^3,
64 x 64 x 64 blocks, three stages) without a policy, with `evict_last`,
and with an L2 prefetch size, each assembled by ptxas at -O3 and at -O0,
one process each, and reports whether each ran and equals numpy.

    python tools/gpu/cp_async_policy.py build build/cp_async_policy       # here
    PYTHONPATH=python python tools/gpu/cp_async_policy.py run build/cp_async_policy report.json  # on the GPU
"""

import argparse
import base64
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [ROOT, os.path.join(ROOT, "tools", "sass")]
# The kernel's last commit: bench/gemm's cp.async variants lost to TMA and
# left the tree with the kernels package.
KERNEL_COMMIT = "14ca50e"

SHAPE = (256, 256, 256)
VARIANTS = {"no policy": {}, "evict_last": dict(l2_priority="evict_last"), "L2::256B": dict(l2_prefetch="256B")}


def gemm_kernels():
    from bench.__main__ import baseline_module
    return baseline_module(KERNEL_COMMIT, "bench/gemm/kernels.py")


def kernel(variant):
    m, n, k = SHAPE
    return gemm_kernels().gemm_kernel(m, n, k, "bfloat16", stages=3, block=(64, 64, 64), warps=(2, 2), swizzle=True,
                                      **VARIANTS[variant])


def build(out_dir):
    import sass
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for variant in VARIANTS:
        compiled = tile_mlir.compile(kernel(variant), target="sm_90")
        for level in (3, 0):
            name = f"{variant} -O{level}"
            path = os.path.join(out_dir, f"{len(manifest)}.json")
            artifact = compiled.artifact()
            artifact["cubin"] = base64.b64encode(sass.assemble(compiled.ptx, level)).decode()
            with open(path, "w") as f:
                json.dump(artifact, f)
            manifest.append({"name": name, "file": os.path.basename(path)})
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def run_one(path):
    """One kernel in this process: prints whether it equals numpy."""
    from tile_mlir import runtime
    from tile_mlir.kernels.reference import gemm as gemm_reference
    m, n, k = SHAPE
    compiled = runtime.load(path)
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16")
    c = np.zeros((m, n), np.float32)
    compiled(a_bits, b_bits, c)
    print(json.dumps({"ran": True, "equals_numpy": bool(np.array_equal(c, gemm_reference.expected(a, b)))}))


def run(out_dir, report_path):
    with open(os.path.join(out_dir, "manifest.json")) as f:
        manifest = json.load(f)
    report = {}
    for item in manifest:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "run-one",
                               os.path.join(out_dir, item["file"])], capture_output=True, text=True)
        lines = done.stdout.strip().splitlines()
        report[item["name"]] = json.loads(lines[-1]) if done.returncode == 0 and lines else {
            "ran": False, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
        print(item["name"], report[item["name"]])
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("out_dir")
    r = sub.add_parser("run")
    r.add_argument("out_dir")
    r.add_argument("report")
    one = sub.add_parser("run-one")
    one.add_argument("path")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build(args.out_dir)
    if args.command == "run-one":
        return run_one(args.path)
    return run(args.out_dir, args.report)


if __name__ == "__main__":
    sys.exit(main())
