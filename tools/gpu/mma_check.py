#!/usr/bin/env python3
"""mma.sync conformance (issues #27 and #30): every lowered mma form of
sm_90, one warp, fragments loaded from global memory register by register.

The host draws A (M x K), B (K x N) and C (M x N) on integer-valued data
that every form holds exactly and packs them into each lane's registers
with tile_mlir.fragments (the PTX ISA's tables). The GPU's D registers are
unpacked with the same tables and compared bit for bit with numpy's A B + C
(and with the interpreter's reference.mma): a wrong table for A, B, C or D
shows as a wrong product (a permutation of k applied to both A and B would
not, and is the one thing this check cannot see: ldmatrix pins k).

    python tools/gpu/mma_check.py build build/mma             # here: kernels
    PYTHONPATH=python python tools/gpu/mma_check.py run build/mma report.json   # on the GPU
    PYTHONPATH=python python tools/gpu/mma_check.py errors build/mma errors.json

`errors` runs every floating form on random data instead (inputs drawn
from a standard normal and rounded to the input type, C likewise to the
accumulator's) and states, per form, the distribution of D's error against
the exact A B + C (float64 for the narrow inputs, whose products and
32-term sums it holds within 2^-40 of the f32 ulp; exact rationals for
f64): in units in the last place of D's type, and relative to the sum of
the magnitudes of the terms (sum |a b| + |c|), the bound that any order of
rounded additions satisfies.
"""


import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402
from tile_mlir import fragments  # noqa: E402

TARGET = "sm_90"
# Integer ranges each input kind holds exactly (e5m2: 2 mantissa bits).
RANGES = {"f16": (-8, 8), "bf16": (-8, 8), "tf32": (-8, 8), "f64": (-8, 8), "e4m3": (-8, 8),
          "e5m2": (-7, 7), "s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15)}
ACCUMULATOR_RANGE = (-64, 64)


def forms():
    """Every mma spelling legal on sm_90, untied (d, a, b, c)."""
    from tile_mlir import ptx
    out = []
    for spelling in ptx.forms("mma"):
        try:
            form = ptx.overloads(spelling, target=TARGET)[0]
        except ptx.PTXFormError:
            continue
        out.append({"opcode": form.opcode,
                    "counts": {op.name: op.count for op in form.operands},
                    "bits": {op.name: op.bits for op in form.operands}})
    return out


def encode(values, kind):
    """Integer values as element bit patterns of `kind`."""
    from tile_mlir.interpreter import reference as R
    values = np.asarray(values)
    if kind in ("s8", "u8", "s4", "u4", "s32"):
        width = int(kind[1:])
        return (values.astype(np.int64) & ((1 << width) - 1)).astype(np.uint64)
    if kind == "tf32":
        return R.encode(values.astype(np.float64), "f32").astype(np.uint64)
    return R.encode(values.astype(np.float64), kind).astype(np.uint64)


def pack(matrix_bits, opcode, operand, kind, count, bits):
    """Each lane's registers of one operand: (32, count) words."""
    shape = fragments.shape_of(opcode)
    per = fragments.per_register(kind)
    width = fragments.ELEMENT_BITS[kind]
    regs = np.zeros((32, count), np.uint64)
    for lane in range(32):
        for r in range(count):
            word = 0
            for e in range(per):
                row, col = fragments.element(shape, operand, kind, r * per + e, lane)
                word |= int(matrix_bits[row, col]) << (e * width)
            regs[lane, r] = word
    return regs.astype(np.uint64 if bits == 64 else np.uint32)


def unpack(regs, opcode, kind):
    """D's registers (32, count) back into an M x N matrix of bits."""
    m, n, _ = fragments.shape_of(opcode)
    per = fragments.per_register(kind)
    width = fragments.ELEMENT_BITS[kind]
    out = np.zeros((m, n), np.uint64)
    for lane in range(32):
        for r in range(regs.shape[1]):
            for e in range(per):
                row, col = fragments.element((m, n, 0), "d", kind, r * per + e, lane)
                out[row, col] = (int(regs[lane, r]) >> (e * width)) & ((1 << width) - 1)
    return out


def case(entry, seed):
    """(arrays a, b, c packed, expected D bits (M x N), numpy's A B + C)."""
    opcode = entry["opcode"]
    m, n, k = fragments.shape_of(opcode)
    dk, ak, bk, ck = fragments.kinds_of(opcode)
    rng = np.random.default_rng(seed)
    a = rng.integers(*RANGES[ak], size=(m, k), endpoint=True)
    b = rng.integers(*RANGES[bk], size=(k, n), endpoint=True)
    c = rng.integers(*ACCUMULATOR_RANGE, size=(m, n), endpoint=True)
    exact = a.astype(np.int64) @ b.astype(np.int64) + c
    if "satfinite" in opcode:  # push some sums past the s32 range
        c = np.where(rng.random((m, n)) < 0.3, rng.choice([2**31 - 100, -2**31 + 100], (m, n)), c)
        exact = np.clip(a.astype(np.int64) @ b.astype(np.int64) + c, -2**31, 2**31 - 1)
    packed = {name: pack(encode(mat, kind), opcode, name, kind, entry["counts"][name], entry["bits"][name])
              for name, mat, kind in (("a", a, ak), ("b", b, bk), ("c", c, ck))}
    if dk != "s32":
        # IEEE 754's sign of an exact zero: the data has nonzero terms
        # (never every term +0 or -0), so a sum that cancels is -0 under
        # .rm and +0 otherwise.
        rm = "rm" in opcode.split(".")
        want = np.where(exact == 0, encode(np.full(exact.shape, -0.0 if rm else 0.0), dk), encode(exact, dk))
    else:
        want = (exact.astype(np.int64) & 0xFFFFFFFF).astype(np.uint64)
    return packed, want.astype(np.uint64), (a, b, c)


def kernel(entry):
    from tile_mlir import script as T
    opcode, counts, bits = entry["opcode"], entry["counts"], entry["bits"]
    dtype = {32: "uint32", 64: "uint64"}

    @T.function
    def mma(A: T.Tensor((32, counts["a"], 1), dtype[bits["a"]]), B: T.Tensor((32, counts["b"], 1), dtype[bits["b"]]),
            C: T.Tensor((32, counts["c"], 1), dtype[bits["c"]]), D: T.Tensor((32, counts["d"], 1), dtype[bits["d"]])):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        tiles = {}
        for name, tensor in (("a", A), ("b", B), ("c", C)):
            tiles[name] = T.alloc_local((32, 1, 1, counts[name]), dtype[bits[name]], scope="warp")
            T.cuda.tile.apply(T.ptx[f"ld.global.b{bits[name]}"], tiles[name].reshape((32, counts[name], 1)),
                              tensor, scope="warp")
        d = T.alloc_local((32, 1, 1, counts["d"]), dtype[bits["d"]], scope="warp")
        T.cuda.tile.apply(T.ptx[opcode], d, tiles["a"], tiles["b"], tiles["c"], scope="warp")
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits['d']}"], D, d.reshape((32, counts["d"], 1)), scope="warp")

    return mma


def check(kernel_, entry, seed):
    """One case on the GPU: None when D is numpy's A B + C bit for bit."""
    packed, want, _ = case(entry, seed)
    d = np.zeros((32, entry["counts"]["d"], 1), {32: np.uint32, 64: np.uint64}[entry["bits"]["d"]])
    kernel_(packed["a"][..., None], packed["b"][..., None], packed["c"][..., None], d)
    got = unpack(d[..., 0], entry["opcode"], fragments.kinds_of(entry["opcode"])[0])
    if np.array_equal(got, want):
        return None
    where = np.argwhere(got != want)[:4].tolist()
    return {"where": where, "got": [hex(int(got[r, c])) for r, c in where],
            "want": [hex(int(want[r, c])) for r, c in where]}


ERROR_CASES = 16
OUTPUT_PRECISION = {"f16": (10, -14), "f32": (23, -126), "f64": (52, -1022)}  # mantissa bits, least exponent


def ulp(values, kind):
    """The spacing of `kind` at each of `values` (float64)."""
    mantissa, least = OUTPUT_PRECISION[kind]
    exponent = np.floor(np.log2(np.maximum(np.abs(values), np.ldexp(1.0, least))))
    return np.ldexp(1.0, (exponent - mantissa).astype(np.int64))


def round_to_kind(values, kind):
    """float64 values rounded to the nearest of `kind` (ties to even); the
    draws stay far inside every kind's range."""
    from tile_mlir.interpreter import reference as R
    exponent_bits, mantissa, _ = R.FORMATS[kind]
    least = 2 - (1 << (exponent_bits - 1))
    exponent = np.floor(np.log2(np.maximum(np.abs(values), np.ldexp(1.0, least))))
    step = (exponent - mantissa).astype(np.int64)
    return np.ldexp(np.round(np.ldexp(values, -step)), step)


def random_inputs(kind, shape, rng):
    """Normal values rounded to `kind`, and their bit patterns as the
    registers hold them (tf32 in an f32's)."""
    values = round_to_kind(rng.standard_normal(shape), kind)
    return values, encode(values, kind)


def exact_product(a, b, c, kind):
    """A B + C exactly: float64 for narrow inputs, rationals (an object
    array) for f64."""
    if kind != "f64":
        return a @ b + c
    from fractions import Fraction
    m, k = a.shape
    n = b.shape[1]
    fa = [[Fraction(float(x)) for x in row] for row in a]
    fb = [[Fraction(float(x)) for x in row] for row in b]
    exact = np.empty((m, n), object)
    for i in range(m):
        for j in range(n):
            exact[i, j] = sum((fa[i][t] * fb[t][j] for t in range(k)), Fraction(float(c[i, j])))
    return exact


def error_case(kernel_, entry, seed):
    """(D's error in ulps, error / (sum |a b| + |c|)) of one random case."""
    from tile_mlir.interpreter import reference as R
    opcode = entry["opcode"]
    m, n, k = fragments.shape_of(opcode)
    dk, ak, bk, ck = fragments.kinds_of(opcode)
    rng = np.random.default_rng(1000 + seed)
    a, a_bits = random_inputs(ak, (m, k), rng)
    b, b_bits = random_inputs(bk, (k, n), rng)
    c, c_bits = random_inputs(ck, (m, n), rng)
    packed = {name: pack(bits, opcode, name, kind, entry["counts"][name], entry["bits"][name])
              for name, bits, kind in (("a", a_bits, ak), ("b", b_bits, bk), ("c", c_bits, ck))}
    d = np.zeros((32, entry["counts"]["d"], 1), {32: np.uint32, 64: np.uint64}[entry["bits"]["d"]])
    kernel_(packed["a"][..., None], packed["b"][..., None], packed["c"][..., None], d)
    got = R.decode(unpack(d[..., 0], opcode, dk), dk)
    exact = exact_product(a, b, c, ak)
    if ak == "f64":
        from fractions import Fraction
        error = np.array([[float(abs(Fraction(float(g)) - x)) for g, x in zip(*row)] for row in zip(got, exact)])
        exact = exact.astype(np.float64)
    else:
        error = np.abs(got - exact)
    return error / ulp(exact, dk), error / (np.abs(a) @ np.abs(b) + np.abs(c))


def errors(out_dir, report_path):
    """Per floating form, D's error on ERROR_CASES random cases."""
    import json
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "forms.json")) as f:
        entries = json.load(f)
    report = {"target": TARGET, "cases_per_form": ERROR_CASES, "forms": []}
    for entry in entries:
        if fragments.kinds_of(entry["opcode"])[0] == "s32":
            continue
        kernel_ = runtime.load(os.path.join(out_dir, entry["artifact"]))
        ulps, relative = zip(*(error_case(kernel_, entry, seed) for seed in range(ERROR_CASES)))
        ulps, relative = np.concatenate([u.ravel() for u in ulps]), np.concatenate([r.ravel() for r in relative])
        row = {"opcode": entry["opcode"], "elements": int(ulps.size), "exact": float(np.mean(ulps == 0)),
               "ulp": {q: float(np.percentile(ulps, p)) for q, p in (("median", 50), ("p99", 99), ("max", 100))},
               "relative_to_magnitudes_max": float(relative.max())}
        report["forms"].append(row)
        print(row["opcode"], row["ulp"], f"{row['exact']:.3f} exact", f"{row['relative_to_magnitudes_max']:.2e}")
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)


def build(out_dir):
    form_check.build(out_dir, forms(), kernel, "mma", TARGET, "mma")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "mma")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    elif sys.argv[1] == "errors":
        errors(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[2], sys.argv[3])
