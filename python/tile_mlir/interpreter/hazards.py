"""What the interpreter reports: the hazards it finds (races, misused
collectives, barriers part of a block reaches, copies read before their
wait) and the loops it cannot end."""


class LoopFault(Exception):
    """A T.until loop the interpreter cannot end: it would go round forever,
    or its predicate is read before its body wrote it."""


class Stalled(LoopFault):
    """In lockstep, threads wait for what other threads would do only later
    (a loop that cannot end, a barrier arrival): run() runs the kernel
    again as streams (streams.py)."""


class CollectiveHazard:
    """A warp collective (shfl.sync) used against its rules: a thread
    outside its membermask, a source lane outside it or not executing, a
    lane of the mask that never arrives."""

    kind = "warp collective"

    def __init__(self, opcode, point, thread, lane, source, problem):
        self.opcode, self.first = opcode, point
        self.second, self.thread, self.lane, self.source, self.problem = point, thread, lane, source, problem

    def __str__(self):
        return f"{self.second}: {self.opcode} in thread {self.thread} (lane {self.lane}) {self.problem}"


class DivergentBarrier:
    """A block barrier that part of a block reached: the others never do, so
    the block hangs or the barrier's behaviour is undefined."""

    kind = "divergent barrier"

    def __init__(self, opcode, point, block, arrived, threads):
        self.opcode, self.second, self.block = opcode, point, block
        self.first, self.arrived, self.threads = point, arrived, threads

    def __str__(self):
        return (f"{self.second}: {self.opcode} reached by {self.arrived} of the {self.threads} threads "
                f"of block {self.block}; the others never arrive")


class AsyncHazard:
    """A byte that a cp.async has not delivered yet (no cp.async.wait_group
    since, in the copying thread, that covers its group), or one that an
    mbarrier's phase delivers (cp.async.bulk{.tensor} and st.async, named
    by `completed_by`: no wait has seen the phase it completes), read or
    written by a thread: it sees or overwrites what the copy has not
    written."""

    kind = "cp.async before its wait"

    def __init__(self, opcode, point, buffer, byte, copied_at, completed_by=None):
        self.opcode, self.second, self.buffer, self.byte = opcode, point, buffer, byte
        self.first, self.completed_by = copied_at, completed_by

    def __str__(self):
        copy, wait = ((self.completed_by, "no mbarrier wait has seen the phase it completes") if self.completed_by
                      else ("cp.async", "no cp.async.wait_group covers its group"))
        return (f"{self.second}: {self.opcode} touches {self.buffer or 'memory'} byte {self.byte}, which the "
                f"{copy} at {self.first} has not delivered: {wait}")


class Hazard:
    """Two threads touch one byte of shared or global memory between the
    same two barriers, at least one of them writing: the order the hardware
    picks decides the result. `first` and `second` are program points
    (``file.py:line`` of the ops), `threads` the two threads' numbers (the
    block's linear id times the block size plus the thread's), `buffer` the
    parameter or shared tile and `byte` its offset."""

    def __init__(self, kind, buffer, byte, first, second, threads, note=""):
        self.kind, self.buffer, self.byte = kind, buffer, byte
        self.first, self.second, self.threads = first, second, threads
        # Why an order the kernel may have was not seen, where one is known.
        self.note = note

    def __str__(self):
        return (f"{self.second}: {self.kind} race on {self.buffer or 'memory'} byte {self.byte}: "
                f"thread {self.threads[1]} here, thread {self.threads[0]} at {self.first}, with no "
                "barrier between them" + (f" ({self.note})" if self.note else ""))
