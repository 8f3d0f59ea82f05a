"""Runs the cvt-fusion reproducer (cvt_fusion_build.py) assembled by ptxas
at each optimization level (and -O3 with two optimizer switches) and
compares with the PTX ISA reference; writes what each SASS does
(tools/difftest/results/ptxas_cvt_fusion*.json)."""
import json, os, subprocess, sys, numpy as np, tempfile
sys.path.insert(0, "python"); sys.path.insert(0, "tools/conformance")
from tile_mlir import runtime
import reference as R
from types import SimpleNamespace as S
cases = json.load(open("build/fusion/cases.json"))
rng = np.random.default_rng(0)
def inputs(bits):
    if bits == 16:   # bf16: NaNs, infinities, normals
        v = np.array([0xfffc, 0x7fc0, 0x7f80, 0xff80, 0x4f00, 0xcf00, 0x3f80, 0x5f00] * 4, np.uint16)
    elif bits == 32:
        v = np.array([0x7fc00000, 0xff800000, 0x5f800000, 0xdf800000, 0x4f800000, 0x3f800000, 0xbf800000, 0x7f7fffff] * 4, np.uint32)
    else:
        v = rng.integers(0, 1 << 63, 32, dtype=np.uint64) | (rng.integers(0, 2, 32, dtype=np.uint64) << np.uint64(63))
    return v.reshape(32, 1)
report = {}
for name, (first, second, ib, mb, ob) in cases.items():
    k = runtime.load(f"build/fusion/{name}.json")
    a = inputs(ib)
    results = {}
    for opt in ("O3", "O2", "O1", "O0", "O3 --allow-expensive-optimizations false", "O3 --disable-optimizer-constants"):
        with tempfile.TemporaryDirectory() as tmp:
            open(f"{tmp}/k.ptx", "w").write(k.ptx)
            subprocess.run(["ptxas", "-arch=sm_90", *f"-{opt}".split(), f"{tmp}/k.ptx", "-o", f"{tmp}/k.cubin"], check=True)
            cubin = open(f"{tmp}/k.cubin", "rb").read()
            sass = subprocess.run(["cuobjdump", "-sass", f"{tmp}/k.cubin"], capture_output=True, text=True).stdout
        kk = runtime.Kernel(k.name, k.ptx, cubin, "sm_90", k.params, k.grid, k.block)
        mid = np.zeros((32, 1), f"uint{mb}"); out = np.zeros((32, 1), f"uint{ob}")
        kk(a.copy(), mid, out)
        results[opt] = (mid.reshape(-1), out.reshape(-1), [l.split(";")[0].split("*/")[-1].strip() for l in sass.splitlines() if "F2" in l or "I2" in l])
    want_mid = np.asarray(R.reference(S(opcode=first, family="cvt", operands=[]), [a.reshape(-1)]))
    want_out = np.asarray(R.reference(S(opcode=second, family="cvt", operands=[]), [want_mid.astype(f"uint{mb}")]))
    entry = {}
    for opt, (mid, out, sass) in results.items():
        entry[opt] = {"mid_matches": int((mid == want_mid.astype(mid.dtype)).sum()), "out_matches": int((out == want_out.astype(out.dtype)).sum()),
                      "sass_conversions": sass,
                      "examples": [(hex(int(x)), hex(int(m)), hex(int(o)), hex(int(w))) for x, m, o, w in zip(a.reshape(-1)[:8], mid[:8], out[:8], want_out[:8])]}
    report[name] = entry
    print(name, json.dumps(entry)[:1500])
json.dump(report, open(sys.argv[1], "w"), indent=1)
