"""The generic and the async proxy (PTX ISA 9.0, 8.6 "Proxies" and
9.7.13.4 fence.proxy): shared memory written through the generic proxy
(st.shared, stmatrix, atom, red) and then read through the async proxy (a
TMA or bulk store's source, a wgmma's shared operand) needs a
fence.proxy.async between the two, or the async read may see the bytes
as they were.

The model: each shared byte keeps the program point of its last generic
write not yet fenced (0: none). fence.proxy.async (any state space that
covers shared memory) in a thread fences the bytes that thread wrote last,
and the bytes of its block written before a block barrier that the
fencing thread has passed since (the barrier carries the write to the
fencing thread: the pattern where one thread fences after the barrier and
then issues the copy is taken as correct; CUTLASS and Triton fence in every
writer before the barrier, which is correct under either reading). A write
through the async proxy (a TMA load's delivery) clears the byte. An async
read of a byte still marked is a ProxyHazard.
"""

from __future__ import annotations

import numpy as np


class ProxyHazard:
    """Shared bytes written through the generic proxy and read through the
    async proxy with no fence.proxy.async between."""

    kind = "async-proxy read without fence.proxy.async"

    def __init__(self, opcode, point, buffer, byte, written_at):
        self.opcode, self.second, self.buffer, self.byte, self.first = opcode, point, buffer, byte, written_at

    def __str__(self):
        return (f"{self.second}: {self.opcode} reads {self.buffer or 'shared memory'} byte {self.byte} through the "
                f"async proxy, which the write at {self.first} made through the generic proxy: no "
                "fence.proxy.async between them")


# The families whose instructions read shared memory through the async
# proxy (the form table's `family`): TMA stores and bulk copies, wgmma's
# operands, tcgen05's.
ASYNC_PROXY_READERS = ("cp.async.bulk", "wgmma", "tcgen05")


class UnfencedWrites:
    """The shared buffers with generic writes not yet fenced, per byte;
    `recording` off where no instruction of the kernel reads through the
    async proxy (setup.reads_through_async_proxy)."""

    def __init__(self):
        self.buffers = {}  # id(buffer) -> (buffer, program point per byte)
        self.recording = True

    def generic_write(self, buffer, address, nbytes, point):
        """A store of `nbytes` at each of `address` through the generic
        proxy."""
        if not self.recording:
            return
        entry = self.buffers.get(id(buffer))
        if entry is None:
            entry = self.buffers[id(buffer)] = (buffer, np.zeros(buffer.data.size, np.int32))
        if nbytes & (nbytes - 1) == 0 and buffer.data.size % nbytes == 0 and not (address & (nbytes - 1)).any():
            # Whole rows, no per-byte indices (a shift: numpy's int64
            # floor division is slower).
            entry[1].reshape(-1, nbytes)[address >> (nbytes.bit_length() - 1)] = point
        else:
            entry[1][(address[:, None] + np.arange(nbytes)).reshape(-1)] = point

    def async_write(self, buffer, at):
        entry = self.buffers.get(id(buffer))
        if entry is not None:
            entry[1][at] = 0

    def fence(self, interp, lanes):
        """fence.proxy.async in the threads `lanes`: their own writes, and
        the writes of their blocks before the block's current barrier
        epoch, are fenced."""
        epoch, per_block = interp.epoch, interp.per_block
        blocks = np.unique(lanes // per_block)
        for buffer, points in self.buffers.values():
            marked = np.flatnonzero(points)
            if marked.size == 0:
                continue
            writers, epochs = interp.last_writes(buffer, marked)
            block = np.where(writers >= 0, writers // per_block, -1)
            before_barrier = np.isin(block, blocks) & (epochs < epoch[np.maximum(block, 0)])
            points[marked[np.isin(writers, lanes) | before_barrier]] = 0

    def unfenced_at(self, buffer, at):
        """The program point of an unfenced generic write of each byte
        `at` (0: none)."""
        entry = self.buffers.get(id(buffer))
        return np.zeros(np.size(at), np.int32) if entry is None else entry[1][at]


def check_async_read(interp, buffer, at):
    """Reports an async-proxy read of bytes written through the generic
    proxy and not fenced since (once per program point and buffer)."""
    points = interp.unfenced.unfenced_at(buffer, at)
    if not points.any():
        return
    first = int(np.flatnonzero(points)[0])
    key = ("proxy", interp.point, buffer.name)
    if not interp.first_report(key):
        return
    interp.hazards.append(ProxyHazard(interp.current_opcode, interp.points[interp.point], buffer.name,
                                      int(np.asarray(at)[first]), interp.points[int(points[first])]))
