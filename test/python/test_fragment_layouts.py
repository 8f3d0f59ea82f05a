"""A wrong fragment layout is a located error (issue #27): the interpreter
follows every register byte back to the tensor element it was loaded from
(through ld, st, mov, cp.async, shared memory and ldmatrix) and checks each
mma's A, B and C against the PTX ISA's tables (tile_mlir.fragments), and
where D is stored (interpreter/fragment_origins.py)."""

import os
import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import fragments
from tile_mlir import script as T

OP = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
HERE = re.escape(os.path.basename(__file__))


def product(a_at=None, b_at=None, d_at=None, packed_a=False):
    """D = A B (16 x 16 by 16 x 8, f16 into f32) on one warp, each element
    of the fragments loaded (and of D stored) at the coordinates the
    functions give, T.mma_coordinates by default; `packed_a` takes A as
    its registers' image (32 lanes x 8 elements)."""
    a_at = a_at or (lambda i: T.mma_coordinates(OP, "a", i))
    b_at = b_at or (lambda i: T.mma_coordinates(OP, "b", i))
    d_at = d_at or (lambda i: T.mma_coordinates(OP, "d", i))
    a_shape = (32, 8) if packed_a else (16, 16)

    @T.function
    def kernel(A: T.Tensor(a_shape, "uint16"), B: T.Tensor((16, 8), "uint16"), D: T.Tensor((16, 8), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        a = T.alloc_local((1, 1, 8), "uint16")
        b = T.alloc_local((1, 1, 4), "uint16")
        acc = T.alloc_local((1, 1, 4), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)).view("uint32"), T.uint32(0))
        for i in range(8):
            r, c = (T.lane_id(), i) if packed_a else a_at(i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], a.reshape((8, 1))[i:i + 1], A[r:r + 1, c:c + 1])
        for i in range(4):
            r, c = b_at(i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], b.reshape((4, 1))[i:i + 1], B[r:r + 1, c:c + 1])
        T.cuda.tile.apply(T.ptx[OP], acc, a.view("uint32"), b.view("uint32"))
        for i in range(4):
            r, c = d_at(i)
            T.cuda.tile.apply(T.ptx["st.global.f32"], D[r:r + 1, c:c + 1], acc.reshape((4, 1))[i:i + 1])

    return kernel


def data():
    rng = np.random.default_rng(7)
    a, b = rng.integers(-4, 5, (16, 16)), rng.integers(-4, 5, (16, 8))
    return a, b, a.astype(np.float16).view(np.uint16), b.astype(np.float16).view(np.uint16)


def test_the_isa_layout_runs_and_multiplies():
    a, b, a16, b16 = data()
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(product(), a16, b16, d)
    assert np.array_equal(d, (a @ b).astype(np.float32))


def test_a_with_registers_1_and_2_swapped_is_located():
    # Elements 2, 3 (register 1: rows g + 8) and 4, 5 (register 2: columns
    # 2t + 8) loaded from each other's coordinates.
    swapped = [0, 1, 4, 5, 2, 3, 6, 7]
    kernel = product(a_at=lambda i: T.mma_coordinates(OP, "a", swapped[i]))
    _, _, a16, b16 = data()
    with pytest.raises(tile_mlir.FragmentLayoutError, match=(
            rf"^kernel: \S*{HERE}:\d+: {re.escape(OP)}: a's fragment is not one matrix in the PTX ISA's layout: "
            r"lane 0 register 2 \(element 0 of 2\) holds A\[8, 0\] where the layout puts a\(0, 8\); row 0 of a "
            r"starts with A\[0, 0\], so a\(0, 8\) would be A\[0, 8\] \(tile_mlir.fragments, T.mma_coordinates\)$")):
        tile_mlir.interpret(kernel, a16, b16, np.zeros((16, 8), np.float32))


def test_b_missing_its_second_half_of_k_is_located():
    def rows_0_to_7(i):
        r, c = T.mma_coordinates(OP, "b", i)
        return r % 8, c
    _, _, a16, b16 = data()
    with pytest.raises(tile_mlir.FragmentLayoutError, match=(
            r"b's fragment is not one matrix in the PTX ISA's layout: lane 0 register 1 \(element 0 of 2\) holds "
            r"B\[0, 0\] where the layout puts b\(8, 0\); column 0 of b starts with B\[0, 0\], so b\(8, 0\) would "
            r"be B\[8, 0\]")):
        tile_mlir.interpret(product(b_at=rows_0_to_7), a16, b16, np.zeros((16, 8), np.float32))


def test_d_stored_with_its_pairs_swapped_is_located_at_the_store():
    kernel = product(d_at=lambda i: T.mma_coordinates(OP, "d", i ^ 1))
    _, _, a16, b16 = data()
    with pytest.raises(tile_mlir.FragmentLayoutError, match=(
            rf"^kernel: \S*{HERE}:\d+: the D of {re.escape(OP)} at \S*{HERE}:\d+ is not stored in the PTX ISA's "
            r"layout: its element \(0, 2\) lands at byte 12 of D, out of line with the rest of row 0")):
        tile_mlir.interpret(kernel, a16, b16, np.zeros((16, 8), np.float32))


def test_a_stored_as_its_registers_image_is_a_layout():
    # Pre-packed operands (lane by lane, register by register) are how
    # weights are often shipped: not an error.
    a, b, a16, b16 = data()
    packed = np.zeros((32, 8), np.uint16)
    for (lane, i), (r, c) in fragments.table(OP, "a").items():
        packed[lane, i] = a16[r, c]
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(product(packed_a=True), packed, b16, d)
    assert np.array_equal(d, (a @ b).astype(np.float32))


def test_the_check_can_be_turned_off():
    # Then the kernel multiplies what its registers hold: A with row g's
    # columns 8-15 and row g + 8's columns 0-7 exchanged.
    swapped = [0, 1, 4, 5, 2, 3, 6, 7]
    kernel = product(a_at=lambda i: T.mma_coordinates(OP, "a", swapped[i]))
    a, b, a16, b16 = data()
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(kernel, a16, b16, d, fragment_layouts=False)
    held = a.copy()
    for g in range(8):
        held[g, 8:], held[g + 8, :8] = a[g + 8, :8], a[g, 8:]
    assert np.array_equal(d, (held @ b).astype(np.float32))


def ldmatrix_product(swap_matrices):
    """A from shared memory by ldmatrix .x4, each lane giving the address of
    row lane % 8 of matrix lane / 8; with `swap_matrices`, matrices 1 and 2
    (rows 8-15 of k 0-7, and rows 0-7 of k 8-15) trade places."""

    @T.function
    def kernel(A: T.Tensor((16, 16), "uint16"), B: T.Tensor((16, 8), "uint16"), D: T.Tensor((16, 8), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        tile = T.alloc_shared((16, 16), "uint16")
        lane = T.thread_id()
        row, half = lane // 2, (lane % 2) * 8
        staged = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged, A.view("uint32")[row:row + 1, half // 2:half // 2 + 4])
        T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], tile.view("uint32")[row:row + 1, half // 2:half // 2 + 4],
                          staged)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        a = T.alloc_local((1, 1, 4), "uint32")
        matrix = lane // 8
        if swap_matrices:
            r, c = lane % 8 + 8 * (matrix // 2), 8 * (matrix % 2)
        else:
            r, c = lane % 8 + 8 * (matrix % 2), 8 * (matrix // 2)
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], a.reshape((1, 4)),
                          tile[r:r + 1, c:c + 8])
        b = T.alloc_local((1, 1, 4), "uint16")
        for i in range(4):
            br, bc = T.mma_coordinates(OP, "b", i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], b.reshape((4, 1))[i:i + 1], B[br:br + 1, bc:bc + 1])
        acc = T.alloc_local((1, 1, 4), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)).view("uint32"), T.uint32(0))
        T.cuda.tile.apply(T.ptx[OP], acc, a, b.view("uint32"))
        for i in range(4):
            dr, dc = T.mma_coordinates(OP, "d", i)
            T.cuda.tile.apply(T.ptx["st.global.f32"], D[dr:dr + 1, dc:dc + 1], acc.reshape((4, 1))[i:i + 1])

    return kernel


def test_origins_follow_shared_memory_and_ldmatrix():
    a, b, a16, b16 = data()
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(ldmatrix_product(False), a16, b16, d)
    assert np.array_equal(d, (a @ b).astype(np.float32))
    with pytest.raises(tile_mlir.FragmentLayoutError, match=(
            r"a's fragment is not one matrix in the PTX ISA's layout: lane 0 register 2 \(element 0 of 2\) holds "
            r"A\[8, 0\] where the layout puts a\(0, 8\)")):
        tile_mlir.interpret(ldmatrix_product(True), a16, b16, d)


def _k_halves_swapped(coordinates):
    """Fragment coordinates with K's halves traded (k -> k ^ 8): a K split
    that takes k 8-15 first."""
    def at(i):
        r, c = coordinates(i)
        return r, c ^ 8
    return at


def test_a_k_split_taken_alike_by_a_and_b_is_a_layout():
    # A's columns and B's rows both gathered along K as k ^ 8: the sum over
    # K is the same, and each line is still one tensor row (column).
    a, b, a16, b16 = data()
    kernel = product(a_at=_k_halves_swapped(lambda i: T.mma_coordinates(OP, "a", i)),
                     b_at=lambda i: (lambda r, c: (r ^ 8, c))(*T.mma_coordinates(OP, "b", i)))
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(kernel, a16, b16, d)
    assert np.array_equal(d, (a @ b).astype(np.float32))


def test_a_k_split_of_a_alone_is_located():
    _, _, a16, b16 = data()
    kernel = product(a_at=_k_halves_swapped(lambda i: T.mma_coordinates(OP, "a", i)))
    with pytest.raises(tile_mlir.FragmentLayoutError, match=(
            rf"{HERE}:\d+: {re.escape(OP)}: a's columns and b's rows take K in different orders: a\(0\) is element "
            r"8 of its row in memory order, b\(0\) element 0 of its column; a K split must split A and B alike")):
        tile_mlir.interpret(kernel, a16, b16, np.zeros((16, 8), np.float32))


def test_a_column_broadcast_along_k_is_a_layout():
    # Every k of A's row r is A[r, 0]: D = A[:, 0] times B's column sums.
    a, b, a16, b16 = data()
    kernel = product(a_at=lambda i: (T.mma_coordinates(OP, "a", i)[0], 0))
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(kernel, a16, b16, d)
    assert np.array_equal(d, np.outer(a[:, 0], b.sum(axis=0)).astype(np.float32))


def ldmatrix_b(trans):
    """B (16 x 8, K x N row major) staged in shared memory and loaded by
    ldmatrix .x2, lane l giving row l % 16: with .trans that is B's
    fragment; without, each register holds a row of B where the layout
    wants a column (affine in lane, register and element all the same)."""
    opcode = f"ldmatrix.sync.aligned.m8n8.x2{'.trans' if trans else ''}.shared.b16"

    @T.function
    def kernel(A: T.Tensor((16, 16), "uint16"), B: T.Tensor((16, 8), "uint16"), D: T.Tensor((16, 8), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        lane = T.thread_id()
        tile = T.alloc_shared((16, 8), "uint16")
        staged = T.alloc_local((1, 4), "uint32")
        with T.if_(lane < 16):
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged, B.view("uint32")[lane:lane + 1, 0:4])
            T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], tile.view("uint32")[lane:lane + 1, 0:4], staged)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        b = T.alloc_local((1, 1, 2), "uint32")
        row = lane % 16
        T.cuda.tile.apply(T.ptx[opcode], b.reshape((1, 2)), tile[row:row + 1, 0:8])  # the B load
        a = T.alloc_local((1, 1, 8), "uint16")
        for i in range(8):
            r, c = T.mma_coordinates(OP, "a", i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], a.reshape((8, 1))[i:i + 1], A[r:r + 1, c:c + 1])
        acc = T.alloc_local((1, 1, 4), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)).view("uint32"), T.uint32(0))
        T.cuda.tile.apply(T.ptx[OP], acc, a.view("uint32"), b)  # the mma
        for i in range(4):
            dr, dc = T.mma_coordinates(OP, "d", i)
            T.cuda.tile.apply(T.ptx["st.global.f32"], D[dr:dr + 1, dc:dc + 1], acc.reshape((4, 1))[i:i + 1])
    return kernel


def test_b_by_ldmatrix_trans_multiplies():
    a, b, a16, b16 = data()
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(ldmatrix_b(True), a16, b16, d)
    assert np.array_equal(d, (a @ b).astype(np.float32))


def test_b_by_ldmatrix_without_trans_is_located(line_of):
    # A new user's mistake: with 8 columns the wrong fragment is affine in
    # (lane, register, element), so it passed as a registers' image; B is
    # declared as the 16 x 8 matrix itself, which no image is.
    _, _, a16, b16 = data()
    with pytest.raises(tile_mlir.FragmentLayoutError, match=(
            "^kernel: " + re.escape(line_of("# the mma")) + rf": {re.escape(OP)}: b's fragment is not one matrix in "
            r"the PTX ISA's layout: lane 0 register 1 \(element 0 of 2\) holds B\[8, 0\] where the layout puts "
            r"b\(8, 0\); column 0 of b starts with B\[0, 0\], so b\(8, 0\) would be B\[1, 0\]")):
        tile_mlir.interpret(ldmatrix_b(False), a16, b16, np.zeros((16, 8), np.float32))
