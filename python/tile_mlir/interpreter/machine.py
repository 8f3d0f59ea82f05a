"""A reference interpreter for tile kernels, written from the spec and the
PTX ISA rather than from the lowering.

It reads the kernel as the front end builds it (tile.apply over memrefs,
before --tile-expand) and executes it for every thread of the launch at
once, in numpy: each index is an array with one value per thread, each
register tile a byte array per thread, each global tensor one byte array.
Instructions run in program order for all threads; generated kernels make
no thread read what another writes, so lockstep is the PTX semantics.

Arithmetic comes from reference.py (beside this file), the one place its
semantics live. Every byte carries a defined bit: a register read before it
is written, a destination whose predicate is false without preserve_dst,
and bytes two threads store in one instruction are undefined, and so is
every result computed from them. Only defined output bytes are compared.

    from interp import run
    outputs, defined = run(gpu_func_op, {"A": a_bytes, ...}, grid, block)
"""

from __future__ import annotations

import itertools
import re
from types import SimpleNamespace

import numpy as np

from . import accumulation as ACC
from . import clocks as C
from . import ewise_ops as F
from . import fragment_origins as O
from . import mbarrier as M
from . import memory_model as MM
from . import proxy as P
from . import reference as R
from . import streams as S
from . import tma as T
from . import wgmma as W
from .. import fragments


def element_bytes(bits):
    """Bytes of one element: a predicate (i1) takes one."""
    return max(bits, 8) // 8


# The kernel uses something the interpreter does not model: one class for
# the machine and the arithmetic (a form reference.py does not describe).
NotCovered = R.NotCovered


class Buffer:
    """Bytes and their defined bits: shape (threads, n) when private to each
    thread (a register tile), (n,) when shared (a global tensor). `nan`
    marks the bytes of a register whose value is a NaN an instruction made:
    PTX leaves its payload to the chip, so it compares as "a NaN" where it
    is stored, and what is computed from its bits is not compared."""

    def __init__(self, data, defined, private, name="", shared=False, block_bytes=0, align=None):
        self.data, self.defined, self.private, self.name = data, defined, private, name
        # What the start is known to be a multiple of: a static shared
        # buffer's declared alignment (None: 16 bytes or more, as a tensor's
        # allocation and the dynamic region are).
        self.align = align
        self.shared = shared  # a block's shared memory: its accesses go through the banks
        # Where each byte came from (fragment_origins), when the run tracks it.
        self.origin = None
        # Shared memory holds one copy per block, block_bytes each.
        self.block_bytes = block_bytes
        # The program point of the wgmma whose D holds each register byte
        # (private) or that reads each shared byte, until its wait (0: none;
        # made by the first wgmma).
        self.in_flight = None
        # The program point of the wgmma that still reads each register
        # byte as its A (0: none), until its wait_group.
        self.a_in_flight = None
        self.wgmma_reading = None
        # The program point of the TMA store that still reads each byte
        # (0: none), once a store reads the buffer (tma.py).
        self.store_reading = None
        # The program point of the TMA store or bulk copy that may still be
        # writing each byte (0: none), until a cp.async.bulk.wait_group
        # (not .read) in its thread covers its bulk group (tma.py).
        self.store_writing = None
        self.nan = np.zeros_like(defined)
        if not private:
            # Who touched each byte since the last barrier, for the hazard
            # check: the last writer and one reader (MANY: two or more), as
            # thread numbers, and the program points that did it.
            # With each, the block's barrier epoch it happened in (a barrier
            # orders the accesses of its block's threads before it against
            # those after it), and for the readers their block (MANY: two).
            self.writer = np.full(data.size, NOBODY, np.int64)
            self.reader = np.full(data.size, NOBODY, np.int64)
            self.reader_block = np.full(data.size, NOBODY, np.int64)
            self.written_epoch = np.zeros(data.size, np.int64)
            self.read_epoch = np.zeros(data.size, np.int64)
            self.written_at = np.zeros(data.size, np.int32)
            self.read_at = np.zeros(data.size, np.int32)
            # In a kernel with clusters: the cluster arrivals the writer
            # (and the readers, the most of them) had made when it touched
            # the byte; a thread whose barrier.cluster.wait completed more
            # phases than that is ordered after the access.
            self.written_stamp = np.zeros(data.size, np.int64)
            self.read_stamp = np.zeros(data.size, np.int64)
            # Reads by other blocks of a block's shared bytes (tile.mapa),
            # made when the first one happens (_track_remote_read).
            self.remote_reader = self.remote_read_stamp = self.remote_read_at = None
            # The strength of the last write and the weakest of the reads
            # since (memory_model.py): morally strong accesses do not race
            # with each other.
            self.written_strength = np.zeros(data.size, np.int8)
            self.read_strength = np.zeros(data.size, np.int8)
            # The span (start * 16 + bytes) of the atomic that last wrote
            # and read each byte, once an atomic touches the buffer (-1:
            # not an atomic's): atomics are morally strong only where they
            # cover the same bytes (PTX ISA memory model, 8.6.3).
            self.written_span = self.read_span = None
            # The release each byte's last write heads or continues
            # (memory_model.py), made at the first release.
            self.release_id = None
            # The program point of the cp.async whose bytes are in flight to
            # each byte (0: none).
            self.pending_at = np.zeros(data.size, np.int32)
            # With mbarrier ordering (clocks.py): the writer's and the
            # single reader's counts, and each byte's set of readers.
            self.written_clock = np.zeros(data.size, np.int64)
            self.read_clock = np.zeros(data.size, np.int64)
            self.read_set = np.zeros(data.size, np.int64)


class LoopFault(Exception):
    """A T.until loop the interpreter cannot end: it would go round forever,
    or its predicate is read before its body wrote it."""


class Stalled(LoopFault):
    """In lockstep, threads wait for what other threads would do only later
    (a loop that cannot end, a barrier arrival): run() runs the kernel
    again as streams (streams.py)."""


MemoryFault = R.MemoryFault


# Hazard bookkeeping of a shared byte: no thread, or several.
NOBODY, MANY = -1, -2


class CollectiveHazard:
    """A warp collective (shfl.sync) used against its rules: a thread
    outside its membermask, a source lane outside it or not executing, a
    lane of the mask that never arrives."""

    kind = "warp collective"

    def __init__(self, opcode, point, thread, lane, source, problem):
        self.opcode, self.first = opcode, point
        self.second, self.thread, self.lane, self.source, self.problem = point, thread, lane, source, problem

    def __str__(self):
        return f"{self.second}: {self.opcode} in thread {self.thread} (lane {self.lane}) {self.problem}"


class DivergentBarrier:
    """A block barrier that part of a block reached: the others never do, so
    the block hangs or the barrier's behaviour is undefined."""

    kind = "divergent barrier"

    def __init__(self, opcode, point, block, arrived, threads):
        self.opcode, self.second, self.block = opcode, point, block
        self.first, self.arrived, self.threads = point, arrived, threads

    def __str__(self):
        return (f"{self.second}: {self.opcode} reached by {self.arrived} of the {self.threads} threads "
                f"of block {self.block}; the others never arrive")


class AsyncHazard:
    """A byte that a cp.async has not delivered yet (no cp.async.wait_group
    since, in the copying thread, that covers its group), or a bulk load
    (cp.async.bulk{.tensor}: no wait has seen the mbarrier phase it
    completes), read or written by a thread: it sees or overwrites what the
    copy has not written."""

    kind = "cp.async before its wait"

    def __init__(self, opcode, point, buffer, byte, copied_at, tma=False):
        self.opcode, self.second, self.buffer, self.byte = opcode, point, buffer, byte
        self.first, self.tma = copied_at, tma

    def __str__(self):
        copy, wait = (("cp.async.bulk", "no mbarrier wait has seen the phase it completes") if self.tma
                      else ("cp.async", "no cp.async.wait_group covers its group"))
        return (f"{self.second}: {self.opcode} touches {self.buffer or 'memory'} byte {self.byte}, which the "
                f"{copy} at {self.first} has not delivered: {wait}")


class Hazard:
    """Two threads touch one byte of shared or global memory between the
    same two barriers, at least one of them writing: the order the hardware
    picks decides the result. `first` and `second` are program points
    (``file.py:line`` of the ops), `threads` the two threads' numbers (the
    block's linear id times the block size plus the thread's), `buffer` the
    parameter or shared tile and `byte` its offset."""

    def __init__(self, kind, buffer, byte, first, second, threads, note=""):
        self.kind, self.buffer, self.byte = kind, buffer, byte
        self.first, self.second, self.threads = first, second, threads
        # Why an order the kernel may have was not seen, where one is known.
        self.note = note

    def __str__(self):
        return (f"{self.second}: {self.kind} race on {self.buffer or 'memory'} byte {self.byte}: "
                f"thread {self.threads[1]} here, thread {self.threads[0]} at {self.first}, with no "
                "barrier between them" + (f" ({self.note})" if self.note else ""))


class View:
    """A memref value: a buffer, a byte offset per thread, byte strides, a
    shape and an element width in bits; `swizzle`, when it is taken from a
    tile.swizzle, is (the swizzled buffer's start per thread, bits, base,
    shift)."""

    def __init__(self, buffer, offset, strides, shape, bits, swizzle=None):
        self.buffer, self.offset, self.strides, self.shape, self.bits = buffer, offset, strides, shape, bits
        self.swizzle = swizzle

    def addresses(self, coord):
        """The byte address of element `coord` for every thread: through
        the swizzle, the byte at offset o from the swizzled buffer's start
        is at o ^ ((o >> shift) & (2^bits - 1) << base) (tile.swizzle)."""
        address = self.offset + sum(c * s for c, s in zip(coord, self.strides))
        if self.swizzle is None:
            return address
        start, bits, base, shift = self.swizzle
        offset = address - start
        return start + (offset ^ ((offset >> shift) & (((1 << bits) - 1) << base)))


def _same_span(strong, spans, at, span):
    """`strong` (morally strong pairs, or None) where both accesses are
    atomics over the same bytes, or either span is unknown: a u32 atomic
    and a b16 atom.cas on one word overlap without covering the same
    bytes, which the memory model makes a data race."""
    if strong is None or spans is None or span is None:
        return strong
    earlier = spans[at]
    return strong & ((earlier < 0) | (earlier == span))


def _record_span(spans, size, at, span):
    """The per-byte spans with `at` set to `span` (-1 where None), made
    at the first atomic."""
    if spans is None and span is None:
        return None
    if spans is None:
        spans = np.full(size, -1, np.int64)
    spans[at] = -1 if span is None else span
    return spans


def _mask_bits(bits):
    return np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)


def _atomic_result(op, kind, bits, old, b, c, shared=False):
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


def ir_int(attr) -> int:
    """An integer attribute's value."""
    from mlir import ir
    return ir.IntegerAttr(attr).value


class Interpreter:
    def __init__(self, threads, grid, block, accumulation="sm_90"):
        self.threads = threads
        # The floating mma model (accumulation.MODELS): sm_90's measured
        # accumulation, or the exact-or-undefined one.
        self.accumulation = accumulation
        self.grid, self.block = grid, block
        linear = np.arange(threads)
        per_block = block[0] * block[1] * block[2]
        self.block_linear, thread_linear = linear // per_block, linear % per_block
        self.tid = (thread_linear % block[0], thread_linear // block[0] % block[1],
                    thread_linear // (block[0] * block[1]))
        self.bid = (self.block_linear % grid[0], self.block_linear // grid[0] % grid[1],
                    self.block_linear // (grid[0] * grid[1]))
        self.values = {}
        self.active = np.ones(threads, bool)
        self.lanes = np.arange(threads)
        # Program points by number (a buffer's written_at/read_at index them)
        # and the hazards found, one per pair of points and kind.
        self.points, self.point = ["<unknown>"], 0
        # The hazards found, each reported once by its key (kind and
        # program points): first_report.
        self.hazards, self._hazard_keys = [], set()
        # Each block's barrier epoch: how many barriers it has passed.
        self.per_block = per_block
        self.epoch = np.zeros(max(threads // per_block, 1), np.int64)
        # What %clock64 and %globaltimer read last; the launch's dynamic
        # shared memory.
        self.clock, self.dynamic_shared_bytes = 0, 0
        # The approximate forms that ran as their correctly rounded result,
        # each with its first program point.
        self.approximated = {}
        # Shared-memory requests per (program point, opcode): [requests,
        # wavefronts, ideal wavefronts] (bank_requests); None when the
        # caller did not ask, so that no access pays for counting them.
        self.bank_stats = None
        # cp.async: the copies in flight, (group per thread, view, coord,
        # bytes, defined, executing, point), and each thread's open group
        # (committed groups are those below it).
        self.copies, self.open_group = [], np.zeros(threads, np.int64)
        # Copies are numbered as they are issued (cp.async.mbarrier.arrive
        # attaches those issued before it), and the mbarrier objects.
        self.copy_sequence = 0
        # TMA loads in flight, by copy sequence number, and the program
        # points that issue them (tma.py).
        self.bulk_copies, self.bulk_points = {}, set()
        # TMA stores whose source is still read: (thread, bulk group,
        # buffer, byte addresses), and each thread's open bulk group.
        self.bulk_stores, self.bulk_open_group = [], np.zeros(threads, np.int64)
        # Shared bytes written through the generic proxy and not fenced
        # for the async proxy yet (proxy.py).
        self.unfenced = P.UnfencedWrites()
        self.mbarriers = M.Mbarriers()
        # How many T.until loops the threads are in: a wait in one goes
        # round until its phase completes, so its outcome does not depend
        # on how the threads happen to run.
        self.spinning = 0
        # Happens-before through mbarrier phases (clocks.py), in a kernel
        # that has mbarrier operations; None otherwise.
        self.clocks = None
        # Thread block clusters (nvvm.cluster_dim): each thread's cluster
        # and its block's rank in it, and each thread's barrier.cluster
        # arrivals and completed waits (set_cluster).
        self.cluster = (1, 1, 1)
        self.set_cluster(self.cluster)
        self.current_opcode = ""
        # The streams taking turns (streams.py), when the kernel runs as
        # streams, and the barriers with a thread count between them.
        self.streams, self.named_barriers = None, None
        # The launch's dynamic shared memory, one buffer however many
        # streams reach its op.
        self.dynamic_shared = None
        # The origins of bytes, when mma fragments are checked against the
        # ISA's layout (fragment_origins); None otherwise.
        self.origins = None
        # Release and acquire through memory (memory_model.py), in a
        # kernel whose instructions may synchronize that way; None
        # otherwise.
        self.sync = None

    def first_report(self, key) -> bool:
        """Whether a hazard of `key` is reported for the first time (and
        from now on, that it has been): each is reported once."""
        if key in self._hazard_keys:
            return False
        self._hazard_keys.add(key)
        return True

    def track(self, buffer, origin=None):
        """Gives `buffer` origins (unknown unless given) when the run
        tracks them; returns it."""
        if self.origins is not None:
            buffer.origin = np.full(buffer.data.shape, O.UNKNOWN, np.int64) if origin is None else origin
        return buffer

    def byte_origins(self, view, coord):
        """(bytes, threads): the origin of each byte of element `coord`."""
        nbytes = element_bytes(view.bits)
        out = np.full((nbytes, self.threads), O.UNKNOWN, np.int64)
        buffer = view.buffer
        if buffer.origin is None:
            return out
        address = view.addresses(coord)
        for byte in range(nbytes):
            at = address + byte
            if buffer.private:
                out[byte] = buffer.origin[self.lanes, at]
            else:
                inside = (at >= 0) & (at < buffer.data.size)
                out[byte] = np.where(inside, buffer.origin[np.where(inside, at, 0)], O.UNKNOWN)
        return out

    # -- hazards ---------------------------------------------------------
    def enter(self, op):
        """Makes `op` the current program point (its file:line)."""
        text = str(op.location)
        match = re.search(r'"([^"]*)":(\d+)', text)
        where = f"{match.group(1)}:{match.group(2)}" if match else text
        if self.points[self.point] != where:
            self.points.append(where)
            self.point = len(self.points) - 1

    def _hazard(self, kind, buffer, at, before, others, other_blocks, other_epochs, lanes,
                both_strong=None, synchronized=None):
        """Records, once per pair of program points, the first byte of `at`
        where another thread (`others`, of `other_blocks` in their barrier
        `other_epochs`) touched what `lanes` touch now, unordered: not the
        same thread, not an earlier barrier interval of the same block, and
        not ordered through an mbarrier phase (`synchronized`)."""
        blocks = lanes // self.per_block
        ordered = (other_blocks == blocks) & (other_epochs < self.epoch[blocks])
        if both_strong is not None:
            ordered = ordered | both_strong
        if synchronized is not None:
            ordered = ordered | synchronized
        conflicts = np.flatnonzero((others != NOBODY) & (others != lanes) & ~ordered)
        # The first conflicting byte of each earlier program point.
        points, firsts = np.unique(before[conflicts], return_index=True)
        for point, i in zip(points, conflicts[firsts]):
            key = (kind, int(point), self.point)
            if not self.first_report(key):
                continue
            other = int(others[i]) if others[i] != MANY else "(several)"
            self.hazards.append(Hazard(kind, buffer.name, int(at[i]), self.points[before[i]],
                                       self.points[self.point], (other, int(lanes[i])),
                                       self._untracked_releases(int(others[i]), int(lanes[i]))))

    def _untracked_releases(self, other, thread):
        """Why a release and acquire between the blocks of `other` and
        `thread` would not have been seen, or "" (memory_model.py)."""
        if self.sync is None or self.clocks.span == self.threads or other < 0 or \
                other // self.per_block == thread // self.per_block:
            return ""
        return (f"releases between blocks are tracked in launches of up to {MAX_CLOCK_THREADS:,} threads, "
                f"and this one has {self.threads:,}: a release and acquire between them would not be seen")

    def _accessors(self, at, lanes):
        """The bytes `at` touches, once each, and per byte the one thread
        that touches it (MANY for two or more) and its block (MANY)."""
        unique, inverse = np.unique(at, return_inverse=True)
        low = np.full(unique.size, np.iinfo(np.int64).max, np.int64)
        high = np.full(unique.size, -1, np.int64)
        np.minimum.at(low, inverse, lanes)
        np.maximum.at(high, inverse, lanes)
        thread = np.where(low == high, low, MANY)
        block = np.where(low // self.per_block == high // self.per_block, low // self.per_block, MANY)
        return unique, thread, block

    def _morally_strong(self, strengths, others, other_blocks, strength, lanes):
        """Per access: whether the earlier access (of strength `strengths`
        by `others`, of `other_blocks`) and this one (`strength`, by
        `lanes`) are morally strong: both strong, each one's scope
        including the other thread (memory_model.py)."""
        if strength == MM.WEAK:
            return None
        return np.minimum(strengths, strength) >= self.scope_needed(lanes, others, other_blocks)

    def scope_needed(self, lanes, others, other_blocks=None):
        """Per pair: the narrowest scope that includes thread `lanes` and
        thread `others` (or, where that is MANY, some thread of
        `other_blocks`): the block, the cluster or the GPU."""
        known = others >= 0
        other = np.where(known, others, 0)
        if other_blocks is None:
            other_blocks = other // self.per_block
        same_cluster = known & (self.cluster_of[other] == self.cluster_of[lanes])
        return np.where(other_blocks == lanes // self.per_block, MM.CTA,
                        np.where(same_cluster, MM.CLUSTER, MM.GPU))

    def set_cluster(self, cluster):
        """The launch's clusters of `cluster` blocks (x, y, z)."""
        self.cluster = tuple(cluster)
        position = [b % c for b, c in zip(self.bid, self.cluster)]
        self.cluster_rank = position[0] + self.cluster[0] * (position[1] + self.cluster[1] * position[2])
        ids = [b // c for b, c in zip(self.bid, self.cluster)]
        counts = [g // c for g, c in zip(self.grid, self.cluster)]
        self.cluster_of = ids[0] + counts[0] * (ids[1] + counts[1] * ids[2])
        self.cluster_arrivals = np.zeros(self.threads, np.int64)
        self.cluster_waits = np.zeros(self.threads, np.int64)
        # Between streams: each cluster's completed barrier phases.
        self.cluster_completed = np.zeros(int(np.max(self.cluster_of, initial=0)) + 1, np.int64)
        # Per arrival (row k: each thread's k-th), whether it was .relaxed:
        # it releases nothing.
        self.cluster_relaxed = np.zeros((0, self.threads), bool)

    def _cluster_ordered(self, lanes, others, stamps):
        """Per access: whether `others` (a thread, or MANY) touched the byte
        before an arrival on the cluster barrier whose wait `lanes` has
        completed since, in their common cluster."""
        if self.cluster == (1, 1, 1):
            return None
        valid = (others >= 0) & (others != MANY)
        other = np.where(valid, others, 0)
        ordered = valid & (self.cluster_of[other] == self.cluster_of[lanes]) & (stamps < self.cluster_waits[lanes])
        # The arrival after the access must release it: one that is
        # .relaxed orders nothing (a later releasing one is not credited:
        # the interpreter errs towards reporting).
        phases = self.cluster_relaxed.shape[0]
        relaxed = np.zeros(ordered.shape, bool)
        inside = ordered & (stamps < phases)
        relaxed[inside] = self.cluster_relaxed[stamps[inside], other[inside]]
        return ordered & ~relaxed

    @staticmethod
    def _either(a, b):
        return b if a is None else a if b is None else a | b

    def cluster_barrier(self, form, executing):
        """barrier.cluster.arrive and .wait (PTX ISA 9.7.13.2): an arrival
        counts each executing thread's phase; a wait completes once every
        thread of the cluster has arrived as often, and orders the accesses
        made before those arrivals (unless .relaxed) before the waiting
        thread's later ones.
        In lockstep a wait whose cluster has threads yet to arrive would
        never complete. Between streams, the phase completes at its last
        arrival (its blocks' next barrier epoch), and a wait gives the turn
        away until then."""
        tokens = form.opcode.split(".")
        where = self.points[self.point]
        if "arrive" in tokens:
            twice = executing & (self.cluster_arrivals > self.cluster_waits)
            if twice.any():
                raise LoopFault(f"{where}: {form.opcode}: thread {int(np.flatnonzero(twice)[0])} arrives again "
                                "before its barrier.cluster.wait, which the PTX ISA leaves undefined")
            phase = int(self.cluster_arrivals[executing].max(initial=0))
            if phase >= self.cluster_relaxed.shape[0]:
                grown = np.zeros((phase + 1, self.threads), bool)
                grown[:self.cluster_relaxed.shape[0]] = self.cluster_relaxed
                self.cluster_relaxed = grown
            threads = np.flatnonzero(executing)
            self.cluster_relaxed[self.cluster_arrivals[threads], threads] = "relaxed" in tokens
            self.cluster_arrivals[executing] += 1
            if self.streams is not None:
                for cluster in np.unique(self.cluster_of[executing]):
                    self._complete_cluster_phases(cluster)
                self.streams.advance()
            return
        for thread in np.flatnonzero(executing):
            members = self.cluster_of == self.cluster_of[thread]
            phase = self.cluster_waits[thread] + 1
            if self.cluster_arrivals[thread] < phase:
                raise LoopFault(f"{where}: {form.opcode}: thread {int(thread)} waits without arriving first")
            missing = members & (self.cluster_arrivals < phase)
            if missing.any() and self.streams is None:
                raise LoopFault(f"{where}: {form.opcode} never completes: thread {int(np.flatnonzero(missing)[0])} "
                                f"of the cluster has not arrived (each of its {int(members.sum())} threads must "
                                "arrive before the wait)")
            while missing.any():
                late = int(np.flatnonzero(missing)[0])
                self.streams.wait(lambda: f"{where}: {form.opcode} never completes: thread {int(thread)} waits "
                                          f"for thread {late} of its cluster to arrive, and no other "
                                          f"{self.streams.name} can go on")
                missing = members & (self.cluster_arrivals < phase)
        self.cluster_waits[executing] += 1
        if self.streams is None:
            # A cluster barrier is a barrier of each of its blocks too.
            self._cluster_barrier_passed(np.unique(self.block_linear[executing]))

    def _complete_cluster_phases(self, cluster):
        """Between streams: the phases of `cluster`'s barrier every member
        has now arrived at complete, each a barrier of its blocks."""
        members = self.cluster_of == cluster
        while self.cluster_arrivals[members].min() > self.cluster_completed[cluster]:
            self.cluster_completed[cluster] += 1
            self._cluster_barrier_passed(np.unique(self.block_linear[members]))

    def _cluster_barrier_passed(self, blocks):
        self.epoch[blocks] += 1
        if self.clocks:
            self.clocks.barrier(blocks)

    def track_read(self, buffer, at, lanes, strength=MM.WEAK, span=None):
        if buffer.private or at.size == 0:
            return
        self._pending_hazard(buffer, at, lanes)
        if buffer.store_writing is not None:
            T.check_target_access(self, buffer, at, "reads")
        clocks = self.clocks
        writers = buffer.writer[at]
        self._hazard("read-after-write", buffer, at, buffer.written_at[at], writers,
                     writers // self.per_block, buffer.written_epoch[at], lanes,
                     _same_span(self._morally_strong(buffer.written_strength[at], writers, writers // self.per_block,
                                                     strength, lanes), buffer.written_span, at, span),
                     self._either(clocks.knows(lanes, buffer.writer[at], buffer.written_clock[at]) if clocks
                                  else None,
                                  self._cluster_ordered(lanes, buffer.writer[at], buffer.written_stamp[at])))
        all_at, all_lanes = at, lanes
        at, thread, block = self._accessors(at, lanes)
        epoch = self.epoch[np.where(block == MANY, 0, block)]
        old, old_block = buffer.reader[at], buffer.reader_block[at]
        # Reads of the block before its last barrier are ordered before
        # everything of the block after it: the new reader stands for them.
        fresh = (old == NOBODY) | ((block != MANY) & (old_block == block) & (buffer.read_epoch[at] < epoch))
        same = (thread != MANY) & (old == thread)
        if clocks:
            buffer.read_set[at] = clocks.add_readers(buffer.read_set[at], fresh, at, all_at, all_lanes)
            buffer.read_clock[at] = np.where(thread >= 0, clocks.own(np.maximum(thread, 0)), 0)
        buffer.reader[at] = np.where(fresh | same, thread, MANY)
        buffer.reader_block[at] = np.where(fresh | (old_block == block), block, MANY)
        buffer.read_strength[at] = np.where(fresh, strength, np.minimum(buffer.read_strength[at], strength))
        buffer.read_epoch[at] = epoch
        buffer.read_at[at] = self.point
        buffer.read_span = _record_span(buffer.read_span, buffer.data.size, all_at, span)
        if self.cluster != (1, 1, 1):
            # The most arrivals any of this access's readers of a byte had
            # made (`at` is the sorted unique bytes _accessors gave).
            _, inverse = np.unique(all_at, return_inverse=True)
            stamps = np.zeros(at.size, np.int64)
            np.maximum.at(stamps, inverse, self.cluster_arrivals[all_lanes])
            buffer.read_stamp[at] = np.where(fresh, stamps, np.maximum(buffer.read_stamp[at], stamps))
            if buffer.block_bytes:
                self._track_remote_read(buffer, all_at, all_lanes)

    def _track_remote_read(self, buffer, at, lanes):
        """For the check at the kernel's end: per shared byte, the reads
        by threads of other blocks than its owner (through tile.mapa), the
        most arrivals any of them had made, and the last one's thread and
        program point."""
        remote = lanes // self.per_block != at // buffer.block_bytes
        if not remote.any():
            return
        if buffer.remote_reader is None:
            buffer.remote_reader = np.full(buffer.data.size, NOBODY, np.int64)
            buffer.remote_read_stamp = np.zeros(buffer.data.size, np.int64)
            buffer.remote_read_at = np.zeros(buffer.data.size, np.int32)
        at, lanes = at[remote], lanes[remote]
        np.maximum.at(buffer.remote_read_stamp, at, self.cluster_arrivals[lanes])
        buffer.remote_reader[at] = lanes
        buffer.remote_read_at[at] = self.point

    def track_write(self, buffer, at, lanes, strength=MM.WEAK, span=None):
        if buffer.private or at.size == 0:
            return
        self._pending_hazard(buffer, at, lanes)
        if buffer.store_reading is not None:
            T.check_source_write(self, buffer, at)
        if buffer.store_writing is not None:
            T.check_target_access(self, buffer, at, "writes")
        clocks = self.clocks
        writers = buffer.writer[at]
        self._hazard("write-after-write", buffer, at, buffer.written_at[at], writers,
                     writers // self.per_block, buffer.written_epoch[at], lanes,
                     _same_span(self._morally_strong(buffer.written_strength[at], writers, writers // self.per_block,
                                                     strength, lanes), buffer.written_span, at, span),
                     self._either(clocks.knows(lanes, buffer.writer[at], buffer.written_clock[at]) if clocks
                                  else None,
                                  self._cluster_ordered(lanes, buffer.writer[at], buffer.written_stamp[at])))
        readers_known = None
        if clocks:
            readers = buffer.reader[at]
            readers_known = np.where(readers == MANY, clocks.readers_known(lanes, buffer.read_set[at]),
                                     clocks.knows(lanes, readers, buffer.read_clock[at]))
        self._hazard("write-after-read", buffer, at, buffer.read_at[at], buffer.reader[at],
                     buffer.reader_block[at], buffer.read_epoch[at], lanes,
                     _same_span(self._morally_strong(buffer.read_strength[at], buffer.reader[at],
                                                     buffer.reader_block[at], strength, lanes),
                                buffer.read_span, at, span),
                     self._either(readers_known,
                                  self._cluster_ordered(lanes, buffer.reader[at], buffer.read_stamp[at])))
        # Two threads storing one byte in one instruction: morally strong
        # accesses may (atomics of a scope that includes both threads).
        order = np.argsort(at, kind="stable")
        same = np.flatnonzero(at[order][1:] == at[order][:-1])
        if same.size:
            firsts, seconds = lanes[order[same]], lanes[order[same + 1]]
            strong = self._morally_strong(np.full(same.size, strength), firsts, firsts // self.per_block,
                                          strength, seconds)
            same = same if strong is None else same[~strong]
        if same.size:
            first, second = order[same[0]], order[same[0] + 1]
            self._hazard("write-after-write", buffer, at[[second]], np.array([self.point]),
                         lanes[[first]], lanes[[first]] // self.per_block, np.array([self.epoch.max() + 1]),
                         lanes[[second]])
        buffer.writer[at] = lanes
        if clocks:
            buffer.written_clock[at] = clocks.own(lanes)
        buffer.written_strength[at] = strength
        buffer.written_epoch[at] = self.epoch[lanes // self.per_block]
        buffer.written_at[at] = self.point
        buffer.written_stamp[at] = self.cluster_arrivals[lanes]
        buffer.written_span = _record_span(buffer.written_span, buffer.data.size, at, span)

    def atomic(self, form, values, coord, executing):
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
            raise MemoryFault(f"{self.points[self.point]}: {form.opcode}: thread {int(np.flatnonzero(executing)[0])}'s "
                              f"generic address is in {view.buffer.name or 'shared memory'}; the PTX ISA defines "
                              "vector atomics on global memory only")
        registers = [(i, o) for i, o in enumerate(form.operands) if o.space == "reg" and o.role == "src"]
        for element in range(value_operand.count):
            self._atomic_element(form, values, coord + [element], executing, op, kind, bits, view, registers)

    def _atomic_element(self, form, values, coord, executing, op, kind, bits, view, registers):
        def operand(index):
            value = values[index]
            if isinstance(value, View):
                # The bits of a NaN an instruction made are the chip's: what
                # an atomic computes from them is unknown.
                read, defined, nan = self.read(value, coord)
                return read & _mask_bits(bits), defined & ~nan
            return value[0] & _mask_bits(bits), np.ones(self.threads, bool)
        sources = [operand(i) for i, _ in registers]
        address = view.addresses(coord)
        nbytes = bits // 8
        buffer = view.buffer
        old = np.zeros(self.threads, np.uint64)
        old_defined = np.zeros(self.threads, bool)
        old_nan = np.zeros(self.threads, bool)
        for thread in np.flatnonzero(executing):
            at = address[thread] + np.arange(nbytes)
            word = int.from_bytes(buffer.data[at].tobytes(), "little")
            made_nan = bool(buffer.nan[at].any())
            known = bool(buffer.defined[at].all()) and all(d[thread] for _, d in sources)
            b = int(sources[0][0][thread])
            new, exact = _atomic_result(op, kind, bits, word, b,
                                        int(sources[1][0][thread]) if len(sources) > 1 else 0, buffer.shared)
            old[thread], old_defined[thread], old_nan[thread] = word, known, made_nan
            buffer.data[at] = np.frombuffer(new.to_bytes(nbytes, "little"), np.uint8)
            # An exchange stores b as it is; anything else computed from a
            # made NaN's bits is unknown.
            buffer.defined[at] = known and exact and (op == "exch" or not made_nan)
            buffer.nan[at] = False
        if not buffer.private:
            lanes = self.lanes[executing]
            at = (address[executing][:, None] + np.arange(nbytes)[None, :]).reshape(-1)
            each = np.repeat(lanes, nbytes)
            order = MM.order_of(form)
            span = np.repeat(address[executing] * 16 + nbytes, nbytes)
            self.track_read(buffer, at, each, order.strength, span)
            self.track_write(buffer, at, each, order.strength, span)
            if self.sync is not None:
                # Each thread's read-modify-write in the order they ran,
                # so that each acquires what those before it released.
                for lane in lanes.tolist():
                    mine = at[each == lane]
                    self.sync.after_read(buffer, mine, np.full(mine.size, lane), order)
                    self.sync.after_write(buffer, mine, np.full(mine.size, lane), order, rmw=True)
            self._progress()
        if form.family == "atom":
            dst = next(v for o, v in zip(form.operands, values) if o.role == "dst")
            self.write(dst, coord, old, old_defined, executing, old_nan)

    def shuffle(self, form, values, coord, executing):
        """shfl.sync, from the ISA's pseudo-code (9.7.9.6): each executing
        thread reads `a` of the lane its mode, `b` and `c` name (its own when
        that lane is past the clamp). A thread outside its own membermask, a
        source lane outside the mask or not executing it, and a lane of the
        mask that does not execute it are hazards; what they read is
        undefined."""
        def bits(value):
            if isinstance(value, View):
                read, defined, nan = self.read(value, coord + [0])
                return read & np.uint64(0xFFFFFFFF), defined, nan
            return value[0] & np.uint64(0xFFFFFFFF), np.ones(self.threads, bool), np.zeros(self.threads, bool)
        sources = values[2:] if len(values) == 6 else values[1:]
        (a, a_def, a_nan), (b, b_def, _), (c, c_def, _), (mask, mask_def, _) = (bits(v) for v in sources)
        in_block = self.lanes % self.per_block
        lane = (in_block % 32).astype(np.int64)
        first = self.lanes - lane  # the warp's lane 0
        b, c, mask = b.astype(np.int64), c.astype(np.int64), mask.astype(np.int64)
        bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
        max_lane = (lane & segmask) | (cval & ~segmask)
        min_lane = lane & segmask
        mode = next(t for t in form.opcode.split(".") if t in ("up", "down", "bfly", "idx"))
        j = {"up": lane - bval, "down": lane + bval, "bfly": lane ^ bval,
             "idx": min_lane | (bval & ~segmask)}[mode]
        inside = j >= max_lane if mode == "up" else j <= max_lane
        j = np.where(inside, j, lane)
        # A lane past the end of a partial warp does not exist.
        warp_size = np.minimum(32, self.per_block - (in_block - lane))
        exists = j < warp_size
        source = first + np.where(exists, j, lane)
        own = (mask >> lane) & 1 == 1
        source_ok = exists & ((mask >> j) & 1 == 1) & executing[source]
        for problem, bad in (("is not in its own membermask", executing & ~own),
                             ("reads a lane outside its membermask or not executing it",
                              executing & own & ~source_ok)):
            self._collective_hazard(form, problem, bad, lane, j)
        self._membermasks_agree(form, mask, executing, first, warp_size, lane)
        # A lane of an executing thread's mask that does not execute it.
        for thread in np.flatnonzero(executing)[:1]:
            members = first[thread] + np.flatnonzero((int(mask[thread]) >> np.arange(32)) & 1)
            members = members[members < first[thread] + warp_size[thread]]
            missing = members[~executing[members]]
            if missing.size:
                self._collective_hazard(form, f"waits for lane {int(lane[missing[0]])} of its "
                                        "membermask, which does not execute it",
                                        self.lanes == thread, lane, j)
        result = a[source]
        defined = a_def[source] & b_def & c_def & mask_def & own & source_ok
        # A move: a NaN an instruction made stays one, its payload the chip's.
        self.write(values[0], coord + [0], result, defined, executing, a_nan[source])
        if len(values) == 6:  # d|p: whether the source lane was inside the clamp
            self.write(values[1], coord + [0], inside.astype(np.uint64), b_def & c_def & own,
                       executing, None)

    def collective(self, form, values, coord, executing):
        """vote, match, redux and elect (PTX ISA 9.0, 9.7.13.8-11), and
        activemask (9.7.13.12): each executing thread combines `a` over the
        threads of its membermask that execute the instruction. A thread
        outside its own membermask and a lane of the mask that does not
        execute it are hazards, as for shfl.sync; what they get is
        undefined. elect.sync elects the lowest lane of the mask: the ISA
        says only that the choice is deterministic."""
        named = {o.name: v for o, v in zip(form.operands, values)}
        in_block = self.lanes % self.per_block
        lane = (in_block % 32).astype(np.int64)
        first = self.lanes - lane
        warp_size = np.minimum(32, self.per_block - (in_block - lane))
        lanes32 = np.arange(32)
        exists = lanes32[None, :] < warp_size[:, None]
        peer = np.where(exists, first[:, None] + lanes32[None, :], self.lanes[:, None])
        peer_executes = exists & executing[peer]
        if form.family == "activemask":
            bits = (peer_executes.astype(np.uint64) << lanes32.astype(np.uint64)[None, :]).sum(axis=1)
            self.write(named["d"], coord + [0], bits.astype(np.uint64), np.ones(self.threads, bool),
                       executing, None)
            return

        def operand(value):
            if isinstance(value, View):
                # match and redux compare and add bits: a made NaN's are the
                # chip's, so what they give is unknown.
                read, defined, nan = self.read(value, coord + [0])
                return read, defined & ~nan
            return value[0], np.ones(self.threads, bool)
        mask, mask_def = operand(named["membermask"])
        mask = mask.astype(np.int64) & 0xFFFFFFFF
        in_mask = ((mask[:, None] >> lanes32[None, :]) & 1 == 1) & exists
        own = in_mask[self.lanes, lane]
        missing = in_mask & ~peer_executes
        self._collective_hazard(form, "is not in its own membermask", executing & ~own, lane, lane)
        self._membermasks_agree(form, mask, executing, first, warp_size, lane)
        for thread in np.flatnonzero(executing & missing.any(axis=1))[:1]:
            absent = int(np.flatnonzero(missing[thread])[0])
            self._collective_hazard(form, f"waits for lane {absent} of its membermask, which does "
                                    "not execute it", self.lanes == thread, lane, lane)
        members = in_mask & peer_executes
        defined = mask_def & own & ~missing.any(axis=1)
        mode = next((t for t in form.opcode.split(".")
                     if t in ("all", "any", "uni", "ballot", "add", "min", "max", "and", "or", "xor")),
                    None)
        weights = np.uint64(1) << lanes32.astype(np.uint64)
        outputs = {}
        if form.family == "elect":
            leader = np.where(members.any(axis=1), members.argmax(axis=1), 0)
            outputs["d"] = leader.astype(np.uint64)
            outputs["p"] = (leader == lane).astype(np.uint64)
        else:
            source = named["a"]
            a, a_def = operand(source)
            a_bits = next(o for o in form.operands if o.name == "a").bits
            if form.family == "redux" and a_bits == 32 and form.opcode.split(".")[-1] == "f32":
                raise NotCovered(f"{form.opcode}: f32 redux (sm_100a)")
            values_of = a[peer]
            defined &= np.where(members, a_def[peer], True).all(axis=1)
            if form.family == "vote":
                truth = values_of != 0
                outputs["d"] = {
                    "all": np.where(members, truth, True).all(axis=1),
                    "any": (members & truth).any(axis=1),
                    "uni": np.where(members, truth == truth[self.lanes, lane][:, None], True).all(axis=1),
                    "ballot": ((members & truth) * weights[None, :]).sum(axis=1),
                }[mode].astype(np.uint64)
            elif form.family == "match":
                same = values_of == a[:, None]
                any_mask = ((members & same) * weights[None, :]).sum(axis=1).astype(np.uint64)
                if mode == "any":
                    outputs["d"] = any_mask
                else:
                    equal = np.where(members, same, True).all(axis=1)
                    outputs["d"] = np.where(equal, (members * weights[None, :]).sum(axis=1), 0).astype(np.uint64)
                    outputs["p"] = equal.astype(np.uint64)
            else:  # redux: the integer reductions, order-independent
                signed = form.opcode.split(".")[-1] == "s32"
                words = values_of.astype(np.int64) & 0xFFFFFFFF
                if signed:
                    words = np.where(words >= 1 << 31, words - (1 << 32), words)
                if mode == "add":
                    result = np.where(members, words, 0).sum(axis=1)
                elif mode in ("min", "max"):
                    fill = np.iinfo(np.int64).max if mode == "min" else np.iinfo(np.int64).min
                    pick = np.where(members, words, fill)
                    result = pick.min(axis=1) if mode == "min" else pick.max(axis=1)
                else:
                    ufunc = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[mode]
                    neutral = 0xFFFFFFFF if mode == "and" else 0
                    result = ufunc.reduce(np.where(members, words, neutral), axis=1)
                outputs["d"] = (result & 0xFFFFFFFF).astype(np.uint64)
        for name, result in outputs.items():
            if name in named:  # match.all's predicate is optional
                self.write(named[name], coord + [0], result, defined, executing, None)

    def async_copy(self, form, values, group, executing):
        """cp.async (PTX ISA 9.0, 9.7.9.25): each executing thread's copy of
        cp-size bytes from global to shared memory joins its open group;
        commit_group closes the group; wait_group N delivers every committed
        group but the newest N (wait_all: commit, then wait 0). The bytes
        land at the wait: until then they are pending, and another access
        to them is a hazard (AsyncHazard)."""
        tokens = form.opcode.split(".")
        if "commit_group" in tokens or "wait_all" in tokens:
            self.open_group = np.where(executing, self.open_group + 1, self.open_group)
        if "wait_group" in tokens or "wait_all" in tokens:
            keep = int(values[0][0][0]) if "wait_group" in tokens else 0
            self.deliver_copies(executing, below=self.open_group - keep)
            return
        if "commit_group" in tokens:
            return
        dst, src = values[0], values[1]
        repeats = dst.shape[len(group):-1]
        point = self.point
        nbytes = element_bytes(dst.bits)
        cp_size = dst.shape[-1] * nbytes
        named = {operand.name: value for operand, value in zip(form.operands, values)}
        for coord in itertools.product(*[range(n) for n in repeats]):
            coord = group + list(coord)
            # src-size: the bytes read from src; the rest are zeros. More
            # than cp-size is undefined (PTX ISA 9.7.9.25.3.1).
            src_size, size_known = np.full(self.threads, cp_size, np.int64), np.ones(self.threads, bool)
            if "src-size" in named:  # a cache-policy operand only hints L2
                size = named["src-size"]
                if isinstance(size, View):
                    bits, size_known, _ = self.read(size, coord + [0])
                else:
                    bits = size[0]
                src_size = np.asarray(bits, np.uint64).astype(np.int64) & 0xFFFFFFFF
                size_known = size_known & (src_size <= cp_size)
            # The copy's bytes, read as src's elements (whose width may
            # differ from dst's): only those below src-size are read.
            src_bytes = element_bytes(src.bits)
            moved = np.zeros((cp_size, self.threads), np.uint64)
            moved_known = np.ones((cp_size, self.threads), bool)
            moved_origin = np.full((cp_size, self.threads), O.UNKNOWN, np.int64)
            for e in range(src.shape[-1]):
                start = e * src_bytes
                bits, defined, _ = self.read(src, coord + [e], executing & (src_size > start))
                origin = self.byte_origins(src, coord + [e])
                for byte in range(src_bytes):
                    inside = src_size > start + byte
                    moved[start + byte] = np.where(inside, (bits >> np.uint64(8 * byte)) & np.uint64(0xFF), 0)
                    # Zero-filled bytes are defined whatever src holds.
                    moved_known[start + byte] = size_known & (defined | ~inside)
                    moved_origin[start + byte] = np.where(inside & size_known, origin[byte], O.UNKNOWN)
            data, known, origins = [], [], []
            for e in range(dst.shape[-1]):
                window = range(e * nbytes, (e + 1) * nbytes)
                data.append(sum((moved[b] << np.uint64(8 * (b - window[0])) for b in window), np.uint64(0)))
                known.append(np.logical_and.reduce([moved_known[b] for b in window]))
                origins.append(moved_origin[e * nbytes:(e + 1) * nbytes])
            self.check_alignment(dst, coord + [0], cp_size, executing)
            self.check_alignment(src, coord + [0], cp_size, executing)
            self.bank_requests(dst, coord + [0], cp_size, executing)
            self.copy_sequence += 1
            self.copies.append((self.open_group.copy(), dst, coord, data, known, origins, executing.copy(), point,
                                self.copy_sequence))
            buffer = dst.buffer
            if not buffer.private:
                for e in range(dst.shape[-1]):
                    address = dst.addresses(coord + [e])[executing]
                    for byte in range(nbytes):
                        # The copy may land as soon as it is issued: every
                        # access before it must be ordered before the issue,
                        # not only before the wait that delivers it.
                        self.track_write(buffer, address + byte, self.lanes[executing])
                        buffer.pending_at[address + byte] = point

    def deliver_copies(self, threads, up_to=None, below=None, tracked=True):
        """Writes the pending copies of `threads`: those numbered up to
        `up_to` (cp.async.mbarrier.arrive), or whose group is below `below`
        (per thread: cp.async.wait_group). Copies an mbarrier phase
        completed (not `tracked`) are ordered before the wait that saw it."""
        kept = []
        for groups, dst, coord, data, known, origins, issued, point, sequence in self.copies:
            now = issued & threads
            if below is not None:
                now &= groups < below
            if up_to is not None and sequence > up_to:
                now = np.zeros_like(now)
            if now.any():
                for e, (bits, defined, origin) in enumerate(zip(data, known, origins)):
                    if not dst.buffer.private:
                        nbytes = element_bytes(dst.bits)
                        for byte in range(nbytes):
                            dst.buffer.pending_at[dst.addresses(coord + [e])[now] + byte] = 0
                    self.write(dst, coord + [e], bits, defined, now, origin=origin, tracked=tracked)
            rest = issued & ~now
            if rest.any():
                kept.append((groups, dst, coord, data, known, origins, rest, point, sequence))
        self.copies = kept

    def deliver_bulk(self, sequence):
        """The TMA load numbered `sequence` lands (tma.py)."""
        T.deliver(self, sequence)

    def _pending_hazard(self, buffer, at, lanes):
        """An access, at byte addresses `at`, to bytes a cp.async has in
        flight."""
        if buffer.private or not buffer.pending_at[at].any():
            return
        where = np.flatnonzero(buffer.pending_at[at])[0]
        key = ("async", self.point, buffer.name)
        if not self.first_report(key):
            return
        copied_at = int(buffer.pending_at[at][where])
        self.hazards.append(AsyncHazard(self.current_opcode, self.points[self.point], buffer.name,
                                        int(at[where]), self.points[copied_at], copied_at in self.bulk_points))

    def _whole_warps(self, form, executing):
        """(each thread's lane, the first thread of every warp, the threads
        of warps that run a .sync.aligned instruction with lanes missing):
        those lanes are a hazard, and what the warp gets is undefined."""
        in_block = self.lanes % self.per_block
        lane = (in_block % 32).astype(np.int64)
        first_threads = np.unique(self.lanes - lane)
        partial = np.zeros(self.threads, bool)
        for first in first_threads:
            members = first + np.arange(32)
            if executing[members].any() and not executing[members].all():
                partial[members] = True
        if partial.any():
            bad = np.flatnonzero(partial & ~executing)[0]
            self._collective_hazard(form, f"leaves lanes of its warp out ({form.family} needs all 32)",
                                    self.lanes == bad, lane, lane)
        return lane, first_threads, partial

    def check_alignment(self, view, coord, nbytes, executing):
        """An access of `nbytes` (a vector, an ldmatrix row, a copy) must
        start at a multiple of its size, or the chip faults (misaligned
        address); buffers start aligned to 16 bytes or more. Through a
        swizzle, the address checked is the one the chip sees."""
        if view.buffer.private or nbytes <= 1 or not executing.any():
            return
        start = view.addresses(coord)[executing]
        if view.buffer.block_bytes:
            start = start % view.buffer.block_bytes  # from the start of the block's copy
        align = view.buffer.align
        if align is not None and align < nbytes:
            # ptxas may place the buffer at any multiple of its alignment
            # (seen: a static align=4 buffer at 0x404 under an STS.128).
            raise self.fault(executing, f"accesses {nbytes} bytes of {view.buffer.name}, which is declared "
                                        f"align={align}: the chip may place it at an address that is not a "
                                        f"multiple of {nbytes} (misaligned address); declare align={nbytes} or more")
        bad = start % nbytes != 0
        if bad.any():
            where = np.zeros(self.threads, bool)
            where[np.flatnonzero(executing)[bad]] = True
            raise self.fault(where, f"accesses {nbytes} bytes at byte {int(start[bad][0])} of "
                                    f"{view.buffer.name or 'a tensor'}, which is not a multiple of {nbytes} (the "
                                    "GPU faults: misaligned address)")

    def fault(self, threads, problem):
        """A MemoryFault at the current program point, naming the opcode
        and the first of `threads` (a mask) that faults, as races do."""
        thread = int(np.flatnonzero(threads)[0]) if np.any(threads) else None
        who = f"thread {thread}: " if thread is not None else ""
        return MemoryFault(f"{self.points[self.point]}: {self.current_opcode}: {who}{problem}")

    def bank_requests(self, view, coord, nbytes, executing, phase_lanes=None):
        """Counts the shared-memory wavefronts of one instruction's access
        of `nbytes` per executing thread at element `coord` of `view`, as
        the CUDA Programming Guide describes the banks: 32 banks of 4-byte
        words; the threads of a warp are served in phases (8 lanes for
        16-byte accesses, 16 for 8-byte ones, 32 otherwise; ldmatrix: a
        matrix's 8 rows); a phase takes as many wavefronts as the most
        distinct words any one bank holds (the same word is broadcast), the
        ideal being one per 32 distinct words."""
        if self.bank_stats is None or not view.buffer.shared or not executing.any():
            return
        if phase_lanes is None:
            phase_lanes = {16: 8, 8: 16}.get(nbytes, 32)
        start = view.addresses(coord)[executing]
        linear = self.lanes[executing] % self.per_block
        phase = (self.block_linear[executing] * self.per_block + linear) // phase_lanes
        words = np.unique(np.stack([
            np.repeat(phase, max(nbytes // 4, 1)),
            (start[:, None] // 4 + np.arange(max(nbytes // 4, 1))[None, :]).reshape(-1)]), axis=1)
        groups, per_group = np.unique(words[0], return_counts=True)
        banks, per_bank = np.unique(np.stack([words[0], words[1] % 32]), axis=1, return_counts=True)
        wavefronts = np.zeros(groups.size, np.int64)
        np.maximum.at(wavefronts, np.searchsorted(groups, banks[0]), per_bank)
        entry = self.bank_stats.setdefault((self.points[self.point], self.current_opcode), [0, 0, 0])
        entry[0] += 1
        entry[1] += int(wavefronts.sum())
        entry[2] += int((-(-per_group // 32)).sum())

    def matrix_move(self, form, values, coord):
        """ldmatrix and stmatrix .m8n8 .b16 (PTX ISA 9.0, 9.7.14.5.15-16):
        row r of matrix j is the 8 b16 elements at the address of lane
        8j + r (here: that lane's row of the memory operand); register j of
        lane l holds elements 2(l % 4) and 2(l % 4) + 1 of row l / 4 (the
        lower one in the low half), or with .trans those rows' elements of
        column l / 4."""
        tokens = form.opcode.split(".")
        trans = "trans" in tokens
        regs_op = next(o for o in form.operands if o.space == "reg")
        named = {o.space == "reg": v for o, v in zip(form.operands, values)}
        regs, memory = named[True], named[False]
        count = regs_op.count
        executing = self.active
        lane, first_threads, partial = self._whole_warps(form, executing)
        first = self.lanes - lane
        supplies = executing & (lane < 8 * count)  # the lanes whose addresses are read

        def source(j, row):
            return first + 8 * j + row

        self.check_alignment(memory, coord + [0], 16, supplies)
        self.bank_requests(memory, coord + [0], 16, supplies, phase_lanes=8)
        if form.family == "ldmatrix":
            rows = [self.read(memory, coord + [e], supplies) for e in range(8)]
            row_origins = [self.byte_origins(memory, coord + [e]) for e in range(8)]
            for j in range(count):
                word = np.zeros(self.threads, np.uint64)
                origin = np.full((4, self.threads), O.UNKNOWN, np.int64)
                known = ~partial
                for h in range(2):
                    if trans:
                        r, c = 2 * (lane % 4) + h, lane // 4
                    else:
                        r, c = lane // 4, 2 * (lane % 4) + h
                    src = source(j, r)
                    part = np.zeros(self.threads, np.uint64)
                    part_known = np.ones(self.threads, bool)
                    for e in range(8):
                        pick = c == e
                        part = np.where(pick, rows[e][0][src] & np.uint64(0xFFFF), part)
                        part_known = np.where(pick, rows[e][1][src], part_known)
                        origin[2 * h:2 * h + 2] = np.where(pick, row_origins[e][:, src], origin[2 * h:2 * h + 2])
                    word |= part << np.uint64(16 * h)
                    known = known & part_known
                self.write(regs, coord + [j], word, known, executing, None, origin)
            return
        # stmatrix: memory element (r, c) of matrix j, written through lane
        # 8j + r's address, comes from lane 4r + c/2 (.trans: 4c + r/2).
        words = [self.read(regs, coord + [j]) for j in range(count)]
        word_origins = [self.byte_origins(regs, coord + [j]) for j in range(count)]
        row = lane % 8
        j_of = lane // 8
        for e in range(8):
            value = np.zeros(self.threads, np.uint64)
            origin = np.full((2, self.threads), O.UNKNOWN, np.int64)
            known = ~partial
            for j in range(count):
                mine = j_of == j
                if trans:
                    src_lane, h = 4 * e + row // 2, row % 2
                else:
                    src_lane, h = 4 * row + e // 2, e % 2
                src = first + src_lane
                word, defined, _ = words[j]
                value = np.where(mine, (word[src] >> np.uint64(16 * h)) & np.uint64(0xFFFF), value)
                known = np.where(mine, known & defined[src], known)
                origin = np.where(mine, word_origins[j][2 * h + np.arange(2)[:, None], src], origin)
            self.write(memory, coord + [e], value, known, supplies, origin=origin)

    def mma(self, form, values, group):
        """mma.sync over the repeat space (m, n, k) of a warp-scope apply,
        k outermost, C feeding k = 0 and D each later k, as tile-expand
        issues it: each warp's 32 lanes give their fragment registers
        (tile_mlir.fragments, from the PTX ISA), reference.mma multiplies,
        and each lane gets its D registers back. Every lane of the warp must
        execute it (.aligned); otherwise each lane's D is undefined and the
        missing lanes are a hazard."""
        shape = fragments.shape_of(form.opcode)
        dkind, akind, bkind, ckind = fragments.kinds_of(form.opcode)
        satfinite = "satfinite" in form.opcode.split(".")
        rounding = next((t for t in form.opcode.split(".") if t in ("rn", "rz", "rm", "rp")), "rn")
        named = {o.name: (o, v) for o, v in zip(form.operands, values)}
        if not all(isinstance(v, View) for v in values):
            raise NotCovered(f"{form.opcode}: a scalar fragment register")
        dst = named.get("d") or named["acc"]
        src_c = named.get("c") or named["acc"]
        extents = {}
        for operand, view in zip(form.operands, values):
            for letter, extent in zip(operand.axes, view.shape[len(group):-1]):
                extents[letter] = extent
        letters = "k" + "mn"
        executing = self.active
        lane, first_threads, partial = self._whole_warps(form, executing)

        def fragment(operand_name, view, coord, kind, count, rows, cols):
            """Per warp (first thread -> matrix of bits, defined); in a
            tracked run, each warp's fragment is checked against the ISA's
            layout (fragment_origins)."""
            per = fragments.per_register(kind)
            bits_each = fragments.ELEMENT_BITS[kind]
            regs = [self.read(view, group + coord + [r]) for r in range(count)]
            checked = self.origins is not None and bits_each % 8 == 0
            if checked:
                size = bits_each // 8
                # (register, element, thread): the origin of each element.
                origins = np.stack([O.element_origins(self.byte_origins(view, group + coord + [r])
                                                      .T.reshape(self.threads * per, size))
                                    .reshape(self.threads, per).T for r in range(count)])
            out, along_k = {}, {}
            for first in first_threads:
                members = first + np.arange(32)
                matrix = np.zeros((rows, cols), np.uint64)
                known = np.zeros((rows, cols), bool)
                placed, where = {}, {}
                for ln in range(32):
                    thread = members[ln]
                    for r, (value, defined, _) in enumerate(regs):
                        for e in range(per):
                            i = r * per + e
                            row, col = fragments.element(shape, operand_name, kind, i, ln)
                            part = (int(value[thread]) >> (e * bits_each)) & ((1 << bits_each) - 1)
                            matrix[row, col] = part
                            known[row, col] = bool(defined[thread])
                            if checked:
                                placed[(row, col)] = int(origins[r, e, thread])
                                where[(row, col)] = (ln, r, e)
                if checked:
                    along_k[first] = O.check_fragment(self.origins, self.points[self.point], form.opcode,
                                                      operand_name, kind, placed, where, rows, cols)
                out[first] = (matrix, known)
            return out, along_k

        m, n, k = shape
        ranges = [range(extents.get(letter, 1)) for letter in letters]
        for kk, mm, nn in itertools.product(*ranges):
            point = {"k": kk, "m": mm, "n": nn}
            a_op, a_view = named["a"]
            b_op, b_view = named["b"]
            c_op, c_view = src_c if kk == 0 else dst
            a_f, a_along_k = fragment("a", a_view, [point[x] for x in a_op.axes], akind, a_op.count, m, k)
            b_f, b_along_k = fragment("b", b_view, [point[x] for x in b_op.axes], bkind, b_op.count, k, n)
            c_f, _ = fragment("c", c_view, [point[x] for x in c_op.axes], ckind, c_op.count, m, n)
            for first in a_along_k:
                O.check_k_order(self.points[self.point], form.opcode, a_along_k[first], b_along_k.get(first))
            d_op, d_view = dst
            d_coord = group + [point[x] for x in d_op.axes]
            per = fragments.per_register(dkind)
            bits_each = fragments.ELEMENT_BITS[dkind]
            out_bits = [np.zeros(self.threads, np.uint64) for _ in range(d_op.count)]
            out_def = [np.ones(self.threads, bool) for _ in range(d_op.count)]
            tracked = self.origins is not None and bits_each % 8 == 0
            d_size = bits_each // 8
            out_origin = [np.full((per * d_size, self.threads), O.UNKNOWN, np.int64) for _ in range(d_op.count)]
            for first in first_threads:
                (a, a_known), (b, b_known), (c, c_known) = a_f[first], b_f[first], c_f[first]
                d, d_known = ACC.multiply(self.accumulation, "mma", dkind, akind, bkind, ckind, a, b, c, satfinite,
                                          rounding)
                d_known = d_known & c_known & a_known.all(axis=1)[:, None] & b_known.all(axis=0)[None, :]
                members = first + np.arange(32)
                # D's bytes are this mma's (row, column), for the checks of
                # the mma it feeds and of its stores.
                base = self.origins.new_instance(self.points[self.point], form.opcode, n, d_size) if tracked else 0
                for ln in range(32):
                    thread = members[ln]
                    for r in range(d_op.count):
                        word, known = 0, not partial[thread]
                        for e in range(per):
                            row, col = fragments.element(shape, "d", dkind, r * per + e, ln)
                            word |= int(d[row, col]) << (e * bits_each)
                            known = known and bool(d_known[row, col])
                            if tracked:
                                out_origin[r][e * d_size:(e + 1) * d_size, thread] = (
                                    base + (row * n + col) * d_size + np.arange(d_size))
                        out_bits[r][thread] = word
                        out_def[r][thread] = known
            for r in range(d_op.count):
                self.write(d_view, d_coord + [r], out_bits[r], out_def[r], executing, None,
                           out_origin[r] if tracked else None)

    def wgmma(self, form, values, group):
        """wgmma.mma_async, fence, commit_group and wait_group
        (interpreter/wgmma.py)."""
        name = form.opcode.split(".")[1]
        if name == "mma_async":
            W.execute(self, form, values, group)
        elif name == "commit_group":
            W.commit(self)
        elif name == "wait_group":
            W.wait(self, int(values[0][0][0]))

    def op_tile_matrix_descriptor(self, op):
        self.values[op.results[0]] = W.descriptor(self, self.values[op.operands[0]])

    def _membermasks_agree(self, form, mask, executing, first, warp_size, lane):
        """The threads of a membermask that execute a .sync collective pass
        it the same membermask, or what each gets is undefined (CUDA's
        warp intrinsics: "all non-exited threads named in mask must execute
        the same intrinsic with the same mask"): a hazard naming both."""
        mask = np.asarray(mask).astype(np.int64) & 0xFFFFFFFF
        lanes32 = np.arange(32)
        exists = lanes32[None, :] < warp_size[:, None]
        peer = np.where(exists, first[:, None] + lanes32[None, :], self.lanes[:, None])
        named = ((mask[:, None] >> lanes32[None, :]) & 1 == 1) & exists & executing[peer]
        differs = named & (mask[peer] != mask[:, None]) & executing[:, None]
        for thread in np.flatnonzero(differs.any(axis=1))[:1]:
            other = int(np.flatnonzero(differs[thread])[0])
            self._collective_hazard(form, f"passes membermask {int(mask[thread]):#010x}, but lane {other} of "
                                    f"it passes {int(mask[peer[thread, other]]):#010x}: lanes of one membermask "
                                    "pass the same one", self.lanes == thread, lane, lane)

    def _collective_hazard(self, form, problem, bad, lane, source):
        for thread in np.flatnonzero(bad)[:1]:
            key = ("collective", problem.split()[0], self.point)
            if not self.first_report(key):
                return
            self.hazards.append(CollectiveHazard(form.opcode, self.points[self.point], int(thread),
                                                 int(lane[thread]), int(source[thread]), problem))

    def barrier(self, form, immediates, executing):
        """A block barrier reached by the threads `executing`: every thread of
        each block must reach it (a thread count must be the block's); then
        the block's accesses before it are ordered before those after it."""
        if self.streams is not None:
            self._stream_barrier(form, immediates, executing)
            return
        if "arrive" in form.opcode.split("."):
            raise Stalled(f"{self.points[self.point]}: {form.opcode}: a producer-consumer barrier within "
                          "one warpgroup")
        blocks = self.threads // self.per_block
        arrived = np.bincount(self.block_linear[executing], minlength=blocks)
        # With a count of fewer threads (a warpgroup's barrier), those that
        # reach it together, all in lockstep; it orders their accesses only,
        # through the clocks.
        count = immediates[1] if len(immediates) == 2 else self.per_block
        partial = count != self.per_block
        if partial and self.clocks is None:
            raise NotCovered(f"{form.opcode} with a count of {count} threads in a block of "
                             f"{self.per_block}, in a kernel without mbarriers")
        for block in np.flatnonzero((arrived > 0) & (arrived != count))[:1]:
            key = ("barrier", self.point)
            if self.first_report(key):
                self.hazards.append(DivergentBarrier(form.opcode, self.points[self.point], int(block),
                                                     int(arrived[block]), count))
        if partial:
            self.clocks.join(np.flatnonzero(executing))
            return
        self.epoch[arrived > 0] += 1
        if self.clocks:
            self.clocks.barrier(np.flatnonzero(arrived > 0))

    def _stream_barrier(self, form, immediates, executing):
        """A barrier between streams: the executing threads arrive, and
        those that sync wait, giving the turn away, until it completes. A
        barrier of the whole block also starts the next epoch."""
        if not executing.any():
            return  # none of this stream's threads reach it
        barrier_id = immediates[0] if immediates else 0
        count = immediates[1] if len(immediates) == 2 else self.per_block
        if "red" in form.opcode.split("."):
            raise NotCovered(f"{form.opcode} between warpgroups that take turns")
        syncing = "arrive" not in form.opcode.split(".")
        where = self.points[self.point]
        waits = self.named_barriers.arrive(barrier_id, count, np.flatnonzero(executing), syncing)
        if not syncing:
            return
        thread = int(np.flatnonzero(executing)[0])
        while not self.named_barriers.passed(waits):
            self.streams.wait(lambda: f"{where}: {form.opcode} never completes: thread {thread} waits at "
                                      f"barrier {barrier_id} for {count} threads, and no other "
                                      f"{self.streams.name} can go on to arrive")

    def barrier_operands(self, form, values):
        """The barrier's id and thread count (a, b): immediates, or
        registers whose value the ISA asks to be the same in every thread
        of the block."""
        found = []
        for operand, value in zip(form.operands, values):
            if operand.name not in ("a", "b"):
                continue
            if isinstance(value, View):
                bits, known, _ = self.read(value, [0])
            else:
                bits, known = value[0], np.ones(self.threads, bool)
            executing = self.active
            if not known[executing].all():
                raise NotCovered(f"{form.opcode} with an undefined barrier operand {operand.name}")
            per_thread = bits[executing].astype(np.int64) & 0xFFFFFFFF
            if per_thread.size and (per_thread != per_thread[0]).any():
                if self.streams is None:
                    # Each warpgroup at its own barrier: run them as streams.
                    raise Stalled(f"{self.points[self.point]}: {form.opcode} with operand {operand.name} "
                                  "differing between threads")
                raise NotCovered(f"{form.opcode} with operand {operand.name} differing between threads")
            found.append(int(per_thread[0]) if per_thread.size else 0)
        return found

    def barrier_reduction(self, form, values, executing):
        """bar.red (PTX ISA 9.7.13.1): d of every thread of a block is the
        reduction over the block's threads of predicate c: popc counts the
        threads where it is true, and and or combine it. A thread whose c
        is undefined leaves every result of its block undefined."""
        named = {o.name: v for o, v in zip(form.operands, values)}
        c = named["c"]
        if isinstance(c, View):
            bits, known, _ = self.read(c, [0])
        else:
            bits, known = c[0].astype(np.uint64), np.ones(self.threads, bool)
        truth = (bits != 0) & executing
        blocks = self.threads // self.per_block
        count = np.bincount(self.block_linear, weights=truth, minlength=blocks).astype(np.int64)
        arrived = np.bincount(self.block_linear, weights=executing, minlength=blocks).astype(np.int64)
        block_known = np.bincount(self.block_linear, weights=~known & executing, minlength=blocks) == 0
        op = next(t for t in form.opcode.split(".") if t in ("popc", "and", "or"))
        per_block = {"popc": count, "and": (count == arrived).astype(np.int64),
                     "or": (count > 0).astype(np.int64)}[op]
        result = per_block[self.block_linear].astype(np.uint64)
        self.write(named["d"], [0], result, block_known[self.block_linear], executing, None)

    # -- memory ----------------------------------------------------------
    def read(self, view, coord, where=None, order=MM.WEAK_ORDER):
        """(bits, defined, nan) of one element for every thread; `where`
        marks the threads that really access memory (for the hazard
        check), with the semantics `order` (memory_model.py)."""
        nbytes = element_bytes(view.bits)
        address = view.addresses(coord)
        value = np.zeros(self.threads, np.uint64)
        defined = np.ones(self.threads, bool)
        nan = np.zeros(self.threads, bool)
        buffer = view.buffer
        if buffer.private and buffer.in_flight is not None:
            W.check_registers(self, buffer, address, writing=False)
        for byte in range(nbytes):
            at = address + byte
            if buffer.private:
                b, d, n = buffer.data[self.lanes, at], buffer.defined[self.lanes, at], buffer.nan[self.lanes, at]
            else:
                # A thread that does not access memory (inactive, or past a
                # tensor's runtime extent in a loop it left) reads nothing.
                inside = (at >= 0) & (at < buffer.data.size)
                if where is not None and (where & ~inside).any():
                    outside = where & ~inside
                    raise self.fault(outside, f"reads byte {int(at[outside][0])} of {buffer.name or 'a tensor'}, "
                                              f"which has {buffer.data.size}")
                safe = np.where(inside, at, 0)
                b, d, n = buffer.data[safe], buffer.defined[safe] & inside, buffer.nan[safe]
                if where is not None:
                    self.track_read(buffer, at[where], self.lanes[where], order.strength)
                    if self.sync is not None:
                        self.sync.after_read(buffer, at[where], self.lanes[where], order)
            value |= b.astype(np.uint64) << np.uint64(8 * byte)
            defined &= d
            nan |= n
        return value, defined, nan

    def write(self, view, coord, value, defined, where, nan=None, origin=None, tracked=True, order=MM.WEAK_ORDER):
        """Writes one element for the threads `where`, with the semantics
        `order` (memory_model.py); `origin` (bytes, threads) is where its
        bytes came from (unknown: computed). Without `tracked`, the write
        is ordered before every later access (the race check does not see
        it)."""
        nbytes = element_bytes(view.bits)
        if view.buffer.private and view.buffer.in_flight is not None:
            W.check_registers(self, view.buffer, view.addresses(coord), writing=True)
        if view.buffer.private and view.buffer.a_in_flight is not None:
            W.check_a_registers(self, view.buffer, view.addresses(coord))
        address = view.addresses(coord)[where]
        value, defined = value[where], defined[where]
        nan = np.zeros(value.size, bool) if nan is None else nan[where]
        buffer = view.buffer
        lanes = self.lanes[where]
        if buffer.origin is not None:
            placed = np.full((nbytes, lanes.size), O.UNKNOWN, np.int64) if origin is None else origin[:, where]
            for byte in range(nbytes):
                if buffer.private:
                    buffer.origin[lanes, address + byte] = placed[byte]
                else:
                    buffer.origin[address + byte] = placed[byte]
            if not buffer.private and not buffer.shared and (placed >= O.VIRTUAL).any():
                made = placed >= O.VIRTUAL
                at = address[None, :] + np.arange(nbytes)[:, None]
                self.origins.stores.append((placed[made], at[made], buffer.name, self.points[self.point]))
        for byte in range(nbytes):
            at = address + byte
            part = ((value >> np.uint64(8 * byte)) & np.uint64(0xFF)).astype(np.uint8)
            if buffer.private:
                buffer.data[lanes, at] = part
                buffer.defined[lanes, at] = defined
                buffer.nan[lanes, at] = nan
            else:
                # Two threads storing one byte in one instruction: which wins
                # is not defined.
                if tracked:
                    self.track_write(buffer, at, lanes, order.strength)
                if buffer.wgmma_reading is not None:
                    W.check_shared_write(self, buffer, at)
                if buffer.shared:
                    self.unfenced.generic_write(buffer, at, self.point)
                unique, counts = np.unique(at, return_counts=True)
                buffer.data[at] = part
                buffer.defined[at] = defined
                buffer.nan[at] = nan
                buffer.defined[unique[counts > 1]] = False
        if not buffer.private:
            if tracked and self.sync is not None:
                at = (address[:, None] + np.arange(nbytes)[None, :]).reshape(-1)
                self.sync.after_write(buffer, at, np.repeat(lanes, nbytes), order, rmw=False)
            self._progress()

    def _progress(self):
        """Memory changed: a stream spinning on it may go on."""
        if self.streams is not None:
            self.streams.advance()

    # -- values ----------------------------------------------------------
    def index(self, value):
        return self.values[value]

    def run_block(self, block):
        for op in block.operations:
            self.run_op(op.operation)

    def run_op(self, op):
        self.enter(op)
        name = op.name
        handler = getattr(self, "op_" + name.replace(".", "_"), None)
        if handler is None and F.handles(name):
            handler = self._float_op
        try:
            if handler is None:
                raise NotCovered(name)
            handler(op)
        except NotCovered as why:
            # Located at the innermost op that raised it (an op of a loop's
            # body, not the loop).
            if why.point is None:
                why.point = self.points[self.point]
            raise

    def op_gpu_thread_id(self, op):
        self.values[op.results[0]] = self.tid["xyz".index(str(op.attributes["dimension"])[-2])]

    def op_gpu_block_id(self, op):
        self.values[op.results[0]] = self.bid["xyz".index(str(op.attributes["dimension"])[-2])]

    def op_gpu_block_dim(self, op):
        dim = "xyz".index(str(op.attributes["dimension"])[-2])
        self.values[op.results[0]] = np.full(self.threads, self.block[dim], np.int64)

    def op_gpu_grid_dim(self, op):
        dim = "xyz".index(str(op.attributes["dimension"])[-2])
        self.values[op.results[0]] = np.full(self.threads, self.grid[dim], np.int64)

    def op_gpu_lane_id(self, op):
        self.values[op.results[0]] = (self.lanes % self.per_block % 32).astype(np.int64)

    def _special(self, op, values):
        """A special register's value per thread, as an integer of its width."""
        from mlir import ir
        width = ir.IntegerType(op.results[0].type).width
        self.values[op.results[0]] = (np.asarray(values).astype(np.uint64) & _mask_bits(width), width)

    # Special registers whose values the hardware picks: the interpreter
    # gives one value it could give (docs/python.md), never compared with a
    # GPU's. %warpid: the warp's index in its block (one block per SM);
    # %smid: 0; %clock64 and %globaltimer: a counter that each read
    # advances, the same in every thread.
    def op_nvvm_read_ptx_sreg_warpid(self, op):
        self._special(op, self.lanes % self.per_block // 32)

    def op_nvvm_read_ptx_sreg_cluster_ctarank(self, op):
        self._special(op, self.cluster_rank)

    def op_nvvm_read_ptx_sreg_cluster_nctarank(self, op):
        self._special(op, np.full(self.threads, int(np.prod(self.cluster))))

    def op_nvvm_read_ptx_sreg_nclusterid_x(self, op):
        axis = "xyz".index(op.name[-1])
        self._special(op, np.full(self.threads, self.grid[axis] // self.cluster[axis]))

    op_nvvm_read_ptx_sreg_nclusterid_y = op_nvvm_read_ptx_sreg_nclusterid_x
    op_nvvm_read_ptx_sreg_nclusterid_z = op_nvvm_read_ptx_sreg_nclusterid_x

    def _cluster_axis(self, op, of_block):
        axis = "xyz".index(op.name[-1])
        value = self.bid[axis] % self.cluster[axis] if of_block else self.bid[axis] // self.cluster[axis]
        self._special(op, value)

    def op_nvvm_read_ptx_sreg_cluster_ctaid_x(self, op):
        self._cluster_axis(op, True)

    op_nvvm_read_ptx_sreg_cluster_ctaid_y = op_nvvm_read_ptx_sreg_cluster_ctaid_x
    op_nvvm_read_ptx_sreg_cluster_ctaid_z = op_nvvm_read_ptx_sreg_cluster_ctaid_x

    def op_nvvm_read_ptx_sreg_clusterid_x(self, op):
        self._cluster_axis(op, False)

    op_nvvm_read_ptx_sreg_clusterid_y = op_nvvm_read_ptx_sreg_clusterid_x
    op_nvvm_read_ptx_sreg_clusterid_z = op_nvvm_read_ptx_sreg_clusterid_x

    def op_nvvm_read_ptx_sreg_smid(self, op):
        self._special(op, np.zeros(self.threads))

    def op_nvvm_read_ptx_sreg_clock64(self, op):
        self.clock += 1
        self._special(op, np.full(self.threads, self.clock))

    op_nvvm_read_ptx_sreg_globaltimer = op_nvvm_read_ptx_sreg_clock64

    def op_nvvm_read_ptx_sreg_dynamic_smem_size(self, op):
        self._special(op, np.full(self.threads, self.dynamic_shared_bytes))

    def op_gpu_return(self, op):
        # Streams return one at a time: their blocks end with the last
        # (_run checks there).
        if self.cluster != (1, 1, 1) and self.streams is None:
            self.check_shared_memory_outlives_access()

    def check_shared_memory_outlives_access(self):
        """A block's shared memory ends when the block exits (PTX ISA 9.0, the state
        spaces' distributed shared memory: accessible while its block
        runs), so another block's access to it must be ordered before the
        exit: the accessor arrives at a barrier.cluster (not .relaxed)
        that the owner's threads have waited on since. Each byte a thread
        of another block wrote or read last and no such barrier orders is
        a race of kind "access-before-exit"."""
        buffers = {id(v.buffer): v.buffer for v in self.values.values()
                   if isinstance(v, View) and v.buffer.shared and v.buffer.block_bytes}
        for buffer in buffers.values():
            owner = np.arange(buffer.data.size) // buffer.block_bytes
            # Each owner block's first thread stands for it: its threads
            # leave together at the kernel's end.
            owner_thread = owner * self.per_block
            accesses = [(buffer.writer, buffer.written_stamp, buffer.written_at)]
            if buffer.remote_reader is not None:
                accesses.append((buffer.remote_reader, buffer.remote_read_stamp, buffer.remote_read_at))
            for others, stamps, point in accesses:
                remote = (others >= 0) & (others // self.per_block != owner)
                bad = np.flatnonzero(remote & ~self._cluster_ordered(owner_thread, others, stamps))
                if bad.size:
                    self._hazard_at_exit(buffer, bad, others, point)

    def _hazard_at_exit(self, buffer, bad, others, point):
        points, firsts = np.unique(point[bad], return_index=True)
        for at_point, i in zip(points, bad[firsts]):
            key = ("access-before-exit", int(at_point), self.point)
            if not self.first_report(key):
                continue
            owner = int(i // buffer.block_bytes * self.per_block)
            self.hazards.append(Hazard("access-before-exit", buffer.name, int(i % buffer.block_bytes),
                                       self.points[int(at_point)], "the kernel's end", (int(others[i]), owner)))

    def op_scf_yield(self, op):
        pass

    def op_arith_constant(self, op):
        from mlir import ir
        attr = op.attributes["value"]
        result = op.results[0]
        if isinstance(result.type, ir.IndexType):
            self.values[result] = np.full(self.threads, ir.IntegerAttr(attr).value, np.int64)
        elif isinstance(result.type, ir.IntegerType):
            width = ir.IntegerType(result.type).width
            bits = ir.IntegerAttr(attr).value & ((1 << width) - 1)
            if width == 1:
                self.values[result] = np.full(self.threads, bool(bits))
            else:
                self.values[result] = (np.full(self.threads, bits, np.uint64), width)
        elif str(attr).startswith("0x"):
            # A float constant written as bits (a NaN with its payload).
            width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[str(result.type)]
            self.values[result] = (np.full(self.threads, int(str(attr).split()[0], 16), np.uint64), width)
        else:
            number = ir.FloatAttr(attr).value
            kind = str(result.type)
            encoded = {"f16": lambda v: int(np.float16(v).view(np.uint16)),
                       "f32": lambda v: int(np.float32(v).view(np.uint32)),
                       "f64": lambda v: int(np.float64(v).view(np.uint64)),
                       "bf16": lambda v: int(np.float32(v).view(np.uint32)) >> 16}[kind](number)
            width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[kind]
            self.values[result] = (np.full(self.threads, encoded, np.uint64), width)

    def _float_op(self, op):
        """T.ewise's operations on register values (ewise_ops.py); an
        approximated function is noted for the warning."""
        name = op.name
        operands = [self.values[v] for v in op.operands]
        bits = [np.asarray(v[0] if isinstance(v, tuple) else v).astype(np.uint64) for v in operands]
        predicate = None
        if name == "arith.cmpf":
            text = str(op.attributes["predicate"])
            predicate = int(text.split(":")[0]) if ":" in text else int(text)
        result_type = str(op.results[0].type)
        result, approximated = F.evaluate(name, result_type, [str(v.type) for v in op.operands], bits, predicate)
        if name == "arith.cmpf":
            self.values[op.results[0]] = np.asarray(result, bool)
        else:
            self.values[op.results[0]] = (np.asarray(result).astype(np.uint64), F.width_of(result_type))
        if approximated:
            self.approximated.setdefault(name, self.points[self.point])

    def _binary(self, op, fn):
        a, b = self.values[op.operands[0]], self.values[op.operands[1]]
        self.values[op.results[0]] = self._integer(fn(self._signed(a), self._signed(b)), a, b)

    @staticmethod
    def _integer(result, *operands):
        """An index result as it is; one of register integers (bits,
        width), as T.ewise's arithmetic gives, wrapped to their width."""
        width = next((v[1] for v in operands if isinstance(v, tuple)), None)
        if width is None:
            return result
        return np.asarray(result).astype(np.int64).astype(np.uint64) & _mask_bits(width), width

    def op_arith_addi(self, op):
        self._binary(op, lambda a, b: a + b)

    def op_arith_subi(self, op):
        self._binary(op, lambda a, b: a - b)

    def op_arith_muli(self, op):
        self._binary(op, lambda a, b: a * b)

    def op_arith_andi(self, op):
        self._binary(op, lambda a, b: a & b)

    def op_arith_ori(self, op):
        self._binary(op, lambda a, b: a | b)

    def op_arith_xori(self, op):
        self._binary(op, lambda a, b: a ^ b)

    @staticmethod
    def _signed(value):
        """An index array as it is; an integer's bits as signed int64."""
        if isinstance(value, tuple):
            return F.signed(*value)
        return value

    def _cast_index(self, op, signed):
        # index -> iN truncates to N bits; iN -> index extends (signed or
        # not). T.serial's 32-bit counters and T.uint32(t) both pass here.
        from mlir import ir
        source, result = self.values[op.operands[0]], op.results[0]
        if isinstance(result.type, ir.IntegerType):
            width = ir.IntegerType(result.type).width
            self.values[result] = (self._signed(source).astype(np.uint64) & _mask_bits(width), width)
        elif signed or not isinstance(source, tuple):
            # (A register's bits loaded by memref.load are an array of its
            # width's values, unsigned: as_index's index_castui.)
            self.values[result] = np.asarray(self._signed(source)).astype(np.int64)
        else:
            self.values[result] = source[0].astype(np.int64)

    def op_arith_index_cast(self, op):
        self._cast_index(op, True)

    def op_arith_index_castui(self, op):
        self._cast_index(op, False)

    def _index_binary(self, op, fn):
        operands = [self.values[v] for v in op.operands]
        a, b = (self._signed(v) for v in operands)
        self.values[op.results[0]] = self._integer(fn(a, b), *operands)

    # Index division and shifts of the front end's index expressions (only
    # on index values, 64 bits): Python's // on int64 arrays is floor
    # division; the unsigned forms are used on values proven >= 0.
    def op_arith_floordivsi(self, op):
        self._index_binary(op, lambda a, b: a // b)

    def op_arith_divui(self, op):
        self._index_binary(op, lambda a, b: (a.astype(np.uint64) // b.astype(np.uint64)).astype(np.int64))

    def op_arith_remui(self, op):
        self._index_binary(op, lambda a, b: (a.astype(np.uint64) % b.astype(np.uint64)).astype(np.int64))

    def op_arith_maxsi(self, op):
        self._binary(op, np.maximum)

    def op_arith_minui(self, op):
        """An index clamped from above; Buffer.as_index(mode="check") marks
        the clamp of a value read from data, whose out-of-range values are
        reported at their line (the GPU reads the clamped element)."""
        a, b = (self._signed(self.values[v]) for v in op.operands)
        if "tile.checked_index" in op.attributes:
            bound = ir_int(op.attributes["tile.checked_index"])
            outside = self.active & ((a < 0) | (a >= bound))
            if outside.any():
                flat = int(np.flatnonzero(outside)[0])
                thread = ", ".join(str(int(ids[flat])) for ids in self.tid)
                block = ", ".join(str(int(ids[flat])) for ids in self.bid)
                trim = lambda text: text[:-6] if text.endswith(", 0, 0") else text  # noqa: E731
                raise MemoryFault(f"{self.points[self.point]}: thread ({trim(thread)}) of block ({trim(block)}) "
                                  f"reads the value {int(a[flat])} "
                                  f"as an index of an axis of {bound}: out of bounds (as_index checks it; a GPU "
                                  f"reads element {bound - 1})")
        self.values[op.results[0]] = np.minimum(a.astype(np.uint64), b.astype(np.uint64)).astype(np.int64)

    def op_arith_minsi(self, op):
        self._binary(op, np.minimum)

    def op_arith_select(self, op):
        """An index select (T.where of a Bool): per thread."""
        cond, a, b = (self.values[v] for v in op.operands)
        if isinstance(a, tuple):  # register bits of a float (or integer) ewise value: (bits, width)
            a_bits, b_bits = (np.asarray(x[0] if isinstance(x, tuple) else x) for x in (a, b))
            self.values[op.results[0]] = (np.where(np.asarray(cond, bool), a_bits, b_bits), a[1])
            return
        self.values[op.results[0]] = np.where(np.asarray(cond, bool), a, b)

    def op_arith_cmpi(self, op):
        predicate = str(op.attributes["predicate"])
        number = int(predicate.split(":")[0]) if ":" in predicate else int(predicate)
        compare = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
                   5: np.greater_equal}
        unsigned = {6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}
        if number in unsigned:
            a, b = (self._signed(self.values[v]).astype(np.uint64) for v in op.operands)
            self.values[op.results[0]] = unsigned[number](a, b)
            return
        if number not in compare:
            raise NotCovered(f"arith.cmpi predicate {number}")
        a, b = (self._signed(self.values[v]) for v in op.operands)
        self.values[op.results[0]] = compare[number](a, b)

    # -- memrefs ---------------------------------------------------------
    @staticmethod
    def _layout(memref_type):
        from mlir import ir
        memref_type = ir.MemRefType(memref_type)
        strides, offset = memref_type.get_strides_and_offset()
        bits = memref_type.element_type.width
        if any(s == ir.ShapedType.get_dynamic_stride_or_offset() for s in strides):
            raise NotCovered("dynamic strides")
        # A predicate (i1) takes a byte, as a register element.
        return list(memref_type.shape), [s * element_bytes(bits) for s in strides], bits

    def op_memref_alloca(self, op):
        shape, strides, bits = self._layout(op.results[0].type)
        size = int(np.prod(shape, dtype=np.int64)) * element_bytes(bits)
        # A group tile (tile.scope) is private storage too: each thread
        # addresses only its own group row of it.
        buffer = self.track(Buffer(np.zeros((self.threads, size), np.uint8), np.zeros((self.threads, size), bool),
                                   True))
        self.values[op.results[0]] = View(buffer, np.zeros(self.threads, np.int64), strides, shape, bits)

    def op_memref_subview(self, op):
        from mlir import ir
        source = self.values[op.operands[0]]
        result = ir.MemRefType(op.results[0].type)
        if any(s == ir.ShapedType.get_dynamic_stride_or_offset() for s in result.get_strides_and_offset()[0]):
            # A view of a runtime-sized tensor: the source's strides times
            # the steps, over the axes kept (a dropped axis has size 1, and
            # the stride of a kept axis of size 1 addresses nothing).
            steps = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
            sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
            kept = list(range(len(sizes)))
            for axis in range(len(sizes)):
                if len(kept) > result.rank and sizes[axis] == 1:
                    kept.remove(axis)
            shape, bits = list(result.shape), result.element_type.width
            strides = [source.strides[a] * steps[a] for a in kept]
        else:
            shape, strides, bits = self._layout(op.results[0].type)
        static = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        dynamic = iter(op.operands[1:])
        offset = source.offset.copy()
        for value, stride in zip(static, source.strides):
            if value == ir.ShapedType.get_dynamic_stride_or_offset():
                offset = offset + self.values[next(dynamic)] * stride
            else:
                offset = offset + value * stride
        self.values[op.results[0]] = View(source.buffer, offset, strides, shape, bits, source.swizzle)

    def op_gpu_dynamic_shared_memory(self, op):
        """The launch's dynamic shared memory: the bytes the kernel declares,
        one copy per block, uninitialized."""
        size = self.dynamic_shared_bytes
        blocks = self.threads // self.per_block
        if self.dynamic_shared is None:
            self.dynamic_shared = self.track(Buffer(np.zeros(blocks * size, np.uint8),
                                                    np.zeros(blocks * size, bool), False,
                                                    "the dynamic shared memory", shared=True, block_bytes=size))
        self.values[op.results[0]] = View(self.dynamic_shared, self.block_linear * size, [1], [size], 8)

    def op_memref_view(self, op):
        """A buffer carved from the dynamic shared memory at a byte offset."""
        source = self.values[op.operands[0]]
        shape, strides, bits = self._layout(op.results[0].type)
        shift = self._signed(self.values[op.operands[1]])
        self.values[op.results[0]] = View(source.buffer, source.offset + shift, strides, shape, bits)

    def _same_offset(self, op):
        source = self.values[op.operands[0]]
        shape, strides, bits = self._layout(op.results[0].type)
        self.values[op.results[0]] = View(source.buffer, source.offset, strides, shape, bits, source.swizzle)

    def block_of_rank(self, rank):
        """Per thread, the linear index of the block of cluster rank
        `rank` (x fastest) in the thread's cluster."""
        cx, cy, _ = self.cluster
        position = (rank % cx, rank // cx % cy, rank // (cx * cy))
        bid = [b // c * c + p for b, c, p in zip(self.bid, self.cluster, position)]
        return bid[0] + self.grid[0] * (bid[1] + self.grid[1] * bid[2])

    def op_tile_mapa(self, op):
        """tile.mapa (mapa.shared::cluster): the same offsets in the shared
        memory of the block of rank `rank` of each thread's cluster."""
        source = self.values[op.operands[0]]
        rank = self._signed(self.values[op.operands[1]]).astype(np.int64)
        blocks = int(np.prod(self.cluster))
        bad = np.flatnonzero(self.active & ((rank < 0) | (rank >= blocks)))
        if bad.size:
            thread = int(bad[0])
            raise MemoryFault(f"{self.points[self.point]}: mapa.shared::cluster: thread {thread} maps rank "
                              f"{int(rank[thread])}, but its cluster has {blocks} block"
                              f"{'s' if blocks > 1 else ''} (ranks 0 to {blocks - 1}); PTX leaves the "
                              "address undefined")
        rank = np.where(self.active, rank, self.cluster_rank)
        shift = (self.block_of_rank(rank) - self.block_linear) * source.buffer.block_bytes
        self.values[op.results[0]] = View(source.buffer, source.offset + shift, source.strides, source.shape,
                                          source.bits, source.swizzle)

    def op_tile_tensor_map(self, op):
        """A tensor map: the tensor it describes, its box and swizzle."""
        from mlir import ir
        self.values[op.results[0]] = T.TensorMap(self.values[op.operands[1]],
                                                 ir.DenseI64ArrayAttr(op.attributes["box"]),
                                                 ir.IntegerAttr(op.attributes["swizzle"]).value,
                                                 str(ir.MemRefType(op.operands[1].type).element_type))

    def op_tile_swizzle(self, op):
        """The buffer through an XOR swizzle; its views keep it."""
        from mlir import ir
        source = self.values[op.operands[0]]
        bits, base, shift = (ir.IntegerAttr(op.attributes[name]).value for name in ("bits", "base", "shift"))
        self.values[op.results[0]] = View(source.buffer, source.offset, source.strides, source.shape, source.bits,
                                          (source.offset, bits, base, shift))

    # A generic view (Buffer.generic) addresses the same bytes.
    op_memref_memory_space_cast = _same_offset
    op_memref_expand_shape = _same_offset
    op_memref_collapse_shape = _same_offset
    op_tile_view = _same_offset
    op_tile_broadcast = _same_offset

    # -- control flow ----------------------------------------------------
    def op_scf_for(self, op):
        # Index or 32-bit bounds (unsignedCmp: T.serial proves them in [0,
        # 2^31)), all as int64 arrays.
        lower, upper, step = (self._signed(self.values[v]) for v in op.operands[:3])
        if len(op.operands) > 3:
            raise NotCovered("scf.for with iteration arguments")
        body = op.regions[0].blocks[0]
        outer = self.active
        iv = lower.copy()
        # unsignedCmp: the counter and the stop compare unsigned, so a last
        # step past 2^63 - 1 ends the loop instead of wrapping below stop.
        unsigned = "unsignedCmp" in op.attributes
        while True:
            below = iv.astype(np.uint64) < upper.astype(np.uint64) if unsigned else iv < upper
            self.active = outer & below
            if not self.active.any():
                break
            self.values[body.arguments[0]] = iv.copy()
            self.run_block(body)
            iv = iv + step
        self.active = outer

    # A loop that spins this many times is taken for one that never ends.
    MAX_SPINS = 100000

    def op_scf_while(self, op):
        """T.until's loop: every thread still in it runs the body (the
        before region), which ends in scf.condition: the threads whose
        condition is true run the (empty) after region and go round again.
        A round in which no thread leaves and no mbarrier object changes
        repeats forever (the threads run in lockstep here, so arrivals
        written after the loop never come): a LoopFault, as is a loop past
        MAX_SPINS rounds."""
        if op.operands:
            raise NotCovered("scf.while with loop-carried values")
        where = self.points[self.point]
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        outer = self.active
        looping = outer.copy()
        self.spinning += 1
        for _ in range(self.MAX_SPINS):
            state = self.mbarriers.signature()
            self.active = looping
            self.run_block(before)
            again = looping & self.condition
            if not again.any():
                break
            self.active = again
            self.run_block(after)
            if (again == looping).all() and self.mbarriers.signature() == state:
                thread = int(np.flatnonzero(again)[0])
                stuck = self.mbarriers.waiting_on_bytes()
                if self.streams is None:
                    raise Stalled(f"{where}: this loop never ends: thread {thread} (and every thread still "
                                  "in it) went round without leaving while no mbarrier it may wait on "
                                  "changed; the interpreter runs the threads in lockstep, so what they "
                                  "wait for must happen before the loop in the kernel"
                                  + (f" ({stuck})" if stuck else ""))
                name = self.streams.name
                self.streams.wait(lambda: f"{where}: this loop never ends: thread {thread} (and every thread "
                                          f"of its {name} still in it) went round without leaving while no "
                                          f"mbarrier it may wait on changed, and no other {name} can go on"
                                          + (f" ({stuck})" if stuck else ""))
            looping = again
        else:
            raise LoopFault(f"{where}: this loop went round {self.MAX_SPINS} times without ending")
        self.spinning -= 1
        self.active = outer

    def op_scf_condition(self, op):
        self.condition = self.values[op.operands[0]].astype(bool)

    def op_memref_load(self, op):
        """A load of a register tile's element (T.until reads its predicate)."""
        view = self.values[op.operands[0]]
        if not view.buffer.private:
            raise NotCovered("memref.load of memory")
        coord = [self.values[v] for v in op.operands[1:]]
        bits, defined, _ = self.read(view, coord)
        if not defined[self.active].all():
            thread = int(np.flatnonzero(self.active & ~defined)[0])
            if view.bits != 1:  # T.ewise's operand: its values are not followed as undefined
                raise NotCovered(f"an element of a register no instruction wrote (thread {thread}) as an operand "
                                 "of T.ewise")
            raise LoopFault(f"{self.points[self.point]}: thread {thread} reads the loop's predicate before "
                                  "its body wrote it: whether the loop ends is undefined")
        # A register's element: a predicate, or (bits, width) as constants and
        # T.ewise's arithmetic take it.
        self.values[op.results[0]] = bits.astype(bool) if view.bits == 1 else (bits, view.bits)

    def op_memref_store(self, op):
        """A store of a scalar into a register tile (the coordinates a
        tuple gives cp.async.bulk.tensor)."""
        view = self.values[op.operands[1]]
        if not view.buffer.private:
            raise NotCovered("memref.store to memory")
        bits, _ = self.values[op.operands[0]]
        coord = [self.values[v] for v in op.operands[2:]]
        self.write(view, coord, np.asarray(bits, np.uint64), np.ones(self.threads, bool), self.active)

    def op_scf_if(self, op):
        condition = self.values[op.operands[0]]
        outer = self.active
        self.active = outer & condition
        self.run_block(op.regions[0].blocks[0])
        if len(op.regions) > 1 and op.regions[1].blocks:
            self.active = outer & ~condition
            self.run_block(op.regions[1].blocks[0])
        self.active = outer

    # -- instructions ----------------------------------------------------
    def op_tile_apply(self, op):
        from mlir import ir
        from .. import ptx
        opcode = ir.StringAttr(op.attributes["opcode"]).value
        self.current_opcode = opcode
        scope = ir.StringAttr(op.attributes["scope"]).value if "scope" in op.attributes else "thread"
        group = self.group_coordinates(scope)
        preserve = "preserve_dst" in op.attributes
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        args = list(op.operands[:segments[0]])
        pred = self.values[op.operands[segments[0]]] if segments[1] else np.ones(self.threads, bool)
        values = [self.values[a] for a in args]
        form = select_form(ptx.overloads(opcode), values)
        if form.family == "barrier.cluster":
            self.cluster_barrier(form, self.active.copy())
            return
        if form.block_barrier:
            self.barrier(form, self.barrier_operands(form, values), self.active.copy())
            if "red" in form.opcode.split("."):
                self.barrier_reduction(form, values, self.active.copy())
            return
        if form.family == "mbarrier" or opcode.startswith("cp.async.mbarrier"):
            run = M.pending_count if "pending_count" in opcode.split(".") else M.execute
            repeats = next((v.shape[len(group):-1] for v in values if isinstance(v, View)), [])
            for coord in itertools.product(*[range(n) for n in repeats]):
                run(self, form, values, group + list(coord), self.active & pred)
            return
        if form.family == "cp.async":
            self.async_copy(form, values, group, self.active & pred)
            return
        if form.family in ("cp.async.bulk", "prefetch.tensormap"):
            T.execute(self, form, values, self.active & pred)
            return
        if form.family == "wgmma":
            self.wgmma(form, values, group)
            return
        if form.family == "createpolicy":
            self.cache_policy(values, group, self.active & pred)
            return
        if form.orders_memory:
            # A fence orders its thread's accesses, which the interpreter
            # keeps in program order anyway; with strong accesses it
            # releases and acquires (memory_model.py).
            if self.sync is not None:
                self.sync.fence(np.flatnonzero(self.active & pred), MM.order_of(form))
            if opcode.startswith("fence.proxy.async"):
                self.unfenced.fence(self.lanes[self.active & pred], self.epoch, self.per_block)
            return
        if form.family == "mma":
            self.mma(form, values, group)
            return
        if form.family in ("ldmatrix", "stmatrix"):
            if "m8n8" not in form.opcode.split("."):
                raise NotCovered(f"{opcode}: the sm_100a .b8 shapes (checked by ptxas only)")
            repeats = next((v.shape[len(group):-1] for v in values if isinstance(v, View)), [])
            for coord in itertools.product(*[range(n) for n in repeats]):
                self.matrix_move(form, values, group + list(coord))
            return
        if form.family in ("shfl", "vote", "match", "redux", "elect", "activemask"):
            run = self.shuffle if form.family == "shfl" else self.collective
            repeats = next((v.shape[len(group):-1] for v in values if isinstance(v, View)), [])
            for coord in itertools.product(*[range(n) for n in repeats]):
                coord = group + list(coord)
                if isinstance(pred, View):  # activemask under a predicate tile
                    bits, known, _ = self.read(pred, coord + [0])
                    run(form, values, coord, self.active & (bits != 0) & known)
                else:
                    run(form, values, coord, self.active & pred)
            return
        repeats = next((v.shape[len(group):-1] for v in values if isinstance(v, View)), [])
        for coord in itertools.product(*[range(n) for n in repeats]):
            coord = group + list(coord)
            if isinstance(pred, View):
                # A predicate tile: one register per repeat. One never
                # written leaves what it guards undefined.
                bits, known, _ = self.read(pred, coord + [0])
                self.instruction(form, values, coord, self.active & (bits != 0), preserve, known)
            else:
                self.instruction(form, values, coord, self.active & pred, preserve)

    def cache_policy(self, values, group, execute):
        """createpolicy: the policy's 64 bits are the hardware's encoding,
        which no document gives, so they are undefined here; an access that
        takes the policy only hints the cache (instruction() skips it)."""
        policy = values[0]
        repeats = policy.shape[len(group):-1]
        for coord in itertools.product(*[range(n) for n in repeats]):
            self.write(policy, group + list(coord) + [0], np.zeros(self.threads, np.uint64),
                       np.zeros(self.threads, bool), execute)

    def group_coordinates(self, scope):
        """This thread's row of each group axis (docs/scopes.md): (lane) for
        a warp, (warp % 4, lane) for a warpgroup, (warp, lane) for a cta."""
        linear = self.tid[0] + self.tid[1] * self.block[0] + self.tid[2] * self.block[0] * self.block[1]
        lane, warp = linear % 32, linear // 32
        return {"thread": [], "warp": [lane], "warpgroup": [warp % 4, lane], "cta": [warp, lane]}[scope]

    def _may_be_a_move(self, form, values, coord):
        """R.folds_to_a_move for this instruction's sources: a constant 1.0
        of the form's type, or two sources that are one register."""
        sources = [value for operand, value in zip(form.operands, values)
                   if operand.role == "src" and operand.space == "reg"]
        ty = form.opcode.rsplit(".", 1)[-1]
        if len(sources) != 2 or ty not in R.FORMATS:
            return False
        one = any(isinstance(v, tuple) and R.decode(np.uint64(v[0][0]) & _mask_bits(R.bits_of(ty)), ty) == 1.0
                  for v in sources)
        a, b = sources
        same = (isinstance(a, View) and isinstance(b, View) and a.buffer is b.buffer
                and np.array_equal(a.addresses(coord + [0]), b.addresses(coord + [0])))
        return R.folds_to_a_move(form.opcode, one, same)

    def instruction(self, form, values, coord, execute, preserve, pred_defined=None):
        if form.family in ("atom", "red"):
            if pred_defined is not None:
                execute = execute | (self.active & ~pred_defined)
            return self.atomic(form, values, coord, execute)
        srcs, defined = [], np.ones(self.threads, bool)
        # Each source register's own definedness: a move's registers travel
        # apart, so one undefined register leaves the others defined.
        src_defined = []
        immediates = {}
        nan = np.zeros(self.threads, bool)
        memory = None
        # A move's source bytes' origins, in order (tracked runs only).
        moved = [] if self.origins is not None and form.family in ("ld", "st", "mov") else None
        for operand, value in zip(form.operands, values):
            if operand.space != "reg":
                memory = (operand, value)
                touching = execute if pred_defined is None else execute | (self.active & ~pred_defined)
                self.check_alignment(value, coord + [0], operand.count * element_bytes(value.bits), touching)
                self.bank_requests(value, coord + [0], operand.count * element_bytes(value.bits), touching)
                if operand.role == "src":  # ld: the registers come from memory
                    # Where the predicate is unknown, the load may happen.
                    touches = execute if pred_defined is None else execute | (self.active & ~pred_defined)
                    for reg in range(operand.count):
                        bits, d, n = self.read(value, coord + [reg], touches, MM.order_of(form))
                        srcs.append(bits)
                        src_defined.append(d)
                        defined &= d
                        nan |= n
                        if moved is not None:
                            moved.append(self.byte_origins(value, coord + [reg]))
                continue
            if operand.role == "imm":
                immediates[len(immediates)] = int(value[0][0])
                continue
            if operand.role != "src" or operand.name == "cache-policy":
                # A cache policy changes where a line may stay in L2, not
                # what the access moves.
                continue
            dtype = R.UINT[max(operand.bits, 8)]
            if isinstance(value, View):
                for reg in range(operand.count):
                    bits, d, n = self.read(value, coord + [reg])
                    srcs.append((bits & _mask_bits(operand.bits)).astype(dtype))
                    src_defined.append(d)
                    defined &= d
                    nan |= n
                    if moved is not None:
                        moved.append(self.byte_origins(value, coord + [reg]))
            elif isinstance(value, tuple):
                srcs.append((value[0] & _mask_bits(operand.bits)).astype(dtype))
                src_defined.append(np.ones(self.threads, bool))
                if moved is not None:
                    moved.append(np.full((element_bytes(operand.bits), self.threads), O.UNKNOWN, np.int64))
            else:
                raise NotCovered("an index as an instruction operand")
        if any(o.bits > 64 for o in form.operands):
            raise NotCovered("128-bit registers")
        moves = form.family in ("ld", "st", "mov")
        per_register = None
        if moves:
            # A move keeps a NaN's bits, whatever they are.
            results = repack([s.astype(np.uint64) for s in srcs], form)
            made_nan = [nan] * len(results)
            if len(results) == len(srcs):
                per_register = src_defined
        else:
            if R.APPROXIMATE & set(form.opcode.split(".")) and form.opcode not in R.MEASURED:
                self.approximated.setdefault(form.opcode, self.points[self.point])
            with np.errstate(all="ignore"):
                out = R.reference(SimpleNamespace(opcode=form.opcode, family=form.family,
                                                  operands=form.operands, immediates=immediates), srcs)
            if isinstance(out, R.Partial):  # unspecified where the ISA says so
                defined = defined & out.defined.reshape(defined.shape)
                out = out.values
            results = [np.asarray(out).astype(np.uint64)]
            # Bits computed from a NaN of unknown payload are unknown.
            defined = defined & ~nan
            made_nan = [is_nan(results[0], result_type(form))]
            if self._may_be_a_move(form, values, coord):
                # ptxas may move the source instead: a NaN's bits are either.
                defined = defined & ~made_nan[0]
        if per_register is None:
            per_register = [defined] * len(results)
        if pred_defined is not None:
            # Where the predicate register is undefined, the instruction may
            # or may not have run: what it would write is undefined.
            per_register = [d & pred_defined for d in per_register]
            execute = execute | (self.active & ~pred_defined)
        if form.family == "st":
            operand, view = memory
            origins = _split_origins(moved, [element_bytes(view.bits)] * len(results))
            for reg, bits in enumerate(results):
                self.write(view, coord + [reg], bits, per_register[reg], execute, made_nan[reg], origins[reg],
                           order=MM.order_of(form))
            return
        dsts = [(operand, value) for operand, value in zip(form.operands, values)
                if operand.role == "dst" and operand.space == "reg"]
        flat = [(operand, value, reg) for operand, value in dsts for reg in range(operand.count)]
        if len(flat) != len(results):
            raise NotCovered(f"{form.opcode}: {len(results)} results for {len(flat)} registers")
        origins = _split_origins(moved, [element_bytes(view.bits) for _, view, _ in flat])
        for (operand, view, reg), bits, made, origin, defined in zip(flat, results, made_nan, origins, per_register):
            where = self.active.copy()
            if preserve:
                where &= execute  # a false predicate keeps the old value
                self.write(view, coord + [reg], bits & _mask_bits(operand.bits), defined, where, made, origin)
            else:
                # A false predicate leaves the destination undefined.
                self.write(view, coord + [reg], bits & _mask_bits(operand.bits), defined & execute, where, made,
                           origin)


def _split_origins(moved, sizes):
    """A move's source byte origins (a list of (bytes, threads)) dealt to
    destination elements of `sizes` bytes, in order; where the byte counts
    differ (a widening load) or nothing is tracked, unknown (None)."""
    if moved is None or sum(m.shape[0] for m in moved) != sum(sizes):
        return [None] * len(sizes)
    joined = np.concatenate(moved)
    bounds = np.cumsum([0] + sizes)
    return [joined[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def repack(registers, form):
    """A mov's source registers as its destination registers: mov.b32 d,
    {a, b} joins a (the low bits) and b; mov.b32 {a, b}, d splits d."""
    dst = next((o for o in form.operands if o.role == "dst" and o.space == "reg"), None)
    if form.family != "mov" or dst is None or dst.count == len(registers):
        return registers
    src = next(o for o in form.operands if o.role == "src")
    if dst.count == 1:
        return [sum((r & np.uint64(_mask_bits(src.bits))) << np.uint64(k * src.bits)
                    for k, r in enumerate(registers))]
    return [(registers[0] >> np.uint64(k * dst.bits)) & np.uint64(_mask_bits(dst.bits))
            for k in range(dst.count)]


_NAN_FORMATS = {"f16": (16, 5, 10), "bf16": (16, 8, 7), "f32": (32, 8, 23), "f64": (64, 11, 52),
                "tf32": (32, 8, 23), "e5m2": (8, 5, 2)}


def is_nan(bits, ptx_type):
    """Whether any float lane of registers of `ptx_type` is a NaN (e4m3's
    only NaNs are 0x7f and 0xff)."""
    lane_type, lanes = ptx_type, 1
    if ptx_type in R.LANES:
        lane_type, _, lanes = R.LANES[ptx_type]
    bits = bits.astype(np.uint64)
    result = np.zeros(bits.shape, bool)
    if lane_type == "e4m3":
        for k in range(lanes):
            result |= (bits >> np.uint64(8 * k)) & np.uint64(0x7F) == np.uint64(0x7F)
        return result
    if lane_type not in _NAN_FORMATS:
        return result
    width, exp_bits, man_bits = _NAN_FORMATS[lane_type]
    for k in range(lanes):
        lane = bits >> np.uint64(width * k)
        exponent = (lane >> np.uint64(man_bits)) & np.uint64((1 << exp_bits) - 1)
        mantissa = lane & np.uint64((1 << man_bits) - 1)
        result |= (exponent == np.uint64((1 << exp_bits) - 1)) & (mantissa != 0)
    return result


def result_type(form):
    """The numeric type of a form's result: a cvt's is its destination type
    token (tf32 sits in a b32 register), any other's its dst operand's."""
    if form.family == "cvt":
        tokens = [t for t in form.opcode.split(".")[1:]
                  if t in R.FORMATS or t in R.LANES or t in R.INT_TYPES or t == "tf32"]
        if tokens:
            return tokens[0]
    return next(o.type for o in form.operands if o.role == "dst")


def select_form(forms, values):
    """The overload whose register counts and widths the operands match (the
    spec's rule: the final axis counts one instruction's registers)."""
    for form in forms:
        if len(form.operands) != len(values):
            continue
        fits = True
        for operand, value in zip(form.operands, values):
            if operand.role == "imm":
                # The front end passes immediates as i64 constants.
                fits &= isinstance(value, tuple)
            elif isinstance(value, View) and operand.sized_by:
                pass  # cp.async's bytes, in elements of any width
            elif isinstance(value, View):
                fits &= value.shape[-1] == operand.count and value.bits == operand.bits
            elif isinstance(value, tuple):
                fits &= operand.count == 1 and value[1] == operand.bits
            elif isinstance(value, np.ndarray) and value.dtype == bool:
                fits &= operand.type == "pred"  # a runtime condition (wgmma's scale-d)
            else:
                fits = False
        if fits:
            return form
    return forms[0]


def _has_apply(op, prefixes):
    """Whether `op` holds a tile.apply of a form whose opcode starts with
    one of `prefixes`."""
    return _has_apply_where(op, lambda opcode: opcode.startswith(prefixes))


def _has_apply_where(op, predicate):
    """Whether `op` holds a tile.apply whose opcode satisfies `predicate`."""
    from mlir import ir
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name == "tile.apply" and predicate(ir.StringAttr(inner.attributes["opcode"]).value):
                    return True
                if _has_apply_where(inner, predicate):
                    return True
    return False


def _synchronizes_through_memory(op):
    """Whether `op` holds an instruction that may order other threads'
    accesses through memory: a fence, an acquire, a release or a strong
    load or store (memory_model.py)."""
    from .. import ptx
    return _has_apply_where(op, lambda opcode: any(MM.synchronizes(form) for form in ptx.overloads(opcode)))


def _has_mma(op):
    """Whether `op` holds a tile.apply of an mma form."""
    return _has_apply(op, ("mma",))


# Past this many clock entries (threads x threads of a block), a kernel with
# mbarriers runs without their ordering: the race check then reports what
# only they order.
MAX_CLOCK_ENTRIES = 1 << 24
# The most threads whose clocks span the whole launch (a kernel that may
# synchronize blocks through memory): threads x threads entries.
MAX_CLOCK_THREADS = 1 << 12


def run(func, inputs, grid, block, aliases=None, hazards=None, approximated=None, shapes=None, banks=None,
        fragment_layouts=False, accumulation="sm_90"):
    """Runs the gpu.func `func` on `inputs` ({param name: bytes}, in
    parameter order; a scalar parameter's bytes are its value's) and returns
    {name: (bytes, defined)} of the tensors. `aliases` maps a parameter to
    an earlier one passed the same array: they share a buffer. A list given
    as `hazards` receives the races found (Hazard); a dict as `approximated`
    the approximate forms that ran as their correctly rounded result, each
    with its program point. `shapes` gives the extents of the tensors with
    runtime extents (row major). A dict as `banks` receives the shared-
    memory requests of each (program point, opcode): requests, wavefronts
    and the ideal wavefronts (Interpreter.bank_requests). With
    `fragment_layouts`, a kernel with mma has its fragments checked against
    the PTX ISA's layout (fragment_origins): FragmentLayoutFault if not.
    `accumulation` names the floating mma model (accumulation.MODELS).

    The threads run in lockstep; a kernel whose threads wait for what
    others do only later (a producer that refills a stage the consumers
    free, a named barrier between warpgroups, a block spinning on another
    block's flag) runs again as streams that take turns (streams.py)."""
    through_memory = _synchronizes_through_memory(func)
    try:
        return _run(func, inputs, grid, block, aliases, hazards, approximated, shapes, banks, fragment_layouts,
                    through_memory, as_streams=False, accumulation=accumulation)
    except Stalled:
        # Blocks run apart where they may wait for each other's stores, or
        # where a block is one stream.
        within = S.streams_per_block(int(np.prod(block))) > 1
        apart = np.prod(grid) > 1 and (through_memory or not within)
        if not (within or apart):
            raise
    return _run(func, inputs, grid, block, aliases, hazards, approximated, shapes, banks, fragment_layouts,
                through_memory, as_streams=True, blocks_apart=apart, accumulation=accumulation)


def _workgroup_alignments(func):
    """{index: bytes} of the static shared buffers declared with an
    llvm.align (T.alloc_shared's align), which NVVM gives their arrays."""
    from mlir import ir
    if "workgroup_attrib_attrs" not in func.attributes:
        return {}
    found = {}
    for index, attrs in enumerate(ir.ArrayAttr(func.attributes["workgroup_attrib_attrs"])):
        attrs = ir.DictAttr(attrs)
        if "llvm.align" in attrs:
            found[index] = ir.IntegerAttr(attrs["llvm.align"]).value
    return found


def _run(func, inputs, grid, block, aliases, hazards, approximated, shapes, banks, fragment_layouts,
         through_memory, as_streams, blocks_apart=False, accumulation="sm_90"):
    """run(), in lockstep or (`as_streams`) as streams, each block's apart
    with `blocks_apart`; `through_memory`: the kernel may synchronize
    threads through memory (memory_model.py)."""
    from mlir import ir
    threads = int(np.prod(grid)) * int(np.prod(block))
    interp = Interpreter(threads, grid, block, accumulation)
    if fragment_layouts and _has_mma(func):
        interp.origins = O.Origins()
    has_mbarriers = _has_apply(func, ("mbarrier", "cp.async.mbarrier"))
    clustered = "nvvm.cluster_dim" in func.attributes and \
        int(np.prod(list(ir.DenseI32ArrayAttr(func.attributes["nvvm.cluster_dim"])))) > 1
    if (through_memory or clustered and has_mbarriers) and threads <= MAX_CLOCK_THREADS:
        # Clocks over every thread: a release may reach another block
        # (through memory, or an arrival on another block's mbarrier of
        # the cluster: .release.cluster, then its .acquire.cluster wait).
        interp.clocks = C.Clocks(threads, interp.per_block, span=threads)
    elif (as_streams or through_memory or has_mbarriers) and \
            threads * interp.per_block <= MAX_CLOCK_ENTRIES:
        interp.clocks = C.Clocks(threads, interp.per_block)
    if through_memory and interp.clocks is not None:
        interp.sync = MM.Synchronization(interp)
    if banks is not None:
        interp.bank_stats = {}
    if "nvvm.cluster_dim" in func.attributes:
        interp.set_cluster(list(ir.DenseI32ArrayAttr(func.attributes["nvvm.cluster_dim"])))
    if "tile.dynamic_shared_bytes" in func.attributes:
        interp.dynamic_shared_bytes = ir.IntegerAttr(func.attributes["tile.dynamic_shared_bytes"]).value
    body = func.regions[0].blocks[0]
    buffers = {}
    aliases = aliases or {}
    # Tensor maps (!llvm.ptr) take no input: tile.tensor_map names the
    # tensor each describes.
    parameters = list(body.arguments)[:len(ir.FunctionType(
        ir.TypeAttr(func.attributes["function_type"]).value).inputs)]
    tensor_args = [a for a in parameters if not str(a.type).startswith("!llvm.ptr")]
    for argument, (name, data) in zip(tensor_args, inputs.items()):
        if not isinstance(argument.type, ir.MemRefType):
            # A scalar parameter: its bits, as the integers and floats of
            # the instructions travel.
            width = len(data) * 8
            interp.values[argument] = (np.full(threads, int.from_bytes(data, "little"), np.uint64), width)
            continue
        if name in aliases:
            buffer = buffers[name] = buffers[aliases[name]]
        else:
            data = np.frombuffer(data, np.uint8).copy()
            buffer = buffers[name] = Buffer(data, np.ones(data.size, bool), False, name)
        memref_type = ir.MemRefType(argument.type)
        if memref_type.has_static_shape:
            shape, strides, bits = Interpreter._layout(argument.type)
        else:
            # A runtime-sized tensor: row major over the launch's extents.
            shape, bits = list(shapes[name]), memref_type.element_type.width
            strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) * element_bytes(bits)
                       for i in range(len(shape))]
        if interp.origins is not None and buffer.origin is None:
            interp.track(buffer, interp.origins.tensor(name, shape, strides, bits, buffer.data.size))
        interp.values[argument] = View(buffer, np.zeros(threads, np.int64), strides, shape, bits)
    # Workgroup attributions follow the parameters: shared memory, one copy
    # per block, uninitialized.
    alignments = _workgroup_alignments(func)
    for index, argument in enumerate(list(body.arguments)[len(parameters):]):
        shape, strides, bits = Interpreter._layout(argument.type)
        size = int(np.prod(shape, dtype=np.int64)) * element_bytes(bits)
        blocks = int(np.prod(grid))
        match = re.search(r'"([^"]*)":(\d+)', str(argument.location))
        name = f"the shared buffer of {match.group(1)}:{match.group(2)}" if match else "a shared buffer"
        buffer = interp.track(Buffer(np.zeros(blocks * size, np.uint8), np.zeros(blocks * size, bool), False, name,
                                     shared=True, block_bytes=size, align=alignments.get(index)))
        interp.values[argument] = View(buffer, interp.block_linear * size, strides, shape, bits)
    try:
        if as_streams:
            interp.streams = S.Streams(interp, *S.groups_of(interp.per_block, threads, blocks_apart))
            interp.named_barriers = S.NamedBarriers(interp)
            interp.streams.run(body, func.context)
            if interp.cluster != (1, 1, 1):
                interp.check_shared_memory_outlives_access()
        else:
            interp.run_block(body)
    except (LoopFault, S.Stuck) as fault:
        # A hang often follows the race that caused it (a read before its
        # wait, a wait on the wrong phase): the faults carry what was found.
        fault.hazards_before = list(interp.hazards)
        raise
    if interp.origins is not None:
        O.check_stores(interp.origins)
    if hazards is not None:
        hazards.extend(interp.hazards)
    if approximated is not None:
        approximated.update(interp.approximated)
    if banks is not None:
        banks.update({key: dict(zip(("requests", "wavefronts", "ideal"), value))
                      for key, value in interp.bank_stats.items()})
    return {name: (b.data, b.defined) for name, b in buffers.items()}
