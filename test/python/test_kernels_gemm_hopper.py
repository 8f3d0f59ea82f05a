"""tile_mlir.kernels.gemm_hopper: the persistent, warp-specialized Hopper
GEMM with the deferred TMA epilogue, built on tile_mlir.pipelining.

In the interpreter it equals the exact product rounded once to C's type
(integer-valued data, every partial sum exact in f32), race- and
hazard-free. Its SASS is the sequence of HGMMA, UTMALDG, UTMASTG, SYNCS,
BAR and STSM that the bench kernel it replaced (bench/gemm_hopper's
gemm_persistent(epilogue="deferred_tma"), as of commit 14ca50e) had: the
same sequence and 168 registers, no spills (checked before the old kernel
was deleted; the expected sequence below is written from the kernel's
description, not from a listing). Any M, N a multiple of 8 and K of 16
bytes: tiles and steps past the edges load zeros and store nothing."""

import os
import re
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir.kernels.gemm_hopper import HopperGemmConfig, hopper_gemm
from tile_mlir.kernels.configs import SplitKFinish, split_k_reduce_grid
from tile_mlir.kernels.gemm_reduce import split_k_reduce
from tile_mlir.runtime import ArgumentError

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))
import sass  # noqa: E402

from tile_mlir.kernels.reference import gemm as gemm_reference  # noqa: E402

SMALL = HopperGemmConfig(bn=64, stages=3, blocks=1, group_m=1)


def rounded_bits(values, dtype):
    """f32 values rounded to nearest even in bf16 or f16, as their bits."""
    values = np.asarray(values, np.float32)
    if dtype == "float16":
        return values.astype(np.float16).view(np.uint16)
    u = values.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def run_small(m, n, k, dtype, seed, config=SMALL, low=-2, high=2):
    """The kernel on integer data in [low, high] in the interpreter: C and
    the exact product rounded once to C's type (bf16 for e4m3)."""
    rng = np.random.default_rng(seed)
    a, b = [rng.integers(low, high + 1, s).astype(np.float32) for s in ((m, k), (k, n))]
    c = np.zeros((m, n), np.uint16)
    tile_mlir.interpret(hopper_gemm(m, n, k, dtype, config), gemm_reference.bits(a, dtype),
                        np.ascontiguousarray(gemm_reference.bits(b, dtype).T), c)
    out = "bfloat16" if dtype == "e4m3" else dtype
    return c, rounded_bits(gemm_reference.expected(a, b), out)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_two_tiles_of_one_block_equal_the_rounded_product(dtype):
    # One block takes both 128 x 64 tiles: the ring (3 slots) runs on
    # across them, and the first tile's chunks are stored by TMA boxes
    # while the second's first four steps run. Sums reach past 256, where
    # bf16 rounds.
    c, expected = run_small(256, 64, 320, dtype, seed=3, low=-4, high=4)
    assert np.array_equal(c, expected)


def test_e4m3_with_bf16_c():
    # K 128 a step: four wgmma of K 32 over 128-byte rows of e4m3.
    c, expected = run_small(256, 64, 640, "e4m3", seed=5)
    assert np.array_equal(c, expected)


def test_tiles_shared_by_two_blocks_in_groups():
    # Four tiles of 128 x 64, two blocks, grouped two tile rows at a time.
    config = HopperGemmConfig(bn=64, stages=4, blocks=2, group_m=2)
    c, expected = run_small(256, 128, 384, "bfloat16", seed=7, config=config)
    assert np.array_equal(c, expected)


@pytest.mark.parametrize("m, n, k, dtype, seed", [(200, 104, 136, "bfloat16", 11), (130, 72, 200, "float16", 12),
                                                   (70, 40, 400, "e4m3", 13)])
def test_any_m_and_edges_of_n_and_k(m, n, k, dtype, seed):
    # Tiles past M and N and a step past K: the boxes load zeros there and
    # the stores write only inside C. Fewer steps than the deferred
    # epilogue's chunks (2 to 4): the rest of the previous tile's chunks
    # follow the last step.
    c, expected = run_small(m, n, k, dtype, seed=seed)
    assert np.array_equal(c, expected)


@pytest.mark.parametrize("dtype, out_dtype", [("e4m3", "bfloat16"), ("e4m3", "float16"), ("bfloat16", "float16")])
def test_rowwise_scales_and_c_of_another_type(dtype, out_dtype):
    # torch._scaled_mm's rowwise scales: each accumulator (exact: integer
    # data) times its row's scale of A, then its column's of Bt, each a
    # float32 product (numpy's float32 multiply rounds as mul.rn.f32), then
    # rounded once to C's type. M and N past a tile's edges (130 x 72 in
    # tiles of 128 x 64): those rows and columns read the last scales.
    m, n, k = 130, 72, 256
    rng = np.random.default_rng(17)
    a, b = [rng.integers(-2, 3, s).astype(np.float32) for s in ((m, k), (k, n))]
    scale_a = rng.uniform(0.5, 2, (m, 1)).astype(np.float32)
    scale_b = rng.uniform(0.5, 2, (1, n)).astype(np.float32)
    c = np.zeros((m, n), np.uint16)
    kernel = hopper_gemm(m, n, k, dtype, SMALL, scaled="row", out_dtype=out_dtype)
    tile_mlir.interpret(kernel, gemm_reference.bits(a, dtype), np.ascontiguousarray(gemm_reference.bits(b, dtype).T),
                        c, scale_a, scale_b)
    want = gemm_reference.expected(a, b).astype(np.float32) * scale_a * scale_b
    assert np.array_equal(c, rounded_bits(want, out_dtype))


@pytest.mark.parametrize("dtype, scales, out_dtype", [("bfloat16", "none", "bfloat16"), ("e4m3", "row", "float16"),
                                                      ("e4m3", "tensor", "bfloat16")])
def test_split_k_partials_and_their_reduction(dtype, scales, out_dtype):
    # K in 4 slices over 3 blocks (units: a slice of a tile): each slice's
    # partial is exact in W[slice] (integer data); the reduction adds the
    # slices in order, scales (rowwise: its row's, then its column's) and
    # rounds once. 20 x 72 over tiles of 64 x 64: rows and columns past C
    # store nothing (W starts as NaN there and stays).
    m, n, k, split = 20, 72, 512 if dtype == "bfloat16" else 1024, 4
    rng = np.random.default_rng(19)
    a, b = [rng.integers(-2, 3, s).astype(np.float32) for s in ((m, k), (k, n))]
    config = HopperGemmConfig(bn=64, stages=3, blocks=3, group_m=1, consumers=1, split_k=split)
    w = np.full((split, m, n), np.nan, np.float32)
    tile_mlir.interpret(hopper_gemm(m, n, k, dtype, config), gemm_reference.bits(a, dtype),
                        np.ascontiguousarray(gemm_reference.bits(b, dtype).T), w)
    piece = k // split
    for s in range(split):
        assert np.array_equal(w[s], a[:, piece * s:piece * (s + 1)] @ b[piece * s:piece * (s + 1)])
    scale_args = {"none": (), "tensor": (np.array([[0.5]], np.float32), np.array([[3.0]], np.float32)),
                  "row": (rng.uniform(0.5, 2, (m, 1)).astype(np.float32),
                          rng.uniform(0.5, 2, (1, n)).astype(np.float32))}[scales]
    c = np.zeros((m, n), np.uint16)
    tile_mlir.interpret(split_k_reduce(m, n, split, out_dtype, scales), w, c, *scale_args)
    want = ((w[0] + w[1]) + w[2]) + w[3]
    if scales == "tensor":
        want = want * (scale_args[0] * scale_args[1])
    elif scales == "row":
        want = want * scale_args[0] * scale_args[1]
    assert np.array_equal(c, rounded_bits(want, out_dtype))


def test_split_k_it_cannot_take_is_refused():
    with pytest.raises(ValueError, match=r"K's 8 steps of 64 do not split into 3 equal slices"):
        hopper_gemm(64, 64, 512, "bfloat16", HopperGemmConfig(split_k=3))
    with pytest.raises(ValueError, match=r"a split-K partial is float32: its scales and C's type are the "
                       r"reduction's"):
        hopper_gemm(64, 64, 512, "e4m3", HopperGemmConfig(split_k=2), scaled="row")


@pytest.mark.parametrize("shape, dtype, message", [
    ((4096, 4096, 4001), "bfloat16", r"K 4001 and N 4096: a TMA box's rows are whole 16 bytes \(K a multiple of 8"),
    ((4096, 100, 4096), "bfloat16", r"K 4096 and N 100: a TMA box's rows are whole 16 bytes"),
    ((4096, 4096, 4040), "e4m3", r"K a multiple of 16, N of 8"),
    ((0, 4096, 4096), "bfloat16", r"an empty product"),
    ((4096, 4096, 4096), "int8", r"dtype is one of"),
])
def test_problems_it_cannot_take_are_refused(shape, dtype, message):
    with pytest.raises(ValueError, match=message):
        hopper_gemm(*shape, dtype)


def test_scales_and_c_it_cannot_take_are_refused():
    with pytest.raises(ValueError, match=r"scales is one of \('none', 'tensor', 'row'\), got 'block'"):
        hopper_gemm(256, 256, 256, "e4m3", scaled="block")
    with pytest.raises(ValueError, match=r"C is one of \['bfloat16', 'float16'\], got 'float32'"):
        hopper_gemm(256, 256, 256, "bfloat16", out_dtype="float32")


def test_chunks_a_box_cannot_hold_are_refused():
    with pytest.raises(ValueError, match=r"chunks are \[16, 32, 64\] columns, got 8"):
        hopper_gemm(4096, 4096, 4096, "bfloat16", HopperGemmConfig(bn=32))


def test_the_winning_configurations():
    assert HopperGemmConfig.best("bfloat16") == HopperGemmConfig(blocks=128, group_m=16)
    assert HopperGemmConfig.best("e4m3") == HopperGemmConfig(blocks=132, group_m=8)


def mnemonics(cubin, keep):
    return [i.mnemonic for i in sass.instructions(cubin) if i.mnemonic in keep]


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
@pytest.mark.parametrize("m", [4096, None])
@pytest.mark.parametrize("dtype, gmma", [("bfloat16", "HGMMA.64x256x16.F32.BF16"),
                                         ("e4m3", "QGMMA.64x256x32.F32.E4M3.E4M3")])
def test_sass_is_the_instructions_written(dtype, gmma, m):
    # A runtime M (None) adds only the tile order's arithmetic: the same
    # tensor-core, shared-store and TMA sequence, registers and barriers.
    compiled = tile_mlir.compile(hopper_gemm(m, 4096, 4096, dtype), target="sm_90a")
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources) and "Used 168 registers" in resources, resources
    text = sass.listing(compiled.cubin)
    mma = gmma.split(".")[0]
    # The producer: two TMA loads a step, in one loop, which LLVM unrolls
    # twice (its ring index an unsigned count: _Geometry.round_of).
    assert mnemonics(compiled.cubin, {"UTMALDG"}) == ["UTMALDG"] * 4
    # The consumers: the next tile's first four steps, each four wgmma and
    # a chunk of the previous tile (4 stmatrix .x4 and one TMA box); the
    # loop's step; the 64 roundings; the last tile's four chunks. No global
    # store from the registers.
    chunk = ["STSM"] * 4 + ["UTMASTG"]
    expected = ([mma] * 4 + chunk) * 4 + [mma] * 4 + ["F2FP"] * 64 + chunk * 4
    assert mnemonics(compiled.cubin, {mma, "STG", "F2FP", "STSM", "UTMASTG"}) == expected
    assert len(re.findall(r"\b" + re.escape(gmma) + r"\b", text)) == 20
    # setmaxnreg as configured: 40 for the producer, 232 for the consumers.
    assert len(re.findall(r"\bUSETMAXREG\.DEALLOC\.CTAPOOL 0x28\b", text)) == 1
    assert len(re.findall(r"\bUSETMAXREG\.TRY_ALLOC\.CTAPOOL UP0, 0xe8\b", text)) == 1
    # The block barrier after the rings' initialization, and each chunk's
    # two barriers of its consumer's 128 threads (id 1 + c, in a register).
    assert len(re.findall(r"\bBAR\.SYNC\.DEFER_BLOCKING 0x0\b", text)) == 1
    assert len(re.findall(r"\bBAR\.SYNC\.DEFER_BLOCKING R\d+, 0x80\b", text)) == 2 * 8
    assert "LDL" not in text and "STL" not in text


@pytest.mark.parametrize("make", [
    lambda: hopper_gemm(16, 4096, 4096, "bfloat16", HopperGemmConfig(split_k=8, blocks=132)),
    lambda: hopper_gemm(16, 4096, 4096, "bfloat16", HopperGemmConfig(), partial=True),
    # swap-AB's: three rows of A as the kernel's N
    lambda: hopper_gemm(4096, 3, 4096, "e4m3", HopperGemmConfig(consumers=1, bn=64, stages=8, split_k=2, blocks=132)),
    lambda: hopper_gemm(200, 104, 256, "e4m3", scaled="row", out_dtype="float16"),
    lambda: split_k_reduce(16, 4096, 4, "float16", "tensor"),
    lambda: split_k_reduce(5, 4096, 2, "float32", "row", transposed=True)])
def test_the_split_and_scaled_variants_assemble_with_no_stack(make):
    # Every variant's PTX through ptxas: no stack frame, no spills.
    resources = sass.ptxas_resources(tile_mlir.compile(make(), target="sm_90a").ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources), resources


def test_reductions_it_cannot_take_are_refused():
    with pytest.raises(ValueError, match=r"C is one of \['bfloat16', 'float16', 'float32'\] and scales one of "
                       r"\('none', 'tensor', 'row'\), got 'int8', 'none'"):
        split_k_reduce(16, 64, 2, "int8")
    with pytest.raises(ValueError, match=r"a thread takes four columns: N 6 is not a multiple of 4"):
        split_k_reduce(16, 6, 2)


def interpret_runtime(kernel, config, m, n, *arrays):
    """A kernel of runtime sizes in the interpreter, on the grid the op
    launches it with."""
    tile_mlir.interpret(kernel, *arrays, grid=(config.grid(m, n), 1, 1))


def integer_operands(m, n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    a, b = [rng.integers(-2, 3, s).astype(np.float32) for s in ((m, k), (k, n))]
    return a, b, gemm_reference.bits(a, dtype), np.ascontiguousarray(gemm_reference.bits(b, dtype).T)


def test_one_kernel_takes_any_m():
    # M read from A's rows when the kernel runs: one compiled kernel for
    # three M. Two blocks in groups of two tile rows where the rows make
    # whole groups (M 256: two tile rows), row by row where they do not
    # (M 300: three), as the kernel of a constant M orders them; a grid of
    # one block for M 20 (config.grid).
    config = HopperGemmConfig(bn=64, stages=3, blocks=2, group_m=2)
    kernel = hopper_gemm(None, 64, 192, "bfloat16", config)
    assert [p[1].shape for p in kernel.params] == [(None, 192), (64, 192), (None, 64)]
    assert [config.grid(m, 64) for m in (20, 256, 300)] == [1, 2, 2]
    for m, seed in ((20, 1), (256, 2), (300, 3)):
        a, b, a_bits, bt_bits = integer_operands(m, 64, 192, "bfloat16", seed)
        c = np.zeros((m, 64), np.uint16)
        interpret_runtime(kernel, config, m, 64, a_bits, bt_bits, c)
        assert np.array_equal(c, rounded_bits(gemm_reference.expected(a, b), "bfloat16")), m


def swap_ab_operands(m, n, k, split, seed):
    """Integer e4m3 A (M x K) and B, rowwise scales around 1, and swap-AB's
    float32 workspace (split, N, M rounded up to 8)."""
    a, b, a_bits, bt_bits = integer_operands(m, n, k, "e4m3", seed)
    rng = np.random.default_rng(seed)
    scale_a = rng.uniform(0.5, 2, (m, 1)).astype(np.float32)
    scale_b = rng.uniform(0.5, 2, (1, n)).astype(np.float32)
    return a, b, a_bits, bt_bits, scale_a, scale_b, np.zeros((split, n, -(-m // 8) * 8), np.float32)


@pytest.mark.parametrize("finish", [False, True])
def test_swap_ab_of_a_runtime_m_and_its_reduction(finish):
    # Swap-AB: C^T = Bt A^T, the short M as the kernel's N, read from the
    # rows of its Bt (A) when it runs; split in 2 along K; the reduction
    # (or the tile's last slice, in the same launch) writes C (M, N) from
    # W (2, N, M rounded up to 8), its M C's rows. One pair of kernels for
    # M 3 and 40; e4m3 with rowwise scales into float16.
    n, k, split = 128, 512, 2
    config = HopperGemmConfig(consumers=1, bn=64, stages=3, split_k=split, blocks=3, group_m=1)
    how = SplitKFinish("float16", "row", transposed=True)
    gemm = hopper_gemm(n, None, k, "e4m3", config, finish=how if finish else None)
    reduce = None if finish else split_k_reduce(None, n, split, "float16", "row", transposed=True)
    for m, seed in ((3, 5), (40, 6)):
        a, b, a_bits, bt_bits, scale_a, scale_b, w = swap_ab_operands(m, n, k, split, seed)
        c = np.zeros((m, n), np.uint16)
        if finish:
            counters = np.zeros((config.tiles(n, m), 1), np.uint32)
            interpret_runtime(gemm, config, n, m, bt_bits, a_bits, w, c, counters, scale_a, scale_b)
            assert not counters.any()
        else:
            interpret_runtime(gemm, config, n, m, bt_bits, a_bits, w)
            tile_mlir.interpret(reduce, w, c, scale_a, scale_b, grid=(split_k_reduce_grid(m, n), 1, 1))
        want = (gemm_reference.expected(a, b).astype(np.float32) * scale_a) * scale_b
        assert np.array_equal(c, rounded_bits(want, "float16")), m


def test_swap_ab_bounded_by_max_n_sums_and_stores_only_its_columns():
    # max_n 8: the accumulators of columns 8 to 63 are neither stored nor
    # summed (registers 0-3 of 32: WgmmaAccumulator's first block of 8
    # columns); M 3 bit for bit through the one-launch finish (e4m3,
    # rowwise scales, float16), and M 9 (past the bound) traps.
    n, k, split = 128, 512, 2
    config = HopperGemmConfig(consumers=1, bn=64, stages=3, split_k=split, blocks=3, group_m=1)
    how = SplitKFinish("float16", "row", transposed=True)
    gemm = hopper_gemm(n, None, k, "e4m3", config, finish=how, max_n=8)
    # A thread's partial: 2 of its 16 pairs stored; the finish: 2 pairs a
    # slice loaded (without the bound: 16 and 16 a slice).
    for kernel, pairs in ((gemm, 2), (hopper_gemm(n, None, k, "e4m3", config, finish=how), 16)):
        ptx = tile_mlir.compile(kernel, target="sm_90a").ptx
        assert (ptx.count("st.global.v2.f32"), ptx.count("ld.global.v2.f32")) == (pairs, split * pairs)
    for m, seed in ((3, 15), (9, 16)):
        a, b, a_bits, bt_bits, scale_a, scale_b, w = swap_ab_operands(m, n, k, split, seed)
        c, counters = np.zeros((m, n), np.uint16), np.zeros((config.tiles(n, m), 1), np.uint32)
        run = lambda: interpret_runtime(gemm, config, n, m, bt_bits, a_bits, w, c, counters, scale_a, scale_b)
        if m > 8:
            with pytest.raises(tile_mlir.InterpretError, match="trap"):
                run()
            continue
        run()
        want = (gemm_reference.expected(a, b).astype(np.float32) * scale_a) * scale_b
        assert np.array_equal(c, rounded_bits(want, "float16")) and not counters.any()


@pytest.mark.parametrize("sizes, bounds, message", [
    ((64, 64), {"max_m": 64}, r"max_m bounds a runtime M \(None\) by at least 1, got m 64, max_m 64"),
    ((None, 64), {"max_m": 0}, r"max_m bounds a runtime M \(None\) by at least 1, got m None, max_m 0"),
    ((64, None), {"max_n": 72}, r"max_n bounds a runtime N \(None\) by 1 to bn 64, got n None, max_n 72"),
    ((64, 64), {"max_n": 8}, r"max_n bounds a runtime N \(None\) by 1 to bn 64, got n 64, max_n 8")])
def test_a_bound_without_its_runtime_size_or_past_a_tile_is_refused(sizes, bounds, message):
    config = HopperGemmConfig(consumers=1, bn=64, stages=3, split_k=2, blocks=2, group_m=1)
    with pytest.raises(ValueError, match=message):
        hopper_gemm(*sizes, 256, "bfloat16", config, **bounds)


def test_a_runtime_n_past_one_tile_traps():
    # The kernel's runtime N (swap-AB's M) is one tile's columns at most:
    # past them it would leave C's last columns unwritten, so it traps.
    config = HopperGemmConfig(consumers=1, bn=64, stages=3, split_k=2, blocks=2, group_m=1)
    kernel = hopper_gemm(64, None, 256, "bfloat16", config)
    _, _, a_bits, bt_bits = integer_operands(72, 64, 256, "bfloat16", 9)
    w = np.zeros((2, 64, 72), np.float32)
    with pytest.raises(tile_mlir.InterpretError, match="trap"):
        tile_mlir.interpret(kernel, bt_bits, a_bits, w, grid=(2, 1, 1))


def test_a_bounded_m_is_any_m_up_to_its_bound():
    # max_m 128 (two tile rows of 64): the tiles, units and grid are
    # max_m's, constants (as a constant M's are), for every M up to it:
    # M 20 (its second tile row past A: zeros loaded, nothing stored) and
    # 128, bit for bit; one kernel.
    config = HopperGemmConfig(consumers=1, bn=64, stages=3, blocks=4, group_m=2)
    kernel = hopper_gemm(None, 64, 192, "bfloat16", config, max_m=128)
    for m, seed in ((20, 11), (128, 12)):
        a, b, a_bits, bt_bits = integer_operands(m, 64, 192, "bfloat16", seed)
        c = np.zeros((m, 64), np.uint16)
        tile_mlir.interpret(kernel, a_bits, bt_bits, c, grid=(config.grid(128, 64), 1, 1))
        assert np.array_equal(c, rounded_bits(gemm_reference.expected(a, b), "bfloat16")), m


@pytest.mark.parametrize("case", ["m past the bound", "another grid", "swap-AB on another grid"])
def test_a_bounded_kernel_traps_where_its_tiles_would_be_wrong(case):
    # Past max_m its tiles would not cover A's rows; on another grid than
    # its constant blocks, some units would run twice or not at all. The
    # same holds for swap-AB's kernel (a runtime N: its tiles constant).
    config = HopperGemmConfig(consumers=1, bn=64, stages=3, blocks=4, group_m=1, split_k=2)
    if case == "swap-AB on another grid":
        kernel = hopper_gemm(64, None, 256, "bfloat16", config)
        _, _, a_bits, bt_bits = integer_operands(8, 64, 256, "bfloat16", 13)
        arrays, grid = (bt_bits, a_bits, np.zeros((2, 64, 8), np.float32)), config.grid(64, 8) - 1
    else:
        m = 72 if case == "m past the bound" else 64
        kernel = hopper_gemm(None, 64, 256, "bfloat16", config, max_m=64)
        _, _, a_bits, bt_bits = integer_operands(m, 64, 256, "bfloat16", 14)
        arrays, grid = (a_bits, bt_bits, np.zeros((2, m, 64), np.float32)), config.grid(64, 64)
        grid += case == "another grid"
    with pytest.raises(tile_mlir.InterpretError, match="trap"):
        tile_mlir.interpret(kernel, *arrays, grid=(grid, 1, 1))


def test_a_runtime_extent_past_32_bits_is_refused():
    # The kernel counts to a runtime extent in 32 bits: a launch past 2^31
    # - 1 is refused before anything runs (a broadcast view: no memory).
    kernel = tile_mlir.compile(hopper_gemm(None, 64, 192, "bfloat16", SMALL), target="sm_90a")
    huge = np.broadcast_to(np.zeros(1, np.uint16), (2**31, 192))
    with pytest.raises(ArgumentError, match=r"A: axis 0's runtime extent 2147483648 is past 2\^31 - 1"):
        kernel.check_arguments([huge, np.zeros((64, 192), np.uint16),
                                np.broadcast_to(np.zeros(1, np.uint16), (2**31, 64))])
