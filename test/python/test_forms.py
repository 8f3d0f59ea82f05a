"""The form table's records: the operand model, the enumerator, and every
enumerated form judged by ptxas."""

import os
import shutil
import sys

import pytest

from tile_mlir import ptx

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "forms"))


def roles(form):
    return [(op.name, op.role, op.space, op.type, op.count) for op in form.operands]


def test_fma_has_three_sources_and_a_tied_accumulator_overload():
    plain, tied = ptx.overloads("fma.rn.f32")
    assert roles(plain) == [("dst", "dst", "reg", "f32", 1), ("a", "src", "reg", "f32", 1),
                            ("b", "src", "reg", "f32", 1), ("c", "src", "reg", "f32", 1)]
    assert roles(tied) == [("acc", "rw", "reg", "f32", 1), ("a", "src", "reg", "f32", 1),
                           ("b", "src", "reg", "f32", 1)]
    assert plain.lowered


def test_cp_async_has_two_memory_operands_and_an_immediate():
    ca = ptx.parse("cp.async.ca.shared.global")
    assert roles(ca) == [("dst", "dst", "shared", "b8", 1), ("src", "src", "global", "b8", 1),
                         ("cp-size", "imm", "reg", "u32", 1)]
    assert ca.operands[0].sized_by == ca.operands[1].sized_by == "cp-size"
    assert ca.operands[2].immediates == (4, 8, 16)
    assert ptx.parse("cp.async.cg.shared.global").operands[2].immediates == (16,)
    assert (ca.min_sm, ca.min_ptx, ca.reads_memory, ca.writes_memory) == (80, 70, True, True)


def test_mma_fragments_are_register_groups_of_different_counts():
    plain, tied = ptx.overloads("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    assert roles(plain) == [("d", "dst", "reg", "f32", 4), ("a", "src", "reg", "f16x2", 4),
                            ("b", "src", "reg", "f16x2", 2), ("c", "src", "reg", "f32", 4)]
    assert roles(tied)[0] == ("acc", "rw", "reg", "f32", 4)
    assert plain.warp_collective
    f16 = ptx.parse("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")
    assert [op.count for op in f16.operands] == [2, 4, 2, 2]


@pytest.mark.parametrize("spelling, shape, matrices", [
    # (name, PTX type of the matrix's elements, their bits) of d, a/a-desc, b-desc.
    ("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", (64, 128, 16),
     [("d", "f32", 32), ("a-desc", "bf16", 16), ("b-desc", "bf16", 16)]),
    ("wgmma.mma_async.sync.aligned.m64n24k32.f16.e5m2.e4m3", (64, 24, 32),
     [("d", "f16", 16), ("a-desc", "e5m2", 8), ("b-desc", "e4m3", 8)]),
    ("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", (64, 8, 8),
     [("d", "f32", 32), ("a-desc", "tf32", 32), ("b-desc", "tf32", 32)]),
    ("wgmma.mma_async.sync.aligned.m64n256k32.s32.u8.s8", (64, 256, 32),
     [("d", "s32", 32), ("a-desc", "u8", 8), ("b-desc", "s8", 8)]),
    ("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc", (64, 16, 256),
     [("d", "s32", 32), ("a-desc", "b1", 1), ("b-desc", "b1", 1)])])
def test_wgmma_forms_give_their_shape_and_each_matrix_elements(spelling, shape, matrices):
    # The PTX ISA's wgmma.mma_async.sync.aligned.shape.dtype.atype.btype
    # (9.7.15.5.2): the descriptors are b64 and A's registers b32 whatever
    # the elements, which only the form's types name.
    for form in ptx.overloads(spelling):
        assert form.matrix_shape == shape
        named = [(op.name, op.matrix_type, op.matrix_bits) for op in form.operands if op.matrix_type]
        if form.operands[1].name == "a":  # A in registers: the same elements
            assert form.operands[1].type in ("f16x2", "bf16x2", "b32")
            matrices = [matrices[0], ("a",) + matrices[1][1:], matrices[2]]
        assert named == matrices
        assert [op.matrix_bits for op in form.operands if not op.matrix_type] == [0] * (len(form.operands) - 3)


@pytest.mark.parametrize("spelling, shape", [
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", (16, 8, 16)),
    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", (8, 8, 4)),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", None), ("add.rn.f32", None)])
def test_a_form_has_a_matrix_shape_where_its_shape_names_m_n_and_k(spelling, shape):
    assert ptx.parse(spelling).matrix_shape == shape


@pytest.mark.parametrize("spelling, message", [
    ("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32",
     "'col' must follow 'row' in mma.f32.f16.f16.f32: the first layout is A's (row), the second B's (col)"),
    ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32",
     "'f16.f16.f16.f32' are not the types of any mma.m16n8k16 form: it multiplies f16 (f32.f16.f16.f32 "
     "or f16.f16.f16.f16), bf16 (f32.bf16.bf16.f32), s8/u8 (s32.s8.u8.s32, ...), e4m3/e5m2 "
     "(f32.e4m3.e5m2.f32, f16.e4m3.e4m3.f16, ...) or f64 (f64.f64.f64.f64)"),
    ("mma.sync.aligned.m16n8k4.row.col.f32.f16.f16.f32",
     "'f32.f16.f16.f32' are not the types of any mma.m16n8k4 form: it multiplies tf32 "
     "(f32.tf32.tf32.f32) or f64 (f64.f64.f64.f64)"),
    ("mma.sync.aligned.row.col.f32.f16.f16.f32",
     "mma.f32.f16.f16.f32 names no shape: expected mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c> with a "
     "shape of m16n8k4, m16n8k8, m16n8k16, m16n8k32, m16n8k64, m8n8k4, m8n8k16 or m8n8k32"),
    ("mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32",
     "'satfinite' is not a qualifier of mma.f32.f16.f16.f32: expected sync, aligned, m16n8k16, row, col"),
    ("mma.aligned.m16n8k16.row.col.f32.f16.f16.f32",
     "mma.f32.f16.f16.f32 needs 'sync'"),
    ("cp.async.ca.global.shared",
     "'global' must follow the destination space in cp.async: cp.async copies from global to "
     "shared memory (cp.async.ca.shared.global)"),
    ("fma.f32", "fma.f32 needs a rounding mode: one of rn, rz, rm, rp"),
    ("fma.rn.sat.f64", "'sat' is not a qualifier of fma.f64: expected rounding mode (rn, rz, rm, rp)"),
])
def test_record_diagnostics_name_the_token_and_what_is_legal(spelling, message):
    with pytest.raises(ptx.PTXFormError) as error:
        ptx.parse(spelling)
    assert str(error.value) == message


def test_enumerated_forms_parse_to_themselves():
    for family in ptx.table_families():
        for spelling in ptx.forms(family):
            assert ptx.parse(spelling).opcode == spelling


def test_mul_modes_come_first_in_enumerated_spellings():
    assert "mul.wide.s32" in ptx.forms("mul")
    assert not any(s.endswith((".lo", ".hi", ".wide")) for s in ptx.forms("mul"))
    assert "mul.wide.s64" not in ptx.forms("mul")


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs ptxas")
def test_every_enumerated_form_agrees_with_ptxas():
    import enumerated_ptxas
    # Every form but ld/st's 41,798 (a sample of 2,000 here; all of them in
    # tools/forms/results/enumerated_ptxas.json).
    assert enumerated_ptxas.main(["--sample", "2000"]) == 0


def test_st_param_ends_before_the_targets_ptxas_crashes_on():
    # ptxas 13.0 assembles a kernel's st.param for sm_75 and sm_80 and ends
    # with SIGSEGV for sm_90 and sm_100a (tools/forms/results).
    assert ptx.parse("st.param.b32", target="sm_80").operands[0].space == "param"
    with pytest.raises(ptx.PTXFormError) as error:
        ptx.parse("st.param.b32", target="sm_90")
    assert str(error.value) == "st.param.b32 requires a target up to sm_89, but the target is sm_90"
    assert ptx.parse("ld.param.b32", target="sm_90").operands[1].space == "param"
