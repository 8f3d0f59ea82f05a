"""A split-K GEMM in one launch: the block whose slice of a tile arrives
last sums the tile's partials and stores C (gemm_hopper with `finish`).

Every slice's consumer stores its float32 partial into the workspace W
(split, M, N) as the two-kernel plan does. Then, per consumer warpgroup
(64 rows of the tile):

- the warpgroup's barrier: all 128 threads' partials are stored;
- one thread adds 1 to the tile's counter with atom.acq_rel.gpu (the
  release publishes the stores the barrier ordered before it; the acquire
  sees every earlier slice's), and hands the old value to the others
  through shared memory and the barrier again;
- the warpgroup that saw split - 1 is the last: it sets the counter back
  to 0 for the next launch, then sums W[0] + W[1] + ... (add.rn.f32, in
  slice order, whichever block came last: the same bits as
  gemm_reduce.split_k_reduce), applies the scales in that kernel's order
  and rounds once into C.

The counters (tiles x consumers, uint32) are zero before the launch and
after it. `transposed`: the GEMM computed C^T (swap-AB), so its rows are
C's columns and each pair of accumulators lands in two rows of C.
"""

from .. import script as T
from ..pipelining import WgmmaAccumulator
from ..pipelining.arrivals import last_arrival
from .configs import SplitKFinish  # noqa: F401 (the kernels' names for it)



class TileFinisher:
    """Consumer `c`'s arrival at a tile's counter, and the last one's sum.
    `scale` is the product of the tensor scales in a register, or the
    rowwise scales' tensors (ScaleA, ScaleB)."""

    def __init__(self, g, how: SplitKFinish, arrays, slot, barriers, c, scale=None):
        self.g, self.how, self.c, self.scale = g, how, c, scale
        self.W, self.C, self.counters = arrays
        self.slot, self.barriers = slot, barriers
        self.places = WgmmaAccumulator(g.config.bn)

    def arrive(self, tile, warp, lane, p):
        """After this warpgroup's partial of `tile` is stored: count it;
        the last to arrive finishes the tile (pipelining.last_arrival)."""
        g, c = self.g, self.c
        counter = self.counters[tile * g.config.consumers + c:tile * g.config.consumers + c + 1]
        with last_arrival(counter, self.slot, self.barriers, c, p, g.split):
            self._finish(tile, warp, lane)

    def _finish(self, tile, warp, lane):
        """The tile's partials summed in slice order, scaled, rounded and
        stored: each thread its own accumulators' places."""
        g = self.g
        acc, part = T.alloc_local((1, 1, g.regs), "float32"), T.alloc_local((1, 1, g.regs), "float32")
        row0, col0 = g.order.origin(tile)
        live = g.live_regs  # the registers whose columns may be inside C
        places = [self.places.place(2 * i, warp, lane, row0 + 64 * self.c, col0) for i in range(live // 2)]
        for s in range(g.split):
            into = acc if s == 0 else part
            for i, (row, col) in enumerate(places):
                # Places past C's edges read an element inside W (their sums are not stored).
                row, col = T.minimum(row, g.rows - 1), T.minimum(col, -(-g.cols // 8) * 8 - 2)
                T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], into[0, 0:1, 2 * i:2 * i + 2], self.W[s, row:row + 1,
                                                                                                  col:col + 2])
            if s:
                into, summed = acc[0, 0:1, 0:live].reshape((live, 1)), part[0, 0:1, 0:live].reshape((live, 1))
                T.cuda.tile.apply(T.ptx["add.rn.f32"], into, into, summed)
        if self.how.scales == "tensor":
            flat = acc[0, 0:1, 0:live].reshape((live, 1))
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], flat, flat, self.scale.broadcast((live, 1)))
        for i, (row, col) in enumerate(places):
            pair = acc[0, 0:1, 2 * i:2 * i + 2]
            if self.how.transposed:
                self._store_column_pair(pair, row, col)
            else:
                self._store_row_pair(pair, row, col)

    def _row_scales(self, pair, rows, cols):
        """Rowwise: each element times its C row's scale, then its C
        column's (torch._scaled_mm's order: two roundings); `rows` and
        `cols` the pair's two elements' (clamped inside the scales)."""
        scale_a, scale_b = self.scale
        factor = T.alloc_local((1, 2), "float32")
        for scales, places in ((scale_a, [(r, 0) for r in rows]), (scale_b, [(0, c) for c in cols])):
            for e, (r, c) in enumerate(places):
                T.cuda.tile.apply(T.ptx["ld.global.f32"], factor[0:1, e:e + 1], scales[r:r + 1, c:c + 1])
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], pair.reshape((2, 1)), pair.reshape((2, 1)), factor.reshape((2, 1)))

    def _store_row_pair(self, pair, row, col):
        """C[row, col:col + 2] (C is the GEMM's m x n)."""
        g, kind = self.g, self.how.kind
        inside = (row < g.rows) & (col < g.cols)
        if self.how.scales == "row":
            row_c = T.minimum(row, g.rows - 1)
            self._row_scales(pair, (row_c, row_c), [T.minimum(col + e, g.cols - 1) for e in range(2)])
        if kind is None:
            T.cuda.tile.apply(T.ptx["st.global.v2.f32"], self.C[row:row + 1, col:col + 2], pair, pred=inside)
            return
        packed = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx[f"cvt.rn.{kind}x2.f32"], packed, pair[0:1, 1:2], pair[0:1, 0:1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], self.C[row:row + 1, col:col + 2].view("uint32"), packed,
                          pred=inside)

    def _store_column_pair(self, pair, row, col):
        """C[col, row] and C[col + 1, row] (C is the GEMM's transpose, n x m)."""
        g, kind = self.g, self.how.kind
        if self.how.scales == "row":
            row_c = T.minimum(row, g.rows - 1)
            self._row_scales(pair, [T.minimum(col + e, g.cols - 1) for e in range(2)], (row_c, row_c))
        rounded = pair if kind is None else T.alloc_local((1, 2), "uint16")
        if kind is not None:
            for e in range(2):
                T.cuda.tile.apply(T.ptx[f"cvt.rn.{kind}.f32"], rounded[0:1, e:e + 1], pair[0:1, e:e + 1])
        store = T.ptx["st.global.f32" if kind is None else "st.global.b16"]
        for e in range(2):
            T.cuda.tile.apply(store, self.C[col + e:col + e + 1, row:row + 1], rounded[0:1, e:e + 1],
                              pred=(row < g.rows) & (col + e < g.cols))
