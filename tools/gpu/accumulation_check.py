#!/usr/bin/env python3
"""sm_90's floating tensor-core accumulation, measured (issues 56 and 60):
every floating mma.sync form, WARPS warps of one instruction each a batch,
on inputs drawn to separate accumulation models (normal values; exponents
spread over 2^+-12; C cancelling the products' sum; values near the bottom
of the input's range; infinities and NaNs among them). The inputs are drawn
here and carried; the GPU returns D's bits; the model
(tile_mlir.interpreter.accumulation) is fitted and checked here, bit for
bit, on every element.

    python tools/gpu/accumulation_check.py build build/acc              # here: kernels and inputs
    python tools/gpu/accumulation_check.py build-wgmma build/accw       # here: the GEMMs (ops cache)
    PYTHONPATH=python python tools/gpu/accumulation_check.py run build/acc d.npz          # on the GPU
    PYTHONPATH=python python tools/gpu/accumulation_check.py run-wgmma build/accw w.npz   # on the GPU
    python tools/gpu/accumulation_check.py compare build/acc d.npz w.npz report.json      # here
    PYTHONPATH=python python tools/gpu/accumulation_check.py verify build/acc report.json BATCHES SEED  # GPU
    python tools/gpu/accumulation_check.py build-wgmma-forms build/accwf [SEEDS [K1,K2]]   # here
    PYTHONPATH=python python tools/gpu/accumulation_check.py run-wgmma-forms build/accwf wf.npz   # on the GPU
    python tools/gpu/accumulation_check.py compare-wgmma-forms build/accwf wf.npz report.json     # here
    python tools/gpu/accumulation_check.py fixtures build/acc d.npz w.npz build/accwf tools/gpu/results
"""

import json
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import mma_check  # noqa: E402
from tile_mlir import fragments  # noqa: E402

WARPS = 256
DRAWS = ("normal", "spread", "cancel", "small", "special")


def floating_forms():
    return [f for f in mma_check.forms()
            if fragments.kinds_of(f["opcode"])[0] in ("f16", "f32") and fragments.kinds_of(f["opcode"])[1] != "f64"]


def describe(entry):
    """The entry with what the GPU machine cannot compute (no MLIR there):
    its shape, kinds and each operand's fragment table."""
    opcode = entry["opcode"]
    kinds = dict(zip("dabc", fragments.kinds_of(opcode)))
    maps = {name: [m.tolist() for m in lane_map(opcode, name, kinds[name], entry["counts"][name])] for name in "abcd"}
    return dict(entry, shape=list(fragments.shape_of(opcode)), kinds=kinds, maps=maps)


def lane_map(opcode, operand, kind, count):
    """(rows, cols) of each (lane, register, element): the fragment table."""
    shape = fragments.shape_of(opcode)
    per = fragments.per_register(kind)
    rows = np.zeros((32, count, per), np.int64)
    cols = np.zeros((32, count, per), np.int64)
    for lane in range(32):
        for r in range(count):
            for e in range(per):
                rows[lane, r, e], cols[lane, r, e] = fragments.element(shape, operand, kind, r * per + e, lane)
    return rows, cols


def pack(bits, entry, operand):
    """(W, rows, cols) element bits into (W, 32, count, 1) registers."""
    rows, cols = (np.array(m) for m in entry["maps"][operand])
    kind, width = entry["kinds"][operand], entry["bits"][operand]
    element = fragments.ELEMENT_BITS[kind]
    gathered = bits[:, rows, cols].astype(np.uint64)  # (W, 32, count, per)
    shifts = (np.arange(rows.shape[2], dtype=np.uint64) * np.uint64(element))
    words = np.bitwise_or.reduce(gathered << shifts, axis=3)
    return np.ascontiguousarray(words.astype(np.uint32 if width == 32 else np.uint64)[..., None])


def unpack(words, entry):
    """(W, 32, count, 1) D registers into (W, M, N) element bits."""
    m, n, _ = entry["shape"]
    kind = entry["kinds"]["d"]
    rows, cols = (np.array(x) for x in entry["maps"]["d"])
    element = fragments.ELEMENT_BITS[kind]
    shifts = (np.arange(rows.shape[2], dtype=np.uint64) * np.uint64(element))
    values = (words[..., 0].astype(np.uint64)[..., None] >> shifts) & np.uint64((1 << element) - 1)
    out = np.zeros((words.shape[0], m, n), np.uint64)
    out[:, rows, cols] = values
    return out


def rounded(values, kind):
    """float64 values rounded to `kind` (nearest, ties to even; saturating
    to the largest finite where a draw passes it) as exact float64."""
    from tile_mlir.interpreter import reference as R
    out = R.round_to(values, np.zeros_like(values), "f32" if kind == "tf32" else kind, "rn")
    if kind == "tf32":  # 10 mantissa bits in an f32's register
        out = R.round_to(out, np.zeros_like(out), "tf32", "rn")
    big = R.max_finite("f32" if kind == "tf32" else kind)
    return np.where(~np.isfinite(out) & np.isfinite(values), np.sign(values) * big, out)


def register_bits(values, kind):
    from tile_mlir.interpreter import reference as R
    return R.encode(values, "f32" if kind == "tf32" else kind).astype(np.uint64)


def draw(entry, how, rng):
    """(a, b, c) float64 values of `kind`s for WARPS instructions."""
    from tile_mlir.interpreter import reference as R
    m, n, k = entry["shape"]
    ak, bk, ck = (entry["kinds"][name] for name in "abc")
    shapes = {"a": (WARPS, m, k), "b": (WARPS, k, n), "c": (WARPS, m, n)}
    raw = {name: rng.standard_normal(shape) for name, shape in shapes.items()}
    if how == "spread":
        raw = {name: v * np.exp2(rng.integers(-12, 13, v.shape)) for name, v in raw.items()}
    if how == "small":  # near the least normal of the inputs (subnormal products too)
        least = {kind: 2.0 ** (2 - (1 << (R.FORMATS["f32" if kind == "tf32" else kind][0] - 1)))
                 for kind in (ak, bk, ck)}
        raw["a"] *= least[ak] * np.exp2(rng.integers(0, 6, raw["a"].shape))
        raw["b"] *= np.exp2(rng.integers(-4, 4, raw["b"].shape))
        raw["c"] *= least[ak] * np.exp2(rng.integers(-4, 4, raw["c"].shape))
    a, b = rounded(raw["a"], ak), rounded(raw["b"], bk)
    c = rounded(raw["c"], ck)
    if how == "cancel":  # C the negated sum rounded to C's kind: D is what rounding left
        c = rounded(-(a @ b) + raw["c"] * 2.0 ** -20, ck)
    if how == "special":
        for values in (a, b, c):
            hit = rng.random(values.shape) < 0.01
            values[hit] = rng.choice([np.inf, -np.inf, np.nan], hit.sum())
    return a, b, c


def kernel(entry):
    from tile_mlir import script as T
    opcode, counts, bits = entry["opcode"], entry["counts"], entry["bits"]
    dtype = {32: "uint32", 64: "uint64"}

    a_array, b_array, c_array, d_array = (T.Tensor((WARPS, 32, counts[name], 1), dtype[bits[name]])
                                          for name in "abcd")

    @T.function
    def mma_batch(A: a_array, B: b_array, C: c_array, D: d_array):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=WARPS, block=32))
        w = T.block_id()
        tiles = {}
        for name, tensor in (("a", A), ("b", B), ("c", C)):
            tiles[name] = T.alloc_local((32, 1, 1, counts[name]), dtype[bits[name]], scope="warp")
            T.cuda.tile.apply(T.ptx[f"ld.global.b{bits[name]}"], tiles[name].reshape((32, counts[name], 1)),
                              tensor[w], scope="warp")
        d = T.alloc_local((32, 1, 1, counts["d"]), dtype[bits["d"]], scope="warp")
        T.cuda.tile.apply(T.ptx[opcode], d, tiles["a"], tiles["b"], tiles["c"], scope="warp")
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits['d']}"], D[w], d.reshape((32, counts["d"], 1)), scope="warp")

    return mma_batch


def inputs(entry, how, rng):
    """The drawn (a, b, c) values and their element bits."""
    values = draw(entry, how, rng)
    return values, [register_bits(v, entry["kinds"][name]) for v, name in zip(values, "abc")]


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    entries, arrays = [describe(entry) for entry in floating_forms()], {}
    for i, entry in enumerate(entries):
        tile_mlir.compile(kernel(entry), target="sm_90").save(os.path.join(out_dir, f"acc{i}.json"))
        entry["artifact"] = f"acc{i}.json"
        for j, how in enumerate(DRAWS):
            _, bits = inputs(entry, how, np.random.default_rng(100 * i + j))
            for name, words in zip("abc", bits):
                arrays[f"{i}.{how}.{name}"] = pack(words, entry, name)
    np.savez_compressed(os.path.join(out_dir, "inputs.npz"), **arrays)
    with open(os.path.join(out_dir, "forms.json"), "w") as f:
        json.dump(entries, f, indent=1)
    print(f"{len(entries)} forms, {len(DRAWS)} draws of {WARPS} instructions each")


def run(out_dir, out_path):
    """On the GPU: each form's D registers for each draw."""
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "forms.json")) as f:
        entries = json.load(f)
    arrays = np.load(os.path.join(out_dir, "inputs.npz"))
    out = {}
    for i, entry in enumerate(entries):
        launch = runtime.load(os.path.join(out_dir, entry["artifact"]))
        for how in DRAWS:
            d = np.zeros((WARPS, 32, entry["counts"]["d"], 1), {32: np.uint32, 64: np.uint64}[entry["bits"]["d"]])
            launch(*(arrays[f"{i}.{how}.{name}"] for name in "abc"), d)
            out[f"{i}.{how}"] = d
    np.savez_compressed(out_path, **out)
    print(f"{len(entries)} forms run")


def compare(out_dir, d_path):
    """Here: each form's D on the GPU against the interpreter's model
    (accumulation.sm90), bit for bit on every element of every draw. A
    form without a model is reported as such."""
    from tile_mlir.interpreter import accumulation
    with open(os.path.join(out_dir, "forms.json")) as f:
        entries = json.load(f)
    measured, report = np.load(d_path), {"forms": []}
    for i, entry in enumerate(entries):
        opcode, kinds = entry["opcode"], [entry["kinds"][name] for name in "dabc"]
        model = accumulation.sm90("mma", *kinds[:3], entry["shape"][2])
        row = {"opcode": opcode, "model": repr(model), "mismatched": {}}
        for how in DRAWS:
            _, bits = inputs(entry, how, np.random.default_rng(100 * i + DRAWS.index(how)))
            got = unpack(measured[f"{i}.{how}"], entry)
            want, _ = accumulation.mma(model, *kinds, *bits)
            row["mismatched"][how] = int((want.astype(np.uint64) != got).sum())
        row["elements"] = int(got.size) * len(DRAWS)
        report["forms"].append(row)
        print(opcode, row["mismatched"], flush=True)
    return report


def compare_wgmma(d_path):
    """Here: the wgmma GEMMs' C against the model's chain of K16 (K32)
    instructions."""
    from tile_mlir.interpreter import accumulation, reference as R
    measured, rows = np.load(d_path), []
    for i, (op, k, kind) in enumerate(WGMMA_CASES):
        step = 32 if kind == "e4m3" else 16
        model = accumulation.sm90("wgmma", "f32", kind, kind, step)
        for how in WGMMA_DRAWS:
            a, w = measured[f"{i}.{how}.a"], measured[f"{i}.{how}.w"]
            c = np.zeros((128, 128), np.uint32)
            for start in range(0, k, step):  # one instruction after another, D the next C
                bits = [R.encode(x[:, start:start + step], kind) for x in (a, w)]
                c, _ = accumulation.mma(model, "f32", kind, kind, "f32", bits[0], bits[1].T, c)
            got = measured[f"{i}.{how}.c"].view(np.uint32)
            rows.append({"case": f"{op} {kind} 128x128x{k}", "draw": how, "model": repr(model),
                         "mismatched": int((c != got).sum()), "elements": int(got.size)})
            print(rows[-1], flush=True)
    return rows


# wgmma through tile_mlir.ops' GEMM (float32 C: the accumulators as they
# are): (op, K) at M = N = 128, each K16 (bf16) or K32 (e4m3) instruction
# accumulating onto the last in K's order.
WGMMA_CASES = [("matmul", 16, "bf16"), ("matmul", 64, "bf16"), ("matmul", 512, "bf16"), ("matmul", 512, "f16"),
               ("scaled_matmul", 32, "e4m3"), ("scaled_matmul", 128, "e4m3"), ("scaled_matmul", 512, "e4m3")]
TORCH_KINDS = {"bf16": "bfloat16", "f16": "float16", "e4m3": "float8_e4m3fn"}
WGMMA_DRAWS = ("normal", "spread")


def wgmma_arguments(op, k, kind, device, values=None):
    """(a, b = w.t(), [scales]) of a case: `values` (a, w) as float64, or
    empty on meta."""
    import torch
    dtype = getattr(torch, TORCH_KINDS[kind])
    if values is None:
        a, w = (torch.empty(shape, dtype=dtype, device=device) for shape in ((128, k), (128, k)))
    else:
        a, w = (torch.from_numpy(v).to(device).to(dtype) for v in values)
    scales = [] if op == "matmul" else [torch.ones((), dtype=torch.float32, device=device)] * 2
    return [a, w.t(), *scales]


def build_wgmma(out_dir):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out_dir)
    import torch
    import tile_mlir.ops as ops
    for op, k, kind in WGMMA_CASES:
        ops.precompile(op, *wgmma_arguments(op, k, kind, "meta"), out_dtype=torch.float32)
    print(f"{len(WGMMA_CASES)} wgmma cases precompiled")


def run_wgmma(out_dir, out_path):
    """On the GPU: each case's C (float32) and its inputs (float64)."""
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out_dir)
    os.environ["TILE_MLIR_AUTOTUNE"] = "0"  # the default plan: one slice, K in order
    import torch
    import tile_mlir.ops as ops
    out = {}
    for i, (op, k, kind) in enumerate(WGMMA_CASES):
        for j, how in enumerate(WGMMA_DRAWS):
            rng = np.random.default_rng(1000 + 10 * i + j)
            values = []
            for _ in range(2):
                v = rng.standard_normal((128, k))
                if how == "spread":
                    v = v * np.exp2(rng.integers(-6 if kind == "e4m3" else -12, 7 if kind == "e4m3" else 13, v.shape))
                values.append(rounded(v, kind))
            c = getattr(ops, op)(*wgmma_arguments(op, k, kind, "cuda", values), out_dtype=torch.float32)
            out[f"{i}.{how}.a"], out[f"{i}.{how}.w"] = values
            out[f"{i}.{how}.c"] = c.cpu().numpy()
    np.savez_compressed(out_path, **out)
    print(f"{len(WGMMA_CASES)} wgmma cases run")


def verify(out_dir, report_path, batches, seed):
    """On the GPU, independent of the fit: each form on `batches` fresh
    draws of WARPS instructions of each kind (drawn there from `seed`),
    against the model, bit for bit; the counts per form and draw."""
    from tile_mlir import runtime
    from tile_mlir.interpreter import accumulation
    with open(os.path.join(out_dir, "forms.json")) as f:
        entries = json.load(f)
    report = {"seed": seed, "warps": WARPS, "batches": batches, "forms": []}
    for i, entry in enumerate(entries):
        opcode, kinds = entry["opcode"], [entry["kinds"][name] for name in "dabc"]
        model = accumulation.sm90("mma", *kinds[:3], entry["shape"][2])
        launch = runtime.load(os.path.join(out_dir, entry["artifact"]))
        row = {"opcode": opcode, "model": repr(model), "elements": 0, "mismatched": {how: 0 for how in DRAWS}}
        for batch in range(batches):
            for j, how in enumerate(DRAWS):
                _, bits = inputs(entry, how, np.random.default_rng([seed, i, j, batch]))
                d = np.zeros((WARPS, 32, entry["counts"]["d"], 1), {32: np.uint32, 64: np.uint64}[entry["bits"]["d"]])
                launch(*(pack(x, entry, name) for x, name in zip(bits, "abc")), d)
                want, _ = accumulation.mma(model, *kinds, *bits)
                row["mismatched"][how] += int((want.astype(np.uint64) != unpack(d, entry)).sum())
                row["elements"] += int(want.size)
        report["forms"].append(row)
        print(opcode, row["elements"], row["mismatched"], flush=True)
    _write(report_path, report)


# The wgmma kernels of the tests' fixture: one draw each of the type
# groups the ops' GEMM does not reach.
WGMMA_FIXTURES = ("tf32_n16_128B", "f16_f16_n64_accumulate", "e5m2_n64_f16", "e4m3_e5m2_n64_f32")


def wgmma_fixtures(wf_dir):
    arrays, measured, kernels = np.load(os.path.join(wf_dir, "inputs.npz")), np.load(os.path.join(wf_dir, "wf.npz")), {}
    for name in WGMMA_FIXTURES:
        inputs = [arrays[f"{name}.1.{j}"] for j in range(3)]  # draw 1: spread exponents
        kernels[name] = {"inputs": [packed(x) for x in inputs], "out": packed(measured[f"{name}.1"].view(np.uint32))}
    return {"card": "NVIDIA H100 80GB HBM3", "tool": "tools/gpu/accumulation_check.py run-wgmma-forms",
            "what": "wgmma_check.py's kernels (accumulation_check.WGMMA_MORE) on random inputs (exponents over "
                    "2^+-8), their arrays and the output words the GPU stored (each array: dtype, shape and its "
                    "bytes in base64)", "kernels": kernels}


def packed(array):
    import base64
    return {"dtype": str(array.dtype), "shape": list(array.shape),
            "base64": base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()}


def fixtures(out_dir, d_path, w_path, wf_dir, results_dir):
    """The tests' measured cases (test_accumulation.py): two elements of
    each form and draw of the fit data where D is not the exact sum
    rounded to nearest; and C[0:16, 0:16] of three wgmma GEMMs with their
    inputs."""
    from tile_mlir.interpreter import reference as R
    with open(os.path.join(out_dir, "forms.json")) as f:
        entries = json.load(f)
    measured, cases = np.load(d_path), []
    for i, entry in enumerate(entries):
        d_kind = entry["kinds"]["d"]
        for j, how in enumerate(DRAWS):
            (a, b, c), bits = inputs(entry, how, np.random.default_rng(100 * i + j))
            got = unpack(measured[f"{i}.{how}"], entry)
            with np.errstate(invalid="ignore"):
                nearest = R.encode(R.round_to(a @ b + c, 0.0, d_kind, "rn"), d_kind).astype(np.uint64)
            for w, r, col in np.argwhere(got != nearest)[:2]:
                cases.append({"opcode": entry["opcode"], "draw": how, "a": bits[0][w, r, :].tolist(),
                              "b": bits[1][w, :, col].tolist(), "c": int(bits[2][w, r, col]), "d": int(got[w, r, col])})
    _write(os.path.join(results_dir, "accumulation_cases.json"), {
        "card": "NVIDIA H100 80GB HBM3", "tool": "tools/gpu/accumulation_check.py (its fit draws)",
        "what": "one row of A, one column of B and C (element bits) of an mma.sync, and the D the GPU gave, where D "
                "is not the exact sum rounded to nearest: two such elements a form and draw", "cases": cases}, None)
    gemms, runs = {}, np.load(w_path)
    for i, (op, k, kind) in enumerate(WGMMA_CASES):
        if (k, kind) in ((64, "bf16"), (512, "f16"), (128, "e4m3")):
            a, w, c = runs[f"{i}.normal.a"][:16], runs[f"{i}.normal.w"][:16], runs[f"{i}.normal.c"][:16, :16]
            gemms[f"{op} {kind} {k}"] = {"a": R.encode(a, kind).astype(int).tolist(),
                                         "w": R.encode(w, kind).astype(int).tolist(),
                                         "c": c.view(np.uint32).astype(int).tolist()}
    _write(os.path.join(results_dir, "accumulation_wgmma.json"), wgmma_fixtures(wf_dir), None)
    _write(os.path.join(results_dir, "accumulation_gemm.json"), {
        "card": "NVIDIA H100 80GB HBM3", "tool": "tools/gpu/accumulation_check.py run-wgmma (TILE_MLIR_AUTOTUNE=0)",
        "what": "A (16 x K) and W (16 x K) element bits, random normal, and C[0:16, 0:16] (float32 bits) of "
                "tile_mlir.ops on the GPU at 128 x 128 x K (each element's K chain is the same at 16 x 16)",
        "gemms": gemms}, None)


# wgmma_check.py's floating kernels (every wgmma type group, A from shared
# memory or registers, MN-major operands, negated A, C accumulated) on
# random data: SEEDS draws of each, normal and spread.
WGMMA_SEEDS = 8
WGMMA_DRAWS = ("normal", "spread", "small", "special")
# And the type pairs wgmma_check.py has no kernel of, each accumulating C.
WGMMA_MORE = {
    "e5m2_n64_f32_accumulate": dict(n=64, akind="e5m2", swizzle="128B", k_steps=2, accumulate=True),
    "e4m3_e5m2_n64_f32": dict(n=64, akind="e4m3", bkind="e5m2", swizzle="128B", k_steps=2),
    "e4m3_n64_f16_accumulate": dict(n=64, dkind="f16", akind="e4m3", swizzle="128B", k_steps=2, accumulate=True),
    "e5m2_n64_f16": dict(n=64, dkind="f16", akind="e5m2", swizzle="128B", k_steps=2),
    "tf32_n64_accumulate": dict(n=64, akind="tf32", swizzle="128B", k_steps=4, accumulate=True),
    "f16_f16_n64_accumulate": dict(n=64, dkind="f16", akind="f16", swizzle="128B", k_steps=2, accumulate=True),
}


def wgmma_cases():
    import wgmma_check as W
    cases = {name: spec for name, spec in W.CASES.items() if spec.get("dkind", "f32") in ("f32", "f16")}
    return {**cases, **WGMMA_MORE}


def wgmma_random_arrays(spec, rng, how):
    """wgmma_check.case_arrays's arrays for `spec` on random values of its
    kinds (`how`: WGMMA_DRAWS)."""
    import wgmma_check as W
    from tile_mlir.interpreter import reference as R
    n, akind = spec["n"], spec["akind"]
    bkind, dkind = spec.get("bkind") or akind, spec.get("dkind", "f32")
    k_total = W.K_OF[W.ELEMENT[akind][1]] * spec["k_steps"]
    values = []
    for shape, kind in (((64, k_total), akind), ((n, k_total), bkind)):
        v = rng.standard_normal(shape)
        if how == "spread":
            v = v * np.exp2(rng.integers(-8, 9, shape))
        if how == "small":  # near the least normal of the kind: subnormal inputs and products
            v = v * 2.0 ** (2 - (1 << (R.FORMATS["f32" if kind == "tf32" else kind][0] - 1))) * 8
        values.append(rounded(v, kind))
    if how == "special":
        for v in values:
            hit = rng.random(v.shape) < 0.01
            v[hit] = rng.choice([np.inf, -np.inf, np.nan], hit.sum())
    a_bits, b_bits = (register_bits(v, kind).astype(W.ELEMENT[kind][0]) for v, kind in zip(values, (akind, bkind)))
    if spec.get("trans_a"):
        a_bits = np.ascontiguousarray(a_bits.T)
    if spec.get("trans_b"):
        b_bits = np.ascontiguousarray(b_bits.T)
    regs = n // 2 if dkind != "f16" else n // 4
    c = rng.standard_normal((W.THREADS, regs))
    if dkind == "f16":
        halves = register_bits(rounded(rng.standard_normal((W.THREADS, regs, 2)), "f16"), "f16")
        c = (halves[..., 0] | (halves[..., 1] << 16)).astype(np.uint32)
    else:
        c = rounded(c, "f32").astype(np.float32)
    out = np.full((W.THREADS, regs), 0x7F, {"f32": np.float32, "f16": np.uint32}[dkind])
    return [a_bits, b_bits, c, out]


def build_wgmma_forms(out_dir, seeds=WGMMA_SEEDS, only=None):
    """Here: each floating wgmma_check kernel (or those named in `only`,
    comma-separated) and `seeds` random draws of its inputs, each kind of
    WGMMA_DRAWS in turn."""
    import tile_mlir
    import wgmma_check as W
    os.makedirs(out_dir, exist_ok=True)
    arrays, names, seeds = {}, [], int(seeds)
    for index, (name, spec) in enumerate(wgmma_cases().items()):
        if only and name not in only.split(","):
            continue
        tile_mlir.compile(W.wgmma_tile(**spec), target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        names.append(name)
        for seed in range(seeds):
            how = WGMMA_DRAWS[seed % len(WGMMA_DRAWS)]
            for j, x in enumerate(wgmma_random_arrays(spec, np.random.default_rng([7, index + 1, seed]), how)):
                arrays[f"{name}.{seed}.{j}"] = x
    np.savez_compressed(os.path.join(out_dir, "inputs.npz"), **arrays)
    _write(os.path.join(out_dir, "names.json"), {"names": names, "seeds": seeds})
    print(len(names), "wgmma kernels built")


def run_wgmma_forms(out_dir, out_path):
    """On the GPU: each kernel's output (D as its threads store it)."""
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "names.json")) as f:
        built = json.load(f)
    arrays, out = np.load(os.path.join(out_dir, "inputs.npz")), {}
    for name in built["names"]:
        launch = runtime.load(os.path.join(out_dir, f"{name}.json"))
        for seed in range(built["seeds"]):
            args = [arrays[f"{name}.{seed}.{j}"].copy() for j in range(4)]
            launch(*args)
            out[f"{name}.{seed}"] = args[3]
    np.savez_compressed(out_path, **out)
    print(len(built["names"]), "wgmma kernels run")


def compare_wgmma_forms(out_dir, d_path):
    """Here: each kernel in the interpreter (sm_90's model) against the
    GPU's output, word for word; words the interpreter left undefined
    (no measured model) count as different."""
    import tile_mlir
    import wgmma_check as W
    with open(os.path.join(out_dir, "names.json")) as f:
        built = json.load(f)
    arrays, measured, rows = np.load(os.path.join(out_dir, "inputs.npz")), np.load(d_path), []
    for name in built["names"]:
        kernel, bad, words = W.wgmma_tile(**wgmma_cases()[name]), 0, 0
        for seed in range(built["seeds"]):
            args = [arrays[f"{name}.{seed}.{j}"].copy() for j in range(4)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tile_mlir.interpret(kernel, *args)
            got = measured[f"{name}.{seed}"].view(np.uint32)
            bad += int((args[3].view(np.uint32) != got).sum())
            words += got.size
        rows.append({"kernel": name, "words": words, "mismatched": bad, "draws": built["seeds"]})
        print(rows[-1], flush=True)
    return rows


def _write(path, report, indent=1):
    with open(path, "w") as f:
        json.dump(report, f, indent=indent)


if __name__ == "__main__":
    {"build": lambda: build(sys.argv[2]), "run": lambda: run(sys.argv[2], sys.argv[3]),
     "build-wgmma": lambda: build_wgmma(sys.argv[2]),
     "run-wgmma": lambda: run_wgmma(sys.argv[2], sys.argv[3]),
     "build-wgmma-forms": lambda: build_wgmma_forms(*sys.argv[2:5]),
     "run-wgmma-forms": lambda: run_wgmma_forms(sys.argv[2], sys.argv[3]),
     "compare-wgmma-forms": lambda: _write(sys.argv[4], compare_wgmma_forms(sys.argv[2], sys.argv[3])),
     "fixtures": lambda: fixtures(*sys.argv[2:7]),
     "verify": lambda: verify(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])),
     "compare": lambda: _write(sys.argv[5], {"mma": compare(sys.argv[2], sys.argv[3])["forms"],
                                             "wgmma": compare_wgmma(sys.argv[4])})}[sys.argv[1]]()
