"""Release and acquire through memory, for the race check.

A block barrier and an mbarrier phase order accesses (clocks.py). Threads
may also synchronize through a location (PTX ISA 9.0, 8: the memory
consistency model): a release write (st.release, red/atom .release or
.acq_rel), or a strong write after a release fence (fence.acq_rel, .sc,
.release, membar) in the same thread, synchronizes with an acquire read of
the value (ld.acquire, atom .acquire or .acq_rel), or with a strong read
followed by an acquire fence in the reading thread. Every access of the
releasing thread before the release, and every access it had learned of
(through a barrier, an mbarrier or an earlier acquire), is then ordered
before every access of the acquiring thread after the acquire. This is how
blocks hand each other data: a stream-K partial tile, the last block of a
reduction.

What counts, as the model says:
- Strong operations (relaxed, acquire, release, volatile, atomics) are
  morally strong with each other when each one's scope includes the other
  thread: .cta the block, .cluster the cluster, .gpu and .sys every thread.
  Those pairs never race; a weak access (ld, st without a qualifier) races
  with any unordered access of another thread.
- A release heads a release sequence: the read-modify-writes of the
  location after it continue it, so an acquire that reads the result of a
  later atomic still synchronizes with the release. A plain or relaxed
  store that releases nothing ends it.
- Synchronization needs morally strong operations: a .cta release does not
  reach a thread of another block.

The interpreter takes one order of the threads; what a read observes is the
location's last write, and that write's release (the join of its release
sequence) is what the read acquires. Where the clocks do not span the
releasing thread (a launch too large for clocks over all its threads),
nothing is acquired from it, and its accesses stay unordered: the check
errs towards reporting.
"""

import functools

import numpy as np

# Strength of an access: weak, or strong at a scope (the threads it is
# morally strong with).
WEAK, CTA, CLUSTER, GPU, SYS = 0, 1, 2, 3, 4
SCOPES = {"cta": CTA, "cluster": CLUSTER, "gpu": GPU, "sys": SYS}
# What membar's levels are as fences (PTX ISA 9.7.13.4: membar is fence.sc).
MEMBAR_LEVELS = {"cta": CTA, "gl": GPU, "sys": SYS}


class Order:
    """The memory semantics of one instruction: its strength, whether it
    acquires or releases, and for a fence its scope."""

    __slots__ = ("strength", "acquire", "release", "fence")

    def __init__(self, strength=WEAK, acquire=False, release=False, fence=False):
        self.strength, self.acquire, self.release, self.fence = strength, acquire, release, fence

    def __bool__(self):
        return self.strength != WEAK


WEAK_ORDER = Order()


@functools.lru_cache(maxsize=None)
def order_of(form):
    """The semantics of `form` from its qualifiers and the ISA's defaults:
    atom and red are .relaxed.gpu unless written otherwise; .volatile is
    .relaxed.sys; a fence without semantics is .acq_rel; proxy fences and
    fence.mbarrier_init order no generic accesses between threads."""
    tokens = form.opcode.split(".")
    scope = next((SCOPES[t] for t in tokens if t in SCOPES), None)
    if form.family == "membar":
        if "proxy" in tokens:
            return WEAK_ORDER
        level = next(MEMBAR_LEVELS[t] for t in tokens if t in MEMBAR_LEVELS)
        return Order(level, acquire=True, release=True, fence=True)
    if form.family == "fence":
        if "proxy" in tokens or "mbarrier_init" in tokens:
            return WEAK_ORDER
        acquire = not ("release" in tokens)
        release = not ("acquire" in tokens)
        return Order(scope, acquire=acquire, release=release, fence=True)
    if form.family in ("atom", "red"):
        return Order(scope or GPU, acquire="acquire" in tokens or "acq_rel" in tokens,
                     release="release" in tokens or "acq_rel" in tokens)
    if form.family in ("ld", "st"):
        if "volatile" in tokens:
            return Order(SYS)
        if {"relaxed", "acquire", "release"} & set(tokens):
            return Order(scope, acquire="acquire" in tokens, release="release" in tokens)
    return WEAK_ORDER


def synchronizes(form):
    """Whether `form` may order other threads' accesses through memory."""
    order = order_of(form)
    return order.fence or order.acquire or order.release or (order and form.family in ("ld", "st"))


class Synchronization:
    """Releases kept at locations, and what each thread's fences release
    and acquire, over `interp`'s clocks."""

    def __init__(self, interp):
        self.interp = interp
        # Released knowledge by id (0: nothing), with the releasing thread
        # and the release's strength.
        self.released = [None]
        self.releaser = [-1]
        self.strength = [WEAK]
        # Per thread: what its last release fence released (an id), and the
        # knowledge its strong reads since its last acquire fence observed.
        self.fenced = np.zeros(interp.threads, np.int64)
        self.observed = {}

    # -- releases --------------------------------------------------------
    def _new(self, snapshot, thread, strength):
        self.released.append(snapshot)
        self.releaser.append(int(thread))
        self.strength.append(int(strength))
        return len(self.released) - 1

    def _joined(self, old, new, thread, strength):
        """A release `new` continuing the sequence whose join is `old`."""
        if old == 0 or not self.interp.clocks.same_span(thread, self.releaser[old]):
            return new
        return self._new(np.maximum(self.released[old], self.released[new]), thread,
                         min(strength, self.strength[old]))

    def after_write(self, buffer, at, lanes, order, rmw):
        """The writes of bytes `at` by `lanes` (one instruction, each thread
        once) happened: the release each makes, or its end of a release
        sequence."""
        if buffer.release_id is None:
            if not (order.release or rmw or self.fenced[lanes].any()):
                return
            buffer.release_id = np.zeros(buffer.data.size, np.int64)
        clocks = self.interp.clocks
        ids = {}
        for thread in np.unique(lanes).tolist():
            fenced = int(self.fenced[thread])
            if order.release:
                ids[thread] = self._new(clocks.release(thread), thread, order.strength)
            elif order and fenced:
                # What the fence released, at the weaker of the two scopes.
                ids[thread] = fenced if self.strength[fenced] <= order.strength else \
                    self._new(self.released[fenced], thread, order.strength)
            else:
                ids[thread] = 0
        for byte, thread in zip(at.tolist(), lanes.tolist()):
            new, old = ids[thread], int(buffer.release_id[byte])
            if rmw and order:
                buffer.release_id[byte] = old if new == 0 else self._joined(old, new, thread, order.strength)
            else:
                buffer.release_id[byte] = new

    # -- acquires --------------------------------------------------------
    def after_read(self, buffer, at, lanes, order):
        """The reads of bytes `at` by `lanes` happened: an acquire read
        learns what the value's release sequence released; a strong one
        keeps it for its thread's next acquire fence."""
        if buffer.release_id is None or not order:
            return
        ids = buffer.release_id[at]
        some = ids != 0
        if not some.any():
            return
        lanes, ids = lanes[some], ids[some]
        releasers = np.array(self.releaser, np.int64)[ids]
        strengths = np.minimum(np.array(self.strength, np.int64)[ids], order.strength)
        reach = self.interp.clocks.same_span(lanes, releasers) & (strengths >= self.interp.scope_needed(lanes, releasers))
        clocks = self.interp.clocks
        pairs = set(zip(lanes[reach].tolist(), ids[reach].tolist(), strengths[reach].tolist()))
        for thread, release, strength in pairs:
            if order.acquire:
                clocks.acquire(thread, self.released[release])
            else:
                seen = self.observed.setdefault(thread, {})
                seen[release] = max(seen.get(release, WEAK), strength)

    # -- fences ----------------------------------------------------------
    def fence(self, lanes, order):
        """A fence of `lanes`: an acquire fence learns what their strong
        reads since observed; a release fence is what their next strong
        writes release."""
        clocks = self.interp.clocks
        for thread in lanes.tolist():
            if order.acquire and thread in self.observed:
                # The observed releases that the fence's scope reaches too.
                for release, strength in self.observed.pop(thread).items():
                    releaser = np.array([self.releaser[release]])
                    if min(strength, order.strength) >= self.interp.scope_needed(np.array([thread]), releaser)[0]:
                        clocks.acquire(thread, self.released[release])
            if order.release:
                self.fenced[thread] = self._new(clocks.release(thread), thread, order.strength)
