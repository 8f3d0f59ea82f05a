"""A reference interpreter for tile kernels, written from the spec and the
PTX ISA rather than from the lowering.

It reads the kernel as the front end builds it (tile.apply over memrefs,
before --tile-expand) and executes it for every thread of the launch at
once, in numpy: each index is an array with one value per thread, each
register tile a byte array per thread, each global tensor one byte array.
Instructions run in program order for all threads; generated kernels make
no thread read what another writes, so lockstep is the PTX semantics.

This module is the machine: the launch's geometry, its memory (memory.py)
and the walk over the MLIR blocks. Each op goes to its handler by name
(HANDLERS: arith_ops, view_ops, control_flow, special_registers), each
tile.apply to its form's executor (executors.py); every memory access is
declared to the race check (races.py).

Arithmetic comes from reference.py (beside this file), the one place its
semantics live. Every byte carries a defined bit: a register read before it
is written, a destination whose predicate is false without preserve_dst,
and bytes two threads store in one instruction are undefined, and so is
every result computed from them. Only defined output bytes are compared.

    from interp import run
    outputs, defined = run(gpu_func_op, {"A": a_bytes, ...}, grid, block)
"""

from __future__ import annotations

import re

import numpy as np

from . import arith_ops as AR
from . import carry as C
from . import cells as CE
from . import context as CX
from . import control_flow as CF
from . import cp_async as CP
from . import ewise_ops as F
from . import effects as E
from . import executors as EX
from . import fragment_origins as O
from . import mbarrier as M
from . import memory_model as MM
from . import proxy as P
from . import races as RC
from . import reference as R
from . import special_registers as SR
from . import setup as SU
from . import streams as S
from . import tensor_memory as TM
from . import view_ops as VO
from . import wgmma as W
from .hazards import LoopFault, Stalled
from .memory import (all_set, any_set, as_bytes, as_words, element_bytes, read_registers, read_words, undefine_words,
                     uniform_span, word_indices, write_registers, write_words)


# The kernel uses something the interpreter does not model: one class for
# the machine and the arithmetic (a form reference.py does not describe).
NotCovered = R.NotCovered
MemoryFault = R.MemoryFault


# Every MLIR op the interpreter runs, by name (T.ewise's float operations:
# ewise_ops.handles).
def _matrix_descriptor(interp, op):
    """tile.matrix_descriptor: a wgmma operand's shared-memory descriptor,
    or sm_100's (tcgen05's): the same fields and layout bits, and the
    version 1 in bits 46-47 (docs/families/tcgen05.md)."""
    from mlir import ir
    value, width = W.descriptor(interp, interp.values[op.operands[0]])
    if "format" in op.attributes and ir.StringAttr(op.attributes["format"]).value == "tcgen05":
        value = value | np.uint64(1 << 46)
    interp.values[op.results[0]] = (value, width)


HANDLERS = {**AR.HANDLERS, **CF.HANDLERS, **SR.HANDLERS, **VO.HANDLERS, "tile.apply": EX.execute,
            "tile.matrix_descriptor": _matrix_descriptor}


class Interpreter:
    # The running stream's own state (context.py): SSA values, the threads
    # running, the last scf.condition, the program point, how many T.until
    # loops the threads are in (a wait in one goes round until its phase
    # completes, so its outcome does not depend on how the threads happen
    # to run) and the opcode.
    values, active, condition = CX.delegated("values"), CX.active_threads(), CX.delegated("condition")
    point, spinning, current_opcode = CX.delegated("point"), CX.delegated("spinning"), CX.delegated("current_opcode")

    def __init__(self, threads, grid, block, accumulation="sm_90"):
        self.threads = threads
        # The floating mma model (accumulation.MODELS): sm_90's measured
        # accumulation, or the exact-or-undefined one.
        self.accumulation = accumulation
        self.grid, self.block = grid, block
        linear = np.arange(threads)
        per_block = block[0] * block[1] * block[2]
        self.block_linear, thread_linear = linear // per_block, linear % per_block
        self.thread_linear, self._group_rows = thread_linear, None
        self.tid = (thread_linear % block[0], thread_linear // block[0] % block[1],
                    thread_linear // (block[0] * block[1]))
        self.bid = (self.block_linear % grid[0], self.block_linear // grid[0] % grid[1],
                    self.block_linear // (grid[0] * grid[1]))
        self.context = CX.ExecutionContext(np.ones(threads, bool))
        self.exited = np.zeros(threads, bool)  # the threads that executed exit
        self.lanes = np.arange(threads)
        # Each thread's lane in its warp, and its warp's lane 0 (a block's
        # warps are its threads 32 at a time; the last may be partial).
        self.warp_lane = thread_linear % 32
        self.warp_first = self.lanes - self.warp_lane
        # Program points by number (a buffer's written_at/read_at index them)
        # and the hazards found, one per pair of points and kind.
        self.points = ["<unknown>"]
        # The hazards found, each reported once by its key (kind and
        # program points): first_report.
        self.hazards, self._hazard_keys = [], set()
        # Blackwell's tensor memory, made by its first tcgen05 instruction
        # (tensor_memory.py).
        self.tensor_memory = None
        self._scratch = np.empty(0, np.int32)
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
        self.bulk_copies, self.bulk_points = {}, {}
        # TMA stores whose source is still read: (thread, bulk group,
        # buffer, byte addresses), and each thread's open bulk group.
        self.bulk_stores, self.bulk_open_group = [], np.zeros(threads, np.int64)
        # Shared bytes written through the generic proxy and not fenced
        # for the async proxy yet (proxy.py).
        self.unfenced = P.UnfencedWrites()
        self.mbarriers = M.Mbarriers()
        self.carry = C.CarryFlag(threads)  # CC.CF of each thread (carry.py)
        # Happens-before through mbarrier phases (clocks.py), in a kernel
        # that has mbarrier operations; None otherwise.
        self.clocks = None
        # Thread block clusters (nvvm.cluster_dim): each thread's cluster
        # and its block's rank in it, and each thread's barrier.cluster
        # arrivals and completed waits (set_cluster).
        self.cluster = (1, 1, 1)
        self.set_cluster(self.cluster)
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

    def block_of(self, threads):
        """Each of `threads`' block, negative for a negative (NOBODY,
        MANY): a shift for a block of 2^n threads, else a gather (numpy's
        int64 floor division is ten times slower than either)."""
        size = int(self.per_block)
        if size & (size - 1) == 0:
            return threads >> (size.bit_length() - 1)
        block = self.block_linear[np.maximum(threads, 0)]
        return np.where(threads >= 0, block, -1) if (threads < 0).any() else block

    def scratch(self, size):
        """A work array of at least `size` int32s, its contents whatever
        the last user left (kept: a fresh one's pages cost more to touch
        than the work done in them)."""
        if self._scratch.size < size:
            self._scratch = np.empty(max(size, 2 * self._scratch.size), np.int32)
        return self._scratch

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
        if buffer.private:
            span = uniform_span(buffer, address, nbytes)
            if span is not None:  # every thread's same bytes: a column block, no gather
                return buffer.origin[:, span].T.copy()
            return buffer.origin[self.lanes[None, :], address[None, :] + np.arange(nbytes)[:, None]]
        at = address[None, :] + np.arange(nbytes)[:, None]
        inside = (at >= 0) & (at < buffer.data.size)
        return np.where(inside, buffer.origin[np.where(inside, at, 0)], O.UNKNOWN)

    # -- hazards ---------------------------------------------------------
    def enter(self, op):
        """Makes `op` the current program point (its file:line)."""
        text = str(op.location)
        match = re.search(r'"([^"]*)":(\d+)', text)
        where = f"{match.group(1)}:{match.group(2)}" if match else text
        if self.points[self.point] != where:
            self.points.append(where)
            self.point = len(self.points) - 1

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

    def deliver_copies(self, threads, up_to=None, below=None, tracked=True):
        CP.deliver_copies(self, threads, up_to, below, tracked)

    def deliver_bulk(self, sequence):
        CP.deliver_bulk(self, sequence)

    # The race check's entry points (races.py) for the executor modules.
    def declare(self, *effects):
        """The instruction's memory effects (effects.py), checked in order."""
        for effect in effects:
            RC.apply(self, effect)

    def forget(self, buffer, at):
        RC.forget(buffer, at)

    def copy_in_flight(self, buffer, at, point):
        RC.copy_in_flight(buffer, at, point)

    def copy_landed(self, buffer, at):
        RC.copy_landed(buffer, at)

    def last_writes(self, buffer, at):
        return RC.last_writes(buffer, at)

    def scope_needed(self, lanes, others, other_blocks=None):
        return RC.scope_needed(self, lanes, others, other_blocks)

    def check_alignment(self, view, coord, nbytes, executing):
        """An access of `nbytes` (a vector, an ldmatrix row, a copy) must
        start at a multiple of its size, or the chip faults (misaligned
        address); buffers start aligned to 16 bytes or more. Through a
        swizzle, the address checked is the one the chip sees."""
        if view.buffer.private or nbytes <= 1 or not executing.any():
            return
        start = view.addresses(coord)[executing]
        block_bytes = view.buffer.block_bytes
        if block_bytes % nbytes:
            start = start % block_bytes  # from the start of the block's copy (else the residue is the same)
        align = view.buffer.align
        if align is not None and align < nbytes:
            # ptxas may place the buffer at any multiple of its alignment
            # (seen: a static align=4 buffer at 0x404 under an STS.128).
            raise self.fault(executing, f"accesses {nbytes} bytes of {view.buffer.name}, which is declared "
                                        f"align={align}: the chip may place it at an address that is not a "
                                        f"multiple of {nbytes} (misaligned address); declare align={nbytes} or more")
        # A mask for the power-of-two sizes (numpy's int64 modulo is slow).
        bad = (start & (nbytes - 1) if nbytes & (nbytes - 1) == 0 else start % nbytes) != 0
        if bad.any():
            where = np.zeros(self.threads, bool)
            where[np.flatnonzero(executing)[bad]] = True
            byte = int(start[bad][0]) % block_bytes if block_bytes else int(start[bad][0])  # in the block's copy
            raise self.fault(where, f"accesses {nbytes} bytes at byte {byte} of "
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

    def read_row(self, view, coord, count, where):
        """(bits, defined, nan) of elements `coord` + [0 .. count) for every
        thread, which the threads `where` read as one access (an ldmatrix
        row): the race check sees the row's bytes once, where they are
        contiguous."""
        nbytes = element_bytes(view.bits)
        starts = [view.addresses(coord + [e])[where] for e in range(count)]
        contiguous = all(np.array_equal(start, starts[0] + e * nbytes) for e, start in enumerate(starts))
        if not contiguous or view.buffer.private or self.sync is not None:
            return [self.read(view, coord + [e], where) for e in range(count)]
        elements = [self.read(view, coord + [e], where, tracked=False) for e in range(count)]
        self.declare(E.element_read(view.buffer, starts[0], count * nbytes, self.lanes[where]))
        return elements

    def read(self, view, coord, where=None, order=MM.WEAK_ORDER, tracked=True):
        """(bits, defined, nan) of one element for every thread; `where`
        marks the threads that really access memory (for the hazard
        check, unless not `tracked`: read_row), with the semantics `order`
        (memory_model.py)."""
        nbytes = element_bytes(view.bits)
        address = view.addresses(coord)
        buffer = view.buffer
        if buffer.private:
            if buffer.in_flight is not None:
                W.check_registers(self, buffer, address, writing=False)
            if buffer.tmem_pending is not None:
                TM.check_registers(self, buffer, address, writing=False)
            span = uniform_span(buffer, address, nbytes)
            if span is not None:
                return read_registers(buffer, slice(None), span)
            return read_registers(buffer, self.lanes[:, None], address[:, None] + np.arange(nbytes))
        inside = (address >= 0) & (address + nbytes <= buffer.data.size)
        if where is not None:
            # A thread that does not access memory (inactive, or past a
            # tensor's runtime extent in a loop it left) reads nothing.
            outside = where & ~inside
            if outside.any():
                first = int(address[outside][0])
                raise self.fault(outside, f"reads byte {first if first < 0 else max(first, buffer.data.size)} of "
                                          f"{buffer.name or 'a tensor'}, which has {buffer.data.size}")
            if tracked:
                self.declare(E.element_read(buffer, address[where], nbytes, self.lanes[where], order.strength))
            if tracked and self.sync is not None:
                self.sync.after_read(buffer, *CE.byte_run(address[where], nbytes, self.lanes[where]), order)
        words = word_indices(buffer, address, nbytes) if inside.all() else None
        if words is not None:
            return read_words(buffer, words, nbytes)
        # An element's bytes, thread by thread (each thread's in order).
        at = address[:, None] + np.arange(nbytes)
        inside = (at >= 0) & (at < buffer.data.size)
        safe = np.where(inside, at, 0)
        nan = any_set(buffer.nan[safe]) if buffer.has_nan() else np.zeros(address.size, bool)
        return as_words(buffer.data[safe]), all_set(buffer.defined[safe] & inside), nan

    def write(self, view, coord, value, defined, where, nan=None, origin=None, tracked=True, order=MM.WEAK_ORDER):
        """Writes one element for the threads `where`, with the semantics
        `order` (memory_model.py); `origin` (bytes, threads) is where its
        bytes came from (unknown: computed). Without `tracked`, the write
        is ordered before every later access (the race check does not see
        it)."""
        nbytes = element_bytes(view.bits)
        if view.buffer.private and view.buffer.in_flight is not None:
            W.check_registers(self, view.buffer, view.addresses(coord), writing=True)
        if view.buffer.private and view.buffer.tmem_pending is not None:
            TM.check_registers(self, view.buffer, view.addresses(coord), writing=True)
        if view.buffer.private and view.buffer.a_in_flight is not None:
            W.check_a_registers(self, view.buffer, view.addresses(coord))
        address = view.addresses(coord)
        if where.all():  # every thread: no copies through the mask
            lanes = self.lanes
        else:
            address, value, defined, lanes = address[where], value[where], defined[where], self.lanes[where]
            nan = None if nan is None else nan[where]
        nan = np.zeros(value.size, bool) if nan is None else nan
        buffer = view.buffer
        if buffer.origin is not None:
            placed = np.full((nbytes, lanes.size), O.UNKNOWN, np.int64) if origin is None else origin[:, where]
            span = uniform_span(buffer, address, nbytes) if buffer.private else None
            if span is not None and lanes.size == self.threads:
                buffer.origin[:, span] = placed.T  # every thread's same bytes: a column block
            elif buffer.private:
                buffer.origin[lanes[None, :], address[None, :] + np.arange(nbytes)[:, None]] = placed
            else:
                buffer.origin[address[None, :] + np.arange(nbytes)[:, None]] = placed
            if not buffer.private and not buffer.shared and (placed >= O.VIRTUAL).any():
                made = placed >= O.VIRTUAL
                at = address[None, :] + np.arange(nbytes)[:, None]
                self.origins.stores.append((placed[made], at[made], buffer.name, self.points[self.point]))
        if buffer.private:
            span = uniform_span(buffer, address, nbytes)
            if span is not None:
                write_registers(buffer, slice(None) if lanes.size == self.threads else lanes, span, value, defined, nan)
            else:
                write_registers(buffer, lanes[:, None], address[:, None] + np.arange(nbytes), value, defined, nan)
            return
        self.write_memory(buffer, address, nbytes, lanes, (value, defined, nan), tracked, order)

    def write_memory(self, buffer, address, nbytes, lanes, element, tracked, order):
        """The element (value, defined, nan) stored by `lanes` at
        `address` of a tensor or shared buffer: the race check, the
        bytes (thread by thread), and the release it may make."""
        value, defined, nan = element
        # Two threads storing one byte in one instruction: which wins is
        # not defined. (Whether a word repeats is asked once: the race
        # check's cells are these words where its grain is their size.)
        words = word_indices(buffer, address, nbytes)
        repeats = None if words is None else RC.has_repeats(self, words)
        if tracked:
            self.declare(E.element_write(buffer, address, nbytes, lanes, order.strength, repeats))
        if buffer.wgmma_reading is not None:
            W.check_shared_write(self, buffer, CE.byte_run(address, nbytes, lanes)[0])
        if buffer.shared:
            self.unfenced.generic_write(buffer, address, nbytes, self.point)
        if words is not None:
            write_words(buffer, words, nbytes, value, defined, nan)
            if repeats:
                undefine_words(buffer, RC.Groups(self, words).repeated(), nbytes)
        else:
            at = CE.byte_run(address, nbytes, lanes)[0]
            buffer.data[at] = as_bytes(value, nbytes).reshape(-1)
            buffer.defined[at] = np.repeat(defined, nbytes)
            if buffer.has_nan() or nan.any():
                buffer.nan[at] = np.repeat(nan, nbytes)
            buffer.defined[RC.Groups(self, at).repeated()] = False
        if tracked and self.sync is not None:
            self.sync.after_write(buffer, *CE.byte_run(address, nbytes, lanes), order, rmw=False)
        self.progress()

    def progress(self):
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
        handler = HANDLERS.get(name) or (AR.float_op if F.handles(name) else None)
        try:
            if handler is None:
                raise NotCovered(name)
            handler(self, op)
        except NotCovered as why:
            # Located at the innermost op that raised it (an op of a loop's
            # body, not the loop).
            if why.point is None:
                why.point = self.points[self.point]
            raise

    def group_coordinates(self, scope):
        """This thread's row of each group axis (docs/scopes.md): (lane) for
        a warp, (warp % 4, lane) for a warpgroup, (warp, lane) for a cta."""
        if self._group_rows is None:  # the same every call: computed once
            lane, warp = self.thread_linear & 31, self.thread_linear >> 5
            self._group_rows = {"thread": [], "warp": [lane], "warpgroup": [warp & 3, lane], "cta": [warp, lane]}
        return list(self._group_rows[scope])

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
    through_memory = SU.synchronizes_through_memory(func)
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


def _run(func, inputs, grid, block, aliases, hazards, approximated, shapes, banks, fragment_layouts,
         through_memory, as_streams, blocks_apart=False, accumulation="sm_90"):
    """run(), in lockstep or (`as_streams`) as streams, each block's apart
    with `blocks_apart`; `through_memory`: the kernel may synchronize
    threads through memory (memory_model.py)."""
    from mlir import ir
    threads = int(np.prod(grid)) * int(np.prod(block))
    interp = Interpreter(threads, grid, block, accumulation)
    if fragment_layouts and SU.has_apply(func, ("mma",)):
        interp.origins = O.Origins()
    SU.order_clocks(interp, func, through_memory, as_streams)
    interp.unfenced.recording = SU.reads_through_async_proxy(func)
    if banks is not None:
        interp.bank_stats = {}
    if "nvvm.cluster_dim" in func.attributes:
        interp.set_cluster(list(ir.DenseI32ArrayAttr(func.attributes["nvvm.cluster_dim"])))
    if "tile.dynamic_shared_bytes" in func.attributes:
        interp.dynamic_shared_bytes = ir.IntegerAttr(func.attributes["tile.dynamic_shared_bytes"]).value
    body = func.regions[0].blocks[0]
    buffers = SU.bind_arguments(interp, func, inputs, aliases or {}, shapes)
    try:
        if as_streams:
            interp.streams = S.Streams(interp, *S.groups_of(interp.per_block, threads, blocks_apart))
            interp.named_barriers = S.NamedBarriers(interp)
            interp.streams.run(body, func.context)
            if interp.cluster != (1, 1, 1):
                RC.check_shared_memory_outlives_access(interp)
        else:
            interp.run_block(body)
    except (LoopFault, S.Stuck) as fault:
        # A hang often follows the race that caused it (a read before its
        # wait, a wait on the wrong phase): the faults carry what was found.
        fault.hazards_before = list(interp.hazards)
        raise
    TM.check_exit(interp)
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
