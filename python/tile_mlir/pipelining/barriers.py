"""mbarrier objects (PTX ISA 9.7.13.15): a 64-bit object in shared memory
whose phase completes once its expected arrivals have arrived and its
expected transaction bytes have been supplied. ``Mbarriers(n)`` declares
n of them; each ``Mbarrier`` has the verbs a kernel spells by hand, one
instruction each (``wait`` is the ``try_wait`` loop of ``T.until``):

    bars = Mbarriers(2)
    bars[0].init(arrivals=1, where=t == 0)
    bars.fence_init(where=t == 0)                 # before the block's barrier
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    bars[0].arrive_expect_tx(4096, where=t == 0)  # a TMA load completes it
    bars[0].wait(phase=0)

Every operation is a ``shared::cta`` one of the block's own object, but
``arrive_remote``, which arrives (``.release.cluster``) on the same object
of another block of the cluster.

``NamedBarriers`` gives the block's named barriers (bar.sync / bar.arrive
ids 1 to 15) by name, so two parts of a kernel never meet at one id with
different thread counts (undefined in the PTX ISA; the interpreter reports
it):

    named = NamedBarriers()
    turns = named.allocate("turns", threads=256, count=2)    # ids 1, 2
    stores = named.allocate("stores", threads=128, count=2)  # ids 3, 4
    turns.arrive(1 - c)
    turns.sync(c)
"""

from __future__ import annotations

from .. import script as T

INIT = "mbarrier.init.shared::cta.b64"
ARRIVE = "mbarrier.arrive.shared::cta.b64"
ARRIVE_EXPECT_TX = "mbarrier.arrive.expect_tx.shared::cta.b64"
ARRIVE_REMOTE = "mbarrier.arrive.release.cluster.shared::cluster.b64"
TRY_WAIT = "mbarrier.try_wait.parity.shared::cta.b64"
FENCE_INIT = "fence.mbarrier_init.release.cluster"


def _guard(where):
    """The predicate keyword of an apply: none, or the condition."""
    return {} if where is None else {"pred": where}


class Mbarriers:
    """`count` mbarrier objects of the block, one shared buffer (8 bytes
    each, aligned to 8), declared where the kernel's body starts. Indexed by
    an int or a runtime index (a ring's stage)."""

    def __init__(self, count: int, name: str = ""):
        self.count = count
        self.objects = T.alloc_shared((count,), "uint64", align=8, name=name)
        # The 64-bit state arrive returns, which no kernel here reads.
        self.state = T.alloc_local((1,), "uint64")
        self.done = T.alloc_local((1,), "bool")

    def __getitem__(self, index) -> "Mbarrier":
        return Mbarrier(self, index)

    def fence_init(self, where=None) -> None:
        """fence.mbarrier_init.release.cluster: makes the initializations
        visible to the cluster (and the async proxy) before their first
        use; a block barrier after it orders them for the block."""
        T.cuda.tile.apply(T.ptx[FENCE_INIT], **_guard(where))


class Mbarrier:
    """Object `index` of an Mbarriers."""

    def __init__(self, group: Mbarriers, index):
        self.group, self.index = group, index

    @property
    def tile(self):
        """The object as a one-element shared tile (a TMA load's mbar)."""
        return self.group.objects[self.index:self.index + 1]

    def init(self, arrivals: int, where=None) -> None:
        """mbarrier.init: each phase expects `arrivals` arrivals (in one
        thread: `where`, e.g. t == 0)."""
        T.cuda.tile.apply(T.ptx[INIT], self.tile, T.uint32(arrivals), **_guard(where))

    def arrive(self, where=None) -> None:
        """mbarrier.arrive: one arrival of each executing thread, with
        release semantics at the block's scope."""
        T.cuda.tile.apply(T.ptx[ARRIVE], self.group.state, self.tile, **_guard(where))

    def arrive_expect_tx(self, nbytes, where=None) -> None:
        """mbarrier.arrive.expect_tx: one arrival, and `nbytes` more bytes
        the phase waits for (a TMA load's complete_tx supplies them)."""
        T.cuda.tile.apply(T.ptx[ARRIVE_EXPECT_TX], self.group.state, self.tile, T.uint32(nbytes),
                          **_guard(where))

    def arrive_remote(self, rank, where=None) -> None:
        """mbarrier.arrive.release.cluster.shared::cluster: one arrival on
        this object of the block of cluster rank `rank`."""
        remote = self.group.objects.of_block(rank)[self.index:self.index + 1]
        T.cuda.tile.apply(T.ptx[ARRIVE_REMOTE], remote, **_guard(where))

    def wait(self, phase) -> None:
        """Spins on mbarrier.try_wait.parity until the phase of parity
        `phase` (an int or a runtime index) has completed."""
        done = self.group.done
        with T.until(done):
            T.cuda.tile.apply(T.ptx[TRY_WAIT], done, self.tile, T.uint32(phase))


def sync_block() -> None:
    """bar.sync 0: every thread of the block (barrier 0, which
    NamedBarriers never gives)."""
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))


class NamedBarriers:
    """The block's named barriers, allocated by name in the order asked
    (id 0 is the whole block's barrier, bar.sync 0, and is never given)."""

    LAST = 15

    def __init__(self):
        self.groups = {}
        self.next_id = 1

    def allocate(self, name: str, threads: int, count: int = 1) -> "NamedBarrierGroup":
        """`count` barriers of `threads` threads each (a multiple of 32),
        the next free ids, under `name`."""
        if name in self.groups:
            raise ValueError(f"named barriers {name!r} are allocated already")
        if threads % 32 or threads < 32:
            raise ValueError(f"a named barrier counts whole warps, not {threads} threads")
        if self.next_id + count - 1 > self.LAST:
            raise ValueError(f"{name!r} needs {count} more named barriers; ids 1 to {self.LAST} are "
                             f"{self.next_id - 1} taken")
        group = NamedBarrierGroup(name, self.next_id, count, threads)
        self.groups[name] = group
        self.next_id += count
        return group


class NamedBarrierGroup:
    """Barriers `base` to `base + count - 1`, each of `threads` threads."""

    def __init__(self, name: str, base: int, count: int, threads: int):
        self.name, self.base, self.count, self.threads = name, base, count, threads

    def id(self, i=0):
        """The id of barrier `i` of the group (an int, or an index
        expression: a consumer's own barrier)."""
        if isinstance(i, int) and not 0 <= i < self.count:
            raise ValueError(f"{self.name!r} has barriers 0 to {self.count - 1}, not {i}")
        return self.base + i

    def _operand(self, i):
        """The id operand: the group's id `i`, or a register that holds one
        (a kernel may keep its barrier's id in a register)."""
        return i if isinstance(i, T.Buffer) else T.uint32(self.id(i))

    def sync(self, i=0) -> None:
        """bar.sync on barrier `i`: arrive, and wait for all `threads`."""
        T.cuda.tile.apply(T.ptx["bar.sync"], self._operand(i), T.uint32(self.threads))

    def arrive(self, i=0) -> None:
        """bar.arrive on barrier `i`: arrive without waiting."""
        T.cuda.tile.apply(T.ptx["bar.arrive"], self._operand(i), T.uint32(self.threads))
