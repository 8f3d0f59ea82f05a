"""mma.sync: the fragment tables of the PTX ISA (tile_mlir.fragments), the
interpreter's warp-wide multiply, the (m, n, k) repeat space with its
accumulator chained over k, and the committed H200 run
(tools/gpu/mma_check.py)."""

import json
import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import fragments
from tile_mlir import script as T
from tile_mlir.interpreter import reference as R

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
import mma_check  # noqa: E402

FORMS = mma_check.forms()


def test_every_sm90_form_is_checked():
    shapes = {fragments.shape_of(f["opcode"]) for f in FORMS}
    assert shapes == {(16, 8, 4), (16, 8, 8), (16, 8, 16), (16, 8, 32), (16, 8, 64), (8, 8, 4), (8, 8, 16),
                      (8, 8, 32)}
    assert len(FORMS) == 92


@pytest.mark.parametrize("opcode", sorted({f["opcode"] for f in FORMS}))
def test_each_fragment_covers_its_matrix_once(opcode):
    # The ISA's tables distribute every element of A, B, C and D over the
    # 32 lanes exactly once.
    m, n, k = fragments.shape_of(opcode)
    dims = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}
    for operand, (rows, cols) in dims.items():
        cells = list(fragments.table(opcode, operand).values())
        assert sorted(cells) == [(r, c) for r in range(rows) for c in range(cols)], operand


def test_documented_formulas_of_the_issue():
    # m16n8k16: D/C (l/4 + 8(r/2), 2(l%4) + r%2); A in 32-bit words
    # (l/4 + 8(r%2), l%4 + 4(r/2)); B (n, k-word) = (l/4, l%4 + 4r).
    op = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    for lane in range(32):
        for r in range(4):
            assert fragments.element((16, 8, 16), "d", "f32", r, lane) == (lane // 4 + 8 * (r // 2),
                                                                            2 * (lane % 4) + r % 2)
            row, col = fragments.element((16, 8, 16), "a", "f16", 2 * r, lane)
            assert (row, col // 2) == (lane // 4 + 8 * (r % 2), lane % 4 + 4 * (r // 2))
        for r in range(2):
            k, n = fragments.element((16, 8, 16), "b", "f16", 2 * r, lane)
            assert (n, k // 2) == (lane // 4, lane % 4 + 4 * r)
    assert fragments.fragment_size(fragments.shape_of(op), "a") == 8


@pytest.mark.parametrize("entry", FORMS, ids=lambda e: e["opcode"])
def test_interpreter_multiplies_like_numpy(entry):
    packed, want, _ = mma_check.case(entry, 1)
    d = np.zeros((32, entry["counts"]["d"], 1), {32: np.uint32, 64: np.uint64}[entry["bits"]["d"]])
    tile_mlir.interpret(mma_check.kernel(entry), packed["a"][..., None], packed["b"][..., None],
                        packed["c"][..., None], d)
    got = mma_check.unpack(d[..., 0], entry["opcode"], fragments.kinds_of(entry["opcode"])[0])
    assert np.array_equal(got, want)


def test_k_chains_the_accumulator():
    # (m, n, k) = (2, 1, 2) of m16n8k16: D[m] = A[m, 0] B[0] + A[m, 1] B[1] + C[m].
    op = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"

    @T.function
    def chain(A: T.Tensor((32, 2, 2, 4), "uint32"), B: T.Tensor((32, 1, 2, 2), "uint32"),
              C: T.Tensor((32, 2, 1, 4), "float32"), D: T.Tensor((32, 2, 1, 4), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        a = T.alloc_local((32, 2, 2, 4), "uint32", scope="warp")
        b = T.alloc_local((32, 1, 2, 2), "uint32", scope="warp")
        c = T.alloc_local((32, 2, 1, 4), "float32", scope="warp")
        d = T.alloc_local((32, 2, 1, 4), "float32", scope="warp")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], a.reshape((32, 4, 4)), A.reshape((32, 4, 4)), scope="warp")
        T.cuda.tile.apply(T.ptx["ld.global.v2.b32"], b.reshape((32, 2, 2)), B.reshape((32, 2, 2)), scope="warp")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], c.reshape((32, 2, 4)), C.reshape((32, 2, 4)), scope="warp")
        T.cuda.tile.apply(T.ptx[op], d, a, b, c, scope="warp")
        T.cuda.tile.apply(T.ptx["st.global.v4.f32"], D.reshape((32, 2, 4)), d.reshape((32, 2, 4)), scope="warp")

    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (32, 32))   # M = 2 x 16, K = 2 x 16
    b = rng.integers(-4, 5, (32, 8))
    c = rng.integers(-50, 51, (32, 8))
    pack = lambda mat, operand, kind, count: mma_check.pack(mma_check.encode(mat, kind), op, operand, kind,
                                                            count, 32)
    A = np.stack([np.stack([pack(a[16 * m:16 * m + 16, 16 * k:16 * k + 16], "a", "f16", 4) for k in range(2)], 1)
                  for m in range(2)], 1)
    B = np.stack([pack(b[16 * k:16 * k + 16], "b", "f16", 2) for k in range(2)], 1)[:, None]
    C = np.stack([pack(c[16 * m:16 * m + 16], "c", "f32", 4) for m in range(2)], 1)[:, :, None].view(np.float32)
    D = np.zeros((32, 2, 1, 4), np.float32)
    tile_mlir.interpret(chain, A, B, C, D)
    got = np.concatenate([mma_check.unpack(D[:, m, 0].view(np.uint32), op, "f32") for m in range(2)])
    assert np.array_equal(got.astype(np.uint32).view(np.float32), (a @ b + c).astype(np.float32))


def test_inexact_sums_are_undefined():
    # 2^20 + 1 - 2^20 in f16 inputs with an f16 accumulator: partial sums
    # need more than 11 bits in some order, so the element is undefined;
    # small integers are exact.
    big = np.zeros((16, 8), np.uint64)
    a = R.encode(np.array([[1024.0] * 16] * 16), "f16").astype(np.uint64)
    b = R.encode(np.ones((16, 8)), "f16").astype(np.uint64)
    c = R.encode(np.full((16, 8), 1.0), "f16").astype(np.uint64)
    _, defined = R.mma("f16", "f16", "f16", "f16", a, b, c)
    assert not defined.any()
    a = R.encode(np.ones((16, 16)), "f16").astype(np.uint64)
    bits, defined = R.mma("f16", "f16", "f16", "f16", a, b, big)
    assert defined.all() and (R.decode(bits, "f16") == 16).all()


def _mixed_inputs(rng, shape, kind, scale_exponents, rare):
    """Element bit patterns of `kind`: mostly small dyadic values (sums the
    model defines) and signed zeros; with probability `rare` each, values
    near the accumulators' bounds, the smallest subnormals and random bit
    patterns (inf, NaN, far exponents); tf32 registers with low bits set."""
    pick = rng.choice(5, shape, p=[0.2, rare, 0.8 - 3 * rare, rare, rare])
    zero = np.where(rng.integers(0, 2, shape) == 1, -0.0, 0.0)
    large = rng.integers(-(1 << 25), 1 << 25, shape).astype(np.float64)
    small = rng.integers(-8, 9, shape) * np.ldexp(1.0, rng.integers(*scale_exponents, shape))
    values = np.where(pick == 0, zero, np.where(pick == 1, large, small))
    target = "f32" if kind == "tf32" else kind
    # The value of `kind` nearest each (ties to even; inf past its range,
    # whose significand encode casts before replacing it).
    with np.errstate(invalid="ignore"):
        bits = R.encode(R.round_to(values, np.zeros_like(values), target, "rn"), target).astype(np.uint64)
    width = 32 if kind == "tf32" else R.bits_of(kind)
    subnormal = rng.integers(1, 4, shape).astype(np.uint64)
    random = rng.integers(0, 1 << width, shape, dtype=np.uint64)
    bits = np.where(pick == 3, subnormal, np.where(pick == 4, random, bits))
    if kind == "tf32":
        bits = np.where(pick == 2, bits & np.uint64(0xFFFFE000), bits)  # tf32 values; others keep low bits
    return bits


@pytest.mark.parametrize("dtype, atype, ctype, m, n, k, scales", [
    ("f32", "bf16", "f32", 16, 8, 16, (-2, 1)), ("f32", "f16", "f32", 16, 8, 16, (-2, 1)),
    ("f16", "f16", "f16", 16, 8, 16, (-2, 1)), ("f32", "tf32", "f32", 16, 8, 8, (-64, -61)),
    ("f32", "e4m3", "f32", 16, 8, 32, (-2, 1)), ("f32", "e5m2", "f32", 16, 8, 32, (-2, 1)),
    ("f32", "bf16", "f32", 64, 64, 16, (-64, -61))])
def test_narrow_model_equals_the_exact_one(dtype, atype, ctype, m, n, k, scales):
    # mma's float64 path for narrow inputs (the interpreter's wgmma and
    # mma.sync take it) against the model in exact Fractions, element for
    # element: the bits and where they are defined, with rn and rm, over
    # inputs that land on both sides of the accumulator's bounds and of
    # its normal range, at signed zeros, subnormals, inf and NaN.
    rng = np.random.default_rng(sum(map(ord, dtype + atype)) + m + k)
    defined = []
    for rare in (0.0, 0.002, 0.01, 0.05):
        a, b = _mixed_inputs(rng, (m, k), atype, scales, rare), _mixed_inputs(rng, (k, n), atype, scales, rare)
        c = _mixed_inputs(rng, (m, n), ctype, scales, rare)
        for rounding in ("rn", "rm"):
            fast = R._mma_narrow(dtype, atype, atype, ctype, a, b, c, rounding)
            exact = R._mma_exact(dtype, atype, atype, ctype, a, b, c, rounding=rounding)
            assert np.array_equal(fast[1], exact[1])
            assert np.array_equal(fast[0], exact[0])
            assert fast[0].dtype == exact[0].dtype
            defined.append(exact[1].mean())
    # Elements on both sides of the bounds (the products of 2^-64 to 2^-61
    # straddle f32's normal range).
    assert 0 < np.mean(defined) < 1


@pytest.mark.parametrize("atype, btype, k", [("s8", "s8", 32), ("u8", "s8", 32), ("s4", "u4", 64), ("u4", "u4", 64)])
def test_integer_model_equals_the_exact_one(atype, btype, k):
    # The int64 path against the model in exact Fractions: random bits
    # (high bits above the element's width ignored), C over the whole s32
    # range so that sums wrap, and .satfinite clamping them.
    rng = np.random.default_rng(k + len(atype + btype))
    a = rng.integers(0, 1 << 16, (16, k), dtype=np.uint64)
    b = rng.integers(0, 1 << 16, (k, 8), dtype=np.uint64)
    c = rng.integers(0, 1 << 32, (16, 8), dtype=np.uint64)
    c[0, :4] = [0x7FFFFFFF, 0x80000000, 0x7FFFFF00, 0x80000100]
    for satfinite in (False, True):
        fast = R._mma_integer(atype, btype, a, b, c, satfinite)
        exact = R._mma_exact("s32", atype, btype, "s32", a, b, c, satfinite)
        assert np.array_equal(fast[0], exact[0]) and fast[0].dtype == exact[0].dtype
        assert fast[1].all() and exact[1].all()
    clamped = R._mma_integer(atype, btype, a, b, c, True)[0].view(np.int32)
    wrapped = R._mma_integer(atype, btype, a, b, c, False)[0].view(np.int32)
    assert (clamped != wrapped).any()  # some sums left the s32 range


def test_narrow_model_bounds_a_sum_by_a_grid_no_coarser_than_one():
    # One product of 2^12 x 2^12 = 2^24 and nothing else: the grid is 1,
    # not 2^24, so its magnitude reaches 2^24 x 1 and the f32 element is
    # undefined; 2^12 x 2^11 is defined. Both paths say so.
    a = np.zeros((16, 16))
    a[0, 0], a[1, 0] = 2.0 ** 12, 2.0 ** 11
    b = np.zeros((16, 8))
    b[0, 0] = 2.0 ** 12
    a, b = R.encode(a, "bf16").astype(np.uint64), R.encode(b, "bf16").astype(np.uint64)
    c = np.zeros((16, 8), np.uint64)
    for model in (R._mma_narrow, R._mma_exact):
        bits, defined = model("f32", "bf16", "bf16", "f32", a, b, c, rounding="rn")
        assert not defined[0, 0] and defined[1, 0] and R.decode(bits[1, 0], "f32") == 2.0 ** 23


def test_committed_h200_run_has_no_mismatch():
    with open(os.path.join(ROOT, "tools", "gpu", "results", "mma.json")) as f:
        report = json.load(f)
    assert report["forms"] == 92 and report["cases"] == 368 and not report["mismatched"]


def test_coordinates_are_the_tables_at_the_lane():
    # The helper evaluates the same tables as index values of the kernel:
    # D written through it lands where numpy puts A B (also docs/python.md).
    op = "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"

    @T.function
    def product(A: T.Tensor((16, 8), "uint16"), B: T.Tensor((8, 8), "uint16"), D: T.Tensor((16, 8), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        a = T.alloc_local((1, 1, 4), "uint16")
        b = T.alloc_local((1, 1, 2), "uint16")
        acc = T.alloc_local((1, 1, 4), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)).view("uint32"), T.uint32(0))
        for i in range(4):
            r, c = T.mma_coordinates(op, "a", i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], a.reshape((4, 1))[i:i + 1], A[r:r + 1, c:c + 1])
        for i in range(2):
            r, c = T.mma_coordinates(op, "b", i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], b.reshape((2, 1))[i:i + 1], B[r:r + 1, c:c + 1])
        T.cuda.tile.apply(T.ptx[op], acc, a.view("uint32"), b.view("uint32"))
        for i in range(4):
            r, c = T.mma_coordinates(op, "d", i)
            T.cuda.tile.apply(T.ptx["st.global.f32"], D[r:r + 1, c:c + 1], acc.reshape((4, 1))[i:i + 1])

    rng = np.random.default_rng(3)
    a, b = rng.integers(-5, 6, (16, 8)), rng.integers(-5, 6, (8, 8))
    bf16 = lambda x: (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # noqa: E731 - exact
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(product, bf16(a), bf16(b), d)
    assert np.array_equal(d, (a @ b).astype(np.float32))


def test_coordinates_reject_what_the_fragment_does_not_hold():
    op = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    for args, message in ((("e", 0), "has no operand 'e'"), (("a", 8), "holds 8 elements per lane, not element 8")):
        with pytest.raises(T.TileError, match=message):
            @T.function
            def bad(Out: T.Tensor((1, 1), "float32")):
                T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
                T.mma_coordinates(op, *args)


def test_error_metric_inputs_round_to_nearest_even():
    """The random-data run's inputs are the nearest values of their type:
    numpy's float16 for f16, and bf16 / tf32 / e4m3 agree with the kinds'
    own encodings (a truncation would be off by one ulp on half the draws)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(20000)
    assert np.array_equal(mma_check.round_to_kind(x, "f16"), x.astype(np.float16).astype(np.float64))
    for kind, mantissa, least in (("bf16", 7, -126), ("tf32", 10, -126), ("e4m3", 3, -6)):
        rounded = mma_check.round_to_kind(x, kind)
        spacing = np.ldexp(1.0, np.maximum(np.floor(np.log2(np.abs(x))).astype(int), least) - mantissa)
        assert np.all(np.abs(rounded - x) <= spacing / 2)
        assert np.array_equal(R.decode(R.encode(rounded, kind), kind), rounded)
    assert mma_check.round_to_kind(np.array([1 + 2.0**-8]), "bf16")[0] == 1.0        # a tie: to even
    assert mma_check.round_to_kind(np.array([1 + 3 * 2.0**-8]), "bf16")[0] == 1 + 2.0**-6


@pytest.mark.parametrize("opcode", ["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                                    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"])
def test_error_metric_of_a_correctly_rounded_chip(opcode):
    """A stand-in chip that rounds the exact A B + C once is within half an
    ulp by the run's own measure, and one that is off by one ulp is not."""
    entry = next(e for e in FORMS if e["opcode"] == opcode)
    shape = fragments.shape_of(opcode)
    dk, ak, bk, ck = fragments.kinds_of(opcode)

    def matrix(regs, operand, kind, rows, cols):
        out = np.zeros((rows, cols), np.uint64)
        per, width = fragments.per_register(kind), fragments.ELEMENT_BITS[kind]
        for (lane, i), (r, c) in fragments.table(opcode, operand).items():
            out[r, c] = (int(regs[lane, i // per]) >> (width * (i % per))) & ((1 << width) - 1)
        return R.decode(out, kind)

    def chip(off_by):
        def run(a, b, c, d):
            m, n, k = shape
            exact = mma_check.exact_product(matrix(a[..., 0], "a", ak, m, k), matrix(b[..., 0], "b", bk, k, n),
                                            matrix(c[..., 0], "c", ck, m, n), ak)
            exact = np.vectorize(float)(exact) if ak == "f64" else exact
            bits = R.encode(mma_check.round_to_kind(exact, dk), dk).astype(np.uint64) + np.uint64(off_by)
            d[..., 0] = mma_check.pack(bits, opcode, "d", dk, entry["counts"]["d"], entry["bits"]["d"])
        return run

    ulps, relative = mma_check.error_case(chip(0), entry, 0)
    assert ulps.max() <= 0.5 and relative.max() < 2.0**-20
    ulps, _ = mma_check.error_case(chip(1), entry, 0)
    assert ulps.min() >= 0.5
