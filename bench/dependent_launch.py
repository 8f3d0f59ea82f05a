"""Programmatic dependent launch (LaunchConfig(dependent=True) with
griddepcontrol): a chain of 32 fp16 adds, each reading the output of the
one before, launched plainly and as dependents, captured in a CUDA graph
(so that the host's launch cost is out of the time) and replayed in the
same rounds; the chain's last output bit for bit against torch's."""

import os

import numpy as np
import torch

from tile_mlir import runtime

from . import kernels
from .timing import median_ms

CHAIN = 32
ROUNDS = 5
SIZES = {"n2p20": 1 << 20, "n2p23": 1 << 23}
ENTRIES = {f"add_f16_{size}{'_dependent' if dependent else ''}":
           (lambda halves=halves, dependent=dependent: kernels("elementwise").add_f16(halves, dependent=dependent))
           for size, halves in SIZES.items() for dependent in (False, True)}


def chain(kernel, a, b, outs, stream):
    """outs[i] = outs[i - 1] + b, from a: CHAIN launches, none waited for."""
    source = a
    for out in outs:
        kernel(source, b, out, stream=stream, sync=False)
        source = out


def run(artifacts, report_path):
    import json
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "chain": CHAIN,
              "rounds": ROUNDS, "sizes": {}}
    gen = torch.Generator(device="cuda").manual_seed(0)
    stream = torch.cuda.current_stream().cuda_stream
    for size, halves in SIZES.items():
        words = (halves // 8, 1, 4)
        a, b = (torch.randn(halves, device="cuda", dtype=torch.float16, generator=gen) for _ in range(2))
        want = a.clone()
        for _ in range(CHAIN):
            want = want + b
        outs = [torch.empty(halves, device="cuda", dtype=torch.float16) for _ in range(CHAIN)]
        views = [t.view(torch.int32).view(words) for t in outs]
        runs = {}
        for dependent in (False, True):
            name = f"add_f16_{size}{'_dependent' if dependent else ''}"
            kernel = runtime.load(os.path.join(artifacts, f"{name}.json"))
            for out in outs:
                out.fill_(float("nan"))
            chain(kernel, a.view(torch.int32).view(words), b.view(torch.int32).view(words), views, stream)
            torch.cuda.synchronize()
            exact = bool(torch.equal(outs[-1].view(torch.int16), want.view(torch.int16)))
            runs["dependent" if dependent else "plain"] = (kernel, exact)
        graphs = {}
        for key, (kernel, _) in runs.items():
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                chain(kernel, a.view(torch.int32).view(words), b.view(torch.int32).view(words), views,
                      torch.cuda.current_stream().cuda_stream)
            graphs[key] = graph
        us = {key: [] for key in runs}
        for _ in range(ROUNDS):
            for key, graph in graphs.items():
                us[key].append(1000 * median_ms(graph.replay) / CHAIN)
        replayed = graphs["dependent"]
        for out in outs:
            out.fill_(float("nan"))
        replayed.replay()
        torch.cuda.synchronize()
        runs["dependent"] = (runs["dependent"][0], runs["dependent"][1] and bool(
            torch.equal(outs[-1].view(torch.int16), want.view(torch.int16))))
        entry = {"halves": halves, "exact": {key: exact for key, (_, exact) in runs.items()},
                 "us_per_kernel": {key: float(np.median(v)) for key, v in us.items()},
                 "rounds_us_per_kernel": us}
        entry["saving_us_per_kernel"] = entry["us_per_kernel"]["plain"] - entry["us_per_kernel"]["dependent"]
        entry["ratio_vs_plain"] = entry["us_per_kernel"]["plain"] / entry["us_per_kernel"]["dependent"]
        report["sizes"][size] = entry
        print(size, entry["us_per_kernel"], f"{entry['ratio_vs_plain']:.3f}x", entry["exact"], flush=True)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
