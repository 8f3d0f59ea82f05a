"""Blackwell's tensor memory (PTX ISA 9.0, 9.7.16), the first part: each
block's 128 lanes x 512 columns of 32-bit words; tcgen05.alloc, dealloc and
relinquish_alloc_permit with cta_group::1; tcgen05.st and tcgen05.ld of the
32x32b shape; their waits. A TMEM address is the lane in its high half and
the column in its low half.

- alloc: nCols (a power of two from 32 to 512) columns at the lowest
  multiple of nCols free in the block, owned by the allocating warp; the
  address (lane 0) is written to the shared destination by the warp's
  first thread. An allocation that cannot be met waits forever on the chip:
  here it is a MemoryFault naming the columns held. alloc after the block
  relinquished its permit is a fault too.
- dealloc: the allocation that starts at taddr, with its nCols, by the
  warp that made it. Another warp's, an address that starts none or a
  wrong size are hazards; one never freed when the kernel ends is one.
- st / ld: warp w of the block reaches the lanes 32 (w % 4) to
  32 (w % 4) + 31 only (its quadrant). From the address (lane L, column
  c), thread l's register r is at (L + dl, c + dc) (`image`, the seed
  system's table, each shape checked against CUTLASS's SM100 TMEM copy
  traits):
    32x32b   (l, r)
    16x64b   (l//4 + 8 (l%2), l//2%2 + 2r)
    16x128b  (l//4 + 8 (r%2), l%4 + 4 (r//2))
    16x256b  (l//4 + 8 (r//2%2), r%2 + 2 (l%4) + 8 (r//4))
    16x32bx2 (l%16, r + immHalfSplitoff (l//16))
  A 16-lane shape takes the first or the second half of the quadrant.
  With .pack::16b (ld) a register holds two columns, the low 16 bits of
  columns c + 2 dc and c + 2 dc + 1 (CUTLASS's _16b traits: the same
  register layout over the 32-bit columns' low halves); .unpack::16b (st)
  writes a register's halves there, and the columns' high halves become
  undefined (the ISA gives them no value).
  Another quadrant's lanes, columns outside the warp's block's
  allocations and a freed allocation are hazards, reported at the
  instruction's line; nothing is moved there.
- ld's registers are the load's until tcgen05.wait::ld: a read or write of
  them before it is a hazard at that line.
- st's words are the store's until its warp's tcgen05.wait::st (st is
  asynchronous: wait::st is what waits for its completion): another
  warp's tcgen05.ld of them, or a tcgen05.mma reading them (A, or D with
  enable-input-d), before it is a hazard at that line, naming the st.
  (The same warp's ld after its own st is not reported.)

- The hand-off (9.7.16.6): a warp's use of an allocation after another
  warp's, across a barrier, needs tcgen05.fence::before_thread_sync after
  the first use and tcgen05.fence::after_thread_sync after the barrier;
  a missing one is a hazard at the second use.

tcgen05.mma and tcgen05.commit: tcgen05_mma.py; tcgen05.cp: tcgen05_copy.py. Not yet:
cta_group::2 and shift (refused, NotCovered)."""

from __future__ import annotations

import numpy as np

from . import warp_collectives as WC
from .reference import NotCovered

LANES, COLUMNS = 128, 512


class TensorMemoryHazard:
    """A tensor-memory rule broken at a program point."""

    kind = "tensor memory"

    def __init__(self, point, opcode, problem):
        self.point, self.opcode, self.problem = point, opcode, problem

    def __str__(self):
        return f"{self.point}: {self.opcode}: {self.problem}"


class State:
    """Each block's words and their defined bits, its allocations (start
    column -> (columns, owning warp, program point)), what was freed (start
    -> columns) and whether it relinquished its permit; each warp's
    loads not yet waited for."""

    def __init__(self, blocks):
        self.words = np.zeros((blocks, LANES, COLUMNS), np.uint32)
        self.defined = np.zeros((blocks, LANES, COLUMNS), bool)
        # Whether each word's low 16 bits are defined (what .pack::16b
        # reads; .unpack::16b defines them alone).
        self.half_defined = np.zeros((blocks, LANES, COLUMNS), bool)
        # The program point of the tcgen05.mma that writes each word, until a
        # wait sees the phase its tcgen05.commit arrives on (0: none); each
        # issuing thread's tcgen05.mma not yet committed, and those not yet
        # complete (tcgen05_mma.py).
        self.mma_pending = np.zeros((blocks, LANES, COLUMNS), np.int32)
        # Likewise of the tcgen05.mma that reads each word as its A.
        self.mma_reading = np.zeros((blocks, LANES, COLUMNS), np.int32)
        # The tcgen05.st that writes each word until its warp's
        # tcgen05.wait::st (0: none), and that warp's first thread.
        self.st_pending = np.zeros((blocks, LANES, COLUMNS), np.int32)
        self.st_warp = np.full((blocks, LANES, COLUMNS), -1, np.int32)
        # The instruction of each asynchronous program point above that is
        # not a tcgen05.mma (tcgen05.cp), as the reports name it.
        self.issuers = {}
        # The commit (a number, tokens) whose completion last handed each
        # word over; each thread's commits seen by a wait with no
        # tcgen05.fence::after_thread_sync of its warp since ({number:
        # the commit's line}).
        self.handed_over = np.zeros((blocks, LANES, COLUMNS), np.int32)
        self.tokens = {}
        self.unfenced = {}
        self.uncommitted = {}
        self.mma_in_flight = {}
        self.allocations = [dict() for _ in range(blocks)]
        self.freed = [dict() for _ in range(blocks)]
        self.relinquished = np.zeros(blocks, bool)
        self.loads = {}
        # The hand-off rule: per (block, allocation start), each warp's last
        # access (barrier epoch, program point, whether a
        # fence::before_thread_sync followed it); per (block, warp), the
        # epoch of its last fence::after_thread_sync.
        self.accesses = {}
        self.fenced_after = {}
        # The accesses of the instruction running now, recorded when every
        # warp of it was checked against the accesses before it.
        self.recording = []

    def token_id(self, token):
        """The number of a commit's (program point, phase), from 1."""
        return self.tokens.setdefault(token, len(self.tokens) + 1)


def state(interp) -> State:
    if interp.tensor_memory is None:
        interp.tensor_memory = State(max(interp.threads // interp.per_block, 1))
    return interp.tensor_memory


def report(interp, problem, key=None):
    if interp.first_report(("tensor memory", interp.point, key or problem)):
        interp.hazards.append(TensorMemoryHazard(interp.points[interp.point], interp.current_opcode, problem))


def execute(interp, apply):
    """One tcgen05 tile.apply."""
    tokens = apply.opcode.split(".")
    name = tokens[1]
    if name.startswith("fence::"):
        executing, _ = apply.executing(interp)
        for first in _warps(interp, executing):
            _fence(interp, first, before=name == "fence::before_thread_sync")
        return
    if interp.per_block % 32:
        raise NotCovered(f"tensor memory in a block that is not whole warps ({apply.opcode})")
    if "cta_group::2" in tokens:
        raise NotCovered(f"tensor memory of a CTA pair ({apply.opcode}; docs/families/tcgen05.md)")
    if name not in _HANDLERS and name != "ld":
        raise NotCovered(f"tensor memory ({apply.opcode}; docs/families/tcgen05.md)")
    executing, _ = apply.executing(interp)
    # .sync.aligned: every lane of a warp executes it (a missing one is a
    # hazard, and its warp is run as the lanes that did).
    WC.whole_warps(interp, apply.form, executing)
    for coord in apply.repeats():
        if name == "ld":
            _load(interp, apply, coord, _warps(interp, executing))
            continue
        for first in _warps(interp, executing):
            _HANDLERS[name](interp, apply, coord, first)
    st = state(interp)
    for key, warp, entry in st.recording:
        st.accesses.setdefault(key, {})[warp] = entry
    st.recording.clear()


def _warps(interp, executing):
    """The first thread of each warp of which a thread executes the
    instruction."""
    return sorted({int(t) for t in interp.warp_first[executing]})


def scalar(interp, value, coord, thread):
    """A scalar operand's (register's) value in `thread`, or None where it
    is undefined."""
    if isinstance(value, tuple):  # a constant: one value, or one a thread
        bits = np.asarray(value[0]).reshape(-1)
        return int(bits[thread if bits.size > 1 else 0])
    if isinstance(value, np.ndarray):  # a condition, one a thread
        return int(value[thread])
    bits, known, _ = interp.read(value, coord + [0])
    return int(bits[thread]) if known[thread] else None


def _fence(interp, first, before):
    """fence::before_thread_sync marks the warp's accesses so far as
    released to a later thread sync; fence::after_thread_sync acquires
    what a barrier since handed over."""
    st = state(interp)
    block, warp = _block_and_warp(interp, first)
    if not before:
        st.fenced_after[block, warp] = int(interp.epoch[block])
        for thread in range(first, first + 32):
            st.unfenced.pop(thread, None)
        return
    for (b, _), by_warp in st.accesses.items():
        if b == block and warp in by_warp:
            epoch, point, _ = by_warp[warp]
            by_warp[warp] = (epoch, point, True)


def _hand_off(interp, first, start):
    """The warp's access of the allocation at `start` after another warp's
    across a barrier (PTX ISA 9.7.16.6): the other's access, then
    fence::before_thread_sync, the barrier, then this warp's
    fence::after_thread_sync. A missing fence is a hazard here."""
    st = state(interp)
    block, warp = _block_and_warp(interp, first)
    epoch = int(interp.epoch[block])
    by_warp = st.accesses.setdefault((block, start), {})
    for other, (then, point, fenced) in sorted(by_warp.items()):
        if other == warp or then == epoch:
            continue
        if not fenced:
            report(interp, f"warp {warp} uses the tensor memory that warp {other} used at "
                           f"{interp.points[point]} across a barrier, with no tcgen05.fence::before_thread_sync "
                           "between that use and the barrier", key=("before", point))
        elif st.fenced_after.get((block, warp), -1) != epoch:
            report(interp, f"warp {warp} uses the tensor memory that warp {other} used at "
                           f"{interp.points[point]} across a barrier, with no tcgen05.fence::after_thread_sync "
                           "since the barrier", key=("after", warp, point))
    st.recording.append(((block, start), warp, (epoch, interp.point, False)))


def _block_and_warp(interp, first):
    block = int(interp.block_of(np.array([first]))[0])
    return block, (first % interp.per_block) // 32


def _alloc(interp, apply, coord, first):
    st = state(interp)
    block, warp = _block_and_warp(interp, first)
    columns = scalar(interp, apply.values[1], coord, first)
    if columns not in (32, 64, 128, 256, 512):
        raise interp.fault(interp.lanes == first, f"allocates {columns} columns: a power of two from 32 to 512")
    if st.relinquished[block]:
        raise interp.fault(interp.lanes == first, "allocates after its block relinquished the permit "
                                                  "(tcgen05.relinquish_alloc_permit)")
    held = st.allocations[block]
    used = np.zeros(COLUMNS, bool)
    for start, (width, _, _) in held.items():
        used[start:start + width] = True
    start = next((s for s in range(0, COLUMNS, columns) if not used[s:s + columns].any()), None)
    if start is None:
        raise interp.fault(interp.lanes == first, f"waits forever for {columns} columns: the block's "
                                                  f"allocations hold {int(used.sum())} of {COLUMNS}")
    held[start] = (columns, warp, interp.point)
    st.freed[block].pop(start, None)
    st.accesses.pop((block, start), None)
    _hand_off(interp, first, start)
    where = interp.lanes == first
    address = np.full(interp.threads, start, np.uint64)
    interp.write(apply.values[0], coord + [0], address, np.ones(interp.threads, bool), where)


def _dealloc(interp, apply, coord, first):
    st = state(interp)
    block, warp = _block_and_warp(interp, first)
    taddr = scalar(interp, apply.values[0], coord, first)
    columns = scalar(interp, apply.values[1], coord, first)
    held = st.allocations[block]
    start = None if taddr is None else taddr & 0xFFFF
    if start not in held or taddr >> 16:
        report(interp, f"frees address {taddr if taddr is None else hex(taddr)}, which starts no allocation of "
                       "its block")
        return
    width, owner, _ = held[start]
    if owner != warp:
        report(interp, f"warp {warp} frees the columns {start}-{start + width - 1} that warp {owner} allocated")
        return
    if columns != width:
        report(interp, f"frees {columns} columns of an allocation of {width}")
        return
    _hand_off(interp, first, start)
    del held[start]
    st.freed[block][start] = width


def _relinquish(interp, apply, coord, first):
    block, _ = _block_and_warp(interp, first)
    state(interp).relinquished[block] = True


SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")


def image(shape, registers, split=0):
    """(lane, column) offsets from the address of each thread's registers:
    two (32, registers) arrays (module docstring's table)."""
    lane, r = np.arange(32)[:, None], np.arange(registers)[None, :]
    if shape == "32x32b":
        return lane + 0 * r, r + 0 * lane
    if shape == "16x64b":
        return lane // 4 + 8 * (lane % 2) + 0 * r, lane // 2 % 2 + 2 * r
    if shape == "16x128b":
        return lane // 4 + 8 * (r % 2), lane % 4 + 4 * (r // 2)
    if shape == "16x256b":
        return lane // 4 + 8 * (r // 2 % 2), r % 2 + 2 * (lane % 4) + 8 * (r // 4)
    return lane % 16 + 0 * r, r + split * (lane // 16)  # 16x32bx2


class _Access:
    """What one warp's ld or st reaches: its block, and the lane and column
    of each thread's registers (32 x registers)."""

    def __init__(self, block, lanes, columns):
        self.block, self.lanes, self.columns = block, lanes, columns


def _reach(interp, apply, coord, first, registers):
    """The warp's _Access at taddr, or None where a rule is broken
    (reported)."""
    st = state(interp)
    block, warp = _block_and_warp(interp, first)
    storing = apply.opcode.startswith("tcgen05.st")
    taddr = scalar(interp, apply.values[0 if storing else 1], coord, first)
    if taddr is None:
        report(interp, "reads its address from a register never written")
        return None
    shape = next(t for t in apply.opcode.split(".") if t in SHAPES)
    split = 0
    if shape == "16x32bx2":
        split = scalar(interp, apply.values[1 if storing else 2], coord, first)
    lane, column = taddr >> 16, taddr & 0xFFFF
    quadrant, height = 32 * (warp % 4), 32 if shape == "32x32b" else 16
    if lane not in (quadrant, quadrant + 32 - height):
        report(interp, f"warp {warp} reaches lanes {lane}-{lane + height - 1}, outside its quadrant {quadrant}-"
                       f"{quadrant + 31}" + (" or not one of its halves" if height == 16 else "") +
               " (warp w reaches lanes 32 (w % 4) to 32 (w % 4) + 31)")
        return None
    lanes, columns = image(shape, registers, split)
    if "pack::16b" in apply.opcode.split(".") or "unpack::16b" in apply.opcode.split("."):
        # Two 16-bit halves a register, in two adjacent columns.
        lanes, columns = np.stack([lanes, lanes], -1), np.stack([2 * columns, 2 * columns + 1], -1)
    last = column + int(columns.max())
    start = allocation_holding(st, block, column, last - column + 1)
    if start is None:
        freed = any(s <= column < s + width for s, width in st.freed[block].items())
        what = "a freed allocation" if freed else "no allocation of its block"
        report(interp, f"reaches columns {column}-{last}, in {what}")
        return None
    _hand_off(interp, first, start)
    access = _Access(block, lane + lanes, column + columns)
    pending = st.mma_pending[access.block, access.lanes, access.columns]
    if pending.any():
        point = int(pending[pending != 0][0])
        issued = interp.points[point]
        report(interp, f"{'writes' if storing else 'reads'} columns that the {issuer(st, point)} at {issued} "
                       "writes: no wait has seen the phase its tcgen05.commit arrives on", key=("mma", issued))
    _check_fenced(interp, st, first, access)
    if not storing:
        check_stored(interp, (access.block, access.lanes, access.columns), reader_warp=first)
    if storing:
        reading = st.mma_reading[access.block, access.lanes, access.columns]
        if reading.any():
            issued = interp.points[int(reading[reading != 0][0])]
            report(interp, f"writes columns that the tcgen05.mma at {issued} reads as its A: no wait has "
                           "seen the phase its tcgen05.commit arrives on", key=("mma A", issued))
    return access


def allocation_holding(st, block, column, n):
    """The start of the block's allocation that holds columns `column` to
    `column` + n - 1, or None."""
    for start, (width, _, _) in st.allocations[block].items():
        if start <= column and column + n <= start + width:
            return start
    return None


def _store(interp, apply, coord, first):
    registers = apply.form.operands[-1].count
    reached = _reach(interp, apply, coord, first, registers)
    if reached is None:
        return
    st, warp = state(interp), np.arange(first, first + 32)
    for r in range(registers):
        bits, known, _ = interp.read(apply.values[-1], coord + [r])
        bits, known = bits[warp].astype(np.uint32), known[warp]
        if reached.lanes.ndim == 3:  # .unpack::16b: the halves' columns; their high halves undefined
            for half in range(2):
                at = (reached.block, reached.lanes[:, r, half], reached.columns[:, r, half])
                st.words[at] = (bits >> (16 * half)) & 0xFFFF
                st.defined[at], st.half_defined[at] = False, known
            continue
        at = (reached.block, reached.lanes[:, r], reached.columns[:, r])
        st.words[at] = bits
        st.defined[at] = st.half_defined[at] = known
    _stored(st, reached, first, interp.point)


def _stored(st, reached, first, point):
    """The words the warp's st writes, the st's until its wait::st."""
    at = (reached.block, reached.lanes, reached.columns)
    st.st_pending[at], st.st_warp[at] = point, first


def check_stored(interp, at, reader_warp=None, what="reads"):
    """A read of words (at: block, lanes, columns) whose tcgen05.st has not
    completed: its warp has run no tcgen05.wait::st since (reported, naming
    the st). `reader_warp`: the reading warp's first thread, whose own
    stores are not counted."""
    st = state(interp)
    pending = st.st_pending[at]
    if reader_warp is not None:
        pending = np.where(st.st_warp[at] == reader_warp, 0, pending)
    if pending.any():
        issued = interp.points[int(pending[pending != 0][0])]
        report(interp, f"{what} columns that the tcgen05.st at {issued} writes: its warp has run no "
                       "tcgen05.wait::st.sync.aligned since (a tcgen05.st completes at its warp's wait::st)",
               key=("st", issued))


def _load(interp, apply, coord, firsts):
    """The warps' loads, written to the registers at once (one write a
    register for every warp, so that no warp's pending load is taken for
    another's access)."""
    registers = apply.form.operands[0].count
    st, view = state(interp), apply.values[0]
    reached = [(first, _reach(interp, apply, coord, first, registers)) for first in firsts]
    reached = [(first, at) for first, at in reached if at is not None]
    where = np.zeros(interp.threads, bool)
    for first, _ in reached:
        where[first:first + 32] = True
    for r in range(registers):
        bits = np.zeros(interp.threads, np.uint64)
        known = np.zeros(interp.threads, bool)
        for first, access in reached:
            bits[first:first + 32], known[first:first + 32] = _gather(st, access, r)
        interp.write(view, coord + [r], bits, known, where)
    for first, _ in reached:
        own = np.zeros(interp.threads, bool)
        own[first:first + 32] = True
        for r in range(registers):
            _pending(interp, view, coord + [r], own)
        st.loads.setdefault(first, []).append((view.buffer, own))


def _gather(st, access, r):
    """(bits, defined) of register r of each of the warp's threads; with
    .pack::16b the low halves of its two columns (a half stored by
    .unpack::16b is defined though its column's word is not)."""
    if access.lanes.ndim == 2:
        at = (access.block, access.lanes[:, r], access.columns[:, r])
        return st.words[at], st.defined[at]
    low, high = ((access.block, access.lanes[:, r, h], access.columns[:, r, h]) for h in range(2))
    bits = (st.words[low] & 0xFFFF) | ((st.words[high] & 0xFFFF) << 16)
    return bits, st.half_defined[low] & st.half_defined[high]


def _pending(interp, view, coord, where):
    """Marks the load's destination bytes as the load's until wait::ld."""
    buffer, nbytes = view.buffer, max(view.bits, 8) // 8
    if buffer.tmem_pending is None:
        buffer.tmem_pending = np.zeros(buffer.data.shape, np.int32)
    threads = np.flatnonzero(where)
    at = view.addresses(coord)[threads][:, None] + np.arange(nbytes)
    buffer.tmem_pending[threads[:, None], at] = interp.point


def _wait(interp, apply, coord, first):
    st = state(interp)
    if apply.opcode.startswith("tcgen05.wait::ld"):
        for buffer, where in st.loads.pop(first, []):
            buffer.tmem_pending[where] = 0
        return
    done = st.st_warp == first  # wait::st: the warp's stores complete
    st.st_pending[done], st.st_warp[done] = 0, -1


def check_registers(interp, buffer, at, writing):
    """A read or write, by the active threads, of registers a tcgen05.ld
    still holds (before its tcgen05.wait::ld)."""
    pending = buffer.tmem_pending[interp.lanes, at]
    bad = (pending != 0) & interp.active
    if bad.any():
        issued = interp.points[int(pending[bad][0])]
        verb = "writes" if writing else "reads"
        report(interp, f"{verb} a register that the tcgen05.ld at {issued} loads: no tcgen05.wait::ld.sync.aligned "
                       "since", key=("pending", issued))


def awaiting_fence(interp, thread, token, where):
    """`thread`'s wait saw the phase of the commit `token` (at `where`):
    the words it hands over are the thread's after a
    tcgen05.fence::after_thread_sync (PTX ISA 9.7.16.6)."""
    st = state(interp)
    st.unfenced.setdefault(thread, {})[st.token_id(token)] = where


def _check_fenced(interp, st, first, access):
    """A warp's ld or st of words a commit handed over to a thread of it
    whose wait has had no tcgen05.fence::after_thread_sync since."""
    waiting = [(thread, st.unfenced[thread]) for thread in range(first, first + 32) if st.unfenced.get(thread)]
    if not waiting:  # the common case: no index of the words' hand-overs
        return
    handed = st.handed_over[access.block, access.lanes, access.columns]
    numbers = [int(number) for number in np.unique(handed[handed != 0])]
    for thread, waited in waiting:
        for number in numbers:
            if number in waited:
                report(interp, f"thread {thread} uses the words the tcgen05.commit at {waited[number]} hands "
                               "over with no tcgen05.fence::after_thread_sync since its wait saw the phase",
                       key=("unfenced", number))
                return


def issuer(st, point):
    """The asynchronous tcgen05 instruction issued at `point`."""
    return st.issuers.get(point, "tcgen05.mma")


def check_exit(interp):
    """At the kernel's end: every allocation freed, every tcgen05.mma
    committed."""
    if interp.tensor_memory is None:
        return
    for thread, issued in interp.tensor_memory.uncommitted.items():
        if issued and interp.first_report(("never committed", issued[0].point)):
            name = issuer(interp.tensor_memory, issued[0].point)
            interp.hazards.append(TensorMemoryHazard(
                interp.points[issued[0].point], name,
                f"thread {thread}'s {name} is never committed: no tcgen05.commit tracks its completion"))
    for block, held in enumerate(interp.tensor_memory.allocations):
        for start, (width, warp, point) in held.items():
            key = ("never freed", point)
            if interp.first_report(key):
                interp.hazards.append(TensorMemoryHazard(
                    interp.points[point], "tcgen05.alloc",
                    f"block {block}'s columns {start}-{start + width - 1} (warp {warp}) are never freed: the "
                    "kernel ends without tcgen05.dealloc"))


# The instructions run warp by warp (tcgen05.ld runs its warps at once:
# _load).
_HANDLERS = {"alloc": _alloc, "dealloc": _dealloc, "relinquish_alloc_permit": _relinquish, "st": _store,
             "wait::ld": _wait, "wait::st": _wait}
