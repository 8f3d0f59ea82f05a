"""tile_mlir.kernels.gemm_grouped (issue 59, first step): the masked
grouped GEMM in the interpreter, bit for bit against numpy on exact data
(experts of 0 rows, 1 row, a partial tile, the whole capacity; the rows
past each count never written), the hazards its waits prevent, a count
past the capacity reported, and its SASS."""

import collections
import itertools
import os
import re
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir.kernels import gemm_grouped as grouped_module
from tile_mlir.kernels.gemm_grouped import GroupedGemmConfig, MaskedProblem, grouped_gemm_masked
from tile_mlir.kernels.reference import gemm as gemm_reference

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "sass"))
import sass  # noqa: E402

NEEDS_SASS = pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
SENTINEL = 0x7777  # what C held before: a row past its count keeps it


def run(counts, capacity, n, k, dtype="bfloat16", config=GroupedGemmConfig(), seed=0):
    """(C as float64, numpy's products, counts): integer data in -2..2
    (every partial sum exact, so C rounds it exactly)."""
    rng = np.random.default_rng(seed)
    e = len(counts)
    a = rng.integers(-2, 3, (e, capacity, k)).astype(np.float32)
    b = rng.integers(-2, 3, (e, n, k)).astype(np.float32)
    c = np.full((e, capacity, n), SENTINEL, np.uint16)
    held = np.array(counts, np.int32).reshape(e, 1)
    tile_mlir.interpret(grouped_gemm_masked(MaskedProblem(e, capacity, n, k, dtype), config),
                        gemm_reference.bits(a, dtype), gemm_reference.bits(b, dtype), c, held)
    return c, np.einsum("erk,enk->ern", a.astype(np.float64), b.astype(np.float64))


def as_float(c, dtype):
    if dtype == "bfloat16":
        return (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return c.view(np.float16).astype(np.float64)


@pytest.mark.parametrize("counts, capacity, n, k, dtype, config", [
    # 0 rows (its blocks stop at the count), 1 row, 150 (a tile and a
    # partial one), the whole capacity; K of 96 (a partial step, TMA's
    # zeros), N of two tiles.
    ([0, 1, 150, 200], 200, 256, 96, "bfloat16", GroupedGemmConfig()),
    # fp16; one consumer (64-row tiles) and N 64 tiles; K of 3 steps.
    ([64, 3], 128, 64, 192, "float16", GroupedGemmConfig(bn=64, consumers=1, stages=2)),
    # Persistent: 2 blocks over 3 x 4 x 2 tiles (each block's walk skips
    # the tiles past their counts, its ring steps counting only the tiles
    # it multiplied), a ring of 2 over 2 steps of K.
    ([100, 0, 257], 300, 256, 128, "bfloat16", GroupedGemmConfig(stages=2, blocks=2)),
    # An expert's 3 x 3 tiles in a group of 2 tile rows and the last row
    # alone (GroupedTiles' partial group), by 3 blocks.
    ([300, 129], 300, 384, 64, "bfloat16", GroupedGemmConfig(stages=2, blocks=3, group_m=2))])
def test_each_experts_rows_are_numpys_and_the_rest_never_written(counts, capacity, n, k, dtype, config):
    c, want = run(counts, capacity, n, k, dtype, config)
    for e, m in enumerate(counts):
        assert np.array_equal(as_float(c[e, :m], dtype), want[e, :m]), e
        assert (c[e, m:] == SENTINEL).all(), e


def test_a_count_past_the_capacity_is_reported_at_its_load():
    # (A kernel of the package is located at its caller's line.)
    with pytest.raises(tile_mlir.InterpretError, match=r"test_kernels_gemm_grouped\.py:\d+: thread \(0\) of block "
                       r"\(0\) reads the value 129 as an index of an axis of 129: out of bounds"):
        run([129], 128, 128, 64)


def test_a_consumer_that_does_not_wait_for_its_slot_is_reported(monkeypatch):
    monkeypatch.setattr(grouped_module.TmaRing, "wait", lambda self, state: None)
    with pytest.raises(tile_mlir.HazardError, match=r"wgmma.mma_async.* touches the dynamic shared memory byte \d+, "
                       r"which the cp.async.bulk at .* has not delivered"):
        run([64], 64, 128, 64)


def test_problems_it_cannot_take_are_refused():
    with pytest.raises(ValueError, match=r"N 96 is not a multiple of the tile's 128 columns"):
        grouped_gemm_masked(MaskedProblem(2, 64, 96, 64))
    with pytest.raises(ValueError, match=r"K 60: TMA's rows are whole 16 bytes \(K a multiple of 8\)"):
        grouped_gemm_masked(MaskedProblem(2, 64, 128, 60))
    with pytest.raises(ValueError, match=r"bn is 64, 128 or 256, got 96"):
        GroupedGemmConfig(bn=96)
    with pytest.raises(ValueError, match=r"group_m is at least 1, got 0"):
        GroupedGemmConfig(group_m=0)


@NEEDS_SASS
def test_sass_is_one_launch_of_the_written_products_with_no_spills():
    # A step's four HGMMA 64x128x16, written five times (the four peeled
    # steps', the first of which starts the accumulators, and the loop's);
    # two TMA loads a step (twice in the SASS: ptxas peels the producer's
    # loop); the count's global load in the producer's walk over the
    # block's tiles, and in the consumers' three times (the tile's, and
    # the previous tile's in the walk and after it); the deferred
    # epilogue's 32 predicated stores of rounded pairs in the walk (8 after
    # each peeled step's HGMMA) and 32 after it; no local memory.
    compiled = tile_mlir.compile(grouped_gemm_masked(MaskedProblem(8, 512, 4096, 7168)), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    listing = sass.listing(compiled.cubin)
    assert collections.Counter(re.findall(r"\bHGMMA\.(64x\d+x16)\.F32\.BF16\b", listing)) == {"64x128x16": 20}
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert (counts["UTMALDG"], counts["LDG"], counts["STG"], counts["LDL"], counts["STL"]) == (4, 4, 64, 0, 0)
    # The tensor cores do not wait for the stores: the previous tile's
    # chunks are issued between the peeled steps' products.
    order = [i.mnemonic for i in sass.instructions(compiled.cubin) if i.mnemonic in ("HGMMA", "STG")]
    runs = [(name, len(list(group))) for name, group in itertools.groupby(order)]
    assert runs == [("HGMMA", 4), ("STG", 8)] * 4 + [("HGMMA", 4), ("STG", 32)]


def contiguous_table(offsets, rows, experts, bm, table_rows):
    """The contiguous layout's schedule, written out: each expert's rows
    (from the last expert's end to its own) in tiles of bm, a row
    (expert, first row, end, 0) a tile; unused rows end at 0."""
    table, start = [], 0
    for e, end in enumerate(offsets):
        for row0 in range(start, end, bm):
            table.append((e, row0, end, 0))
        start = end
    table += [(0, 0, 0, 0)] * (table_rows - len(table))
    return np.array(table, np.int32)


@pytest.mark.parametrize("offsets, rows", [
    # Experts of 0, 1, 150 (a tile and a partial one) and 49 rows, 10 rows
    # past the last expert (never written); a tile that reaches into the
    # next expert's rows (loaded, not stored).
    ([0, 1, 151, 200], 210),
    # One expert with every row; then two experts on one tile's rows.
    ([256], 256), ([3, 5], 64)])
def test_the_contiguous_layout_multiplies_each_experts_rows_and_nothing_else(offsets, rows):
    config, n, k = GroupedGemmConfig(), 128, 96
    problem = grouped_module.ContiguousProblem(len(offsets), rows, n, k)
    rng = np.random.default_rng(rows)
    a = rng.integers(-2, 3, (rows, k)).astype(np.float32)
    b = rng.integers(-2, 3, (len(offsets), n, k)).astype(np.float32)
    c = np.full((rows, n), SENTINEL, np.uint16)
    table = contiguous_table(offsets, rows, len(offsets), 128, problem.table_rows(config))
    tile_mlir.interpret(grouped_module.grouped_gemm_contiguous(problem, config), gemm_reference.bits(a, "bfloat16"),
                        gemm_reference.bits(b, "bfloat16"), c, table)
    start = 0
    for e, end in enumerate(offsets):
        want = a[start:end].astype(np.float64) @ b[e].T.astype(np.float64)
        assert np.array_equal(as_float(c[start:end], "bfloat16"), want), e
        start = end
    assert (c[offsets[-1]:] == SENTINEL).all()


@NEEDS_SASS
def test_the_contiguous_kernel_reads_its_tile_once_and_loads_a_by_a_2d_box():
    # The schedule's row read in each role's walk (the producer's one
    # 16-byte LDG.E.128; ptxas splits each of the consumers' three into
    # two), A's boxes by 2D TMA and Bt's by 3D (twice: the peeled loop),
    # the same products and predicated stores as the masked kernel; no
    # local memory.
    problem = grouped_module.ContiguousProblem(64, 16384, 4096, 7168)
    compiled = tile_mlir.compile(grouped_module.grouped_gemm_contiguous(problem), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    listing = sass.listing(compiled.cubin)
    assert collections.Counter(re.findall(r"\bHGMMA\.(64x\d+x16)\.F32\.BF16\b", listing)) == {"64x128x16": 20}
    assert collections.Counter(re.findall(r"\bUTMALDG\.(\dD)\b", listing)) == {"2D": 2, "3D": 2}
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert (counts["LDG"], counts["STG"], counts["LDL"], counts["STL"]) == (7, 64, 0, 0)
    assert re.search(r"\bLDG\.E\.128\b", listing)


def scaled_expected(a, b, scale_a, scale_b):
    """C (rows, N) of one expert in the stated order: per block of 128 of
    K, the exact partial times the scales' product (rounded once), added
    to the total in float32 from +0; rounded to bf16 (to nearest even)."""
    total = np.zeros((a.shape[0], b.shape[0]), np.float32)
    for kb in range(a.shape[1] // 128):
        ks = slice(128 * kb, 128 * kb + 128)
        part = (a[:, ks].astype(np.float64) @ b[:, ks].T.astype(np.float64)).astype(np.float32)
        factor = (scale_a[:, kb:kb + 1] * np.repeat(scale_b[:, kb], 128)[None, :]).astype(np.float32)
        total = (part.astype(np.float64) * factor + total).astype(np.float32)  # exact here: one rounding
    bits = total.view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def powers_of_two(rng, shape):
    """Scales of 2^-4 to 2^4: every product and sum exact."""
    return np.exp2(rng.integers(-4, 5, shape)).astype(np.float32)


def test_block_scaled_e4m3_masked_is_the_stated_promotion_bit_for_bit():
    # Experts of 0, 70 (a partial tile) and 128 rows; N of two 128-column
    # blocks (each its own Bt scale), K of three 128-blocks; scales 2^-4 to
    # 2^4 (issue 59: 2^-k and 2^k); rows past each count never written.
    rng = np.random.default_rng(9)
    counts, cap, n, k = [0, 70, 128], 128, 256, 384
    e = len(counts)
    a = rng.integers(-2, 3, (e, cap, k)).astype(np.float32)
    b = rng.integers(-2, 3, (e, n, k)).astype(np.float32)
    scale_a, scale_b = powers_of_two(rng, (e, cap, k // 128)), powers_of_two(rng, (e, n // 128, k // 128))
    c = np.full((e, cap, n), SENTINEL, np.uint16)
    kernel = grouped_gemm_masked(MaskedProblem(e, cap, n, k, "e4m3"))
    tile_mlir.interpret(kernel, gemm_reference.bits(a, "e4m3"), gemm_reference.bits(b, "e4m3"), c,
                        np.array(counts, np.int32).reshape(e, 1), scale_a, scale_b)
    for i, m in enumerate(counts):
        assert np.array_equal(c[i, :m], scaled_expected(a[i], b[i], scale_a[i], scale_b[i])[:m]), i
        assert (c[i, m:] == SENTINEL).all(), i


def test_block_scaled_e4m3_contiguous_is_the_stated_promotion_bit_for_bit():
    rng = np.random.default_rng(10)
    offsets, rows, n, k = [50, 200], 256, 128, 256
    problem = grouped_module.ContiguousProblem(2, rows, n, k, "e4m3")
    config = GroupedGemmConfig()
    a = rng.integers(-2, 3, (rows, k)).astype(np.float32)
    b = rng.integers(-2, 3, (2, n, k)).astype(np.float32)
    scale_a, scale_b = powers_of_two(rng, (rows, k // 128)), powers_of_two(rng, (2, n // 128, k // 128))
    c = np.full((rows, n), SENTINEL, np.uint16)
    table = contiguous_table(offsets, rows, 2, 128, problem.table_rows(config))
    tile_mlir.interpret(grouped_module.grouped_gemm_contiguous(problem, config), gemm_reference.bits(a, "e4m3"),
                        gemm_reference.bits(b, "e4m3"), c, table, scale_a, scale_b)
    start = 0
    for e, end in enumerate(offsets):
        want = scaled_expected(a[start:end], b[e], scale_a[start:end], scale_b[e])
        assert np.array_equal(c[start:end], want), e
        start = end
    assert (c[offsets[-1]:] == SENTINEL).all()


def test_e4m3_without_whole_scale_blocks_is_refused():
    with pytest.raises(ValueError, match=r"e4m3 takes block scales of 128: K \(192\) a multiple of 128 and tiles "
                       r"of 128 columns \(bn 128\)"):
        grouped_gemm_masked(MaskedProblem(2, 64, 128, 192, "e4m3"))


@NEEDS_SASS
def test_block_scaled_sass_is_four_qgmma_a_step_and_one_ffma_a_register():
    # A step's four QGMMA 64x128x32 (e4m3) into the partial, then the
    # promotion: one FFMA a register of the 64 (total = partial x scale +
    # total), written five times (the four steps peeled for the deferred
    # epilogue's chunks, and the loop's); three scale loads a step, the
    # count's in the producer's walk and three times in the consumers'
    # (as the 16-bit kernel's); the deferred epilogue's 32 stores in the
    # walk and 32 after it; no local memory.
    compiled = tile_mlir.compile(grouped_gemm_masked(MaskedProblem(8, 512, 4096, 7168, "e4m3")), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    listing = sass.listing(compiled.cubin)
    assert len(re.findall(r"\bQGMMA\.64x128x32\.F32\.E4M3\.E4M3\b", listing)) == 4 * 5
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert (counts["FFMA"], counts["LDG"], counts["STG"], counts["LDL"], counts["STL"]) == (64 * 5, 4 + 3 * 5, 64, 0, 0)
    # Each step's three scale loads are issued before its wgmma, so that
    # their latency passes while the tensor cores run; a chunk of the
    # previous tile's stores follows each peeled step's wgmma.
    order = [i.mnemonic for i in sass.instructions(compiled.cubin) if i.mnemonic in ("QGMMA", "LDG", "STG")]
    runs = [(name, len(list(group))) for name, group in itertools.groupby(order)]
    products = [n for n, (name, _) in enumerate(runs) if name == "QGMMA"]
    assert [runs[n][1] for n in products] == [4] * 5
    for before, n in zip([-1, *products], products):
        assert sum(count for name, count in runs[before + 1:n] if name == "LDG") >= 3
    assert [runs[n + 1] for n in products[:4]] == [("STG", 8)] * 4
