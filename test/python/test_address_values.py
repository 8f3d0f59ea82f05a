"""isspacep, cvta and getctarank (PTX ISA 9.0, 9.7.9.20-23): a view's
address read as a value, written without brackets, no byte of it
accessed. The records (each rule measured with ptxas 13.0; corpora in
tools/ptxas_diff), the emission as written, and the interpreter against
what the ISA defines (tools/gpu/address_value_check.py runs the same
kernels on the GPU)."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T
from tile_mlir.frontend.tracing import TileError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
import address_value_check as C  # noqa: E402


def test_the_records_are_the_isas():
    form = ptx.parse("isspacep.shared::cluster")
    assert form.address_value and not (form.reads_memory or form.writes_memory)
    assert [(o.name, o.role, o.space, o.type) for o in form.operands] == [
        ("p", "dst", "reg", "pred"), ("a", "src", "generic", "b8")]
    assert [(o.name, o.space) for o in ptx.parse("cvta.shared::cta.u64").operands] == [("p", "reg"), ("a", "shared")]
    assert [(o.name, o.space) for o in ptx.parse("cvta.to.global.u64").operands] == [("p", "reg"), ("a", "generic")]
    assert [(o.name, o.type, o.space) for o in ptx.parse("getctarank.u64.shared::cluster").operands] == [
        ("d", "u32", "reg"), ("a", "b8", "shared::cluster")]
    # The floors ptxas 13.0 keeps (PTX ISA version x 10).
    floors = {spelling: (ptx.parse(spelling).min_sm, ptx.parse(spelling).min_ptx) for spelling in (
        "isspacep.global", "isspacep.param", "isspacep.param::entry", "cvta.shared::cta.u64",
        "cvta.to.shared::cluster.u64", "getctarank.u64")}
    assert floors == {"isspacep.global": (0, 0), "isspacep.param": (0, 77), "isspacep.param::entry": (0, 83),
                      "cvta.shared::cta.u64": (0, 78), "cvta.to.shared::cluster.u64": (90, 78),
                      "getctarank.u64": (90, 78)}
    for spelling, message in (
            ("cvta.u64", "cvta.u64 needs a state space"),
            ("cvta.shared.u32", "'u32' is not a type of cvta: expected one of u64"),
            ("cvta.shared.to.u64", "'to' is not a qualifier of cvta.u64"),
            ("getctarank.shared::cta.u64", "'shared::cta' is not a qualifier of getctarank.u64")):
        with pytest.raises(ptx.PTXFormError, match=re.escape(message)):
            ptx.parse(spelling)


def asked_kernel():
    """Each thread asks isspacep of a tensor's element at a static offset
    and getctarank of the peer block's buffer, and converts its own
    buffer's generic address to a shared one: three results stored."""
    @T.function
    def asked(A: T.Tensor((64,), "uint32"), Out: T.Tensor((3, 128), "uint32"), Where: T.Tensor((128,), "uint64")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=64, cluster=2))
        t, b, rank = T.thread_id(), T.block_id(), T.cluster_ctarank()
        buf = T.alloc_shared((64,), "uint32", align=16)
        flag = T.alloc_local((1,), "bool")
        word = T.alloc_local((1,), "uint32")
        address = T.alloc_local((1,), "uint64")
        T.cuda.tile.apply(T.ptx["isspacep.global"], flag, A.view("uint8")[16:17].generic())
        T.cuda.tile.apply(T.ptx["selp.b32"], word, T.uint32(1), T.uint32(0), flag)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[0, 64 * b + t:64 * b + t + 1], word)
        T.cuda.tile.apply(T.ptx["getctarank.shared::cluster.u64"], word,
                          buf.of_block(rank ^ 1).view("uint8")[4 * t:4 * t + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[1, 64 * b + t:64 * b + t + 1], word)
        T.cuda.tile.apply(T.ptx["cvta.to.shared.u64"], address, buf.view("uint8")[4 * t:4 * t + 1].generic())
        T.cuda.tile.apply(T.ptx["st.global.b64"], Where[64 * b + t:64 * b + t + 1], address)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
    return asked


def test_the_address_is_the_operand_as_written(tmp_path):
    text = tile_mlir.compile(asked_kernel(), target="sm_90a").ptx
    lines = [line.strip() for line in text.splitlines() if re.match(r"\s*(isspacep|getctarank|cvta\.to)", line)]
    # The static element's offset is in the register (PTX takes %rd1+16
    # only inside brackets).
    assert [re.sub(r"\d+", "N", line) for line in lines] == [
        "isspacep.global %pN, %rdN;", "getctarank.shared::cluster.uN %rN, %rdN;", "cvta.to.shared.uN %rdN, %rdN;"]
    path = tmp_path / "k.ptx"
    path.write_text(text)
    subprocess.run(["ptxas", "-arch=sm_90a", str(path), "-o", str(tmp_path / "k.cubin")], check=True)


def test_the_interpreter_answers_as_the_isa_defines():
    out, where = np.zeros((3, 128), np.uint32), np.zeros(128, np.uint64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tile_mlir.interpret(asked_kernel(), np.zeros(64, np.uint32), out, where, target="sm_90a")
    assert (out[0] == 1).all()
    assert (out[1] == np.repeat([1, 0], 64)).all()  # each block's peer
    # cvta's number is the chip's: undefined, and reported where it is stored.
    assert any("undefined" in str(w.message) and "Where" in str(w.message) for w in caught), \
        [str(w.message) for w in caught]


@pytest.mark.parametrize("entry", C.entries(), ids=lambda e: e["opcode"])
def test_every_form_in_the_interpreter(entry):
    # The GPU tool's kernels and expectations (written from the ISA).
    out = np.zeros((2, C.BLOCKS * C.THREADS), np.uint32)
    tile_mlir.interpret(C.kernel(entry), np.zeros(C.THREADS, np.uint32), out, target="sm_90a")
    assert C.form_check.bits_differ(out, C.expected(entry)) is None


def test_a_rank_outside_shared_memory_is_a_fault():
    @T.function
    def ranked(A: T.Tensor((64,), "uint32"), Out: T.Tensor((64,), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=64, cluster=2))
        t = T.thread_id()
        word = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["getctarank.u64"], word, A.view("uint8")[4 * t:4 * t + 1].generic())
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], word)

    message = (r"test_address_values.py:\d+: getctarank.u64: thread 0's address is in A, not in shared memory: "
               r"the ISA defines no rank for it")
    with pytest.raises(tile_mlir.InterpretError, match=message):
        tile_mlir.interpret(ranked, np.zeros(64, np.uint32), np.zeros(64, np.uint32), target="sm_90a")


def test_a_view_in_another_space_is_refused_at_the_line():
    message = (r"test_address_values.py:\d+: 'tile.apply' op a: expected a memref in the shared address space "
               r"\(3\) for cvta.shared.u64")
    with pytest.raises(TileError, match=message):
        @T.function
        def converted(A: T.Tensor((64,), "uint32"), Where: T.Tensor((64,), "uint64")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
            t = T.thread_id()
            address = T.alloc_local((1,), "uint64")
            T.cuda.tile.apply(T.ptx["cvta.shared.u64"], address, A.view("uint8")[4 * t:4 * t + 1])


def test_the_gpu_agreed_on_every_form():
    # tools/gpu/results/address_values.json (an H100): every form of the
    # table, no mismatch.
    import json
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu", "results", "address_values.json")
    with open(path) as f:
        report = json.load(f)
    assert report["mismatched"] == [] and sorted(report["passed"]) == sorted(e["opcode"] for e in C.entries())
