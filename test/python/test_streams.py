"""Warpgroups that wait on each other (interpreter/streams.py): a producer
that refills a ring of stages once the consumer frees them, and two
warpgroups that hand each other a turn through bar.sync and bar.arrive with
a thread count. Lockstep cannot run either (the producer would wait for a
release the consumer makes only later); as streams that take turns, the
interpreter runs them to the values the PTX semantics give, and its race
check still sees a release made too early or a turn not waited for."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T

STEPS, STAGES = 6, 2


def _ring_body(A, t, finish, free_after_read=True, wait_empty=True, cluster=False):
    """Warpgroup 0 writes step s's 128 words (A[s] + thread, + 1000 in a
    cluster's block of rank 1) into stage s % 2 and arrives on its `full`
    mbarrier; warpgroup 1 waits for it, reads the word of the next thread,
    adds it to its sum and arrives on `empty`, which the producer waits for
    before it refills the stage. Then `finish(p, total)` in warpgroup 1."""
    p = t % 128
    stage_words = T.alloc_shared((STAGES, 128), "uint32")
    full = T.alloc_shared((STAGES, 1), "uint64")
    empty = T.alloc_shared((STAGES, 1), "uint64")
    r = T.alloc_local((1, 1), "uint32")
    total = T.alloc_local((1, 1), "uint32")
    state = T.alloc_local((1, 1), "uint64")
    done = T.alloc_local((1, 1), "bool")
    for s in range(STAGES):
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], full[s:s + 1], T.uint32(128), pred=t == 0)
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], empty[s:s + 1], T.uint32(128), pred=t == 0)
    if cluster:
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
    else:
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    with T.if_(t < 128):
        for j in T.serial(0, STEPS):
            stage = j % STAGES
            if wait_empty:
                with T.if_(j >= STAGES):
                    with T.until(done):
                        T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done,
                                          empty[stage:stage + 1], T.uint32((j // STAGES + 1) % 2))
            T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[j:j + 1])
            T.cuda.tile.apply(T.ptx["add.u32"], r, r, T.uint32(p))
            if cluster:
                with T.if_(T.cluster_ctarank() == 1):
                    T.cuda.tile.apply(T.ptx["add.u32"], r, r, T.uint32(1000))
            T.cuda.tile.apply(T.ptx["st.shared.b32"], stage_words[stage:stage + 1, p:p + 1], r)
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, full[stage:stage + 1])
    with T.if_(t >= 128):
        T.cuda.tile.apply(T.ptx["mov.b32"], total, T.uint32(0))
        for j in T.serial(0, STEPS):
            stage = j % STAGES
            with T.until(done):
                T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done,
                                  full[stage:stage + 1], T.uint32((j // STAGES) % 2))
            if not free_after_read:
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[stage:stage + 1])
            q = (p + 1) % 128
            T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, stage_words[stage:stage + 1, q:q + 1])
            T.cuda.tile.apply(T.ptx["add.u32"], total, total, r)
            if free_after_read:
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[stage:stage + 1])
        finish(p, total)


def ring(free_after_read=True, wait_empty=True):
    """One block of _ring_body; each consumer thread stores its sum."""

    @T.function
    def k(A: T.Tensor((STEPS, 1), "uint32"), Out: T.Tensor((128, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
        _ring_body(A, T.thread_id(),
                   lambda p, total: T.cuda.tile.apply(T.ptx["st.global.b32"], Out[p:p + 1], total),
                   free_after_read, wait_empty)

    return k


def _ring_inputs():
    a = (np.arange(STEPS, dtype=np.uint32) * 1000 + 7).reshape(STEPS, 1)
    want = (a.sum() + STEPS * ((np.arange(128) + 1) % 128)).astype(np.uint32).reshape(128, 1)
    return a, want


def test_a_producer_refills_the_ring_the_consumer_frees():
    a, want = _ring_inputs()
    out = np.zeros((128, 1), np.uint32)
    tile_mlir.interpret(ring(), a, out)
    assert np.array_equal(out, want)


def test_a_stage_freed_before_it_is_read_races_with_its_refill():
    a, _ = _ring_inputs()
    with pytest.raises(tile_mlir.HazardError, match=r"test_streams.py:\d+: write-after-read race on the shared "
                                                    r"buffer of \S+ byte \d+: thread \d+ here, thread 2\d\d at "
                                                    r"\S*test_streams.py:\d+, with no barrier between"):
        tile_mlir.interpret(ring(free_after_read=False), a, np.zeros((128, 1), np.uint32))


def test_a_producer_that_never_waits_for_the_release_can_lap_the_consumer():
    # The producer runs until it must wait, so it completes each full
    # mbarrier's phases three times before the consumer waits: the
    # consumer's second wait on a stage is for a parity already past, as on
    # a GPU where the producer runs ahead, and it never ends.
    a, _ = _ring_inputs()
    with pytest.raises(tile_mlir.InterpretError, match=r"test_streams.py:\d+: this loop never ends: thread 128 "
                                                       r"\(and every thread of its warpgroup still in it\) went "
                                                       r"round without leaving while no mbarrier it may wait on "
                                                       r"changed, and no other warpgroup can go on"):
        tile_mlir.interpret(ring(wait_empty=False), a, np.zeros((128, 1), np.uint32))


def cluster_ring(peer_waits=True, arrival="barrier.cluster.arrive.aligned"):
    """_ring_body in each block of a cluster of 2: each consumer thread
    stores its sum in the other block's `inbox` (st.shared::cluster), every
    thread arrives at and waits on barrier.cluster, and the consumer
    threads store the word their peer left them to Out. With `peer_waits`
    False, block 1 never reaches the cluster barrier; `arrival` is the
    barrier's arrival."""

    @T.function
    def k(A: T.Tensor((STEPS, 1), "uint32"), Out: T.Tensor((256, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=256, cluster=2))
        t, rank = T.thread_id(), T.cluster_ctarank()
        p = t % 128
        inbox = T.alloc_shared((128, 1), "uint32")
        r = T.alloc_local((1, 1), "uint32")

        def send(p, total):
            for peer in range(2):
                with T.if_(rank == 1 - peer):
                    T.cuda.tile.apply(T.ptx["st.shared::cluster.b32"], inbox.of_block(peer)[p:p + 1], total)

        _ring_body(A, t, send, cluster=True)
        with T.if_(rank <= (1 if peer_waits else 0)):
            T.cuda.tile.apply(T.ptx[arrival])
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
            with T.if_(t >= 128):
                T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, inbox[p:p + 1])
                T.cuda.tile.apply(T.ptx["st.global.b32"], Out[128 * rank + p:128 * rank + p + 1], r)

    return k


def test_the_blocks_of_a_cluster_wait_for_each_other_between_streams():
    # Each block's producer waits for its consumer (lockstep stalls), so
    # the kernel runs as streams, and each block's cluster barrier waits
    # for the other block's streams to arrive.
    a, want = _ring_inputs()
    out = np.zeros((256, 1), np.uint32)
    tile_mlir.interpret(cluster_ring(), a, out)
    assert np.array_equal(out[:128], want + STEPS * 1000) and np.array_equal(out[128:], want)


def test_a_cluster_barrier_a_block_never_reaches_never_completes():
    a, _ = _ring_inputs()
    with pytest.raises(tile_mlir.InterpretError, match=r"test_streams.py:\d+: barrier.cluster.wait.aligned never "
                                                       r"completes: thread 0 waits for thread 256 of its cluster "
                                                       r"to arrive, and no other warpgroup can go on"):
        tile_mlir.interpret(cluster_ring(peer_waits=False), a, np.zeros((256, 1), np.uint32))


def test_a_relaxed_arrival_orders_no_store_of_the_peer():
    a, _ = _ring_inputs()
    with pytest.raises(tile_mlir.HazardError, match=r"test_streams.py:\d+: read-after-write race on the shared "
                                                    r"buffer of \S+ byte 0: thread 128 here, thread 384 at "
                                                    r"\S*test_streams.py:\d+, with no barrier between"):
        tile_mlir.interpret(cluster_ring(arrival="barrier.cluster.arrive.relaxed.aligned"), a,
                            np.zeros((256, 1), np.uint32))


ROUNDS = 3


def turns(give_turn=True):
    """Warpgroups 0 and 1 take turns (CUTLASS's ordered ping-pong): each
    waits for its turn at bar.sync (1 + its index, 256), thread 0 of it
    reads a shared counter, records it and writes it plus one, and the
    warpgroup gives the turn to the other by bar.arrive (1 + the other's
    index, 256). Warpgroup 1 gives warpgroup 0 the first turn."""

    @T.function
    def k(Out: T.Tensor((2 * ROUNDS, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
        t = T.thread_id()
        wg = t // 128
        counter = T.alloc_shared((1, 1), "uint32")
        r = T.alloc_local((1, 1), "uint32")
        mine, others = T.alloc_local((1, 1), "uint32"), T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], mine, T.uint32(1 + wg))
        T.cuda.tile.apply(T.ptx["mov.b32"], others, T.uint32(2 - wg))
        T.cuda.tile.apply(T.ptx["mov.b32"], r, T.uint32(0))
        T.cuda.tile.apply(T.ptx["st.shared.b32"], counter[0:1], r, pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(wg == 1):
            T.cuda.tile.apply(T.ptx["bar.arrive"], T.uint32(1), T.uint32(256))
        for i in T.serial(0, ROUNDS):
            T.cuda.tile.apply(T.ptx["bar.sync"], mine, T.uint32(256))
            T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, counter[0:1], pred=t % 128 == 0)
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[2 * i + wg:2 * i + wg + 1], r, pred=t % 128 == 0)
            T.cuda.tile.apply(T.ptx["add.u32"], r, r, T.uint32(1))
            T.cuda.tile.apply(T.ptx["st.shared.b32"], counter[0:1], r, pred=t % 128 == 0)
            if give_turn:
                with T.if_((wg == 0) | (i < ROUNDS - 1)):
                    T.cuda.tile.apply(T.ptx["bar.arrive"], others, T.uint32(256))

    return k


def test_warpgroups_take_turns_through_named_barriers():
    out = np.zeros((2 * ROUNDS, 1), np.uint32)
    tile_mlir.interpret(turns(), out)
    assert np.array_equal(out.reshape(-1), np.arange(2 * ROUNDS))


def test_a_turn_never_given_never_completes():
    with pytest.raises(tile_mlir.InterpretError, match=r"test_streams.py:\d+: bar.sync never completes: thread "
                                                       r"128 waits at barrier 2 for 256 threads, and no other "
                                                       r"warpgroup can go on to arrive"):
        tile_mlir.interpret(turns(give_turn=False), np.zeros((2 * ROUNDS, 1), np.uint32))


def test_a_named_barrier_between_streams_orders_what_its_arrivals_wrote():
    # Warpgroup 1 stores its words to shared memory and arrives at barrier
    # 1 of 256 threads; warpgroup 2 syncs there and reads its neighbour's
    # word; warpgroup 0 takes no part, so the barrier orders the two
    # warpgroups' accesses through the clocks alone (lockstep cannot run
    # bar.arrive: the kernel runs as streams). A sync that learned nothing
    # from the arrivals would leave the read racing with the store.
    @T.function
    def k(Out: T.Tensor((128, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=384))
        t = T.thread_id()
        p = t % 128
        words = T.alloc_shared((128, 1), "uint32")
        r = T.alloc_local((1, 1), "uint32")
        with T.if_(t // 128 == 1):
            T.cuda.tile.apply(T.ptx["st.shared.b32"], words[p:p + 1], T.uint32(7))
            T.cuda.tile.apply(T.ptx["bar.arrive"], T.uint32(1), T.uint32(256))
        with T.if_(t // 128 == 2):
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(1), T.uint32(256))
            q = (t + 1) % 128
            T.cuda.tile.apply(T.ptx["ld.shared.b32"], r, words[q:q + 1])
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[p:p + 1], r)

    out = np.zeros((128, 1), np.uint32)
    tile_mlir.interpret(k, out)
    assert (out == 7).all()
