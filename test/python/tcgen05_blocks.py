"""The block-wide steps the tcgen05 tests' kernels (test_tcgen05_mma.py,
test_tcgen05_copy.py) share: 128 threads, tensor memory allocated by warp
0 and handed over, an mbarrier for the commit; at the end D's words
loaded by each warp from its lane quadrant, stored, and the columns
freed."""

from tile_mlir import script as T


def allocated(t, columns):
    """Warp 0 allocates `columns`, thread 0 initializes an mbarrier of one
    arrival, and the columns are handed over (the fences around the
    barrier): (their address (lane 0), the mbarrier)."""
    slot = T.alloc_shared((1,), "uint32", align=16)
    bar = T.alloc_shared((1,), "uint64", align=8)
    with T.if_(t < 32):
        T.cuda.tile.apply(T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"], slot, T.uint32(columns))
    T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
    T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
    handed_over()
    base = T.alloc_local((1,), "uint32")
    T.cuda.tile.apply(T.ptx["ld.shared.b32"], base, slot)
    return base, bar


def handed_over():
    """tcgen05.fence::before_thread_sync, the block's barrier, then
    tcgen05.fence::after_thread_sync."""
    T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])


def wait_for(bar):
    """Every thread waits for the mbarrier's phase 0."""
    done = T.alloc_local((1,), "bool")
    with T.until(done):
        T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))


def unloaded(t, at, out, words, base, columns, fence=True):
    """Each warp loads `words` columns of its lanes at `at` (32x32b) into
    its threads' rows of `out` (after a tcgen05.fence::after_thread_sync,
    unless not `fence`); then the columns are freed."""
    if fence:
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
    d = T.alloc_local((words,), "uint32")
    T.cuda.tile.apply(T.ptx[f"tcgen05.ld.sync.aligned.32x32b.x{words}.b32"], d, at)
    T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
    T.cuda.tile.apply(T.ptx["st.global.b32"], out[t, :].reshape((words, 1)), d.reshape((words, 1)))
    handed_over()
    with T.if_(t < 32):
        T.cuda.tile.apply(T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], base, T.uint32(columns))
