#!/usr/bin/env python3
"""Measured error of every approximate form (.approx, div.full) against a
float64 reference, next to the bound the PTX ISA 9.0 states for it.

    python tools/conformance/approx.py build build/approx          # here, with MLIR
    PYTHONPATH=python python3 tools/conformance/approx.py run build/approx/bundle.json report.json

Each form runs over 2^20 inputs per operand (every 16-bit pattern for 16-bit
types, then random ones), mixing random bit patterns, values in the range the
bound names, and the special values of the ISA's corner-case tables, whose
results are checked exactly. Errors are measured against the float64 value of
the function of the (flushed, under .ftz) inputs.
"""

from __future__ import annotations

import base64
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference as R  # noqa: E402

TARGET = "sm_90"
GRID, BLOCK, REPEATS = 1024, 256, 4
ELEMENTS = GRID * BLOCK * REPEATS  # 2^20

# PTX ISA 9.0's bounds: (metric, bound, the inputs it holds for).
#   metric "ulp": |got - exact| in units of the f32 ulp at the exact value;
#   "ulp_from_rounded": ulps between got and the correctly rounded result;
#   "rel": relative error, where the exact result is normal; "abs":
#   absolute error.
BOUNDS = {
    "ex2.f32": [("ulp_from_rounded", 2, "all")],
    "ex2.f16": [("rel", 2 ** -9.9, "all")],
    "ex2.bf16": [("rel", 2 ** -7, "all")],
    "lg2.f32": [("abs", 2 ** -22, "lg2_near_one"), ("rel", 2 ** -22, "lg2_positive")],
    "sin.f32": [("abs", 2 ** -20.5, "two_pi"), ("abs", 2 ** -14.7, "hundred_pi")],
    "cos.f32": [("abs", 2 ** -20.5, "two_pi"), ("abs", 2 ** -14.7, "hundred_pi")],
    "tanh.f32": [("rel", 2 ** -11, "all")],
    "tanh.f16": [("abs", 2 ** -10.987, "all")],
    "tanh.bf16": [("abs", 2 ** -8, "all")],
    "sqrt.f32": [("rel", 2 ** -23, "positive")],
    "rcp.f32": [("ulp", 1, "all")],
    "rcp.f64": [],  # "a fast, gross approximation": no bound stated
    "rsqrt.f32": [("rel", 2 ** -22.9, "all")],
    "rsqrt.f64": [],  # measured; no bound checked
    "div.approx.f32": [("ulp", 2, "divisor_normal_range")],
    "div.full.f32": [("ulp", 2, "all")],
}

FUNCTIONS = {"ex2": np.exp2, "lg2": np.log2, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
             "sqrt": np.sqrt, "rcp": lambda x: 1.0 / x, "rsqrt": lambda x: 1.0 / np.sqrt(x)}

# The ISA's corner-case tables: (input, result) per family, as lists (a dict
# would take -0.0 and 0.0 for one key).
INF, NAN = math.inf, math.nan
CORNERS = {
    "ex2": [(-INF, 0.0), (-0.0, 1.0), (0.0, 1.0), (INF, INF), (NAN, NAN)],
    "lg2": [(-INF, NAN), (-1.0, NAN), (-0.0, -INF), (0.0, -INF), (INF, INF), (NAN, NAN)],
    "sin": [(-INF, NAN), (-0.0, -0.0), (0.0, 0.0), (INF, NAN), (NAN, NAN)],
    "cos": [(-INF, NAN), (-0.0, 1.0), (0.0, 1.0), (INF, NAN), (NAN, NAN)],
    "tanh": [(-INF, -1.0), (-0.0, -0.0), (0.0, 0.0), (INF, 1.0), (NAN, NAN)],
    "sqrt": [(-INF, NAN), (-1.0, NAN), (-0.0, -0.0), (0.0, 0.0), (INF, INF), (NAN, NAN)],
    "rcp": [(-INF, -0.0), (-0.0, -INF), (0.0, INF), (INF, 0.0), (NAN, NAN)],
    "rsqrt": [(-INF, NAN), (-1.0, NAN), (-0.0, -INF), (0.0, INF), (INF, 0.0), (NAN, NAN)],
}


def kind_of(form_type):
    return form_type[:-2] if form_type.endswith("x2") else form_type


def bound_key(opcode):
    tokens = opcode.split(".")
    family, ty = tokens[0], kind_of(tokens[-1])
    if family == "div":
        return f"div.{'full' if 'full' in tokens else 'approx'}.{ty}"
    return f"{family}.{ty}"


# -- build (here) ------------------------------------------------------------------

def approximate_forms():
    from tile_mlir import ptx
    forms = []
    for family in ("ex2", "lg2", "sin", "cos", "tanh", "sqrt", "rcp", "rsqrt", "div"):
        for spelling in ptx.forms(family):
            if not set(spelling.split(".")) & {"approx", "full"}:
                continue
            try:
                forms.append(ptx.parse(spelling, target=TARGET))
            except ptx.PTXFormError:
                continue
    return forms


def kernel(index, form):
    threads = GRID * BLOCK
    args, body, names, types = [], [], [], []

    def global_type(op):
        return f"memref<{threads}x{REPEATS}x1xi{op.bits}, 1>"

    def slice_type(op):
        return f"memref<{REPEATS}x1xi{op.bits}, strided<[1, 1], offset: ?>, 1>"

    tile = lambda op: f"memref<{REPEATS}x1xi{op.bits}, 5>"  # noqa: E731
    body += ["%bid = gpu.block_id x", "%tid = gpu.thread_id x", f"%cb = arith.constant {BLOCK} : index",
             "%base = arith.muli %bid, %cb : index", "%t = arith.addi %base, %tid : index"]
    for i, op in enumerate(form.operands):
        body.append(f"%r{i} = memref.alloca() : {tile(op)}")
        args.append(f"%g{i}: {global_type(op)}")
        body.append(f"%s{i} = memref.subview %g{i}[%t, 0, 0] [1, {REPEATS}, 1] [1, 1, 1] : "
                    f"{global_type(op)} to {slice_type(op)}")
        if op.role == "src":
            body.append(f'tile.apply "ld.global.b{op.bits}"(%r{i}, %s{i}) : {tile(op)}, {slice_type(op)}')
        names.append(f"%r{i}")
        types.append(tile(op))
    body.append(f'tile.apply "{form.opcode}"({", ".join(names)}) : {", ".join(types)}')
    body.append(f'tile.apply "st.global.b{form.operands[0].bits}"(%s0, %r0) : '
                f'{slice_type(form.operands[0])}, {tile(form.operands[0])}')
    return (f"    gpu.func @k{index}({', '.join(args)}) kernel attributes "
            f"{{known_block_size = array<i32: {BLOCK}, 1, 1>, known_grid_size = array<i32: {GRID}, 1, 1>}} {{\n"
            f"      " + "\n      ".join(body) + "\n      gpu.return\n    }")


def build(out_dir):
    import tile_mlir
    forms = approximate_forms()
    kernels = "\n".join(kernel(i, f) for i, f in enumerate(forms))
    module = (f'module attributes {{gpu.container_module}} {{\n'
              f'  gpu.module @approx [#nvvm.target<chip = "{TARGET}">] {{\n{kernels}\n  }}\n}}\n')
    text = tile_mlir.compile_module(module, chip=TARGET)["approx"].decode()
    cubin = tile_mlir.compiler.assemble(text, TARGET)
    os.makedirs(out_dir, exist_ok=True)
    bundle = {"target": TARGET, "grid": GRID, "block": BLOCK, "repeats": REPEATS,
              "cubin": base64.b64encode(cubin).decode(),
              "kernels": [{"name": f"k{i}", "opcode": f.opcode,
                           "operands": [{"role": op.role, "type": op.type, "bits": op.bits} for op in f.operands]}
                          for i, f in enumerate(forms)]}
    with open(os.path.join(out_dir, "bundle.json"), "w") as f:
        json.dump(bundle, f)
    print(f"{len(forms)} approximate forms")


# -- run (on the GPU) --------------------------------------------------------------------

def lanes(ty):
    return 2 if ty.endswith("x2") else 1


def domain_values(family, rng, n):
    """float64 values where the family's bounds are stated, and beyond."""
    parts = {
        "ex2": [rng.uniform(-150, 130, n)],
        "lg2": [rng.uniform(0.5, 2.0, n), np.exp2(rng.uniform(-149, 128, n))],
        "sin": [rng.uniform(-2 * np.pi, 2 * np.pi, n), rng.uniform(-100 * np.pi, 100 * np.pi, n)],
        "cos": [rng.uniform(-2 * np.pi, 2 * np.pi, n), rng.uniform(-100 * np.pi, 100 * np.pi, n)],
        "tanh": [rng.standard_normal(n) * 4, np.exp2(rng.uniform(-30, 5, n)) * rng.choice([-1, 1], n)],
        "sqrt": [np.exp2(rng.uniform(-149, 128, n))],
        "rcp": [np.exp2(rng.uniform(-140, 127, n)) * rng.choice([-1, 1], n)],
        "rsqrt": [np.exp2(rng.uniform(-149, 128, n))],
        "div": [np.exp2(rng.uniform(-126, 126, n)) * rng.choice([-1, 1], n)],
    }[family]
    return np.concatenate(parts)


def make_inputs(family, ty, rng):
    kind = kind_of(ty)
    width = R.bits_of(kind)
    n = ELEMENTS * lanes(ty)
    if width == 16:  # every pattern first, then random ones
        values = np.concatenate([np.arange(1 << 16, dtype=np.uint64),
                                 rng.integers(0, 1 << 16, n, dtype=np.uint64)])[:n]
    else:
        values = rng.integers(0, 1 << width if width < 64 else (1 << 63), n, dtype=np.uint64)
        third = n // 3
        domain = rng.permutation(domain_values(family, rng, third))[:third]
        with np.errstate(all="ignore"):
            encoded = R.encode(domain.astype(np.float32 if kind == "f32" else np.float64), kind)
        values[:third] = encoded.astype(np.uint64)
        corners = np.array([x for x, _ in CORNERS.get(family, [])] + [1e-40, -1e-40, 1e-45], dtype=np.float64)
        values[third:third + len(corners)] = R.encode(corners, kind).astype(np.uint64)
    values = values.astype(R.UINT[width])
    if lanes(ty) == 2:
        return R.join_lanes([values[0::2], values[1::2]], 16, 32)
    return values


def decode_lanes(bits, ty):
    kind = kind_of(ty)
    if lanes(ty) == 1:
        return R.decode(bits, kind)
    parts = R.split_lanes(bits, 16, 2)
    return np.stack([R.decode(p, kind) for p in parts], axis=-1).reshape(-1)


def ulp_at(exact, kind):
    e, m, _ = R.FORMATS[kind]
    emin = 2 - (1 << (e - 1))
    with np.errstate(divide="ignore"):
        exp = np.floor(np.log2(np.abs(exact)))
    return np.ldexp(1.0, (np.maximum(exp, emin) - m).astype(np.int64))


def select(where, x, inputs, family):
    if where == "all":
        return np.ones_like(x, dtype=bool)
    if where == "positive":
        return x > 0
    if where == "lg2_near_one":
        return (x > 0.5) & (x < 2)
    if where == "lg2_positive":
        return (x > 0) & ~((x > 0.5) & (x < 2))
    if where == "two_pi":
        return np.abs(x) <= 2 * np.pi
    if where == "hundred_pi":
        return np.abs(x) <= 100 * np.pi
    if where == "divisor_normal_range":
        b = np.abs(inputs[1])
        return (b >= 2.0 ** -126) & (b <= 2.0 ** 126)
    raise KeyError(where)


def measure(entry, inputs_bits, got_bits):
    opcode = entry["opcode"]
    tokens = opcode.split(".")
    family, ty = tokens[0], tokens[-1]
    kind = kind_of(ty)
    ftz = "ftz" in tokens
    inputs = [decode_lanes(b, ty) for b in inputs_bits]
    if ftz:
        inputs = [R.flush(v, kind) for v in inputs]
    got = decode_lanes(got_bits, ty)
    with np.errstate(all="ignore"):
        exact = inputs[0] / inputs[1] if family == "div" else FUNCTIONS[family](inputs[0])
    if ftz:
        # .ftz flushes subnormal results to zero: where the exact result is
        # subnormal, zero is what the ISA specifies.
        tiny = np.ldexp(1.0, 2 - (1 << (R.FORMATS[kind][0] - 1)))
        exact = np.where(np.abs(exact) < tiny, np.copysign(0.0, exact), exact)
    report = {"opcode": opcode, "inputs": int(got.size), "bounds": []}
    # The corner-case table, exactly (NaN for NaN).
    corner_bad = 0
    if family in CORNERS:
        for x, want in CORNERS[family]:
            hits = (np.isnan(inputs[0]) if math.isnan(x) else
                    (inputs[0] == x) & (np.signbit(inputs[0]) == (math.copysign(1, x) < 0)))
            if not hits.any():
                continue
            g = got[hits]
            ok = np.isnan(g) if math.isnan(want) else (g == want) & (np.signbit(g) == (math.copysign(1, want) < 0))
            corner_bad += int((~ok).sum())
        report["corner_case_mismatches"] = corner_bad
    # Every finite input whose exact result the format can hold counts; a
    # non-finite result there is an infinite error.
    finite = (np.isfinite(exact) & (np.abs(exact) <= R.max_finite(kind))
              & np.all([np.isfinite(v) for v in inputs], axis=0))
    for metric, bound, where in BOUNDS[bound_key(opcode)] if bound_key(opcode) in BOUNDS else []:
        mask = finite & select(where, inputs[0], inputs, family)
        if metric == "ulp":
            err = np.abs(got[mask] - exact[mask]) / ulp_at(exact[mask], "f32")
        elif metric == "ulp_from_rounded":
            rounded = R.round_to(exact[mask], 0, kind, "rn", ftz=ftz)
            err = np.abs(got[mask] - rounded) / ulp_at(rounded, "f32")
        elif metric == "rel":
            # Relative error is a property of normal results: a subnormal
            # one has fewer significant bits than the format.
            nz = np.abs(exact[mask]) >= np.ldexp(1.0, 2 - (1 << (R.FORMATS[kind][0] - 1)))
            err = np.abs(got[mask][nz] - exact[mask][nz]) / np.abs(exact[mask][nz])
        else:
            err = np.abs(got[mask] - exact[mask])
        worst = float(err.max()) if err.size else 0.0
        at = {}
        if err.size and metric != "rel":
            k = int(np.argmax(err))
            at = {"input": [float(v[mask][k]) for v in inputs], "got": float(got[mask][k]),
                  "exact": float(exact[mask][k])}
        report["bounds"].append({"metric": metric, "where": where, "inputs": int(err.size),
                                 "measured": worst, "bound": bound, "worst": at,
                                 "measured_log2": round(math.log2(worst), 3) if worst > 0 else None,
                                 "bound_log2": round(math.log2(bound), 3), "within": worst <= bound})
    if not report["bounds"]:
        nz = finite & (exact != 0) & np.isfinite(got)
        rel = np.abs(got[nz] - exact[nz]) / np.abs(exact[nz])
        report["measured_relative"] = float(rel.max()) if rel.size else 0.0
        if kind == "f64":
            low = np.asarray(got_bits).astype(np.uint64) & np.uint64(0xFFFFFFFF)
            report["low_word_nonzero"] = int((low != 0).sum())
    return report


def run(bundle_path, report_path):
    from tile_mlir import runtime
    with open(bundle_path) as f:
        bundle = json.load(f)
    drv = runtime.driver()
    module = drv.load_module(base64.b64decode(bundle["cubin"]))
    threads = bundle["grid"] * bundle["block"]
    shape = (threads, bundle["repeats"], 1)
    results = []
    for index, entry in enumerate(bundle["kernels"]):
        rng = np.random.default_rng(index)
        family = entry["opcode"].split(".")[0]
        ty = entry["operands"][0]["type"]
        srcs = [make_inputs(family, ty, rng).reshape(shape) for op in entry["operands"] if op["role"] == "src"]
        out = np.zeros(shape, dtype=R.UINT[entry["operands"][0]["bits"]])
        arrays = [out] + srcs
        params = [runtime.Param(f"p{i}", a.shape, str(a.dtype)) for i, a in enumerate(arrays)]
        kernel = runtime.Kernel(entry["name"], "", b"", bundle["target"], params,
                                (bundle["grid"], 1, 1), (bundle["block"], 1, 1))
        kernel._module = module
        kernel(*arrays)
        results.append(measure(entry, [s.reshape(-1) for s in srcs], out.reshape(-1)))
    ok = all(b["within"] for r in results for b in r["bounds"]) and \
        all(r.get("corner_case_mismatches", 0) == 0 for r in results)
    report = {"target": bundle["target"], "forms": len(results), "all_within_bounds": ok, "results": results}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    for r in results:
        bounds = "; ".join(f"{b['metric']} {b['where']}: 2^{b['measured_log2']} <= 2^{b['bound_log2']}"
                           f"{'' if b['within'] else ' EXCEEDED'}" for b in r["bounds"])
        print(r["opcode"], bounds or f"rel {r.get('measured_relative')}", "corners bad:",
              r.get("corner_case_mismatches"))
    print("all within bounds:", ok)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2] if len(sys.argv) > 2 else "build/approx")
    else:
        run(sys.argv[2], sys.argv[3])
