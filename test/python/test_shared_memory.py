"""Shared memory and block barriers (issue 26): T.alloc_shared, ld/st.shared
through tile.apply, bar.sync, the front end's rule that a barrier is not
under thread-varying control flow, the static budget, and the interpreter,
which orders a block's accesses across a barrier and reports a barrier
that part of a block reaches. Expected values come from numpy on the same
data; the PTX goes through ptxas."""

import os
import subprocess
import tempfile

import numpy as np
import pytest
from mlir import ir

import tile_mlir
from tile_mlir import script as T
from tile_mlir.interpreter import machine



def rotate(barrier):
    """Each thread stores its element in shared memory and reads its
    neighbour's: out[i] = a[block * 32 + (i + 1) % 32]."""
    @T.function
    def k(A: T.Tensor((64, 1), "float32"), Out: T.Tensor((64, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32))
        S = T.alloc_shared((32, 1), "float32")  # the staging buffer
        t = T.thread_id()
        i = T.block_id() * 32 + t
        r = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[i:i + 1])
        T.cuda.tile.apply(T.ptx["st.shared.f32"], S[t:t + 1], r)  # stage
        if barrier:
            T.cuda.tile.apply(T.ptx[barrier], T.uint32(0))
        n = (t + 1) % 32
        T.cuda.tile.apply(T.ptx["ld.shared.f32"], r, S[n:n + 1])  # the neighbour's
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[i:i + 1], r)
    return k


def expected_rotation(a):
    return np.concatenate([np.roll(a[:32], -1), np.roll(a[32:], -1)])


@pytest.mark.parametrize("barrier", ["bar.sync", "barrier.sync.aligned", "barrier.sync"])
def test_a_barrier_orders_shared_memory_and_the_interpreter_agrees(barrier):
    a = np.arange(64, dtype="float32").reshape(64, 1) * 1.5
    out = np.zeros((64, 1), "float32")
    tile_mlir.interpret(rotate(barrier), a, out)
    assert out.tobytes() == expected_rotation(a).tobytes()
    ptx = tile_mlir.compile(rotate(barrier)).ptx  # assembled by ptxas too
    body = [" ".join(line.split()) for line in ptx.splitlines()]
    # bar.sync is the ISA's name of barrier.sync.aligned.
    spelled = "barrier.sync 0;" if barrier == "barrier.sync" else "bar.sync 0;"
    assert [line for line in body if "bar" in line and "sync" in line] == [spelled]
    assert ".shared .align 16 .b8 __wg_k_0[128];" in body


def test_without_the_barrier_the_shared_read_is_a_race(line_of):
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(rotate(None), np.ones((64, 1), "float32"), np.zeros((64, 1), "float32"))
    (hazard,) = caught.value.hazards
    assert hazard.kind == "read-after-write"
    assert hazard.buffer == f"the shared buffer of {line_of('# the staging buffer')}"
    assert (hazard.first, hazard.second) == (line_of("# stage"), line_of("# the neighbour's"))


def test_a_barrier_under_a_thread_varying_branch_is_a_located_error(line_of):
    with pytest.raises(T.TileError) as caught:
        @T.function
        def k(A: T.Tensor((64, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
            with T.if_(T.thread_id() < 32):  # varies
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))  # the barrier
    assert str(caught.value) == (
        f"{line_of('# the barrier')}: bar.sync inside a T.if_ whose condition depends on the "
        f"thread ({line_of('# varies')}): the threads that skip it leave the barrier waiting; put "
        "the barrier outside the branch")


def test_a_barrier_in_a_loop_with_thread_varying_bounds_is_a_located_error():
    with pytest.raises(T.TileError, match=r"bar.sync inside a T.serial whose bounds depend on the "
                       r"thread \(.*\): threads that run fewer iterations"):
        @T.function
        def k(A: T.Tensor((64, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
            for _ in T.serial(0, T.thread_id() % 4):
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))


def test_a_barrier_under_a_block_uniform_branch_and_loop_is_accepted():
    @T.function
    def k(A: T.Tensor((64, 1), "float32"), n: T.int32):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32))
        with T.if_(T.block_id() < 1):
            for _ in T.serial(0, n):
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    assert "bar.sync" in tile_mlir.compile(k).ptx


def test_alloc_shared_is_declared_at_the_top_of_the_kernel():
    with pytest.raises(T.TileError, match="T.alloc_shared declares a buffer of the whole kernel: "
                       "call it outside T.serial and T.if_"):
        @T.function
        def k(A: T.Tensor((64, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            for _ in T.serial(0, 2):
                T.alloc_shared((4,), "float32")


def test_more_than_48_kib_of_shared_memory_is_a_located_error(line_of):
    @T.function
    def k(A: T.Tensor((64, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        T.alloc_shared((8192,), "float32")
        T.alloc_shared((4096,), "float32", align=128)
        T.alloc_shared((1,), "uint8")  # one byte too many

    with pytest.raises(tile_mlir.CompileError) as caught:
        tile_mlir.compile(k)
    assert str(caught.value) == (
        f"{line_of('# one byte too many')}: the shared buffers of k need 49153 bytes with this one "
        "('memref<1xui8, 3>'); a kernel declares at most 49152 (48 KiB) of static shared memory")


def test_ptxas_refuses_what_the_budget_refuses():
    # The budget's source: 49152 bytes assemble for sm_90, 49153 do not.
    for size, ok in ((49152, True), (49153, False)):
        ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() {\n"
               f".shared .align 16 .b8 buf[{size}];\n.reg .b32 %r<2>;\nmov.u32 %r1, 7;\n"
               "st.shared.b32 [buf], %r1;\nret;\n}\n")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.ptx")
            open(path, "w").write(ptx)
            run = subprocess.run(["ptxas", "-arch=sm_90", path, "-o", os.devnull], capture_output=True,
                                 text=True)
        assert (run.returncode == 0) == ok, run.stderr


DIVERGENT = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%A: memref<64x1xi32, 1>) kernel {
      %c0 = arith.constant 0 : i32
      %half = arith.constant 16 : index
      %t = gpu.thread_id x
      %low = arith.cmpi ult, %t, %half : index
      scf.if %low {
        tile.apply "bar.sync"(%c0) : i32
      }
      gpu.return
    }
  }
}
"""


def test_the_interpreter_reports_a_barrier_that_part_of_a_block_reaches():
    # Hand-written IR passes no front-end rule: the interpreter is the judge.
    with ir.Context():
        module = ir.Module.parse(DIVERGENT)
        func = module.body.operations[0].regions[0].blocks[0].operations[0]
        hazards = []
        machine.run(func, {"A": bytes(256)}, (2, 1, 1), (32, 1, 1), hazards=hazards)
    assert [str(h) for h in hazards] == [
        "-:10: bar.sync reached by 16 of the 32 threads of block 0; the others never arrive"]


def test_a_barrier_with_another_threads_count_is_not_modelled_without_mbarriers():
    # Its ordering goes through the clocks, which a kernel with mbarriers has.
    @T.function
    def k(A: T.Tensor((64, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(1), T.uint32(32))

    with pytest.raises(tile_mlir.InterpretError, match=r"^k: \S*test_shared_memory\.py:\d+: the interpreter does not model bar.sync "
                       r"with a count of 32 threads in a block of 64, in a kernel without mbarriers yet$"):
        tile_mlir.interpret(k, np.zeros((64, 1), "float32"))


def _group_barrier(count):
    """Two warps exchange through shared memory behind a barrier of the 64
    threads of warps 0 and 1 (bar.sync 1, count), inside a branch that the
    block's third warp skips."""
    @T.function
    def k(A: T.Tensor((96, 1), "float32"), Out: T.Tensor((96, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=96))
        t = T.thread_id()
        buf = T.alloc_shared((64, 1), "float32")
        r = T.alloc_local((1, 1), "float32")
        # mbarriers give the interpreter its happens-before clocks.
        bar = T.alloc_shared((1,), "uint64", align=8)
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        with T.if_(t < 64):
            T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[t:t + 1])
            T.cuda.tile.apply(T.ptx["st.shared.f32"], buf[t:t + 1], r)
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(1), T.uint32(count))  # the group barrier
            partner = (t + 32) % 64
            T.cuda.tile.apply(T.ptx["ld.shared.f32"], r, buf[partner:partner + 1])
            T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], r)
    return k


def test_a_counted_barrier_orders_the_threads_that_meet():
    a = np.arange(96, dtype="float32").reshape(96, 1)
    out = np.zeros((96, 1), "float32")
    tile_mlir.interpret(_group_barrier(64), a, out)
    assert (out[:64, 0] == (np.arange(64) + 32) % 64).all()


def test_a_counted_barrier_met_by_other_than_its_count_is_reported(line_of):
    with pytest.raises(tile_mlir.HazardError, match=r"test_shared_memory.py:\d+: bar.sync reached by 64 of "
                                                    r"the 96 threads of block 0; the others never arrive"):
        tile_mlir.interpret(_group_barrier(96), np.zeros((96, 1), "float32"), np.zeros((96, 1), "float32"))


def test_generic_views_of_global_and_shared_memory_address_the_same_elements(line_of):
    # Buffer.generic: a memref with no memory space, which PTX forms without
    # a state space take (ld.b32 lowers to a generic load through cvta).
    @T.function
    def kernel(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        stage = T.alloc_shared((32, 1), "uint32")
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.b32"], r, A.generic()[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.b32"], stage.generic()[31 - t:32 - t], r)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, stage[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)

    a = np.arange(100, 132, dtype=np.uint32).reshape(32, 1)
    out = np.zeros_like(a)
    tile_mlir.interpret(kernel, a, out)
    assert (out == a[::-1]).all()
    ptx = tile_mlir.compile(kernel).ptx
    assert "ld.b32" in ptx and "st.b32" in ptx and "cvta" in ptx

    with pytest.raises(T.TileError, match=r"a register tile has no generic address") as error:
        @T.function
        def register_tile(A: T.Tensor((32, 1), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            r = T.alloc_local((1, 1), "uint32")
            r.generic()  # the line
    assert str(error.value).startswith(f"{line_of('r.generic()  # the line')}: ")
