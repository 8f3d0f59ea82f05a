#!/usr/bin/env python3
"""Runs each pair of artifacts NAME_fold_auto.json / NAME_fold_off.json
(the same kernel compiled with fold_barriers "auto" and "off") on the same
random inputs and compares their outputs byte for byte: a fold ptxas made
without the barriers would change them.

    python bench/attention/fold_check.py --build build/attention_fold       # here
    PYTHONPATH=python python3 bench/attention/fold_check.py build/attention_fold out.json   # on the GPU
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = 3


def build(out_dir):
    import warnings
    sys.path[:0] = [HERE, os.path.dirname(HERE)]
    import kernels
    from artifacts import save_variants
    chosen = {name: v for name, v in kernels.PIPELINED.items() if name.startswith("attention_fa3bf")}
    chosen.update(kernels.PERSISTENT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "off" warns at each guarded cvt
        for mode in ("auto", "off"):
            save_variants({f"{name}_fold_{mode}": v for name, v in chosen.items()}, out_dir, target="sm_90a",
                          fold_barriers=mode)


def run(artifacts, report_path):
    import torch
    from tile_mlir import runtime
    report = {"device": torch.cuda.get_device_name(), "seeds": SEEDS, "kernels": {}}
    for file in sorted(f for f in os.listdir(artifacts) if f.endswith("_fold_auto.json")):
        name = file[:-len("_fold_auto.json")]
        pair = [runtime.load(os.path.join(artifacts, f"{name}_fold_{mode}.json")) for mode in ("auto", "off")]
        seq = int(re.search(r"_s(\d+)", name).group(1))
        rows, d = pair[0].params[0].shape
        out_type = torch.bfloat16 if pair[0].params[3].dtype == "uint16" else torch.float32
        differing = 0
        for seed in range(SEEDS):
            gen = torch.Generator(device="cuda").manual_seed(seed)
            # Seed 0 normal, 1 ten times wider (S spans more of exp's range), 2 uniform in [-1, 1).
            q, k, v = (torch.randn(rows, d, device="cuda", generator=gen) * (10 if seed == 1 else 1)
                       if seed < 2 else torch.rand(rows, d, device="cuda", generator=gen) * 2 - 1 for _ in range(3))
            q, k, v = (x.to(torch.bfloat16).view(torch.uint16) for x in (q, k, v))
            outs = []
            for kernel in pair:
                out = torch.empty(rows, d, device="cuda", dtype=out_type)
                kernel(q, k, v, out.view(torch.uint16) if out_type == torch.bfloat16 else out, sync=True)
                outs.append(out.view(torch.uint8 if out_type == torch.bfloat16 else torch.int32))
            differing += int((outs[0] != outs[1]).sum())
        report["kernels"][name] = {"seq": seq, "d": d, "elements_compared": SEEDS * rows * d,
                                   "differing_bytes_or_words": differing}
        print(name, "differing", differing, flush=True)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "--build":
        build(sys.argv[2])
    else:
        run(sys.argv[1], sys.argv[2])
