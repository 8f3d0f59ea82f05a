"""Streaming kernels (tile_mlir.kernels.elementwise): fp16 a + b and float32
to fp16 over 2^29 halves, against torch's a + b and x.half() and a
device-to-device copy, 5 interleaved rounds; outputs bit for bit against
torch, SASS checked for 128-bit accesses and no local memory."""

import json
import os
import re
import subprocess
import tempfile

import numpy as np
import torch

from tile_mlir import runtime

from . import kernels
from .timing import median_ms



ENTRIES = {"add_f16_n2p29": lambda: kernels("elementwise").add_f16(1 << 29),
           "narrow_f16_n2p29": lambda: kernels("elementwise").narrow_f16(1 << 29)}


HALVES = 1 << 29
ROUNDS = 5


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
    }


def run(artifacts, report_path):
    variants = sorted(f[:-5] for f in os.listdir(artifacts) if f.endswith(".json"))
    gen = torch.Generator(device="cuda").manual_seed(0)
    report = {"device": torch.cuda.get_device_name(), "halves": HALVES,
              "variants": {}}

    a = torch.randn(HALVES, device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn(HALVES, device="cuda", dtype=torch.float16, generator=gen)
    want_add = a + b
    x = torch.randn(HALVES, device="cuda", dtype=torch.float32, generator=gen) * 100
    want_half = x.half()
    out = torch.empty_like(a)
    add_bytes, narrow_bytes = 3 * HALVES * 2, HALVES * 4 + HALVES * 2

    kernels = {}
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
        torch.cuda.synchronize()
        mismatches = int((out.view(torch.int16) != want.view(torch.int16)).sum())
        facts = sass_facts(kernel)
        kernels[name] = (kernel, args, nbytes)
        report["variants"][name] = {"bit_mismatches_vs_torch": mismatches, "sass": facts, "rounds": []}

    # Rounds interleave every variant with its torch peer, so clock and
    # thermal drift during the run affects both sides of each ratio alike.
    scratch = torch.empty_like(a)
    half = torch.empty_like(want_half)
    peers = {"add": lambda: torch.add(a, b, out=scratch), "narrow": lambda: half.copy_(x)}
    report["rounds"] = []
    for _ in range(ROUNDS):
        round_ = {kind: median_ms(fn) for kind, fn in peers.items()}
        round_["copy"] = median_ms(lambda: scratch.copy_(a))
        report["rounds"].append(round_)
        for name, (kernel, args, nbytes) in kernels.items():
            ms = median_ms(lambda: kernel(*args, sync=False))
            kind = "add" if name.startswith("add") else "narrow"
            report["variants"][name]["rounds"].append({"ms": ms, "ratio_vs_torch": round_[kind] / ms})

    for kind, nbytes in (("add", add_bytes), ("narrow", narrow_bytes)):
        report[f"{kind}_torch_TBps"] = nbytes / float(np.median([r[kind] for r in report["rounds"]])) / 1e9
    for name, v in report["variants"].items():
        nbytes = kernels[name][2]
        ratios = [r["ratio_vs_torch"] for r in v["rounds"]]
        v["ms"] = float(np.median([r["ms"] for r in v["rounds"]]))
        v["TBps"] = nbytes / v["ms"] / 1e9
        v["ratio_vs_torch"] = float(np.median(ratios))
        v["ratio_min"], v["ratio_max"] = float(min(ratios)), float(max(ratios))
    # The same kernels timed as sweeps 1-3 timed them, for comparison.
    synced_peer = {kind: median_ms(fn, synced=True) for kind, fn in peers.items()}
    for name, (kernel, args, nbytes) in kernels.items():
        kind = "add" if name.startswith("add") else "narrow"
        ms = median_ms(lambda: kernel(*args, sync=False), synced=True)
        report["variants"][name]["synced_ratio_vs_torch"] = synced_peer[kind] / ms
    copy_ms = float(np.median([r["copy"] for r in report["rounds"]]))
    report["copy_TBps"] = 2 * HALVES * 2 / copy_ms / 1e9
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    for name, v in report["variants"].items():
        print(f"{name:20s} {v['TBps']:.3f} TB/s  x{v['ratio_vs_torch']:.3f} torch "
              f"({v['ratio_min']:.3f}-{v['ratio_max']:.3f} over {ROUNDS} rounds; "
              f"x{v['synced_ratio_vs_torch']:.3f} synced)  "
              f"mismatches {v['bit_mismatches_vs_torch']}  {v['sass']}")
    print(f"torch add {report['add_torch_TBps']:.3f} TB/s; torch half {report['narrow_torch_TBps']:.3f} TB/s; "
          f"copy {report['copy_TBps']:.3f} TB/s")
