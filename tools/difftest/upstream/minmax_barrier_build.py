"""Builds the barrier study for the third fold of difftest campaign 7
(docs/difftest.md): ptxas (CUDA 13.0) -O3 drops min.f32 after cvt.sat.u32.s64
or cvt.sat.u32.s32, and the identity max of the lowering does not stop it
(ptxas removes the max too). Each kernel puts one candidate barrier between
the cvt and min.f32 / min.ftz.f32 with 30000.0; fold_probe_run.py judges
them. Not yet run on the GPU: the session's device time ran out.

    python tools/difftest/upstream/minmax_barrier_build.py build/minmax_barrier
    PYTHONPATH=python python3 tools/difftest/upstream/fold_probe_run.py build/minmax_barrier out_dir   # on the GPU
"""
import base64
import json
import os
import subprocess
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fold_probe_build as b
CAND = {
 "none": "mov.b32 %x, %n;",
 "max": "max.s32 %x, %n, -2147483648;",
 "selp_nctaid": "{ .reg .pred %q; .reg .b32 %c; mov.u32 %c, %nctaid.x; setp.ne.u32 %q, %c, 0; selp.b32 %x, %n, 0, %q; }",
 "prmt": "prmt.b32 %x, %n, 0, 0x3210;",
 "split_join": "{ .reg .b16 %l, %h; mov.b32 {%l, %h}, %n; mov.b32 %x, {%l, %h}; }",
 "xor_tid_hi": "{ .reg .b32 %c; shr.u32 %c, %r2, 31; xor.b32 %x, %n, %c; }",
 "brev2": "brev.b32 %x, %n; brev.b32 %x, %x;",
}
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
decl = ".reg .b32 %n, %x, %m; .reg .b16 %h0; cvt.u32.u64 %x, %rd4; "
for prod in ("cvtsatu32s64", "cvtsatu32s32"):
    for op in ("minf32", "minftzf32"):
        for cand, text in CAND.items():
            body = decl + b.RANGE_PRODUCERS[prod] + " " + text + f" {b.MINMAX[op]} %m, %x, 0f46EA6000; mov.b64 %rd5, {{%n, %m}};"
            ptx = b.TEMPLATE.replace("BODY", body)
            r = subprocess.run(["ptxas", "-arch=sm_90", "-O3", "-o", os.path.join(out, "tmp.cubin"), "-"], input=ptx.encode(), capture_output=True)
            if r.returncode: print(cand, r.stderr.decode()); continue
            art = {"format": "tile-mlir-kernel/1", "name": "k", "target": "sm_90", "grid": [1, 1, 1], "block": [256, 1, 1],
                   "convention": "bare", "params": b.PARAMS, "ptx": ptx, "cubin": base64.b64encode(open(os.path.join(out, "tmp.cubin"), "rb").read()).decode()}
            json.dump(art, open(os.path.join(out, f"minmax_{prod}_{op}_{cand}_O3.json"), "w"))
os.remove(os.path.join(out, "tmp.cubin"))
print(len(os.listdir(out)), "kernels")
