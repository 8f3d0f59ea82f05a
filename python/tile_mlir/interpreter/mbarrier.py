"""mbarrier objects (PTX ISA 9.0, 9.7.13.15) and cp.async.mbarrier.arrive
(9.7.9.25.3.3) for the interpreter.

An object is 8 bytes of shared memory whose contents the ISA leaves opaque;
the interpreter keeps its state beside the bytes, keyed by the buffer and
the byte address: the current phase, the arrivals still pending in it, the
arrivals each phase expects, and the transaction count. The bytes read as
undefined.

- init sets the expected count, pending = expected, phase 0, tx 0;
- an arrival (arrive, arrive_drop; .expect_tx first adds to tx) removes
  its count from the pending arrivals (arrive_drop also from the expected
  count of later phases); expect_tx adds to tx, complete_tx removes;
- a phase completes when no arrival is pending and tx is 0: the phase
  advances and pending is reset to the expected count;
- test_wait (and try_wait, which in lockstep sees what test_wait sees)
  with a state is true once the state's phase has completed; with a parity,
  once the phase of that parity (the current or the one before) has;
- the state an arrival returns is its phase number in the low 32 bits and
  the arrivals then pending above (pending_count reads them): the ISA's
  encoding is opaque, so a kernel that stores a state stores the
  interpreter's bits, not the GPU's;
- cp.async.mbarrier.arrive attaches the thread's copies issued so far to
  the object's current phase and arrives once they complete (without
  .noinc it first adds one pending arrival, so it does not count towards
  the phase; with .noinc it does); the copies land when a thread's wait
  sees that phase complete (or at a cp.async.wait_group that covers them),
  and a read of their bytes before then is an AsyncHazard, as for
  wait_group. Its arrival is made when the copies land, so a single wait
  (not a T.until loop) that sees such a phase complete may come first on
  the GPU: an AsyncArrivalHazard (the H200 read zeros there).

What the ISA leaves undefined is an InterpretError (MbarrierFault): an
operation on an object never initialized, or invalidated; a count outside
1 to 2^20 - 1; a .noComplete arrival that would complete the phase; a
transaction count out of its range (-(2^20 - 1) to 2^20 - 1).
"""

from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import numpy as np

from . import effects as E
from . import memory_model as MM

MAX_COUNT = (1 << 20) - 1


class MbarrierFault(Exception):
    """An mbarrier operation the PTX ISA leaves undefined."""


class AsyncArrivalHazard:
    """A single wait (outside a T.until loop) that sees a phase complete
    which cp.async.mbarrier.arrive's arrivals completed: those arrive when
    the copies land, so on the GPU the wait may come first and see the
    phase incomplete (the H200 did: tools/gpu/mbarrier_check.py)."""

    kind = "wait on asynchronous arrivals"

    def __init__(self, opcode, point, arrived_at):
        self.opcode, self.second, self.first = opcode, point, arrived_at

    def __str__(self):
        return (f"{self.second}: {self.opcode} tests a phase that the cp.async.mbarrier.arrive at {self.first} "
                "completes when its copies land, which may be after this test: wait in a T.until loop")


@dataclass
class Barrier:
    expected: int
    pending: int
    phase: int = 0
    tx: int = 0
    # (phase, threads, last copy sequence number) of cp.async.mbarrier.arrive.
    attached: List[Tuple[int, np.ndarray, int]] = field(default_factory=list)
    # (phase, copy sequence number) of the TMA loads whose complete_tx
    # counts towards that phase (tma.py).
    bulk: List[Tuple[int, int]] = field(default_factory=list)
    # (phase, what completes when a wait sees it: a callable of no
    # arguments) of tcgen05.commit's arrivals (tcgen05_mma.py).
    completions: List[Tuple[int, object]] = field(default_factory=list)
    # Per phase, what each thread whose wait sees it observes (a callable
    # of the thread): tcgen05.commit's hand-over, which the thread takes
    # only after a tcgen05.fence::after_thread_sync (tcgen05_mma.py).
    observers: Dict[int, List[object]] = field(default_factory=dict)
    # The program point of an asynchronous arrival of the current phase, and
    # of each completed phase that had one.
    async_arrival: str = ""
    async_phases: Dict[int, str] = field(default_factory=dict)
    # With clocks (clocks.py): the join of the current phase's arrivers'
    # clocks, and that of each completed phase, which a wait acquires.
    released: object = None
    phase_clocks: Dict[int, np.ndarray] = field(default_factory=dict)


class Mbarriers:
    """The objects of one run."""

    def __init__(self):
        self.objects: Dict[Tuple[int, int], Barrier] = {}

    def signature(self):
        """What the objects hold now, to tell whether a round changed them."""
        return tuple(sorted((key, b.phase, b.pending, b.expected, b.tx, len(b.attached))
                            for key, b in self.objects.items()))

    def waiting_on_bytes(self):
        """Why phases whose arrivals are all made have not completed: a
        transaction count that is not zero."""
        counts = [b.tx for b in self.objects.values() if b.pending == 0 and b.tx]
        return "; ".join(f"an mbarrier with every arrival made still expects {tx} bytes" if tx > 0 else
                         f"an mbarrier with every arrival made got {-tx} bytes more than it expected "
                         "(its transaction count passed zero)" for tx in counts)

    def key(self, view, address):
        return id(view.buffer), int(address)

    def get(self, where, key, opcode):
        barrier = self.objects.get(key)
        if barrier is None:
            raise MbarrierFault(f"{where}: {opcode} on an mbarrier object that was never initialized "
                                f"(or was invalidated): byte {key[1]} of its buffer")
        return barrier


def check_count(where, opcode, name, value, low=1):
    if not low <= value <= MAX_COUNT:
        raise MbarrierFault(f"{where}: {opcode}: {name} {value} is outside {low} to {MAX_COUNT}, where the "
                            "PTX ISA leaves the result undefined")
    return value


def release(interp, barrier, thread):
    """An arrival of `thread`: the phase takes what it knows (clocks.py)."""
    if interp.clocks is None:
        return
    snapshot = interp.clocks.release(thread)
    barrier.released = snapshot if barrier.released is None else np.maximum(barrier.released, snapshot)


def complete_if_done(barrier):
    if barrier.pending == 0 and barrier.tx == 0:
        if barrier.async_arrival:
            barrier.async_phases[barrier.phase] = barrier.async_arrival
            barrier.async_arrival = ""
        if barrier.released is not None:
            barrier.phase_clocks[barrier.phase] = barrier.released
            barrier.released = None
        barrier.phase += 1
        barrier.pending = barrier.expected


class MbarrierCall:
    """One mbarrier instruction as its operations see it: the form, its
    named operands, the object's address per thread, the executing
    threads and the program point."""

    def __init__(self, interp, form, values, coord, executing):
        self.interp, self.form, self.coord, self.executing = interp, form, coord, executing
        self.tokens = form.opcode.split(".")
        self.where = interp.points[interp.point]
        self.named = {o.name: v for o, v in zip(form.operands, values)}
        self.obj = self.named["addr"]
        self.address = self.obj.addresses(coord + [0])

    def scalar(self, name):
        """(value per thread as int64, defined) of operand `name`, (None,
        all defined) when the form has none."""
        value = self.named.get(name)
        if value is None:
            return None, np.ones(self.interp.threads, bool)
        if isinstance(value, tuple):  # a scalar: (bits per thread, width)
            return np.asarray(value[0]).astype(np.int64), np.ones(self.interp.threads, bool)
        bits, defined, _ = self.interp.read(value, self.coord + [0])
        return bits.astype(np.int64), defined

    def barriers(self):
        """(thread, its Barrier) for each executing thread in ascending
        order."""
        state = self.interp.mbarriers
        for thread in np.flatnonzero(self.executing):
            yield thread, state.get(self.where, state.key(self.obj, self.address[thread]), self.form.opcode)

    def write(self, name, bits, defined):
        self.interp.write(self.named[name], self.coord + [0], bits, defined, self.executing, None)


def execute(interp, form, values, coord, executing):
    """Runs one mbarrier operation (or cp.async.mbarrier.arrive) for the
    executing threads in ascending order."""
    call = MbarrierCall(interp, form, values, coord, executing)
    # The object is 8 bytes aligned to 8 (PTX ISA 9.7.13.15.1).
    interp.check_alignment(call.obj, coord + [0], 8, executing)
    operation = call.tokens[1] if call.tokens[0] == "mbarrier" else "cp.async"
    declare_accesses(call, operation)
    run = OPERATIONS.get(operation)
    if run is None:
        raise MbarrierFault(f"{call.where}: {form.opcode} is not modelled")
    run(call)


def declare_accesses(call, operation):
    """The object's bytes are opaque: a plain read of them is undefined.
    For the race check, init and inval write them, an arrival (or a
    change of the transaction count) is an atomic update, and a wait
    reads them: a wait on arrivals of other threads that no barrier
    orders before it sees them or not as the threads happen to run (a
    race), where a wait after a barrier sees them all."""
    interp, buffer = call.interp, call.obj.buffer
    if buffer.private:
        return
    at = (call.address[call.executing][:, None] + np.arange(8)[None, :]).reshape(-1)
    lanes = np.repeat(interp.lanes[call.executing], 8)
    if operation in ("init", "inval"):
        interp.declare(E.write(buffer, at, lanes))
    elif operation in ("test_wait", "try_wait"):
        # A wait that a loop repeats until the phase completes ends the
        # same however the threads run: only a single wait can race.
        if not interp.spinning:
            interp.declare(E.read(buffer, at, lanes))
    else:
        # An mbarrier operation is atomic on its object, at any scope.
        interp.declare(E.update(buffer, at, lanes, MM.SYS))
    buffer.defined[at] = False


def copies_arrive(call):
    """cp.async.mbarrier.arrive: the thread's copies so far arrive on the
    barrier when they land (.noinc: counted in the expected arrivals)."""
    interp = call.interp
    for thread, barrier in call.barriers():
        mine = np.zeros(interp.threads, bool)
        mine[thread] = True
        barrier.attached.append((barrier.phase, mine, interp.copy_sequence))
        if "noinc" in call.tokens:
            arrive_async(interp, barrier, thread, call.where)


def arrive_async(interp, barrier, thread, where):
    """One arrival of `thread` that the hardware makes when asynchronous
    work completes (cp.async.mbarrier.arrive.noinc, tcgen05.commit), made
    now for the interpreter and marked so that a single wait seeing its
    phase complete is reported (AsyncArrivalHazard)."""
    barrier.async_arrival = where
    barrier.pending -= 1
    release(interp, barrier, thread)
    complete_if_done(barrier)


def init(call):
    count, _ = call.scalar("count")
    state = call.interp.mbarriers
    for thread in np.flatnonzero(call.executing):
        n = check_count(call.where, call.form.opcode, "count", int(count[thread]))
        state.objects[state.key(call.obj, call.address[thread])] = Barrier(expected=n, pending=n)


def inval(call):
    state = call.interp.mbarriers
    for thread in np.flatnonzero(call.executing):
        state.objects.pop(state.key(call.obj, call.address[thread]), None)


def transactions(call):
    """expect_tx and complete_tx: the phase's transaction count moves."""
    tx, _ = call.scalar("txCount")
    sign = 1 if call.tokens[1] == "expect_tx" else -1
    for thread, barrier in call.barriers():
        barrier.tx += int(tx[thread]) * sign
        check_count(call.where, call.form.opcode, "the transaction count", barrier.tx, low=-MAX_COUNT)
        complete_if_done(barrier)


def arrive(call):
    """arrive and arrive_drop (with a count, a transaction count,
    .noComplete): each thread's arrival in turn, its state the phase and
    the arrivals still pending."""
    count, _ = call.scalar("count")
    tx, _ = call.scalar("txCount")
    where, opcode = call.where, call.form.opcode
    out = np.zeros(call.interp.threads, np.uint64)
    for thread, barrier in call.barriers():
        n = 1 if count is None else check_count(where, opcode, "count", int(count[thread]))
        if tx is not None:
            barrier.tx += int(tx[thread])
            check_count(where, opcode, "the transaction count", barrier.tx, low=-MAX_COUNT)
        if "noComplete" in call.tokens and barrier.pending - n <= 0:
            raise MbarrierFault(f"{where}: {opcode} would complete the current phase ({barrier.pending} arrivals "
                                f"pending, count {n}), which .noComplete leaves undefined")
        phase = barrier.phase
        if barrier.pending - n < 0:
            raise MbarrierFault(f"{where}: {opcode}: {n} arrivals where {barrier.pending} are pending "
                                "(the phase waits for its transactions): more arrivals than a phase "
                                "expects are undefined")
        barrier.pending -= n
        release(call.interp, barrier, thread)
        if call.tokens[1] == "arrive_drop":
            barrier.expected -= n
        out[thread] = np.uint64((phase & 0xFFFFFFFF) | (max(barrier.pending, 0) << 32))
        complete_if_done(barrier)
    if "state" in call.named:
        call.write("state", out, np.ones(call.interp.threads, bool))


def wait(call):
    """test_wait and try_wait (by state or .parity): whether the phase
    waited on completed; a completed wait acquires what the phase's
    arrivals released and takes the copies attached to it."""
    interp = call.interp
    parity = "parity" in call.tokens
    operand, known = call.scalar("phaseParity" if parity else "state")
    done = np.zeros(interp.threads, np.uint64)
    for thread, barrier in call.barriers():
        if parity:
            # The phase of that parity, the current one or the one
            # before, has completed when the current parity differs.
            complete = (barrier.phase & 1) != (int(operand[thread]) & 1)
            waited = barrier.phase - 1 if complete else barrier.phase
        else:
            waited = int(operand[thread]) & 0xFFFFFFFF
            complete = barrier.phase > waited
        done[thread] = complete
        if complete and interp.clocks is not None and waited in barrier.phase_clocks:
            interp.clocks.acquire(thread, barrier.phase_clocks[waited])
        if complete:
            arrived_at = barrier.async_phases.get(waited)
            if arrived_at and not interp.spinning and interp.first_report(("async arrival", interp.point)):
                interp.hazards.append(AsyncArrivalHazard(call.form.opcode, call.where, arrived_at))
            deliver_attached(interp, barrier, waited)
            for observe in barrier.observers.get(waited, ()):
                observe(thread)
    call.write("waitComplete", done, known)


# What each mbarrier operation does (cp.async: cp.async.mbarrier.arrive).
OPERATIONS = {"cp.async": copies_arrive, "init": init, "inval": inval, "expect_tx": transactions,
              "complete_tx": transactions, "arrive": arrive, "arrive_drop": arrive, "test_wait": wait,
              "try_wait": wait}


def pending_count(interp, form, values, coord, executing):
    named = {o.name: v for o, v in zip(form.operands, values)}
    bits, defined, _ = interp.read(named["state"], coord + [0])
    interp.write(named["count"], coord + [0], (bits >> np.uint64(32)) & np.uint64(0xFFFFFFFF), defined,
                 executing, None)


def deliver_attached(interp, barrier, phase):
    """The copies attached to phases up to `phase` land, cp.async's and the
    TMA loads', and the tcgen05.mma that commits arrive for complete."""
    for attached_phase, sequence in barrier.bulk:
        if attached_phase <= phase:
            interp.deliver_bulk(sequence)
    barrier.bulk = [(p, s) for p, s in barrier.bulk if p > phase]
    for attached_phase, complete in barrier.completions:
        if attached_phase <= phase:
            complete()
    barrier.completions = [(p, c) for p, c in barrier.completions if p > phase]
    kept = []
    for attached_phase, threads, sequence in barrier.attached:
        if attached_phase <= phase:
            interp.deliver_copies(threads, sequence, tracked=False)
        else:
            kept.append((attached_phase, threads, sequence))
    barrier.attached = kept
