"""bfe with a constant position and length: ptxas 13.0 -O3 against the PTX
ISA (pos = b & 0xff, len = c & 0xff; d[i] = a[pos+i] while i < len and
pos+i <= msb, else the sign bit a[min(pos+len-1, msb)] of a signed type, 0
of an unsigned one). Difftest seed 6003193: bfe.s32 with a constant
position past the width folded to -1 whatever the sign of a."""
import itertools, json, subprocess, sys
import numpy as np

TYPES = {"s32": 32, "u32": 32, "s64": 64, "u64": 64}
POS = [0, 5, 31, 32, 40, 63, 64, 212, 300, 1833030804]
LEN = [0, 1, 8, 31, 40, 88, 300, -119530920]

def reference(ty, a, pos, ln):
    msb = TYPES[ty] - 1
    pos, ln = pos & 0xff, ln & 0xff
    a = [int(x) for x in a]
    out = []
    for x in a:
        bit = lambda i: (x >> i) & 1
        sbit = 0 if ty.startswith("u") or ln == 0 else bit(min(pos + ln - 1, msb))
        d = 0
        for i in range(msb + 1):
            v = bit(pos + i) if (i < ln and pos + i <= msb) else sbit
            d |= v << i
        out.append(d)
    return np.array(out, dtype=np.uint64)

def kernel(cases):
    lines = [".version 8.0", ".target sm_90", ".address_size 64",
             ".visible .entry k(.param .u64 pa, .param .u64 po) {",
             " .reg .b32 %r<8>; .reg .b64 %rd<16>;",
             " ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [po]; mov.u32 %r1, %tid.x;",
             " mul.wide.u32 %rd3, %r1, 8; add.s64 %rd4, %rd1, %rd3; ld.global.b64 %rd5, [%rd4];",
             " cvt.u32.u64 %r2, %rd5;"]
    for k, (ty, pos, ln) in enumerate(cases):
        src = "%rd5" if TYPES[ty] == 64 else "%r2"
        dst = "%rd6" if TYPES[ty] == 64 else "%r3"
        # Constants in registers, as LLVM emits them (ptxas takes 0-255 as
        # immediates only).
        lines.append(f" mov.b32 %r4, {pos}; mov.b32 %r5, {ln}; bfe.{ty} {dst}, {src}, %r4, %r5;")
        if TYPES[ty] == 32:
            lines.append(" cvt.u64.u32 %rd6, %r3;")
        lines.append(f" mul.wide.u32 %rd7, %r1, {8 * len(cases)}; add.s64 %rd8, %rd2, %rd7; st.global.b64 [%rd8+{8 * k}], %rd6;")
    lines += [" ret;", "}"]
    return "\n".join(lines)

def main(out):
    import cupy as cp
    cases = list(itertools.product(TYPES, POS, LEN))
    n = 64
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64)
    a[::2] |= np.uint64(1 << 63)
    a[1::4] |= np.uint64(1 << 31)
    a[3::4] &= np.uint64(0xFFFFFFFF7FFFFFFF)
    src = kernel(cases)
    open("bfe.ptx", "w").write(src)
    report = {}
    for opt in (3, 0):
        subprocess.run(["ptxas", "-arch=sm_90", f"-O{opt}", "bfe.ptx", "-o", f"bfe_O{opt}.cubin"], check=True)
        k = cp.RawModule(path=f"bfe_O{opt}.cubin").get_function("k")
        d_out = cp.zeros(n * len(cases), cp.uint64)
        k((1,), (n,), (cp.asarray(a), d_out))
        got = cp.asnumpy(d_out).reshape(n, len(cases))
        wrong = []
        for j, (ty, pos, ln) in enumerate(cases):
            x = a if TYPES[ty] == 64 else (a & np.uint64(0xFFFFFFFF))
            want = reference(ty, x, pos, ln)
            g = got[:, j] if TYPES[ty] == 64 else got[:, j] & np.uint64(0xFFFFFFFF)
            bad = int((g != want).sum())
            if bad:
                wrong.append({"form": f"bfe.{ty}", "pos": pos, "len": ln, "wrong": bad, "of": n})
        report[f"O{opt}"] = {"cases": len(cases), "wrong_cases": len(wrong), "wrong": wrong}
        print(opt, len(wrong), "of", len(cases), [f"{w['form']} {w['pos']} {w['len']}" for w in wrong[:12]])
    json.dump(report, open(out, "w"), indent=1)

if __name__ == "__main__":
    main(sys.argv[1])
