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
