#!/usr/bin/env python3
"""cp.async.bulk (not a tensor's) on the H200 against the interpreter
(issue #28).

`bulk_copy` runs 4 blocks of 32 threads in clusters of 2: thread 0 of each
block loads its 256 bytes of A into a shared buffer by cp.async.bulk
(complete_tx on an mbarrier), and with `multicast` block rank 0 also loads
a second 256 bytes into both blocks' second buffer (.multicast::cluster,
ctaMask 0b11), each block expecting the bytes that arrive in it. Every
thread waits for the phase, adds its rank to its 8 bytes of the first
buffer (two u32 words), and thread 0 stores both buffers back to Out by
cp.async.bulk.global.shared::cta.bulk_group, then waits for the group.
`early=True` reads the first buffer before the wait (the interpreter
reports an AsyncHazard).

`tma_reduce(op, dtype)` (cp.reduce.async.bulk.tensor): 4 blocks each fill
a 32 x 32 shared box from their rows of A and reduce it into the same box
of Out by TMA (`op`: add or xor on uint32, add on float32 with integer
values, exact in any order, and on subnormal data); Out starts as the
kernel's input.

`peer_copy`: each block of a cluster of 2 copies its shared buffer into
the other's by cp.async.bulk.shared::cluster.shared::cta, completing the
other's mbarrier (tile.mapa).

    python tools/gpu/bulk_check.py build build/bulk
    PYTHONPATH=python python tools/gpu/bulk_check.py run build/bulk report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python")]

import bit_cases  # noqa: E402

BLOCKS, THREADS, WORDS = 4, 32, 64  # 64 u32 words: 256 bytes a buffer
LOAD = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
STORE = "cp.async.bulk.global.shared::cta.bulk_group"


def bulk_copy(multicast=True, early=False):
    from tile_mlir import script as T

    @T.function
    def bulk(A: T.Tensor((BLOCKS * 2 * WORDS,), "uint32"), Out: T.Tensor((BLOCKS * 2 * WORDS,), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=THREADS, cluster=2))
        t, b, rank = T.thread_id(), T.block_id(), T.cluster_ctarank()
        first = T.alloc_shared((WORDS,), "uint32", align=16)
        second = T.alloc_shared((WORDS,), "uint32", align=16)
        bar = T.alloc_shared((1,), "uint64", align=8)
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        words = T.alloc_local((1, 2), "uint32")
        base = b * 2 * WORDS
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        with T.if_(t == 0):
            expected = 2 * 4 * WORDS if multicast else 4 * WORDS
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, bar, T.uint32(expected))
            T.cuda.tile.apply(T.ptx[LOAD], first, A[base:base + WORDS], T.uint32(4 * WORDS), bar)
        if multicast:
            # Rank 0 of each cluster: the cluster's second 256 bytes (of
            # its first block) into both blocks.
            with T.if_((t == 0) & (rank == 0)):
                T.cuda.tile.apply(T.ptx[LOAD + ".multicast::cluster"], second,
                                  A[base + WORDS:base + 2 * WORDS], T.uint32(4 * WORDS), bar, T.uint16(0b11))
        if early:
            T.cuda.tile.apply(T.ptx["ld.shared.v2.b32"], words, first[2 * t:2 * t + 2].reshape((1, 2)))
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.v2.b32"], words, first[2 * t:2 * t + 2].reshape((1, 2)))
        T.cuda.tile.apply(T.ptx["add.u32"], words.reshape((2, 1)), words.reshape((2, 1)), T.uint32(rank))
        T.cuda.tile.apply(T.ptx["st.shared.v2.b32"], first[2 * t:2 * t + 2].reshape((1, 2)), words)
        # The writes of the generic proxy, visible to the bulk copy's.
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[STORE], Out[base:base + WORDS], first, T.uint32(4 * WORDS))
            if multicast:
                T.cuda.tile.apply(T.ptx[STORE], Out[base + WORDS:base + 2 * WORDS], second, T.uint32(4 * WORDS))
            T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))
        # No block leaves while its peer's multicast may still land in it.
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    return bulk


def peer_copy():
    """Each block of a cluster of 2 writes its 256 bytes of A into a shared
    buffer and copies it into the other block's by
    cp.async.bulk.shared::cluster.shared::cta, completing that block's
    mbarrier (both through tile.mapa); each block waits for its own
    mbarrier and stores what arrived to its rows of Out."""
    from tile_mlir import script as T

    @T.function
    def peer(A: T.Tensor((BLOCKS * WORDS,), "uint32"), Out: T.Tensor((BLOCKS * WORDS,), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=THREADS, cluster=2))
        t, b, rank = T.thread_id(), T.block_id(), T.cluster_ctarank()
        src = T.alloc_shared((WORDS,), "uint32", align=16)
        dst = T.alloc_shared((WORDS,), "uint32", align=16)
        bar = T.alloc_shared((1,), "uint64", align=8)
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        words = T.alloc_local((1, 2), "uint32")
        base = b * WORDS
        T.cuda.tile.apply(T.ptx["ld.global.v2.b32"], words, A[base + 2 * t:base + 2 * t + 2].reshape((1, 2)))
        T.cuda.tile.apply(T.ptx["st.shared.v2.b32"], src[2 * t:2 * t + 2].reshape((1, 2)), words)
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        # The generic proxy's writes of src, visible to the bulk copy's.
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, bar, T.uint32(4 * WORDS))
            other = rank ^ 1
            T.cuda.tile.apply(T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"],
                              dst.of_block(other), src, T.uint32(4 * WORDS), bar.of_block(other))
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.v2.b32"], words, dst[2 * t:2 * t + 2].reshape((1, 2)))
        T.cuda.tile.apply(T.ptx["st.global.v2.b32"], Out[base + 2 * t:base + 2 * t + 2].reshape((1, 2)), words)
        # No block leaves while its peer's copy may still read its source.
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    return peer


def peer_data():
    return np.random.default_rng(8).integers(0, 1 << 32, BLOCKS * WORDS, dtype=np.uint64).astype(np.uint32)


def peer_expected(a):
    """Each block's rows hold its cluster partner's rows of A."""
    rows = a.reshape(BLOCKS, WORDS)
    return rows[np.arange(BLOCKS) ^ 1].reshape(-1)


BOX = 32
# (op, dtype, subnormal data)
REDUCE = (("add", "uint32", False), ("xor", "uint32", False), ("add", "float32", False),
          ("add", "float32", True))


def tma_reduce(op, dtype):
    from tile_mlir import script as T
    words = BOX * BOX // THREADS
    kind = "f32" if dtype == "float32" else "b32"

    @T.function
    def reduce(A: T.Tensor((BLOCKS * BOX, BOX), dtype),
               Out: T.Tensor((BOX, BOX), dtype, tma=T.TensorMap((BOX, BOX), "none"))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=THREADS))
        t, b = T.thread_id(), T.block_id()
        box = T.alloc_shared((BOX, BOX), dtype, align=128)
        value = T.alloc_local((1, 1), dtype)
        for i in range(words):
            r, c = (i * THREADS + t) // BOX, (i * THREADS + t) % BOX
            T.cuda.tile.apply(T.ptx[f"ld.global.{kind}"], value, A[b * BOX + r:b * BOX + r + 1, c:c + 1])
            T.cuda.tile.apply(T.ptx[f"st.shared.{kind}"], box[r:r + 1, c:c + 1], value)
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[f"cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group"],
                              Out.tensor_map, (0, 0), box)
            T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))

    return reduce


def reduce_data(dtype, subnormal=False):
    """A and Out's start. With `subnormal` (float32): block 0's box and Out
    subnormal, blocks 1 and 2 +-1.5e-38 (sums exact in any order, below
    2^-125, subnormal at the end): whether the reduction flushes them."""
    rng = np.random.default_rng(7)
    if subnormal:
        tiny = np.float32(1e-40)
        a = np.zeros((BLOCKS * BOX, BOX), np.float32)
        a[:BOX] = rng.integers(1, 100, (BOX, BOX)) * tiny
        a[BOX:2 * BOX], a[2 * BOX:3 * BOX] = np.float32(1.5e-38), np.float32(-1.5e-38)
        return [a, (rng.integers(1, 100, (BOX, BOX)) * tiny).astype(np.float32)]
    if dtype == "float32":
        return [rng.integers(-1000, 1000, s).astype(np.float32) for s in ((BLOCKS * BOX, BOX), (BOX, BOX))]
    return [rng.integers(0, 1 << 32, s, dtype=np.uint64).astype(np.uint32) for s in ((BLOCKS * BOX, BOX), (BOX, BOX))]


def reduce_expected(op, a, out):
    """Out after every block's box reduced into it, from the ISA."""
    for block in a.reshape(BLOCKS, BOX, BOX):
        out = out ^ block if op == "xor" else out + block
    return out


def expected(a, multicast=True):
    """Out of `bulk_copy` on A, from the ISA: each block's first 256 bytes
    plus its rank, and its cluster's rank-0 block's second 256 bytes."""
    a = a.reshape(BLOCKS, 2, WORDS)
    out = np.zeros_like(a)
    for block in range(BLOCKS):
        out[block, 0] = a[block, 0] + np.uint32(block % 2)
        if multicast:
            out[block, 1] = a[block - block % 2, 1]
    return out.reshape(-1)


def data():
    return np.random.default_rng(6).integers(0, 1 << 32, BLOCKS * 2 * WORDS, dtype=np.uint64).astype(np.uint32)


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    a, index = data(), []
    for name, multicast in (("bulk", False), ("bulk_multicast", True)):
        out = np.zeros_like(a)
        tile_mlir.interpret(bulk_copy(multicast), a, out)
        tile_mlir.compile(bulk_copy(multicast), target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, [a, out]))
    a = peer_data()
    out = np.zeros_like(a)
    tile_mlir.interpret(peer_copy(), a, out)
    tile_mlir.compile(peer_copy(), target="sm_90a").save(os.path.join(out_dir, "peer_copy.json"))
    index.append(bit_cases.entry("peer_copy", [a, out]))
    for op, dtype, subnormal in REDUCE:
        a, out = reduce_data(dtype, subnormal)
        tile_mlir.interpret(tma_reduce(op, dtype), a, out)
        name = f"reduce_{op}_{dtype}" + ("_subnormal" if subnormal else "")
        tile_mlir.compile(tma_reduce(op, dtype), target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, [a, out], initial=reduce_data(dtype, subnormal)[1]))
    bit_cases.write_index(out_dir, index, "bulk copy")


def main(argv):
    return bit_cases.main(argv, __doc__, "bulk copy", {"build": build})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
