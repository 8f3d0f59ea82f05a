"""mbarrier objects in the interpreter (interpreter/mbarrier.py, PTX ISA
9.0, 9.7.13.15): phases, parities, arrive_drop, transaction counts,
cp.async.mbarrier.arrive delivering copies, the races a single wait takes
part in, and what the ISA leaves undefined; the table's rules (ptxas 13.0)."""

import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
from mbarrier_check import THREADS, copy_then_wait, spin, waits  # noqa: E402


def run(kernel):
    out = np.full((THREADS, 4), 7, np.uint32)
    tile_mlir.interpret(kernel, out)
    return out


def test_the_arrivals_complete_phase_0():
    out = run(waits())
    # Parity 0 not complete before; after 64 arrivals: the state's phase
    # and parity 0 complete, the current phase (parity 1) not.
    assert (out == [0, 1, 1, 0]).all()


def test_fewer_arrivals_than_expected_leave_the_phase_open():
    # Parity 1 names the phase before phase 0, complete (PTX ISA 9.7.13.15.16).
    out = run(waits(count=THREADS + 1))
    assert (out == [0, 0, 0, 1]).all()


def test_a_phase_waits_for_its_transactions():
    # Every arrival is in, but 128 expected bytes never come.
    assert (run(waits(tx=128)) == [0, 0, 0, 1]).all()


def test_arrive_drop_completes_the_next_phase_with_fewer():
    # Phase 0 completes with the 64 arrivals; each thread's arrive_drop is
    # an arrival of phase 1 and drops it from later phases: phase 1 ends
    # too (parity 1 complete, the current phase 2 has parity 0).
    out = run(waits(drop=True))
    assert (out == [0, 1, 0, 1]).all()


def test_a_wait_on_arrivals_no_barrier_orders_is_a_race():
    with pytest.raises(tile_mlir.HazardError, match=r"mbarrier_check.py:\d+: read-after-write race on the shared "
                                                    r"buffer of .*: thread 0 here, thread 63 at "
                                                    r"\S*mbarrier_check.py:\d+, with no barrier between"):
        run(waits(before_barrier=False))


def test_what_the_isa_leaves_undefined_is_an_error():
    @T.function
    def uninitialized(Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        bar = T.alloc_shared((1, 1), "uint64")
        state = T.alloc_local((1, 1), "uint64")
        T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, bar[0:1])

    with pytest.raises(tile_mlir.InterpretError, match=r"mbarrier.arrive.shared::cta.b64 on an mbarrier object "
                                                       r"that was never initialized"):
        tile_mlir.interpret(uninitialized, np.zeros((32, 1), np.uint32))

    @T.function
    def completes(Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        bar = T.alloc_shared((1, 1), "uint64")
        state = T.alloc_local((1, 1), "uint64")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared.b64"], bar[0:1], T.uint32(2), pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["mbarrier.arrive.noComplete.shared.b64"], state, bar[0:1], T.uint32(1),
                          pred=t < 2)

    with pytest.raises(tile_mlir.InterpretError, match=r"mbarrier.arrive.noComplete.shared.b64 would complete "
                                                       r"the current phase \(1 arrivals pending, count 1\)"):
        tile_mlir.interpret(completes, np.zeros((32, 1), np.uint32))


def test_copies_land_when_a_wait_sees_their_phase_complete():
    a = np.arange(THREADS * 4, dtype=np.uint32).reshape(THREADS, 4)
    out = np.zeros_like(a)
    tile_mlir.interpret(copy_then_wait("loop"), a, out)
    assert np.array_equal(out, np.roll(a, -1, axis=0))


def test_a_single_wait_on_arrivals_the_copies_make_is_a_hazard():
    # On the H200 this kernel read zeros: the arrival comes when the copy
    # lands, after the one test (tools/gpu/results/mbarrier.json, first run).
    a = np.arange(THREADS * 4, dtype=np.uint32).reshape(THREADS, 4)
    with pytest.raises(tile_mlir.HazardError, match=r"mbarrier_check.py:\d+: mbarrier.test_wait.parity.shared::cta.b64 "
                                                    r"tests a phase that the cp.async.mbarrier.arrive at "
                                                    r"\S*mbarrier_check.py:\d+ completes when its copies land, "
                                                    r"which may be after this test: wait in a T.until loop"):
        tile_mlir.interpret(copy_then_wait("single"), a, np.zeros_like(a))


def test_reading_the_copies_before_the_wait_is_a_hazard():
    a = np.arange(THREADS * 4, dtype=np.uint32).reshape(THREADS, 4)
    with pytest.raises(tile_mlir.HazardError, match=r"ld.shared.v4.b32 touches the shared buffer of .* byte 16, "
                                                    r"which the cp.async at \S*mbarrier_check.py:\d+ has not "
                                                    r"delivered"):
        tile_mlir.interpret(copy_then_wait(None), a, np.zeros_like(a))


def test_the_table_takes_what_ptxas_takes():
    # Measured with ptxas 13.0 (tools/ptxas_diff: every mbarrier spelling).
    arrive = ptx.overloads("mbarrier.arrive.shared.b64")
    assert [[o.name for o in f.operands] for f in arrive] == [["state", "addr"], ["state", "addr", "count"]]
    assert [(f.min_sm, f.min_ptx) for f in arrive] == [(80, 70), (90, 78)]
    remote = ptx.parse("mbarrier.arrive.release.cluster.shared::cluster.b64")
    assert remote.sink_result and [o.name for o in remote.operands] == ["addr"]
    for spelling, message in (
            ("mbarrier.arrive.relaxed.shared.b64", "'relaxed' needs a scope in mbarrier.arrive.b64"),
            ("mbarrier.test_wait.cta.shared.b64", "'cta' needs a semantics in mbarrier.test_wait.b64"),
            ("mbarrier.arrive.noComplete.relaxed.cta.shared.b64",
             "'noComplete' cannot be combined with 'relaxed' in mbarrier.arrive.b64"),
            ("mbarrier.test_wait.shared::cluster.b64", "'shared::cluster' is not a qualifier of "
                                                       "mbarrier.test_wait.b64")):
        with pytest.raises(ptx.PTXFormError, match=message):
            ptx.parse(spelling)
    with pytest.raises(ptx.PTXFormError, match="requires .*sm_90"):
        ptx.parse("mbarrier.try_wait.parity.shared.b64", target="sm_80")


def test_until_is_the_spin_loop_as_written():
    import re
    text = " ".join(tile_mlir.compile(spin(True), target="sm_90").ptx.split())
    # The loop's block: the try_wait, the predicate negated, the branch back.
    assert re.search(r"(\$L__BB0_\d+): mov.b32 %r(\d+), 0; // begin inline asm "
                     r"mbarrier.try_wait.parity.shared::cta.b64 %p(\d+), \[%rd\d+\], %r\2; // end inline asm "
                     r"not.pred %p(\d+), %p\3; @%p\4 bra \1;", text), text


def test_a_wait_in_a_loop_ends_when_the_phase_completes_and_is_no_race():
    out = np.zeros((THREADS, 1), np.uint32)
    tile_mlir.interpret(spin(True), out)
    assert (out == 1).all()


def test_a_loop_waiting_for_arrivals_that_never_come_is_an_error():
    # Its warps run as streams, once lockstep stalls; none can go on.
    with pytest.raises(tile_mlir.InterpretError, match=r"mbarrier_check.py:\d+: this loop never ends: thread 0 "
                                                       r"\(and every thread of its warp still in it\) went round "
                                                       r"without leaving while no mbarrier it may wait on "
                                                       r"changed, and no other warp can go on"):
        tile_mlir.interpret(spin(False), np.zeros((THREADS, 1), np.uint32))


def test_until_takes_one_predicate_register():
    for make, message in ((lambda: T.alloc_local((1, 1), "uint32"), "T.until takes a predicate register"),
                          (lambda: T.alloc_local((2, 1), "bool"), "T.until takes a predicate register"),
                          (lambda: T.alloc_shared((1, 1), "bool"),
                           r"T.until's predicate is a register tile \(T.alloc_local\), not memory")):
        with pytest.raises(T.TileError, match=message):
            @T.function
            def k(Out: T.Tensor((1, 1), "uint32")):
                T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
                with T.until(make()):
                    pass


def test_a_loop_whose_body_never_sets_its_predicate_is_an_error():
    @T.function
    def k(Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        done = T.alloc_local((1, 1), "bool")
        with T.until(done):
            pass

    with pytest.raises(tile_mlir.InterpretError, match=r"test_mbarrier.py:\d+: thread 0 reads the loop's predicate "
                                                       r"before its body wrote it"):
        tile_mlir.interpret(k, np.zeros((32, 1), np.uint32))



def one_thread(count, *steps):
    """A kernel of one warp whose thread 0 initializes an object with
    `count` and then issues `steps` (spelling, extra u32 operand or None)
    on it."""

    @T.function
    def k(Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        bar = T.alloc_shared((1, 1), "uint64")
        state = T.alloc_local((1, 1), "uint64")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared.b64"], bar[0:1], T.uint32(count), pred=t == 0)
        for spelling, extra in steps:
            operands = [bar[0:1]] if spelling.startswith("mbarrier.expect_tx") else [state, bar[0:1]]
            operands += [T.uint32(extra)] if extra is not None else []
            T.cuda.tile.apply(T.ptx[spelling], *operands, pred=t == 0)

    return k


@pytest.mark.parametrize("count, steps, message", [
    (0, [], r"mbarrier.init.shared.b64: count 0 is outside 1 to 1048575"),
    (2, [("mbarrier.expect_tx.relaxed.cta.shared.b64", 1 << 20)],
     r"mbarrier.expect_tx.relaxed.cta.shared.b64: the transaction count 1048576 is outside -1048575 to 1048575"),
    (2, [("mbarrier.expect_tx.relaxed.cta.shared.b64", 8), ("mbarrier.arrive.shared.b64", 2),
         ("mbarrier.arrive.shared.b64", 1)],
     r"mbarrier.arrive.shared.b64: 1 arrivals where 0 are pending \(the phase waits for its transactions\)"),
])
def test_counts_the_isa_leaves_undefined_are_errors(count, steps, message):
    with pytest.raises(tile_mlir.InterpretError, match=message):
        tile_mlir.interpret(one_thread(count, *steps), np.zeros((32, 1), np.uint32))
