"""tcgen05.mma's instruction descriptor (idesc, a b32 operand; PTX ISA 9.0,
9.7.16.4.2), built from the instruction's form and its operands' element
types, never written by hand:

    idesc = instruction_descriptor("tcgen05.mma.cta_group::1.kind::f16",
                                   d="f32", a="bf16", b="bf16", m=128, n=256)
    T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], d_tmem, a_desc, b_desc,
                      T.uint32(idesc), accumulate)

Fields (the dense kinds; the block-scaled ones differ where noted):

    bits 0-1   sparsity selector (0: dense)      bit 2  sparsity (0)
    bit 3      saturate (kind::i8)               bits 4-5  D's type: f16 0, f32 1, s32 2
                                                           (block-scaled: B's scale id)
    bits 7-9   A's type                          bits 10-12  B's type
    bit 13     negate A                          bit 14  negate B
    bit 15     A MN-major (transposed)           bit 16  B MN-major
    bits 17-22 N >> 3                            bit 23  (block-scaled: the scale type,
                                                          ue4m3 0, ue8m0 1)
    bits 24-28 M >> 4                            bits 30-31  .ws's maximum shift
    (block-scaled: bits 27-28 M >> 7, 24-26 0)   (block-scaled: bits 29-30 A's scale id;
                                                  mxf4 kinds: bit 31 a dense K of 96)

The element types per kind are the ISA's: f16 and bf16 (D f16 or f32;
bf16 into f32 only), tf32 (D f32), e4m3 / e5m2 / e2m3 / e3m2 / e2m1 (D f16
or f32), s8 / u8 (D s32); block-scaled mxf8f6f4 the same five, mxf4 and
mxf4nvf4 e2m1 (D f32). MN-major operands are 16-bit, tf32, e4m3, e5m2 or
8-bit integers. A block-scaled kind's M is 128 or 256 (its field holds M >>
7), and its scale ids are those of its scale vector (PTX ISA 9.7.16.10.7:
1X any byte 0-3, 2X the half-word at byte 0 or 2, 4X the whole word, id
0; ue4m3 scales with 4X only). The (M, N) pairs a CTA group takes are not
checked yet beyond what the fields hold (M a multiple of 16 to 256, N of 8
to 256); docs/families/tcgen05.md.
"""

from __future__ import annotations

from typing import Optional

from . import ptx

_FLOAT16 = {"f16": 0, "bf16": 1, "tf32": 2}
_FP8F6F4 = {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}
_INT8 = {"u8": 0, "s8": 1}
# kind -> (A/B type codes, D type codes).
_KINDS = {
    "kind::f16": ({"f16": 0, "bf16": 1}, {"f16": 0, "f32": 1}),
    "kind::tf32": ({"tf32": 2}, {"f32": 1}),
    "kind::f8f6f4": (_FP8F6F4, {"f16": 0, "f32": 1}),
    "kind::i8": (_INT8, {"s32": 2}),
    "kind::mxf8f6f4": (_FP8F6F4, {"f32": 1}),
    "kind::mxf4": ({"e2m1": 1}, {"f32": 1}),
    "kind::mxf4nvf4": ({"e2m1": 1}, {"f32": 1}),
}
_MN_MAJOR = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"}
# The scale factors' type per block-scaled kind: MX kinds ue8m0; NVFP4
# (mxf4nvf4) ue4m3 or ue8m0.
_SCALE_TYPES = {"kind::mxf8f6f4": {"ue8m0": 1}, "kind::mxf4": {"ue8m0": 1},
                "kind::mxf4nvf4": {"ue4m3": 0, "ue8m0": 1}}
_MAX_SHIFTS = {0: 0, 8: 1, 16: 2, 32: 3}
# A block-scaled kind's M field: bits 27-28, M >> 7.
_SCALED_M = {128: 1, 256: 2}


def scale_vector(opcode: str) -> int:
    """A block-scaled tcgen05.mma's scale factors per row of an mma's K
    (PTX ISA 9.7.16.10.7.1): `.scale_vec::NX` N; `.block16` 4; `.block32`
    or no size 1 for kind::mxf8f6f4 and 2 for kind::mxf4 and mxf4nvf4 (a
    dense K of 64; the form table requires a size of mxf4nvf4)."""
    tokens = opcode.split(".")
    sized = [t for t in tokens if t.startswith("scale_vec::")]
    if sized:
        return int(sized[0][len("scale_vec::"):-1])
    if "block16" in tokens:
        return 4
    return 1 if "kind::mxf8f6f4" in tokens else 2


def check_block_scales(vector: int, scale_type: str, ids) -> None:
    """The scales a scale vector of `vector` factors takes (the builder's
    and the interpreter's one rule): ue4m3 with 4 only, and each scale id
    of `ids` ((name, id) pairs) the byte (1X), the half-word at byte 0 or
    2 (2X) or the word (4X) the factors are in."""
    if scale_type == "ue4m3" and vector != 4:
        raise DescriptorError(f"scale_type is 'ue4m3', which takes a scale vector of 4 (.scale_vec::4X or "
                              f".block16), not {vector}")
    for name, ident in ids:
        if ident not in range(0, 4, vector):
            raise DescriptorError(f"{name} is {ident!r}: a scale vector of {vector} takes "
                                  f"{' or '.join(map(str, range(0, 4, vector)))}")


class DescriptorError(ValueError):
    """An instruction descriptor the form cannot take, naming the field."""


def _kind_of(form: ptx.Form) -> str:
    if form.family != "tcgen05" or not form.opcode.startswith("tcgen05.mma"):
        raise DescriptorError(f"{form.opcode} takes no instruction descriptor: tcgen05.mma and "
                              "tcgen05.mma.ws do")
    return next(t for t in form.opcode.split(".") if t.startswith("kind::"))


def _code(table: dict, value: str, name: str, opcode: str) -> int:
    if value not in table:
        raise DescriptorError(f"{name} is {value!r}, which {opcode} does not take: one of "
                              f"{', '.join(sorted(table))}")
    return table[value]


def _shape_fields(m: int, n: int) -> int:
    if not (isinstance(m, int) and 16 <= m <= 256 and m % 16 == 0):
        raise DescriptorError(f"m is {m!r}: the descriptor holds M >> 4, a multiple of 16 from 16 to 256")
    if not (isinstance(n, int) and 8 <= n <= 256 and n % 8 == 0):
        raise DescriptorError(f"n is {n!r}: the descriptor holds N >> 3, a multiple of 8 from 8 to 256")
    return (n >> 3) << 17 | (m >> 4) << 24


def instruction_descriptor(opcode: str, *, d: str, a: str, b: str, m: int, n: int, a_major: str = "K",
                           b_major: str = "K", negate_a: bool = False, negate_b: bool = False,
                           saturate: bool = False, max_shift: int = 0, scale_type: Optional[str] = None,
                           a_scale_id: int = 0, b_scale_id: int = 0) -> int:
    """The 32-bit idesc of `opcode` (a tcgen05.mma or .ws spelling) for D,
    A and B of these PTX element types, an M x N result and the operands'
    majors ("K" or "MN"); a bad field raises DescriptorError naming it."""
    form = ptx.parse(opcode)
    kind = _kind_of(form)
    inputs, outputs = _KINDS[kind]
    block_scaled = kind.startswith("kind::mx")
    word = _code(inputs, a, "a", opcode) << 7 | _code(inputs, b, "b", opcode) << 10
    d_code = _code(outputs, d, "d", opcode)
    if kind == "kind::f16" and d == "f16" and "bf16" in (a, b):
        raise DescriptorError(f"d is 'f16', but bf16 multiplies into f32 only ({opcode})")
    for name, major, element in (("a_major", a_major, a), ("b_major", b_major, b)):
        if major not in ("K", "MN"):
            raise DescriptorError(f"{name} is {major!r}: 'K' or 'MN'")
        if major == "MN" and element not in _MN_MAJOR:
            raise DescriptorError(f"{name} is 'MN', which {element} operands do not take (16-bit, tf32, "
                                  "e4m3, e5m2 and 8-bit integers do)")
    word |= (a_major == "MN") << 15 | (b_major == "MN") << 16
    if (negate_a or negate_b) and kind == "kind::i8":
        raise DescriptorError(f"negate_a/negate_b: {opcode} multiplies integers, which are not negated")
    word |= bool(negate_a) << 13 | bool(negate_b) << 14
    if saturate and kind != "kind::i8":
        raise DescriptorError(f"saturate: only kind::i8 saturates its s32 D, not {kind}")
    word |= bool(saturate) << 3
    word |= _shape_fields(m, n) if not block_scaled else _scaled_shape_fields(m, n)
    ws = ".ws." in opcode + "."
    if max_shift and not ws:
        raise DescriptorError(f"max_shift is {max_shift}: only tcgen05.mma.ws shifts B")
    word |= _code(_MAX_SHIFTS, max_shift, "max_shift", opcode) << 30
    if not block_scaled:
        if scale_type is not None or a_scale_id or b_scale_id:
            raise DescriptorError(f"scale_type/a_scale_id/b_scale_id: {opcode} is not block-scaled")
        return word | d_code << 4
    # Block-scaled: no D type field; the scale type and each scale's id.
    word |= _code(_SCALE_TYPES[kind], scale_type, "scale_type", opcode) << 23
    check_block_scales(scale_vector(opcode), scale_type, (("a_scale_id", a_scale_id), ("b_scale_id", b_scale_id)))
    return word | a_scale_id << 29 | b_scale_id << 4


def _scaled_shape_fields(m: int, n: int) -> int:
    if m not in _SCALED_M:
        raise DescriptorError(f"m is {m!r}: a block-scaled descriptor holds M >> 7, M 128 or 256")
    return _shape_fields(m, n) & ~(0x1F << 24) | _SCALED_M[m] << 27


class InstructionFields:
    """What an instruction descriptor says (decode_instruction_descriptor):
    D's, A's and B's PTX element types, M and N, the majors, the
    negations, the saturation and .ws's maximum shift."""

    def __init__(self, d, a, b, m, n, a_major, b_major, negate_a, negate_b, saturate, max_shift=0, scales=None,
                 k96=False):
        self.d, self.a, self.b, self.m, self.n = d, a, b, m, n
        self.a_major, self.b_major = a_major, b_major
        self.negate_a, self.negate_b, self.saturate = negate_a, negate_b, saturate
        self.max_shift = max_shift
        # Block-scaled: (the scales' type, A's scale id, B's scale id).
        self.scales = scales
        self.k96 = k96  # kind::mxf4 and mxf4nvf4: a dense K of 96 (bit 31), not 64


def decode_instruction_descriptor(kind: str, word: int) -> InstructionFields:
    """The fields of an idesc, read back through the tables
    instruction_descriptor writes with (a block-scaled kind's D is f32,
    its scale type and ids in `scales`); a code no type has raises
    DescriptorError naming the field."""
    if kind not in _KINDS:
        raise DescriptorError(f"{kind}: no tcgen05.mma kind")
    inputs, outputs = _KINDS[kind]

    def named(table, code, field):
        found = [name for name, value in table.items() if value == code]
        if not found:
            raise DescriptorError(f"the descriptor's {field} code {code} is no type {kind} takes")
        return found[0]
    block_scaled = kind.startswith("kind::mx")
    fields = InstructionFields(
        d="f32" if block_scaled else named(outputs, word >> 4 & 3, "d"), a=named(inputs, word >> 7 & 7, "a"),
        b=named(inputs, word >> 10 & 7, "b"), m=(word >> 24 & 0x1F) << 4, n=(word >> 17 & 0x3F) << 3,
        a_major="MN" if word >> 15 & 1 else "K", b_major="MN" if word >> 16 & 1 else "K",
        negate_a=bool(word >> 13 & 1), negate_b=bool(word >> 14 & 1), saturate=bool(word >> 3 & 1),
        max_shift=0 if block_scaled else named(_MAX_SHIFTS, word >> 30 & 3, "max_shift"))
    return _block_scaled_fields(kind, word, fields, named) if block_scaled else fields


def _block_scaled_fields(kind, word, fields, named):
    """A block-scaled idesc's own fields (PTX ISA tables 43 and 44): M >> 7
    in bits 27-28 (24-26 reserved), the scale type and ids, and for the
    mxf4 kinds B's type in bits 10-11 and a dense K of 96 in bit 31."""
    if word >> 24 & 7:
        raise DescriptorError(f"bits 24-26 of a {kind} descriptor are reserved (M >> 7 is bits 27-28), "
                              f"and set: {word:#010x}")
    m = [m for m, code in _SCALED_M.items() if code == word >> 27 & 3]
    if not m:
        raise DescriptorError(f"the descriptor's M field (bits 27-28) is {word >> 27 & 3}: M >> 7, 1 (M 128) "
                              "or 2 (M 256)")
    fields.m = m[0]
    if kind != "kind::mxf8f6f4":
        fields.b = named(_KINDS[kind][0], word >> 10 & 3, "b")
        fields.k96 = bool(word >> 31 & 1)
    fields.scales = (named(_SCALE_TYPES[kind], word >> 23 & 1, "scale_type"), word >> 29 & 3, word >> 4 & 3)
    return fields
