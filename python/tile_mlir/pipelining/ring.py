"""A TMA producer-to-consumer ring (the shape of CuTe's PipelineTmaAsync):
`stages` slots, each with a full mbarrier (one arrival: the producer's
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
from .barriers import Mbarriers
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
