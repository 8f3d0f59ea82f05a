"""On the GPU (ptxas, cuobjdump, cupy): each cvt of an f32 source with and
without .ftz, assembled at -O3 and -O0, run on f32 subnormals and normals;
records the SASS conversion and the outputs
(tools/difftest/results/ptxas_cvt_ftz.json). Found: cvt.{rm,rp}.ftz.f16.f32
becomes F2F.F16.F32 without FTZ.

    cd build/ftz && python3 ../../tools/difftest/upstream/cvt_ftz_run.py out.json
"""
import subprocess, json, sys, numpy as np, cupy as cp
forms = ["cvt.rm.ftz.f16.f32", "cvt.rp.ftz.f16.f32", "cvt.rm.f16.f32", "cvt.rp.f16.f32", "cvt.rn.ftz.f16.f32", "cvt.rz.ftz.f16.f32", "cvt.rm.ftz.sat.f16.f32", "cvt.rm.ftz.bf16.f32", "cvt.rp.ftz.bf16.f32", "cvt.rmi.ftz.f32.f32", "cvt.ftz.f64.f32"]
inputs = np.array([0x807fffff, 0x00000001, 0x00400000, 0x80000001, 0x3f800000, 0x38800000, 0x33800001, 0xb3800001] * 4, np.uint32)
out = {}
for form in forms:
    dst = form.split(".")[-2]
    dreg = {"f16": "h", "bf16": "h", "f32": "r", "f64": "rd"}[dst]
    st = {"h": "b16", "r": "b32", "rd": "b64"}[dreg]
    ptx = f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout) {{
 .reg .b64 %rd<8>; .reg .b32 %r<8>; .reg .b16 %h<4>; .reg .f32 %f<2>;
 ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
 cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
 mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 8; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
 ld.global.f32 %f1, [%rd4];
 {form} %{dreg}3, %f1;
 st.global.{st} [%rd5], %{dreg}3;
 ret;
}}
"""
    open("k.ptx", "w").write(ptx)
    res = {}
    for opt in ("-O3", "-O0"):
        cub = f"k_{len(out)}{opt}.cubin"; subprocess.run(["ptxas", "-arch=sm_90", opt, "k.ptx", "-o", cub], check=True)
        sass = [l.split(";")[0].split("*/")[-1].strip() for l in subprocess.run(["cuobjdump", "-sass", cub], capture_output=True, text=True).stdout.splitlines() if "F2F" in l or "FRND" in l]
        d_in = cp.asarray(inputs.astype(np.uint64)); d_out = cp.zeros(32, cp.uint64)
        cp.RawModule(path=cub).get_function("k")((1,), (32,), (d_in, d_out)); cp.cuda.Device().synchronize()
        res[opt] = {"sass": sass, "out": [hex(int(x)) for x in d_out.get()[:8]]}
    out[form] = res
    print(form, json.dumps(res))
json.dump({"inputs": [hex(int(x)) for x in inputs[:8]], "forms": out}, open(sys.argv[1], "w"), indent=1)
