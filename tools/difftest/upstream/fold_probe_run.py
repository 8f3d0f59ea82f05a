"""Runs the kernels of fold_probe_build.py and sat_range_build.py on a CUDA
GPU (numpy and the driver only), compares each bit for bit with the PTX
ISA's semantics, and writes fold_probe.json and the SASS of every kernel
(sass.tar.gz).

    PYTHONPATH=python python3 tools/difftest/upstream/fold_probe_run.py build/fold_probe out_dir
"""
import base64
import json
import os
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

from tile_mlir import runtime

M64 = (1 << 64) - 1
SPECIAL = [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0x80000000, 0xc0ce0cca, 0x1141a329, 0x7fffffff,
           0x42758efd, 0xffffffff, 0x3f800000, 0xbf800000, 0x40000040, 0x80000001, 0x100, 0x101, 0x13f, 0x140,
           0x80000005, 0x80000020, 0x80000040, 0x80000041, 0x42000000, 0x41f00000, 0x42800000, 0xc2000000]
# Low halves with the sign set under a positive high half, as seed 7001561.
SIGNED_LOW = [0x3ce5e597, 0x3e498885, 0x210bba68, 0x3ea1860a, 0x00008001, 0x00018000, 0x3f7f8123, 0x3c008400]


class Skip(Exception):
    """The ISA leaves the result unspecified (a NaN's payload)."""


def shr(x, s, bits):
    return x >> min(s, bits)


def shl(x, s, bits):
    return (x << min(s, bits)) & ((1 << bits) - 1)


def sar(x, s, bits):
    v = x - (1 << bits) if x >> (bits - 1) else x
    return (v >> min(s, bits)) & ((1 << bits) - 1)


def signed32(v):
    return v - (1 << 32) if v >> 31 else v


def field(a, pos, length):
    if pos >= 64 or length == 0:
        return 0
    return (a >> pos) & ((1 << min(length, 64)) - 1)


def insert(a, b, pos, length):
    if pos >= 64 or length == 0:
        return b
    mask = (((1 << min(length, 64)) - 1) << pos) & M64
    return (b & ~mask & M64) | ((a << pos) & mask)


def f32_bits(value):
    return int(np.array([value], np.float32).view(np.uint32)[0])


def produce(op, s):
    """%n from B[t] = s."""
    if op == "negs32":
        return (-s) & 0xffffffff
    if op in ("negf16x2", "negbf16x2"):
        for h in (s & 0xffff, s >> 16):
            if op == "negf16x2" and (h >> 10) & 0x1f == 0x1f and h & 0x3ff:
                raise Skip
            if op == "negbf16x2" and (h >> 7) & 0xff == 0xff and h & 0x7f:
                raise Skip
        return s ^ 0x80008000
    exponent, mantissa = (s >> 23) & 0xff, s & 0x7fffff
    if exponent == 0xff and mantissa:
        raise Skip
    if "ftz" in op and exponent == 0 and mantissa:
        s &= 0x80000000
    if op in ("negf32", "negftzf32"):
        return s ^ 0x80000000
    if op in ("absf32", "absftzf32"):
        return s & 0x7fffffff
    if op in ("addf32", "mulf32", "minf32"):
        return s
    if op == "cvtf32s32":
        return f32_bits(np.float32(signed32(s)))
    if op == "cvtrzif32":
        return f32_bits(np.trunc(np.array([s], np.uint32).view(np.float32)[0]))
    raise KeyError(op)


def consume(use, a, n, whole):
    x = a & 0xffffffff
    low8 = (lambda q: q) if whole else (lambda q: q & 0xff)
    return {
        "shr64": lambda: shr(a, n, 64), "shl64": lambda: shl(a, n, 64), "shrs64": lambda: sar(a, n, 64),
        "shru64": lambda: shr(a, n, 64), "shr32": lambda: shr(x, n, 32), "shl32": lambda: shl(x, n, 32),
        "shr16": lambda: shr(x & 0xffff, n, 16), "add32": lambda: (x + n) & 0xffffffff,
        "mul32": lambda: (x * n) & 0xffffffff,
        "bfe32": lambda: (x >> (n & 0xff)) & 0xff if (n & 0xff) < 32 else 0, "mov64": lambda: n,
        "mulwideu32": lambda: n * x, "mulwides32": lambda: (signed32(n) * signed32(x)) & M64,
        "madwideu32": lambda: (n * x + a) & M64,
        "bfeu64pos": lambda: field(a, low8(n), 8), "bfeu64len": lambda: field(a, 3, low8(n)),
        "bfib64pos": lambda: insert(a, a, low8(n), 8), "bfib64len": lambda: insert(a, a, 5, low8(n)),
    }[use]()


def abs_lane(h, kind, ftz):
    if kind == "f16":
        exponent, mantissa = (h >> 10) & 0x1f, h & 0x3ff
        if exponent == 0x1f and mantissa:
            return None
        if ftz and exponent == 0 and mantissa:
            return 0
    elif (h >> 7) & 0xff == 0xff and h & 0x7f:
        return None
    return h & 0x7fff


def judge_amount(name, a, b, got):
    _, producer, consumer = name.split("_")[:3]
    result = {}
    # 64-bit bit fields: the ISA's low 8 bits of position and length, and
    # the whole 32-bit value ptxas uses (the caveat of the bfe/bfi records).
    for whole in ((True, False) if consumer.startswith("bf") and "64" in consumer else (True,)):
        bad, compared = [], 0
        for x, s, g in zip(a, b, got):
            try:
                want = consume(consumer, int(x), produce(producer, int(s)), whole)
            except Skip:
                continue
            compared += 1
            if int(g) != want:
                bad.append([hex(int(s)), hex(int(g)), hex(want)])
        result["whole" if whole else "low8"] = {"compared": compared, "mismatches": len(bad), "cases": bad[:6]}
    return result


def judge_abs(name, got):
    op = name.split("_")[2]
    kind, ftz = ("bf16" if "bf16" in op else "f16"), "ftz" in op
    bad, compared = [], 0
    for v in got:
        n, m = int(v) & 0xffffffff, int(v) >> 32
        for lane in (0, 16):
            want = abs_lane((n >> lane) & 0xffff, kind, ftz)
            if want is None:
                continue
            compared += 1
            if (m >> lane) & 0xffff != want:
                bad.append([hex(n), hex(m)])
    return {"whole": {"compared": compared, "mismatches": len(bad), "cases": bad[:6]}}


def float_min_max(op, n, c, bits=32):
    """min/max.f32 (or .f64) of the bits n and the constant c: a NaN gives
    the other."""
    fraction = 23 if bits == 32 else 52
    exponent, mantissa = n >> fraction & ((1 << (bits - 1 - fraction)) - 1), n & ((1 << fraction) - 1)
    if exponent == (1 << (bits - 1 - fraction)) - 1 and mantissa:
        return c
    if "ftz" in op and exponent == 0 and mantissa:
        n &= 1 << (bits - 1)
    unsigned, real = (np.uint32, np.float32) if bits == 32 else (np.uint64, np.float64)
    x, y = (np.array([v], unsigned).view(real)[0] for v in (n, c))
    if x == y:  # +0 and -0: the ISA orders -0 below +0
        return (n | c) if op.startswith("min") else (n & c)
    pick = min if op.startswith("min") else max
    return n if pick(x, y) == x else c


def judge_minmax(name, got):
    op = name.split("_")[2]
    bad = []
    for v in got:
        n, m = int(v) & 0xffffffff, int(v) >> 32
        want = float_min_max(op, n, 0x46EA6000)
        if m != want:
            bad.append([hex(n), hex(m), hex(want)])
    return {"whole": {"compared": len(got), "mismatches": len(bad), "cases": bad[:6]}}


def f32(bits):
    return np.array([bits], np.uint32).view(np.float32)[0]


def is_nan(bits):
    return (bits >> 23) & 0xff == 0xff and bits & 0x7fffff


def saturate(bits):
    """The float .sat of the ISA: clamp to [0.0, 1.0], a NaN gives +0.0."""
    if is_nan(bits):
        return 0
    return f32_bits(np.clip(f32(bits), np.float32(0), np.float32(1)))


def consume_f32(consumer, n):
    """The consumers of sat_range_build.py; None where any NaN is right."""
    if consumer in ("minf32", "minftzf32", "maxf32"):
        return float_min_max(consumer, n, 0x46EA6000)
    if consumer == "maxf32neg":
        return float_min_max("maxf32", n, 0xBF800000)
    if consumer == "absf32":
        return None if is_nan(n) else n & 0x7fffffff
    if consumer == "setpgtf32":
        return int(bool(f32(n) > np.float32(1)))
    if consumer == "cvtsatf32":
        return saturate(n)
    if consumer == "addsatf32":
        return 0 if is_nan(n) else saturate(f32_bits(f32(n) + np.float32(0)))
    raise KeyError(consumer)


def judge_sat(name, got):
    consumer = name.split("_")[2]
    bad = []
    for v in got:
        n, m = int(v) & 0xffffffff, int(v) >> 32
        want = consume_f32(consumer, n)
        zeros = (0, 0x80000000)  # the ISA leaves the sign of a saturated -0.0 open
        right = is_nan(m) if want is None else m == want or (n in zeros and m in zeros and want in zeros)
        if not right:
            bad.append([hex(n), hex(m), "nan" if want is None else hex(want)])
    return {"whole": {"compared": len(got), "mismatches": len(bad), "cases": bad[:6]}}


def saturate64(producer, a):
    """cvt.sat.s64.u64 or cvt.sat.u64.s64 of the bits a."""
    if producer == "cvtsats64u64":
        return min(a, (1 << 63) - 1)
    return 0 if a >> 63 else a


def judge_sat64(name, a, got):
    _, producer, consumer = name.split("_")[:3]
    c = 0x40DD4C0000000000 if consumer == "minf64" else 0xBFF0000000000000
    bad = []
    for x, m in zip(a, got):
        want = float_min_max(consumer, saturate64(producer, int(x)), c, bits=64)
        if int(m) != want:
            bad.append([hex(int(x)), hex(int(m)), hex(want)])
    return {"whole": {"compared": len(got), "mismatches": len(bad), "cases": bad[:6]}}


def main(bundle, out_dir):
    rng = np.random.default_rng(7003105)
    b = np.array((SPECIAL + list(range(100)) + list(rng.integers(0, 1 << 32, 256, dtype=np.uint64)))[:256],
                 np.uint64).astype(np.uint32)
    b_abs = np.concatenate([np.array(SIGNED_LOW, np.uint32), rng.integers(0, 1 << 32, 248, dtype=np.uint32)])
    report = {}
    sass_dir = tempfile.mkdtemp()
    for f in sorted(os.listdir(bundle)):
        path = os.path.join(bundle, f)
        kernel = runtime.load(path)
        name = f[:-len(".json")]
        a = rng.integers(0, 1 << 63, 256, dtype=np.uint64)
        if name.startswith(("minmax_", "sat_")):  # values of every size, some beyond u32
            a >>= rng.integers(0, 63, 256, dtype=np.uint64)
        if name.startswith("sat64_"):  # every size and sign of 64 bits
            a = rng.integers(0, 1 << 64, 256, dtype=np.uint64) >> rng.integers(0, 63, 256, dtype=np.uint64)
            a[::2] ^= np.uint64(1 << 63)
        inputs = b_abs if name.startswith("abs_") else b
        out = np.zeros((256, 1), np.uint64)
        kernel(a.reshape(256, 1), inputs.reshape(256, 1), out)
        got = out.reshape(-1)
        if name.startswith("abs_"):
            report[name] = judge_abs(name, got)
        elif name.startswith("minmax_"):
            report[name] = judge_minmax(name, got)
        elif name.startswith("sat_"):
            report[name] = judge_sat(name, got)
        elif name.startswith("sat64_"):
            report[name] = judge_sat64(name, a, got)
        else:
            report[name] = judge_amount(name, a, inputs, got)
        print(name, {k: (v["compared"], v["mismatches"]) for k, v in report[name].items()})
        cubin = os.path.join(sass_dir, "k.cubin")
        open(cubin, "wb").write(base64.b64decode(json.load(open(path))["cubin"]))
        sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
        open(os.path.join(sass_dir, name + ".sass"), "w").write(sass)
        os.remove(cubin)
    with open(os.path.join(out_dir, "fold_probe.json"), "w") as f:
        json.dump(report, f, indent=1)
    with tarfile.open(os.path.join(out_dir, "fold_probe_sass.tar.gz"), "w:gz") as tar:
        tar.add(sass_dir, arcname="sass")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
