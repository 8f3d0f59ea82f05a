#!/usr/bin/env python3
"""Thread block clusters on the H200 against the interpreter (issue #28).

`exchange` runs 8 blocks of 32 threads in clusters of 2 along x: each
thread publishes its value of A to column 4 of Out, the cluster's threads
meet at barrier.cluster.arrive/wait, and each thread then reads its
partner block's value (the other block of its cluster) into column 0, and
its cluster's coordinates (%cluster_ctarank, %cluster_ctaid.x,
%clusterid.x) into columns 1 to 3 and %clusterid.y into column 5. Without the barrier
(`barrier=False`) the read races with the partner's write, which the
interpreter reports.

`shared_ring` (distributed shared memory) runs 8 blocks of 32 threads in
clusters of 4: each thread stores its value of A into the shared tile of
the next block of its cluster (rank + 1, through tile.mapa and
st.shared::cluster), adds it into the tile of the block two ranks on
(red.shared::cluster.add), and after barrier.cluster reads its own tile
(ld.shared::cta) into column 0, the sums into column 1, and the previous
block's tile (ld.shared::cluster) into column 2. A last barrier.cluster
keeps every block's shared memory alive until the others are done with it.
Without the middle barrier (`barrier=False`) the reads race with the
stores; without the last one (`exit_barrier=False`) a block may exit while
another still reads its shared memory; the interpreter reports both.

    python tools/gpu/cluster_check.py build build/cluster
    python tools/gpu/cluster_check.py build_hazards build/cluster_hazards
    PYTHONPATH=python python tools/gpu/cluster_check.py run build/cluster report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python")]

import bit_cases  # noqa: E402

GRID, CLUSTER, THREADS = (4, 2), (2, 1), 32
ROWS = GRID[0] * GRID[1] * THREADS


def exchange(barrier=True, relaxed=False):
    from tile_mlir import script as T

    @T.function
    def cluster_exchange(A: T.Tensor((ROWS, 1), "uint32"), Out: T.Tensor((ROWS, 6), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=GRID, block=THREADS, cluster=CLUSTER))
        t = T.thread_id()
        block = T.block_id("x") + T.block_id("y") * GRID[0]
        row = block * THREADS + t
        value = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], value, A[row:row + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 4:5], value)
        if barrier:
            arrive = "barrier.cluster.arrive.relaxed.aligned" if relaxed else "barrier.cluster.arrive.aligned"
            T.cuda.tile.apply(T.ptx[arrive])
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        partner = (block ^ 1) * THREADS + t
        T.cuda.tile.apply(T.ptx["ld.global.b32"], value, Out[partner:partner + 1, 4:5])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 0:1], value)
        for column, register in ((1, T.cluster_ctarank()), (2, T.cluster_block_id("x")),
                                 (3, T.cluster_id("x")), (5, T.cluster_id("y"))):
            T.cuda.tile.apply(T.ptx["mov.b32"], value, T.uint32(register))
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, column:column + 1], value)

    return cluster_exchange


RING_CLUSTER = 4


def shared_ring(barrier=True, exit_barrier=True):
    from tile_mlir import script as T

    blocks = GRID[0] * GRID[1]

    @T.function
    def cluster_shared_ring(A: T.Tensor((ROWS, 1), "uint32"), Out: T.Tensor((ROWS, 3), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=THREADS, cluster=RING_CLUSTER))
        t = T.thread_id()
        row = T.block_id() * THREADS + t
        stored = T.alloc_shared((THREADS, 1), "uint32")
        sums = T.alloc_shared((THREADS, 1), "uint32")
        value = T.alloc_local((1, 1), "uint32")
        zero = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], zero, T.uint32(0))
        T.cuda.tile.apply(T.ptx["st.shared.b32"], sums[t:t + 1], zero)
        # The zeros are in place in every block before any block adds.
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["ld.global.b32"], value, A[row:row + 1])
        rank = T.cluster_ctarank()
        T.cuda.tile.apply(T.ptx["st.shared::cluster.b32"],
                          stored.of_block((rank + 1) % RING_CLUSTER)[t:t + 1], value)
        T.cuda.tile.apply(T.ptx["red.relaxed.cluster.shared::cluster.add.u32"],
                          sums.of_block((rank + 2) % RING_CLUSTER)[t:t + 1], value)
        if barrier:
            T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["ld.shared::cta.b32"], value, stored[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 0:1], value)
        T.cuda.tile.apply(T.ptx["ld.shared::cluster.b32"], value, sums[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 1:2], value)
        T.cuda.tile.apply(T.ptx["ld.shared::cluster.b32"], value,
                          stored.of_block((rank + RING_CLUSTER - 1) % RING_CLUSTER)[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 2:3], value)
        if exit_barrier:
            T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    return cluster_shared_ring


def ring_expected(a):
    """Out of `shared_ring` on A, from the ISA: a block's tile holds the
    values of rank - 1, its sums those of rank - 2 (one adder each), and
    the previous block's tile those of rank - 2."""
    out = np.zeros((ROWS, 3), np.uint32)
    values = a[:, 0].reshape(-1, THREADS)
    for block in range(values.shape[0]):
        base, rank = block - block % RING_CLUSTER, block % RING_CLUSTER
        rows = slice(block * THREADS, (block + 1) * THREADS)
        out[rows, 0] = values[base + (rank - 1) % RING_CLUSTER]
        out[rows, 1] = values[base + (rank - 2) % RING_CLUSTER]
        out[rows, 2] = values[base + (rank - 2) % RING_CLUSTER]
    return out


def expected(a):
    """Out of `exchange` on A, written from the definitions of the
    registers (PTX ISA 10: a cluster's blocks are ranked x-fastest)."""
    out = np.zeros((ROWS, 6), np.uint32)
    for block in range(GRID[0] * GRID[1]):
        bx, by = block % GRID[0], block // GRID[0]
        rows = slice(block * THREADS, (block + 1) * THREADS)
        partner = block ^ 1
        out[rows, 0] = a[partner * THREADS:(partner + 1) * THREADS, 0]
        out[rows, 1] = bx % CLUSTER[0] + CLUSTER[0] * (by % CLUSTER[1])
        out[rows, 2] = bx % CLUSTER[0]
        out[rows, 3] = bx // CLUSTER[0]
        out[rows, 4] = a[rows, 0]
        out[rows, 5] = by // CLUSTER[1]
    return out


def data():
    return np.random.default_rng(4).integers(0, 1 << 32, (ROWS, 1), dtype=np.uint32)


# The kernels, each with its factory and the columns of its output.
KERNELS = {"exchange": (exchange, 6), "shared_ring": (shared_ring, 3)}

# Kernels the interpreter reports a race in: a .relaxed arrival orders no
# memory, and no barrier orders none; a block that exits while another
# reads its shared memory. On the GPU each runs beside the correct
# kernel's output (a race may or may not show in one run).
HAZARDS = [("exchange_relaxed", "exchange", {"relaxed": True}),
           ("exchange_no_barrier", "exchange", {"barrier": False}),
           ("shared_ring_no_barrier", "shared_ring", {"barrier": False}),
           ("shared_ring_no_exit_barrier", "shared_ring", {"exit_barrier": False})]


def build(out_dir, hazards=False):
    """The kernels (or, with `hazards`, the HAZARDS kernels), each with the
    correct kernel's output from the interpreter as the expected one."""
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    a, correct = data(), {}
    for kernel, (factory, columns) in KERNELS.items():
        correct[kernel] = np.zeros((ROWS, columns), np.uint32)
        tile_mlir.interpret(factory(), a, correct[kernel])
    index = []
    for name, kernel, options in HAZARDS if hazards else [(k, k, {}) for k in KERNELS]:
        factory = KERNELS[kernel][0]
        tile_mlir.compile(factory(**options), target="sm_90").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, [a, correct[kernel]]))
    bit_cases.write_index(out_dir, index, "cluster")


def main(argv):
    return bit_cases.main(argv, __doc__, "cluster", {"build": build,
                                                     "build_hazards": lambda out_dir: build(out_dir, hazards=True)})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
