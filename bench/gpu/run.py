#!/usr/bin/env python3
"""Times the tile-mlir streaming kernels against torch and a device copy in
one run on the GPU machine (numpy, torch and the CUDA driver only).

    PYTHONPATH=python python bench/gpu/run.py build/bench bench/results/gpu.json
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch

from tile_mlir import runtime

HALVES = 1 << 29
REPEATS = 50


def median_ms(fn, repeats=REPEATS):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times)), float(np.min(times)), float(np.max(times))


def sass_facts(kernel):
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(kernel.cubin)
        f.flush()
        text = subprocess.run(["cuobjdump", "-sass", f.name], capture_output=True, text=True).stdout
    return {
        "ldg_128": len(re.findall(r"LDG\.E\.128", text)),
        "stg_128": len(re.findall(r"STG\.E\.128", text)),
        "other_ldg_stg": len(re.findall(r"\b(LDG|STG)(?!\.E\.128)[.A-Z0-9]*", text)),
        "local_memory": bool(re.search(r"\b(LDL|STL)\b", text)),
    }, text


def main(artifacts, report_path):
    variants = sorted(f[:-5] for f in os.listdir(artifacts) if f.endswith(".json"))
    gen = torch.Generator(device="cuda").manual_seed(0)
    report = {"device": torch.cuda.get_device_name(), "halves": HALVES, "repeats": REPEATS,
              "variants": {}}
    out_dir = os.path.dirname(report_path) or "."

    a = torch.randn(HALVES, device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn(HALVES, device="cuda", dtype=torch.float16, generator=gen)
    want_add = a + b
    x = torch.randn(HALVES, device="cuda", dtype=torch.float32, generator=gen) * 100
    want_half = x.half()
    out = torch.empty_like(a)
    add_bytes, narrow_bytes = 3 * HALVES * 2, HALVES * 4 + HALVES * 2

    def peers(tag):
        scratch = torch.empty_like(a)
        half = torch.empty_like(want_half)
        report[f"torch_add_ms_{tag}"] = median_ms(lambda: torch.add(a, b, out=scratch))
        report[f"torch_half_ms_{tag}"] = median_ms(lambda: half.copy_(x))
        report[f"copy_ms_{tag}"] = median_ms(lambda: scratch.copy_(a))

    sass_texts = []
    peers("before")
    for name in variants:
        kernel = runtime.load(os.path.join(artifacts, f"{name}.json"))
        out.fill_(float("nan"))
        if name.startswith("add"):
            shape = kernel.params[0].shape
            args = [t.view(torch.int32).view(shape) for t in (a, b, out)]
            want, nbytes = want_add, add_bytes
        else:
            args = [x.view(kernel.params[0].shape), out.view(torch.int32).view(kernel.params[1].shape)]
            want, nbytes = want_half, narrow_bytes
        kernel(*args)
        mismatches = int((out.view(torch.int16) != want.view(torch.int16)).sum())
        timing = median_ms(lambda: kernel(*args, sync=False))
        facts, text = sass_facts(kernel)
        sass_texts.append(f"// ===== {name}\n{text}")
        report["variants"][name] = {"ms": timing, "TBps": nbytes / timing[0] / 1e9,
                                    "bit_mismatches_vs_torch": mismatches, "sass": facts}
    peers("after")

    for kind, key, nbytes in (("add", "torch_add_ms", add_bytes), ("narrow", "torch_half_ms", narrow_bytes)):
        peer = min(report[f"{key}_before"][0], report[f"{key}_after"][0])
        report[f"{kind}_torch_TBps"] = nbytes / peer / 1e9
        for name, v in report["variants"].items():
            if name.startswith(kind):
                v["ratio_vs_torch"] = peer / v["ms"][0]
    report["copy_TBps"] = 2 * HALVES * 2 / report["copy_ms_before"][0] / 1e9
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(out_dir, "variants.sass"), "w") as f:
        f.write("\n".join(sass_texts))
    for name, v in report["variants"].items():
        print(f"{name:18s} {v['TBps']:.3f} TB/s  x{v['ratio_vs_torch']:.3f} torch  "
              f"mismatches {v['bit_mismatches_vs_torch']}  {v['sass']}")
    print(f"torch add {report['add_torch_TBps']:.3f} TB/s (before {report['torch_add_ms_before'][0]:.4f} ms, "
          f"after {report['torch_add_ms_after'][0]:.4f} ms); torch half {report['narrow_torch_TBps']:.3f} TB/s; "
          f"copy {report['copy_TBps']:.3f} TB/s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
