"""Tensor memory in the interpreter (interpreter/tensor_memory.py, PTX ISA
9.0, 9.7.16): a round trip through TMEM, and each hazard reported at the
user's line. Four warps; warp 0 allocates, every warp stores its quadrant
(32 lanes, one a thread) and loads it back."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T
from tile_mlir.interpreter.launch import HazardError, InterpretError, InterpretWarning


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


# The data-movement shapes (PTX ISA 9.0, 9.7.16.2.3): thread l's register
# r of each shape at (lane, column) offsets from the address, as the seed
# system's tcgen05.ld/st table gives them (and CUTLASS's SM100 TMEM copy
# traits: 16x64b's ((2,2,8),32):((512,32,64),1) is lane 8 (l%2) + l//4,
# column l//2%2), written here apart from the interpreter.
SHAPE_IMAGES = {
    "32x32b": lambda l, r, split: (l, r),
    "16x64b": lambda l, r, split: (l // 4 + 8 * (l % 2), l // 2 % 2 + 2 * r),
    "16x128b": lambda l, r, split: (l // 4 + 8 * (r % 2), l % 4 + 4 * (r // 2)),
    "16x256b": lambda l, r, split: (l // 4 + 8 * (r // 2 % 2), r % 2 + 2 * (l % 4) + 8 * (r // 4)),
    "16x32bx2": lambda l, r, split: (l % 16, r + split * (l // 16)),
}
# Registers of one .x1 (x2 doubles them).
SHAPE_REGISTERS = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def one_warps_columns(t=None):
    """32 columns allocated by warp 0 (`t`, the thread, in a block of more
    than one warp) and handed over (the fences around the barrier); their
    address (lane 0) in a register."""
    slot = T.alloc_shared((1,), "uint32", align=16)

    def allocate():
        T.cuda.tile.apply(T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"], slot, T.uint32(32))
    if t is None:
        allocate()
    else:
        with T.if_(t < 32):
            allocate()
    T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
    base = T.alloc_local((1,), "uint32")
    T.cuda.tile.apply(T.ptx["ld.shared.b32"], base, slot)
    return base


def shape_kernel(shape, count, lane_offset, column_offset, split=8, store=False, halves=False):
    """One warp: 32 columns allocated. Loading: TMEM filled by a
    32x32b.x32 store from In (lane l, column c: In[l, c]), then read with
    `shape` at (lane_offset, column_offset) into Out[l, :registers].
    Storing: `shape` stores In[l, :registers] there, and a 32x32b.x32 load
    reads the whole of TMEM into Out."""
    registers = SHAPE_REGISTERS[shape] * count
    packing = (".unpack::16b" if store else ".pack::16b") if halves else ""
    opcode = f"{shape}.x{count}{packing}.b32"
    extra = [T.uint32(split)] if shape == "16x32bx2" else []

    @T.function
    def shaped(In: T.Tensor((32, 32), "uint32"), Out: T.Tensor((32, 32), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        base = one_warps_columns()
        at = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], at, base, T.uint32((lane_offset << 16) + column_offset))
        whole = T.alloc_local((32,), "uint32")
        part = T.alloc_local((registers,), "uint32")
        if store:
            T.cuda.tile.apply(T.ptx["ld.global.b32"], part.reshape((registers, 1)),
                              In[t, 0:registers].reshape((registers, 1)))
            T.cuda.tile.apply(T.ptx[f"tcgen05.st.sync.aligned.{opcode}"], at, *extra, part)
            T.cuda.tile.apply(T.ptx["tcgen05.wait::st.sync.aligned"])
            if halves:  # read back as it was stored: the same image, packed
                T.cuda.tile.apply(T.ptx[f"tcgen05.ld.sync.aligned.{opcode.replace('unpack', 'pack')}"], part, at,
                                  *extra)
                T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
                T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t, 0:registers].reshape((registers, 1)),
                                  part.reshape((registers, 1)))
            T.cuda.tile.apply(T.ptx["tcgen05.ld.sync.aligned.32x32b.x32.b32"], whole, base)
            T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
            if not halves:
                T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t, :].reshape((32, 1)), whole.reshape((32, 1)))
        else:
            T.cuda.tile.apply(T.ptx["ld.global.b32"], whole.reshape((32, 1)), In[t, :].reshape((32, 1)))
            T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x32.b32"], base, whole)
            T.cuda.tile.apply(T.ptx["tcgen05.wait::st.sync.aligned"])
            T.cuda.tile.apply(T.ptx[f"tcgen05.ld.sync.aligned.{opcode}"], part, at, *extra)
            T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t, 0:registers].reshape((registers, 1)),
                              part.reshape((registers, 1)))
        T.cuda.tile.apply(T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], base, T.uint32(32))
    return shaped


SHAPE_CASES = [("32x32b", 2, 0, 3), ("16x64b", 2, 0, 5), ("16x64b", 4, 16, 0), ("16x128b", 2, 16, 4),
               ("16x256b", 1, 0, 8), ("16x256b", 2, 16, 0), ("16x32bx2", 2, 0, 1), ("16x32bx2", 4, 16, 20)]


@pytest.mark.parametrize("shape,count,lane_offset,column_offset", SHAPE_CASES)
def test_each_shape_loads_the_isa_image(shape, count, lane_offset, column_offset):
    words = np.arange(32)[:, None] * 1000 + np.arange(32)[None, :]  # TMEM (lane, column): its coordinates
    out = np.zeros((32, 32), np.uint32)
    tile_mlir.interpret(shape_kernel(shape, count, lane_offset, column_offset), words.astype(np.uint32), out,
                        target="sm_100a")
    for lane in range(32):
        for r in range(SHAPE_REGISTERS[shape] * count):
            dl, dc = SHAPE_IMAGES[shape](lane, r, 8)
            assert out[lane, r] == (lane_offset + dl) * 1000 + column_offset + dc, (lane, r)


@pytest.mark.parametrize("shape,count,lane_offset,column_offset", SHAPE_CASES)
def test_each_shape_stores_the_isa_image(shape, count, lane_offset, column_offset):
    given = (np.arange(32)[:, None] * 100 + np.arange(32)[None, :] + 7).astype(np.uint32)
    out = np.zeros((32, 32), np.uint32)
    stored = 32 * SHAPE_REGISTERS[shape] * count
    # The words no thread stores are undefined, and reported where they
    # land in Out.
    with pytest.warns(InterpretWarning, match=f"{1024 - stored} of 1024 elements of Out were stored undefined"):
        tile_mlir.interpret(shape_kernel(shape, count, lane_offset, column_offset, store=True), given, out,
                            target="sm_100a")
    want = {}
    for lane in range(32):
        for r in range(SHAPE_REGISTERS[shape] * count):
            dl, dc = SHAPE_IMAGES[shape](lane, r, 8)
            want[(lane_offset + dl, column_offset + dc)] = given[lane, r]
    # Every word the shape stores holds its thread's register (each
    # (lane, column) once); out[l, c] is TMEM's lane l, column c.
    assert len(want) == stored
    for (lane, column), value in want.items():
        assert out[lane, column] == value, (lane, column)


def test_a_16_lane_shape_off_its_quadrants_halves():
    with pytest.raises(HazardError, match=r"warp 0 reaches lanes 8-23, outside its quadrant 0-31 or not one of its "
                                          r"halves"):
        tile_mlir.interpret(shape_kernel("16x64b", 1, 8, 0), np.zeros((32, 32), np.uint32),
                            np.zeros((32, 32), np.uint32), target="sm_100a")


def test_a_split_past_the_allocation():
    # 16x32bx2's second half at immHalfSplitoff columns: 30 + 4 registers
    # reaches column 33 of a 32-column allocation.
    with pytest.raises(HazardError, match=r"reaches columns 0-33, in no allocation of its block"):
        tile_mlir.interpret(shape_kernel("16x32bx2", 4, 0, 0, split=30), np.zeros((32, 32), np.uint32),
                            np.zeros((32, 32), np.uint32), target="sm_100a")


@pytest.mark.parametrize("shape,count,lane_offset,column_offset", [("32x32b", 2, 0, 3), ("16x64b", 2, 16, 4),
                                                                   ("16x256b", 1, 0, 8), ("16x32bx2", 1, 0, 1)])
def test_pack_reads_the_low_halves_of_two_columns(shape, count, lane_offset, column_offset):
    # .pack::16b: a register holds the low 16 bits of the two adjacent
    # columns 2 dc and 2 dc + 1 of the shape's image (the low column's in
    # its low half).
    words = (np.arange(32)[:, None] * 1000 + np.arange(32)[None, :]) | (0xABCD << 16)
    out = np.zeros((32, 32), np.uint32)
    tile_mlir.interpret(shape_kernel(shape, count, lane_offset, column_offset, split=4, halves=True),
                        words.astype(np.uint32), out, target="sm_100a")
    for lane in range(32):
        for r in range(SHAPE_REGISTERS[shape] * count):
            dl, dc = SHAPE_IMAGES[shape](lane, r, 4)
            low = (lane_offset + dl) * 1000 + column_offset + 2 * dc
            assert out[lane, r] == low | (low + 1) << 16, (lane, r)


@pytest.mark.parametrize("shape,count", [("32x32b", 2), ("16x128b", 2), ("16x32bx2", 1)])
def test_unpack_then_pack_gives_the_registers_back(shape, count):
    # .unpack::16b writes a register's halves into the low 16 bits of two
    # columns, which .pack::16b reads back.
    given = (np.arange(32)[:, None] * 0x10203 + np.arange(32)[None, :] * 0x7001 + 5).astype(np.uint32)
    out = np.zeros((32, 32), np.uint32)
    registers = SHAPE_REGISTERS[shape] * count
    tile_mlir.interpret(shape_kernel(shape, count, 0, 0, split=4, store=True, halves=True), given, out,
                        target="sm_100a")
    assert (out[:, :registers] == given[:, :registers]).all()


def test_a_32_bit_load_of_unpacked_columns_is_undefined():
    # The columns' high halves have no value after .unpack::16b: a 32-bit
    # load of them is reported where it is stored.
    k = kernel_unpacked_then_loaded()
    with pytest.warns(InterpretWarning, match="128 of 128 elements of Out were stored undefined"):
        tile_mlir.interpret(k, np.ones((32, 2), np.uint32), np.zeros((32, 4), np.uint32), target="sm_100a")


def kernel_unpacked_then_loaded():
    @T.function
    def unpacked(In: T.Tensor((32, 2), "uint32"), Out: T.Tensor((32, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        base = one_warps_columns()
        part = T.alloc_local((2,), "uint32")
        whole = T.alloc_local((4,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], part.reshape((2, 1)), In[t, :].reshape((2, 1)))
        T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32"], base, part)
        T.cuda.tile.apply(T.ptx["tcgen05.wait::st.sync.aligned"])
        T.cuda.tile.apply(T.ptx["tcgen05.ld.sync.aligned.32x32b.x4.b32"], whole, base)
        T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t, :].reshape((4, 1)), whole.reshape((4, 1)))
        T.cuda.tile.apply(T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], base, T.uint32(32))
    return unpacked


def handed_over_store(wait_st):
    """Eight warps: warp 0 stores lanes 0-31 (one a thread, four columns),
    with or without tcgen05.wait::st, then hands them over (fences and a
    barrier) to warp 4, whose quadrant is the same lanes; warp 4 loads them
    into Out."""
    @T.function
    def hand_over(In: T.Tensor((32, 4), "uint32"), Out: T.Tensor((32, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
        t = T.thread_id()
        base = one_warps_columns(t)
        values = T.alloc_local((4,), "uint32")
        with T.if_(t < 32):
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], values.reshape((1, 4)), In[t:t + 1, :])
            T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x4.b32"], base, values)
            if wait_st:
                T.cuda.tile.apply(T.ptx["tcgen05.wait::st.sync.aligned"])
        T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        with T.if_((t >= 128) & (t < 160)):
            T.cuda.tile.apply(T.ptx["tcgen05.ld.sync.aligned.32x32b.x4.b32"], values, base)
            T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t - 128:t - 127, :], values.reshape((1, 4)))
        T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        with T.if_(t < 32):
            T.cuda.tile.apply(T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], base, T.uint32(32))
    return hand_over


def test_a_store_completes_at_its_warps_wait_st():
    # tcgen05.st is asynchronous: warp 4 reads warp 0's words only after
    # warp 0's tcgen05.wait::st; without it the load is reported, naming
    # the store.
    data = np.arange(128, dtype=np.uint32).reshape(32, 4) * 7 + 3
    out = np.zeros((32, 4), np.uint32)
    tile_mlir.interpret(handed_over_store(True), data, out, target="sm_100a")
    assert np.array_equal(out, data)
    with pytest.raises(HazardError, match=r"test_tensor_memory.py:\d+: tcgen05.ld.sync.aligned.32x32b.x4.b32: reads "
                                          r"columns that the tcgen05.st at \S*test_tensor_memory.py:\d+ writes: its "
                                          r"warp has run no tcgen05.wait::st.sync.aligned since"):
        tile_mlir.interpret(handed_over_store(False), data, np.zeros((32, 4), np.uint32), target="sm_100a")
