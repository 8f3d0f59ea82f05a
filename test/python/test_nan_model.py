"""The reference's NaN results (reference.hardware_nans) against every NaN
lane the H200 produced in tools/conformance/nan_study.py's run over the
float forms of the conformance bundle (nan_study_h200.json): the same bits,
lane by lane, for every sample of every form."""

import json
import os
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tile_mlir import ptx

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "conformance"))
import nan_study  # noqa: E402
import reference as R  # noqa: E402

with open(os.path.join(ROOT, "tools", "conformance", "nan_study_h200.json")) as f:
    STUDY = json.load(f)


def form_of(record):
    """The overload the study ran: its operand names and roles."""
    want = [(name, role) for name, role, _ in record["operands"]]
    for form in ptx.overloads(record["opcode"]):
        if [(op.name, op.role) for op in form.operands] == want:
            return form
    raise AssertionError(f"no overload of {record['opcode']} has operands {want}")


def model_lane(record, sample):
    form = form_of(record)
    entry = {"opcode": record["opcode"], "family": record["family"],
             "operands": [{"type": op.type, "bits": op.bits} for op in form.operands]}
    reads = [i for _, i in sorted((op.read_at if op.role == "rw" else i, i)
                                  for i, op in enumerate(form.operands) if op.role in ("src", "rw"))]
    srcs = []
    for i, bits in zip(reads, sample[2]):
        op = form.operands[i]
        value = np.array([int(bits, 16)], dtype=np.uint64).astype(R.UINT[max(op.bits, 8)])
        srcs.append(value != 0 if op.type == "pred" else value)
    got = R.reference(SimpleNamespace(opcode=record["opcode"], family=record["family"],
                                      operands=form.operands,
                                      immediates={int(k): v for k, v in record["immediates"].items()}), srcs)
    if isinstance(got, R.Partial):
        if not got.defined.all():
            return None  # several NaN inputs of an f64 form: which wins is ptxas's operand order
        got = got.values
    dst, lane = (int(x) for x in sample[0][1:].split("."))
    kind, lanes = nan_study.dst_kind(entry, dst)
    width = np.asarray(got).dtype.itemsize * 8
    bits = int(np.asarray(got).reshape(-1)[0])
    if lanes > 1:
        lane_bits = width // lanes
        bits = (bits >> (lane * lane_bits)) & ((1 << lane_bits) - 1)
    return bits


RECORDS = sorted((name, r) for name, r in STUDY["forms"].items() if r["samples"])


def test_study_covers_the_float_families():
    families = {r["family"] for _, r in RECORDS}
    assert {"add", "sub", "mul", "fma", "mad", "div", "sqrt", "rcp", "abs", "neg", "min", "max",
            "cvt"} <= families
    assert sum(len(r["samples"]) for _, r in RECORDS) > 20000


@pytest.mark.parametrize("family", sorted({r["family"] for _, r in RECORDS}))
def test_reference_nans_are_the_h200s(family):
    wrong = []
    for name, record in RECORDS:
        if record["family"] != family:
            continue
        for sample in record["samples"]:
            want = int(sample[1], 16)
            got = model_lane(record, sample)
            if got is not None and got != want:
                wrong.append((record["opcode"], sample, hex(got)))
    assert not wrong, f"{len(wrong)} lanes differ, e.g. {wrong[:3]}"
