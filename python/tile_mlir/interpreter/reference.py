"""Reference semantics of PTX register instructions, in numpy, written from
the PTX ISA (never derived from running a GPU).

Values travel as unsigned integer bit patterns (uint8/16/32/64 numpy arrays)
so that NaN payloads, signed zeros and subnormals are explicit. Each
`reference(opcode, sources)` returns the destination bit patterns, or raises
NotCovered for a form this model does not describe.

Rounding is exact: a float result is computed as an f64 value `hi` plus the
sign of the exact residual (`hi` is the f64 nearest the exact result), and
rounded once to the destination format with the instruction's mode.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .reference_bits import BIT_FAMILIES, bit_reference, int_minmax
from .reference_ints import INT_FAMILIES, int_reference, slct


class NotCovered(Exception):
    """What the interpreter does not model; `point` is the file:line of the
    op that met it, set where the machine runs ops."""

    point = None


class MemoryFault(Exception):
    """An access the chip faults on (or that reads what lies past a
    buffer): past the end of a tensor or shared buffer, or not aligned to
    its size."""


class Partial:
    """Destination bits where the ISA defines them: `defined` is False where
    it leaves the result unspecified (an integer division by zero)."""

    def __init__(self, values, defined):
        self.values, self.defined = values, np.asarray(defined, dtype=bool)


# Forms whose result is an approximation with an error bound, not a bit
# pattern: measured by tools/conformance/approx.py, not compared here. The
# interpreter runs those `approximate` models as their correctly rounded
# result and says so (InterpretWarning).
APPROXIMATE = {"approx", "full"}


# name -> (exponent bits, mantissa bits, has infinities)
FORMATS = {
    "f64": (11, 52, True), "f32": (8, 23, True), "f16": (5, 10, True), "bf16": (8, 7, True),
    "tf32": (8, 10, True), "e4m3": (4, 3, False), "e5m2": (5, 2, True),
}
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def bits_of(kind):
    e, m, _ = FORMATS[kind]
    return 1 + e + m


# -- decoding -----------------------------------------------------------------

# The formats numpy holds (bf16: the top half of an f32): decoded and
# encoded by a view and an exact conversion, as the general code below
# would (a NaN's payload aside: encode makes every NaN the quiet one).
NATIVE = {"f64": (np.uint64, np.float64), "f32": (np.uint32, np.float32), "f16": (np.uint16, np.float16)}
ENCODED_NAN = {"f64": 0x7FF8000000000000, "f32": 0x7FC00000, "f16": 0x7E00}


def decode(bits, kind):
    """Bit patterns of format `kind` to float64 values (exact)."""
    with np.errstate(invalid="ignore"):  # widening a signaling NaN quiets it
        if kind in NATIVE:
            uint, real = NATIVE[kind]
            return np.asarray(bits).astype(uint).view(real).astype(np.float64)
        if kind == "bf16":
            return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return decode_fields(bits, kind)


def decode_fields(bits, kind):
    """decode from the format's sign, exponent and mantissa fields (any
    format of FORMATS)."""
    bits = np.asarray(bits).astype(np.uint64)
    e, m, has_inf = FORMATS[kind]
    width = 1 + e + m
    sign = ((bits >> np.uint64(width - 1)) & np.uint64(1)).astype(bool)
    exp = ((bits >> np.uint64(m)) & np.uint64((1 << e) - 1)).astype(np.int64)
    man = (bits & np.uint64((1 << m) - 1)).astype(np.float64)
    bias = (1 << (e - 1)) - 1
    with np.errstate(over="ignore"):  # the all-ones exponent is replaced below
        normal = np.ldexp(1.0 + man / (1 << m), exp - bias)
    sub = np.ldexp(man / (1 << m), 1 - bias)
    value = np.where(exp == 0, sub, normal)
    if has_inf:
        top = exp == (1 << e) - 1
        value = np.where(top & (man == 0), np.inf, value)
        value = np.where(top & (man != 0), np.nan, value)
    else:  # e4m3: S.1111.111 is NaN, no infinities
        value = np.where((exp == (1 << e) - 1) & (man == (1 << m) - 1), np.nan, value)
    return np.where(sign, -value, value)


def max_finite(kind):
    e, m, has_inf = FORMATS[kind]
    bias = (1 << (e - 1)) - 1
    if has_inf:
        return np.ldexp(2.0 - 2.0 ** -m, (1 << e) - 2 - bias)
    return np.ldexp(2.0 - 2.0 ** (1 - m), (1 << e) - 1 - bias)


def encode(values, kind):
    """Exactly representable float64 values (or inf/nan) to bit patterns."""
    values = np.asarray(values, dtype=np.float64)
    if kind == "bf16":  # an f32 whose low half is zero (its NaN's too)
        return (encode(values, "f32") >> np.uint32(16)).astype(np.uint16)
    if kind in NATIVE:
        uint, real = NATIVE[kind]
        with np.errstate(invalid="ignore"):
            out = values.astype(real).view(uint)
        return np.where(np.isnan(values), uint(ENCODED_NAN[kind]), out)
    return encode_fields(values, kind)


def encode_fields(values, kind):
    """encode into the format's fields (any format of FORMATS)."""
    values = np.asarray(values, dtype=np.float64)
    e, m, has_inf = FORMATS[kind]
    width = 1 + e + m
    bias = (1 << (e - 1)) - 1
    sign = np.signbit(values).astype(np.uint64) << np.uint64(width - 1)
    a = np.abs(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        exp = np.floor(np.log2(np.where(a > 0, a, 1.0))).astype(np.int64)
    # log2 may be off by one at boundaries; fix with exact comparisons.
    exp = np.where(np.ldexp(1.0, exp) > a, exp - 1, exp)
    exp = np.where(np.ldexp(1.0, exp + 1) <= a, exp + 1, exp)
    normal = exp >= 1 - bias
    field = np.where(normal, exp + bias, 0).astype(np.uint64)
    scale = np.where(normal, exp - m, 1 - bias - m)
    mant = np.ldexp(a, -scale)
    mant = np.where(normal, mant - (1 << m), mant)
    with np.errstate(invalid="ignore"):  # inf and NaN: their bits are set below
        mant = np.nan_to_num(mant).astype(np.uint64)
    out = sign | (field << np.uint64(m)) | mant
    out = np.where(a == 0, sign, out)
    if has_inf:
        out = np.where(np.isinf(a), sign | (np.uint64((1 << e) - 1) << np.uint64(m)), out)
        nan = np.uint64(((1 << e) - 1) << m | (1 << (m - 1)))
    else:
        nan = np.uint64((1 << (width - 1)) - 1)
    out = np.where(np.isnan(values), nan | sign * 0, out)
    return out.astype(UINT[next(size for size in sorted(UINT) if size >= width)])


# -- rounding -----------------------------------------------------------------

def round_to(hi, residual, kind, mode, ftz=False, sat=False, satfinite=False, relu=False):
    """Rounds the exact values hi + (tiny with sign `residual`) to `kind`.
    Returns float64 values exactly representable in `kind` (or inf/nan)."""
    hi = np.asarray(hi, dtype=np.float64)
    residual = np.sign(np.broadcast_to(np.asarray(residual, dtype=np.float64), hi.shape))
    e, m, has_inf = FORMATS[kind]
    bias = (1 << (e - 1)) - 1
    emin = 1 - bias
    negative = np.signbit(hi)
    a = np.abs(hi)
    r = np.where(negative, -residual, residual)  # residual sign relative to |value|
    with np.errstate(divide="ignore", invalid="ignore"):
        exp = np.floor(np.log2(np.where(a > 0, a, 1.0))).astype(np.int64)
    exp = np.where(np.ldexp(1.0, exp) > a, exp - 1, exp)
    exp = np.where(np.ldexp(1.0, exp + 1) <= a, exp + 1, exp)
    # Just below a power of two, the exact value lies in the binade below.
    power_of_two = (a > 0) & np.isfinite(a) & (np.ldexp(1.0, exp) == a)
    exp = np.where(power_of_two & (r < 0), exp - 1, exp)
    ulp_exp = np.maximum(exp, emin) - m
    t = np.ldexp(np.nan_to_num(a, posinf=0.0), -ulp_exp)
    n = np.floor(t)
    frac = t - n
    inexact = (frac > 0) | (r != 0)
    just_below = (frac == 0) & (r < 0)
    n = np.where(just_below, n - 1, n)
    # Where the exact value sits between n and n + 1: above (+1), at (0) or
    # below (-1) the midpoint.
    position = np.where(frac > 0.5, 1, -1)
    position = np.where(frac == 0.5, r, position)
    position = np.where((frac == 0) & (r > 0), -1, position)
    position = np.where(just_below, 1, position)
    if mode in ("rn", "rni"):
        up = inexact & ((position > 0) | ((position == 0) & (np.fmod(n, 2) == 1)))
    elif mode == "rna":
        up = inexact & (position >= 0)
    elif mode in ("rz", "rzi"):
        up = np.zeros_like(inexact)
    elif mode in ("rp", "rpi"):
        up = inexact & ~negative
    elif mode in ("rm", "rmi"):
        up = inexact & negative
    else:
        raise NotCovered(f"rounding mode {mode}")
    n = n + up
    out = np.ldexp(n, ulp_exp)
    limit = max_finite(kind)
    overflow = out > limit
    if mode in ("rn", "rna", "rni"):
        to_inf = overflow
    elif mode in ("rz", "rzi"):
        to_inf = np.zeros_like(overflow)
    elif mode in ("rp", "rpi"):
        to_inf = overflow & ~negative
    else:
        to_inf = overflow & negative
    out = np.where(overflow, np.where(to_inf & has_inf & (not satfinite), np.inf, limit), out)
    if not has_inf or satfinite:
        out = np.where(np.isinf(a), limit, out)
    else:
        out = np.where(np.isinf(a), np.inf, out)
    out = np.where(negative, -out, out)
    out = np.where(np.isnan(hi), np.nan, out)
    if ftz:
        out = np.where(np.abs(out) < np.ldexp(1.0, emin), np.copysign(0.0, out), out)
    if sat:
        out = np.where(np.isnan(out), 0.0, np.clip(out, 0.0, 1.0)) + 0.0  # +0 for -0
    if relu:
        out = np.where(np.isnan(out), np.nan, np.where(out < 0, 0.0, out))
        out = np.where(out == 0, 0.0, out)
    return out


def flush(values, kind):
    """ftz on inputs: subnormals become sign-preserving zeros."""
    _, _, _ = FORMATS[kind]
    emin = 2 - (1 << (FORMATS[kind][0] - 1))
    return np.where(np.abs(values) < np.ldexp(1.0, emin), np.copysign(0.0, values), values)


def two_sum(a, b):
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), np.sign(err), 0.0)


def exact_op(op, a, b):
    """(hi, residual sign) of a op b for float64 inputs that came from formats
    of at most 24 significant bits (products are then exact in float64)."""
    with np.errstate(all="ignore"):
        if op == "add":
            return two_sum(a, b)
        if op == "sub":
            return two_sum(a, -b)
        return a * b, np.zeros_like(a)


def exact_op_f64(op, a, b):
    """(hi, residual sign) for f64 operands, through fractions."""
    hi = np.empty_like(a)
    res = np.zeros_like(a)
    with np.errstate(all="ignore"):
        direct = a + b if op == "add" else (a - b if op == "sub" else a * b)
    for i, (x, y, d) in enumerate(zip(a, b, direct)):
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(d)):
            hi[i] = d
            continue
        fx, fy = Fraction(float(x)), Fraction(float(y))
        exact = fx + fy if op == "add" else (fx - fy if op == "sub" else fx * fy)
        h = float(exact)
        hi[i] = h if h != 0 or exact == 0 else h
        if exact != 0 and h == 0:
            hi[i] = 0.0 * (1 if exact > 0 else -1)
        res[i] = (exact > Fraction(h)) - (exact < Fraction(h))
    # a zero sum of opposite-signed zeros follows IEEE: +0 except under rm
    return hi, res


# -- lanes ------------------------------------------------------------------------

LANES = {  # packed type -> (lane format, lane bits, lanes)
    "f16x2": ("f16", 16, 2), "bf16x2": ("bf16", 16, 2), "u16x2": ("u16", 16, 2), "s16x2": ("s16", 16, 2),
    "e4m3x2": ("e4m3", 8, 2), "e5m2x2": ("e5m2", 8, 2),
}
INT_TYPES = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64", "b128"}
FLOAT_TYPES = {"f16", "bf16", "f32", "f64"}


def split_lanes(bits, lane_bits, lanes):
    bits = np.asarray(bits).astype(np.uint64)
    return [(bits >> np.uint64(lane_bits * i)) & np.uint64((1 << lane_bits) - 1) for i in range(lanes)]


def join_lanes(parts, lane_bits, width):
    out = np.zeros_like(np.asarray(parts[0], dtype=np.uint64))
    for i, part in enumerate(parts):
        out |= (np.asarray(part).astype(np.uint64) & np.uint64((1 << lane_bits) - 1)) << np.uint64(lane_bits * i)
    return out.astype(UINT[width])


def equal(got, want, dst_type):
    """Bitwise equality: NaN results are modelled as the H200 makes them
    (hardware_nans), tf32 ones included."""
    return np.asarray(got).astype(np.uint64) == np.asarray(want).astype(np.uint64)


# -- integers -----------------------------------------------------------------

def to_int(bits, ty):
    width = int(ty[1:])
    values = [int(v) & ((1 << width) - 1) for v in np.asarray(bits).astype(np.uint64)]
    if ty[0] == "s":
        values = [v - (1 << width) if v >> (width - 1) else v for v in values]
    return values


def from_int(values, width):
    mask = (1 << width) - 1
    return np.array([v & mask for v in values], dtype=np.uint64).astype(UINT[width])


def int_range(ty):
    width = int(ty[1:])
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if ty[0] == "s" else (0, (1 << width) - 1)


def int_arith(family, ty, quals, a_bits, b_bits):
    width = int(ty[1:])
    a, b = to_int(a_bits, ty), to_int(b_bits, ty)
    if family == "add":
        out = [x + y for x, y in zip(a, b)]
    elif family == "sub":
        out = [x - y for x, y in zip(a, b)]
    else:
        out = [x * y for x, y in zip(a, b)]
        if "hi" in quals:
            out = [v >> width for v in out]
        elif "wide" in quals:
            return from_int(out, 2 * width)
    if "sat" in quals:
        lo, hi = int_range(ty)
        out = [min(max(v, lo), hi) for v in out]
    return from_int(out, width)


# -- floats -------------------------------------------------------------------

def ieee_hardware():
    """Whether this CPU's float arithmetic keeps subnormals (no flush-to-
    zero or denormals-are-zero mode set in the process): then numpy's f32
    and f64 +, -, * are IEEE 754's, correctly rounded to nearest even."""
    tiny = np.array([2.0 ** -149], np.float32)
    return bool((tiny * np.float32(1.0))[0] != 0) and bool((tiny + tiny)[0] == np.float32(2.0 ** -148))


def float_arith(family, kind, quals, a_bits, b_bits):
    mode = next((q for q in quals if q in ("rn", "rz", "rm", "rp")), "rn")
    ftz, sat = "ftz" in quals, "sat" in quals
    if mode == "rn" and not (ftz or sat) and kind in ("f32", "f64") and ieee_hardware():
        return native_arith(family, kind, a_bits, b_bits)
    return exact_arith(family, kind, quals, a_bits, b_bits)


def native_arith(family, kind, a_bits, b_bits):
    """add, sub or mul of f32 or f64 rounded to nearest even, by the CPU's
    own IEEE operation: the exact result rounded once, signed zeros
    included, as exact_arith computes it (a NaN as encode makes it)."""
    uint, real = NATIVE[kind]
    a, b = (np.asarray(x).astype(uint).view(real) for x in (a_bits, b_bits))
    with np.errstate(all="ignore"):
        out = a + b if family == "add" else a - b if family == "sub" else a * b
    return np.where(np.isnan(out), uint(ENCODED_NAN[kind]), out.view(uint))


def exact_arith(family, kind, quals, a_bits, b_bits):
    """add, sub or mul as the exact result rounded once with the
    instruction's mode (and .ftz, .sat)."""
    mode = next((q for q in quals if q in ("rn", "rz", "rm", "rp")), "rn")
    ftz, sat = "ftz" in quals, "sat" in quals
    a, b = decode(a_bits, kind), decode(b_bits, kind)
    if ftz:
        a, b = flush(a, kind), flush(b, kind)
    if kind == "f64":
        hi, res = exact_op_f64(family, a, b)
        hi = _signed_zero(family, a, b, hi, mode)
        return round_f64(hi, res, mode, sat, np.isfinite(a) & np.isfinite(b))
    hi, res = exact_op(family, a, b)
    hi = _signed_zero(family, a, b, hi, mode)
    return encode(round_to(hi, res, kind, mode, ftz=ftz, sat=sat), kind)


def fma(kind, quals, a_bits, b_bits, c_bits):
    """a * b + c rounded once (PTX fma: .rnd required; .ftz and .sat for
    f32, f16; .relu, clamping a negative result to +0, for f16 and bf16)."""
    mode = next(q for q in quals if q in ("rn", "rz", "rm", "rp"))
    ftz, sat, relu = "ftz" in quals, "sat" in quals, "relu" in quals
    a, b, c = decode(a_bits, kind), decode(b_bits, kind), decode(c_bits, kind)
    if ftz:
        a, b, c = flush(a, kind), flush(b, kind), flush(c, kind)
    with np.errstate(all="ignore"):
        product = a * b  # exact in float64 for f32 operands
        direct = product + c
    if kind == "f64":
        # An infinite or NaN product keeps the direct result; a finite one
        # with an infinite or NaN c gives c (the exact product never
        # overflows); the rest is exact.
        finite_product = np.isfinite(a) & np.isfinite(b)
        direct = np.where(finite_product & ~np.isfinite(c), c, direct)
        hi, res = _exact(direct, (
            (i, Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i])))
            for i in np.flatnonzero(finite_product & np.isfinite(c))))
    else:
        hi, res = two_sum(product, c)
    # An exact zero sum (IEEE 754): two zeros keep a sign they agree on, and
    # otherwise the sum is +0, or -0 when rounding down.
    exact_zero = (hi == 0) & (res == 0)
    both_zero = (product == 0) & (c == 0)
    rm = mode == "rm"
    negative = np.where(both_zero,
                        (np.signbit(product) | np.signbit(c)) if rm else (np.signbit(product) & np.signbit(c)),
                        rm)
    hi = np.where(exact_zero, np.where(negative, -0.0, 0.0), hi)
    if kind == "f64":
        return round_f64(hi, res, mode, sat, np.isfinite(a) & np.isfinite(b) & np.isfinite(c))
    return encode(round_to(hi, res, kind, mode, ftz=ftz, sat=sat, relu=relu), kind)


def int_mad(ty, quals, a_bits, b_bits, c_bits):
    """mad.lo/hi/wide: the low or high half of a*b, or all of it, plus c;
    mad.hi.sat.s32 clamps the sum to the s32 range."""
    width = int(ty[1:])
    a, b = to_int(a_bits, ty), to_int(b_bits, ty)
    wide = "wide" in quals
    c = to_int(c_bits, ty[0] + str(2 * width) if wide else ty)
    products = [x * y for x, y in zip(a, b)]
    if wide:
        return from_int([p + z for p, z in zip(products, c)], 2 * width)
    if "hi" in quals:
        out = [(p >> width) + z for p, z in zip(products, c)]
        if "sat" in quals:
            lo, hi = int_range(ty)
            out = [min(max(v, lo), hi) for v in out]
        return from_int(out, width)
    return from_int([p + z for p, z in zip(products, c)], width)


def round_f64(hi, res, mode, sat, finite_inputs):
    """The f64 result of an exact value held as float64 `hi` (round to
    nearest) and the sign of what it leaves out, in `mode`: an overflowing
    exact result goes to the largest finite value unless the rounding
    direction points away from zero."""
    big = np.finfo(np.float64).max
    overflow = np.isinf(hi) & finite_inputs
    if mode != "rn":
        up = np.nextafter(hi, np.inf)
        down = np.nextafter(hi, -np.inf)
        if mode == "rp":
            hi = np.where(res > 0, up, hi)
        elif mode == "rm":
            hi = np.where(res < 0, down, hi)
        else:
            hi = np.where((res > 0) & (hi < 0), up, np.where((res < 0) & (hi > 0), down, hi))
        away = {"rz": False, "rp": ~np.signbit(hi), "rm": np.signbit(hi)}[mode]
        hi = np.where(overflow & ~away, np.copysign(big, hi), hi)
    if sat:
        hi = np.where(np.isnan(hi), 0.0, np.clip(hi, 0.0, 1.0)) + 0.0
    return encode(hi, "f64")


def _signed_zero(family, a, b, hi, mode):
    """IEEE 754: an exact zero sum of operands of opposite sign (or of
    x - x) is +0, and -0 when rounding toward -inf; zero operands of one
    sign keep it; a zero product has the xor of the signs."""
    with np.errstate(all="ignore"):
        if family == "mul":
            return np.where(hi == 0, np.copysign(0.0, np.copysign(1.0, a) * np.copysign(1.0, b)), hi)
        bb = b if family == "add" else -b
        same_sign_zeros = (a == 0) & (bb == 0) & (np.signbit(a) == np.signbit(bb))
        cancelled = (hi == 0) & ~same_sign_zeros & (a + bb == 0)
        hi = np.where(same_sign_zeros, np.copysign(0.0, a), hi)
        return np.where(cancelled, -0.0 if mode == "rm" else 0.0, hi)


def lanewise(fn, packed, a_bits, b_bits=None):
    kind, lane_bits, lanes = LANES[packed]
    width = lane_bits * lanes
    a_parts = split_lanes(a_bits, lane_bits, lanes)
    b_parts = split_lanes(b_bits, lane_bits, lanes) if b_bits is not None else [None] * lanes
    return join_lanes([fn(kind, x, y) for x, y in zip(a_parts, b_parts)], lane_bits, width)


def unary(family, ty, quals, bits):
    if ty in ("s16", "s32", "s64"):
        values = to_int(bits, ty)
        return from_int([abs(v) if family == "abs" else -v for v in values], int(ty[1:]))
    if ty in LANES:
        return lanewise(lambda kind, x, _: unary(family, kind, quals, x), ty, bits)
    value = decode(bits, ty)
    if "ftz" in quals:
        value = flush(value, ty)
    value = np.abs(value) if family == "abs" else -value
    return encode(value, ty)


def float_minmax(family, kind, quals, a_bits, b_bits):
    """min/max: a NaN input loses to a number (both NaN: NaN), unless .NaN,
    where any NaN input gives NaN; -0 is below +0; .ftz flushes subnormal
    inputs; .xorsign.abs takes the smaller (larger) magnitude with the XOR
    of the input signs, unless the result is NaN."""
    a, b = decode(a_bits, kind), decode(b_bits, kind)
    if "ftz" in quals:
        a, b = flush(a, kind), flush(b, kind)
    sign = np.signbit(a) ^ np.signbit(b)
    if "xorsign" in quals:
        a, b = np.abs(a), np.abs(b)
    first = a < b if family == "min" else a > b
    # Equal values: the zero of the right sign, else either.
    zeros = (a == 0) & (b == 0)
    tie = np.where(np.signbit(a) if family == "min" else ~np.signbit(a), a, b)
    out = np.where(first, a, np.where(a == b, np.where(zeros, tie, a), b))
    a_nan, b_nan = np.isnan(a), np.isnan(b)
    out = np.where(a_nan & ~b_nan, b, np.where(b_nan & ~a_nan, a, out))
    if "NaN" in quals:
        out = np.where(a_nan | b_nan, np.nan, out)
    if "xorsign" in quals:
        out = np.where(np.isnan(out), out, np.where(sign, -np.abs(out), np.abs(out)))
    return encode(out, kind)


# -- division, roots, reciprocals ---------------------------------------------------

def _exact(direct, fractions):
    """(hi, residual sign) from float64 results `direct` (kept where they are
    exact: infinities, NaNs, zeros) and, where `fractions` gives an exact
    Fraction, the float64 nearest it and the sign of what it leaves out."""
    hi = np.array(direct, dtype=np.float64)
    res = np.zeros_like(hi)
    for i, exact in fractions:
        try:
            h = float(exact)
        except OverflowError:
            hi[i], res[i] = (np.inf if exact > 0 else -np.inf), (1 if exact > 0 else -1)
            continue
        if h == 0 and exact < 0:
            h = -0.0
        hi[i] = h
        res[i] = (exact > Fraction(h)) - (exact < Fraction(h))
    return hi, res


def two_product(a, b):
    """(p, e) with p = fl(a b) and p + e = a b exactly (Dekker's product
    with Veltkamp's split), for magnitudes in SAFE_EXPONENTS (no overflow
    in the split, no underflow in the parts)."""
    def split(x):
        c = 134217729.0 * x  # 2^27 + 1
        high = c - (c - x)
        return high, x - high
    p = a * b
    (a_hi, a_lo), (b_hi, b_lo) = split(a), split(b)
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


# Magnitudes within 2^+-500 (every f32, f16 and bf16 value, and their
# quotients and roots): two_product is exact there.
SAFE_EXPONENTS = 500


def _safe(*values):
    with np.errstate(all="ignore"):
        return np.logical_and.reduce([np.isfinite(v) & (v != 0) & (np.abs(np.frexp(v)[1]) < SAFE_EXPONENTS)
                                      for v in values])


def exact_div(a, b):
    """(the float64 quotient, the sign of what it leaves out): IEEE 754's
    division is correctly rounded, and the remainder a - q b is exact
    (two_product, and Sterbenz's lemma for a - fl(q b)), so its sign,
    times b's, is the residual's; outside the safe range, with Fractions."""
    with np.errstate(all="ignore"):
        direct = a / b
        fast = _safe(a, b, direct)
        p, e = two_product(np.where(fast, direct, 1.0), np.where(fast, b, 1.0))
        remainder = (np.where(fast, a, 1.0) - p) - e
    hi, res = _exact(direct, ((i, Fraction(float(a[i])) / Fraction(float(b[i])))
                              for i in np.flatnonzero(~fast)
                              if np.isfinite(a[i]) and np.isfinite(b[i]) and a[i] != 0 and b[i] != 0))
    res[fast] = (np.sign(remainder) * np.sign(b))[fast]
    return hi, res


def exact_sqrt(a):
    """(the float64 root h, the sign of a - h^2): exact through two_product
    in the safe range, with Fractions outside it."""
    with np.errstate(all="ignore"):
        direct = np.sqrt(a)
        fast = _safe(a) & (a > 0)
        h = np.where(fast, direct, 1.0)
        p, e = two_product(h, h)
        remainder = (np.where(fast, a, 1.0) - p) - e
    hi, res = direct.copy(), np.zeros_like(direct)
    res[fast] = np.sign(remainder)[fast]
    for i in np.flatnonzero(~fast):
        x, root = a[i], direct[i]
        if np.isfinite(x) and x > 0:
            square = Fraction(float(root)) ** 2
            res[i] = (Fraction(float(x)) > square) - (Fraction(float(x)) < square)
    return hi, res


def rounded_math(family, kind, quals, srcs):
    """div, sqrt and rcp with a rounding mode: the exact result rounded
    once; .ftz flushes subnormal inputs and results (f32)."""
    mode = next(q for q in quals if q in ("rn", "rz", "rm", "rp"))
    ftz = "ftz" in quals and kind == "f32"
    values = [decode(s, kind) for s in srcs]
    if ftz:
        values = [flush(v, kind) for v in values]
    if family == "div":
        hi, res = exact_div(*values)
        finite = np.isfinite(values[0]) & np.isfinite(values[1]) & (values[1] != 0)
    elif family == "rcp":
        hi, res = exact_div(np.ones_like(values[0]), values[0])
        finite = np.isfinite(values[0]) & (values[0] != 0)
    else:
        hi, res = exact_sqrt(values[0])
        finite = np.isfinite(values[0])
    if kind == "f64":
        # rcp.rnd.ftz.f64, which ptxas takes and the ISA does not define,
        # keeps subnormals (measured on an H200: a caveat of the form).
        return round_f64(hi, res, mode, False, finite)
    out = round_to(hi, res, kind, mode, ftz=ftz)
    if ftz and family == "div":
        # div.ftz flushes a quotient that is subnormal before rounding, even
        # where rp or rm would round it up to the smallest normal (measured
        # on an H200: 0x800000 / 0x3f800001 under div.rp.ftz gives +0).
        smallest = np.ldexp(1.0, -126)
        tiny = (np.abs(hi) < smallest) | ((np.abs(hi) == smallest) & (np.sign(hi) * res < 0))
        out = np.where(tiny, np.copysign(0.0, hi), out)
    return encode(out, kind)


# The functions of the approximate forms, in float64 (within an ulp of
# float64: rounded to f32, f16 or bf16 they are the correctly rounded
# result but for ties no input reaches; f64's rcp and a quotient are
# IEEE 754's own, correctly rounded).
APPROXIMATED = {"ex2": np.exp2, "rcp": lambda a: 1.0 / a, "sqrt": np.sqrt, "rsqrt": lambda a: 1.0 / np.sqrt(a),
                "lg2": np.log2, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "div": np.divide}


# Approximate forms whose GPU results were tabulated (sfu.py): they run
# as the GPU computes them, bit for bit.
MEASURED = {"ex2.approx.ftz.f32"}


def approximate(opcode, family, kind, quals, srcs):
    """An approximate form (.approx, div.full): one of MEASURED as the GPU
    computes it (sfu.py); the others as their correctly rounded result
    (APPROXIMATED), rounded to nearest, .ftz flushing subnormal inputs and
    results. A GPU's result differs from those within the ISA's bound
    (tools/conformance/approx.py measures it); the interpreter says so."""
    if opcode in MEASURED:
        from .sfu import ex2_approx_ftz_f32
        result = ex2_approx_ftz_f32(decode(srcs[0], "f32"))
        with np.errstate(invalid="ignore"):
            return np.where(np.isnan(result), np.uint32(0x7FFFFFFF), encode(result, "f32")).astype(np.uint32)
    if family not in APPROXIMATED:
        raise NotCovered(f"{opcode} (an approximate form of {family})")
    if kind in LANES:
        return lanewise(lambda k, x, y: approximate(opcode, family, k, quals, [x] if y is None else [x, y]), kind,
                        *srcs)
    ftz = "ftz" in quals
    values = [decode(bits, kind) for bits in srcs]
    if ftz:
        values = [flush(v, kind) for v in values]
    with np.errstate(all="ignore"):
        exact = APPROXIMATED[family](*values)
    return encode(round_to(exact, 0.0, kind, "rn", ftz=ftz), kind)


def int_div(family, ty, a_bits, b_bits):
    """Integer div (truncating) and rem (the dividend's sign); a zero
    divisor leaves the result unspecified (PTX ISA), so it is not compared."""
    width = int(ty[1:])
    a, b = to_int(a_bits, ty), to_int(b_bits, ty)
    out = []
    for x, y in zip(a, b):
        if y == 0:
            out.append(0)
            continue
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        out.append(q if family == "div" else x - q * y)
    return Partial(from_int(out, width), np.array(b) != 0)


def copysign(kind, a_bits, b_bits):
    """copysign d, a, b: b with a's sign bit."""
    width = bits_of(kind)
    sign = np.uint64(1 << (width - 1))
    a, b = np.asarray(a_bits).astype(np.uint64), np.asarray(b_bits).astype(np.uint64)
    return ((b & ~sign) | (a & sign)).astype(UINT[width])


def testp(kind, quals, bits):
    value = decode(bits, kind)
    e, m, _ = FORMATS[kind]
    tiny = np.ldexp(1.0, 2 - (1 << (e - 1)))
    finite = np.isfinite(value)
    tests = {"finite": finite, "infinite": np.isinf(value), "number": ~np.isnan(value),
             # "As a special case, positive and negative zero are
             # considered normal numbers" (PTX ISA 9.0, testp).
             "notanumber": np.isnan(value), "normal": finite & ((np.abs(value) >= tiny) | (value == 0)),
             "subnormal": finite & (value != 0) & (np.abs(value) < tiny)}
    return next(tests[q] for q in quals if q in tests).astype(np.uint16)


# -- comparisons ------------------------------------------------------------------

ORDERED = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
UNSIGNED_NAMES = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}


def compare_values(cmp, ty, quals, a_bits, b_bits):
    """setp's comparison t of one lane: integers signed or unsigned by the
    type (lo/ls/hi/hs unsigned); floats ordered (false on NaN), unordered
    (the 'u' forms: true on NaN), num and nan."""
    if ty in INT_TYPES or ty in ("u16", "s16"):
        a = np.array(to_int(a_bits, ty if ty[0] == "s" else "u" + ty[1:]), dtype=object)
        b = np.array(to_int(b_bits, ty if ty[0] == "s" else "u" + ty[1:]), dtype=object)
        op = ORDERED[UNSIGNED_NAMES.get(cmp, cmp)]
        return np.array([bool(op(x, y)) for x, y in zip(a, b)])
    a, b = decode(a_bits, ty), decode(b_bits, ty)
    if "ftz" in quals:
        a, b = flush(a, ty), flush(b, ty)
    unordered = np.isnan(a) | np.isnan(b)
    if cmp == "num":
        return ~unordered
    if cmp == "nan":
        return unordered
    with np.errstate(invalid="ignore"):
        if cmp in ORDERED:
            return ORDERED[cmp](a, b) & ~unordered
        return ORDERED[cmp[:-1]](a, b) | unordered


COMBINE = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def comparison_of(quals):
    """setp's and set's comparison and boolean operation (or None)."""
    cmp = next(q for q in quals if q in ORDERED or q in UNSIGNED_NAMES or q in
               ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"))
    return cmp, next((q for q in quals if q in ("and", "or", "xor")), None)


def setp(form, types, quals, srcs):
    """Predicates of setp: p = t BoolOp c, and with p|q q = !t BoolOp c, or
    for a packed type the high lanes' comparison."""
    ty = types[0]
    cmp, bool_op = comparison_of(quals)
    c = np.asarray(srcs[2]).astype(bool) if bool_op else None
    if ty in LANES:
        kind, lane_bits, lanes = LANES[ty]
        parts = [compare_values(cmp, kind, quals, x, y)
                 for x, y in zip(split_lanes(srcs[0], lane_bits, lanes), split_lanes(srcs[1], lane_bits, lanes))]
        if bool_op:
            parts = [COMBINE[bool_op](t, c) for t in parts]
        return np.stack(parts, axis=-1).reshape(-1).astype(np.uint16)
    t = compare_values(cmp, ty, quals, srcs[0], srcs[1])
    p, q = (t, ~t) if not bool_op else (COMBINE[bool_op](t, c), COMBINE[bool_op](~t, c))
    if form.operands[0].count == 2:
        return np.stack([p, q], axis=-1).reshape(-1).astype(np.uint16)
    return p.astype(np.uint16)


# What set writes for true: all ones for an integer result, 1.0 for a
# float one (per 16-bit lane for a packed source); 0 for false.
SET_TRUE = {"u32": 0xFFFFFFFF, "s32": 0xFFFFFFFF, "u16": 0xFFFF, "s16": 0xFFFF, "f32": 0x3F800000,
            "f16": 0x3C00, "bf16": 0x3F80, "f16x2": 0x3C00, "bf16x2": 0x3F80}


def set_values(types, quals, srcs):
    """set.CmpOp{.BoolOp}.dtype.stype: setp's t (BoolOp c) as a value of
    dtype; a packed stype compares and writes each 16-bit lane apart."""
    dtype, stype = types
    cmp, bool_op = comparison_of(quals)
    c = np.asarray(srcs[2]).astype(bool) if bool_op else None
    if stype in LANES:
        kind, lane_bits, lanes = LANES[stype]
        true = SET_TRUE[dtype] if dtype in LANES else 0xFFFF
        parts = []
        for x, y in zip(split_lanes(srcs[0], lane_bits, lanes), split_lanes(srcs[1], lane_bits, lanes)):
            t = compare_values(cmp, kind, quals, x, y)
            t = COMBINE[bool_op](t, c) if bool_op else t
            parts.append(np.where(t, np.uint64(true), np.uint64(0)))
        return join_lanes(parts, lane_bits, lane_bits * lanes).astype(np.uint32)
    t = compare_values(cmp, stype, quals, srcs[0], srcs[1])
    t = COMBINE[bool_op](t, c) if bool_op else t
    return np.where(t, SET_TRUE[dtype], 0).astype(UINT[32 if dtype in ("u32", "s32", "f32") else 16])


# -- conversions ----------------------------------------------------------------

def convert_value(values, dst, quals, source_kind=None):
    """float64 (or Python int) values to `dst` bits under cvt's rules."""
    irnd = next((q for q in quals if q in ("rni", "rzi", "rmi", "rpi")), None)
    frnd = next((q for q in quals if q in ("rn", "rz", "rm", "rp", "rna")), None)
    if dst in INT_TYPES:
        lo, hi = int_range(dst)
        width = int(dst[1:])
        if isinstance(values, list):  # int -> int
            if "sat" in quals:
                values = [min(max(v, lo), hi) for v in values]
            return from_int(values, width)
        rounded = _round_integral(values, irnd)
        # PTX: NaN converts to 0, except from an .f64 source or to a 64-bit
        # destination, where it converts to 1 << (width - 1).
        nan_value = (1 << (width - 1)) if (source_kind == "f64" or width == 64) else 0
        out = []
        for v in rounded:
            v = float(v)
            if v != v:
                out.append(nan_value)
            elif v >= hi:
                out.append(hi)
            elif v <= lo:
                out.append(lo)
            else:
                out.append(int(v))
        return from_int(out, width)
    if isinstance(values, list):  # int -> float
        hi_vals = np.array([float(v) for v in values])
        res = np.array([(Fraction(v) > Fraction(float(v))) - (Fraction(v) < Fraction(float(v))) for v in values],
                       dtype=np.float64)
    else:
        hi_vals, res = values, np.zeros_like(values)
    kind = dst
    if irnd and dst in FLOAT_TYPES:  # round to an integral value, same type
        out = _round_integral(hi_vals, irnd)
        if "ftz" in quals:
            out = flush(out, kind)
        if "sat" in quals:
            out = np.where(np.isnan(out), 0.0, np.clip(out, 0.0, 1.0)) + 0.0
        return encode(out, kind)
    # ftz concerns f32 values only: the f32 source was flushed by the caller,
    # an f32 destination is flushed here.
    out = round_to(hi_vals, res, kind, frnd or "rn", ftz="ftz" in quals and kind == "f32",
                   sat="sat" in quals, satfinite="satfinite" in quals, relu="relu" in quals)
    return encode(out, kind)


def _round_integral(values, irnd):
    mode = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil, None: np.trunc}[irnd]
    with np.errstate(invalid="ignore"):
        return mode(values)


def cvt_pack(tokens, srcs):
    """cvt.pack: saturate a and b to the narrow type, b in the low bits, a
    above it; with c, the bits above come from the low bits of c."""
    narrow = next(t for t in tokens[2:] if t != "sat")
    size = int(narrow[1:])
    lo, hi = (-(1 << (size - 1)), (1 << (size - 1)) - 1) if narrow[0] == "s" else (0, (1 << size) - 1)
    mask = (1 << size) - 1
    a, b = to_int(srcs[0], "s32"), to_int(srcs[1], "s32")
    c = to_int(srcs[2], "u32") if len(srcs) > 2 else [0] * len(a)
    out = []
    for x, y, z in zip(a, b, c):
        packed = (min(max(y, lo), hi) & mask) | ((min(max(x, lo), hi) & mask) << size)
        if size < 16:
            packed |= (z << (2 * size)) & 0xFFFFFFFF
        out.append(packed)
    return from_int(out, 32)


def cvt(tokens, srcs):
    if tokens[1] == "pack":
        return cvt_pack(tokens, srcs)
    dst, src = tokens[-2], tokens[-1]
    quals = set(tokens[1:-2])
    if dst in ("f16x2", "bf16x2") and src == "f32":
        lane = dst[:-2]
        parts = []
        for bits in (srcs[1], srcs[0]):  # low half from the second source
            v = decode(bits, "f32")
            parts.append(convert_value(v, lane, quals))
        return join_lanes(parts, 16, 32)
    if dst in ("e4m3x2", "e5m2x2") and src in ("f32", "f16x2"):
        lane = dst[:-2]
        if src == "f32":
            values = [decode(srcs[1], "f32"), decode(srcs[0], "f32")]
        else:
            values = [decode(p, "f16") for p in split_lanes(srcs[0], 16, 2)]
        parts = [encode(round_to(v, 0, lane, "rn", satfinite=True, relu="relu" in quals), lane) for v in values]
        return join_lanes(parts, 8, 16)
    if dst == "f16x2" and src in ("e4m3x2", "e5m2x2"):
        lane = src[:-2]
        parts = [encode(round_to(decode(p, lane), 0, "f16", "rn", relu="relu" in quals), "f16")
                 for p in split_lanes(srcs[0], 8, 2)]
        return join_lanes(parts, 16, 32)
    if dst == "tf32" and src == "f32":
        mode = next(q for q in quals if q in ("rna", "rn", "rz"))
        v = round_to(decode(srcs[0], "f32"), 0, "tf32", mode, satfinite="satfinite" in quals,
                     relu="relu" in quals)
        return encode(v, "f32")
    if src in INT_TYPES and dst in INT_TYPES | FLOAT_TYPES:
        return convert_value(to_int(srcs[0], src), dst, quals)
    if src in FLOAT_TYPES:
        v = decode(srcs[0], src)
        # Measured on the H200, not the ISA's reading: ptxas (CUDA 13.0)
        # assembles cvt.{rm,rp}.ftz.f16.f32 as F2F.F16.F32 without FTZ, so the
        # input is not flushed (the table gives those forms a caveat, which
        # tile-expand reports as a warning).
        hardware_keeps_input = dst == "f16" and src == "f32" and ("rm" in quals or "rp" in quals)
        if "ftz" in quals and src == "f32" and not hardware_keeps_input:
            v = flush(v, "f32")
        return convert_value(v, dst, quals, source_kind=src)
    raise NotCovered("cvt." + ".".join(tokens[1:]))


# -- NaN results, as the H200 makes them ---------------------------------------
# PTX leaves a NaN result's bits to the implementation. These rules were
# learnt on an H200 (tools/conformance/nan_study.py over every float form of
# the conformance bundle, nan_study_h200.json; docs/conformance.md, NaN
# results) and test_nan_model.py checks them against every sampled lane.

# An f32, f16, bf16 or fp8 result that is NaN is the positive NaN of all
# ones, whatever the inputs (abs and neg included).
CANONICAL_NAN = {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF, "e4m3": 0x7F, "e5m2": 0x7F}
# An f64 result keeps a NaN input's sign and payload, quieted; a NaN made
# from numbers (inf - inf, 0 * inf, sqrt(-1)) is the negative default. Where
# several inputs are NaN, the study's samples had the first of this order of
# PTX source positions win, but a difftest kernel (seed 10003824, mul.rz.f64)
# had the other: ptxas commutes the operands of the SASS instruction, so
# which NaN wins is not the instruction's, and such a result is undefined.
F64_NAN_ORDER = {"add": (1, 0), "sub": (1, 0), "mul": (1, 0), "min": (1, 0), "max": (1, 0),
                 "div": (0, 1), "fma": (1, 2, 0), "mad": (1, 2, 0)}
F64_MADE_NAN = 0xFFF8000000000000
# Families whose result is bits of an input, not arithmetic.
NAN_KEEPING = {"mov", "selp", "slct", "copysign", "testp", "setp", "set", "ld", "ldu", "st"} | BIT_FAMILIES | INT_FAMILIES


def _quiet(bits, kind):
    return bits | np.uint64(1 << (FORMATS[kind][1] - 1))


def _repayload(bits, source, dest):
    """A NaN of format `source` as one of format `dest`: the sign kept, the
    payload's high bits moved to the top of the new mantissa, quieted."""
    es, ms, _ = FORMATS[source]
    ed, md, _ = FORMATS[dest]
    bits = np.asarray(bits).astype(np.uint64)
    sign = (bits >> np.uint64(es + ms)) & np.uint64(1)
    payload = bits & np.uint64((1 << ms) - 1)
    payload = payload << np.uint64(md - ms) if md >= ms else payload >> np.uint64(ms - md)
    top = np.uint64(((1 << ed) - 1) << md)
    return _quiet((sign << np.uint64(ed + md)) | top | payload, dest)


# Identities ptxas (CUDA 13.0, -O3) assembles as a move of the source, so a
# NaN result keeps the source's bits instead of the H200's canonical NaN;
# measured in SASS (no instruction issued; docs/conformance.md, NaN
# results): mul without rounding mode, .ftz or .sat by the constant 1.0, and
# plain min/max of one register with itself. With .rn, .ftz (an FADD.FTZ),
# .NaN, .xorsign.abs, bf16 min/max and packed pairs the instruction stays.
MOVE_FOLD_TYPES = {"mul": {"f16", "bf16", "f32", "f64"}, "min": {"f16", "f32", "f64"},
                   "max": {"f16", "f32", "f64"}}


def folds_to_a_move(opcode, constant_one, same_register):
    """Whether ptxas may assemble `opcode` as a move of a source: for mul,
    when a source is the constant 1.0 (`constant_one`); for min and max,
    when both sources are one register (`same_register`)."""
    family, *quals, ty = opcode.split(".")
    if quals or ty not in MOVE_FOLD_TYPES.get(family, ()):
        return False
    return constant_one if family == "mul" else same_register


TF32_DROPPED = 0x1FFF  # the 13 low bits of an f32 that tf32 does not keep
TF32_CANONICAL_NAN = 0x7FFFE000


def _tf32_nans(quals, src, out):
    """cvt.*.tf32.f32 of a NaN, measured on the H200 (nan_study.py and
    tools/gpu/tf32_nans.py): .rn and .rz give the positive NaN of all ones
    that tf32 holds; .rna truncates the source's bits (a signalling NaN whose
    payload lies in the dropped bits becomes an infinity), and
    .rna.satfinite then takes one tf32 unit off them, as it does to an
    infinity (to the largest finite value)."""
    src = np.asarray(src).astype(np.uint64)
    nan = np.isnan(decode(src, "f32"))
    if not nan.any():
        return out
    if "rna" not in quals:
        fixed = np.uint64(TF32_CANONICAL_NAN)
    else:
        fixed = src & ~np.uint64(TF32_DROPPED)
        if "satfinite" in quals:
            fixed = fixed - np.uint64(TF32_DROPPED + 1)
    out = np.asarray(out)
    return np.where(nan, fixed, out.astype(np.uint64)).astype(out.dtype)


def _nan_varies(family, dest, source, quals):
    """Whether a NaN result's bits depend on how ptxas assembles the form,
    so that the reference leaves them undefined (any NaN is right): a plain
    cvt.f32.f32 or cvt.f64.f64 is a move at -O3 (the source's bits) and an
    FADD/DADD at -O0 (the canonical or quieted NaN), and abs.f32 and
    neg.f32 are an FADD alone but a bit operation that keeps the payload
    where ptxas folds them into their neighbours (difftest seeds 10001978,
    10002000, 22003300; SASS here)."""
    if family == "cvt":
        return dest == source and dest in ("f32", "f64") and not quals
    return family in ("abs", "neg") and dest == "f32"


def hardware_nans(family, types, quals, srcs, out):
    """`out` with each NaN result as the H200 makes it (the rules above)."""
    if family in NAN_KEEPING or not types or isinstance(out, Partial):
        return out
    dest, source = types[0], types[-1]
    if dest in LANES:
        kind, lane_bits, lanes = LANES[dest]
        if kind not in CANONICAL_NAN:
            return out
        parts = split_lanes(np.asarray(out).astype(np.uint64), lane_bits, lanes)
        parts = [np.where(np.isnan(decode(p, kind)), np.uint64(CANONICAL_NAN[kind]), p) for p in parts]
        return join_lanes(parts, lane_bits, lane_bits * lanes).astype(np.asarray(out).dtype)
    if family == "cvt" and dest == "tf32":
        return _tf32_nans(quals, srcs[0], out)
    if dest not in FORMATS:
        return out
    out = np.asarray(out)
    nan = np.isnan(decode(out, dest))
    if not nan.any():
        return out
    wide = out.astype(np.uint64)
    if _nan_varies(family, dest, source, quals):
        return Partial(np.where(nan, np.uint64(CANONICAL_NAN.get(dest, F64_MADE_NAN)), wide).astype(out.dtype),
                       ~nan)
    if family == "cvt" and source in FORMATS and (source == "f64" or dest == "f64") and source != dest:
        # .ftz makes an f32 source's NaN the canonical one first
        src = np.uint64(CANONICAL_NAN[source]) if "ftz" in quals and source in CANONICAL_NAN else srcs[0]
        fixed = _repayload(src, source, dest)
    elif family == "cvt" and (dest, source) == ("f32", "bf16") and "ftz" not in quals:
        fixed = np.asarray(srcs[0]).astype(np.uint64) << np.uint64(16)  # moved as bits, not quieted
    elif dest in CANONICAL_NAN:
        fixed = np.uint64(CANONICAL_NAN[dest])
    elif dest == "f64":
        fixed = np.full(wide.shape, np.uint64(F64_MADE_NAN))
        nan_inputs = np.zeros(wide.shape, np.int64)
        for i in reversed(F64_NAN_ORDER.get(family, (0,))):
            bits = np.asarray(srcs[i]).astype(np.uint64)
            is_nan = np.isnan(decode(bits, "f64"))
            nan_inputs += is_nan
            fixed = np.where(is_nan, _quiet(bits, "f64"), fixed)
        result = np.where(nan, fixed, wide).astype(out.dtype)
        if (nan & (nan_inputs > 1)).any():
            return Partial(result, ~(nan & (nan_inputs > 1)))
        return result
    else:
        return out
    return np.where(nan, fixed, wide).astype(out.dtype)


def reference(form, srcs):
    """Expected destination bits of one form applied to source register bits."""
    tokens = form.opcode.split(".")
    types = [t for t in tokens[1:] if t in FORMATS or t in LANES or t in INT_TYPES or t in ("tf32", "pred")]
    quals = set(tokens[1:]) - set(types)
    return hardware_nans(form.family, types, quals, srcs, _values(form, tokens, types, quals, srcs))


def _values(form, tokens, types, quals, srcs):
    family = form.family
    if family == "mov":
        return srcs[0]
    if family in ("add", "sub", "mul"):
        if len(types) != 1:
            raise NotCovered(form.opcode)
        ty = types[0]
        if ty in INT_TYPES:
            return int_arith(family, ty, quals, srcs[0], srcs[1])
        if ty in ("u16x2", "s16x2"):
            return lanewise(lambda k, x, y: int_arith(family, k, quals, x, y).astype(np.uint64), ty, srcs[0], srcs[1])
        if ty in ("f16x2", "bf16x2"):
            return lanewise(lambda k, x, y: float_arith(family, k, quals, x, y).astype(np.uint64), ty,
                            srcs[0], srcs[1])
        if ty in FLOAT_TYPES:
            return float_arith(family, ty, quals, srcs[0], srcs[1])
    if family in ("abs", "neg"):
        return unary(family, types[0], quals, srcs[0])
    if family in ("fma", "mad") and len(srcs) == 3:
        ty = types[0]
        if ty in INT_TYPES:
            return int_mad(ty, quals, *srcs)
        if ty in LANES:
            kind, lane_bits, lanes = LANES[ty]
            parts = [fma(kind, quals, *lane) for lane in
                     zip(*(split_lanes(s, lane_bits, lanes) for s in srcs))]
            return join_lanes([p.astype(np.uint64) for p in parts], lane_bits, lane_bits * lanes)
        return fma(ty, quals, *srcs)
    if quals & APPROXIMATE:
        return approximate(form.opcode, family, types[0], quals, srcs)
    if family in ("div", "rem") and types[0] in INT_TYPES:
        return int_div(family, types[0], *srcs)
    if family in ("div", "sqrt", "rcp"):
        return rounded_math(family, types[0], quals, srcs)
    if family == "copysign":
        return copysign(types[0], *srcs)
    if family == "testp":
        return testp(types[0], quals, srcs[0])
    if family == "setp":
        return setp(form, types, quals, srcs)
    if family == "set":
        return set_values(types, quals, srcs)
    if family == "selp":
        return np.where(np.asarray(srcs[2]).astype(bool), srcs[0], srcs[1])
    if family in BIT_FAMILIES:
        return bit_reference(family, types[0], quals, srcs, getattr(form, "immediates", {}))
    if family in INT_FAMILIES:
        values, defined = int_reference(family, types, quals, srcs)
        return values if defined is None else Partial(values, defined)
    if family == "slct":
        return slct(types[1], quals, *srcs)
    if family in ("min", "max") and len(srcs) == 2:
        ty = types[0]
        if ty in INT_TYPES or ty in ("u16x2", "s16x2"):
            return int_minmax(family, ty, quals, *srcs)
        if ty in LANES:
            return lanewise(lambda k, x, y: float_minmax(family, k, quals, x, y).astype(np.uint64), ty, *srcs)
        return float_minmax(family, ty, quals, *srcs)
    if family == "cvt":
        return cvt(tokens, srcs)
    raise NotCovered(form.opcode)


# -- mma ----------------------------------------------------------------------

# Significand bits of each accumulator: a sum whose every partial sum is a
# multiple of one power of two 2^e and below 2^(bits) * 2^e is exact in any
# order of addition.
_ACCUMULATOR_BITS = {"f32": 24, "f16": 11, "f64": 53}


# Input kinds whose products are exact in float64 (at most 11 + 11
# significant bits, exponents within float64's normal range).
_NARROW_INPUTS = ("f16", "bf16", "tf32", "e4m3", "e5m2")
# Integer input kinds, and with s32 (C's) every integer kind of mma.
_INTEGER_INPUTS = ("s8", "u8", "s4", "u4")
_INTEGER_KINDS = _INTEGER_INPUTS + ("s32",)


def _negative(bits, kind):
    """Whether each element's sign bit is set (an integer kind: never), as
    a shape of `bits`."""
    bits = np.asarray(bits).astype(np.uint64)
    if kind in _INTEGER_KINDS:
        return np.zeros(bits.shape, dtype=bool)
    width = 32 if kind == "tf32" else bits_of(kind)
    return ((bits >> np.uint64(width - 1)) & np.uint64(1)).astype(bool)


def _element_values(bits, kind):
    """Element bit patterns of an mma input kind as exact Fractions, or
    None for one the model does not take (inf, NaN, a tf32 register whose
    low bits are not zero), flat."""
    if kind in _INTEGER_KINDS:
        return [Fraction(v) for v in _integer_values(bits, kind).reshape(-1).tolist()]
    return [Fraction(v) if v == v else None for v in _defined_values(bits, kind).reshape(-1).tolist()]


def mma(dtype, atype, btype, ctype, a, b, c, satfinite=False, rounding="rn"):
    """D = A B + C for one instruction of one warp (_mma_exact's model):
    in float64 arrays where every product and sum of the model is exact
    there (narrow inputs into an f16 or f32 accumulator), in int64 arrays
    for integers, else as exact Fractions."""
    if dtype in ("f16", "f32") and atype in _NARROW_INPUTS and btype in _NARROW_INPUTS and \
            ctype in ("f16", "f32"):
        return _mma_narrow(dtype, atype, btype, ctype, a, b, c, rounding)
    if dtype == "s32" and ctype == "s32" and atype in _INTEGER_INPUTS and btype in _INTEGER_INPUTS:
        return _mma_integer(atype, btype, a, b, c, satfinite)
    return _mma_exact(dtype, atype, btype, ctype, a, b, c, satfinite, rounding)


def _integer_values(bits, kind):
    """Element bit patterns of an integer kind as int64 values (its low
    bits, sign-extended where signed)."""
    width = int(kind[1:])
    values = np.asarray(bits).astype(np.int64) & ((1 << width) - 1)
    if kind[0] == "s":
        values = np.where(values >> (width - 1), values - (1 << width), values)
    return values


def _mma_integer(atype, btype, a, b, c, satfinite):
    """_mma_exact's model for integer inputs into s32, in int64 arrays
    (exact: K products below 2^16 each and C below 2^31), wrapping modulo
    2^32 or clamped with .satfinite."""
    total = _integer_values(a, atype) @ _integer_values(b, btype) + _integer_values(c, "s32")
    if satfinite:
        total = np.clip(total, -(1 << 31), (1 << 31) - 1)
    return (total & 0xFFFFFFFF).astype(np.uint32), np.ones(np.shape(total), dtype=bool)


def _defined_values(bits, kind):
    """Element bit patterns of a float input kind as float64, NaN where
    _element_values has None (inf, NaN, tf32 with low bits set)."""
    bits = np.asarray(bits).astype(np.uint64)
    values = decode(bits, "f32" if kind == "tf32" else kind)
    undefined = ~np.isfinite(values)
    if kind == "tf32":
        undefined |= (bits & np.uint64(0x1FFF)) != 0
    return np.where(undefined, np.nan, values)


def _mma_narrow(dtype, atype, btype, ctype, a, b, c, rounding):
    """_mma_exact's model for narrow inputs and an f16 or f32 accumulator,
    vectorized. Each product is exact in float64. A term's power of two
    (its 2-adic valuation) is read from its float64 significand. Where the
    model defines an element, every partial sum is a multiple of the grid
    below 2^p times it (p <= 24), so float64 sums it exactly; where the
    magnitudes reach that bound, the float64 sum of magnitudes reaches it
    too, as the bound is a power of two and rounding is monotone."""
    av, bv = _defined_values(a, atype), _defined_values(b, btype)
    return mma_of_values(dtype, (av, _negative(a, atype)), (bv, _negative(b, btype)), (c, ctype), rounding)


def values_and_signs(bits, kind):
    """(float64 values, NaN where undefined; sign bits) of a float input
    kind's element bit patterns, as mma_of_values takes an operand."""
    return _defined_values(bits, kind), _negative(bits, kind)


def mma_of_values(dtype, a, b, c, rounding="rn"):
    """_mma_narrow's sum of A's and B's values (each (float64 values, NaN
    where undefined; sign bits), exact products: a block-scaled mma's
    scaled elements) and C (bits, type) into an f16 or f32 D."""
    (av, a_negative), (bv, b_negative), (c, ctype) = a, b, c
    cv = _defined_values(c, ctype)
    # terms[i, j] = (C[i, j], A[i, 0] B[0, j], ..., A[i, K-1] B[K-1, j])
    terms = np.concatenate([cv[:, :, None], (av[:, :, None] * bv[None, :, :]).transpose(0, 2, 1)], axis=2)
    signs = np.concatenate([_negative(c, ctype)[:, :, None],
                            a_negative[:, None, :] ^ b_negative.T[None, :, :]], axis=2)
    undefined = np.isnan(terms)
    inputs_defined = ~undefined.any(axis=2)
    terms = np.where(undefined, 0.0, terms)
    nonzero = terms != 0
    mantissa, exponent = np.frexp(np.abs(terms))
    significand = (mantissa * 2.0 ** 53).astype(np.int64)
    lowest = significand & -significand
    valuation = exponent - 53 + np.frexp(lowest.astype(np.float64))[1] - 1
    # The coarsest grid every term is a multiple of, no coarser than 1.
    grid = np.minimum(np.where(nonzero, valuation, 0).min(axis=2), 0)
    magnitude = np.abs(terms).sum(axis=2)
    e, _, _ = FORMATS[dtype]
    within = (magnitude < np.ldexp(1.0, grid + _ACCUMULATOR_BITS[dtype])) & (grid >= 2 - (1 << (e - 1)))
    any_nonzero = nonzero.any(axis=2)
    defined = inputs_defined & (~any_nonzero | within)
    total = np.where(defined, terms.sum(axis=2), 0.0)
    every_negative_zero = ~any_nonzero & signs.all(axis=2)
    every_positive_zero = ~any_nonzero & ~signs.any(axis=2)
    negative = every_negative_zero | ((rounding == "rm") & ~every_positive_zero)
    total = np.where(total == 0, np.where(negative, -0.0, 0.0), total)
    width = {"f16": 16, "f32": 32}[dtype]
    bits = np.where(defined, encode(total, dtype).astype(np.uint64), np.uint64(0))
    return bits.astype(UINT[width]), defined


def _mma_exact(dtype, atype, btype, ctype, a, b, c, satfinite=False, rounding="rn"):
    """D = A B + C for one instruction of one warp, from the PTX ISA:
    `a` (M x K), `b` (K x N) and `c` (M x N) are element bit patterns.
    Integer forms are exact (wrapping modulo 2^32, or clamped with
    .satfinite). A float element is exact when every product and C are
    multiples of one power of two 2^e whose magnitudes sum below 2^p * 2^e
    (p: 24 for f32, 11 for f16, 53 for f64): then every partial sum, in any
    order the hardware adds them, is representable and the result is the
    exact one, rounded once (it is then exact too). Elsewhere, and where an
    input is inf or NaN, the ISA leaves the accumulation order and
    precision to the chip: the element is undefined (as where a partial sum
    could fall below the normal range). An exact zero has IEEE 754's sign:
    -0 where every term is -0, or with `rounding` rm where not every term
    is +0 (measured on the H200: f64 mma .rm of a sum that cancels is -0);
    +0 otherwise. Returns (bits,
    defined), both M x N."""
    a_vals = np.array(_element_values(a, atype), dtype=object).reshape(np.shape(a))
    b_vals = np.array(_element_values(b, btype), dtype=object).reshape(np.shape(b))
    c_vals = np.array(_element_values(c, ctype), dtype=object).reshape(np.shape(c))
    a_neg, b_neg, c_neg = _negative(a, atype), _negative(b, btype), _negative(c, ctype)
    rows, cols = np.shape(c)
    width = {"f16": 16, "f32": 32, "f64": 64, "s32": 32}[dtype]
    bits = np.zeros((rows, cols), dtype=np.uint64)
    defined = np.zeros((rows, cols), dtype=bool)
    for i in range(rows):
        for j in range(cols):
            terms = [c_vals[i, j]] + [x * y if x is not None and y is not None else None
                                      for x, y in zip(a_vals[i, :], b_vals[:, j])]
            if any(t is None for t in terms):
                continue
            total = sum(terms, Fraction(0))
            if dtype == "s32":
                value = int(total)
                if satfinite:
                    value = max(-(1 << 31), min((1 << 31) - 1, value))
                bits[i, j] = value & 0xFFFFFFFF
                defined[i, j] = True
                continue
            nonzero = [t for t in terms if t != 0]
            if nonzero:
                # The coarsest power of two every term is a multiple of.
                grid = min(Fraction(1, t.denominator) if t.denominator > 1 else Fraction(1) for t in nonzero)
                for t in nonzero:
                    while (t / grid).denominator != 1:
                        grid /= 2
                magnitude = sum(abs(t) for t in nonzero)
                # ... and no partial sum below the normal range, where a chip
                # may flush.
                e, _, _ = FORMATS[dtype]
                smallest_normal = Fraction(2) ** (2 - (1 << (e - 1)))
                if magnitude >= grid * (1 << _ACCUMULATOR_BITS[dtype]) or grid < smallest_normal:
                    continue
            exact = float(total)  # exact: representable by the bound above
            if total == 0:
                signs = [bool(c_neg[i, j])] + [bool(x ^ y) for x, y in zip(a_neg[i, :], b_neg[:, j])]
                every_negative_zero = not nonzero and all(signs)
                every_positive_zero = not nonzero and not any(signs)
                negative = every_negative_zero or (rounding == "rm" and not every_positive_zero)
                exact = -0.0 if negative else 0.0
            bits[i, j] = int(encode(np.array([exact]), dtype)[0])
            defined[i, j] = True
    return bits.astype(UINT[width]), defined
