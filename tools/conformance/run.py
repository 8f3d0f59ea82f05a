#!/usr/bin/env python3
"""Runs the conformance bundle on a GPU, compares every destination bit for
bit with the numpy reference (reference.py) and writes a JSON report.

    PYTHONPATH=python python tools/conformance/run.py build/conformance/bundle.json report.json
    python tools/conformance/run.py --dry-run ...   # references only, no GPU
"""

import argparse
import base64
import json
import os
import sys
import time
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402

FLOAT_SPECIALS = {
    "f32": [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00001, 0x00000001, 0x807FFFFF,
            0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F000000, 0x3FC00000, 0x33800000,
            0x4B000000, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0x437F8000, 0x3F800001, 0x3EFFFFFF],
    "f16": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF,
            0x3C00, 0xBC00, 0x3800, 0x3E00, 0x1400, 0x6400, 0x3C01, 0x37FF],
    "bf16": [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x0001, 0x807F, 0x0080, 0x7F7F, 0xFF7F,
             0x3F80, 0xBF80, 0x3F00, 0x3FC0, 0x3F81],
    "f64": [0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x1,
            0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000, 0x3FE0000000000000,
            0x3CA0000000000000, 0x43E0000000000000, 0xC3E0000000000000, 0x41DFFFFFFFC00000],
}


def lane_kind(ty):
    if ty in R.FLOAT_TYPES:
        return ty, 1
    if ty in R.LANES:
        kind, _, lanes = R.LANES[ty]
        return kind, lanes
    return None, 1


def make_input(rng, op, n, partner=None):
    """n register values for operand `op`: random bits, type specials and
    moderate values, some derived from `partner` so additions round."""
    bits = op["bits"]
    dtype = R.UINT[max(bits, 8)]
    raw = rng.integers(0, 1 << min(bits, 63), n, dtype=np.uint64)
    if bits == 64:
        raw |= rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    out = raw.astype(dtype)
    kind, lanes = lane_kind(op["type"])
    pick = rng.random(n)
    if kind in FLOAT_SPECIALS:
        lane_bits = bits // lanes
        parts = R.split_lanes(out, lane_bits, lanes)
        new_parts = []
        for part in parts:
            specials = np.array(FLOAT_SPECIALS[kind], dtype=np.uint64)
            part = np.where(pick < 0.3, specials[rng.integers(0, len(specials), n)], part)
            moderate = R.encode((rng.standard_normal(n) * 2.0 ** rng.integers(-8, 9, n)), kind
                                if kind != "e4m3" else "f16").astype(np.uint64)
            part = np.where((pick >= 0.3) & (pick < 0.75), moderate, part)
            new_parts.append(part)
        out = R.join_lanes(new_parts, lane_bits, bits) if lanes > 1 else new_parts[0].astype(dtype)
        if partner is not None and lanes == 1 and partner.dtype == out.dtype:
            # b = a * 2^-k (+ or -): sums that round, ties included
            a = R.decode(partner, kind)
            with np.errstate(all="ignore"):
                derived = R.encode(a * np.ldexp(1.0, -rng.integers(0, 30, n)) * rng.choice([-1.0, 1.0], n), kind)
            derived = np.where(np.isfinite(R.decode(derived, kind)), derived, out)
            out = np.where(rng.random(n) < 0.3, derived.astype(dtype), out)
    elif op["type"] in R.INT_TYPES or op["type"] in ("u16x2", "s16x2"):
        width = bits
        edges = [0, 1, (1 << width) - 1, (1 << (width - 1)) - 1, 1 << (width - 1), (1 << (width - 1)) + 1, 2]
        edges = np.array([e & ((1 << width) - 1) for e in edges], dtype=np.uint64)
        out = np.where(pick < 0.3, edges[rng.integers(0, len(edges), n)].astype(dtype), out)
    return out.astype(dtype)


# Operands that count bits (shift amounts, bit-field positions and lengths):
# most of their values are near the width, where the instructions clamp.
BIT_COUNTS = {("shl", "b"), ("shr", "b"), ("bfe", "pos"), ("bfe", "len"), ("bfi", "pos"), ("bfi", "len"),
              ("bmsk", "a"), ("bmsk", "b"), ("szext", "b"), ("shf", "c"), ("fns", "base")}
# Signed counts (fns's offset: which set bit, up or down): mostly small.
SIGNED_COUNTS = {("fns", "offset")}


def bit_counts(rng, n):
    """Small counts around 0..64 and their 8-bit wrap, some random."""
    small = rng.integers(0, 72, n, dtype=np.uint64)
    small = np.where(rng.random(n) < 0.1, small + np.uint64(256), small)
    return np.where(rng.random(n) < 0.85, small, rng.integers(0, 1 << 32, n, dtype=np.uint64)).astype(np.uint32)


def signed_counts(rng, n):
    """Small signed counts (-34..34), some random words."""
    small = rng.integers(-34, 35, n).astype(np.int64).astype(np.uint64)
    return np.where(rng.random(n) < 0.9, small, rng.integers(0, 1 << 32, n, dtype=np.uint64)).astype(np.uint32)


def predicate_words(rng, n):
    """Staged predicates: mostly 0 and 1, some other nonzero words (true)."""
    words = rng.integers(0, 2, n, dtype=np.uint16)
    return np.where(rng.random(n) < 0.1, rng.integers(2, 1 << 16, n, dtype=np.uint16), words).astype(np.uint16)


def prepare(entry, rng, threads, repeats, make=make_input):
    """One form's inputs and destination buffers (by operand index) and the
    kernel's arrays in build.py's parameter order: operand order (register
    sources, rw registers and memory), then the register destinations and
    rw registers again, for their results. `make` draws float and integer
    register values (make_input's signature)."""
    inputs, outputs = {}, {}
    previous = None
    for i, op in enumerate(entry["operands"]):
        if op["bits"] == 128:  # numpy has no 128-bit integers: two 64-bit halves
            op = {**op, "bits": 64, "count": op["count"] * 2}
        if op["type"] == "pred":  # staged as 16-bit words: nonzero is true
            op = {**op, "bits": 16}
        shape = (threads, repeats, op["count"])
        dtype = R.UINT[max(op["bits"], 8)]
        if op["role"] == "imm":
            continue
        if (entry["family"], op["name"]) in BIT_COUNTS:
            inputs[i] = bit_counts(rng, int(np.prod(shape))).reshape(shape)
        elif (entry["family"], op["name"]) in SIGNED_COUNTS:
            inputs[i] = signed_counts(rng, int(np.prod(shape))).reshape(shape)
        elif op["type"] == "pred" and op["role"] in ("src", "rw"):
            inputs[i] = predicate_words(rng, int(np.prod(shape))).reshape(shape)
        elif op["space"] == "reg" and op["role"] in ("src", "rw"):
            values = make(rng, op, int(np.prod(shape)), previous).reshape(shape)
            previous = values.reshape(-1)
            inputs[i] = values
        elif op["role"] == "src":  # memory read by ld
            inputs[i] = make(rng, op, int(np.prod(shape))).reshape(shape)
        if op["role"] in ("dst", "rw"):
            outputs[i] = np.full(shape, 0xA5, dtype=dtype)
    register_out = [i for i, op in enumerate(entry["operands"])
                    if op["space"] == "reg" and op["role"] in ("dst", "rw")]
    arrays = ([inputs.get(i, outputs.get(i)) for i, op in enumerate(entry["operands"])
               if op["role"] != "imm" and not (op["space"] == "reg" and op["role"] == "dst")]
              + [outputs[i] for i in register_out])
    return inputs, outputs, arrays


def launch(runtime, module, image, bundle, entry, arrays):
    """Runs kernel `entry` of the loaded bundle on `arrays` (in place)."""
    params = [runtime.Param(f"p{i}", a.shape, str(a.dtype)) for i, a in enumerate(arrays)]
    kernel = runtime.Kernel(entry["name"], "", image, bundle["target"], params,
                            (bundle["grid"], 1, 1), (bundle["block"], 1, 1))
    kernel._module = module
    kernel(*arrays)


def compare(report, entry, inputs, outputs, expected, undefined):
    """Compares one form's outputs with the reference, bit for bit (any NaN
    matches a NaN), and records the verdict in `report`."""
    bad = []
    tokens = entry["opcode"].split(".")
    for i, want in expected.items():
        # a cvt destination's numeric type is its opcode token (tf32 sits in b32)
        dst_type = tokens[-2] if entry["family"] == "cvt" else entry["operands"][i]["type"]
        ok = R.equal(outputs[i].reshape(-1), want.reshape(-1), dst_type)
        if undefined and i in undefined:
            ok = ok | undefined[i].reshape(-1)
        report["elements"] += ok.size
        if not ok.all():
            where = np.flatnonzero(~ok)[:5]
            flat_inputs = {k: v.reshape(-1) for k, v in inputs.items()}
            examples = []
            for w in where:
                # map the element back to its sources (same thread/repeat)
                per_reg = want.shape[-1] if want.ndim > 1 else 1
                srcs = {entry["operands"][k]["name"]: hex(int(v[w if v.size == want.size else w // per_reg]))
                        for k, v in flat_inputs.items()}
                examples.append({"sources": srcs, "got": hex(int(outputs[i].reshape(-1)[w])),
                                 "want": hex(int(want.reshape(-1)[w]))})
            bad.append({"operand": entry["operands"][i]["name"], "mismatches": int((~ok).sum()),
                        "examples": examples})
    if bad:
        report["mismatched_forms"].append({"opcode": entry["opcode"], "details": bad})
    else:
        report["passed"].append(entry["opcode"])


class Interpreted:
    """Runs the bundle's kernels in tools/difftest's interpreter (here, with
    MLIR) instead of on the GPU, writing each defined output byte back."""

    def __init__(self, bundle):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "difftest"))
        import interp
        import tile_mlir  # noqa: F401  (registers the tile dialect)
        from mlir import ir
        self.interp, self.not_covered = interp, interp.NotCovered
        self.grid, self.block = (bundle["grid"], 1, 1), (bundle["block"], 1, 1)
        self.context = ir.Context()
        with self.context:
            module = ir.Module.parse(bundle["mlir"])
        self.module = module
        self.functions = {ir.StringAttr(op.attributes["sym_name"]).value: op
                          for op in module.body.operations[0].regions[0].blocks[0].operations}

    def run(self, name, arrays):
        with self.context:
            inputs = {f"p{i}": a.tobytes() for i, a in enumerate(arrays)}
            out = self.interp.run(self.functions[name], inputs, self.grid, self.block)
        for i, array in enumerate(arrays):
            data, defined = out[f"p{i}"]
            array.reshape(-1).view(np.uint8)[defined] = data[defined]


def _device_name(args):
    """The GPU that judges (the report names its card); none for a run
    without one."""
    if args.dry_run or args.interpret:
        return None
    from tile_mlir import runtime
    return runtime.driver().device_name()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("report")
    parser.add_argument("--dry-run", action="store_true", help="compute references only (no GPU)")
    parser.add_argument("--interpret", action="store_true",
                        help="run each kernel's tile IR in tools/difftest's interpreter instead of the GPU "
                             "(here, with MLIR), checking the interpreter against the reference")
    args = parser.parse_args()
    with open(args.bundle) as f:
        bundle = json.load(f)
    threads = bundle["grid"] * bundle["block"]
    repeats = bundle["repeats"]
    image = base64.b64decode(bundle["cubin"])
    if args.interpret:
        interpreted = Interpreted(bundle)
    elif not args.dry_run:
        from tile_mlir import runtime
        drv = runtime.driver()
        module = drv.load_module(image)
    report = {"device": _device_name(args), "target": bundle["target"], "forms": 0, "elements": 0, "mismatched_forms": [],
              "not_covered": [], "passed": []}
    start = time.time()
    for index, entry in enumerate(bundle["kernels"]):
        form = SimpleNamespace(opcode=entry["opcode"], family=entry["family"],
                               operands=[SimpleNamespace(**op) for op in entry["operands"]],
                               immediates={int(k): v for k, v in entry.get("immediates", {}).items()})
        rng = np.random.default_rng(index)
        inputs, outputs, arrays = prepare(entry, rng, threads, repeats)
        undefined = {}
        try:
            if form.family in ("ld", "st", "mov"):
                # Moves keep the bytes; a mov that packs or unpacks registers
                # concatenates them, the first register lowest (little endian).
                src = next(i for i in inputs)
                if entry["operands"][src]["type"] == "pred":
                    # mov.pred: a staged word's truth, stored as 0 or 1.
                    expected = {i: (inputs[src] != 0).astype(outputs[i].dtype) for i in outputs}
                else:
                    expected = {i: inputs[src].reshape(-1).view(outputs[i].dtype).reshape(outputs[i].shape)
                                for i in outputs}
            else:
                # In PTX's order: an rw register is read where read_at says.
                reads = sorted((op["read_at"] if op["role"] == "rw" else i, i)
                               for i, op in enumerate(entry["operands"]) if i in inputs)
                srcs = [inputs[i].reshape(-1) != 0 if entry["operands"][i]["type"] == "pred"
                        else inputs[i].reshape(-1) for _, i in reads]
                want = R.reference(form, srcs)
                dst = next(i for i in outputs)
                if isinstance(want, R.Partial):
                    undefined[dst] = ~want.defined.reshape(outputs[dst].shape)
                    want = want.values
                expected = {dst: np.asarray(want).reshape(outputs[dst].shape).astype(outputs[dst].dtype)}
        except R.NotCovered as why:
            report["not_covered"].append({"opcode": entry["opcode"], "why": str(why)})
            continue
        except Exception as error:  # a reference bug must not hide the other forms
            report["not_covered"].append({"opcode": entry["opcode"], "why": f"reference error: {error!r}"})
            continue
        if args.dry_run:
            report["passed"].append(entry["opcode"])
            continue
        if args.interpret:
            try:
                interpreted.run(entry["name"], arrays)
            except interpreted.not_covered as why:
                report["not_covered"].append({"opcode": entry["opcode"], "why": f"interpreter: {why}"})
                continue
            report["forms"] += 1
            compare(report, entry, inputs, outputs, expected, undefined)
            continue
        try:
            launch(runtime, module, image, bundle, entry, arrays)
        except runtime.CudaError as error:
            # A fault poisons the context: report the form and stop.
            report["fault"] = {"opcode": entry["opcode"], "error": str(error)}
            print("FAULT", entry["opcode"], error)
            break
        report["forms"] += 1
        compare(report, entry, inputs, outputs, expected, undefined)
    report["seconds"] = round(time.time() - start, 1)
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    print(f"{report['forms']} forms run, {report['elements']} elements compared, "
          f"{len(report['mismatched_forms'])} forms with mismatches, {len(report['not_covered'])} not covered, "
          f"{report['seconds']} s")
    for bad in report["mismatched_forms"][:40]:
        print("MISMATCH", bad["opcode"], bad["details"][0]["mismatches"], bad["details"][0]["examples"][:2])


if __name__ == "__main__":
    main()
