"""Warpgroup roles of a warp-specialized kernel: warpgroup 0 produces (its
registers cut by setmaxnreg.dec), the others consume (theirs raised by
setmaxnreg.inc), each role a branch on the warpgroup's index, as the
Hopper GEMM and attention write them:

    roles = WarpgroupRoles(t, registers=(40, 232))
    with roles.producer():
        ...                                  # roles.p: the thread of the warpgroup
    with roles.consumers() as c:             # c: the consumer's index, wg - 1
        turns = ConsumerTurns(c, NamedBarriers().allocate("turns", threads=256, count=2))
        turns.wait_turn()                    # issue this consumer's wgmma
        ...
        turns.pass_turn()

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


class ConsumerTurns:
    """Two consumer warpgroups issuing their wgmma in turns (FlashAttention
    3's scheduler barriers): consumer c waits for its turn at its barrier
    of `ids` (two named barriers of 256 threads) and gives the other its
    turn by arriving at the other's. Consumer 1 gives consumer 0 the first
    turn, and none after its last wgmma, so that every arrival is waited
    for. The ids sit in registers (moved once), as the kernels had them."""

    def __init__(self, c, ids):
        if ids.count != 2:
            raise ValueError(f"two consumers take turns at two barriers, not {ids.count}")
        self.c, self.ids = c, ids
        self.mine, self.others = T.alloc_local((1, 1), "uint32"), T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], self.mine, T.uint32(ids.id(c)))
        T.cuda.tile.apply(T.ptx["mov.b32"], self.others, T.uint32(ids.id(1 - c)))
        with T.if_(c == 1):
            ids.arrive(0)

    def wait_turn(self):
        """Waits until the other consumer gave this one its turn."""
        self.ids.sync(self.mine)

    def pass_turn(self, more=True):
        """The other's turn. `more`: whether this consumer issues wgmma
        again (False after its last, or a runtime condition in a loop):
        consumer 1 passes only while it has more, so that consumer 0 never
        waits for a turn that is not coming."""
        if more is True:
            self.ids.arrive(self.others)
            return
        with T.if_(self.c == 0 if more is False else (self.c == 0) | more):
            self.ids.arrive(self.others)
