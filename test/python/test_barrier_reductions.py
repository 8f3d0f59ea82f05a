"""bar.red and barrier.red (issue 26): the block's popc, and and or of a
predicate, through NVVM's barrier reduction intrinsics (printed under the
ISA's names), and in the interpreter from the ISA's definition, per block."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T


@T.function
def reductions(A: T.Tensor((128, 1), "int32"), Out: T.Tensor((128, 3), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=64))
    t = T.thread_id()
    i = T.block_id() * 64 + t
    a = T.alloc_local((1, 1), "int32")
    p = T.alloc_local((1, 1), "bool")
    q = T.alloc_local((2, 1), "bool")
    o = T.alloc_local((3, 1), "int32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[i:i + 1])
    T.cuda.tile.apply(T.ptx["setp.gt.s32"], p, a, T.int32(0))
    T.cuda.tile.apply(T.ptx["bar.red.popc.u32"], o[0:1], T.uint32(1), p)
    T.cuda.tile.apply(T.ptx["barrier.red.and.pred"], q[0:1], T.uint32(2), T.uint32(64), p)
    T.cuda.tile.apply(T.ptx["bar.red.or.pred"], q[1:2], T.uint32(3), p)
    T.cuda.tile.apply(T.ptx["selp.b32"], o[1:2], T.int32(1), T.int32(0), q[0:1])
    T.cuda.tile.apply(T.ptx["selp.b32"], o[2:3], T.int32(1), T.int32(0), q[1:2])
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[i:i + 1, :].reshape((3, 1)), o)


def test_each_block_gets_its_own_popc_and_and_or():
    a = np.ones((128, 1), np.int32)
    a[5] = 0          # block 0: 63 of 64 true
    a[64:] = -1
    a[100] = 7        # block 1: 1 of 64 true
    out = np.zeros((128, 3), np.int32)
    tile_mlir.interpret(reductions, a, out)
    assert out[:64].tolist() == [[63, 0, 1]] * 64
    assert out[64:].tolist() == [[1, 0, 1]] * 64
    a[5] = 1
    tile_mlir.interpret(reductions, a, out)
    assert out[:64].tolist() == [[64, 1, 1]] * 64


def test_they_print_as_the_isa_names_them():
    ptx = tile_mlir.compile(reductions).ptx
    lines = [" ".join(line.split()) for line in ptx.splitlines() if "red." in line]
    assert [re.sub(r"%\w+", "%", line) for line in lines] == [
        "bar.red.popc.u32 %, 1, %;", "barrier.red.and.pred %, 2, 64, %;", "bar.red.or.pred %, 3, %;"]


def rotate_with_barrier_registers(uniform):
    @T.function
    def k(A: T.Tensor((64, 1), "int32"), Out: T.Tensor((64, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        S = T.alloc_shared((64, 1), "int32")
        t = T.thread_id()
        r = T.alloc_local((1, 1), "int32")
        ids = T.alloc_local((2, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["mov.b32"], ids[0:1], T.uint32(3) if uniform else T.uint32(t % 2))
        T.cuda.tile.apply(T.ptx["mov.b32"], ids[1:2], T.uint32(64))
        T.cuda.tile.apply(T.ptx["st.shared.b32"], S[t:t + 1], r)
        T.cuda.tile.apply(T.ptx["bar.sync"], ids[0:1], ids[1:2])
        n = (t + 1) % 64
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, S[n:n + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)
    return k


def test_a_barrier_id_and_count_may_be_registers():
    kernel = rotate_with_barrier_registers(uniform=True)
    a = np.arange(64, dtype=np.int32).reshape(64, 1)
    out = np.zeros_like(a)
    tile_mlir.interpret(kernel, a, out)
    assert out.ravel().tolist() == [(i + 1) % 64 for i in range(64)]
    assert re.search(r"bar\.sync %r\d+, %r\d+;", " ".join(tile_mlir.compile(kernel).ptx.split()))


def test_a_barrier_id_that_differs_between_threads_is_not_modelled():
    with pytest.raises(tile_mlir.InterpretError, match=r"bar\.sync with operand a differing between threads"):
        tile_mlir.interpret(rotate_with_barrier_registers(uniform=False), np.zeros((64, 1), np.int32),
                            np.zeros((64, 1), np.int32))
