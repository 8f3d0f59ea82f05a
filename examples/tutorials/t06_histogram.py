"""Tutorial 6: a 256-bin histogram of bytes, an address from data.

The one new idea: a value loaded from memory becomes an address.
`tile.as_index(bound)` reads a one-element register tile as an index into
an axis of `bound` elements, never a wild one: the index is clamped into
the axis, and with mode "check" (the default) the interpreter stops at
that line, naming the thread and the value, where a value is out of range
("predicate" instead returns a condition the access takes as `pred=`).
Each block counts its values into a histogram in shared memory
(`red.shared.add.u32` at the value's bin), then adds it to the global one.
Without addresses from data each thread had to visit all 256 bins.
"""

import numpy as np

import tile_mlir
from tile_mlir import script as T

N, BINS, BLOCK = 4096, 256, 256


@T.function
def histogram(X: T.Tensor((N, 1), "uint32"), Hist: T.Tensor((BINS, 1), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=N // BLOCK, block=BLOCK))
    t = T.thread_id()
    bins = T.alloc_shared((BINS, 1), "uint32")
    T.cuda.tile.apply(T.ptx["st.shared.b32"], bins[t:t + 1], T.uint32(0))   # one bin a thread
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    value = T.alloc_local((1, 1), "uint32")
    i = T.block_id() * BLOCK + t
    T.cuda.tile.apply(T.ptx["ld.global.b32"], value, X[i:i + 1])
    b = value.as_index(BINS)                                   # the value, as an address
    T.cuda.tile.apply(T.ptx["red.shared.add.u32"], bins[b:b + 1], T.uint32(1))
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    count = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.shared.b32"], count, bins[t:t + 1])
    T.cuda.tile.apply(T.ptx["red.global.add.u32"], Hist[t:t + 1], count)


def main(values=None):
    x = np.random.default_rng(4).integers(0, BINS, (N, 1)).astype(np.uint32) if values is None else values
    hist = np.zeros((BINS, 1), np.uint32)
    tile_mlir.interpret(histogram, x, hist)
    assert np.array_equal(hist[:, 0], np.bincount(x[:, 0], minlength=BINS))
    return hist


if __name__ == "__main__":
    main()
    print(tile_mlir.compile(histogram, target="sm_90", cubin=False).ptx)
