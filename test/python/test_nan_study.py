"""tools/conformance/nan_study.py sorts the NaN lanes a GPU wrote by where
their bits come from; checked here on hand-made destinations."""

import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "conformance"))
import nan_study  # noqa: E402


def entry(opcode, family, types):
    roles = ["dst"] + ["src"] * (len(types) - 1)
    return {"opcode": opcode, "family": family,
            "operands": [{"name": f"o{i}", "role": r, "space": "reg", "type": t, "bits": 32 if t != "f64" else 64,
                          "count": 1, "read_at": 0} for i, (r, t) in enumerate(zip(roles, types))]}


def test_f32_lanes_sorted_by_origin():
    e = entry("add.rn.f32", "add", ["f32", "f32", "f32"])
    a = np.array([0x7FA00001, 0x7F800000, 0x3F800000, 0xFFC00005], dtype=np.uint32)
    b = np.array([0x3F800000, 0xFF800000, 0x7FC00000, 0x3F800000], dtype=np.uint32)
    # sNaN quieted; inf - inf made a constant; b unchanged; a canonical NaN
    d = np.array([0x7FE00001, 0x7FFFFFFF, 0x7FC00000, 0x7FFFFFFF], dtype=np.uint32)
    counts, examples, samples = nan_study.classify(e, {1: a, 2: b}, {0: d})
    assert nan_study.summarize(counts) == {"from NaN: src1.0 quieted": 1, "made: 0x7fffffff": 1,
                                          "from NaN: src2.0": 1, "from NaN: 0x7fffffff": 1}
    assert examples[("made", "0x7fffffff")][0]["sources"] == {"src1.0": "0x7f800000", "src2.0": "0xff800000"}
    assert samples[1] == ["d0.0", "0x7fffffff", ["0x7f800000", "0xff800000"]]


def test_packed_halves_are_sorted_lane_by_lane():
    e = entry("add.rn.f16x2", "add", ["f16x2", "f16x2", "f16x2"])
    a = np.array([0x7D013C00], dtype=np.uint32)  # high lane a signalling NaN, low lane 1.0
    b = np.array([0x3C00FC00], dtype=np.uint32)  # high 1.0, low -inf
    d = np.array([0x7F01FC00], dtype=np.uint32)  # high: a's quieted; low: -inf is no NaN
    counts, _, samples = nan_study.classify(e, {1: a, 2: b}, {0: d})
    assert nan_study.summarize(counts) == {"from NaN: src1.1 quieted": 1}
    assert samples == [["d0.1", "0x7f01", ["0x7d013c00", "0x3c00fc00"]]]


def test_nan_patterns_are_nans_of_distinct_payloads():
    import reference as R
    for kind in ("f32", "f16", "bf16", "f64", "e5m2", "e4m3"):
        pats = nan_study.nan_patterns(kind)
        assert len(set(pats)) == len(pats)
        assert np.isnan(R.decode(np.array(pats, dtype=np.uint64), kind)).all()
        assert not np.isnan(R.decode(np.array(nan_study.nan_makers(kind), dtype=np.uint64), kind)).any()
