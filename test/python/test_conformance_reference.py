"""The conformance reference model against numpy's IEEE arithmetic where the
two must agree, and the committed H200 result."""

import json
import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "conformance"))
import reference as R  # noqa: E402


def test_round_to_nearest_matches_numpy_casts():
    x = np.random.default_rng(1).standard_normal(20000) * 1e3
    assert np.array_equal(R.round_to(x, 0, "f32", "rn"), x.astype(np.float32).astype(np.float64))
    assert np.array_equal(R.round_to(x / 100, 0, "f16", "rn"), (x / 100).astype(np.float16).astype(np.float64))


def test_directed_rounding_brackets_the_value():
    x = np.random.default_rng(2).standard_normal(20000)
    down, up = R.round_to(x, 0, "f32", "rm"), R.round_to(x, 0, "f32", "rp")
    assert (down <= x).all() and (up >= x).all()
    assert ((up - down) <= np.spacing(np.abs(x).astype(np.float32)).astype(np.float64) * 2).all()


def test_just_below_a_power_of_two():
    # 1 - tiny rounds toward zero to the largest f32 below 1 (0x3f7fffff)
    out = R.round_to(np.array([1.0]), np.array([-1.0]), "f32", "rz")
    assert R.encode(out, "f32")[0] == 0x3F7FFFFF


def test_float_add_matches_numpy_in_round_to_nearest():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(5000).astype(np.float32)
    b = (rng.standard_normal(5000) * 1e-3).astype(np.float32)
    want = (a + b).view(np.uint32)
    got = R.float_arith("add", "f32", set(), a.view(np.uint32), b.view(np.uint32))
    assert np.array_equal(got, want)


def test_nan_to_integer_follows_ptx():
    nan32 = np.array([0x7FC00000], dtype=np.uint32)
    nan64 = np.array([0x7FF8000000000000], dtype=np.uint64)
    assert R.cvt(["cvt", "rzi", "s32", "f32"], [nan32])[0] == 0
    assert R.cvt(["cvt", "rzi", "s64", "f32"], [nan32])[0] == 1 << 63
    assert R.cvt(["cvt", "rzi", "u8", "f64"], [nan64])[0] == 0x80


def test_committed_h200_run_has_no_mismatch():
    with open(os.path.join(ROOT, "tools", "conformance", "results.json")) as f:
        report = json.load(f)
    assert report["target"] == "sm_90"
    assert report["forms"] > 1500 and report["elements"] > 3_000_000
    assert report["mismatched_forms"] == [] and report["not_covered"] == []
