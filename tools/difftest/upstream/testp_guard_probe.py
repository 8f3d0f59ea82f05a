"""Does ptxas keep the guard of a testp? Difftest seed 8001639 (finding 8 of
docs/difftest.md) reduced by hand: a predicate that setp.ne.or.u32 defines,
then `@p4 testp.notanumber.f32 p3, a` with p4 true for threads 0-34. Where
the guard is false p3 must keep its value (the PTX ISA); a guarded
setp.neu.f32, which tests the same, is the control. Three first
predicates (a constant true, data), each assembled by ptxas 13.0 at -O3
and -O0, run on the GPU through cupy; expected values from the ISA.

    python tools/difftest/upstream/testp_guard_probe.py report.json   (on the GPU)
"""
import json
import subprocess
import sys

import numpy as np

HEADER = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 po) {
 .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .pred %p<8>;
 ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [po];
 mov.u32 %r10, %tid.x; mul.wide.u32 %rd4, %r10, 4; mul.wide.u32 %rd5, %r10, 8;
 add.s64 %rd6, %rd1, %rd4; add.s64 %rd7, %rd2, %rd5; add.s64 %rd8, %rd3, %rd4;
 ld.global.b32 %r1, [%rd6]; ld.global.b64 %rd9, [%rd7];
"""
FOOTER = """ selp.b32 %r5, 1, 0, %p3; st.global.b32 [%rd8], %r5; ret; }"""
P1 = {"const": "setp.hs.u64 %p1, %rd9, %rd9;", "data": "setp.lt.u64 %p1, %rd9, %rd9;",
      "data2": "setp.ne.u64 %p1, %rd9, 0;"}
GUARDED = {"testp": "@%p4 testp.notanumber.f32 %p3, %r1;", "setp": "@%p4 setp.neu.f32 %p3, %r1, %r1;"}
VARIANTS = {f"{p}_{g}": HEADER + f" {P1[p]}\n mov.b32 %r2, 502114379;\n setp.ne.or.u32 %p3, %r1, %r2, %p1;\n"
            f" setp.lt.u32 %p4, %r10, 35;\n {GUARDED[g]}\n" + FOOTER for p in P1 for g in GUARDED}

def expected(name, a, b, t):
    p, g = name.split("_")
    p1 = {"const": np.ones_like(t, bool), "data": np.zeros_like(t, bool), "data2": b != 0}[p]
    p3 = (a != 502114379) | p1
    nan = np.isnan(a.view(np.float32))
    return np.where(t < 35, nan, p3).astype(np.uint32)

def main(out):
    import cupy as cp
    rng = np.random.default_rng(1)
    n = 64
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    a[::3] = 0x7fc00001  # NaNs
    a[1::5] = 502114379
    b = rng.integers(0, 3, n, dtype=np.uint64)
    t = np.arange(n)
    report = {}
    for name, src in VARIANTS.items():
        open(f"{name}.ptx", "w").write(src)
        for opt in (3, 0):
            subprocess.run(["ptxas", "-arch=sm_90", f"-O{opt}", f"{name}.ptx", "-o", f"{name}_O{opt}.cubin"], check=True)
            mod = cp.RawModule(path=f"{name}_O{opt}.cubin")
            k = mod.get_function("k")
            da, db, do = cp.asarray(a), cp.asarray(b), cp.zeros(n, cp.uint32)
            k((1,), (n,), (da, db, do))
            got = cp.asnumpy(do)
            want = expected(name, a, b, t)
            report[f"{name}_O{opt}"] = {"wrong": int((got != want).sum()), "of": n,
                                         "wrong_threads": [int(i) for i in np.nonzero(got != want)[0][:8]]}
            print(name, opt, report[f"{name}_O{opt}"])
    json.dump(report, open(out, "w"), indent=1)

if __name__ == "__main__":
    main(sys.argv[1])
