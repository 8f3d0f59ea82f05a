"""TMA tensor copies (PTX ISA 9.0, 9.7.9.27) for the interpreter.

A tensor map (tile.tensor_map) is the global tensor it describes, a box and
a swizzle. cp.async.bulk.tensor copies one box per issuing thread:

- a load reads the box at the thread's coordinates (innermost first) from
  the tensor when it is issued, zeros for elements outside the tensor, and
  its bytes are in flight until a wait sees the mbarrier phase its
  complete_tx counts towards complete: then they land in shared memory,
  through the tile's swizzle. The copy removes the box's bytes (in bounds
  or not) from the transaction count at issue, so a phase completes once
  its arrivals are made and the expected bytes are supplied, in either
  order. An access to the box's bytes before they land is an AsyncHazard,
  and so is a second copy into them. A phase whose count does not come to
  zero never completes: bytes expected that no copy supplies, or more
  bytes supplied than expected (the count passes zero; the H200 hangs
  there too, tools/gpu/results/tma_hazards.json); the wait's loop is
  reported (LoopFault) with the count;
- a store reads the shared box when it is issued (reading bytes still in
  flight is an AsyncHazard) and writes the elements inside the tensor; a
  write to its source before a cp.async.bulk.wait_group{.read} covers its
  bulk group is a StoreSourceHazard;
- what the H200 faults on is an InterpretError (TmaFault): an innermost
  coordinate whose bytes are not a multiple of 16, and a store at a
  negative coordinate (measured: tools/gpu/results/tma_faults.json);
  cp.async.bulk.commit_group and wait_group order nothing the model has
  not already done.

With .multicast::cluster a load delivers the box, and its complete_tx,
to the same offsets of every block of the cluster that ctaMask names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import effects as E
from . import mbarrier as M
from . import memory_model as MM
from . import proxy as P
from .reference import MemoryFault, NotCovered


class TensorMap:
    """The value of tile.tensor_map: the tensor's View, the box (outermost
    first), the swizzle span in bytes and the tensor's element type (MLIR's
    spelling: "f32", "i32")."""

    def __init__(self, tensor, box, swizzle, element="i8"):
        self.tensor, self.box, self.swizzle, self.element = tensor, tuple(box), swizzle, element


def _addresses(view, thread, index):
    """Byte addresses of the elements at multi-indices `index` (n, rank) of
    `view` for `thread`, through its swizzle."""
    address = int(view.offset[thread]) + index @ np.asarray(view.strides, np.int64)
    if view.swizzle is None:
        return address
    start, bits, base, shift = view.swizzle
    start = int(np.asarray(start)[thread])
    offset = address - start
    return start + (offset ^ ((offset >> shift) & (((1 << bits) - 1) << base)))


def _coordinates(interp, view, count):
    """The s32 coordinates of each thread, innermost first, and whether all
    are defined."""
    values, known = [], np.ones(interp.threads, bool)
    for i in range(count):
        bits, defined, _ = interp.read(view, [i])
        values.append((bits.astype(np.int64) & 0xFFFFFFFF) - ((bits.astype(np.int64) & 0x80000000) << 1))
        known &= defined
    return np.stack(values, axis=1), known


def _global_elements(tmap, start, index):
    """Which box elements lie inside the tensor, and their byte addresses."""
    where = start[None, :] + index
    shape = np.asarray(tmap.tensor.shape, np.int64)
    inside = ((where >= 0) & (where < shape[None, :])).all(axis=1)
    address = where[inside] @ np.asarray(tmap.tensor.strides, np.int64)
    return inside, address


def execute(interp, form, values, executing):
    """Runs one cp.async.bulk form (or prefetch.tensormap) for the executing
    threads in ascending order."""
    tokens = form.opcode.split(".")
    if form.family == "prefetch.tensormap":
        return
    if "commit_group" in tokens:
        interp.bulk_open_group[executing] += 1
        return
    if "wait_group" in tokens:
        _release(interp, executing, int(values[0][0][0]), writes="read" not in tokens)
        return
    named = {o.name: v for o, v in zip(form.operands, values)}
    if "prefetch" in tokens and "tensorMap" not in named:
        return  # bytes into L2 only: nothing the kernel can see changes
    masks = _scalar(interp, named["ctaMask"]) if "multicast::cluster" in tokens else None
    if "tensorMap" not in named:
        _bulk(interp, form, named, masks, executing)
        return
    tmap = named["tensorMap"]
    coords, known = _coordinates(interp, named["tensorCoords"], named["tensorCoords"].shape[-1])
    if "prefetch" in tokens:
        # Into L2 only: no memory the kernel can see changes, and a box
        # outside the tensor prefetches nothing.
        return
    where = interp.points[interp.point]
    rank = len(tmap.box)
    index = np.indices(tmap.box).reshape(rank, -1).T.astype(np.int64)
    nbytes = tmap.tensor.bits // 8
    box_bytes = index.shape[0] * nbytes
    lanes_of = np.arange(nbytes)
    load = "mbarrier::complete_tx::bytes" in tokens
    for thread in np.flatnonzero(executing):
        _check_coordinates(form, where, thread, coords[thread], nbytes, load)
        start = coords[thread][::-1]
        inside, global_at = _global_elements(tmap, start, index)
        global_bytes = (global_at[:, None] + lanes_of[None, :]).reshape(-1)
        tensor = tmap.tensor.buffer
        lane = interp.lanes[thread]
        if load:
            box = named["dstMem"]
            shared_at = (_addresses(box, thread, index)[:, None] + lanes_of[None, :]).reshape(-1)
            data = np.zeros(box_bytes, np.uint8)
            defined = np.full(box_bytes, bool(known[thread]))
            mask = np.repeat(inside, nbytes)
            data[mask] = tensor.data[global_bytes]
            defined[mask] &= tensor.defined[global_bytes]
            interp.declare(E.read(tensor, global_bytes, np.full(global_bytes.size, lane)))
            for block in _destinations(interp, form, thread, masks, where):
                # The same offsets in each destination block's shared memory.
                box_shift = (block - interp.block_linear[thread]) * box.buffer.block_bytes
                mbar_shift = (block - interp.block_linear[thread]) * named["mbar"].buffer.block_bytes
                issue_load(interp, form, thread, Landing(box.buffer, shared_at + box_shift, data.copy(),
                                                         defined.copy()),
                           TxTarget(named["mbar"], shift=mbar_shift), remote=block != interp.block_linear[thread])
        else:
            box = named["srcMem"]
            shared_at = (_addresses(box, thread, index)[:, None] + lanes_of[None, :]).reshape(-1)
            buffer = box.buffer
            interp.declare(E.read(buffer, shared_at, np.full(shared_at.size, lane)))
            P.check_async_read(interp, buffer, shared_at)
            # The copy reads its source until a wait_group{.read} covers
            # its bulk group.
            if buffer.store_reading is None:
                buffer.store_reading = np.zeros(buffer.data.size, np.int32)
            buffer.store_reading[shared_at] = interp.point
            mask = np.repeat(inside, nbytes)
            if form.opcode.startswith("cp.reduce."):
                # Each element is read and written in one atomic step.
                interp.declare(E.read(tensor, global_bytes, np.full(global_bytes.size, lane), strength=MM.GPU))
                interp.declare(E.write(tensor, global_bytes, np.full(global_bytes.size, lane), strength=MM.GPU))
                _reduce(form, tmap, tensor, global_bytes, buffer, shared_at[mask], bool(known[thread]), where)
                _in_flight(interp, thread, buffer, shared_at, tensor, global_bytes)
                continue
            interp.declare(E.write(tensor, global_bytes, np.full(global_bytes.size, lane)))
            _in_flight(interp, thread, buffer, shared_at, tensor, global_bytes)
            tensor.data[global_bytes] = buffer.data[shared_at[mask]]
            tensor.defined[global_bytes] = buffer.defined[shared_at[mask]] & bool(known[thread])
            tensor.nan[global_bytes] = buffer.nan[shared_at[mask]]


def _bulk(interp, form, named, masks, executing):
    """cp.async.bulk, not a tensor's: `size` contiguous bytes from srcMem
    to dstMem, per issuing thread. A load's bytes are in flight as a
    tensor load's (into every block ctaMask names, with .multicast), a
    store's are written at issue and its source read until a
    wait_group.read covers its bulk group. An address that is not a
    multiple of 16 bytes is a MemoryFault (the ISA requires the
    alignment; the verifier proves it where the offset is static)."""
    where = interp.points[interp.point]
    dst, src = named["dstMem"], named["srcMem"]
    if len(dst.shape) > 1 or len(src.shape) > 1:
        raise NotCovered(f"{form.opcode} repeated over leading axes")
    size = int(np.asarray(named["size"][0]).reshape(-1)[0])
    lanes_of = np.arange(size)
    load = "mbarrier::complete_tx::bytes" in form.opcode.split(".")
    for thread in np.flatnonzero(executing):
        lane = interp.lanes[thread]
        at = {}
        for name, view in (("dstMem", dst), ("srcMem", src)):
            start = int(view.offset[thread])
            in_buffer = start - int(interp.block_linear[thread]) * view.buffer.block_bytes \
                if view.buffer.block_bytes else start
            if in_buffer % 16:
                raise MemoryFault(f"{where}: {form.opcode}: thread {thread}'s {name} is {in_buffer} bytes into "
                                  f"{view.buffer.name or 'its buffer'}, not a multiple of 16")
            at[name] = start + lanes_of
            if at[name][-1] >= view.buffer.data.size or start < 0:
                raise MemoryFault(f"{where}: {form.opcode}: thread {thread}'s {name} runs past "
                                  f"{view.buffer.name or 'its buffer'}")
        source, target = src.buffer, dst.buffer
        if load:
            data, defined = source.data[at["srcMem"]].copy(), source.defined[at["srcMem"]].copy()
            interp.declare(E.read(source, at["srcMem"], np.full(size, lane)))
            own = int(interp.block_linear[thread])
            # The block whose shared memory dstMem is: the issuer's, or
            # through tile.mapa another one of its cluster.
            into = int(at["dstMem"][0]) // target.block_bytes if target.block_bytes else own
            for block in _destinations(interp, form, thread, masks, where):
                shift = (block - own) * target.block_bytes
                mbar_shift = (block - own) * named["mbar"].buffer.block_bytes
                issue_load(interp, form, thread, Landing(target, at["dstMem"] + shift, data.copy(), defined.copy()),
                           TxTarget(named["mbar"], shift=mbar_shift), remote=block != own or into != own)
            continue
        interp.declare(E.read(source, at["srcMem"], np.full(size, lane)))
        if source.shared:
            P.check_async_read(interp, source, at["srcMem"])
        if source.store_reading is None:
            source.store_reading = np.zeros(source.data.size, np.int32)
        source.store_reading[at["srcMem"]] = interp.point
        interp.declare(E.write(target, at["dstMem"], np.full(size, lane)))
        _in_flight(interp, thread, source, at["srcMem"], target, at["dstMem"])
        target.data[at["dstMem"]] = source.data[at["srcMem"]]
        target.defined[at["dstMem"]] = source.defined[at["srcMem"]]
        target.nan[at["dstMem"]] = source.nan[at["srcMem"]]


# The reductions the interpreter runs on each element type of the tensor
# (which its map's data type follows; MLIR's spelling, ui32 for a uint32
# tensor): integers of 32 and 64 bits wrap (add) or combine bitwise,
# inc/dec wrap at the box's value (u32), min/max compare as the type's
# signedness says; f32 adds round to nearest. The 16-bit float reductions
# are not modelled yet.
_INTEGER_REDUCTIONS = {"add", "and", "or", "xor", "min", "max"}


def _reduce(form, tmap, tensor, global_bytes, buffer, shared_at, known, where):
    """cp.reduce.async.bulk.tensor: tensor = op(tensor, box) per element
    inside the tensor. An f32 sum keeps subnormal inputs and results (the
    H200 did: tools/gpu/results/bulk_subnormal.json); a NaN it makes
    compares as "a NaN", its payload not measured."""
    op = next(t for t in form.opcode.split(".") if t in ("add", "min", "max", "inc", "dec", "and", "or", "xor"))
    element = tmap.element
    integer = element.lstrip("us") in ("i32", "i64")
    signed = element.startswith("si")
    if not (element == "f32" and op == "add" or integer and (
            op in _INTEGER_REDUCTIONS and (op not in ("min", "max") or element[0] in "us")
            or op in ("inc", "dec") and element == "ui32")):
        raise NotCovered(f"{form.opcode} on {element} elements")
    nbytes = 8 if element.endswith("64") else 4
    words = np.uint64 if nbytes == 8 else np.uint32
    old = tensor.data[global_bytes].view(words)
    new = buffer.data[shared_at].view(words)
    defined = (tensor.defined[global_bytes] & buffer.defined[shared_at]).reshape(-1, nbytes).all(axis=1) & known
    made_nan = np.zeros(old.size, bool)
    if element == "f32":
        with np.errstate(all="ignore"):
            total = (old.view(np.float32) + new.view(np.float32)).view(np.uint32)
        made_nan = np.isnan(total.view(np.float32))
    elif op == "add":
        total = old + new
    elif op == "and":
        total = old & new
    elif op == "or":
        total = old | new
    elif op == "xor":
        total = old ^ new
    elif op in ("min", "max"):
        pick = np.minimum if op == "min" else np.maximum
        as_signed = np.int64 if nbytes == 8 else np.int32
        total = pick(old.view(as_signed), new.view(as_signed)).view(words) if signed else pick(old, new)
    elif op == "inc":
        total = np.where(old >= new, 0, old + 1).astype(words)
    else:  # dec
        total = np.where((old == 0) | (old > new), new, old - 1).astype(words)
    tensor.data[global_bytes] = np.asarray(total, words).view(np.uint8)
    tensor.defined[global_bytes] = np.repeat(defined, nbytes)
    tensor.nan[global_bytes] = np.repeat(made_nan, nbytes)


class TmaFault(Exception):
    """A copy the H200 does not complete: it faults (illegal instruction)."""


def _check_coordinates(form, where, thread, coords, nbytes, load):
    """What the H200 faults on (tools/gpu/results/tma_faults.json): an
    innermost coordinate whose bytes from the tensor's start are not a
    multiple of 16, and for a store any negative coordinate."""
    if coords[0] * nbytes % 16:
        raise TmaFault(f"{where}: {form.opcode}: thread {thread}'s innermost coordinate {int(coords[0])} "
                       f"is {int(coords[0]) * nbytes} bytes from the tensor's start, not a multiple of 16: "
                       "the H200 faults (illegal instruction)")
    if not load and (coords < 0).any():
        raise TmaFault(f"{where}: {form.opcode}: thread {thread} stores at coordinates "
                       f"{tuple(int(c) for c in coords)}: a store at a negative coordinate faults on the "
                       "H200 (illegal instruction); only a load reads zeros there")


class StoreSourceHazard:
    """A write to shared bytes that a TMA store still reads (no
    cp.async.bulk.wait_group.read since, in the storing thread, covers its
    bulk group): the store may copy the new bytes."""

    kind = "TMA store source before its wait"

    def __init__(self, opcode, point, buffer, byte, stored_at):
        self.opcode, self.second, self.buffer, self.byte, self.first = opcode, point, buffer, byte, stored_at

    def __str__(self):
        return (f"{self.second}: {self.opcode} writes {self.buffer or 'memory'} byte {self.byte}, which the "
                f"cp.async.bulk.tensor store at {self.first} may still read: no cp.async.bulk.wait_group.read "
                "covers its bulk group")


def _report_marked(interp, kind, marks, buffer, at, make):
    """Reports the access to `at` once per program point, where `marks`
    (the program point of a store per byte of `at`, 0: none) names one:
    make(byte, that store's point) is the hazard."""
    if not marks.any():
        return
    first = int(np.flatnonzero(marks)[0])
    if interp.first_report((kind, interp.point, buffer.name)):
        interp.hazards.append(make(int(at[first]), interp.points[int(marks[first])]))


def check_source_write(interp, buffer, at):
    """Reports a write to bytes a TMA store still reads (once per point)."""
    _report_marked(interp, "store source", buffer.store_reading[at], buffer, at,
                   lambda byte, stored_at: StoreSourceHazard(interp.current_opcode, interp.points[interp.point],
                                                             buffer.name, byte, stored_at))


class StoreTargetHazard:
    """An access to bytes a TMA store (or bulk store) may still be writing:
    no cp.async.bulk.wait_group without .read since, in the storing thread,
    covers its bulk group (.read waits for the source to be read only)."""

    kind = "TMA store target before its wait"

    def __init__(self, opcode, point, buffer, byte, stored_at, access):
        self.opcode, self.second, self.buffer, self.byte, self.first = opcode, point, buffer, byte, stored_at
        self.access = access

    def __str__(self):
        return (f"{self.second}: {self.opcode} {self.access} {self.buffer or 'memory'} byte {self.byte}, which "
                f"the bulk store at {self.first} may still be writing: no cp.async.bulk.wait_group (without "
                ".read) covers its bulk group")


def check_target_access(interp, buffer, at, access):
    """Reports an access to bytes a store may still write (once per point);
    a reduction's own accesses are atomic with another's."""
    if interp.current_opcode.startswith("cp.reduce."):
        return
    _report_marked(interp, "store target", buffer.store_writing[at], buffer, at,
                   lambda byte, stored_at: StoreTargetHazard(interp.current_opcode, interp.points[interp.point],
                                                             buffer.name, byte, stored_at, access))


def _in_flight(interp, thread, source, source_at, target, target_at):
    """A store's source is read, and its target written, until the waits
    of its thread cover its bulk group (the model copies at issue)."""
    if target.store_writing is None:
        target.store_writing = np.zeros(target.data.size, np.int32)
    target.store_writing[target_at] = interp.point
    interp.bulk_stores.append(_BulkStore(thread, int(interp.bulk_open_group[thread]), source, source_at, target,
                                         target_at))


class _BulkStore:
    """A store in flight: its thread and bulk group, the source bytes it
    reads until a wait covers the group (`reading` until then) and the
    target bytes it writes."""

    def __init__(self, thread, group, source, source_at, target, target_at):
        self.thread, self.group = thread, group
        self.source, self.source_at, self.target, self.target_at = source, source_at, target, target_at
        self.reading = True


def _release(interp, executing, keep, writes):
    """cp.async.bulk.wait_group{.read} N in the threads `executing`: their
    stores of every committed bulk group but the newest N have read their
    sources and, without .read, written their targets."""
    kept = []
    for store in interp.bulk_stores:
        if executing[store.thread] and store.group < interp.bulk_open_group[store.thread] - keep:
            if store.reading:
                store.source.store_reading[store.source_at] = 0
                store.reading = False
            if writes:
                store.target.store_writing[store.target_at] = 0
                continue
        kept.append(store)
    interp.bulk_stores = kept


def _scalar(interp, value):
    """A 16-bit register operand's value per thread (a scalar or a tile)."""
    if isinstance(value, tuple):
        return np.asarray(value[0]).astype(np.int64) & 0xFFFF
    bits, _, _ = interp.read(value, [0])
    return bits.astype(np.int64) & 0xFFFF


def _destinations(interp, form, thread, masks, where):
    """The blocks a load delivers to: the issuing thread's, or with
    .multicast::cluster those of its cluster whose rank ctaMask's bits
    name."""
    own = int(interp.block_linear[thread])
    if masks is None:
        return [own]
    mask = int(masks[thread])
    first = interp.lanes[interp.block_linear == own][0]
    blocks = []
    for block in np.unique(interp.block_linear[interp.cluster_of == interp.cluster_of[first]]):
        if mask >> int(interp.cluster_rank[block * interp.per_block]) & 1:
            blocks.append(int(block))
    if not blocks or mask >> int(np.prod(interp.cluster)):
        raise TmaFault(f"{where}: {form.opcode}: thread {thread}'s ctaMask {mask:#06x} names no block, or "
                       f"ranks past its cluster of {int(np.prod(interp.cluster))} blocks")
    return blocks


@dataclass
class Landing:
    """Bytes in flight: `data` (which of them `defined`) towards `buffer`
    at byte addresses `at`; with `combine(old bytes, data)`, what lands is
    computed from the bytes there then (red.async's reduction)."""

    buffer: object
    at: np.ndarray
    data: np.ndarray
    defined: np.ndarray
    combine: object = None


@dataclass(frozen=True)
class TxTarget:
    """The mbarrier whose current phase a copy's complete_tx counts
    towards: element `coord` of the view `mbar`, shifted by `shift` bytes
    (the same object of another block of the cluster)."""

    mbar: object
    coord: tuple = (0,)
    shift: int = 0


def issue_load(interp, form, thread, landing: Landing, target: TxTarget, remote=False):
    """`thread`'s copy: its bytes go in flight (`landing`), its complete_tx
    counts towards `target`'s phase; a `remote` copy (another block's
    memory, which a multicast or st.async delivers to, or a reduction's)
    leaves its bytes to the AsyncHazard of an access before they land, not
    to the race check."""
    from . import wgmma as W
    lane, buffer, at = interp.lanes[thread], landing.buffer, landing.at
    if remote:
        interp.forget(buffer, at)
    else:
        interp.declare(E.write(buffer, at, np.full(at.size, lane)))
    if buffer.wgmma_reading is not None:
        W.check_shared_write(interp, buffer, at)
    interp.copy_sequence += 1
    sequence = interp.copy_sequence
    interp.bulk_copies[sequence] = landing
    interp.bulk_points[interp.point] = form.family  # cp.async.bulk or st.async: who an AsyncHazard names
    interp.copy_in_flight(buffer, at, interp.point)
    state, where, mbar = interp.mbarriers, interp.points[interp.point], target.mbar
    barrier = state.get(where, state.key(mbar, mbar.addresses(list(target.coord))[thread] + target.shift),
                        form.opcode)
    barrier.bulk.append((barrier.phase, sequence))
    barrier.tx -= landing.data.size
    M.check_count(where, form.opcode, "the transaction count", barrier.tx, low=-M.MAX_COUNT)
    M.release(interp, barrier, thread)
    M.complete_if_done(barrier)


def deliver(interp, sequence):
    """The load numbered `sequence` lands: ordered before the wait that saw
    its phase complete, so the race check does not see the write."""
    landing = interp.bulk_copies.pop(sequence)
    buffer, at, data, defined = landing.buffer, landing.at, landing.data, landing.defined
    interp.unfenced.async_write(buffer, at)
    if landing.combine is not None:
        data, defined = landing.combine(buffer.data[at], data), defined & buffer.defined[at]
    buffer.data[at] = data
    buffer.defined[at] = defined
    buffer.nan[at] = False
    interp.copy_landed(buffer, at)
