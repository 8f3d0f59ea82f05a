"""The carry flag (issue 58): addc, subc and madc read CC.CF, the .cc forms
write it. Multi-word arithmetic through the chain must equal Python's
integers; a reader with no writer before it in its block is refused; a
writer that may not have run leaves the flag undefined."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
import carry_check  # noqa: E402

RNG = np.random.default_rng(58)
LAUNCH = T.cuda.LaunchConfig(grid=1, block=32)
TOP = 0xFFFFFFFF


def number(limbs, bits=32):
    return sum(int(v) << (bits * i) for i, v in enumerate(limbs))


def limbs_with_edges(n_limbs):
    """32 threads' numbers of n_limbs words: random, all ones, zero and a
    one, so that carries run through every word and borrows too."""
    words = RNG.integers(0, 1 << 32, (32, n_limbs, 1), dtype=np.uint64).astype(np.uint32)
    words[0] = TOP
    words[1] = 0
    words[2] = 0
    words[2, 0] = 1
    return words


def test_forms_say_which_read_and_which_write_the_flag():
    flags = {s: (ptx.parse(s).reads_carry, ptx.parse(s).writes_carry)
             for s in ("add.cc.u32", "sub.cc.s64", "mad.lo.cc.u32", "addc.u32", "addc.cc.s32", "subc.u64.cc",
                       "madc.hi.cc.u64", "madc.lo.s32", "add.u32")}
    assert flags == {"add.cc.u32": (False, True), "sub.cc.s64": (False, True), "mad.lo.cc.u32": (False, True),
                     "addc.u32": (True, False), "addc.cc.s32": (True, True), "subc.u64.cc": (True, True),
                     "madc.hi.cc.u64": (True, True), "madc.lo.s32": (True, False), "add.u32": (False, False)}


@T.function
def add_sub_128(A: T.Tensor((32, 4, 1), "uint32"), B: T.Tensor((32, 4, 1), "uint32"),
                S: T.Tensor((32, 5, 1), "uint32"), D: T.Tensor((32, 5, 1), "uint32")):
    T.device_entry(launch=LAUNCH)
    t = T.thread_id()
    a = T.alloc_local((4, 1), "uint32")
    b = T.alloc_local((4, 1), "uint32")
    s = T.alloc_local((5, 1), "uint32")
    d = T.alloc_local((5, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t, 0:4, 0:1])
    T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B[t, 0:4, 0:1])
    # s = a + b: the low words first; each repeat of addc.cc reads the
    # carry of the one before it. The last word is the carry out.
    T.cuda.tile.apply(T.ptx["add.cc.u32"], s[0:1], a[0:1], b[0:1])
    T.cuda.tile.apply(T.ptx["addc.cc.u32"], s[1:4], a[1:4], b[1:4])
    T.cuda.tile.apply(T.ptx["addc.u32"], s[4:5], T.uint32(0), T.uint32(0))
    # d = a - b, and 0 - borrow (all ones where a < b).
    T.cuda.tile.apply(T.ptx["sub.cc.u32"], d[0:1], a[0:1], b[0:1])
    T.cuda.tile.apply(T.ptx["mul.lo.u32"], d[4:5], a[0:1], b[0:1])  # no .cc: the flag stays
    T.cuda.tile.apply(T.ptx["subc.cc.u32"], d[1:4], a[1:4], b[1:4])
    T.cuda.tile.apply(T.ptx["subc.u32"], d[4:5], T.uint32(0), T.uint32(0))
    T.cuda.tile.apply(T.ptx["st.global.b32"], S[t, 0:5, 0:1], s)
    T.cuda.tile.apply(T.ptx["st.global.b32"], D[t, 0:5, 0:1], d)


def test_128_bit_add_and_subtract_equal_pythons_integers():
    a, b = limbs_with_edges(4), limbs_with_edges(4)
    b[3] = a[3]  # equal numbers: no borrow
    b[4] = a[4]
    b[4, 0] += 1  # one more: a borrow through every word
    s, d = np.zeros((32, 5, 1), np.uint32), np.zeros((32, 5, 1), np.uint32)
    tile_mlir.interpret(add_sub_128, a, b, s, d)
    for t in range(32):
        x, y = number(a[t, :, 0]), number(b[t, :, 0])
        assert number(s[t, :, 0]) == x + y, t
        assert number(d[t, :4, 0]) == (x - y) % (1 << 128), t
        assert d[t, 4, 0] == (TOP if x < y else 0), t


@T.function
def multiply_64(A: T.Tensor((32, 2, 1), "uint32"), B: T.Tensor((32, 2, 1), "uint32"),
                P: T.Tensor((32, 4, 1), "uint32")):
    # The PTX ISA's example of madc: [r3, r2, r1, r0] = [r5, r4] * [r7, r6].
    T.device_entry(launch=LAUNCH)
    t = T.thread_id()
    a = T.alloc_local((2, 1), "uint32")
    b = T.alloc_local((2, 1), "uint32")
    r = T.alloc_local((4, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t, 0:2, 0:1])
    T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B[t, 0:2, 0:1])
    r4, r5, r6, r7 = a[0:1], a[1:2], b[0:1], b[1:2]
    r0, r1, r2, r3 = r[0:1], r[1:2], r[2:3], r[3:4]
    zero = T.uint32(0)
    T.cuda.tile.apply(T.ptx["mul.lo.u32"], r0, r4, r6)
    T.cuda.tile.apply(T.ptx["mul.hi.u32"], r1, r4, r6)
    T.cuda.tile.apply(T.ptx["mad.lo.cc.u32"], r1, r5, r6, r1)
    T.cuda.tile.apply(T.ptx["madc.hi.u32"], r2, r5, r6, zero)
    T.cuda.tile.apply(T.ptx["mad.lo.cc.u32"], r1, r4, r7, r1)
    T.cuda.tile.apply(T.ptx["madc.hi.cc.u32"], r2, r4, r7, r2)
    T.cuda.tile.apply(T.ptx["addc.u32"], r3, zero, zero)
    T.cuda.tile.apply(T.ptx["mad.lo.cc.u32"], r2, r5, r7, r2)
    T.cuda.tile.apply(T.ptx["madc.hi.u32"], r3, r5, r7, r3)
    T.cuda.tile.apply(T.ptx["st.global.b32"], P[t, 0:4, 0:1], r)


def test_the_isa_multiply_example_equals_pythons_product():
    a, b = limbs_with_edges(2), limbs_with_edges(2)
    p = np.zeros((32, 4, 1), np.uint32)
    tile_mlir.interpret(multiply_64, a, b, p)
    for t in range(32):
        assert number(p[t, :, 0]) == number(a[t, :, 0]) * number(b[t, :, 0]), t


def test_chain_is_emitted_in_order_as_written_and_assembles():
    kernel = tile_mlir.compile(multiply_64, cache=False)
    chain = re.findall(r"^\s*(mul\.lo|mul\.hi|mad\.lo\.cc|madc\.hi\.cc|madc\.hi|addc)\.u32", kernel.ptx, re.M)
    assert chain == ["mul.lo", "mul.hi", "mad.lo.cc", "madc.hi", "mad.lo.cc", "madc.hi.cc", "addc",
                     "mad.lo.cc", "madc.hi"]


@pytest.mark.parametrize("bits", [32, 64])
def test_every_signed_and_unsigned_reader_after_each_writer(bits):
    # The GPU check's kernels (tools/gpu/carry_check.py) in the interpreter,
    # chains that mix additions and subtractions too: each reader's result
    # and carry against Python's integers on the same inputs.
    entries = [e for e in carry_check.forms() if e["bits"] == bits and e["opcode"].startswith(("addc", "subc"))
               and e["writer"].startswith(("add.cc", "sub.cc"))]
    assert len(entries) >= 4
    top = (1 << bits) - 1
    for entry in entries:
        x, y, _, a, b, _ = (col.ravel().astype(object) for col in carry_check.inputs(entry, 0))
        out = np.zeros((3, carry_check.THREADS, 1, 1), np.uint32 if bits == 32 else np.uint64)
        tile_mlir.interpret(carry_check.kernel(entry), *carry_check.inputs(entry, 0), out)
        # The flag is the adder's carry: a - b is a + ~b + 1, so a
        # subtraction leaves 1 where nothing is borrowed (measured on an
        # H100 over every reader after each writer: tools/gpu/carry_check.py).
        adds = entry["writer"].startswith("add")
        carry = [int(p + q > top) if adds else int(p >= q) for p, q in zip(x, y)]
        plus = entry["opcode"].startswith("addc")
        total = [p + q + c if plus else p + (top - q) + c for p, q, c in zip(a, b, carry)]
        assert [int(v) for v in out[1].ravel()] == [v & top for v in total], entry
        carry_out = [v >> bits for v in total] if ".cc" in entry["opcode"] else carry
        assert [int(v) for v in out[2].ravel()] == carry_out, entry


def test_a_reader_without_a_writer_in_its_block_is_refused_at_its_line():
    with pytest.raises(T.TileError, match=re.escape(__file__) + r":\d+: 'tile.apply' op addc.u32 reads the carry "
                       r"flag \(CC.CF\), which no instruction before it in its block writes: begin the chain in "
                       r"the same block with a form that writes it"):
        @T.function
        def unchained(A: T.Tensor((4, 1), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            a = T.alloc_local((4, 1), "uint32")
            T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A)
            T.cuda.tile.apply(T.ptx["addc.u32"], a, a, a)
            T.cuda.tile.apply(T.ptx["st.global.b32"], A, a)


@T.function
def guarded_writer(A: T.Tensor((32, 1, 1), "uint32"), D: T.Tensor((32, 1, 1), "uint32")):
    T.device_entry(launch=LAUNCH)
    t = T.thread_id()
    a = T.alloc_local((1, 1), "uint32")
    d = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t])
    T.cuda.tile.apply(T.ptx["add.cc.u32"], d, a, a, pred=t < 8)
    T.cuda.tile.apply(T.ptx["addc.u32"], d, T.uint32(0), T.uint32(0))
    T.cuda.tile.apply(T.ptx["st.global.b32"], D[t], d)


def test_a_writer_that_did_not_run_leaves_the_flag_undefined():
    a = np.full((32, 1, 1), 0x80000001, np.uint32)  # a + a carries out
    d = np.full((32, 1, 1), 7, np.uint32)
    with pytest.warns(tile_mlir.InterpretWarning, match="24 of 32 elements of D were stored undefined"):
        tile_mlir.interpret(guarded_writer, a, d)
    assert (d[:8] == 1).all() and (d[8:] == 7).all()


def test_verifier_and_lowering_through_tile_opt():
    # tile.instr too: a reader alone is refused; a chain lowers to asm with
    # side effects, so LLVM keeps its order and never drops a link.
    tile_opt = os.path.join(os.path.dirname(sys.executable), "tile-opt")
    chain = ('func.func @f(%a: i32, %b: i32) -> i32 {\n'
             '  %0 = tile.instr "add.cc.u32"(%a, %b) : (i32, i32) -> i32\n'
             '  %1 = tile.instr "addc.u32"(%a, %b) : (i32, i32) -> i32\n'
             '  return %1 : i32\n}\n')
    lowered = subprocess.run([tile_opt, "--convert-tile-to-nvvm", "-"], input=chain, capture_output=True,
                             text=True, check=True).stdout
    assert re.search(r'llvm.inline_asm has_side_effects .*"add.cc.u32 \$0, \$1, \$2;"', lowered)
    assert re.search(r'llvm.inline_asm has_side_effects .*"addc.u32 \$0, \$1, \$2;"', lowered)
    alone = chain.replace('  %0 = tile.instr "add.cc.u32"(%a, %b) : (i32, i32) -> i32\n', "")
    refused = subprocess.run([tile_opt, "-"], input=alone, capture_output=True, text=True)
    assert refused.returncode != 0
    assert "<stdin>:2:8: error: 'tile.instr' op addc.u32 reads the carry flag (CC.CF)" in refused.stderr


def test_committed_gpu_run_matches_the_interpreter_on_every_reader():
    import json
    with open(os.path.join(ROOT, "tools", "gpu", "results", "carry.json")) as f:
        report = json.load(f)
    assert report["device"].startswith("NVIDIA") and report["target"] == "sm_90"
    assert report["forms"] == len(carry_check.forms()) == 32 and report["cases"] == 32 * carry_check.SEEDS
    assert report["mismatched"] == []
