"""An access's bytes as the race check's cells (memory.MAX_GRAIN): the
shadow state of a buffer is kept per cell of its grain, and an access
that would split a cell (narrower, misaligned, or two threads in one)
refines the grain first, so that every cell's bytes keep one history."""

import numpy as np


def cells(buffer, at, lanes, span=None):
    """An access's bytes `at` (by `lanes`, per byte its atomic `span` or
    one for all) as the buffer's cells: (cells, lanes, span). Where the
    bytes do not make whole cells in order, each cell's bytes one
    thread's, the buffer's grain is refined until they do."""
    while buffer.grain > 1:
        grain = buffer.grain
        if at.size % grain == 0:
            rows = at.reshape(-1, grain)
            first = rows[:, 0]
            if not (first & (grain - 1)).any() and (rows == first[:, None] + np.arange(grain)).all() and \
                    (lanes.reshape(-1, grain) == lanes[::grain, None]).all():
                if isinstance(span, np.ndarray) and span.shape == at.shape:
                    span = span[::grain]
                buffer.touched = True
                return first >> (grain.bit_length() - 1), lanes[::grain], span
        buffer.refine(grain // 2)
    buffer.touched = True
    return at, lanes, span


def element_cells(buffer, address, nbytes, lanes):
    """The cells of `nbytes` at each of `address` (one per thread of
    `lanes`): (cells, lanes), each thread's in order. The grain is
    refined to the largest power of two that divides `nbytes` and every
    address."""
    grain = min(buffer.grain, nbytes & -nbytes)
    while grain > 1 and (address & (grain - 1)).any():
        grain //= 2
    buffer.refine(grain)
    buffer.touched = True
    per = nbytes // grain
    first = address >> (grain.bit_length() - 1)
    if per == 1:
        return first, lanes
    return (first[:, None] + np.arange(per)).reshape(-1), np.repeat(lanes, per)


def byte_run(address, nbytes, lanes):
    """(bytes, lanes): each thread's `nbytes` from its address, in order."""
    return (address[:, None] + np.arange(nbytes)).reshape(-1), np.repeat(lanes, nbytes)


def checks_bytes(buffer, writing):
    """Whether an access of the buffer has checks kept per byte to make:
    a copy in flight, a TMA store reading (a write's) or writing it."""
    return buffer.pending_at.values is not None or buffer.store_writing is not None or \
        (writing and buffer.store_reading is not None)
