"""Warpgroup roles of a warp-specialized kernel: warpgroup 0 produces (its
registers cut by setmaxnreg.dec), the others consume (theirs raised by
setmaxnreg.inc), each role a branch on the warpgroup's index, as the
Hopper GEMM and attention write them:

    roles = WarpgroupRoles(t, registers=(40, 232))
    with roles.producer():
        ...                                  # roles.p: the thread of the warpgroup
    with roles.consumers() as c:             # c: the consumer's index, wg - 1
        ...

`registers` (producer's, consumers') per thread, or None for no
setmaxnreg. The PTX ISA asks setmaxnreg of a whole warpgroup, in
step: each role's branch is taken by whole warpgroups.
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import script as T


class WarpgroupRoles:
    """The roles of thread `t`'s warpgroup (t // 128): 0 produces, the rest
    consume."""

    def __init__(self, t, registers=None):
        if registers is not None:
            for count in registers:
                if not 24 <= count <= 256 or count % 8:
                    raise ValueError(f"setmaxnreg takes 24 to 256 registers in steps of 8, got {count}")
        self.registers = registers
        self.warpgroup, self.p = t // 128, t % 128

    @contextmanager
    def producer(self):
        """The producer warpgroup's branch, its registers cut first."""
        with T.if_(self.warpgroup == 0):
            if self.registers:
                T.cuda.tile.apply(T.ptx["setmaxnreg.dec.sync.aligned.u32"], T.uint32(self.registers[0]))
            yield

    @contextmanager
    def consumers(self):
        """The consumer warpgroups' branch, their registers raised first;
        yields the consumer's index (the warpgroup's - 1)."""
        with T.if_(self.warpgroup > 0):
            if self.registers:
                T.cuda.tile.apply(T.ptx["setmaxnreg.inc.sync.aligned.u32"], T.uint32(self.registers[1]))
            yield self.warpgroup - 1
