"""Builds the ptxas cvt-fusion reproducer: two conversions in a row, each
kept verbatim in the PTX (tile-mlir emits one asm statement per
instruction). tools/difftest found that ptxas (CUDA 13.0) at its default
-O3 fuses cvt.rmi.s64.bf16 + cvt.sat.s32.s64 into one F2I.S32, which turns
a NaN into 0 where PTX gives INT64_MIN saturated to INT32_MIN.

    python tools/difftest/upstream/cvt_fusion_build.py build/fusion
    python tools/difftest/upstream/cvt_fusion_run.py out.json     # on the GPU, from the repo root
"""
import sys, os, json
import numpy as np
import tile_mlir
from tile_mlir import script as T
out = sys.argv[1]

def chain(name, first, second, in_bits, mid_bits, out_bits):
    @T.function
    def k(A: T.Tensor((32, 1), f"uint{in_bits}"), Mid: T.Tensor((32, 1), f"uint{mid_bits}"),
          Out: T.Tensor((32, 1), f"uint{out_bits}")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), f"uint{in_bits}")
        m = T.alloc_local((1, 1), f"uint{mid_bits}")
        o = T.alloc_local((1, 1), f"uint{out_bits}")
        T.cuda.tile.apply(T.ptx[f"ld.global.b{in_bits}"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[first], m, a)
        T.cuda.tile.apply(T.ptx[second], o, m)
        T.cuda.tile.apply(T.ptx[f"st.global.b{mid_bits}"], Mid[t:t + 1], m)
        T.cuda.tile.apply(T.ptx[f"st.global.b{out_bits}"], Out[t:t + 1], o)
    k.name = name
    kern = tile_mlir.compile(k, target="sm_90")
    kern.name = "k"
    kern.save(os.path.join(out, name + ".json"))
    return kern

os.makedirs(out, exist_ok=True)
cases = {
 "nan_to_s64_to_s32": ("cvt.rmi.s64.bf16", "cvt.sat.s32.s64", 16, 64, 32),
 "s64_to_f32_to_f64": ("cvt.rn.f32.s64", "cvt.f64.f32", 64, 32, 64),
 "f64_to_f32_to_f64": ("cvt.rn.f32.f64", "cvt.f64.f32", 64, 32, 64),
 "f32_to_u64_to_s8": ("cvt.rzi.u64.f32", "cvt.sat.s8.u64", 32, 64, 8),
}
for name, (a, b, i, m, o) in cases.items():
    k = chain(name, a, b, i, m, o)
    print(name, [l.strip() for l in k.ptx.splitlines() if "cvt" in l])
json.dump({n: list(c) for n, c in cases.items()}, open(os.path.join(out, "cases.json"), "w"))
