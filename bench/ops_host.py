"""The Python of an eager tile_mlir.ops call, on this machine's CPUs
(issue 55, item 3: the host cost of a call): microseconds a call of
matmul, softmax, rms_norm and attention on the path a plain CUDA tensor
takes after its signature's first call (the checks' cache, the outputs'
allocation, each launcher's call), with CPU tensors taken as CUDA ones and
the launchers replaced by ones that do nothing: what the GPU machine's
host adds to the driver's launch. This tree against the tree of commit
TILE_MLIR_BASELINE (default: HEAD), each in a process of its own (its
python/ on PYTHONPATH), ROUNDS times in turn; the best round counts.
`ops_launch` measures the whole call on a GPU."""

import json
import os
import sys
import time

KIND = "cpu"
ENTRIES = {}
ROUNDS = 3
CALLS = 20_000


class _Idle:
    """A prepared launcher that launches nothing (and an extent launcher's
    binding: itself)."""

    def __call__(self, *pointers, **kwargs):
        pass

    def bind(self, extents, grid):
        return self

    def bind_shapes(self, shapes, grid):
        return self


def _eager_on_the_cpu():
    """tile_mlir.ops' CUDA path on CPU tensors: eager, sm_90a, stream 0,
    the first candidate configuration, idle launchers."""
    from tile_mlir.ops import kernel_cache, launch
    launch.eager = lambda *tensors: True
    launch.target = lambda device: "sm_90a"
    launch.stream = lambda index: 0
    launch.tuned = lambda fields, candidates, *rest: candidates[0]
    kernel_cache.launcher = lambda spec, build, target="sm_90a": _Idle()


def _cases():
    import torch
    import tile_mlir.ops as ops
    bf16 = torch.bfloat16
    a, w = torch.randn(16, 4096).to(bf16), torch.randn(4096, 4096).to(bf16)
    x, g = torch.randn(8, 4096).to(bf16), torch.randn(4096).to(bf16)
    q = torch.randn(1, 8, 256, 64).to(bf16)
    bt = w.t()
    return {"matmul_16x4096x4096": lambda: ops.matmul(a, bt),
            "softmax_8x4096": lambda: ops.softmax(x),
            "rms_norm_8x4096": lambda: ops.rms_norm(x, g, 1e-6),
            "attention_1x8x256x64_causal": lambda: ops.attention(q, q, q, causal=True)}


def measure():
    """Microseconds a call of each case, printed as one JSON line."""
    _eager_on_the_cpu()
    result = {}
    for name, call in _cases().items():
        for _ in range(200):
            call()
        start = time.perf_counter()
        for _ in range(CALLS):
            call()
        result[name] = (time.perf_counter() - start) / CALLS * 1e6
    print(json.dumps(result))


def run(report_path):
    from . import trees  # here: the measuring process runs this file as a script
    best, baseline = trees.against_baseline(os.path.abspath(__file__), ROUNDS)
    calls = {name: {"us_per_call": {"baseline": round(before, 2), "this_tree": round(after, 2)},
                    "ratio_vs_baseline": round(before / after, 3)} for name, (before, after) in best.items()}
    report = {"device": trees.machine(), "baseline": baseline, "rounds": ROUNDS, "calls": CALLS, "ops": calls}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__" and sys.argv[1:] == ["--measure"]:
    measure()
