"""Tensor memory in the interpreter (interpreter/tensor_memory.py, PTX ISA
9.0, 9.7.16): a round trip through TMEM, and each hazard reported at the
user's line. Four warps; warp 0 allocates, every warp stores its quadrant
(32 lanes, one a thread) and loads it back."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T
from tile_mlir.interpreter.launch import HazardError, InterpretError


def kernel(columns=32, registers=4, quadrant=True, wait=True, free=True, store_after_free=False, fence_before=True,
           fence_after=True, allocating=32):
    @T.function
    def through_tmem(In: T.Tensor((128, 4), "uint32"), Out: T.Tensor((128, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        warp = t // 32
        slot = T.alloc_shared((1,), "uint32", align=16)
        with T.if_(t < allocating):
            T.cuda.tile.apply(T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"], slot,
                              T.uint32(columns))
        if fence_before:
            T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        if fence_after:
            T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        base = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], base, slot)
        taddr = T.alloc_local((1,), "uint32")
        lane = (warp * 32) << 16 if quadrant else 0
        T.cuda.tile.apply(T.ptx["add.u32"], taddr, base, T.uint32(lane))
        values = T.alloc_local((registers,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], values.reshape((registers // 4, 4)),
                          In.view("uint32")[t:t + 1, :].reshape((1, 4)) if registers == 4 else
                          In[t:t + 1, :].reshape((1, 4)).broadcast((registers // 4, 4)))
        T.cuda.tile.apply(T.ptx[f"tcgen05.st.sync.aligned.32x32b.x{registers}.b32"], taddr, values)
        T.cuda.tile.apply(T.ptx["tcgen05.wait::st.sync.aligned"])
        back = T.alloc_local((registers,), "uint32")
        T.cuda.tile.apply(T.ptx[f"tcgen05.ld.sync.aligned.32x32b.x{registers}.b32"], back, taddr)
        if wait:
            T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1, :].reshape((1, 4)),
                          back[0:4].reshape((1, 4)))
        T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
        T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        if free:
            with T.if_(t < 32):
                T.cuda.tile.apply(T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], base, T.uint32(columns))
        if store_after_free:
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            T.cuda.tile.apply(T.ptx[f"tcgen05.st.sync.aligned.32x32b.x{registers}.b32"], taddr, values)
    return through_tmem


def run(k):
    data = (np.arange(512, dtype=np.uint64).reshape(128, 4) * 2654435761 % (1 << 32)).astype(np.uint32)
    out = np.zeros((128, 4), np.uint32)
    tile_mlir.interpret(k, data.astype(np.uint32), out, target="sm_100a")
    return data, out


def hazard(k):
    with pytest.raises(HazardError) as caught:
        run(k)
    return str(caught.value)


def test_round_trip():
    data, out = run(kernel())
    assert (out == data).all()


def test_a_load_read_before_its_wait():
    text = hazard(kernel(wait=False))
    assert "reads a register that the tcgen05.ld at" in text and "no tcgen05.wait::ld.sync.aligned since" in text
    assert "test_tensor_memory.py:" in text


def test_a_warp_outside_its_quadrant():
    text = hazard(kernel(quadrant=False))
    assert "warp 1 reaches lanes 0-31, outside its quadrant 32-63" in text


def test_columns_outside_the_allocation():
    # 32 columns allocated; x64 writes columns 0-63.
    text = hazard(kernel(registers=64))
    assert "reaches columns 0-63, in no allocation of its block" in text


def test_an_allocation_never_freed():
    text = hazard(kernel(free=False))
    assert "block 0's columns 0-31 (warp 0) are never freed: the kernel ends without tcgen05.dealloc" in text


def test_a_store_after_the_dealloc():
    text = hazard(kernel(store_after_free=True))
    assert "tcgen05.st.sync.aligned.32x32b.x4.b32: reaches columns 0-3, in a freed allocation" in text


def test_a_hand_off_without_fence_before():
    # Warp 0's alloc, the barrier, warp 1's store: the alloc's side needs
    # tcgen05.fence::before_thread_sync before the barrier (PTX ISA 9.7.16.6).
    text = hazard(kernel(fence_before=False))
    assert "warp 1 uses the tensor memory that warp 0 used at" in text
    assert "with no tcgen05.fence::before_thread_sync between that use and the barrier" in text


def test_a_hand_off_without_fence_after():
    text = hazard(kernel(fence_after=False))
    assert "with no tcgen05.fence::after_thread_sync since the barrier" in text


def test_an_allocation_by_part_of_a_warp():
    # .sync.aligned: the whole warp allocates.
    text = hazard(kernel(allocating=16))
    assert "leaves lanes of its warp out (tcgen05 needs all 32)" in text


def test_what_is_not_modelled_is_refused():
    @T.function
    def shifted(A: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        v = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], v, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["tcgen05.shift.cta_group::1.down"], v)

    with pytest.raises(InterpretError, match=r"does not model tensor memory \(tcgen05\.shift"):
        tile_mlir.interpret(shifted, np.zeros((32, 1), np.uint32), target="sm_100a")
