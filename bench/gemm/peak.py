#!/usr/bin/env python3
"""The ceiling of mma.sync on the GPU: each warp issues 4 x 8 independent
mma.sync per step from registers (no memory in the loop, as the GEMM's warp
tile of 64 x 64 does per 16 of K), for STEPS steps, 8 warps a block, enough
blocks for every SM; the rate it reaches is the most any mma.sync GEMM can,
and the GEMM's rate is stated against it (bench/README.md).

    python bench/gemm/peak.py build build/peak                 # here
    PYTHONPATH=python python bench/gemm/peak.py run build/peak report.json   # on the GPU
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

MT, NT = 4, 8                  # mma tiles of a warp, as the GEMM's 64 x 64 warp tile
WARPS = 8
STEPS = 4096
BLOCKS = 132 * 8               # every SM, several blocks deep
FORMS = {
    "f16_f32": ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "float32", 16),
    "bf16_f32": ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "float32", 16),
    "f16_f16": ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "uint32", 16),
    "s8_s32": ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "int32", 32),
}


def peak_kernel(opcode, acc_type):
    from tile_mlir import script as T
    acc_registers = 4 if acc_type != "uint32" else 2

    @T.function
    def peak(Out: T.Tensor((BLOCKS * WARPS * 32, MT * NT * acc_registers), acc_type)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=WARPS * 32))
        t = T.thread_id() + T.block_id() * (WARPS * 32)
        acc = T.alloc_local((MT, NT, acc_registers), acc_type)
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((MT * NT * acc_registers, 1)).view("uint32"), T.uint32(0))
        a_frag = T.alloc_local((MT, 1, 4), "uint32")
        b_frag = T.alloc_local((NT, 1, 2), "uint32")
        # Inputs that depend on the thread, so nothing is folded: small
        # integers in every element type (the bits of 1.0 + t % 4 in f16).
        seed = T.uint32(0x3C003C00 + t % 4)
        T.cuda.tile.apply(T.ptx["mov.b32"], a_frag.reshape((MT * 4, 1)), seed)
        T.cuda.tile.apply(T.ptx["mov.b32"], b_frag.reshape((NT * 2, 1)), seed)
        for _ in T.serial(0, STEPS):
            T.cuda.tile.apply(T.ptx[opcode], acc, a_frag, b_frag)
        vectors = MT * NT * acc_registers // 4
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out.view("uint32")[t:t + 1, :].reshape((vectors, 4)),
                          acc.reshape((vectors, 4)).view("uint32"))

    return peak


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    for name, (opcode, acc_type, _) in FORMS.items():
        tile_mlir.compile(peak_kernel(opcode, acc_type), target="sm_90").save(os.path.join(out_dir, f"{name}.json"))
        print(name, "saved")


def run(out_dir, report_path):
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(HERE, "..", "gpu"))
    from run import median_ms
    from tile_mlir import runtime
    report = {"device": torch.cuda.get_device_name(), "blocks": BLOCKS, "warps": WARPS, "steps": STEPS,
              "mma_per_warp_step": MT * NT, "forms": {}}
    for name, (opcode, acc_type, k) in FORMS.items():
        kernel = runtime.load(os.path.join(out_dir, f"{name}.json"))
        out = torch.empty((BLOCKS * WARPS * 32, MT * NT * (4 if acc_type != "uint32" else 2)), device="cuda",
                          dtype=getattr(torch, acc_type))
        rounds = [median_ms(lambda: kernel(out, sync=False), repeats=10) for _ in range(3)]
        ms = float(np.median(rounds))
        flops = 2.0 * 16 * 8 * k * MT * NT * STEPS * WARPS * BLOCKS
        report["forms"][name] = {"opcode": opcode, "rounds_ms": rounds, "ms": ms, "TFLOPs": flops / ms / 1e9}
        print(name, opcode, "%.1f TFLOP/s" % (flops / ms / 1e9), flush=True)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    {"build": build, "run": run}[sys.argv[1]](*sys.argv[2:])
