"""shfl.sync (issue 26): through tile.apply, lowered as written, and run by
the interpreter from the ISA's pseudo-code, which reports a shuffle whose
source lane is outside its membermask. Expected values are numpy's, in the
butterfly's order (each step adds the partner's value), so the check is
bit-exact."""


import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T

FULL = 0xFFFFFFFF


@T.function
def warp_sum(A: T.Tensor((64, 1), "float32"), Out: T.Tensor((64, 1), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    t = T.thread_id()
    r = T.alloc_local((1, 1), "float32")
    other = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[t:t + 1])
    for offset in (16, 8, 4, 2, 1):  # unrolled while tracing
        T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], other.view("uint32"), r.view("uint32"),
                          T.uint32(offset), T.uint32(31), T.uint32(FULL))
        T.cuda.tile.apply(T.ptx["add.rn.f32"], r, r, other)
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], r)


def butterfly_sums(a):
    """Each lane's value after the five steps, in the kernel's order."""
    values = a.reshape(-1, 32).copy()
    for offset in (16, 8, 4, 2, 1):
        partner = values[:, np.arange(32) ^ offset]
        values = (values + partner).astype(np.float32)
    return values.reshape(-1, 1)


def test_a_butterfly_warp_sum_is_bit_exact_and_lowered_as_written():
    a = np.random.default_rng(7).standard_normal((64, 1)).astype("float32")
    out = np.zeros((64, 1), "float32")
    tile_mlir.interpret(warp_sum, a, out)
    assert out.tobytes() == butterfly_sums(a).tobytes()
    ptx = tile_mlir.compile(warp_sum).ptx
    lines = [" ".join(line.split()) for line in ptx.splitlines() if "shfl" in line]
    assert [line.split(",", 2)[2] for line in lines] == [
        f" {offset}, 31, -1;" for offset in (16, 8, 4, 2, 1)]
    assert all(line.startswith("shfl.sync.bfly.b32 %r") for line in lines)


@pytest.mark.parametrize("mode,b,c,expected", [
    # up by 1: lane 0 keeps its own value (j < maxLane = 0).
    ("up", 1, 0, lambda lane: lane - 1 if lane >= 1 else lane),
    # down by 2, clamp 31: the last two lanes keep theirs.
    ("down", 2, 31, lambda lane: lane + 2 if lane + 2 <= 31 else lane),
    # idx with segments of 8 (segmask 0x18 in bits 8-12): lane 3 of each.
    ("idx", 3, 0x1807, lambda lane: (lane & 0x18) | 3),
    # bfly by 5 inside segments of 8 (clamp 7, segmask 0x18).
    ("bfly", 5, 0x1807, lambda lane: lane ^ 5 if (lane ^ 5) <= ((lane & 0x18) | 7) else lane),
])
def test_each_mode_follows_the_isa_pseudocode(mode, b, c, expected):
    @T.function
    def k(A: T.Tensor((32, 1), "int32"), Out: T.Tensor((32, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[f"shfl.sync.{mode}.b32"], r, r, T.uint32(b), T.uint32(c), T.uint32(FULL))
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)

    a = (np.arange(32, dtype="int32") * 7 + 100).reshape(32, 1)
    out = np.zeros((32, 1), "int32")
    tile_mlir.interpret(k, a, out)
    assert out.ravel().tolist() == [int(a[expected(lane), 0]) for lane in range(32)]


def test_a_source_lane_outside_the_mask_is_a_hazard(line_of):
    @T.function
    def k(A: T.Tensor((32, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        with T.if_(t < 16):
            # The lower half reads the upper half, which is not in its mask.
            T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], r, r,  # the half-warp shuffle
                              T.uint32(16), T.uint32(31), T.uint32(0xFFFF))
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], r)

    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(k, np.zeros((32, 1), "int32"))
    (hazard,) = caught.value.hazards
    assert str(hazard) == (f"{line_of('# the half-warp shuffle')}: shfl.sync.bfly.b32 in thread 0 "
                           "(lane 0) reads a lane outside its membermask or not executing it")


def test_a_lane_of_the_mask_that_never_arrives_is_a_hazard(line_of):
    @T.function
    def k(A: T.Tensor((32, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        with T.if_(t < 16):
            T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], r, r,  # half the warp
                              T.uint32(1), T.uint32(31), T.uint32(FULL))
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], r)

    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(k, np.zeros((32, 1), "int32"))
    assert [str(h) for h in caught.value.hazards] == [
        f"{line_of('# half the warp')}: shfl.sync.bfly.b32 in thread 0 (lane 0) waits for lane 16 "
        "of its membermask, which does not execute it"]


def test_a_full_mask_in_a_block_of_partial_warps_is_a_located_error(line_of):
    # The block size is known once the body is traced: compiling checks it.
    @T.function
    def k(A: T.Tensor((48, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=48))
        r = T.alloc_local((1, 1), "int32")
        T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], r, r,  # a full mask
                          T.uint32(1), T.uint32(31), T.uint32(FULL))

    with pytest.raises(tile_mlir.CompileError) as caught:
        tile_mlir.compile(k)
    assert str(caught.value) == (
        f"{line_of('# a full mask')}: 'tile.apply' op membermask 0xffffffff names lanes 16-31 of "
        "the last warp, which a block of 48 threads does not have")
