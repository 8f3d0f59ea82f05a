"""cp.async (PTX ISA 9.7.9.25): each thread's copies join its open group,
commit_group closes it and wait_group delivers the groups it covers (a
copy's bytes land at delivery, so an access before it is a hazard); the
copies an mbarrier phase completes; and createpolicy, whose policy only
hints the cache."""

import itertools

import numpy as np

from . import effects as E
from . import fragment_origins as O
from . import tma as T
from .memory import View, element_bytes


def async_copy(interp, form, values, group, executing):
    """cp.async (PTX ISA 9.0, 9.7.9.25): each executing thread's copy of
    cp-size bytes from global to shared memory joins its open group;
    commit_group closes the group; wait_group N delivers every committed
    group but the newest N (wait_all: commit, then wait 0). The bytes
    land at the wait: until then they are pending, and another access
    to them is a hazard (AsyncHazard)."""
    tokens = form.opcode.split(".")
    if "commit_group" in tokens or "wait_all" in tokens:
        interp.open_group = np.where(executing, interp.open_group + 1, interp.open_group)
    if "wait_group" in tokens or "wait_all" in tokens:
        keep = int(values[0][0][0]) if "wait_group" in tokens else 0
        deliver_copies(interp, executing, below=interp.open_group - keep)
        return
    if "commit_group" in tokens:
        return
    dst, src = values[0], values[1]
    repeats = dst.shape[len(group):-1]
    point = interp.point
    nbytes = element_bytes(dst.bits)
    cp_size = dst.shape[-1] * nbytes
    named = {operand.name: value for operand, value in zip(form.operands, values)}
    for coord in itertools.product(*[range(n) for n in repeats]):
        coord = group + list(coord)
        # src-size: the bytes read from src; the rest are zeros. More
        # than cp-size is undefined (PTX ISA 9.7.9.25.3.1).
        src_size, size_known = np.full(interp.threads, cp_size, np.int64), np.ones(interp.threads, bool)
        if "src-size" in named:  # a cache-policy operand only hints L2
            size = named["src-size"]
            if isinstance(size, View):
                bits, size_known, _ = interp.read(size, coord + [0])
            else:
                bits = size[0]
            src_size = np.asarray(bits, np.uint64).astype(np.int64) & 0xFFFFFFFF
            size_known = size_known & (src_size <= cp_size)
        # The copy's bytes, read as src's elements (whose width may
        # differ from dst's): only those below src-size are read.
        src_bytes = element_bytes(src.bits)
        moved = np.zeros((cp_size, interp.threads), np.uint64)
        moved_known = np.ones((cp_size, interp.threads), bool)
        moved_origin = np.full((cp_size, interp.threads), O.UNKNOWN, np.int64)
        for e in range(src.shape[-1]):
            start = e * src_bytes
            bits, defined, _ = interp.read(src, coord + [e], executing & (src_size > start))
            origin = interp.byte_origins(src, coord + [e])
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
        interp.check_alignment(dst, coord + [0], cp_size, executing)
        interp.check_alignment(src, coord + [0], cp_size, executing)
        interp.bank_requests(dst, coord + [0], cp_size, executing)
        interp.copy_sequence += 1
        interp.copies.append((interp.open_group.copy(), dst, coord, data, known, origins, executing.copy(), point,
                            interp.copy_sequence))
        buffer = dst.buffer
        if not buffer.private:
            for e in range(dst.shape[-1]):
                # The copy may land as soon as it is issued: every access
                # before it must be ordered before the issue, not only
                # before the wait that delivers it.
                at = (dst.addresses(coord + [e])[executing][:, None] + np.arange(nbytes)).reshape(-1)
                interp.declare(E.write(buffer, at, np.repeat(interp.lanes[executing], nbytes)))
                interp.copy_in_flight(buffer, at, point)


def deliver_copies(interp, threads, up_to=None, below=None, tracked=True):
    """Writes the pending copies of `threads`: those numbered up to
    `up_to` (cp.async.mbarrier.arrive), or whose group is below `below`
    (per thread: cp.async.wait_group). Copies an mbarrier phase
    completed (not `tracked`) are ordered before the wait that saw it."""
    kept = []
    for groups, dst, coord, data, known, origins, issued, point, sequence in interp.copies:
        now = issued & threads
        if below is not None:
            now &= groups < below
        if up_to is not None and sequence > up_to:
            now = np.zeros_like(now)
        if now.any():
            for e, (bits, defined, origin) in enumerate(zip(data, known, origins)):
                if not dst.buffer.private:
                    nbytes = element_bytes(dst.bits)
                    interp.copy_landed(dst.buffer, (dst.addresses(coord + [e])[now][:, None] +
                                                    np.arange(nbytes)).reshape(-1))
                interp.write(dst, coord + [e], bits, defined, now, origin=origin, tracked=tracked)
        rest = issued & ~now
        if rest.any():
            kept.append((groups, dst, coord, data, known, origins, rest, point, sequence))
    interp.copies = kept


def deliver_bulk(interp, sequence):
    """The TMA load numbered `sequence` lands (tma.py)."""
    T.deliver(interp, sequence)


def cache_policy(interp, values, group, execute):
    """createpolicy: the policy's 64 bits are the hardware's encoding,
    which no document gives, so they are undefined here; an access that
    takes the policy only hints the cache (instruction() skips it)."""
    policy = values[0]
    repeats = policy.shape[len(group):-1]
    for coord in itertools.product(*[range(n) for n in repeats]):
        interp.write(policy, group + list(coord) + [0], np.zeros(interp.threads, np.uint64),
                   np.zeros(interp.threads, bool), execute)
