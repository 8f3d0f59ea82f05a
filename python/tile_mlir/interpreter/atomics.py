"""atom and red (PTX ISA 9.7.13.5): each executing thread's
read-modify-write in ascending thread order, the value each op leaves,
and the accesses the race check and the memory model see."""

from types import SimpleNamespace

import numpy as np

from . import effects as E
from . import memory_model as MM
from . import reference as R
from .memory import View, mask_bits
from .reference import MemoryFault


def atomic_result(op, kind, bits, old, b, c, shared=False):
    """The value an atomic leaves in memory (PTX ISA 9.7.13.5), on the bits
    of one location, and whether those bits are defined: integers wrap;
    floats are the instruction of their kind (add.rn.ftz.f32: atom.add.f32
    flushes subnormals, PTX ISA, atom; add.rn.f64; add.noftz and min/max of
    halves lane by lane), NaNs included: measured on the H200 (difftest
    --kind atomics), each is the NaN that instruction makes
    (reference.hardware_nans), so an f64 sum of two NaNs is undefined. An
    f32 add on a `shared` cell, whatever address space the form names,
    keeps subnormals: ptxas makes it a compare-and-swap loop around a FADD
    without FTZ (measured on the H200, tools/gpu/atomic_add_f32.py)."""
    mask = (1 << bits) - 1

    def signed(v):
        return v - (1 << bits) if kind.startswith("s") and v >> (bits - 1) else v
    if op == "and":
        return old & b, True
    if op == "or":
        return old | b, True
    if op == "xor":
        return old ^ b, True
    if op == "exch":
        return b, True
    if op == "cas":
        return (c if old == b else old), True
    if op == "inc":
        return (0 if old >= b else old + 1), True
    if op == "dec":
        return (b if old == 0 or old > b else old - 1), True
    if kind in FLOAT_ATOMIC_ADDS:
        opcode = FLOAT_ATOMIC_ADDS[kind] if op == "add" else f"{op}.{kind}"
        if opcode == "add.rn.ftz.f32" and shared:
            opcode = "add.rn.f32"
        form = SimpleNamespace(opcode=opcode, family=op, operands=[])
        value = R.reference(form, [np.array([old], R.UINT[bits]), np.array([b], R.UINT[bits])])
        defined = True
        if isinstance(value, R.Partial):
            value, defined = value.values, bool(value.defined.all())
        return int(np.asarray(value).reshape(-1)[0]), defined
    if op == "add":
        return (old + b) & mask, True
    pick = min if op == "min" else max
    return pick(signed(old), signed(b)) & mask, True


# The instruction a float atomic add computes, by the type of b (min and
# max, of halves only, are min/max of the type).
FLOAT_ATOMIC_ADDS = {"f32": "add.rn.ftz.f32", "f64": "add.rn.f64",
                     **{k: "add.rn." + k for k in ("f16", "bf16", "f16x2", "bf16x2")}}


def atomic(interp, form, values, coord, executing):
    """atom/red: each executing thread, in ascending thread order (one of
    the orders the hardware may take; integer add, min, max, and, or and
    xor do not depend on it), reads the location, writes op(old, b{, c})
    and, for atom, returns old; a vector form (sm_90) does so for each
    of its elements. Atomics never race with each other; with plain
    accesses they do."""
    tokens = form.opcode.split(".")
    op = next(t for t in tokens if t in ("and", "or", "xor", "exch", "cas", "add", "inc", "dec",
                                           "min", "max"))
    value_operand = next(o for o in form.operands if o.name == "b")
    kind, bits = value_operand.type, value_operand.bits
    memory_index = next(i for i, o in enumerate(form.operands) if o.space != "reg")
    view = values[memory_index]
    if value_operand.count > 1 and form.operands[memory_index].space == "generic" and view.buffer.shared \
            and executing.any():
        raise MemoryFault(f"{interp.points[interp.point]}: {form.opcode}: thread {int(np.flatnonzero(executing)[0])}'s "
                          f"generic address is in {view.buffer.name or 'shared memory'}; the PTX ISA defines "
                          "vector atomics on global memory only")
    registers = [(i, o) for i, o in enumerate(form.operands) if o.space == "reg" and o.role == "src"]
    for element in range(value_operand.count):
        atomic_element(interp, form, values, coord + [element], executing, op, kind, bits, view, registers)


def atomic_element(interp, form, values, coord, executing, op, kind, bits, view, registers):
    def operand(index):
        value = values[index]
        if isinstance(value, View):
            # The bits of a NaN an instruction made are the chip's: what
            # an atomic computes from them is unknown.
            read, defined, nan = interp.read(value, coord)
            return read & mask_bits(bits), defined & ~nan
        return value[0] & mask_bits(bits), np.ones(interp.threads, bool)
    sources = [operand(i) for i, _ in registers]
    address = view.addresses(coord)
    nbytes = bits // 8
    buffer = view.buffer
    old = np.zeros(interp.threads, np.uint64)
    old_defined = np.zeros(interp.threads, bool)
    old_nan = np.zeros(interp.threads, bool)
    for thread in np.flatnonzero(executing):
        at = address[thread] + np.arange(nbytes)
        word = int.from_bytes(buffer.data[at].tobytes(), "little")
        made_nan = bool(buffer.nan[at].any())
        known = bool(buffer.defined[at].all()) and all(d[thread] for _, d in sources)
        b = int(sources[0][0][thread])
        new, exact = atomic_result(op, kind, bits, word, b,
                                    int(sources[1][0][thread]) if len(sources) > 1 else 0, buffer.shared)
        old[thread], old_defined[thread], old_nan[thread] = word, known, made_nan
        buffer.data[at] = np.frombuffer(new.to_bytes(nbytes, "little"), np.uint8)
        # An exchange stores b as it is; anything else computed from a
        # made NaN's bits is unknown.
        buffer.defined[at] = known and exact and (op == "exch" or not made_nan)
        buffer.nan[at] = False
    if not buffer.private:
        lanes = interp.lanes[executing]
        at = (address[executing][:, None] + np.arange(nbytes)[None, :]).reshape(-1)
        each = np.repeat(lanes, nbytes)
        order = MM.order_of(form)
        span = np.repeat(address[executing] * 16 + nbytes, nbytes)
        interp.declare(E.update(buffer, at, each, order.strength, span))
        if interp.sync is not None:
            # Each thread's read-modify-write in the order they ran,
            # so that each acquires what those before it released.
            for lane in lanes.tolist():
                mine = at[each == lane]
                interp.sync.after_read(buffer, mine, np.full(mine.size, lane), order)
                interp.sync.after_write(buffer, mine, np.full(mine.size, lane), order, rmw=True)
        interp.progress()
    if form.family == "atom":
        dst = next(v for o, v in zip(form.operands, values) if o.role == "dst")
        interp.write(dst, coord, old, old_defined, executing, old_nan)
