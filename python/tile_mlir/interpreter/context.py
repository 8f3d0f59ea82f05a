"""What a stream of threads runs with (streams.py swaps it as one object
when streams take turns): its SSA values, the threads running now, the
last scf.condition, where it is, how many T.until loops it is in, and the
opcode it runs. The machine reads and writes these through its context."""

from dataclasses import dataclass, field

import numpy as np


@dataclass
class ExecutionContext:
    active: np.ndarray
    values: dict = field(default_factory=dict)
    condition: object = None
    point: int = 0
    spinning: int = 0
    current_opcode: str = ""


def delegated(name: str) -> property:
    """A machine attribute that is its context's."""
    return property(lambda machine: getattr(machine.context, name),
                    lambda machine, value: setattr(machine.context, name, value),
                    doc=f"The running stream's {name} (ExecutionContext).")


def active_threads() -> property:
    """The machine's `active`: its context's, never again a thread that
    executed exit (machine.exited), whatever mask control flow restores."""
    return property(lambda machine: machine.context.active,
                    lambda machine, value: setattr(machine.context, "active", value & ~machine.exited),
                    doc="The running stream's threads that run now, less those that exited.")
