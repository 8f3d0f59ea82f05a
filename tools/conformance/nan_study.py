#!/usr/bin/env python3
"""Which NaN each form produces, learnt from the GPU (issue #29, item 1).

Runs every kernel of the conformance bundle whose destination has float
lanes on inputs rich in NaNs of distinct payloads (quiet and signalling,
both signs, payloads in the low and high mantissa bits) and in the operands
that make a NaN from numbers (infinities, zeros, negatives), and sorts each
NaN lane of the destination by where its bits come from:

  src<k>.<lane>          the bits of source k's lane, unchanged
  src<k>.<lane> quieted  those bits with the quiet bit set
  ... truncated          either, with the 13 low bits cleared (a tf32
                         result, which sits in an f32 register)
  0x...                  a constant (the same bits whatever the inputs)

each split by whether a source lane at that position was a NaN ("from NaN")
or none was ("made", e.g. inf - inf). The table (per form, the count of
each class, and a few examples of each) is what the reference's NaN model
is learnt from (docs/conformance.md, NaN payloads).

    PYTHONPATH=python python tools/conformance/nan_study.py build/conformance/bundle.json nan_study.json
"""

import argparse
import base64
import json
import os
import sys
import time
from collections import Counter, defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402
from run import lane_kind, launch, make_input, prepare  # noqa: E402

SAMPLES = 48


def nan_patterns(kind):
    """NaNs of `kind` with distinct payloads: the quiet bit alone, quiet
    with a low payload bit, quiet with every payload bit, signalling with
    the lowest bit, signalling with the highest payload bit, each of both
    signs."""
    e, m, has_inf = R.FORMATS[kind]
    width = 1 + e + m
    if not has_inf:  # e4m3: one NaN per sign
        return [(1 << (width - 1)) - 1, (1 << width) - 1]
    top = ((1 << e) - 1) << m
    quiet = 1 << (m - 1)
    payloads = sorted({quiet, quiet | 1, (1 << m) - 1, 1, 1 << (m - 2)})  # e5m2 has four
    return [top | p for p in payloads] + [(1 << (width - 1)) | top | p for p in payloads]


def nan_makers(kind):
    """Numbers that make NaNs with each other: +-inf, +-0, -1, 1."""
    e, m, has_inf = R.FORMATS[kind]
    width = 1 + e + m
    top = ((1 << e) - 1) << m
    one = ((1 << (e - 1)) - 1) << m
    sign = 1 << (width - 1)
    values = [0, sign, one, sign | one]
    return values + ([top, sign | top] if has_inf else [])


def nan_heavy(rng, op, n, partner=None):
    """make_input's values with 40% of each float lane a NaN of one of
    nan_patterns and 30% one of nan_makers."""
    out = make_input(rng, op, n, partner)
    kind, lanes = lane_kind(op["type"])
    if kind not in R.FORMATS:
        return out
    bits = op["bits"]
    lane_bits = bits // lanes
    parts = R.split_lanes(out, lane_bits, lanes) if lanes > 1 else [out.astype(np.uint64)]
    new_parts = []
    for part in parts:
        pick = rng.random(n)
        nans = np.array(nan_patterns(kind), dtype=np.uint64)
        makers = np.array(nan_makers(kind), dtype=np.uint64)
        part = np.where(pick < 0.4, nans[rng.integers(0, len(nans), n)], part)
        part = np.where((pick >= 0.4) & (pick < 0.7), makers[rng.integers(0, len(makers), n)], part)
        new_parts.append(part.astype(np.uint64))
    joined = R.join_lanes(new_parts, lane_bits, bits) if lanes > 1 else new_parts[0]
    return joined.astype(out.dtype)


def dst_kind(entry, i):
    """The float format and lanes of destination i (a cvt's is its opcode's
    destination token: tf32 sits in a b32)."""
    tokens = entry["opcode"].split(".")
    ty = tokens[-2] if entry["family"] == "cvt" else entry["operands"][i]["type"]
    if ty == "tf32":  # an f32 whose 13 low mantissa bits are zero
        return "f32", 1
    return lane_kind(ty)


def lanes_of(values, kind, lanes, bits):
    """values (one register per element) as a list of lane bit arrays."""
    flat = values.reshape(-1).astype(np.uint64)
    if lanes == 1:
        return [flat]
    return R.split_lanes(flat, bits // lanes, lanes)


def read_order(entry, inputs):
    """The operands the form reads, in PTX's order (an rw register where
    its read_at says), as run.py passes them to the reference."""
    return [i for _, i in sorted((op["read_at"] if op["role"] == "rw" else i, i)
                                 for i, op in enumerate(entry["operands"]) if i in inputs)]


def classify(entry, inputs, outputs):
    """Counter of (origin, class) over the NaN lanes of every float
    destination, examples of each class, and the first SAMPLES NaN lanes
    of each destination lane as [lane, bits, [the bits of each register
    the form reads, in PTX order]] where every read register is one per
    element (test_nan_model.py runs the reference on them)."""
    counts, examples, samples = Counter(), defaultdict(list), []
    sources = []  # (name, lane, bits of that lane per element, kind)
    for k, values in inputs.items():
        op = entry["operands"][k]
        if op["space"] != "reg" or op["type"] == "pred":
            continue
        kind, lanes = lane_kind(op["type"])
        if kind not in R.FORMATS:
            continue
        for j, lane in enumerate(lanes_of(values, kind, lanes, op["bits"])):
            sources.append((f"src{k}.{j}", lane, kind))
    for i, got in outputs.items():
        kind, lanes = dst_kind(entry, i)
        if kind not in R.FORMATS:
            continue
        e, m, _ = R.FORMATS[kind]
        quiet = np.uint64(1 << (m - 1))
        width = got.dtype.itemsize * 8 // lanes if lanes > 1 else 1 + e + m
        for j, lane in enumerate(lanes_of(got, kind, lanes, got.dtype.itemsize * 8)):
            lane = lane & np.uint64((1 << width) - 1)
            nan = np.isnan(R.decode(lane, kind))
            if not nan.any():
                continue
            # Sources sized like the destination (one register per element);
            # others (a cvt pack of two registers into one) only by constants.
            same = [(name, src, skind) for name, src, skind in sources if src.size == lane.size]
            from_nan = np.zeros(lane.size, dtype=bool)
            for _, src, skind in same:
                from_nan |= np.isnan(R.decode(src, skind))
            label = np.full(lane.size, "", dtype=object)
            for name, src, skind in same:
                if skind != kind:
                    continue
                label = np.where((label == "") & (lane == src), name, label)
                label = np.where((label == "") & (lane == (src | quiet)) & (src != lane), name + " quieted", label)
                if kind == "f32":
                    low = np.uint64(0xFFFFE000)
                    label = np.where((label == "") & (lane == (src & low)), name + " truncated", label)
                    label = np.where((label == "") & (lane == ((src | quiet) & low)), name + " quieted truncated",
                                     label)
            reads = read_order(entry, inputs)
            if all(inputs[k].size == lane.size for k in reads):
                flat = [inputs[k].reshape(-1) for k in reads]
                for w in np.flatnonzero(nan)[:SAMPLES]:
                    samples.append([f"d{i}.{j}", hex(int(lane[w])), [hex(int(src[w])) for src in flat]])
            for w in np.flatnonzero(nan):
                cls = label[w] or hex(int(lane[w]))
                origin = "from NaN" if from_nan[w] else "made"
                counts[(f"d{i}.{j}", origin, cls)] += 1
                if len(examples[(origin, cls)]) < 3:
                    examples[(origin, cls)].append(
                        {"got": hex(int(lane[w])),
                         "sources": {name: hex(int(src[w])) for name, src, _ in same}})
    return counts, examples, samples


def summarize(counts):
    """Per (origin, class) over lanes and destinations, for the report."""
    out = Counter()
    for (_, origin, cls), n in counts.items():
        out[f"{origin}: {cls}"] += n
    return dict(out.most_common())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("report")
    parser.add_argument("--limit", type=int, default=0, help="first N float forms only")
    parser.add_argument("--opcodes", default="", help="only forms whose opcode contains this text")
    args = parser.parse_args()
    with open(args.bundle) as f:
        bundle = json.load(f)
    threads, repeats = bundle["grid"] * bundle["block"], bundle["repeats"]
    image = base64.b64decode(bundle["cubin"])
    from tile_mlir import runtime
    module = runtime.driver().load_module(image)
    report = {"target": bundle["target"], "forms": {}, "skipped": 0}
    start, run = time.time(), 0
    for index, entry in enumerate(bundle["kernels"]):
        floats = [i for i, op in enumerate(entry["operands"])
                  if op["role"] in ("dst", "rw") and op["space"] == "reg" and dst_kind(entry, i)[0] in R.FORMATS]
        if not floats or entry["family"] in ("ld", "st", "mov") or args.opcodes not in entry["opcode"]:
            report["skipped"] += 1
            continue
        rng = np.random.default_rng(1000003 + index)
        inputs, outputs, arrays = prepare(entry, rng, threads, repeats, make=nan_heavy)
        launch(runtime, module, image, bundle, entry, arrays)
        counts, examples, samples = classify(entry, inputs, outputs)
        report["forms"][entry["name"]] = {
            "opcode": entry["opcode"], "family": entry["family"],
            "operands": [[op["name"], op["role"], op["read_at"]] for op in entry["operands"]],
            "immediates": entry.get("immediates", {}),
            "classes": summarize(counts), "samples": samples,
            "examples": {f"{o}: {c}": v for (o, c), v in examples.items()}}
        run += 1
        if args.limit and run >= args.limit:
            break
    report["seconds"] = round(time.time() - start, 1)
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    print(f"{run} forms with float destinations run in {report['seconds']} s")


if __name__ == "__main__":
    main()
