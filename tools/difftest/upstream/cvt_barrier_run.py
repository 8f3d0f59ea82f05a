"""Runs the kernels cvt_barrier_build.py wrote, each assembled by ptxas
at -O3 (the default) and -O0, and checks out == sat(mid) bit for bit.
Needs ptxas, cuobjdump and cupy (the H200 machine has them)."""
import json, os, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import cupy as cp

src_dir, out_path = sys.argv[1], sys.argv[2]
cases = json.load(open(os.path.join(src_dir, "cases.json")))
FLOATS = [float("nan"), -float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.5, -1.5, 100.7, -129.5,
          300.2, -40000.0, 65504.0, -65504.0, 2.0**31, -2.0**31 - 4096, 2.0**32 + 8192, 3e10, -3e10,
          2.0**63, -2.0**63, 2.0**64, 1e30, -1e30]


def inputs(src):
    if src == "f64":
        bits = np.array(FLOATS, np.float64).view(np.uint64)
        bits = np.concatenate([bits, np.array([0x7ff0000000000001, 0xfff8000000000123], np.uint64)])
    elif src == "f32":
        bits = np.array(FLOATS, np.float32).view(np.uint32).astype(np.uint64)
        bits = np.concatenate([bits, np.array([0x7f800001, 0xffc00123], np.uint64)])
    else:
        f = np.array(FLOATS, np.float32)
        if src == "f16":
            with np.errstate(over="ignore"):
                bits = f.astype(np.float16).view(np.uint16).astype(np.uint64)
        else:
            bits = (f.view(np.uint32) >> 16).astype(np.uint64)
        bits = np.concatenate([bits, np.array([0x7c01 if src == "f16" else 0x7f81, 0xfe23 if src == "f16" else 0xffc3], np.uint64)])
    return np.resize(bits, 64).astype(np.uint64)


def expected(mid_bits, mid, second):
    """cvt.{second}.{mid} of each middle value, as the low 32 bits (or
    fewer) the kernel stores."""
    saturate = second.startswith("sat.")
    dst = second.split(".")[-1]
    width, nb = int(mid[1:]), int(dst[1:])
    out = []
    for x in (int(b) & ((1 << width) - 1) for b in mid_bits):
        if mid[0] == "s" and x >> (width - 1):
            x -= 1 << width
        if saturate:
            lo, hi = ((-(1 << (nb - 1)), (1 << (nb - 1)) - 1) if dst[0] == "s" else (0, (1 << nb) - 1))
            x = min(max(x, lo), hi)
        out.append(x & ((1 << min(nb, 32)) - 1))
    return out


def assemble(case, opt, tmp):
    ptx = os.path.join(src_dir, case["name"] + ".ptx")
    cubin = os.path.join(tmp, f"{case['name']}_{opt}.cubin")
    subprocess.run(["ptxas", "-arch=sm_90", f"-{opt}", ptx, "-o", cubin], check=True)
    sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
    body = [l.split(";")[0].split("*/")[-1].strip() for l in sass.splitlines() if l.strip().startswith("/*") and "*/" in l]
    body = [b for b in body if b and not b.startswith("/*")]
    return cubin, body


report = []
with tempfile.TemporaryDirectory() as tmp:
    jobs = [(c, o) for c in cases for o in ("O3", "O0")]
    with ThreadPoolExecutor(16) as pool:
        built = list(pool.map(lambda j: assemble(j[0], j[1], tmp), jobs))
    for (case, opt), (cubin, sass) in zip(jobs, built):
        a = inputs(case["src"])
        din, dmid, dout = cp.asarray(a), cp.zeros(64, cp.uint64), cp.zeros(64, cp.uint64)
        fn = cp.RawModule(path=cubin).get_function("k")
        fn((1,), (64,), (din, dmid, dout))
        cp.cuda.Device().synchronize()
        mid, out = dmid.get(), dout.get()
        nb = min(int(case["second"].split(".")[-1][1:]), 32)
        got = [int(x) & ((1 << nb) - 1) for x in out]
        want = expected(mid, case["mid"], case["second"])
        bad = [i for i in range(64) if got[i] != want[i]]
        report.append({**case, "opt": opt, "right": 64 - len(bad),
                       "examples": [(hex(int(a[i])), hex(int(mid[i])), hex(got[i]), hex(want[i])) for i in bad[:4]],
                       "conversions": [s for s in sass if s.startswith(("F2I", "I2I", "F2F", "I2F"))],
                       "instructions": len([s for s in sass if not s.startswith(("NOP", "BRA", "EXIT"))])})
summary = {}
for r in report:
    key = f"{r['barrier']}@{r['opt']}"
    s = summary.setdefault(key, {"kernels": 0, "wrong_kernels": 0, "instructions": 0})
    s["kernels"] += 1; s["wrong_kernels"] += r["right"] < 64; s["instructions"] += r["instructions"]
json.dump({"summary": summary, "kernels": report}, open(out_path, "w"), indent=0)
print(json.dumps(summary, indent=1))
for r in report:
    if r["right"] < 64 and r["opt"] == "O3" and r["barrier"] == "none":
        print(r["name"], r["right"], r["conversions"], r["examples"][:2])
