"""Rings of slots in shared memory: CpAsyncRing (below), and TmaRing, a TMA
producer-to-consumer ring (the shape of CuTe's PipelineTmaAsync): `stages`
slots, each with a full mbarrier (one arrival: the producer's
arrive.expect_tx, and the TMA loads' bytes) and an empty one (one arrival
per consumer thread). The verbs, at a PipelineState:

- producer: ``acquire`` (wait until the consumers freed the slot),
  ``expect`` (arrive.expect_tx of the bytes the loads will supply; its
  ``full`` tile is their mbar operand);
- consumer: ``wait`` (until the slot's bytes landed), ``release`` (each
  consumer thread arrives on empty).

    ring = TmaRing(stages=3, consumers=128)
    ring.init(where=t == 0)
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    for k in T.serial(0, steps):
        with T.if_(t == 0):                        # the producer
            put = PipelineState.producer(3, k)
            ring.acquire(put)
            ring.expect(put, box_bytes)
            T.cuda.tile.apply(load, slots[put.stage], A.tensor_map, (0, 64 * k), ring.full(put))
        get = PipelineState(3, k)                  # every consumer
        ring.wait(get)
        ...                                        # read slots[get.stage]
        ring.release(get)

What it prevents, proven in the interpreter (test_pipeline_parts.py): a
read of a slot before its wait is a hazard (its bytes have not landed), a
refill before the consumers release is a race, a release skipped leaves
the producer's wait spinning (reported), a consumer waiting on the wrong
phase spins (reported).
"""

from __future__ import annotations

from .. import script as T
from .barriers import Mbarriers, sync_block
from .state import PipelineState


class TmaRing:
    """The full and empty mbarriers of a ring of `stages` slots whose
    consumers are `consumers` threads."""

    def __init__(self, stages: int, consumers: int, name: str = "ring"):
        self.stages, self.consumers = stages, consumers
        self.full_barriers = Mbarriers(stages, name=f"{name}.full")
        self.empty_barriers = Mbarriers(stages, name=f"{name}.empty")

    def init(self, where=None, fence: bool = True) -> None:
        """Initializes every slot's barriers (in one thread: `where`) and
        fences them (`fence=False`: a kernel with several rings fences
        once, after the last); a block barrier must follow before the
        first use."""
        for stage in range(self.stages):
            self.full_barriers[stage].init(1, where)
            self.empty_barriers[stage].init(self.consumers, where)
        if fence:
            self.full_barriers.fence_init(where)

    def _check(self, state: PipelineState) -> None:
        if state.stages != self.stages:
            raise ValueError(f"a state of a {state.stages}-stage ring used on a ring of {self.stages}")

    def full(self, state: PipelineState):
        """The slot's full mbarrier as a tile: the TMA loads' mbar operand."""
        self._check(state)
        return self.full_barriers[state.stage].tile

    def acquire(self, state: PipelineState, branch_first_pass: bool = False) -> None:
        """Producer: waits until the consumers freed the slot (a producer
        state's first pass does not wait). `branch_first_pass`: the first
        pass skips the wait instead, by a branch on the step (no wait at
        all for a step known below `stages` while tracing), which is how
        the attention kernel measured fastest was written: without it,
        ptxas lays its producer loop out otherwise."""
        self._check(state)
        if not branch_first_pass:
            self.empty_barriers[state.stage].wait(state.phase)
        elif not isinstance(state.step, int):
            with T.if_(state.step >= self.stages):
                self.empty_barriers[state.stage].wait(state.phase)
        elif state.step >= self.stages:
            self.empty_barriers[state.stage].wait(state.phase)

    def expect(self, state: PipelineState, nbytes, where=None) -> None:
        """Producer: arrives on the slot's full barrier expecting `nbytes`."""
        self._check(state)
        self.full_barriers[state.stage].arrive_expect_tx(nbytes, where)

    def wait(self, state: PipelineState) -> None:
        """Consumer: waits until the slot's bytes have landed."""
        self._check(state)
        self.full_barriers[state.stage].wait(state.phase)

    def release(self, state: PipelineState, where=None) -> None:
        """Consumer: frees the slot (one arrival of each consumer thread)."""
        self._check(state)
        self.empty_barriers[state.stage].arrive(where)


class CpAsyncRing:
    """sm_80's multistage pipeline: a ring of `stages` slots that every
    thread fills with its own cp.async pieces, one commit group a step.
    Step k's slot is read once its group has landed in every thread
    (``wait``: cp.async.wait_group stages - 2, then the block's barrier,
    which also shows that every thread is done with the slot refilled
    next); no mbarrier:

        ring = CpAsyncRing(stages=3)
        for s in range(2):                      # stages - 1 steps ahead
            copy(step=s, slot=ring.slot(s))
            ring.commit()
        for k in T.serial(0, steps):
            ring.wait()                         # step k landed; slot of k - 1 free
            copy(step=k + 2, slot=ring.slot(k + 2))   # an empty group past the end
            ring.commit()
            ...                                 # read ring.slot(k)

    A read before its wait touches bytes not yet delivered, and a refill
    before the barrier races the reads of the step before: the interpreter
    reports both (test_pipeline_parts.py)."""

    def __init__(self, stages: int):
        if stages < 2:
            raise ValueError(f"a cp.async ring has at least 2 stages, got {stages}")
        self.stages = stages

    def slot(self, step):
        """The slot of `step` (an int or a runtime index)."""
        return PipelineState(self.stages, step).stage

    def commit(self) -> None:
        """cp.async.commit_group: this thread's copies since the last commit
        are the step's group (none past the end: an empty group, so that
        every step commits one and the wait's count holds)."""
        T.cuda.tile.apply(T.ptx["cp.async.commit_group"])

    def wait(self) -> None:
        """Until the oldest step's group has landed in this thread (at most
        stages - 2 newer ones pending), then the block's barrier: every
        thread's pieces are there, and every thread has read the slot
        refilled next."""
        T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(self.stages - 2))
        sync_block()
