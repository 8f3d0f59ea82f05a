"""Where a ring of `stages` slots stands at a step: the slot (stage) and the
parity of the mbarrier phase that step waits for. Kernels computed both by
hand at every wait (``step % stages``, ``(step // stages + 1) % 2``); here
they are computed in one place, for a step known while tracing (a Python
``range``) or at runtime (a ``T.serial`` counter).

A consumer starts at phase 0: its first wait on each slot's full barrier
is for the barrier's first phase. A producer starts at phase 1 (CuTe's
producer start state): its first wait on each slot's empty barrier is for
the phase before the first, which the PTX ISA counts as complete
(``try_wait.parity`` with the parity of the immediately preceding phase),
so the first pass over the ring does not wait and needs no branch.

    state = PipelineState(stages=3)            # consumer: step 0, phase 0
    for k in range(5):
        ring.wait(state)                        # full[k % 3], parity (k // 3) % 2
        ...
        state = state.advance()
    for k in T.serial(0, steps):
        state = PipelineState(3, step=k)        # the same, from the counter
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PipelineState:
    """The state of a ring of `stages` slots at `step`, starting at phase
    `start_phase` (0: a consumer's, 1: a producer's)."""

    stages: int
    step: Any = 0  # an int, or a runtime index (T.serial's counter)
    start_phase: int = 0

    def __post_init__(self):
        if isinstance(self.stages, bool) or not isinstance(self.stages, int) or self.stages < 1:
            raise ValueError(f"a ring has at least 1 stage, got {self.stages!r}")
        if self.start_phase not in (0, 1):
            raise ValueError(f"a phase is 0 or 1, got {self.start_phase!r}")

    @classmethod
    def producer(cls, stages: int, step: Any = 0) -> "PipelineState":
        """A producer's state: its waits on the empty barriers start one
        phase back, so the first pass over the ring does not wait."""
        return cls(stages, step, start_phase=1)

    @property
    def stage(self):
        """The slot of this step: step % stages."""
        return self.step % self.stages

    @property
    def phase(self):
        """The parity of the phase this step waits for."""
        return (self.step // self.stages + self.start_phase) % 2

    def advance(self, steps: int = 1) -> "PipelineState":
        """The state `steps` later (the same ring, the same start)."""
        return PipelineState(self.stages, self.step + steps, self.start_phase)

    def behind(self, steps: int = 1) -> "PipelineState":
        """The state `steps` (at most 2 x stages) earlier: the step a
        consumer releases once a later one's wait shows it retired. Its
        step is written step + 2 x stages - steps, which has the same slot
        and parity and is never negative, so a release of step 0's
        predecessor, predicated off, still addresses a slot of the ring."""
        if not 0 <= steps <= 2 * self.stages:
            raise ValueError(f"behind takes 0 to {2 * self.stages} steps of a {self.stages}-stage ring, "
                             f"got {steps}")
        return PipelineState(self.stages, self.step + (2 * self.stages - steps), self.start_phase)
