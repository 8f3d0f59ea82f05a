"""bar.red and barrier.red (issue 26): the block's popc, and and or of a
predicate, through NVVM's barrier reduction intrinsics (printed under the
ISA's names), and in the interpreter from the ISA's definition, per block."""

import re

import numpy as np

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
