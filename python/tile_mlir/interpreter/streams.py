"""Warpgroups (or warps) that take turns, for kernels whose groups wait on
each other.

machine.py runs every thread of a launch in lockstep. That is one valid
order of a kernel in which no thread waits for another's later work, and it
cannot run one that does: a producer warpgroup that refills a stage once
the consumers free it, or two consumers that hand each other a named
barrier (bar.sync / bar.arrive with a thread count). For those, run() runs
the kernel again as streams: each warpgroup of every block (each warp, in
blocks that are not whole warpgroups) runs the kernel on its own threads,
with its own SSA values, one stream at a time; or each block's own, where
a block may wait for another block's store (memory_model.py) or is one
stream. A stream gives the turn away
where it cannot go on: a T.until round in which nothing it may wait on
changed, or a barrier not all of whose threads have arrived. The next
stream that can go on runs (the streams in turn, from the one after); when
none can, the kernel never ends, and the stream that found it says where.

Memory, mbarriers, wgmma groups, copies in flight and the race check's
clocks are the machine's and shared; what each stream keeps of its own is
its ExecutionContext (context.py), swapped as one object. Every order the streams take is one the GPU may take, and
the race check orders accesses by the happens-before relation (clocks.py),
not by the order that ran, so its verdict does not depend on the turns.
"""

from __future__ import annotations

import threading

import numpy as np

from .context import ExecutionContext



class Stuck(Exception):
    """No stream can go on: raised in the stream that found it."""


class _Abort(BaseException):
    """Another stream failed: this one unwinds without a report."""


class Streams:
    """Runs `interp`'s kernel body once per group of threads (`groups`, a
    list of boolean masks), taking turns."""

    def __init__(self, interp, groups, name):
        self.interp = interp
        self.groups, self.name = groups, name  # name: "warpgroup" or "warp"
        self.turn = threading.Condition()
        self.current = None
        self.saved = [None] * len(groups)
        self.live = set(range(len(groups)))
        # The progress token each blocked stream saw when it gave the turn
        # away; a stream not in it can go on.
        self.blocked = {}
        self.progress = 0
        self.error = None

    # -- the turns -------------------------------------------------------
    def token(self):
        return self.progress, self.interp.mbarriers.signature()

    def advance(self):
        """Something another stream may wait for happened."""
        self.progress += 1

    def _next(self, after):
        """The next stream that can go on, from the one after `after`."""
        count = len(self.groups)
        token = self.token()
        for step in range(1, count + 1):
            index = (after + step) % count
            if index in self.live and self.blocked.get(index) != token:
                return index
        return None

    def _hand(self, index):
        with self.turn:
            self.current = index
            self.turn.notify_all()

    def _wait_turn(self, index):
        with self.turn:
            while self.current != index and self.error is None:
                self.turn.wait()
        if self.error is not None and self.current != index:
            raise _Abort()

    def wait(self, why):
        """The running stream cannot go on: another runs until something
        changed. Raises Stuck(why()) when no stream can go on."""
        me = self.current
        self.blocked[me] = self.token()
        following = self._next(me)  # never `me`: it is blocked at this token
        if following is None:
            raise Stuck(why())
        self.saved[me] = self.interp.context
        self._hand(following)
        self._wait_turn(me)
        self.interp.context = self.saved[me]

    # -- running ---------------------------------------------------------
    def run(self, body, context):
        """Runs `body` for every group; raises what a stream raised."""
        initial = dict(self.interp.values)
        threads = [threading.Thread(target=self._stream, args=(index, body, context, initial), daemon=True)
                   for index in range(len(self.groups))]
        for thread in threads:
            thread.start()
        self._hand(0)
        for thread in threads:
            thread.join()
        if self.error is not None:
            raise self.error

    def _stream(self, index, body, context, initial):
        try:
            self._wait_turn(index)
        except _Abort:
            return
        interp = self.interp
        interp.context = ExecutionContext(self.groups[index].copy(), dict(initial))
        try:
            with context:
                interp.run_block(body)
        except _Abort:
            return
        except BaseException as error:  # noqa: B036 - handed to the caller's thread
            with self.turn:
                self.error = error
                self.turn.notify_all()
            return
        self.live.discard(index)
        self.advance()
        following = self._next(index)
        if following is not None or not self.live:
            self._hand(following)
            return
        # Not expected (an end moves the token on, so every blocked stream
        # may go on), but never a hang: the streams left are stopped.
        with self.turn:
            self.error = Stuck(f"every other stream waits and none can go on (stream {min(self.live)} first)")
            self.turn.notify_all()


def _group_size(per_block):
    """Threads a stream runs: a warpgroup, or a warp where a block is not
    whole warpgroups."""
    return 128 if per_block % 128 == 0 else 32


def streams_per_block(per_block):
    return -(-per_block // _group_size(per_block))


def groups_of(per_block, threads, blocks_apart=False):
    """The streams' threads and what they are: each warpgroup of every
    block, or each warp where a block is not whole warpgroups; with
    `blocks_apart`, each block's own (for blocks that wait for each
    other's stores)."""
    size = _group_size(per_block)
    within = np.arange(threads) % per_block // size
    groups = [within == g for g in range(streams_per_block(per_block))]
    if blocks_apart:
        block = np.arange(threads) // per_block
        groups = [group & (block == b) for b in range(threads // per_block) for group in groups]
    return groups, "warpgroup" if size == 128 else "warp"


class NamedBarriers:
    """bar.sync / bar.arrive with an id and a thread count, between streams:
    each (id, block) counts its arrivals; when they reach the count, the
    barrier completes, and the threads that synchronized on it learn what
    every participant knew at its arrival (an arrival releases, a
    completed sync acquires, as the ISA's barrier semantics)."""

    def __init__(self, interp):
        self.interp = interp
        # (id, block) -> [arrived, count, syncing threads, joined knowledge]
        self.open = {}
        # (id, block) -> completed generations
        self.generation = {}

    def arrive(self, barrier_id, count, threads, syncing):
        """The threads `threads` arrive; returns, per block they are in, the
        generation whose completion a sync waits for."""
        interp, clocks = self.interp, self.interp.clocks
        blocks = threads // interp.per_block
        waits = {}
        for block in np.unique(blocks):
            rows = threads[blocks == block]
            key = (barrier_id, int(block))
            entry = self.open.setdefault(key, [0, count, [], None])
            if entry[1] != count:
                raise Stuck(f"barrier {barrier_id} is used with a count of {count} threads while "
                            f"{entry[0]} of another with a count of {entry[1]} have arrived")
            entry[0] += len(rows)
            if clocks is not None:
                known = clocks.known[rows].max(axis=0)
                entry[3] = known if entry[3] is None else np.maximum(entry[3], known)
                clocks.known[rows, clocks.column(rows)] += 1
            if syncing:
                entry[2].append(rows)
            waits[key] = self.generation.get(key, 0) + 1
            if entry[0] > count:
                raise Stuck(f"barrier {barrier_id}: {entry[0]} threads arrived at a barrier of {count}")
            if entry[0] == count:
                self._complete(key, entry)
        return waits

    def _complete(self, key, entry):
        clocks = self.interp.clocks
        if clocks is not None and entry[2]:
            rows = np.concatenate(entry[2])
            clocks.known[rows] = np.maximum(clocks.known[rows], entry[3])
        # A barrier of the whole block that every thread synced on orders
        # the block's accesses before it before those after it. Threads
        # that only arrived (bar.arrive) go on unordered with the syncing
        # threads: the clocks alone order what they released.
        if entry[1] == self.interp.per_block and sum(len(rows) for rows in entry[2]) == entry[1]:
            self.interp.epoch[key[1]] += 1
        del self.open[key]
        self.generation[key] = self.generation.get(key, 0) + 1
        self.interp.streams.advance()

    def passed(self, waits):
        return all(self.generation.get(key, 0) >= generation for key, generation in waits.items())
