#!/usr/bin/env python3
"""tile_mlir.ops.attention on random normal data: the GPU's output against
the interpreter's, bit for bit (issues 56 and 60: the interpreter follows
ordinary data through the tensor cores, sm_90's accumulation, and
ex2.approx.ftz.f32 from the GPU's tables).

The inputs are drawn from a seed (numpy's PCG64 normal draws, rounded to
the dtype by torch: the same bits on every machine). The GPU runs the
default configuration (TILE_MLIR_AUTOTUNE=0), which the CPU path also
takes, from kernels precompiled here:

    python tools/gpu/attention_check.py build build/attcheck                 # here: the kernels
    PYTHONPATH=python python tools/gpu/attention_check.py run build/attcheck out.json   # on the GPU
    python tools/gpu/attention_check.py compare out.json report.json         # here: the interpreter
    python tools/gpu/attention_check.py fixture out.json tools/gpu/results/attention_bits.json
"""

import base64
import hashlib
import json
import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python")]

# name: (B, H_q, H_kv, S_q, S_k, D, causal, dtype). Tails, GQA, S_q != S_k
# and causal with S_k > S_q (the bottom-right diagonal) among them.
CASES = {
    "bf16_d64": (1, 2, 2, 128, 128, 64, False, "bfloat16"),
    "bf16_d128_causal_tail": (1, 1, 1, 100, 200, 128, True, "bfloat16"),
    "f16_d64_gqa_tail": (1, 4, 2, 40, 300, 64, False, "float16"),
    "bf16_d64_causal": (1, 1, 1, 192, 192, 64, True, "bfloat16"),
}
SEED = 2026


def inputs(name, device="cpu"):
    """q, k and v of case `name`: normal draws rounded to its dtype."""
    import torch
    b, h, h_kv, s, s_k, d, _, dtype = CASES[name]
    rng = np.random.default_rng([SEED, list(CASES).index(name)])
    shapes = ((b, h, s, d), (b, h_kv, s_k, d), (b, h_kv, s_k, d))
    return [torch.from_numpy(rng.standard_normal(shape)).to(getattr(torch, dtype)).to(device) for shape in shapes]


def digest(tensors):
    """sha256 of the inputs' bits: the GPU and this machine drew the same."""
    import torch
    h = hashlib.sha256()
    for t in tensors:
        h.update(t.cpu().contiguous().view(torch.int16).numpy().tobytes())
    return h.hexdigest()


def attention(name, device):
    import tile_mlir.ops as ops
    q, k, v = inputs(name, device)
    out = ops.attention(q, k, v, causal=CASES[name][6])
    return out.cpu().contiguous(), digest((q, k, v))


def encoded(out):
    """An output's 16-bit words, compressed, as text."""
    import torch
    return base64.b64encode(zlib.compress(out.view(torch.int16).numpy().tobytes(), 9)).decode()


def decoded(text, shape):
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), np.uint16).reshape(shape)


def build(out_dir):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out_dir)
    import tile_mlir.ops as ops
    for name, (_, _, _, _, _, _, causal, _) in CASES.items():
        ops.precompile("attention", *inputs(name, "meta"), causal)
    print(f"{len(CASES)} attention cases precompiled")


def run(out_dir, out_path):
    """On the GPU: each case's output bits (and its inputs' digest)."""
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out_dir)
    os.environ["TILE_MLIR_AUTOTUNE"] = "0"  # the default configuration, as the CPU path takes
    import torch
    report = {"card": torch.cuda.get_device_name(), "seed": SEED, "cases": {}}
    for name in CASES:
        out, inputs_digest = attention(name, "cuda")
        report["cases"][name] = {"shape": list(out.shape), "inputs": inputs_digest, "out": encoded(out)}
    with open(out_path, "w") as f:
        json.dump(report, f, indent=1)
    print(f"{len(CASES)} attention cases run on {report['card']}")


def compare(gpu_path, report_path=None):
    """Here: each case in the interpreter (tile_mlir.ops on CPU tensors)
    against the GPU's bits."""
    import torch
    with open(gpu_path) as f:
        gpu = json.load(f)
    rows = {}
    for name, case in gpu["cases"].items():
        out, inputs_digest = attention(name, "cpu")
        assert inputs_digest == case["inputs"], f"{name}: the inputs drawn here differ from the GPU's"
        want = decoded(case["out"], case["shape"])
        got = out.view(torch.int16).numpy().view(np.uint16)
        rows[name] = {"elements": int(want.size), "different": int((got != want).sum())}
        print(name, rows[name], flush=True)
    if report_path:
        with open(report_path, "w") as f:
            json.dump({"card": gpu["card"], "seed": gpu["seed"], "cases": rows}, f, indent=1)
    return rows


def fixture(gpu_path, out_path):
    """The tests' fixture: the GPU's run as it is, with what it holds."""
    with open(gpu_path) as f:
        gpu = json.load(f)
    gpu["tool"] = "tools/gpu/attention_check.py run (TILE_MLIR_AUTOTUNE=0)"
    gpu["what"] = ("tile_mlir.ops.attention's output on the GPU for attention_check.CASES (inputs drawn from the "
                   "seed, their sha256 in 'inputs'): 16-bit words, zlib-compressed, base64")
    with open(out_path, "w") as f:
        json.dump(gpu, f, indent=1)


if __name__ == "__main__":
    {"build": lambda: build(sys.argv[2]), "run": lambda: run(sys.argv[2], sys.argv[3]),
     "compare": lambda: compare(sys.argv[2], sys.argv[3]),
     "fixture": lambda: fixture(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
