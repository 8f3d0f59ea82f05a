"""Special registers as runtime values (issue 26): T.lane_id, T.warp_id,
T.sm_id, T.clock64, T.global_timer and T.dynamic_smem_size read %laneid,
%warpid, %smid, %clock64, %globaltimer and %dynamic_smem_size where the
kernel reads them; the interpreter gives %laneid exactly and, for the
registers the hardware picks, one value it could give."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T


@T.function
def registers(Out: T.Tensor((64, 4), "int64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    t = T.thread_id()
    o = T.alloc_local((4, 1), "int64")
    start = T.clock64()
    T.cuda.tile.apply(T.ptx["mov.b64"], o[0:1], T.int64(T.lane_id()))
    T.cuda.tile.apply(T.ptx["mov.b64"], o[1:2], T.int64(T.warp_id()))
    T.cuda.tile.apply(T.ptx["mov.b64"], o[2:3], T.int64(T.clock64() - start))
    T.cuda.tile.apply(T.ptx["mov.b64"], o[3:4],
                      T.int64(T.sm_id() + T.dynamic_smem_size() + T.global_timer()))
    T.cuda.tile.apply(T.ptx["st.global.b64"], Out[t:t + 1, :].reshape((4, 1)), o)


def test_each_register_is_read_where_the_kernel_reads_it():
    ptx = tile_mlir.compile(registers).ptx
    reads = re.findall(r"mov\.u(?:32|64)\s+%r[d]?\d+, (%\w+);", ptx)
    assert reads == ["%clock64", "%laneid", "%warpid", "%clock64", "%smid", "%dynamic_smem_size",
                     "%globaltimer"]


def test_the_interpreter_gives_the_lane_and_a_value_the_hardware_could_give():
    out = np.zeros((64, 4), np.int64)
    tile_mlir.interpret(registers, out)
    assert out[:, 0].tolist() == [t % 32 for t in range(64)]
    assert out[:, 1].tolist() == [t // 32 for t in range(64)]
    assert (out[:, 2] > 0).all()  # the clock advanced between the reads


def test_a_lane_fits_a_uint8_and_a_warp_slot_does_not():
    @T.function
    def k(Out: T.Tensor((32, 1), "uint8")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        T.cuda.tile.apply(T.ptx["st.global.u8"], Out[t:t + 1], T.uint8(T.lane_id()))

    out = np.zeros((32, 1), np.uint8)
    tile_mlir.interpret(k, out)
    assert out.ravel().tolist() == list(range(32))

    with pytest.raises(T.TileError, match=r"T\.uint8 of an index expression needs every "
                                                  r"value it takes to fit \[0, 255\]; this one "
                                                  r"has \[0, 4294967295\]"):
        @T.function
        def bad(Out: T.Tensor((32, 1), "uint8")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            T.uint8(T.warp_id())


def test_a_barrier_under_a_lane_condition_is_rejected():
    with pytest.raises(T.TileError, match=r"bar\.sync inside a T\.if_ whose condition "
                                                  r"depends on the thread"):
        @T.function
        def k(Out: T.Tensor((64, 1), "int32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
            with T.if_(T.lane_id() < 16):
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
