"""The last of several blocks to arrive goes on: a warpgroup's arrival at
a counter in global memory, and the branch only the last arrival takes
(one-launch split-K's and split-KV's merges, kernels/split_k_finish.py and
kernels/attention_combine.py):

    with last_arrival(counter, slot, barriers, c, p, arrivals=split):
        ...                                # every other arrival's stores are seen

- the warpgroup's barrier: its 128 threads' stores are done;
- one thread adds 1 with atom.acq_rel.gpu (the release publishes the
  stores the barrier ordered before it; the acquire sees every earlier
  arrival's: each earlier arrival heads a release sequence the later
  additions continue) and hands the old value to the others through
  shared memory and the barrier again;
- the warpgroup that saw arrivals - 1 is the last: it sets the counter
  back to 0 for the next launch, then runs the body.

A count of `arrivals` or more means the counter was not zero at launch:
the interpreter reports it (as_index's check)."""

import contextlib

from .. import script as T

ARRIVE = "atom.acq_rel.gpu.global.add.u32"


@contextlib.contextmanager
def last_arrival(counter, slot, barriers, c, p, arrivals):
    """Consumer `c`'s warpgroup (its thread p, `barriers` its own named
    barrier) arrives at `counter` (a (1, 1) uint32 view); `slot` ((c + 1,
    1) uint32 shared) hands the count round. The body runs in the last of
    `arrivals` arrivals only."""
    seen = T.alloc_local((1, 1), "uint32")
    barriers.sync(c)
    with T.if_(p == 0):
        T.cuda.tile.apply(T.ptx[ARRIVE], seen, counter, T.uint32(1))
        T.cuda.tile.apply(T.ptx["st.shared.b32"], slot[c:c + 1], seen)
    barriers.sync(c)
    T.cuda.tile.apply(T.ptx["ld.shared.b32"], seen, slot[c:c + 1])
    with T.if_(seen.as_index(arrivals, "check").eq(arrivals - 1)):
        with T.if_(p == 0):
            T.cuda.tile.apply(T.ptx["st.relaxed.gpu.global.b32"], counter, T.uint32(0))
        yield
