"""st.async (PTX ISA 9.0, 9.7.9.12) and red.async (9.7.13.7): registers
stored (or reduced atomically) into the shared memory of a block of the
cluster, the bytes' transaction completed on that block's mbarrier. The
table's records (judged by tools/ptxas_diff), the emission as written, and
the interpreter: the bytes land where the ISA says once the phase
completes; a read before the wait, a misaligned address and an mbarrier of
another block are reported at their lines."""

import os
import re
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
import async_reduce_check as R  # noqa: E402
import async_store_check as S  # noqa: E402

V2_B32 = {"opcode": "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32", "type": "b32", "count": 2}


def test_the_record_is_the_isas():
    form = ptx.parse("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.f32")
    assert [(o.name, o.role, o.space, o.count, o.bits) for o in form.operands] == [
        ("a", "dst", "shared::cluster", 4, 32), ("b", "src", "reg", 4, 32), ("mbar", "dst", "shared::cluster", 1, 64)]
    assert (form.min_sm, form.min_ptx) == (90, 81)
    # The qualifiers in any order, as ptxas takes them.
    assert ptx.parse("st.async.b64.mbarrier::complete_tx::bytes.cluster.shared::cluster").operands[1].bits == 64
    for spelling, message in (
            ("st.async.weak.cluster.shared::cluster.mbarrier::complete_tx::bytes.b32",
             "'weak' cannot be combined with '.cluster' in st.async.b32: a weak store has no scope"),
            ("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b64",
             "'v4' is not available for st.async.b64: st.async moves at most 128 bits"),
            ("st.async.shared::cluster.b32", "st.async.b32 needs 'mbarrier::complete_tx::bytes'"),
            ("st.async.shared::cluster.mbarrier::complete_tx::bytes.b16", "b16")):
        with pytest.raises(ptx.PTXFormError, match=re.escape(message)):
            ptx.parse(spelling)


def test_each_form_lands_in_the_other_block_bit_for_bit():
    entries = S.entries()
    # 3 orderings (none, .weak, .cluster) x (8 types + 8 two-element + 4
    # four-element 32-bit vectors).
    assert len(entries) == 3 * 20
    for entry in entries:
        given, want = S.case(entry, seed=3)
        out = np.zeros_like(want)
        tile_mlir.interpret(S.kernel(entry), given, out)
        assert np.array_equal(out.view(f"uint{out.itemsize * 8}"), want.view(f"uint{want.itemsize * 8}")), entry


def test_the_emission_is_the_written_line_and_assembles():
    compiled = tile_mlir.compile(S.kernel(V2_B32), target="sm_90a")
    lines = [line.strip() for line in compiled.ptx.splitlines() if "st.async" in line]
    assert len(lines) == 1 and re.fullmatch(
        r"st\.async\.shared::cluster\.mbarrier::complete_tx::bytes\.v2\.b32\s+\[%rd\d+\], \{%r\d+, %r\d+\}, "
        r"\[%rd\d+\];", lines[0])
    assert compiled.ptx.count("mapa.shared::cluster.u64") == 2  # the buffer's and the mbarrier's
    entry = next(e for e in R.entries() if e["operation"] == "min" and e["type"] == "s32")
    compiled = tile_mlir.compile(R.kernel(entry), target="sm_90a")
    lines = [line.strip() for line in compiled.ptx.splitlines() if "red.async" in line]
    assert len(lines) == 1 and re.fullmatch(rf"{re.escape(entry['opcode'])}\s+\[%rd\d+\], %r\d+, \[%rd\d+\];",
                                            lines[0])


def test_reading_before_the_wait_is_a_hazard():
    given, _ = S.case(V2_B32, seed=0)
    with pytest.raises(tile_mlir.HazardError, match=r"ld.shared.v2.b32 touches the shared buffer of .*, which the "
                                                    r"st.async.* at .*async_store_check.py:\d+ has not delivered"):
        tile_mlir.interpret(S.kernel(V2_B32, wait=False), given, np.zeros_like(given))


def test_bytes_short_of_the_expected_never_complete_the_phase():
    # Each mbarrier expects one more element than the threads store: the
    # phase never completes and the wait's loop is reported.
    given, _ = S.case(V2_B32, seed=0)
    with pytest.raises(tile_mlir.InterpretError, match=r"async_store_check.py:\d+: this loop never ends: .*an mbarrier "
                                                       r"with every arrival made still expects 4 bytes"):
        tile_mlir.interpret(S.kernel(V2_B32, expected_bytes=S.THREADS * 8 + 4), given, np.zeros_like(given))


@pytest.mark.parametrize("misuse, message", [
    ("misaligned", r"async_store_check.py:\d+: st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32: thread "
                   r"64's address is 4 bytes past a multiple of 8, the bytes it stores \(the ISA requires the "
                   r"alignment\)"),
    ("past", r"async_store_check.py:\d+: st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32: thread 64 "
             r"stores past the shared buffer of .*async_store_check.py:\d+"),
    ("other_mbarrier", r"async_store_check.py:\d+: st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32: "
                       r"thread 0's mbarrier is in block 0 and its address in block 1: the ISA requires both in the "
                       r"same block")])
def test_what_the_isa_requires_is_a_fault_at_the_line(misuse, message):
    given, _ = S.case(V2_B32, seed=0)
    with pytest.raises(tile_mlir.InterpretError, match=message):
        tile_mlir.interpret(S.kernel(V2_B32, misuse=misuse), given, np.zeros_like(given))


def test_a_generic_address_into_the_blocks_own_memory_lands_there():
    # Without .shared::cluster the address is generic: the issuing
    # block's own buffer and mbarrier, so D holds each block's own rows.
    entry = {"opcode": "st.async.mbarrier::complete_tx::bytes.v2.b32", "type": "b32", "count": 2}
    given, _ = S.case(entry, seed=4)
    out = np.zeros_like(given)
    tile_mlir.interpret(S.kernel(entry, misuse="generic"), given, out)
    assert np.array_equal(out, given)
    with pytest.raises(tile_mlir.InterpretError, match=r"async_store_check.py:\d+: st.async.mbarrier::complete_tx::"
                                                       r"bytes.v2.b32: its a is not in shared memory \(D\): the ISA "
                                                       r"defines st.async and red.async there only"):
        tile_mlir.interpret(S.kernel(entry, misuse="global"), given, np.zeros_like(given))


def test_another_blocks_memory_needs_the_cluster_space():
    entry = {"opcode": "st.async.mbarrier::complete_tx::bytes.b32", "type": "b32", "count": 1}
    with pytest.raises(T.TileError, match=r"async_store_check.py:\d+: 'tile.apply' op a: expected a memref "
                                                  r"in the generic address space \(0\) for st.async.mbarrier::"
                                                  r"complete_tx::bytes.b32, got .*; another block's shared memory "
                                                  r"\(tile.mapa\) is addressed only through .shared::cluster"):
        S.kernel(entry)


def test_the_reduction_record_is_the_isas():
    form = ptx.parse("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64")
    assert [(o.name, o.role, o.space, o.count, o.bits) for o in form.operands] == [
        ("a", "dst", "shared::cluster", 1, 64), ("b", "src", "reg", 1, 64), ("mbar", "dst", "shared::cluster", 1, 64)]
    assert (form.min_sm, form.min_ptx) == (90, 81)
    for spelling, message in (
            ("red.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32", "red.async.u32 needs 'relaxed'"),
            ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.s32",
             "'inc' is not a qualifier of red.async.s32"),
            ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s64",
             "'s64' is not a type of red.async")):
        with pytest.raises(ptx.PTXFormError, match=re.escape(message)):
            ptx.parse(spelling)


def test_each_reduction_lands_as_the_isa_says():
    # and, or, xor (b32); inc, dec, min, max, add (u32); min, max, add
    # (s32); add (u64): 64 threads into 4 words of the other block each.
    entries = R.entries()
    assert sorted((e["operation"], e["type"]) for e in entries) == sorted(
        [(op, "b32") for op in ("and", "or", "xor")] + [(op, "u32") for op in ("inc", "dec", "min", "max", "add")]
        + [(op, "s32") for op in ("min", "max", "add")] + [("add", "u64")])
    for entry in entries:
        start, operands, want = R.case(entry, seed=5)
        out = np.zeros_like(want)
        tile_mlir.interpret(R.kernel(entry), start, operands, out)
        assert np.array_equal(out, want), entry


def test_reading_a_reduction_before_the_wait_is_a_hazard():
    entry = next(e for e in R.entries() if e["operation"] == "add" and e["type"] == "u32")
    start, operands, want = R.case(entry, seed=0)
    with pytest.raises(tile_mlir.HazardError, match=r"ld.shared.b32 touches the shared buffer of .*, which the "
                                                    r"red.async at .*async_reduce_check.py:\d+ has not delivered"):
        tile_mlir.interpret(R.kernel(entry, wait=False), start, operands, np.zeros_like(want))


@pytest.mark.parametrize("name, tool", [("st_async", S), ("red_async", R)])
def test_the_gpu_agreed_on_every_form(name, tool):
    # tools/gpu/results (an H100): every form of the table, no mismatch.
    import json
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu", "results", f"{name}.json")
    with open(path) as f:
        report = json.load(f)
    assert report["mismatched"] == [] and sorted(report["passed"]) == sorted(e["opcode"] for e in tool.entries())
