"""Which element of a matrix each lane's register holds in an mma.sync
fragment: the PTX ISA's tables ("Matrix Fragments for mma.m16n8k*",
PTX ISA 9.0, 9.7.14.5.x), written out as formulas.

Notation of the ISA: for lane l, ``group = l >> 2`` and ``thread = l % 4``
(threadID_in_group). A fragment's elements are numbered i = 0, 1, ... in
register order, the elements of one register from its low bits up (two
16-bit values, four 8-bit values, eight 4-bit values, or one 32/64-bit
value per register). ``element(shape, operand, kind, i, lane)`` gives the
(row, column) of element i of `lane`: A is M x K (row major, ``.row``), B is
K x N (``.col``: the ISA indexes it (row = k, col = n)), C and D are M x N.

The interpreter (machine.py) multiplies with these tables, the Python front
end's ``T.mma_coordinates`` emits them as index arithmetic, and
docs/families/mma.md prints them; tools/gpu's mma check runs them on the
H200.
"""

from __future__ import annotations

from typing import Tuple

from . import ptx

# Bits of one element of each input kind; accumulators are f16, f32, s32
# or f64.
ELEMENT_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8,
                "s4": 4, "u4": 4, "f64": 64, "f32": 32, "s32": 32}


def shape_of(opcode: str) -> Tuple[int, int, int]:
    """(M, N, K) of an mma.sync spelling, as the form table reads it. A
    wgmma's fragments are a warpgroup's, laid out otherwise (its D rows
    follow the warp): these tables are not theirs, so its spelling is
    refused."""
    form = ptx.parse(opcode)
    if form.family != "mma" or form.matrix_shape is None:
        raise ValueError(f"{opcode} is a {form.family} form, not an mma.sync: these are mma.sync's fragment "
                         "tables (PTX ISA 9.7.14.5)")
    return form.matrix_shape


def kinds_of(opcode: str) -> Tuple[str, str, str, str]:
    """The d, a, b, c type tokens of an mma spelling."""
    return tuple(opcode.split(".")[-4:])


def per_register(kind: str) -> int:
    """Elements one register of the fragment holds."""
    return max(1, 32 // ELEMENT_BITS[kind]) if kind != "f64" else 1


def element(shape: Tuple[int, int, int], operand: str, kind: str, i: int, lane: int) -> Tuple[int, int]:
    """(row, column) of element i of `lane`'s fragment of `operand` ("a",
    "b", "c" or "d"; c and d share theirs) for an mma of `shape` whose
    inputs (a, b) or accumulator (c, d) are of `kind`."""
    m, n, k = shape
    group, thread = lane >> 2, lane % 4
    if operand in ("c", "d"):
        # Two elements per row pair, rows g and g + 8 (one row for m8n8).
        return group + 8 * (i // 2), 2 * thread + i % 2
    bits = ELEMENT_BITS[kind]
    if operand == "a":
        if bits == 16:
            # (g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..)
            return group + 8 * ((i // 2) % 2), 2 * thread + i % 2 + 8 * (i // 4)
        if bits == 8:
            if m == 8:
                return group, 4 * thread + i
            return group + 8 * ((i // 4) % 2), 4 * thread + i % 4 + 16 * (i // 8)
        if bits == 4:
            if m == 8:
                return group, 8 * thread + i
            return group + 8 * ((i // 8) % 2), 8 * thread + i % 8 + 32 * (i // 16)
        # One 32- or 64-bit element per register (tf32, f64).
        if m == 8:
            return group, thread
        return group + 8 * (i % 2), thread + 4 * (i // 2)
    if operand == "b":
        if bits == 16:
            return 2 * thread + i % 2 + 8 * (i // 2), group
        if bits == 8:
            return 4 * thread + i % 4 + 16 * (i // 4), group
        if bits == 4:
            return 8 * thread + i % 8 + 32 * (i // 8), group
        return thread + 4 * i, group
    raise ValueError(f"an mma has no operand {operand!r}")


def wgmma_d_place(e: int, warp, lane) -> Tuple[int, int]:
    """(row, column) of element e (in f32 order: register e) of a wgmma D
    fragment in thread `lane` of warp `warp` of the warpgroup: warp w holds
    rows 16w to 16w + 15 as an m16n8 D fragment does, one such fragment a
    block of 8 columns (PTX ISA 9.7.15.5.1). `warp` and `lane` may be index
    expressions."""
    row, col = element((16, 8, 16), "d", "f32", e % 4, lane)
    return 16 * warp + row, 8 * (e // 4) + col


def fragment_size(shape: Tuple[int, int, int], operand: str) -> int:
    """Elements per lane: A holds M*K/32, B K*N/32, C and D M*N/32."""
    m, n, k = shape
    return {"a": m * k, "b": k * n, "c": m * n, "d": m * n}[operand] // 32


def table(opcode: str, operand: str):
    """{(lane, i): (row, column)} for every element of one operand's
    fragment of an mma spelling."""
    shape = shape_of(opcode)
    d, a, b, c = kinds_of(opcode)
    kind = {"a": a, "b": b, "c": c, "d": d}[operand]
    return {(lane, i): element(shape, operand, kind, i, lane)
            for lane in range(32) for i in range(fragment_size(shape, operand))}
