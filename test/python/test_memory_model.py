"""Blocks that synchronize through global memory (interpreter/memory_model.py):
the last block of a reduction, which learns it is last from an atomic
counter, and a block that spins on a flag another block sets. The race
check orders the data by the release and acquire the PTX memory model gives
(a release store or atomic, or fences around relaxed ones), and only by
them: without the release, without the acquire, or at a scope that does not
reach the other block, the data race is reported where it is."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T

BLOCKS, THREADS = 4, 64


def last_block_sum(release_fence="fence.acq_rel.gpu", counter="atom.global.add.u32",
                   acquire_fence="fence.acq_rel.gpu"):
    """Each block stores twice its row of X into Partial; thread 0 takes a
    ticket from Count (between the fences, either may be None); the block
    whose ticket is the last sums every block's partial row into Out."""

    @T.function
    def k(X: T.Tensor((BLOCKS, THREADS), "uint32"), Partial: T.Tensor((BLOCKS, THREADS), "uint32"),
          Count: T.Tensor((1, 1), "uint32"), Out: T.Tensor((THREADS, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=THREADS))
        t, b = T.thread_id(), T.block_id()
        r = T.alloc_local((1, 1), "uint32")
        total = T.alloc_local((1, 1), "uint32")
        last = T.alloc_local((1, 1), "bool")
        ticket_s = T.alloc_shared((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, X[b:b + 1, t:t + 1])
        T.cuda.tile.apply(T.ptx["add.u32"], r, r, r)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Partial[b:b + 1, t:t + 1], r)  # the partial
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t == 0):
            if release_fence:
                T.cuda.tile.apply(T.ptx[release_fence])
            T.cuda.tile.apply(T.ptx[counter], r, Count[0:1, 0:1], T.uint32(1))
            if acquire_fence:
                T.cuda.tile.apply(T.ptx[acquire_fence])
            T.cuda.tile.apply(T.ptx["st.shared.b32"], ticket_s[0:1, 0:1], r)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, ticket_s[0:1, 0:1])
        T.cuda.tile.apply(T.ptx["setp.eq.u32"], last, r, T.uint32(BLOCKS - 1))
        T.cuda.tile.apply(T.ptx["mov.b32"], total, T.uint32(0))
        for j in range(BLOCKS):
            T.cuda.tile.apply(T.ptx["ld.global.b32"], r, Partial[j:j + 1, t:t + 1], pred=last)  # the sum
            T.cuda.tile.apply(T.ptx["add.u32"], total, total, r)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], total, pred=last)

    return k


def _run_sum(kernel):
    x = np.arange(BLOCKS * THREADS, dtype=np.uint32).reshape(BLOCKS, THREADS) * 7 + 1
    partial = np.zeros_like(x)
    count = np.zeros((1, 1), np.uint32)
    out = np.zeros((THREADS, 1), np.uint32)
    tile_mlir.interpret(kernel, x, partial, count, out)
    return x, count, out


@pytest.mark.parametrize("variant", [
    dict(),
    dict(release_fence=None, counter="atom.acq_rel.gpu.global.add.u32", acquire_fence=None),
    dict(release_fence="membar.gl", acquire_fence="membar.gl"),
    dict(release_fence="fence.release.gpu", acquire_fence="fence.acquire.gpu"),
    dict(counter="atom.relaxed.sys.global.add.u32", release_fence="fence.sc.sys", acquire_fence="fence.sc.sys"),
], ids=["fences", "acq_rel atomic", "membar", "release and acquire fences", "sys"])
def test_the_last_block_reads_every_partial_ordered(variant):
    x, count, out = _run_sum(last_block_sum(**variant))
    assert count[0, 0] == BLOCKS
    assert np.array_equal(out[:, 0], (2 * x).sum(axis=0, dtype=np.uint32))


@pytest.mark.parametrize("variant", [
    dict(release_fence=None),
    dict(acquire_fence=None),
    dict(release_fence="fence.acq_rel.cta", acquire_fence="fence.acq_rel.cta"),
    dict(counter="atom.relaxed.cta.global.add.u32"),
    dict(release_fence=None, counter="atom.acquire.gpu.global.add.u32", acquire_fence=None),
    dict(release_fence=None, counter="atom.release.gpu.global.add.u32", acquire_fence=None),
], ids=["no release", "no acquire", "cta fences", "cta atomic", "acquire atomic only", "release atomic only"])
def test_without_a_release_and_an_acquire_that_reach_the_last_block_its_reads_race(variant, line_of):
    with pytest.raises(tile_mlir.HazardError) as caught:
        _run_sum(last_block_sum(**variant))
    races = {(h.kind, h.first, h.second) for h in caught.value.hazards}
    assert ("read-after-write", line_of("# the partial"), line_of("# the sum")) in races


def test_a_cta_scoped_counter_races_between_blocks(line_of):
    """Atomics of .cta scope are morally strong only within a block: on one
    global word from several blocks they race with each other."""
    with pytest.raises(tile_mlir.HazardError) as caught:
        _run_sum(last_block_sum(counter="atom.relaxed.cta.global.add.u32"))
    assert {(h.kind, h.buffer) for h in caught.value.hazards} >= {("write-after-write", "Count")}


def test_past_the_threads_whose_releases_are_tracked_a_race_says_so(monkeypatch):
    """80 blocks of 64 threads: the clocks span each block only, so the
    last block's reads of the partials are reported, and the report says
    why a release and acquire between blocks were not seen."""
    monkeypatch.setattr(__import__(__name__), "BLOCKS", 80)
    with pytest.raises(tile_mlir.HazardError) as caught:
        _run_sum(last_block_sum())
    assert any(h.kind == "read-after-write" and h.buffer == "Partial" for h in caught.value.hazards)
    assert ("releases between blocks are tracked in launches of up to 4,096 threads, and this one has 5,120: "
            "a release and acquire between them would not be seen") in str(caught.value)


def flag_handoff(publish=("st.release.gpu.global.b32",), spin="ld.acquire.gpu.global.b32"):
    """Block 1 waits for block 0's flag, then reads what block 0 stored
    before it (block 1's wait comes first in the kernel, so only blocks that
    run apart can run it). `publish`: the instructions thread 0 of block 0
    sets the flag with (an instruction name; a fence before it if two)."""

    @T.function
    def k(X: T.Tensor((128, 1), "uint32"), Data: T.Tensor((128, 1), "uint32"),
          Flag: T.Tensor((1, 1), "uint32"), Out: T.Tensor((128, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128))
        t, b = T.thread_id(), T.block_id()
        r = T.alloc_local((1, 1), "uint32")
        done = T.alloc_local((1, 1), "bool")
        with T.if_(b == 1):
            with T.if_(t == 0):
                with T.until(done):  # the spin
                    T.cuda.tile.apply(T.ptx[spin], r, Flag[0:1, 0:1])  # the flag's load
                    T.cuda.tile.apply(T.ptx["setp.eq.u32"], done, r, T.uint32(1))
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            T.cuda.tile.apply(T.ptx["ld.global.b32"], r, Data[t:t + 1])  # the read
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)
        with T.if_(b == 0):
            T.cuda.tile.apply(T.ptx["ld.global.b32"], r, X[t:t + 1])
            T.cuda.tile.apply(T.ptx["add.u32"], r, r, T.uint32(5))
            T.cuda.tile.apply(T.ptx["st.global.b32"], Data[t:t + 1], r)  # the data
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            with T.if_(t == 0):
                for name in publish[:-1]:
                    T.cuda.tile.apply(T.ptx[name])
                T.cuda.tile.apply(T.ptx[publish[-1]], Flag[0:1, 0:1], T.uint32(1))  # the flag's store

    return k


def _run_handoff(kernel):
    x = np.arange(128, dtype=np.uint32).reshape(128, 1) * 3
    data, flag, out = np.zeros_like(x), np.zeros((1, 1), np.uint32), np.zeros_like(x)
    tile_mlir.interpret(kernel, x, data, flag, out)
    return x, out


@pytest.mark.parametrize("publish,spin", [
    (("st.release.gpu.global.b32",), "ld.acquire.gpu.global.b32"),
    (("red.release.gpu.global.add.u32",), "ld.acquire.gpu.global.b32"),
    (("fence.acq_rel.gpu", "st.relaxed.gpu.global.b32"), "ld.acquire.gpu.global.b32"),
    (("st.release.sys.global.b32",), "ld.acquire.sys.global.b32"),
], ids=["release store", "release reduction", "fence and relaxed store", "sys"])
def test_a_block_waits_for_another_blocks_flag_and_reads_its_data(publish, spin):
    x, out = _run_handoff(flag_handoff(publish, spin))
    assert np.array_equal(out, x + 5)


@pytest.mark.parametrize("publish,spin", [
    (("st.relaxed.gpu.global.b32",), "ld.acquire.gpu.global.b32"),
    (("st.release.gpu.global.b32",), "ld.relaxed.gpu.global.b32"),
    (("st.release.cta.global.b32",), "ld.acquire.cta.global.b32"),
    (("st.release.gpu.global.b32",), "ld.volatile.global.b32"),
], ids=["relaxed store", "relaxed load", "cta scope", "volatile load"])
def test_a_flag_that_releases_or_acquires_nothing_leaves_the_data_racing(publish, spin, line_of):
    with pytest.raises(tile_mlir.HazardError) as caught:
        _run_handoff(flag_handoff(publish, spin))
    races = {(h.kind, h.first, h.second) for h in caught.value.hazards}
    assert ("read-after-write", line_of("# the data"), line_of("# the read")) in races


def test_a_weak_flag_is_itself_a_race(line_of):
    with pytest.raises(tile_mlir.HazardError) as caught:
        _run_handoff(flag_handoff(("st.global.b32",), "ld.global.b32"))
    races = {(h.kind, h.first, h.second) for h in caught.value.hazards}
    assert ("read-after-write", line_of("# the flag's store"), line_of("# the flag's load")) in races


def test_a_flag_that_no_block_sets_is_a_wait_that_never_ends(line_of):
    @T.function
    def k(Flag: T.Tensor((1, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32))
        r = T.alloc_local((1, 1), "uint32")
        done = T.alloc_local((1, 1), "bool")
        with T.if_(T.block_id() == 1):
            with T.until(done):  # the endless spin
                T.cuda.tile.apply(T.ptx["ld.acquire.gpu.global.b32"], r, Flag[0:1, 0:1])
                T.cuda.tile.apply(T.ptx["setp.eq.u32"], done, r, T.uint32(1))

    with pytest.raises(tile_mlir.InterpretError) as caught:
        tile_mlir.interpret(k, np.zeros((1, 1), np.uint32))
    assert str(caught.value) == (f"k: {line_of('# the endless spin')}: this loop never ends: thread 32 (and every "
                                 "thread of its warp still in it) went round without leaving while no mbarrier it "
                                 "may wait on changed, and no other warp can go on")
