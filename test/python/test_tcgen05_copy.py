"""tcgen05.cp in the interpreter (interpreter/tcgen05_copy.py, PTX ISA
9.7.16.8.7): one thread copies a rows x words matrix of 32-bit words from
shared memory (its tcgen05 matrix descriptor) into tensor memory; the
commit's mbarrier phase, waited for, hands it to four warps' tcgen05.ld.
Each shape and multicast lands where the seed system's tmem_copy places
its rows (written out here per shape), and the asynchrony's hazards."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T
from tile_mlir.interpreter.launch import HazardError, InterpretError, InterpretWarning

from tcgen05_blocks import allocated, unloaded, wait_for

COMMIT = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"


def copy_kernel(shape, multicast="", column=0, wait=True):
    """128 threads: the source (rows x 8 words) staged in a 32-byte swizzled
    shared tile, the first `words` of each row (the shape's) copied by
    thread 0 to lane 0, `column`;
    committed, waited for (unless not `wait`), then each warp's 32 lanes of
    the words loaded (32x32b) into Out (128 x words)."""
    rows, bits = (int(x) for x in shape[:-1].split("x"))
    words, rows = bits // 32, max(rows, 8)  # a descriptor's rows come in 8s (4x256b reads the first 4)
    opcode = f"tcgen05.cp.cta_group::1.{shape}" + (f".{multicast}" if multicast else "")

    @T.function
    def kernel(A: T.Tensor((rows, 8), "uint32"), Out: T.Tensor((128, words), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        sa = T.alloc_shared((rows, 8), "uint32", align=1024).swizzle("32B")
        word = T.alloc_local((1, 1), "uint32")
        for piece in range(0, rows * 8, 128):
            row, col = (piece + t) // 8, (piece + t) % 8
            with T.if_(piece + t < rows * 8):
                T.cuda.tile.apply(T.ptx["ld.global.b32"], word, A[row:row + 1, col:col + 1])
                T.cuda.tile.apply(T.ptx["st.shared.b32"], sa[row:row + 1, col:col + 1], word)
        base, bar = allocated(t, 32)
        to = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], to, base, T.uint32(column))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[opcode], to, sa[0:rows, 0:words].matrix_descriptor(format="tcgen05"))
            T.cuda.tile.apply(T.ptx[COMMIT], bar)
        if wait:
            wait_for(bar)
        at = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], at, to, T.uint32((t // 32 * 32) << 16))
        unloaded(t, at, Out, words, base, 32)
    return kernel


def run(shape, multicast="", **kwargs):
    """(the words copied: each row's first, Out) of a copy of distinct
    words."""
    rows, bits = (int(x) for x in shape[:-1].split("x"))
    source = (np.arange(max(rows, 8) * 8, dtype=np.uint32) + 1000).reshape(max(rows, 8), 8)
    out = np.zeros((128, bits // 32), np.uint32)
    tile_mlir.interpret(copy_kernel(shape, multicast, **kwargs), source, out, target="sm_100a")
    return source[:rows, :bits // 32], out


# Each lane's source row (None: a lane the copy leaves), written out from
# the seed system's tmem_copy: row r at lane r; 4x256b at lane 32 r;
# .warpx4 every quadrant; .warpx2::02_13 lanes r and r + 64;
# .warpx2::01_23 rows 0-31 at lanes r and r + 32, rows 32-63 at r + 32
# and r + 64.
ROWS_AT = {
    ("128x256b", ""): list(range(128)),
    ("128x128b", ""): list(range(128)),
    ("32x128b", "warpx4"): [lane % 32 for lane in range(128)],
    ("64x128b", "warpx2::02_13"): [lane % 64 for lane in range(128)],
    ("64x128b", "warpx2::01_23"): [lane // 64 * 32 + lane % 32 for lane in range(128)],
}


@pytest.mark.parametrize("shape, multicast", list(ROWS_AT))
def test_each_row_lands_at_its_lanes(shape, multicast):
    source, out = run(shape, multicast)
    assert np.array_equal(out, source[ROWS_AT[shape, multicast]])


def test_4x256b_puts_a_row_in_each_quadrant():
    with pytest.warns(InterpretWarning, match="stored undefined"):  # the lanes no row reaches
        source, out = run("4x256b")
    assert np.array_equal(out[[0, 32, 64, 96]], source)


def test_the_column_is_the_addresses():
    source, out = run("32x128b", "warpx4", column=4)
    assert np.array_equal(out, source[[lane % 32 for lane in range(128)]])


def test_a_column_not_a_multiple_of_4_is_a_fault():
    with pytest.raises(InterpretError, match=r"test_tcgen05_copy.py:\d+: tcgen05.cp.cta_group::1.128x128b: "
                                             r"thread 0: its column 2 is not a multiple of 4 \(128 bits\)"):
        run("128x128b", column=2)


def test_words_loaded_before_the_commit_is_waited_for():
    with pytest.raises(HazardError, match=r"tcgen05.ld.sync.aligned.32x32b.x8.b32: reads columns that the "
                                          r"tcgen05.cp at .*test_tcgen05_copy.py:\d+ writes: no wait has seen the "
                                          r"phase its tcgen05.commit arrives on"):
        run("128x256b", wait=False)
