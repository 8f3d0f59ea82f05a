"""isspacep, cvta and getctarank (PTX ISA 9.0, 9.7.9.20-23): a view's
address read as a value (Form.address_value), no byte of it accessed.

- isspacep.space p, a: whether the generic address a falls in the window
  of the state space. A tensor is global memory; a block's shared buffer
  is in the .shared::cta (and .shared) window of that block and in the
  .shared::cluster window of every block of its cluster; a local buffer
  is .local. No view is in .const or .param memory, so those are false.
- getctarank{.shared::cluster} d, a: the rank in the cluster of the block
  whose shared memory holds a (through tile.mapa, another block's). An
  address outside shared memory has no rank (the ISA leaves d undefined):
  a fault at the line, as for the other undefined accesses.
- cvta: the address's number in the other window is the chip's (the ISA
  defines no value, and the interpreter's memory has no numbered
  addresses), so the result is undefined, as createpolicy's is; a use of
  it (a store) is reported as undefined where it is stored.
"""

from __future__ import annotations

import numpy as np

from .reference import MemoryFault


def execute(interp, apply):
    """Runs one isspacep, cvta or getctarank for the executing threads,
    each repeat in turn."""
    form, (result, address) = apply.form, apply.values
    space = next((t for t in form.opcode.split(".")[1:] if t not in ("to", "u64")), "")
    for coord in apply.repeats():
        executing, known = apply.executing(interp, coord)
        where = executing if known is None else executing & known
        if form.family == "isspacep":
            value, defined = _in_window(interp, address, coord, space), np.ones(interp.threads, bool)
        elif form.family == "getctarank":
            value, defined = _rank(interp, form, address, coord, where), np.ones(interp.threads, bool)
        else:
            value, defined = np.zeros(interp.threads, np.uint64), np.zeros(interp.threads, bool)
        interp.write(result, coord + [0], value.astype(np.uint64), defined, where)


def _blocks(view, coord):
    """Per thread, the block whose shared memory holds the view's element
    (its byte address over the buffer's bytes a block)."""
    return view.addresses(coord + [0]) // view.buffer.block_bytes


def _in_window(interp, view, coord, space):
    """isspacep's predicate per thread: the view's buffer in `space`'s
    window (module docstring)."""
    buffer = view.buffer
    if space == "global":
        return np.full(interp.threads, not (buffer.shared or buffer.private))
    if space == "local":
        return np.full(interp.threads, buffer.private)
    if space in ("shared", "shared::cta"):
        if not buffer.shared:
            return np.zeros(interp.threads, bool)
        return _blocks(view, coord) == interp.block_linear
    if space == "shared::cluster":
        return np.full(interp.threads, buffer.shared)
    return np.zeros(interp.threads, bool)  # const, param, param::entry


def _rank(interp, form, view, coord, where):
    """getctarank's d per thread: the cluster rank of the block that holds
    the view's element."""
    if not view.buffer.shared:
        thread = int(np.flatnonzero(where)[0]) if where.any() else 0
        raise MemoryFault(f"{interp.points[interp.point]}: {form.opcode}: thread {thread}'s address is in "
                          f"{view.buffer.name or 'a tensor'}, not in shared memory: the ISA defines no rank for it")
    block = _blocks(view, coord)
    gx, gy, _ = interp.grid
    cx, cy, _ = interp.cluster
    bid = (block % gx, block // gx % gy, block // (gx * gy))
    position = [b % c for b, c in zip(bid, interp.cluster)]
    return position[0] + cx * (position[1] + cy * position[2])
