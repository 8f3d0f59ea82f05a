"""tensormap.replace (PTX ISA 9.0, 9.7.9.27): one field of a 128-byte
tensor map in memory edited in place. The record (each rule measured
with ptxas 13.0; corpora in tools/ptxas_diff), the emission as written
and assembled on sm_90a, and the interpreter's refusal at the line (its
tensor maps are parameters, not bytes a kernel edits)."""

import re
import subprocess

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T
from tile_mlir.frontend.tracing import TileError


def test_the_record_is_the_isas():
    operands = lambda spelling: [(o.name, o.role, o.space, o.type, o.max_immediate)  # noqa: E731
                                 for o in ptx.parse(spelling).operands]
    assert operands("tensormap.replace.tile.global_address.global.b1024.b64") == [
        ("addr", "dst", "global", "b8", 0), ("new_val", "src", "reg", "b64", 0)]
    assert operands("tensormap.replace.tile.box_dim.shared::cta.b1024.b32") == [
        ("addr", "dst", "shared", "b8", 0), ("ord", "imm", "reg", "b32", 4), ("new_val", "src", "reg", "b32", 0)]
    # The enumerated fields take an immediate, of ptxas's range.
    assert operands("tensormap.replace.tile.elemtype.b1024.b32") == [
        ("addr", "dst", "generic", "b8", 0), ("new_val", "imm", "reg", "b32", 12)]
    assert [ptx.parse(f"tensormap.replace.tile.{field}.b1024.b32").operands[-1].max_immediate
            for field in ("interleave_layout", "swizzle_mode", "fill_mode")] == [2, 3, 1]
    form = ptx.parse("tensormap.replace.b1024.global.b32.tile.rank")  # any order, as ptxas takes it
    assert (form.min_sm, form.min_ptx, form.arch_specific) == (90, 83, True)
    atomicity = ptx.parse("tensormap.replace.tile.swizzle_atomicity.b1024.b32")
    assert (atomicity.min_sm, atomicity.min_ptx) == (100, 86)
    for spelling, message in (
            ("tensormap.replace.tile.rank.global.b1024.b64", "tensormap.replace.rank takes .b32, not .b64"),
            ("tensormap.replace.tile.global_stride.b1024.b32", "tensormap.replace.global_stride takes .b64, not .b32"),
            ("tensormap.replace.rank.global.b1024.b32", "tensormap.replace.b32 needs 'tile'"),
            ("tensormap.replace.tile.rank.global.b32", "tensormap.replace.b32 needs 'b1024'"),
            ("tensormap.replace.tile.global.b1024.b32", "tensormap.replace needs a field: one of global_address"),
            ("tensormap.replace.tile.rank.shared.b1024.b32", "'shared' is not a qualifier of tensormap.replace.b32")):
        with pytest.raises(ptx.PTXFormError, match=re.escape(message)):
            ptx.parse(spelling)
    with pytest.raises(ptx.PTXFormError, match=r"requires sm_90a \(an arch-specific target\) and PTX ISA 8.3"):
        ptx.parse("tensormap.replace.tile.rank.b1024.b32", target="sm_90")


@T.function
def retargeted(Maps: T.Tensor((256,), "uint8"), Address: T.Tensor((1,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    staged = T.alloc_shared((128,), "uint8", align=128)
    where = T.alloc_local((1,), "uint64")
    dim = T.alloc_local((1,), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b64"], where, Address)
    T.cuda.tile.apply(T.ptx["ld.shared.b32"], dim, staged.view("uint32")[0:1])
    T.cuda.tile.apply(T.ptx["tensormap.replace.tile.global_address.global.b1024.b64"], Maps[128:129], where)
    T.cuda.tile.apply(T.ptx["tensormap.replace.tile.global_dim.shared::cta.b1024.b32"], staged[0:1], T.uint32(1), dim)
    T.cuda.tile.apply(T.ptx["tensormap.replace.tile.swizzle_mode.b1024.b32"], Maps.generic()[0:1], T.uint32(3))


def test_the_emission_is_the_written_lines_and_assembles(tmp_path):
    text = tile_mlir.compile(retargeted, target="sm_90a").ptx
    lines = [re.sub(r"\d+", "N", line.strip()) for line in text.splitlines() if "tensormap.replace" in line]
    assert lines == ["tensormap.replace.tile.global_address.global.bN.bN [%rdN+N], %rdN;",
                     "tensormap.replace.tile.global_dim.shared::cta.bN.bN [%rdN], N, %rN;",
                     "tensormap.replace.tile.swizzle_mode.bN.bN [%rdN], N;"]
    assert "global_address.global.b1024.b64 [%rd" in text and "+128], %rd" in text
    path = tmp_path / "k.ptx"
    path.write_text(text)
    subprocess.run(["ptxas", "-arch=sm_90a", str(path), "-o", str(tmp_path / "k.cubin")], check=True)


def test_an_immediate_out_of_ptxas_range_is_refused_at_the_line():
    message = (r"test_tensormap_replace.py:\d+: 'tile.apply' op new_val: immediate 4 is not legal for "
               r"tensormap.replace.tile.swizzle_mode.global.b1024.b32: expected 0 to 3")
    with pytest.raises(TileError, match=message):
        @T.function
        def bad(Maps: T.Tensor((128,), "uint8")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            T.cuda.tile.apply(T.ptx["tensormap.replace.tile.swizzle_mode.global.b1024.b32"], Maps[0:1], T.uint32(4))


def test_the_interpreter_refuses_it_at_the_line():
    with pytest.raises(tile_mlir.InterpretError, match=r"test_tensormap_replace.py:\d+: the interpreter does not "
                                                       r"model tensormap.replace.* \(its tensor maps are parameters"):
        tile_mlir.interpret(retargeted, np.zeros(256, np.uint8), np.zeros(1, np.uint64), target="sm_90a")
