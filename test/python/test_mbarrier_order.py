"""Happens-before through mbarrier phases in the interpreter's race check
(interpreter/clocks.py, PTX ISA 9.0, 9.7.13.15: an arrival releases, a wait
that sees its phase complete acquires): a producer's writes before its
arrival are ordered before a consumer's reads after its wait, and nothing
else is."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T


def handoff(order="write_then_arrive", wait=True):
    """Threads 0-31 write a shared word each and arrive; threads 32-63 wait
    for the phase (a T.until loop) and read the word of thread t - 32."""

    @T.function
    def k(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        t = T.thread_id()
        buf = T.alloc_shared((32, 1), "uint32")
        bar = T.alloc_shared((1, 1), "uint64")
        r = T.alloc_local((1, 1), "uint32")
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((1, 1), "bool")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar[0:1], T.uint32(32), pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t < 32):
            T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
            if order == "arrive_then_write":
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, bar[0:1])
            T.cuda.tile.apply(T.ptx["st.shared.b32"], buf[t:t + 1], r)
            if order == "write_then_arrive":
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, bar[0:1])
        with T.if_(t >= 32):
            if wait:
                with T.until(done):
                    T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar[0:1],
                                      T.uint32(0))
            T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, buf[t - 32:t - 31])
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t - 32:t - 31], r)

    return k


def test_writes_before_the_arrival_reach_the_waiting_reader():
    a = np.arange(32, dtype=np.uint32).reshape(32, 1) * 3
    out = np.zeros_like(a)
    tile_mlir.interpret(handoff(), a, out)
    assert np.array_equal(out, a)


def test_a_write_after_the_arrival_races_with_the_reader():
    a = np.arange(32, dtype=np.uint32).reshape(32, 1)
    with pytest.raises(tile_mlir.HazardError, match=r"test_mbarrier_order.py:\d+: read-after-write race on the "
                                                    r"shared buffer of \S+ byte 0: thread 32 here, thread 0 at "
                                                    r"\S*test_mbarrier_order.py:\d+, with no barrier between"):
        tile_mlir.interpret(handoff("arrive_then_write"), a, np.zeros_like(a))


def test_a_read_without_the_wait_races_with_the_writer():
    a = np.arange(32, dtype=np.uint32).reshape(32, 1)
    with pytest.raises(tile_mlir.HazardError, match=r"read-after-write race on the shared buffer"):
        tile_mlir.interpret(handoff(wait=False), a, np.zeros_like(a))
