"""Reference semantics of PTX's remaining integer instructions (mul24,
mad24, sad, dp4a, dp2a, bmsk, szext, fns, shf) and of slct, written from
the PTX ISA 9.0 pseudo-code. Sources arrive as numpy arrays of unsigned
bit patterns; each function returns the destination's, or a Partial where
the ISA leaves a result undefined (fns past bit 31).
"""

from __future__ import annotations

import numpy as np

from .reference_bits import as_ints, signed, to_bits

INT_FAMILIES = {"mul24", "mad24", "sad", "dp4a", "dp2a", "bmsk", "szext", "fns", "shf"}
MASK32 = (1 << 32) - 1


def _int24(value, is_signed):
    """The low 24 bits of a 32-bit register, sign-extended for s32."""
    low = value & 0xFFFFFF
    return signed(low, 24) if is_signed else low


def mul24(ty, quals, a, b):
    """The 48-bit product's bits 47..16 (.hi) or 31..0 (.lo), as an
    unsigned 32-bit value."""
    is_signed = ty == "s32"
    out = []
    for x, y in zip(a, b):
        t = (_int24(x, is_signed) * _int24(y, is_signed)) & ((1 << 48) - 1)
        out.append(t >> 16 if "hi" in quals else t)
    return [v & MASK32 for v in out]


def mad24(ty, quals, a, b, c):
    """The half of mul24 plus c; .hi.sat.s32 adds them as signed values
    and clamps to the s32 range."""
    half = mul24(ty, quals, a, b)
    if "sat" in quals:
        sums = [signed(h, 32) + signed(z, 32) for h, z in zip(half, c)]
        return [min(max(v, -(1 << 31)), (1 << 31) - 1) for v in sums]
    return [h + z for h, z in zip(half, c)]


def sad(ty, a, b, c):
    """c + |a - b| in the type's width (wrapping)."""
    width = int(ty[1:])
    if ty[0] == "s":
        a, b = [signed(x, width) for x in a], [signed(y, width) for y in b]
    return [z + abs(x - y) for x, y, z in zip(a, b, c)]


def _parts(value, width, count, is_signed):
    return [signed(value >> (width * i) & ((1 << width) - 1), width) if is_signed
            else value >> (width * i) & ((1 << width) - 1) for i in range(count)]


def dot(family, types, quals, a, b, c):
    """dp4a: c plus the dot product of a's and b's four bytes; dp2a: c plus
    the dot product of a's two 16-bit halves and b's bytes 0-1 (.lo) or
    2-3 (.hi). Each part is signed when its operand's type is s32."""
    a_signed, b_signed = types[0] == "s32", types[1] == "s32"
    out = []
    for x, y, z in zip(a, b, c):
        vb = _parts(y, 8, 4, b_signed)
        if family == "dp4a":
            va = _parts(x, 8, 4, a_signed)
        else:
            va = _parts(x, 16, 2, a_signed)
            vb = vb[2:] if "hi" in quals else vb[:2]
        out.append(z + sum(p * q for p, q in zip(va, vb)))
    return out


def bmsk(quals, a, b):
    """A mask of b bits from bit a; .clamp: a position of 32 or more gives
    0 and a width of 32 or more reaches bit 31; .wrap: both mod 32."""
    out = []
    for x, y in zip(a, b):
        a1, b1 = x & 0x1F, y & 0x1F
        mask0 = (MASK32 << a1) & MASK32
        total = a1 + b1
        overflow = total >= 32
        if "clamp" in quals:
            if x >= 32:
                mask0, overflow = 0, True
            if y >= 32:
                overflow = True
        if overflow:
            mask1 = 0
        elif b1 == 0:
            mask1 = MASK32
        else:
            mask1 = (MASK32 << total) & MASK32
        out.append(mask0 & ~mask1)
    return out


def szext(ty, quals, a, b):
    """a's low b bits, sign- (s32) or zero-extended (u32); b mod 32 with
    .wrap; with .clamp a b of 32 or more keeps all of a."""
    out = []
    for x, y in zip(a, b):
        b1 = y & 0x1F
        too_large = y >= 32 and "clamp" in quals
        mask = 0 if too_large else (MASK32 << b1) & MASK32
        sign = ty == "s32" and b1 != 0 and not too_large and x >> ((b1 - 1) & 0x1F) & 1
        out.append((x & ~mask) | (mask if sign else 0))
    return out


def fns(mask, base, offset):
    """The position of mask's |offset|-th set bit from base, upward for a
    positive offset and downward for a negative one (offset 0: base itself
    if set), else 0xffffffff. A base past 31 is undefined (not compared)."""
    out, defined = [], []
    for m, start, off in zip(mask, base, offset):
        off = signed(off, 32)
        defined.append(start <= 31)
        found = MASK32
        if start > 31:
            pass
        elif off == 0:
            found = start if m >> start & 1 else MASK32
        else:
            step, count, pos = (1 if off > 0 else -1), abs(off) - 1, start
            while 0 <= pos < 32:
                if m >> pos & 1:
                    if count == 0:
                        found = pos
                        break
                    count -= 1
                pos += step
        out.append(found)
    return out, defined


def shf(quals, a, b, c):
    """The 64-bit b:a shifted by c (.clamp: at most 32; .wrap: c mod 32):
    .l keeps the high 32 bits, .r the low."""
    out = []
    for lo, hi, n in zip(a, b, c):
        n = min(n, 32) if "clamp" in quals else n & 0x1F
        joined = hi << 32 | lo
        out.append((joined << n) >> 32 if "l" in quals else joined >> n)
    return out


def int_reference(family, types, quals, srcs):
    """Destination bits of one of INT_FAMILIES: an unsigned array of the
    destination's width, and for fns where each is defined."""
    args = [as_ints(s) for s in srcs]
    ty = types[-1]
    if family == "fns":
        values, defined = fns(*args)
        return to_bits(values, 32), np.array(defined, dtype=bool)
    if family == "sad":
        return to_bits(sad(ty, *args), int(ty[1:])), None
    if family in ("dp4a", "dp2a"):
        return to_bits(dot(family, types, quals, *args), 32), None
    if family == "mul24":
        return to_bits(mul24(ty, quals, *args), 32), None
    if family == "mad24":
        return to_bits(mad24(ty, quals, *args), 32), None
    if family == "bmsk":
        return to_bits(bmsk(quals, *args), 32), None
    if family == "szext":
        return to_bits(szext(ty, quals, *args), 32), None
    if family == "shf":
        return to_bits(shf(quals, *args), 32), None
    raise KeyError(family)


def slct(selector_type, quals, a_bits, b_bits, c_bits):
    """slct: a where c >= 0, else b, copied unchanged. An s32 c compares as
    an integer; an f32 c as a float, so -0 selects a and NaN b; with .ftz a
    subnormal c counts as a zero of its sign (a)."""
    c = np.asarray(c_bits).astype(np.uint32)
    if selector_type == "s32":
        pick_a = (c >> np.uint32(31)) == 0
    else:
        exponent, mantissa = (c >> np.uint32(23)) & np.uint32(0xFF), c & np.uint32(0x7FFFFF)
        negative = (c >> np.uint32(31)) == 1
        nan = (exponent == 0xFF) & (mantissa != 0)
        zero = (exponent == 0) & ((mantissa == 0) | ("ftz" in quals))
        pick_a = ~nan & (~negative | zero)
    return np.where(pick_a, a_bits, b_bits)



def _half_product(ty, quals, a, b, width):
    """mad's and madc's .lo or .hi half of a * b (signed for s types), as
    an unsigned pattern of `width` bits."""
    if ty[0] == "s":
        a, b = [signed(x, width) for x in a], [signed(y, width) for y in b]
    mask = (1 << width) - 1
    return [(x * y >> width if "hi" in quals else x * y) & mask for x, y in zip(a, b)]


def carry_reference(family, ty, quals, srcs, carry_in):
    """(destination, carry-out) of a form in a carry chain: add.cc, sub.cc,
    mad.{lo,hi}.cc, and addc, subc, madc (with or without .cc). The flag is
    the adder's carry: a subtraction a - b is a + ~b + 1, so sub.cc leaves
    1 where nothing is borrowed, and subc is a + ~b + CC.CF. In a chain of
    subtractions that is the ISA's d = a - (b + borrow); a chain that mixes
    additions and subtractions reads the flag as the GPU does (measured on
    an H100, tools/gpu/carry_check.py). `carry_in` is None for the forms
    that read none."""
    width = int(ty[1:])
    mask = (1 << width) - 1
    args = [as_ints(s) for s in srcs]
    cin = as_ints(carry_in) if carry_in is not None else [None] * len(args[0])
    if family in ("add", "addc"):
        sums = [x + y + (c or 0) for x, y, c in zip(args[0], args[1], cin)]
    elif family in ("sub", "subc"):
        sums = [x + (~y & mask) + (1 if c is None else c) for x, y, c in zip(args[0], args[1], cin)]
    else:  # mad, madc
        half = _half_product(ty, quals, args[0], args[1], width)
        sums = [h + z + (c or 0) for h, z, c in zip(half, args[2], cin)]
    values = np.array([v & mask for v in sums], dtype=np.uint64)
    return values, np.array([v >> width for v in sums], dtype=np.uint64)
