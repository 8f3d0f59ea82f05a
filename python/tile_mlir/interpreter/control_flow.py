"""The interpreter's handlers of control flow (HANDLERS, by op name):
scf.for, scf.while (T.until's loop: it ends, hands the turn to another
stream, or is reported as never ending), scf.if, and the kernel's end
(gpu.return: another block's access to a block's shared memory must be
ordered before the owner exits); and the register element loads and
stores of T.until's predicate and of a tuple's coordinates."""

import numpy as np

from . import arith_ops as AR
from . import races as RC
from .hazards import LoopFault, Stalled
from .reference import NotCovered


def gpu_return(interp, op):
    # Streams return one at a time: their blocks end with the last
    # (_run checks there).
    if interp.cluster != (1, 1, 1) and interp.streams is None:
        RC.check_shared_memory_outlives_access(interp)


def scf_yield(interp, op):
    pass


def scf_for(interp, op):
    # Index or 32-bit bounds (unsignedCmp: T.serial proves them in [0,
    # 2^31)), all as int64 arrays.
    lower, upper, step = (AR.signed(interp.values[v]) for v in op.operands[:3])
    if len(op.operands) > 3:
        raise NotCovered("scf.for with iteration arguments")
    body = op.regions[0].blocks[0]
    outer = interp.active
    iv = lower.copy()
    # unsignedCmp: the counter and the stop compare unsigned, so a last
    # step past 2^63 - 1 ends the loop instead of wrapping below stop.
    unsigned = "unsignedCmp" in op.attributes
    while True:
        below = iv.astype(np.uint64) < upper.astype(np.uint64) if unsigned else iv < upper
        interp.active = outer & below
        if not interp.active.any():
            break
        interp.values[body.arguments[0]] = iv.copy()
        interp.run_block(body)
        iv = iv + step
    interp.active = outer


# A loop that spins this many times is taken for one that never ends.
MAX_SPINS = 100000


def scf_while(interp, op):
    """T.until's loop: every thread still in it runs the body (the
    before region), which ends in scf.condition: the threads whose
    condition is true run the (empty) after region and go round again.
    A round in which no thread leaves and no mbarrier object changes
    repeats forever (the threads run in lockstep here, so arrivals
    written after the loop never come): a LoopFault, as is a loop past
    MAX_SPINS rounds."""
    if op.operands:
        raise NotCovered("scf.while with loop-carried values")
    where = interp.points[interp.point]
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    outer = interp.active
    looping = outer.copy()
    interp.spinning += 1
    for _ in range(MAX_SPINS):
        state = interp.mbarriers.signature()
        interp.active = looping
        interp.run_block(before)
        again = looping & interp.condition
        if not again.any():
            break
        interp.active = again
        interp.run_block(after)
        if (again == looping).all() and interp.mbarriers.signature() == state:
            thread = int(np.flatnonzero(again)[0])
            stuck = interp.mbarriers.waiting_on_bytes()
            if interp.streams is None:
                raise Stalled(f"{where}: this loop never ends: thread {thread} (and every thread still "
                              "in it) went round without leaving while no mbarrier it may wait on "
                              "changed; the interpreter runs the threads in lockstep, so what they "
                              "wait for must happen before the loop in the kernel"
                              + (f" ({stuck})" if stuck else ""))
            name = interp.streams.name
            interp.streams.wait(lambda: f"{where}: this loop never ends: thread {thread} (and every thread "
                                      f"of its {name} still in it) went round without leaving while no "
                                      f"mbarrier it may wait on changed, and no other {name} can go on"
                                      + (f" ({stuck})" if stuck else ""))
        looping = again
    else:
        raise LoopFault(f"{where}: this loop went round {MAX_SPINS} times without ending")
    interp.spinning -= 1
    interp.active = outer


def scf_condition(interp, op):
    interp.condition = interp.values[op.operands[0]].astype(bool)


def memref_load(interp, op):
    """A load of a register tile's element (T.until reads its predicate)."""
    view = interp.values[op.operands[0]]
    if not view.buffer.private:
        raise NotCovered("memref.load of memory")
    coord = [interp.values[v] for v in op.operands[1:]]
    bits, defined, _ = interp.read(view, coord)
    if not defined[interp.active].all():
        thread = int(np.flatnonzero(interp.active & ~defined)[0])
        if view.bits != 1:  # T.ewise's operand: its values are not followed as undefined
            raise NotCovered(f"an element of a register no instruction wrote (thread {thread}) as an operand "
                             "of T.ewise")
        raise LoopFault(f"{interp.points[interp.point]}: thread {thread} reads the loop's predicate before "
                              "its body wrote it: whether the loop ends is undefined")
    # A register's element: a predicate, or (bits, width) as constants and
    # T.ewise's arithmetic take it.
    interp.values[op.results[0]] = bits.astype(bool) if view.bits == 1 else (bits, view.bits)


def memref_dim(interp, op):
    """A tensor's extent along an axis (Buffer.extent): the launch's, the
    same for every thread."""
    view = interp.values[op.operands[0]]
    axis = int(interp.values[op.operands[1]][0])
    interp.values[op.results[0]] = np.broadcast_to(np.int64(view.shape[axis]), (interp.threads,))


def memref_store(interp, op):
    """A store of a scalar into a register tile (the coordinates a
    tuple gives cp.async.bulk.tensor)."""
    view = interp.values[op.operands[1]]
    if not view.buffer.private:
        raise NotCovered("memref.store to memory")
    bits, _ = interp.values[op.operands[0]]
    coord = [interp.values[v] for v in op.operands[2:]]
    interp.write(view, coord, np.asarray(bits, np.uint64), np.ones(interp.threads, bool), interp.active)


def scf_if(interp, op):
    condition = interp.values[op.operands[0]]
    outer = interp.active
    interp.active = outer & condition
    interp.run_block(op.regions[0].blocks[0])
    if len(op.regions) > 1 and op.regions[1].blocks:
        interp.active = outer & ~condition
        interp.run_block(op.regions[1].blocks[0])
    interp.active = outer


HANDLERS = {
    "gpu.return": gpu_return,
    "scf.yield": scf_yield,
    "scf.for": scf_for,
    "scf.while": scf_while,
    "scf.condition": scf_condition,
    "memref.load": memref_load,
    "memref.dim": memref_dim,
    "memref.store": memref_store,
    "scf.if": scf_if,
}
