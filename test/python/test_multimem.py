"""multimem.ld_reduce, multimem.st and multimem.red (PTX ISA 9.0,
9.7.9.14): the table's records (judged by tools/ptxas_diff: the operations
by type, the float vectors, the semantics and scopes), the emission as
written, and the interpreter's refusal at the line (one GPU has no
multicast object)."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T


@pytest.mark.parametrize("spelling, operands", [
    ("multimem.ld_reduce.relaxed.gpu.global.add.u64", [("d", "dst", "reg", 1, 64), ("a", "src", "global", 1, 64)]),
    ("multimem.ld_reduce.global.add.acc::f32.v8.bf16",
     [("d", "dst", "reg", 8, 16), ("a", "src", "global", 8, 16)]),
    ("multimem.st.release.sys.v4.f32", [("a", "dst", "generic", 4, 32), ("b", "src", "reg", 4, 32)]),
    ("multimem.red.global.max.v2.f16x2", [("a", "src", "global", 2, 32), ("b", "src", "reg", 2, 32)])])
def test_the_records_are_the_isas(spelling, operands):
    form = ptx.parse(spelling)
    assert [(o.name, o.role, o.space, o.count, o.bits) for o in form.operands] == operands
    assert form.family == "multimem" and form.min_sm == 90
    assert form.min_ptx == (82 if "acc::f32" in spelling else 81)


@pytest.mark.parametrize("spelling, message", [
    ("multimem.ld_reduce.weak.gpu.global.add.u32", "'weak' cannot be combined with '.gpu'"),
    ("multimem.ld_reduce.relaxed.global.add.u32", "'relaxed' needs a scope"),
    ("multimem.st.gpu.global.u32", "'gpu' needs a semantics"),
    ("multimem.ld_reduce.global.add.b32", "'add' is not a qualifier of multimem.ld_reduce.b32"),
    ("multimem.ld_reduce.global.add.f16", "multimem.ld_reduce.f16 needs a vector width"),
    ("multimem.ld_reduce.global.min.acc::f32.v2.f16",
     "'acc::f32' cannot be combined with '.min' in multimem.ld_reduce.f16: it is the accumulation of an add"),
    ("multimem.red.global.min.f16x2", "'min' of multimem.red.f16x2 takes a vector (.v2 or .v4)"),
    ("multimem.st.global.v2.u32", "'v2' is not a qualifier of multimem.st.u32")])
def test_what_ptxas_refuses_is_refused_by_name(spelling, message):
    with pytest.raises(ptx.PTXFormError, match=re.escape(message)):
        ptx.parse(spelling)


@T.function
def all_reduce(Data: T.Tensor((64, 2), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    held = T.alloc_local((1, 2), "float32")
    T.cuda.tile.apply(T.ptx["multimem.ld_reduce.relaxed.sys.global.add.v2.f32"], held, Data[2 * t:2 * t + 1])
    T.cuda.tile.apply(T.ptx["multimem.st.relaxed.sys.global.v2.f32"], Data[2 * t + 1:2 * t + 2], held)


def test_emitted_as_written_and_refused_by_the_interpreter():
    compiled = tile_mlir.compile(all_reduce, target="sm_90a")
    lines = [line.strip() for line in compiled.ptx.splitlines() if "multimem" in line]
    assert len(lines) == 2
    assert re.fullmatch(r"multimem\.ld_reduce\.relaxed\.sys\.global\.add\.v2\.f32\s+\{%r\d+, %r\d+\}, "
                        r"\[%rd\d+\];", lines[0])
    assert re.fullmatch(r"multimem\.st\.relaxed\.sys\.global\.v2\.f32\s+\[%rd\d+\], \{%r\d+, %r\d+\};", lines[1])
    with pytest.raises(tile_mlir.InterpretError, match=r"test_multimem.py:\d+: the interpreter does not model "
                                                       r"multimem.ld_reduce.relaxed.sys.global.add.v2.f32 \(a "
                                                       r"multimem address names memory on every GPU"):
        tile_mlir.interpret(all_reduce, np.zeros((64, 2), np.float32))
