"""The sum of 2^28 float32 values, written with the tile_mlir script front
end: a grid of blocks of 256 threads, each thread accumulating 16-byte
vectors over a grid-stride loop, a block reduction through warp shuffles
and shared memory, and one atom.global.add.f32 per block.

The order of operations, which reference/reduce_sum.py states in numpy:

1. in iteration i, thread t of block b loads the eight 16-byte chunks
   ((8 i + u) * grid + b) * 256 + t, u in 0..7 (coalesced across the
   block), and adds each component into its own accumulator acc[u][j]
   (32 chains of add.rn.f32 from +0, so 8 loads are in flight);
2. the thread's sum is acc[u][j] in order (u, j), from the first;
3. five butterfly steps; lane 0 of warp w stores its sum in shared memory;
   after bar.sync thread 0 adds the eight in order: the block's partial
   sum, which it stores (Partials[b]) and adds to Total with one atomic.
"""


from .. import script as T
from .configs import SumConfig
from ..pipelining.reductions import butterfly
from .reference.reduce_sum import THREADS, UNROLL, WARPS


def reduce_sum(n: int, config: SumConfig = SumConfig()):
    """The kernel for n float32 values: a T.function of (X, Partials,
    Total); Total (zero at launch) receives the sum."""
    blocks = config.blocks
    per_iteration = UNROLL * blocks * THREADS * 4
    if n % per_iteration:
        raise ValueError(f"{n} values do not split into iterations of {per_iteration}")
    iterations = n // per_iteration

    @T.function
    def sum_f32(X: T.Tensor((n,), "float32"), Partials: T.Tensor((blocks, 1), "float32"),
                Total: T.Tensor((1, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=THREADS))
        warp_sums = T.alloc_shared((WARPS, 1), "float32")
        t, b = T.thread_id(), T.block_id()
        chunks = X.reshape((iterations, UNROLL, blocks, THREADS, 4))
        acc = T.alloc_local((UNROLL, 4), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((UNROLL * 4, 1)).view("uint32"), T.uint32(0))
        loaded = T.alloc_local((UNROLL, 4), "float32")
        for i in T.serial(0, iterations):
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], loaded, chunks[i, :, b, t])
            T.cuda.tile.apply(T.ptx["add.rn.f32"], acc.reshape((UNROLL * 4, 1)),
                              acc.reshape((UNROLL * 4, 1)), loaded.reshape((UNROLL * 4, 1)))
        flat = acc.reshape((UNROLL * 4, 1))
        total = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), flat[0:1].view("uint32"))
        for k in range(1, UNROLL * 4):
            T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, flat[k:k + 1])
        butterfly(total, "add.rn.f32", T.alloc_local((1, 1), "float32"))
        warp, lane = t // 32, t % 32
        T.cuda.tile.apply(T.ptx["st.shared.f32"], warp_sums[warp:warp + 1], total, pred=lane == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t < 1):
            every = T.alloc_local((2, 4), "float32")
            T.cuda.tile.apply(T.ptx["ld.shared.v4.f32"], every, warp_sums.reshape((2, 4)))
            sums = every.reshape((WARPS, 1))
            T.cuda.tile.apply(T.ptx["mov.b32"], total.view("uint32"), sums[0:1].view("uint32"))
            for w in range(1, WARPS):
                T.cuda.tile.apply(T.ptx["add.rn.f32"], total, total, sums[w:w + 1])
            T.cuda.tile.apply(T.ptx["st.global.f32"], Partials[b:b + 1], total)
            T.cuda.tile.apply(T.ptx["red.global.add.f32"], Total, total)

    return sum_f32
