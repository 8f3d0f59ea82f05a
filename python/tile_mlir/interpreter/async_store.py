"""st.async (PTX ISA 9.0, 9.7.9.12) and red.async (9.7.13.7) for the
interpreter: a thread's registers stored into (or reduced into) the shared
memory of a block of its cluster (its own, or another's through
tile.mapa), the bytes' transaction completed on the mbarrier `mbar` of
that same block.

The store is asynchronous: its bytes are in flight, as a bulk copy's, until
a wait sees the phase its complete_tx counts towards complete, and a thread
of the destination block reads them only after such a wait (an access
before is an AsyncHazard at the reader's line, as for a TMA load). The
ISA's requirements are faults at the store's line: the address aligned to
the bytes it stores, inside the buffer, and `mbar` in the block `a` names.
A generic address (no .shared::cluster) must fall in shared memory (the
verifier keeps another block's, through tile.mapa, to .shared::cluster);
one in a tensor is a fault at the line.

red.async's reduction is atomic: it is computed when its phase completes,
from the bytes there then, the reductions of one phase in the order they
were issued (add, min, max, and, or and xor do not depend on it; inc and
dec do where they wrap, which the hardware may order otherwise). Its
bytes are left to the AsyncHazard of an access before they land, not
race-checked against other red.async of the same bytes (atomic, as
intended) or the accesses before it.
"""

from __future__ import annotations

import numpy as np

from . import tma
from .atomics import atomic_result
from .memory import element_bytes
from .reference import MemoryFault


def execute(interp, form, values, group, executing):
    """Runs one st.async for the executing threads, each repeat in turn."""
    combine = _reduction(form) if form.family == "red.async" else None
    named = {o.name: v for o, v in zip(form.operands, values)}
    target, registers, mbar = named["a"], named["b"], named["mbar"]
    for name, view in (("a", target), ("mbar", mbar)):
        if not view.buffer.shared:
            # A generic address outside shared memory: the ISA defines
            # none (the verifier proves a .shared::cluster view's space).
            raise MemoryFault(f"{interp.points[interp.point]}: {form.opcode}: its {name} is not in shared memory "
                              f"({view.buffer.name or 'a tensor'}): the ISA defines st.async and red.async there only")
    count, nbytes = registers.shape[-1], element_bytes(registers.bits)
    shape = registers.shape[len(group):-1]
    for coord in np.ndindex(*shape):
        coord = list(group) + list(coord)
        words = [interp.read(registers, coord + [i]) for i in range(count)]
        at = np.stack([target.addresses(coord + [i]) for i in range(count)], axis=1)
        barriers = mbar.addresses(coord + [0])
        for thread in np.flatnonzero(executing):
            place, block = _place(interp, form, (target, at[thread]), (mbar, barriers[thread]), thread)
            data = np.concatenate([_bytes(bits[thread], nbytes) for bits, _, _ in words])
            defined = np.repeat([bool(known[thread]) for _, known, _ in words], nbytes)
            own = int(interp.block_linear[thread])
            tma.issue_load(interp, form, thread, tma.Landing(target.buffer, place, data, defined, combine),
                           tma.TxTarget(mbar, coord=tuple(coord) + (0,)), remote=combine is not None or block != own)


def _place(interp, form, stored, barrier, thread):
    """(byte addresses, block) of what `thread` stores (`stored`: the view
    and its elements' first bytes; `barrier`: the mbarrier's view and
    address), checked as the ISA requires."""
    (view, first), (mbar, mbar_at) = stored, barrier
    buffer, start, size = view.buffer, int(first[0]), len(first) * element_bytes(view.bits)
    point = f"{interp.points[interp.point]}: {form.opcode}: thread {thread}"
    if start < 0 or start + size > buffer.data.size:
        raise MemoryFault(f"{point} stores past {buffer.name or 'its buffer'}")
    if start % size:
        raise MemoryFault(f"{point}'s address is {start % size} bytes past a multiple of {size}, the bytes it "
                          "stores (the ISA requires the alignment)")
    block = start // buffer.block_bytes if buffer.block_bytes else 0
    mbar_block = int(mbar_at) // mbar.buffer.block_bytes if mbar.buffer.block_bytes else 0
    if mbar_block != block:
        raise MemoryFault(f"{point}'s mbarrier is in block {mbar_block} and its address in block {block}: the ISA "
                          "requires both in the same block")
    return start + np.arange(size), block


def _reduction(form):
    """combine(old bytes, operand bytes) -> the bytes red.async's reduction
    leaves: atom/red's value of each operation (atomics.atomic_result:
    integers wrap, min and max compare as the type's signedness says)."""
    op = next(t for t in form.opcode.split(".") if t in ("add", "min", "max", "and", "or", "xor", "inc", "dec"))
    operand = next(o for o in form.operands if o.name == "b")

    def combine(old, value):
        new, _ = atomic_result(op, operand.type, operand.bits, int.from_bytes(old.tobytes(), "little"),
                               int.from_bytes(value.tobytes(), "little"), 0)
        return np.frombuffer(new.to_bytes(operand.bits // 8, "little"), np.uint8)
    return combine


def _bytes(bits, nbytes):
    """A register's low `nbytes` bytes, little-endian."""
    return np.frombuffer(int(bits).to_bytes(8, "little")[:nbytes], np.uint8)
