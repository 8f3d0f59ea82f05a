"""Addresses from data (issue 55 item 0): Buffer.as_index reads a register
as an index into an axis, clamped so that no address is wild; with mode
"check" the interpreter stops at its line naming the thread and the value
out of range, "predicate" returns the condition for the access's pred=,
"clamp" takes the nearest element. The PTX is the clamp written (min.u32,
and setp.lt.u32 for the predicate), which ptxas assembles."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T

N, BINS = 512, 64


def histogram(mode):
    @T.function
    def histogram(X: T.Tensor((N, 1), "uint32"), Hist: T.Tensor((BINS, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=N // 128, block=128))
        v = T.alloc_local((1, 1), "uint32")
        i = T.block_id() * 128 + T.thread_id()
        T.cuda.tile.apply(T.ptx["ld.global.b32"], v, X[i:i + 1])
        if mode == "predicate":
            b, inside = v.as_index(BINS, mode="predicate")
            T.cuda.tile.apply(T.ptx["red.global.add.u32"], Hist[b:b + 1], T.uint32(1), pred=inside)
        else:
            b = v.as_index(BINS, mode=mode)
            T.cuda.tile.apply(T.ptx["red.global.add.u32"], Hist[b:b + 1], T.uint32(1))
    return histogram


def values(outside=()):
    x = np.random.default_rng(1).integers(0, BINS, (N, 1)).astype(np.uint32)
    for i, v in outside:
        x[i, 0] = v
    return x


def run(mode, x):
    hist = np.zeros((BINS, 1), np.uint32)
    tile_mlir.interpret(histogram(mode), x, hist)
    return hist[:, 0]


@pytest.mark.parametrize("mode", ["check", "clamp", "predicate"])
def test_values_inside_the_axis_are_their_own_addresses(mode):
    x = values()
    assert np.array_equal(run(mode, x), np.bincount(x[:, 0], minlength=BINS))


def test_check_names_the_line_the_thread_and_the_value():
    with pytest.raises(tile_mlir.InterpretError, match=r"test_data_addresses.py:\d+: thread \(45\) of block \(1\) reads the value 70 "
                       r"as an index of an axis of 64: out of bounds \(as_index checks it; a GPU reads element 63\)"):
        run("check", values([(128 + 45, 70)]))  # block 1's thread 45


def test_predicate_skips_and_clamp_takes_the_nearest():
    x = values([(3, 64), (9, 1 << 31)])
    inside = x[x[:, 0] < BINS, 0]
    assert np.array_equal(run("predicate", x), np.bincount(inside, minlength=BINS))
    want = np.bincount(np.minimum(x[:, 0], BINS - 1), minlength=BINS)
    assert np.array_equal(run("clamp", x), want)


def test_a_signed_register_is_read_as_its_bits():
    # -1 is 0xFFFFFFFF: out of range, never a negative address.
    @T.function
    def gather(Table: T.Tensor((8, 1), "float32"), Rows: T.Tensor((4, 1), "int32"), Out: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=4))
        t = T.thread_id()
        row, word = T.alloc_local((1, 1), "int32"), T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], row, Rows[t:t + 1])
        r = row.as_index(8, mode="clamp")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], word, Table[r:r + 1])
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], word)
    table = np.arange(8, dtype=np.float32).reshape(8, 1) * 10
    out = np.zeros((4, 1), np.float32)
    tile_mlir.interpret(gather, table, np.array([[2], [7], [-1], [100]], np.int32), out)
    assert out[:, 0].tolist() == [20, 70, 70, 70]


def test_the_ptx_is_the_clamp_and_ptxas_assembles_it():
    compiled = tile_mlir.compile(histogram("predicate"), target="sm_90")
    assert len(re.findall(r"\bmin\.u32\b[^\n]*, 63;", compiled.ptx)) == 1
    assert len(re.findall(r"\bsetp\.lt\.u32\b[^\n]*, 64;", compiled.ptx)) == 1
    assert compiled.cubin


@pytest.mark.parametrize("make, message", [
    (lambda: T.alloc_local((2, 1), "uint32").as_index(4), r"a register tile of one element, got a \(2, 1\) tile"),
    (lambda: T.alloc_local((1, 1), "float32").as_index(4), r"an integer register of up to 32 bits, got float32"),
    (lambda: T.alloc_local((1, 1), "uint32").as_index(4, mode="wrap"), r"mode is 'check', 'clamp' or 'predicate'"),
    (lambda: T.alloc_local((1, 1), "uint32").as_index(0), r"bound"),
])
def test_what_it_cannot_read_is_a_located_error(make, message):
    with pytest.raises(T.TileError, match=message):
        @T.function
        def bad(Out: T.Tensor((1, 1), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            make()
