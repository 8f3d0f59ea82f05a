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


def u32(*values):
    return np.array(values, dtype=np.uint32)


def test_lop3_tables_follow_the_isa_constants():
    # PTX ISA: the table of F is F(0xF0, 0xCC, 0xAA), so 0xF0 is a, 0xCC is
    # b, 0xAA is c, and 0xE8 the majority of the three.
    a, b, c = u32(0x12345678), u32(0x0F0F0F0F), u32(0xFFFF0000)
    bits = lambda lut: int(R.bit_reference("lop3", "b32", set(), [a, b, c], {4: lut})[0])  # noqa: E731
    assert (bits(0xF0), bits(0xCC), bits(0xAA)) == (0x12345678, 0x0F0F0F0F, 0xFFFF0000)
    assert bits(0xE8) == (0x12345678 & 0x0F0F0F0F) | (0x12345678 & 0xFFFF0000) | (0x0F0F0F0F & 0xFFFF0000)


def test_prmt_selects_bytes_of_b_a_and_replicates_signs():
    a, b = u32(0x44332211), u32(0x88776655)
    prmt = lambda sel, quals=set(): int(R.bit_reference("prmt", "b32", quals, [a, b, u32(sel)], {})[0])  # noqa: E731
    assert prmt(0x3210) == 0x44332211 and prmt(0x7654) == 0x88776655
    assert prmt(0x000F) == 0x111111FF  # 8 | 7: byte 7 (0x88) has its sign set
    assert prmt(1, {"f4e"}) == 0x55443322


def test_bfind_and_shifts_clamp_as_the_isa_says():
    assert int(R.bit_reference("bfind", "u32", set(), [u32(0)], {})[0]) == 0xFFFFFFFF
    assert int(R.bit_reference("bfind", "s32", set(), [u32(0xFFFFFFFF)], {})[0]) == 0xFFFFFFFF
    assert int(R.bit_reference("bfind", "s32", set(), [u32(0xFFFF0000)], {})[0]) == 15
    assert int(R.bit_reference("bfind", "u32", {"shiftamt"}, [u32(1)], {})[0]) == 31
    assert int(R.bit_reference("shr", "s32", set(), [u32(0x80000000), u32(40)], {})[0]) == 0xFFFFFFFF
    assert int(R.bit_reference("shl", "b32", set(), [u32(1), u32(32)], {})[0]) == 0


def test_float_min_orders_zeros_and_drops_a_nan():
    f32 = lambda *xs: np.array(xs, dtype=np.float32).view(np.uint32)  # noqa: E731
    minimum = R.float_minmax("min", "f32", set(), f32(-0.0, np.nan, np.nan), f32(0.0, 1.0, np.nan))
    assert minimum[0] == 0x80000000 and minimum[1] == f32(1.0)[0] and np.isnan(R.decode(minimum[2:], "f32")).all()
    assert R.float_minmax("max", "f32", set(), f32(-0.0), f32(0.0))[0] == 0
    assert np.isnan(R.decode(R.float_minmax("min", "f32", {"NaN"}, f32(np.nan), f32(1.0)), "f32")).all()
    # xorsign.abs: the smaller magnitude, with the XOR of the signs
    assert R.float_minmax("min", "f32", {"xorsign", "abs"}, f32(-3.0), f32(2.0))[0] == f32(-2.0)[0]


def test_committed_approximation_errors_are_within_the_isa_bounds_or_caveats():
    # tools/conformance/approx.py on the H200: every approximate form over
    # 2^20 inputs; a measured bound above the ISA's is a caveat of the form.
    from tile_mlir import ptx
    with open(os.path.join(ROOT, "tools", "conformance", "approx_results.json")) as f:
        report = json.load(f)
    assert report["target"] == "sm_90" and report["forms"] >= 26
    over = []
    for result in report["results"]:
        assert result["inputs"] >= 10 ** 6
        assert result.get("corner_case_mismatches", 0) == 0, result["opcode"]
        for bound in result["bounds"]:
            if not bound["within"]:
                over.append(result["opcode"])
                assert ptx.parse(result["opcode"]).caveat, result["opcode"]
    assert sorted(set(over)) == ["cos.approx.f32", "cos.approx.ftz.f32", "tanh.approx.bf16",
                                 "tanh.approx.bf16x2"]
