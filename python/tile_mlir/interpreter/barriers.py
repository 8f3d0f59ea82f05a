"""The barriers of a block and of a cluster (PTX ISA 9.7.13.1, 9.7.13.3):
bar.sync, bar.arrive and bar.red with their thread counts, in lockstep or
between streams that take turns; barrier.cluster's arrive and wait; each
joins the race check's clocks and epochs of the threads it orders, and a
barrier part of a block reaches is a hazard."""

import numpy as np

from .hazards import DivergentBarrier, LoopFault, Stalled
from .memory import View
from .reference import NotCovered


def cluster_barrier(interp, form, executing):
    """barrier.cluster.arrive and .wait (PTX ISA 9.7.13.2): an arrival
    counts each executing thread's phase; a wait completes once every
    thread of the cluster has arrived as often, and orders the accesses
    made before those arrivals (unless .relaxed) before the waiting
    thread's later ones.
    In lockstep a wait whose cluster has threads yet to arrive would
    never complete. Between streams, the phase completes at its last
    arrival (its blocks' next barrier epoch), and a wait gives the turn
    away until then."""
    tokens = form.opcode.split(".")
    where = interp.points[interp.point]
    if interp.exited.any():
        raise NotCovered(f"{form.opcode} after threads exited")
    if "arrive" in tokens:
        twice = executing & (interp.cluster_arrivals > interp.cluster_waits)
        if twice.any():
            raise LoopFault(f"{where}: {form.opcode}: thread {int(np.flatnonzero(twice)[0])} arrives again "
                            "before its barrier.cluster.wait, which the PTX ISA leaves undefined")
        phase = int(interp.cluster_arrivals[executing].max(initial=0))
        if phase >= interp.cluster_relaxed.shape[0]:
            grown = np.zeros((phase + 1, interp.threads), bool)
            grown[:interp.cluster_relaxed.shape[0]] = interp.cluster_relaxed
            interp.cluster_relaxed = grown
        threads = np.flatnonzero(executing)
        interp.cluster_relaxed[interp.cluster_arrivals[threads], threads] = "relaxed" in tokens
        interp.cluster_arrivals[executing] += 1
        if interp.streams is not None:
            for cluster in np.unique(interp.cluster_of[executing]):
                complete_cluster_phases(interp, cluster)
            interp.streams.advance()
        return
    for thread in np.flatnonzero(executing):
        members = interp.cluster_of == interp.cluster_of[thread]
        phase = interp.cluster_waits[thread] + 1
        if interp.cluster_arrivals[thread] < phase:
            raise LoopFault(f"{where}: {form.opcode}: thread {int(thread)} waits without arriving first")
        missing = members & (interp.cluster_arrivals < phase)
        if missing.any() and interp.streams is None:
            raise LoopFault(f"{where}: {form.opcode} never completes: thread {int(np.flatnonzero(missing)[0])} "
                            f"of the cluster has not arrived (each of its {int(members.sum())} threads must "
                            "arrive before the wait)")
        while missing.any():
            late = int(np.flatnonzero(missing)[0])
            interp.streams.wait(lambda: f"{where}: {form.opcode} never completes: thread {int(thread)} waits "
                                      f"for thread {late} of its cluster to arrive, and no other "
                                      f"{interp.streams.name} can go on")
            missing = members & (interp.cluster_arrivals < phase)
    interp.cluster_waits[executing] += 1
    if interp.streams is None:
        # A cluster barrier is a barrier of each of its blocks too.
        cluster_barrier_passed(interp, np.unique(interp.block_linear[executing]))


def complete_cluster_phases(interp, cluster):
    """Between streams: the phases of `cluster`'s barrier every member
    has now arrived at complete, each a barrier of its blocks."""
    members = interp.cluster_of == cluster
    while interp.cluster_arrivals[members].min() > interp.cluster_completed[cluster]:
        interp.cluster_completed[cluster] += 1
        cluster_barrier_passed(interp, np.unique(interp.block_linear[members]))


def cluster_barrier_passed(interp, blocks):
    interp.epoch[blocks] += 1
    if interp.clocks:
        interp.clocks.barrier(blocks)


def barrier(interp, form, immediates, executing):
    """A block barrier reached by the threads `executing`: every thread of
    each block must reach it (a thread count must be the block's); then
    the block's accesses before it are ordered before those after it."""
    if interp.streams is not None:
        stream_barrier(interp, form, immediates, executing)
        return
    if "arrive" in form.opcode.split("."):
        raise Stalled(f"{interp.points[interp.point]}: {form.opcode}: a producer-consumer barrier within "
                      "one warpgroup")
    blocks = interp.threads // interp.per_block
    arrived = np.bincount(interp.block_linear[executing], minlength=blocks)
    # With a count of fewer threads (a warpgroup's barrier), those that
    # reach it together, all in lockstep; it orders their accesses only,
    # through the clocks. Without a count it waits for the block's threads
    # that have not exited (PTX ISA 9.0, exit and barrier).
    count = immediates[1] if len(immediates) == 2 else interp.per_block
    partial = count != interp.per_block
    if not partial:
        count = interp.per_block - np.bincount(interp.block_linear[interp.exited], minlength=blocks)
    elif interp.exited.any():
        raise NotCovered(f"{form.opcode} with a count of threads after threads exited")
    if partial and interp.clocks is None:
        raise NotCovered(f"{form.opcode} with a count of {count} threads in a block of "
                         f"{interp.per_block}, in a kernel without mbarriers")
    for block in np.flatnonzero((arrived > 0) & (arrived != count))[:1]:
        key = ("barrier", interp.point)
        if interp.first_report(key):
            interp.hazards.append(DivergentBarrier(form.opcode, interp.points[interp.point], int(block),
                                                 int(arrived[block]), int(np.broadcast_to(count, blocks)[block])))
    if partial:
        interp.clocks.join(np.flatnonzero(executing))
        return
    interp.epoch[arrived > 0] += 1
    if interp.clocks:
        interp.clocks.barrier(np.flatnonzero(arrived > 0))


def stream_barrier(interp, form, immediates, executing):
    """A barrier between streams: the executing threads arrive, and
    those that sync wait, giving the turn away, until it completes. A
    barrier of the whole block also starts the next epoch."""
    if not executing.any():
        return  # none of this stream's threads reach it
    if interp.exited.any():
        raise NotCovered(f"{form.opcode} between warpgroups that take turns, after threads exited")
    barrier_id = immediates[0] if immediates else 0
    count = immediates[1] if len(immediates) == 2 else interp.per_block
    if "red" in form.opcode.split("."):
        raise NotCovered(f"{form.opcode} between warpgroups that take turns")
    syncing = "arrive" not in form.opcode.split(".")
    where = interp.points[interp.point]
    waits = interp.named_barriers.arrive(barrier_id, count, np.flatnonzero(executing), syncing)
    if not syncing:
        return
    thread = int(np.flatnonzero(executing)[0])
    while not interp.named_barriers.passed(waits):
        interp.streams.wait(lambda: f"{where}: {form.opcode} never completes: thread {thread} waits at "
                                  f"barrier {barrier_id} for {count} threads, and no other "
                                  f"{interp.streams.name} can go on to arrive")


def barrier_operands(interp, form, values):
    """The barrier's id and thread count (a, b): immediates, or
    registers whose value the ISA asks to be the same in every thread
    of the block."""
    found = []
    for operand, value in zip(form.operands, values):
        if operand.name not in ("a", "b"):
            continue
        if isinstance(value, View):
            bits, known, _ = interp.read(value, [0])
        else:
            bits, known = value[0], np.ones(interp.threads, bool)
        executing = interp.active
        if not known[executing].all():
            raise NotCovered(f"{form.opcode} with an undefined barrier operand {operand.name}")
        per_thread = bits[executing].astype(np.int64) & 0xFFFFFFFF
        if per_thread.size and (per_thread != per_thread[0]).any():
            if interp.streams is None:
                # Each warpgroup at its own barrier: run them as streams.
                raise Stalled(f"{interp.points[interp.point]}: {form.opcode} with operand {operand.name} "
                              "differing between threads")
            raise NotCovered(f"{form.opcode} with operand {operand.name} differing between threads")
        found.append(int(per_thread[0]) if per_thread.size else 0)
    return found


def barrier_reduction(interp, form, values, executing):
    """bar.red (PTX ISA 9.7.13.1): d of every thread of a block is the
    reduction over the block's threads of predicate c: popc counts the
    threads where it is true, and and or combine it. A thread whose c
    is undefined leaves every result of its block undefined."""
    named = {o.name: v for o, v in zip(form.operands, values)}
    c = named["c"]
    if isinstance(c, View):
        bits, known, _ = interp.read(c, [0])
    else:
        bits, known = c[0].astype(np.uint64), np.ones(interp.threads, bool)
    truth = (bits != 0) & executing
    blocks = interp.threads // interp.per_block
    count = np.bincount(interp.block_linear, weights=truth, minlength=blocks).astype(np.int64)
    arrived = np.bincount(interp.block_linear, weights=executing, minlength=blocks).astype(np.int64)
    block_known = np.bincount(interp.block_linear, weights=~known & executing, minlength=blocks) == 0
    op = next(t for t in form.opcode.split(".") if t in ("popc", "and", "or"))
    per_block = {"popc": count, "and": (count == arrived).astype(np.int64),
                 "or": (count > 0).astype(np.int64)}[op]
    result = per_block[interp.block_linear].astype(np.uint64)
    interp.write(named["d"], [0], result, block_known[interp.block_linear], executing, None)

# -- memory ----------------------------------------------------------
