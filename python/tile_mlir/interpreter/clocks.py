"""Happens-before through mbarrier phases, for the race check.

A block barrier orders every access of its block before it against every
one after it (the epochs of machine.py). An mbarrier orders less: the
accesses a thread made before its arrival are ordered before those a thread
makes after a wait that saw that arrival's phase complete (PTX ISA 9.0,
9.7.13.15: arrive has release, the completed wait acquire semantics). A
producer's copies reach a consumer that way, and the consumer's reads are
ordered before the producer's next copies into the same stage the same way
back.

Each thread keeps a vector clock over the threads of its block: its own
count of releases, and for each other thread the last of its counts it
synchronized with. An access records its thread's own count; another
thread's later access is ordered after it if its clock has reached that
count. An arrival releases (the phase takes the join of its arrivers'
clocks, then the thread's own count moves on), a wait that sees the phase
complete acquires it, a block barrier joins every clock of the block.

Reads by several threads since the last barrier are a set of (thread,
count) per byte, numbered once each: a write is ordered after all of them
or races with one.

A kernel that synchronizes blocks through global memory (a flag stored
with release semantics and loaded with acquire semantics, or fences around
relaxed atomics: memory_model.py) keeps the clocks over every thread of
the launch instead (`span`), so that what a thread learns from another
block orders that block's accesses too.
"""

import numpy as np

NOBODY = -1


class Clocks:
    def __init__(self, threads, per_block, span=None):
        """Clocks of `threads` threads in blocks of `per_block`, each over
        the `span` threads it may synchronize with: its block's (the
        default) or every thread's."""
        self.per_block = per_block
        self.span = span or per_block
        self.known = np.zeros((threads, self.span), np.int64)
        self.known[np.arange(threads), self.column(np.arange(threads))] = 1
        # Reader sets: 0 is the empty one.
        self.sets = [frozenset()]
        self.ids = {frozenset(): 0}

    def column(self, threads):
        """The column of each of `threads` in the clocks of those that may
        synchronize with it."""
        return threads % self.span

    def own(self, lanes):
        return self.known[lanes, self.column(lanes)]

    def same_span(self, lanes, others):
        """Per pair: whether thread `others` (NOBODY for none) is among
        those thread `lanes` may synchronize with."""
        return (others >= 0) & (others // self.span == lanes // self.span)

    def knows(self, lanes, others, counts):
        """Per access: whether thread `lanes` has synchronized with thread
        `others` (of its span) at or after its count `counts`."""
        valid = self.same_span(lanes, others)
        column = np.where(valid, self.column(np.maximum(others, 0)), 0)
        return valid & (self.known[lanes, column] >= counts)

    def release(self, thread):
        """An arrival of `thread`: what it knows, then its count moves on."""
        snapshot = self.known[thread].copy()
        self.known[thread, self.column(thread)] += 1
        return snapshot

    def acquire(self, thread, snapshot):
        np.maximum(self.known[thread], snapshot, out=self.known[thread])

    def barrier(self, blocks):
        """A block barrier passed by the blocks `blocks`: all their threads."""
        if len(blocks):
            self.join((np.asarray(blocks)[:, None] * self.per_block + np.arange(self.per_block)).reshape(-1))

    def join(self, threads):
        """A barrier of the threads `threads` (a counted bar.sync): each
        block's participants learn what all of them know."""
        for block in np.unique(threads // self.per_block):
            rows = threads[threads // self.per_block == block]
            self.known[rows] = self.known[rows].max(axis=0)
            self.known[rows, self.column(rows)] += 1

    # -- reader sets -----------------------------------------------------
    def set_id(self, readers):
        key = frozenset(readers)
        if key not in self.ids:
            self.ids[key] = len(self.sets)
            self.sets.append(key)
        return self.ids[key]

    def add_readers(self, old_ids, fresh, unique_at, at, lanes):
        """The reader set of each byte of `unique_at` once the reads (`at`,
        `lanes`) are added to `old_ids` (emptied where `fresh`: a barrier
        ordered the readers before)."""
        base = np.where(fresh, 0, old_ids)
        order = np.argsort(at, kind="stable")
        at_sorted, lanes_sorted = at[order], lanes[order]
        starts = np.searchsorted(at_sorted, unique_at, "left")
        ends = np.searchsorted(at_sorted, unique_at, "right")
        counts = self.own(lanes_sorted)
        new = np.empty(unique_at.size, np.int64)
        single = np.flatnonzero(ends - starts == 1)
        if single.size:
            unique, inverse = unique_rows([base[single], lanes_sorted[starts[single]], counts[starts[single]]])
            ids = np.array([self.set_id(_merged(self.sets[b], [(lane, count)])) for b, lane, count in unique])
            new[single] = ids[inverse.reshape(-1)]
        for i in np.flatnonzero(ends - starts != 1):
            readers = zip(lanes_sorted[starts[i]:ends[i]].tolist(), counts[starts[i]:ends[i]].tolist())
            new[i] = self.set_id(_merged(self.sets[base[i]], readers))
        return new

    def readers_known(self, lanes, set_ids):
        """Per access: whether thread `lanes` has synchronized with every
        reader of its byte's set."""
        out = np.ones(lanes.size, bool)
        unique, inverse = unique_rows([set_ids, lanes])
        verdict = np.ones(len(unique), bool)
        for i, (set_id, lane) in enumerate(unique):
            readers = self.sets[set_id]
            if readers:
                others = np.array([r for r, _ in readers], np.int64)
                counts = np.array([c for _, c in readers], np.int64)
                verdict[i] = bool(self.knows(np.full(others.size, lane), others, counts).all())
        out[:] = verdict[inverse.reshape(-1)]
        return out


def unique_rows(columns):
    """np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
    for columns of non-negative integers: where their ranges fit, each row
    packed into one int64 and made unique in one dimension (unique along
    an axis sorts the rows as opaque bytes, several times slower)."""
    columns = [np.asarray(c, np.int64) for c in columns]
    spans = [int(c.max()) + 1 if c.size else 1 for c in columns]
    if any(c.size and c.min() < 0 for c in columns) or np.prod([float(x) for x in spans]) >= 2.0 ** 62:
        unique, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
        return unique, inverse.reshape(-1)
    key = np.zeros(columns[0].size, np.int64)
    for column, span in zip(columns, spans):
        key = key * span + column
    keys, inverse = np.unique(key, return_inverse=True)
    unique = np.empty((keys.size, len(columns)), np.int64)
    for i in range(len(columns) - 1, -1, -1):
        keys, unique[:, i] = np.divmod(keys, spans[i])
    return unique, inverse.reshape(-1)


def _merged(readers, more):
    """The reader set with `more` (thread, count) added, each thread at its
    latest count."""
    latest = dict(readers)
    for thread, count in more:
        latest[int(thread)] = max(latest.get(int(thread), 0), int(count))
    return latest.items()
