"""The race check: each access of shared or global memory recorded per
cell of the buffer's grain (memory.MAX_GRAIN; each a byte's history: its writer, readers, their blocks, barrier epochs, clocks and
atomic spans), and checked against the accesses before it: two threads
touching one byte, at least one writing, with nothing ordering them (a
barrier of the block, an mbarrier phase, release and acquire through
memory, a cluster barrier), is a hazard, reported once per kind and pair
of program points. A byte a copy in flight has not delivered is one too.
"""

import numpy as np

from . import memory_model as MM
from .hazards import AsyncHazard, Hazard
from . import cells as C
from . import effects as E
from . import tma as T
from .memory import MANY, NOBODY, View

# Clocks over every thread (release and acquire between blocks) are kept
# in launches of up to this many threads.
MAX_CLOCK_THREADS = 1 << 12


def either(a, b):
    """The union of two masks, either of which may be None (not known)."""
    return b if a is None else a if b is None else a | b


def same_span(strong, spans, at, span):
    """`strong` (morally strong pairs, or None) where both accesses are
    atomics over the same bytes, or either span is unknown: a u32 atomic
    and a b16 atom.cas on one word overlap without covering the same
    bytes, which the memory model makes a data race."""
    if strong is None or spans is None or span is None:
        return strong
    earlier = spans[at]
    return strong & ((earlier < 0) | (earlier == span))


def record_span(spans, size, at, span):
    """The per-byte spans with `at` set to `span` (-1 where None), made
    at the first atomic."""
    if spans is None and span is None:
        return None
    if spans is None:
        spans = np.full(size, -1, np.int64)
    spans[at] = -1 if span is None else span
    return spans


def report_race(interp, kind, buffer, at, before, others, other_blocks, other_epochs, lanes,
                both_strong=None, synchronized=None):
    """Records, once per pair of program points, the first byte of `at`
    where another thread (`others`, of `other_blocks` in their barrier
    `other_epochs`) touched what `lanes` touch now, unordered: not the
    same thread, not an earlier barrier interval of the same block, and
    not ordered through an mbarrier phase (`synchronized`)."""
    blocks = interp.block_of(lanes)
    ordered = (other_blocks == blocks) & (other_epochs < interp.epoch[blocks])
    if both_strong is not None:
        ordered = ordered | both_strong
    if synchronized is not None:
        ordered = ordered | synchronized
    conflicts = np.flatnonzero((others != NOBODY) & (others != lanes) & ~ordered)
    # The first conflicting byte of each earlier program point.
    points, firsts = np.unique(before[conflicts], return_index=True)
    for point, i in zip(points, conflicts[firsts]):
        key = (kind, int(point), interp.point)
        if not interp.first_report(key):
            continue
        other = int(others[i]) if others[i] != MANY else "(several)"
        interp.hazards.append(Hazard(kind, buffer.name, int(at[i]) * buffer.grain, interp.points[before[i]],
                                   interp.points[interp.point], (other, int(lanes[i])),
                                   untracked_releases(interp, int(others[i]), int(lanes[i]))))


def untracked_releases(interp, other, thread):
    """Why a release and acquire between the blocks of `other` and
    `thread` would not have been seen, or "" (memory_model.py)."""
    if interp.sync is None or interp.clocks.span == interp.threads or other < 0 or \
            other // interp.per_block == thread // interp.per_block:
        return ""
    return (f"releases between blocks are tracked in launches of up to {MAX_CLOCK_THREADS:,} threads, "
            f"and this one has {interp.threads:,}: a release and acquire between them would not be seen")


# Addresses spanning at most this many times their count are grouped in
# slots of their range, not sorted.
DENSE = 8


class Groups:
    """An access's bytes grouped by address: `unique`, the distinct
    addresses, and `reduce`, a ufunc's reduction (np.minimum, np.maximum)
    of per-byte values over each address's bytes. Where no address
    repeats (each thread its own bytes, the common case) the groups are
    the bytes themselves; where the addresses span a range not much wider
    than their count (a block reading its warps' partials) they are the
    range's slots, reduced with ufunc.at; else runs of the sorted
    addresses."""

    def __init__(self, interp, at):
        self.at, self.size, self.inverse, self.order = at, at.size, None, None
        if not has_repeats(interp, at):
            self.unique = at
            return
        low = int(at.min())
        span = int(at.max()) - low + 1
        if low >= 0 and span <= DENSE * at.size:
            slot = at - low
            present = np.zeros(span, bool)
            present[slot] = True
            self.unique, self.inverse = np.flatnonzero(present) + low, (np.cumsum(present) - 1)[slot]
            return
        self.order = np.argsort(at, kind="stable")
        ordered = at[self.order]
        self.starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        self.unique = ordered[self.starts]

    def reduce(self, values, ufunc):
        if self.inverse is not None:
            limits = np.iinfo(values.dtype)
            out = np.full(self.unique.size, limits.max if ufunc is np.minimum else limits.min, values.dtype)
            ufunc.at(out, self.inverse, values)
            return out
        if self.order is not None:
            return ufunc.reduceat(values[self.order], self.starts)
        return values

    def repeated(self):
        """The addresses that occur more than once."""
        if self.inverse is not None:
            return self.unique[np.bincount(self.inverse, minlength=self.unique.size) > 1]
        if self.order is not None:
            return self.unique[np.diff(np.append(self.starts, self.size)) > 1]
        return self.unique[:0]


def has_repeats(interp, at):
    """Whether an address of `at` occurs twice: not where they strictly
    increase, nor where they are a few strictly increasing runs whose
    ranges do not overlap (a warp's row of each block); else each position
    marks its address in a scratch array, and a repeated one finds
    another's mark (linear; a sort is not)."""
    if at.size < 2:
        return False
    descents = np.flatnonzero(at[1:] <= at[:-1])
    if descents.size == 0:
        return False
    if descents.size <= at.size // 8:
        low, high = at[np.r_[0, descents + 1]], at[np.r_[descents, at.size - 1]]
        order = np.argsort(low, kind="stable")
        if (high[order[:-1]] < low[order[1:]]).all():
            return False
    if at.min() < 0:
        return True
    mark = interp.scratch(int(at.max()) + 1)
    positions = np.arange(at.size, dtype=np.int32)
    mark[at] = positions
    return bool((mark[at] != positions).any())


def accessors(interp, groups, lanes):
    """The bytes an access touches (`groups`: its bytes by address), once
    each, and per byte the one thread of `lanes` that touches it (MANY
    for two or more) and its block (MANY)."""
    if groups.unique is groups.at:  # no byte repeats: each its one thread's
        return groups.unique, lanes, interp.block_of(lanes)
    low, high = groups.reduce(lanes, np.minimum), groups.reduce(lanes, np.maximum)
    thread = np.where(low == high, low, MANY)
    low_block = interp.block_of(low)
    block = np.where(low_block == interp.block_of(high), low_block, MANY)
    return groups.unique, thread, block


def morally_strong(interp, strengths, others, other_blocks, strength, lanes):
    """Per access: whether the earlier access (of strength `strengths`
    by `others`, of `other_blocks`) and this one (`strength`, by
    `lanes`) are morally strong: both strong, each one's scope
    including the other thread (memory_model.py)."""
    if strength == MM.WEAK:
        return None
    return np.minimum(strengths, strength) >= scope_needed(interp, lanes, others, other_blocks)


def scope_needed(interp, lanes, others, other_blocks=None):
    """Per pair: the narrowest scope that includes thread `lanes` and
    thread `others` (or, where that is MANY, some thread of
    `other_blocks`): the block, the cluster or the GPU."""
    known = others >= 0
    other = np.where(known, others, 0)
    if other_blocks is None:
        other_blocks = interp.block_of(other)
    same_cluster = known & (interp.cluster_of[other] == interp.cluster_of[lanes])
    return np.where(other_blocks == interp.block_of(lanes), MM.CTA,
                    np.where(same_cluster, MM.CLUSTER, MM.GPU))


def cluster_ordered(interp, lanes, others, stamps):
    """Per access: whether `others` (a thread, or MANY) touched the byte
    before an arrival on the cluster barrier whose wait `lanes` has
    completed since, in their common cluster."""
    if interp.cluster == (1, 1, 1):
        return None
    valid = (others >= 0) & (others != MANY)
    other = np.where(valid, others, 0)
    ordered = valid & (interp.cluster_of[other] == interp.cluster_of[lanes]) & (stamps < interp.cluster_waits[lanes])
    # The arrival after the access must release it: one that is
    # .relaxed orders nothing (a later releasing one is not credited:
    # the interpreter errs towards reporting).
    phases = interp.cluster_relaxed.shape[0]
    relaxed = np.zeros(ordered.shape, bool)
    inside = ordered & (stamps < phases)
    relaxed[inside] = interp.cluster_relaxed[stamps[inside], other[inside]]
    return ordered & ~relaxed




def against_last_write(interp, kind, buffer, at, lanes, strength, span):
    """An access of `at` by `lanes` against each byte's last write: a race
    of `kind` unless they are the same thread, morally strong atomics of
    the same span, or ordered (a barrier epoch, clocks, a cluster
    barrier)."""
    writers = buffer.writer[at]
    at, lanes, writers, span = others_only(at, lanes, writers, span)
    if at.size == 0:
        return
    blocks = interp.block_of(writers)
    if barrier_ordered(interp, blocks, buffer.written_epoch[at], lanes):
        return
    strong = same_span(morally_strong(interp, buffer.written_strength[at], writers, blocks, strength, lanes),
                       buffer.written_span, at, span)
    known = interp.clocks.knows(lanes, writers, buffer.written_clock[at]) if interp.clocks else None
    ordered = either(known, cluster_ordered(interp, lanes, writers, buffer.written_stamp[at]))
    report_race(interp, kind, buffer, at, buffer.written_at[at], writers, blocks, buffer.written_epoch[at], lanes,
                strong, ordered)


def barrier_ordered(interp, other_blocks, other_epochs, lanes):
    """Whether every earlier access (of `other_blocks`, in their barrier
    `other_epochs`) is of the block of the thread of `lanes` that touches
    its byte now, before a barrier it has passed since: then none can
    race (report_race's first test, made before what the others need)."""
    blocks = interp.block_of(lanes)
    return bool(((other_blocks == blocks) & (other_epochs < interp.epoch[blocks])).all())


def others_only(at, lanes, others, span):
    """`at`, `lanes`, `others` and `span` (per access, or one or None)
    where another thread touched the byte before (a race is only possible
    there), in their order."""
    candidates = (others != NOBODY) & (others != lanes)
    if candidates.all():
        return at, lanes, others, span
    if isinstance(span, np.ndarray) and span.shape == at.shape:
        span = span[candidates]
    return at[candidates], lanes[candidates], others[candidates], span


def against_last_reads(interp, buffer, at, lanes, strength, span):
    """A write of `at` by `lanes` against each byte's reads since its last
    write: a write-after-read race unless ordered or morally strong (none
    where no read of the buffer has been tracked)."""
    if not buffer.read_tracked:
        return
    at, lanes, readers, span = others_only(at, lanes, buffer.reader[at], span)
    if at.size == 0:
        return
    blocks = buffer.reader_block[at]
    if barrier_ordered(interp, blocks, buffer.read_epoch[at], lanes):
        return
    clocks = interp.clocks
    readers_known = None
    if clocks:
        readers_known = np.where(readers == MANY, clocks.readers_known(lanes, buffer.read_set[at]),
                                 clocks.knows(lanes, readers, buffer.read_clock[at]))
    strong = same_span(morally_strong(interp, buffer.read_strength[at], readers, blocks, strength, lanes),
                       buffer.read_span, at, span)
    ordered = either(readers_known, cluster_ordered(interp, lanes, readers, buffer.read_stamp[at]))
    report_race(interp, "write-after-read", buffer, at, buffer.read_at[at], readers, blocks,
                buffer.read_epoch[at], lanes, strong, ordered)


def forget(buffer, at):
    """No thread has touched the bytes `at` (a multicast's remote copy:
    the AsyncHazard of an access before it lands covers it)."""
    at, _, _ = C.cells(buffer, at, np.zeros(at.size, np.int64))
    buffer.writer[at] = NOBODY
    buffer.reader[at] = NOBODY


def apply(interp, effect: E.Effect):
    """The race check of one declared effect (effects.py): an update is
    its read, then its write."""
    for writing in (False, True):
        if not (effect.writes if writing else effect.reads):
            continue
        if effect.nbytes:
            _track_element(interp, effect.buffer, (effect.at, effect.nbytes, effect.lanes), effect.strength, writing,
                           effect.repeats)
        else:
            _track(interp, effect.buffer, (effect.at, effect.lanes), effect.strength, effect.span, writing)


def _untracked(buffer, writing):
    """Whether the access needs no race check: a register's, or a read of
    a tensor the kernel never writes (a write to one is the set-up's
    error, never skipped)."""
    if writing and buffer.read_only:
        raise AssertionError(f"the interpreter's set-up took {buffer.name} for read-only, but it is written")
    return buffer.private or buffer.read_only


def _track(interp, buffer, access, strength, span, writing):
    at, lanes = access
    if _untracked(buffer, writing) or at.size == 0:
        return
    check_bytes(interp, buffer, at, lanes, writing)
    (write_cells if writing else read_cells)(interp, buffer, *C.cells(buffer, at, lanes, span), strength)


def _track_element(interp, buffer, access, strength, writing, repeats=None):
    address, nbytes, lanes = access
    if _untracked(buffer, writing) or address.size == 0:
        return
    if C.checks_bytes(buffer, writing):
        check_bytes(interp, buffer, *C.byte_run(address, nbytes, lanes), writing)
    at, lanes = C.element_cells(buffer, address, nbytes, lanes)
    if not writing:
        read_cells(interp, buffer, at, lanes, None, strength)
        return
    # The cells are the elements where the grain is their size.
    write_cells(interp, buffer, at, lanes, None, strength, repeats if buffer.grain == nbytes else None)


def check_bytes(interp, buffer, at, lanes, writing):
    """The checks kept per byte: copies in flight, TMA stores reading
    (a write's) or writing the bytes."""
    pending_hazard(interp, buffer, at, lanes)
    if writing and buffer.store_reading is not None:
        T.check_source_write(interp, buffer, at)
    if buffer.store_writing is not None:
        T.check_target_access(interp, buffer, at, "writes" if writing else "reads")


def strength_kept(buffer, strength):
    """Whether an access of `strength` stores it in the strength fields:
    once a strong access has touched the buffer (it is then marked); until
    then every cell's strengths are weak, as a weak access would leave
    them."""
    if strength != MM.WEAK:
        buffer.strong_accessed = True
    return buffer.strong_accessed


def read_cells(interp, buffer, at, lanes, span, strength):
    buffer.read_tracked = True
    against_last_write(interp, "read-after-write", buffer, at, lanes, strength, span)
    clocks = interp.clocks
    all_at, all_lanes, groups = at, lanes, Groups(interp, at)
    at, thread, block = accessors(interp, groups, lanes)
    single = thread is lanes  # each cell one thread's (no MANY in thread or block)
    epoch = interp.epoch[block if single else np.where(block == MANY, 0, block)]
    old, old_block = buffer.reader[at], buffer.reader_block[at]
    # Reads of the block before its last barrier are ordered before
    # everything of the block after it: the new reader stands for them.
    same_block = old_block == block
    earlier = same_block & (buffer.read_epoch[at] < epoch)
    fresh = (old == NOBODY) | (earlier if single else earlier & (block != MANY))
    same = old == thread if single else (thread != MANY) & (old == thread)
    if clocks:
        buffer.read_set[at] = clocks.add_readers(buffer.read_set[at], fresh, at, all_at, all_lanes)
        buffer.read_clock[at] = np.where(thread >= 0, clocks.own(np.maximum(thread, 0)), 0)
    buffer.reader[at] = np.where(fresh | same, thread, MANY)
    buffer.reader_block[at] = np.where(fresh | same_block, block, MANY)
    # The weakest read since the last write (a weak one is the weakest).
    if strength_kept(buffer, strength):
        buffer.read_strength[at] = strength if strength == MM.WEAK else \
            np.where(fresh, strength, np.minimum(buffer.read_strength[at], strength))
    buffer.widen("read_epoch", int(interp.epoch.max(initial=0)))[at] = epoch
    buffer.widen("read_at", interp.point)[at] = interp.point
    buffer.read_span = record_span(buffer.read_span, buffer.writer.size, all_at, span)
    if interp.cluster != (1, 1, 1):
        # The most arrivals any of this access's readers of a byte had
        # made (per byte of `at`, the groups' unique bytes).
        stamps = groups.reduce(interp.cluster_arrivals[all_lanes], np.maximum)
        buffer.read_stamp[at] = np.where(fresh, stamps, np.maximum(buffer.read_stamp[at], stamps))
        if buffer.block_bytes:
            track_remote_read(interp, buffer, all_at, all_lanes)


def track_remote_read(interp, buffer, at, lanes):
    """For the check at the kernel's end: per shared cell, the reads
    by threads of other blocks than its owner (through tile.mapa), the
    most arrivals any of them had made, and the last one's thread and
    program point."""
    remote = interp.block_of(lanes) != at * buffer.grain // buffer.block_bytes
    if not remote.any():
        return
    if buffer.remote_reader is None:
        buffer.remote_reader = np.full(buffer.writer.size, NOBODY, np.int64)
        buffer.remote_read_stamp = np.zeros(buffer.writer.size, np.int64)
        buffer.remote_read_at = np.zeros(buffer.writer.size, np.int32)
    at, lanes = at[remote], lanes[remote]
    np.maximum.at(buffer.remote_read_stamp, at, interp.cluster_arrivals[lanes])
    buffer.remote_reader[at] = lanes
    buffer.remote_read_at[at] = interp.point


def write_cells(interp, buffer, at, lanes, span, strength, repeats=None):
    """A write of the cells `at` by `lanes` (`repeats`: whether a cell
    repeats, where the caller knows)."""
    against_last_write(interp, "write-after-write", buffer, at, lanes, strength, span)
    against_last_reads(interp, buffer, at, lanes, strength, span)
    # Two threads storing one byte in one instruction: morally strong
    # accesses may (atomics of a scope that includes both threads).
    same = np.zeros(0, np.int64)
    if has_repeats(interp, at) if repeats is None else repeats:
        order = np.argsort(at, kind="stable")
        same = np.flatnonzero(at[order][1:] == at[order][:-1])
    if same.size:
        firsts, seconds = lanes[order[same]], lanes[order[same + 1]]
        strong = morally_strong(interp, np.full(same.size, strength), firsts, interp.block_of(firsts),
                                      strength, seconds)
        same = same if strong is None else same[~strong]
    if same.size:
        first, second = order[same[0]], order[same[0] + 1]
        report_race(interp, "write-after-write", buffer, at[[second]], np.array([interp.point]),
                     lanes[[first]], interp.block_of(lanes[[first]]), np.array([interp.epoch.max() + 1]),
                     lanes[[second]])
    buffer.writer[at] = lanes
    if interp.clocks:
        buffer.written_clock[at] = interp.clocks.own(lanes)
    if strength_kept(buffer, strength):
        buffer.written_strength[at] = strength
    buffer.widen("written_epoch", int(interp.epoch.max(initial=0)))[at] = interp.epoch[interp.block_of(lanes)]
    buffer.widen("written_at", interp.point)[at] = interp.point
    buffer.written_stamp[at] = interp.cluster_arrivals[lanes]
    buffer.written_span = record_span(buffer.written_span, buffer.writer.size, at, span)


def pending_hazard(interp, buffer, at, lanes):
    """An access, at byte addresses `at`, to bytes a cp.async has in
    flight."""
    if buffer.private or not buffer.pending_at[at].any():
        return
    where = np.flatnonzero(buffer.pending_at[at])[0]
    key = ("async", interp.point, buffer.name)
    if not interp.first_report(key):
        return
    copied_at = int(buffer.pending_at[at][where])
    interp.hazards.append(AsyncHazard(interp.current_opcode, interp.points[interp.point], buffer.name,
                                    int(at[where]), interp.points[copied_at], interp.bulk_points.get(copied_at)))

# The copies an mbarrier phase completes (mbarrier.py, which the copy
# modules build on) land through the machine.


def copy_in_flight(buffer, at, point):
    """The bytes `at` of a copy issued at `point` are in flight until it
    lands (copy_landed): an access before then is an AsyncHazard."""
    buffer.pending_at[at] = point


def copy_landed(buffer, at):
    buffer.pending_at[at] = 0


def last_writes(buffer, at):
    """(writer, barrier epoch) of the last write of each byte `at`."""
    cell = at >> (buffer.grain.bit_length() - 1)
    return buffer.writer[cell], buffer.written_epoch[cell]


def check_shared_memory_outlives_access(interp):
    """A block's shared memory ends when the block exits (PTX ISA 9.0, the state
    spaces' distributed shared memory: accessible while its block
    runs), so another block's access to it must be ordered before the
    exit: the accessor arrives at a barrier.cluster (not .relaxed)
    that the owner's threads have waited on since. Each byte a thread
    of another block wrote or read last and no such barrier orders is
    a race of kind "access-before-exit"."""
    buffers = {id(v.buffer): v.buffer for v in interp.values.values()
               if isinstance(v, View) and v.buffer.shared and v.buffer.block_bytes}
    for buffer in buffers.values():
        buffer.refine(1)  # byte by byte: the check runs once, at the end
        owner = np.arange(buffer.data.size) // buffer.block_bytes
        # Each owner block's first thread stands for it: its threads
        # leave together at the kernel's end.
        owner_thread = owner * interp.per_block
        accesses = [(buffer.writer, buffer.written_stamp.array(), buffer.written_at)]
        if buffer.remote_reader is not None:
            accesses.append((buffer.remote_reader, buffer.remote_read_stamp, buffer.remote_read_at))
        for others, stamps, point in accesses:
            remote = (others >= 0) & (others // interp.per_block != owner)
            bad = np.flatnonzero(remote & ~cluster_ordered(interp, owner_thread, others, stamps))
            if bad.size:
                hazard_at_exit(interp, buffer, bad, others, point)


def hazard_at_exit(interp, buffer, bad, others, point):
    points, firsts = np.unique(point[bad], return_index=True)
    for at_point, i in zip(points, bad[firsts]):
        key = ("access-before-exit", int(at_point), interp.point)
        if not interp.first_report(key):
            continue
        owner = int(i // buffer.block_bytes * interp.per_block)
        interp.hazards.append(Hazard("access-before-exit", buffer.name, int(i % buffer.block_bytes),
                                   interp.points[int(at_point)], "the kernel's end", (int(others[i]), owner)))
