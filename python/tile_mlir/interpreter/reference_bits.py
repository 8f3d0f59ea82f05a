"""Reference semantics of PTX's integer and bit instructions (logic, shifts,
bit fields, lop3, prmt, integer min/max), written from the PTX ISA 9.0
pseudo-code. Values are Python integers of the operand's width; the caller
passes and receives numpy arrays of unsigned bit patterns.
"""

from __future__ import annotations

import numpy as np

UINT = {1: np.uint16, 16: np.uint16, 32: np.uint32, 64: np.uint64}

BIT_FAMILIES = {"and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfind",
                "bfe", "bfi", "prmt", "lop3"}


def as_ints(bits):
    """Bit patterns as Python integers (the integer semantics' values)."""
    return [int(v) for v in np.asarray(bits).astype(np.uint64)]


def signed(value, width):
    """A `width`-bit pattern read as two's complement."""
    return value - (1 << width) if value >> (width - 1) & 1 else value


def to_bits(values, width):
    """Python integers as unsigned `width`-bit patterns (wrapping)."""
    mask = (1 << width) - 1
    return np.array([v & mask for v in values], dtype=np.uint64).astype(UINT[width])


def _shift(family, ty, a, b):
    width = int(ty[1:])
    # Shift amounts past the width are clamped to it.
    if family == "shl":
        return [x << min(s, width) for x, s in zip(a, b)]
    if ty[0] == "s":
        return [signed(x, width) >> min(s, width) for x, s in zip(a, b)]
    return [x >> min(s, width) for x, s in zip(a, b)]


def _bfind(ty, shiftamt, a):
    width = int(ty[1:])
    out = []
    for x in a:
        if ty[0] == "s" and x >> (width - 1) & 1:
            x = ~x & ((1 << width) - 1)  # the most significant bit unlike the sign
        pos = x.bit_length() - 1
        if pos < 0:
            out.append(0xFFFFFFFF)
        else:
            out.append(width - 1 - pos if shiftamt else pos)
    return out


def _field(width, pos, length):
    """The ISA takes the low 8 bits of a bit field's position and length.
    Measured on an H200: ptxas 13.0's 64-bit bfe and bfi use all 32 (the
    table's caveat on them says so)."""
    return (pos, length) if width == 64 else (pos & 0xFF, length & 0xFF)


def _bfe(ty, a, b, c):
    msb = int(ty[1:]) - 1
    out = []
    for x, pos, length in zip(a, b, c):
        pos, length = _field(msb + 1, pos, length)
        sbit = 0 if ty[0] == "u" or length == 0 else x >> min(pos + length - 1, msb) & 1
        d = 0
        for i in range(msb + 1):
            bit = x >> (pos + i) & 1 if i < length and pos + i <= msb else sbit
            d |= bit << i
        out.append(d)
    return out


def _bfi(ty, a, b, c, d):
    msb = int(ty[1:]) - 1
    out = []
    for x, base, pos, length in zip(a, b, c, d):
        pos, length = _field(msb + 1, pos, length)
        f = base
        i = 0
        while i < length and pos + i <= msb:
            f = (f & ~(1 << (pos + i))) | ((x >> i & 1) << (pos + i))
            i += 1
        out.append(f)
    return out


# prmt's modes: for c[1:0] = 0..3, the source bytes of d's bytes 0..3 (the
# ISA's table lists them from byte 3 down).
PRMT_MODES = {
    "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
    "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
    "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
    "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
    "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
    "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
}


def _prmt(mode, a, b, c):
    out = []
    for x, y, sel in zip(a, b, c):
        source = [(x | y << 32) >> (8 * k) & 0xFF for k in range(8)]
        d = 0
        for k in range(4):
            if mode:
                byte = source[PRMT_MODES[mode][sel & 3][k]]
            else:
                nibble = sel >> (4 * k) & 0xF
                byte = source[nibble & 7]
                if nibble & 8:  # replicate the selected byte's sign
                    byte = 0xFF if byte & 0x80 else 0
            d |= byte << (8 * k)
        out.append(d)
    return out


def _lop3(lut, a, b, c):
    mask = 0xFFFFFFFF
    out = []
    for x, y, z in zip(a, b, c):
        d = 0
        for index in range(8):
            if lut >> index & 1:
                d |= ((x if index & 4 else ~x) & (y if index & 2 else ~y) & (z if index & 1 else ~z)) & mask
        out.append(d)
    return out


def bit_reference(family, ty, quals, srcs, immediates):
    """Destination bits of a logic, shift or bit-field instruction; a
    predicate (.pred) is a 1-bit value."""
    width = 1 if ty == "pred" else int(ty[1:])
    args = [as_ints(s) for s in srcs]
    if family in ("and", "or", "xor"):
        op = {"and": int.__and__, "or": int.__or__, "xor": int.__xor__}[family]
        return to_bits([op(x, y) for x, y in zip(*args)], width)
    if family == "not":
        return to_bits([~x for x in args[0]], width)
    if family == "cnot":
        return to_bits([int(x == 0) for x in args[0]], width)
    if family in ("shl", "shr"):
        return to_bits(_shift(family, ty, *args), width)
    if family == "popc":
        return to_bits([bin(x).count("1") for x in args[0]], 32)
    if family == "clz":
        return to_bits([width - x.bit_length() for x in args[0]], 32)
    if family == "brev":
        return to_bits([int(format(x, f"0{width}b")[::-1], 2) for x in args[0]], width)
    if family == "bfind":
        return to_bits(_bfind(ty, "shiftamt" in quals, args[0]), 32)
    if family == "bfe":
        return to_bits(_bfe(ty, *args), width)
    if family == "bfi":
        return to_bits(_bfi(ty, *args), width)
    if family == "prmt":
        mode = next((q for q in quals if q in PRMT_MODES), None)
        return to_bits(_prmt(mode, *args), 32)
    if family == "lop3":
        return to_bits(_lop3(next(iter(immediates.values())), *args), 32)
    raise KeyError(family)


def int_minmax(family, ty, quals, a_bits, b_bits):
    """min/max of integers, and of 16-bit lanes (u16x2, s16x2), with .relu
    clamping negative results to 0."""
    lanes = 2 if ty.endswith("x2") else 1
    lane_ty = ty[:-2] if lanes == 2 else ty
    lane_width = int(lane_ty[1:])
    pick = min if family == "min" else max
    out = []
    for x, y in zip(as_ints(a_bits), as_ints(b_bits)):
        d = 0
        for lane in range(lanes):
            u = x >> (lane * lane_width) & ((1 << lane_width) - 1)
            v = y >> (lane * lane_width) & ((1 << lane_width) - 1)
            if lane_ty[0] == "s":
                u, v = signed(u, lane_width), signed(v, lane_width)
            r = pick(u, v)
            if "relu" in quals:
                r = max(r, 0)
            d |= (r & ((1 << lane_width) - 1)) << (lane * lane_width)
        out.append(d)
    return to_bits(out, lane_width * lanes)
