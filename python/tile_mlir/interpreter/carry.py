"""The carry flag CC.CF: one bit of state per thread between instructions,
written by the .cc forms (add.cc, sub.cc, mad.lo.cc, addc.cc, ...) and read
by addc, subc and madc. A thread's flag is undefined until a writer runs
in it; a writer whose guard may or may not hold leaves it undefined; a
reader of an undefined flag computes an undefined result."""

import numpy as np

from .reference import INT_TYPES
from .reference_ints import carry_reference


class CarryFlag:
    def __init__(self, threads):
        self.bits = np.zeros(threads, np.uint64)
        self.defined = np.zeros(threads, bool)

    def write(self, bits, defined, where):
        """The flag of the threads in `where`: `bits`, defined where
        `defined` (the others keep theirs)."""
        self.bits = np.where(where, bits, self.bits)
        self.defined = np.where(where, defined, self.defined)


def carried(flag, form, sources):
    """(destination bits, carry-out) of a form in a carry chain, and where
    the result is defined: a reader's sources and the flag it reads."""
    ty = next(t for t in form.opcode.split(".")[1:] if t in INT_TYPES)
    quals = set(form.opcode.split(".")[1:])
    carry_in = flag.bits if form.reads_carry else None
    values, carry_out = carry_reference(form.family, ty, quals, sources.bits, carry_in)
    defined = sources.defined & (flag.defined if form.reads_carry else True)
    return values, carry_out, defined
