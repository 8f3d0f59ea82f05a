#!/usr/bin/env python3
"""TMA tensor copies on the H200 against the interpreter (issues #28, #31).

Each block of `tma_box` loads one box of A (rows x cols of uint16) by
cp.async.bulk.tensor into a shared buffer, placed by the tensor map's
swizzle, and waits on an mbarrier for its bytes. Its 32 threads then copy
the box to Out[0] through the tile.swizzle view of the buffer (which
undoes the swizzle when the compiler's model of it is the hardware's) and
to Out[1] as the buffer's raw bytes (the swizzle itself); thread 0 stores
the box back by TMA into plane 2 of Out (a 3-d tensor map), at a shift
that puts part of some boxes outside Out (those elements are not
written). Boxes past A's edges read zeros.

The interpreter's output is checked against numpy in test_tma.py (the
swizzle written from the PTX ISA's description of the modes, not from the
compiler); here each kernel's GPU output is compared bit for bit with it.

    python tools/gpu/tma_check.py build build/tma
    PYTHONPATH=python python tools/gpu/tma_check.py run build/tma report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python")]

import bit_cases  # noqa: E402

THREADS = 32
LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
STORE = "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group"

# (name, rows, cols, box, swizzle, store shift (rows, cols)): every swizzle
# mode, boxes past A's edges, stores partly outside Out.
CASES = [
    ("none_32x64", 100, 192, (32, 64), "none", (0, 0)),
    ("none_8x8_edges", 13, 40, (8, 8), "none", (-3, 5)),
    ("sw32_16x16", 40, 48, (16, 16), "32B", (0, -8)),
    ("sw64_32x32", 70, 96, (32, 32), "64B", (5, 0)),
    ("sw128_64x64", 100, 192, (64, 64), "128B", (-16, 16)),
    ("sw128_8x64_edges", 21, 72, (8, 64), "128B", (0, 0)),
]


def out_shape(rows, cols, box):
    grid = (-(-rows // box[0]), -(-cols // box[1]))
    return (3, grid[0] * box[0], grid[1] * box[1]), grid


def tma_box(rows, cols, box, swizzle, shift=(0, 0), expect=None, read_early=False):
    """The kernel described above. `expect`: the bytes thread 0 expects on
    the mbarrier (the box's, unless given); `read_early`: the threads copy
    the buffer before waiting."""
    from tile_mlir import script as T
    shape, (gy, gx) = out_shape(rows, cols, box)
    nbytes = box[0] * box[1] * 2
    expect = nbytes if expect is None else expect

    @T.function
    def tma_copy(A: T.Tensor((rows, cols), "uint16", tma=T.TensorMap(box, swizzle)),
                 Out: T.Tensor(shape, "uint16", tma=T.TensorMap((1,) + tuple(box), swizzle))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=(gx, gy), block=THREADS))
        buf = T.alloc_shared(box, "uint16", align=1024)
        tile = buf if swizzle == "none" else buf.swizzle(swizzle)
        bar = T.alloc_shared((1,), "uint64", align=8)
        t = T.thread_id()
        row0, col0 = T.block_id("y") * box[0], T.block_id("x") * box[1]
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        value = T.alloc_local((1, 1), "uint16")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, bar, T.uint32(expect))
            T.cuda.tile.apply(T.ptx[LOAD], tile, A.tensor_map, (col0, row0), bar)

        def copy_out():
            for r in range(box[0]):
                for c in range(box[1] // THREADS if box[1] >= THREADS else 1):
                    col = c * THREADS + t if box[1] >= THREADS else t
                    with T.if_(col < box[1]):
                        for plane, source in ((0, tile), (1, buf)):
                            T.cuda.tile.apply(T.ptx["ld.shared.b16"], value, source[r:r + 1, col:col + 1])
                            T.cuda.tile.apply(T.ptx["st.global.b16"],
                                              Out[plane, row0 + r:row0 + r + 1, col0 + col:col0 + col + 1],
                                              value)
        if read_early:
            copy_out()
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        if not read_early:
            copy_out()
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[STORE], Out.tensor_map, (col0 + shift[1], row0 + shift[0], 2),
                              tile.reshape((1,) + tuple(box)))
            T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))

    return tma_copy


def data(rows, cols, seed=0):
    return np.random.default_rng(seed).integers(0, 1 << 16, (rows, cols), dtype=np.uint16)


def interpreted(name, rows, cols, box, swizzle, shift):
    import tile_mlir
    kernel = tma_box(rows, cols, box, swizzle, shift)
    a = data(rows, cols)
    out = np.zeros(out_shape(rows, cols, box)[0], np.uint16)
    tile_mlir.interpret(kernel, a, out)
    return kernel, a, out


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    index = []
    for name, rows, cols, box, swizzle, shift in CASES:
        kernel, a, out = interpreted(name, rows, cols, box, swizzle, shift)
        tile_mlir.compile(kernel, target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, [a, out]))
    bit_cases.write_index(out_dir, index, "TMA")


def main(argv):
    if len(argv) >= 2 and argv[0] == "build":
        build(argv[1])
    elif len(argv) >= 3 and argv[0] == "run":
        bit_cases.run(argv[1], argv[2], "TMA")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
