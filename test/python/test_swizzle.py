"""XOR-swizzled shared tiles (tile.swizzle, issue #27): the interpreter
places each byte where CuTe's Swizzle<bits, base, shift> over byte offsets
puts it, the front end takes the TMA mode names and rejects what the op
does not take, pipelining.row_swizzle spreads ldmatrix's rows and
cp.async's pieces over the banks, and the mma.sync GEMM
(tile_mlir.kernels.gemm_mma, 128-byte-swizzled TMA boxes) equals numpy in
the interpreter and reads its tiles without bank conflicts (the
interpreter counts the banks' wavefronts). The lowering's addresses are
checked by test/PTX/swizzle.mlir, the verifier's rules by
test/Dialect/Tile/invalid-swizzle.mlir."""

import os
import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
from tile_mlir.kernels.gemm_mma import MmaGemmConfig, gemm_mma  # noqa: E402
from tile_mlir.kernels.reference import gemm as gemm_reference  # noqa: E402
from tile_mlir.pipelining import row_swizzle  # noqa: E402


def cute_swizzle(offset, bits, base, shift):
    """CuTe's Swizzle<B, M, S>::apply: XOR the bits [M + S, M + S + B) of
    the offset into [M, M + B)."""
    return offset ^ ((offset >> shift) & (((1 << bits) - 1) << base))


def placement(mode):
    """Thread t writes 16-byte piece t of an 8 x 128-byte shared tile through
    the swizzle, then copies piece t of the raw buffer out."""

    @T.function
    def place(A: T.Tensor((8, 32), "uint32"), Out: T.Tensor((8, 32), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        raw = T.alloc_shared((8, 64), "uint16")
        swizzled = raw.swizzle(mode)
        t = T.thread_id()
        r = T.alloc_local((1, 4), "uint32")
        row, unit = t // 8, t % 8
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A[row:row + 1, 4 * unit:4 * unit + 4])
        T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], swizzled.view("uint32")[row:row + 1, 4 * unit:4 * unit + 4], r)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], r, raw.view("uint32")[row:row + 1, 4 * unit:4 * unit + 4])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[row:row + 1, 4 * unit:4 * unit + 4], r)

    return place


@pytest.mark.parametrize("mode, fields", [("32B", (1, 4, 3)), ("64B", (2, 4, 3)), ("128B", (3, 4, 3))])
def test_interpreter_places_bytes_as_cute_swizzle(mode, fields):
    a = np.arange(8 * 32, dtype=np.uint32).reshape(8, 32)
    out = np.zeros_like(a)
    tile_mlir.interpret(placement(mode), a, out)
    logical, physical = a.reshape(-1).view(np.uint8), np.zeros(8 * 128, np.uint8)
    for offset in range(8 * 128):
        physical[cute_swizzle(offset, *fields)] = logical[offset]
    assert np.array_equal(out.reshape(-1).view(np.uint8), physical)
    assert not np.array_equal(out, a)  # the swizzle moved bytes


def test_front_end_errors():
    def kernel(body):
        @T.function
        def k(A: T.Tensor((8, 64), "uint16")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            body(A, T.alloc_shared((8, 64), "uint16"))
        return k

    with pytest.raises(T.TileError, match=r"swizzle mode is one of 32B, 64B, 128B, got '256B'"):
        kernel(lambda A, S: S.swizzle("256B"))
    with pytest.raises(T.TileError, match=r"give a swizzle mode or bits, base and shift, not both"):
        kernel(lambda A, S: S.swizzle("128B", bits=3))
    with pytest.raises(T.TileError, match=r"a swizzle takes a mode"):
        kernel(lambda A, S: S.swizzle(bits=3, base=4))
    with pytest.raises(T.TileError, match=r"test_swizzle\.py:\d+.*a swizzle places the bytes of a shared buffer"):
        kernel(lambda A, S: A.swizzle("128B"))


def test_row_swizzle_reads_and_writes_without_bank_conflicts():
    # Shared memory has 32 banks of 4 bytes: a phase of 8 lanes moving 16
    # bytes each is conflict-free when its 8 pieces fall on the 8 distinct
    # 16-byte groups of banks. ldmatrix reads the same unit of 8
    # consecutive rows; cp.async writes 8 consecutive units of a row (two
    # rows of 64-byte ones).
    for row_bytes in (32, 64, 128, 256, 512):
        fields = row_swizzle(row_bytes)
        units = row_bytes // 16

        def group(row, unit):
            return (cute_swizzle(row * row_bytes + 16 * unit, *fields) // 16) % 8

        for first in range(0, 64, 8):
            for unit in range(units):
                assert len({group(first + i, unit) for i in range(8)}) == 8, (row_bytes, first, unit)
        for piece in range(0, 64 * units, 8):
            assert len({group((piece + i) // units, (piece + i) % units) for i in range(8)}) == 8


def column_reads(mode):
    """A warp stores 16-byte unit 0 of 32 rows of 128 bytes, then ldmatrix
    .x4 reads them (each lane addresses its row)."""

    @T.function
    def reads(A: T.Tensor((32, 64), "uint16"), Out: T.Tensor((32, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        tile = T.alloc_shared((32, 64), "uint16")
        if mode:
            tile = tile.swizzle(mode)
        r = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A.view("uint32")[t:t + 1, 0:4])
        T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], tile.view("uint32")[t:t + 1, 0:4], r)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], r, tile[t:t + 1, 0:8])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], r)

    return reads


@pytest.mark.parametrize("mode, wavefronts", [(None, 32), ("128B", 4)])
def test_interpreter_counts_bank_wavefronts(mode, wavefronts):
    # 32 banks of 4 bytes; 16-byte accesses in phases of 8 lanes, ldmatrix
    # one matrix (8 rows) per phase. Unswizzled, the 8 rows of a phase are
    # 128 bytes apart, all in banks 0-3: 8 wavefronts a phase, 4 phases.
    # Under 128B, row r's unit 0 is unit r % 8: one wavefront a phase.
    banks = {}
    tile_mlir.interpret(column_reads(mode), np.zeros((32, 64), np.uint16), np.zeros((32, 4), np.uint32),
                        shared_banks=banks)
    assert {op: (v["requests"], v["wavefronts"], v["ideal"]) for (_, op), v in banks.items()} == {
        "st.shared.v4.b32": (1, wavefronts, 4), "ldmatrix.sync.aligned.m8n8.x4.shared.b16": (1, wavefronts, 4)}


def test_the_mma_gemm_reads_its_swizzled_boxes_without_bank_conflicts():
    # 128-byte rows under the 128-byte swizzle: every ldmatrix at its
    # ideal wavefronts, and the product still numpy's.
    m, n, k = 64, 64, 192
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16", seed=11)
    c = np.zeros((m, n), np.float32)
    banks = {}
    config = MmaGemmConfig(block=(64, 64, 64), warps=(2, 2), stages=3, group_m=1)
    tile_mlir.interpret(gemm_mma(m, n, k, "bfloat16", config), a_bits, np.ascontiguousarray(b_bits.T), c,
                        shared_banks=banks)
    assert np.array_equal(c, gemm_reference.expected(a, b))
    reads = [entry for (_, opcode), entry in banks.items() if opcode.startswith("ldmatrix")]
    assert reads and all(entry["wavefronts"] == entry["ideal"] for entry in reads), banks


def test_a_negative_constant_offset_is_spelled_as_ptxas_reads_it():
    # Warp 1 stores to buffer w - 1 of a swizzled tile: the offset's
    # constant part, -8 KiB, becomes the address's immediate. ptxas reads
    # [%rd+-8192] but rejects [%rd-8192] ("Parsing error near '-'").
    @T.function
    def shifted(A: T.Tensor((32, 4), "uint32"), Out: T.Tensor((32, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        t = T.thread_id()
        w, lane = t // 32, t % 32
        tile = T.alloc_shared((1, 64, 64), "uint16", align=1024).swizzle("128B")
        r = T.alloc_local((1, 4), "uint32")
        with T.if_(w == 1):
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A[lane:lane + 1])
            T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], tile.view("uint32")[w - 1, lane:lane + 1, 0:4], r)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(w == 0):
            T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], r, tile.view("uint32")[0, lane:lane + 1, 0:4])
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[lane:lane + 1], r)

    kernel = tile_mlir.compile(shifted, target="sm_90")
    assert re.search(r"st\.shared\.v4\.b32 \[%rd\d+\+-8192\]", kernel.ptx), kernel.ptx
    a = np.arange(128, dtype=np.uint32).reshape(32, 4)
    out = np.zeros_like(a)
    tile_mlir.interpret(shifted, a, out)
    assert np.array_equal(out, a)
