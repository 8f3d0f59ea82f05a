#!/usr/bin/env python3
"""mbarrier on the H200 against the interpreter (issue #28): the kernels of
test_mbarrier.py (phases and parities after a barrier, a phase left open by
a missing arrival or by expected bytes, arrive_drop, a try_wait spin loop,
cp.async copies handed to an mbarrier with cp.async.mbarrier.arrive.noinc)
run on the GPU, and each output is compared bit for bit with the
interpreter's (interpreter/mbarrier.py).

    python tools/gpu/mbarrier_check.py build build/mbarrier
    PYTHONPATH=python python tools/gpu/mbarrier_check.py run build/mbarrier report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python")]

import bit_cases  # noqa: E402

THREADS = 64


def waits(before_barrier=True, arrive="mbarrier.arrive.shared::cta.b64", count=THREADS, tx=0, drop=False):
    """Thread 0 initializes the object (count), every thread arrives (with
    `arrive`), a barrier, and each thread records four waits: parity 0
    before the arrivals, then the state's phase, parity 0 and parity 1
    after them. `tx`: thread 0 expects that many bytes first; `drop`:
    every thread arrives a second time with arrive_drop."""
    from tile_mlir import script as T

    @T.function
    def k(Out: T.Tensor((THREADS, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        bar = T.alloc_shared((1, 1), "uint64")
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((4, 1), "bool")
        r = T.alloc_local((4, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar[0:1], T.uint32(count), pred=t == 0)
        if tx:
            T.cuda.tile.apply(T.ptx["mbarrier.expect_tx.relaxed.cta.shared::cta.b64"], bar[0:1], T.uint32(tx),
                              pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["mbarrier.test_wait.parity.shared::cta.b64"], done[0:1], bar[0:1], T.uint32(0))
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx[arrive], state, bar[0:1])
        if drop:
            T.cuda.tile.apply(T.ptx["mbarrier.arrive_drop.shared::cta.b64"], state, bar[0:1])
        if before_barrier:
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["mbarrier.test_wait.shared::cta.b64"], done[1:2], bar[0:1], state)
        T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done[2:3], bar[0:1], T.uint32(0))
        T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done[3:4], bar[0:1], T.uint32(1))
        for i in range(4):
            T.cuda.tile.apply(T.ptx["selp.b32"], r[i:i + 1], T.uint32(1), T.uint32(0), done[i:i + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1, :].reshape((4, 1)), r)

    return k


def copy_then_wait(wait):
    """Each thread copies its 16 bytes into shared memory with cp.async,
    cp.async.mbarrier.arrive.noinc (its arrival, made when the copy lands),
    a barrier, then waits for parity 0 (`wait`: "loop", a T.until loop of
    try_wait; "single", one test_wait; None, none) and reads the next
    thread's bytes."""
    from tile_mlir import script as T

    @T.function
    def k(A: T.Tensor((THREADS, 4), "uint32"), Out: T.Tensor((THREADS, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        bar = T.alloc_shared((1, 1), "uint64")
        tile = T.alloc_shared((THREADS, 4), "uint32")
        done = T.alloc_local((1, 1), "bool")
        r = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar[0:1], T.uint32(THREADS), pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], tile[t:t + 1, :], A[t:t + 1, :], T.uint32(16))
        T.cuda.tile.apply(T.ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], bar[0:1])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        if wait == "loop":
            with T.until(done):
                T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar[0:1], T.uint32(0))
        elif wait == "single":
            T.cuda.tile.apply(T.ptx["mbarrier.test_wait.parity.shared::cta.b64"], done, bar[0:1], T.uint32(0))
        n = (t + 1) % THREADS
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], r, tile[n:n + 1, :])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1, :], r)

    return k


def spin(arrive_first):
    """Each thread arrives (or not), then spins on try_wait.parity 0 in a
    T.until loop, and stores what its predicate ended as."""
    from tile_mlir import script as T

    @T.function
    def k(Out: T.Tensor((THREADS, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        bar = T.alloc_shared((1, 1), "uint64")
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((1, 1), "bool")
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar[0:1], T.uint32(THREADS), pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        if arrive_first:
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, bar[0:1])
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar[0:1], T.uint32(0))
        T.cuda.tile.apply(T.ptx["selp.b32"], r, T.uint32(1), T.uint32(0), done)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)

    return k


def cases():
    """(name, kernel, inputs): the arrays the kernel reads and writes."""
    a = np.arange(THREADS * 4, dtype=np.uint32).reshape(THREADS, 4)
    out4 = lambda: np.full((THREADS, 4), 7, np.uint32)  # noqa: E731
    return [("phase_0_completes", waits(), [out4()]),
            ("one_arrival_missing", waits(count=THREADS + 1), [out4()]),
            ("bytes_expected", waits(tx=128), [out4()]),
            ("arrive_drop", waits(drop=True), [out4()]),
            ("spin_loop", spin(True), [np.zeros((THREADS, 1), np.uint32)]),
            ("copies_by_mbarrier", copy_then_wait("loop"), [a, np.zeros_like(a)])]


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    index = []
    for name, kernel, arrays in cases():
        tile_mlir.interpret(kernel, *arrays)
        tile_mlir.compile(kernel, target="sm_90").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, arrays))
    bit_cases.write_index(out_dir, index, "mbarrier")


def run(out_dir, report_path):
    bit_cases.run(out_dir, report_path, "mbarrier")


if __name__ == "__main__":
    {"build": build, "run": run}[sys.argv[1]](*sys.argv[2:])
