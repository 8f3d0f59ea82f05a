"""tcgen05.mma's instruction descriptor against the PTX ISA's field table
(9.7.16.4.2), decoded here bit by bit, independently of the encoder."""

import pytest

from tile_mlir.tcgen05 import DescriptorError, instruction_descriptor

F16 = "tcgen05.mma.cta_group::1.kind::f16"


def field(word, low, width):
    return (word >> low) & ((1 << width) - 1)


def decode(word, block_scaled=False):
    """The ISA's fields, by bit position (block-scaled: tables 43 and 44,
    M >> 7 in bits 27-28 and bits 24-26 reserved)."""
    out = {"sparse": field(word, 0, 3), "a": field(word, 7, 3), "b": field(word, 10, 3),
           "negate_a": field(word, 13, 1), "negate_b": field(word, 14, 1), "a_mn": field(word, 15, 1),
           "b_mn": field(word, 16, 1), "n": field(word, 17, 6) << 3, "m": field(word, 24, 5) << 4}
    if block_scaled:
        out.update(b_scale_id=field(word, 4, 2), scale_type=field(word, 23, 1), a_scale_id=field(word, 29, 2),
                   m=field(word, 27, 2) << 7, reserved=field(word, 24, 3) | field(word, 6, 1))
    else:
        out.update(saturate=field(word, 3, 1), d=field(word, 4, 2), max_shift=field(word, 30, 2),
                   reserved=field(word, 6, 1) | field(word, 23, 1) | field(word, 29, 1))
    return out


def test_bf16_into_f32():
    word = instruction_descriptor(F16, d="f32", a="bf16", b="bf16", m=128, n=256)
    assert word == 0x08400490
    assert decode(word) == {"sparse": 0, "a": 1, "b": 1, "negate_a": 0, "negate_b": 0, "a_mn": 0, "b_mn": 0,
                            "n": 256, "m": 128, "saturate": 0, "d": 1, "max_shift": 0, "reserved": 0}


@pytest.mark.parametrize("kind, d, a, b, codes", [
    ("kind::f16", "f16", "f16", "f16", (0, 0, 0)),
    ("kind::tf32", "f32", "tf32", "tf32", (1, 2, 2)),
    ("kind::f8f6f4", "f16", "e4m3", "e5m2", (0, 0, 1)),
    ("kind::f8f6f4", "f32", "e2m3", "e3m2", (1, 3, 4)),
    ("kind::f8f6f4", "f32", "e2m1", "e4m3", (1, 5, 0)),
    ("kind::i8", "s32", "s8", "u8", (2, 1, 0)),
])
def test_type_codes(kind, d, a, b, codes):
    word = instruction_descriptor(f"tcgen05.mma.cta_group::2.{kind}", d=d, a=a, b=b, m=256, n=16)
    fields = decode(word)
    assert (fields["d"], fields["a"], fields["b"], fields["m"], fields["n"]) == (*codes, 256, 16)


def test_majors_negation_saturation_and_shift():
    fields = decode(instruction_descriptor(F16, d="f32", a="f16", b="f16", m=64, n=8, a_major="MN", b_major="MN",
                                           negate_a=True, negate_b=True))
    assert (fields["a_mn"], fields["b_mn"], fields["negate_a"], fields["negate_b"]) == (1, 1, 1, 1)
    fields = decode(instruction_descriptor("tcgen05.mma.cta_group::1.kind::i8", d="s32", a="s8", b="s8", m=128,
                                           n=64, saturate=True))
    assert fields["saturate"] == 1
    fields = decode(instruction_descriptor("tcgen05.mma.ws.cta_group::1.kind::f16", d="f32", a="f16", b="f16",
                                           m=64, n=128, max_shift=16))
    assert fields["max_shift"] == 2


def test_block_scaled():
    word = instruction_descriptor("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X", d="f32",
                                  a="e2m1", b="e2m1", m=128, n=128, scale_type="ue8m0", a_scale_id=2, b_scale_id=0)
    assert decode(word, block_scaled=True) == {
        "sparse": 0, "a": 1, "b": 1, "negate_a": 0, "negate_b": 0, "a_mn": 0, "b_mn": 0, "n": 128, "m": 128,
        "b_scale_id": 0, "scale_type": 1, "a_scale_id": 2, "reserved": 0}
    word = instruction_descriptor("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16", d="f32",
                                  a="e2m1", b="e2m1", m=256, n=64, scale_type="ue4m3")
    assert decode(word, block_scaled=True)["m"] == 256 and field(word, 23, 1) == 0 and field(word, 24, 3) == 0
    word = instruction_descriptor("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale", d="f32", a="e4m3",
                                  b="e2m1", m=128, n=64, scale_type="ue8m0", a_scale_id=3, b_scale_id=1)
    assert decode(word, block_scaled=True)["scale_type"] == 1 and field(word, 7, 3) == 0 and field(word, 10, 3) == 5
    assert (field(word, 29, 2), field(word, 4, 2), field(word, 27, 2), field(word, 24, 3)) == (3, 1, 1, 0)


# The ISA's scale ids (9.7.16.10.7.2): 1X a byte 0-3, 2X the half-word at
# byte 0 or 2, 4X the word (id 0); ue4m3 scales with 4X only.
@pytest.mark.parametrize("vector, ids", [("scale_vec::2X", (0, 2)), ("block32", (0, 2)), ("scale_vec::4X", (0,)),
                                         ("block16", (0,))])
def test_the_scale_ids_a_vector_takes(vector, ids):
    opcode = f"tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.{vector}"
    for ident in range(4):
        for name in ("a_scale_id", "b_scale_id"):
            make = lambda: instruction_descriptor(opcode, d="f32", a="e2m1", b="e2m1", m=128, n=64,
                                                  scale_type="ue8m0", **{name: ident})
            if ident in ids:
                make()
            else:
                with pytest.raises(DescriptorError, match=f"{name} is {ident}: a scale vector of"):
                    make()


def test_ue4m3_scales_take_a_vector_of_four():
    with pytest.raises(DescriptorError, match=r"scale_type is 'ue4m3', which takes a scale vector of 4"):
        instruction_descriptor("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X", d="f32",
                               a="e2m1", b="e2m1", m=128, n=64, scale_type="ue4m3")


@pytest.mark.parametrize("m", [64, 192])
def test_a_block_scaled_m_is_128_or_256(m):
    with pytest.raises(DescriptorError, match=f"m is {m}: a block-scaled descriptor holds M >> 7, M 128 or 256"):
        instruction_descriptor("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale", d="f32", a="e4m3", b="e4m3",
                               m=m, n=64, scale_type="ue8m0")


def test_reading_a_block_scaled_descriptor():
    from tile_mlir.tcgen05 import decode_instruction_descriptor
    base = instruction_descriptor("tcgen05.mma.cta_group::1.kind::mxf4.block_scale", d="f32", a="e2m1", b="e2m1",
                                  m=128, n=64, scale_type="ue8m0")
    # Bit 31 of the mxf4 kinds: a dense K of 96.
    assert (decode_instruction_descriptor("kind::mxf4", base).k96,
            decode_instruction_descriptor("kind::mxf4", base | 1 << 31).k96) == (False, True)
    # M written as the dense kinds' M >> 4 (64: bit 26) sets a reserved bit.
    with pytest.raises(DescriptorError, match="bits 24-26 of a kind::mxf4 descriptor are reserved"):
        decode_instruction_descriptor("kind::mxf4", base | 1 << 26)
    with pytest.raises(DescriptorError, match=r"M field \(bits 27-28\) is 3"):
        decode_instruction_descriptor("kind::mxf4", base | 3 << 27)


@pytest.mark.parametrize("opcode, fields, message", [
    (F16, dict(d="f16", a="bf16", b="bf16"), "bf16 multiplies into f32 only"),
    (F16, dict(d="f32", a="e4m3", b="e4m3"), "a is 'e4m3', which tcgen05.mma.cta_group::1.kind::f16 does not take"),
    ("tcgen05.mma.cta_group::1.kind::i8", dict(d="f32", a="s8", b="s8"), "d is 'f32'"),
    ("tcgen05.mma.cta_group::1.kind::f8f6f4", dict(d="f32", a="e2m1", b="e4m3", a_major="MN"),
     "a_major is 'MN', which e2m1 operands do not take"),
    (F16, dict(d="f32", a="f16", b="f16", saturate=True), "only kind::i8 saturates"),
    ("tcgen05.mma.cta_group::1.kind::i8", dict(d="s32", a="s8", b="s8", negate_a=True), "not negated"),
    (F16, dict(d="f32", a="f16", b="f16", max_shift=8), "only tcgen05.mma.ws shifts B"),
    ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale", dict(d="f32", a="e4m3", b="e4m3", scale_type="ue4m3"),
     "scale_type is 'ue4m3'"),
    (F16, dict(d="f32", a="f16", b="f16", scale_type="ue8m0"), "is not block-scaled"),
    ("tcgen05.ld.sync.aligned.32x32b.x1.b32", dict(d="f32", a="f16", b="f16"), "takes no instruction descriptor"),
])
def test_refusals_name_the_field(opcode, fields, message):
    with pytest.raises(DescriptorError, match=message.replace(".", r"\.").replace("(", r"\(")):
        instruction_descriptor(opcode, **{"m": 128, "n": 64, **fields})


@pytest.mark.parametrize("m, n, message", [(100, 64, "m is 100"), (512, 64, "m is 512"), (128, 12, "n is 12"),
                                           (128, 264, "n is 264")])
def test_shape_fields(m, n, message):
    with pytest.raises(DescriptorError, match=message):
        instruction_descriptor(F16, d="f32", a="f16", b="f16", m=m, n=n)


@pytest.mark.parametrize("kind, d, elements", [
    ("kind::f16", "f32", ("f16", "bf16")), ("kind::f16", "f16", ("f16",)), ("kind::tf32", "f32", ("tf32",)),
    ("kind::f8f6f4", "f32", ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")), ("kind::i8", "s32", ("s8", "u8"))])
def test_the_interpreter_reads_back_what_the_builder_writes(kind, d, elements):
    # decode_instruction_descriptor (what the interpreter's tcgen05.mma
    # reads) inverts instruction_descriptor for every type pair, shape,
    # major and negation of the dense kinds.
    from tile_mlir.tcgen05 import decode_instruction_descriptor
    opcode = f"tcgen05.mma.cta_group::1.{kind}"
    for a in elements:
        for b in elements:
            for m, n, majors, negate in ((128, 256, ("K", "MN"), False), (64, 8, ("MN", "K"), True)):
                if (majors[0] == "MN" and a not in ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8")) or \
                        (majors[1] == "MN" and b not in ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8")):
                    continue
                negate = negate and kind != "kind::i8"
                word = instruction_descriptor(opcode, d=d, a=a, b=b, m=m, n=n, a_major=majors[0], b_major=majors[1],
                                              negate_a=negate)
                fields = decode_instruction_descriptor(kind, word)
                assert (fields.d, fields.a, fields.b, fields.m, fields.n, fields.a_major, fields.b_major,
                        fields.negate_a, fields.negate_b) == (d, a, b, m, n, *majors, negate, False), (a, b, m)


@pytest.mark.parametrize("kind, scale_type, vector, ids", [
    ("kind::mxf8f6f4", "ue8m0", "", range(4)), ("kind::mxf4", "ue8m0", ".scale_vec::2X", (0, 2)),
    ("kind::mxf4nvf4", "ue4m3", ".scale_vec::4X", (0,))])
def test_the_interpreter_reads_back_a_block_scaled_descriptor(kind, scale_type, vector, ids):
    # A block-scaled idesc: D f32 (no D field), the scale type (bit 23),
    # A's scale id (bits 29-30) and B's (bits 4-5), every id the vector
    # takes, M 128 and 256.
    from tile_mlir.tcgen05 import decode_instruction_descriptor
    opcode = f"tcgen05.mma.cta_group::1.{kind}.block_scale{vector}"
    element = "e4m3" if kind == "kind::mxf8f6f4" else "e2m1"
    for a_id in ids:
        for b_id, m in zip(ids[::-1], (128, 256, 128, 256)):
            word = instruction_descriptor(opcode, d="f32", a=element, b=element, m=m, n=64, scale_type=scale_type,
                                          a_scale_id=a_id, b_scale_id=b_id)
            fields = decode_instruction_descriptor(kind, word)
            assert (fields.d, fields.a, fields.b, fields.m, fields.n, fields.scales, fields.k96) == \
                ("f32", element, element, m, 64, (scale_type, a_id, b_id), False), (a_id, b_id)


def test_a_code_no_type_has_is_refused():
    from tile_mlir.tcgen05 import decode_instruction_descriptor
    with pytest.raises(DescriptorError, match="the descriptor's a code 7 is no type kind::f16 takes"):
        decode_instruction_descriptor("kind::f16", 7 << 7 | 1 << 4)
