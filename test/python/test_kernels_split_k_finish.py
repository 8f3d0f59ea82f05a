"""A split-K GEMM in one launch (kernels/split_k_finish.py): each tile's
last slice to arrive sums the partials in slice order, scales and rounds
them into C. In the interpreter it equals the exact product (integer
data) and, on random normal data through sm_90's accumulation, the two
launch plan (partials, then gemm_reduce) bit for bit; the counters are
zero again after it. Without the arrival's acquire or release, or with
counters not zero at launch, the interpreter reports the race it exists
to prevent."""

import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir.interpreter import reference as R
from tile_mlir.interpreter.launch import HazardError
from tile_mlir.kernels.gemm_hopper import HopperGemmConfig, hopper_gemm
from tile_mlir.kernels.gemm_reduce import split_k_reduce
from tile_mlir.kernels.reference import gemm as gemm_reference
from tile_mlir.kernels.reference.rows import narrow
from tile_mlir.kernels.split_k_finish import SplitKFinish

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "sass"))
import sass  # noqa: E402

# K in 4 slices over 3 blocks, tiles of 64 x 64: 20 x 72 has two tiles, so
# slices of one tile arrive from different blocks in different orders.
CONFIG = HopperGemmConfig(bn=64, stages=3, blocks=3, group_m=1, consumers=1, split_k=4)
M, N = 20, 72
KINDS = {"bfloat16": "bf16", "float16": "f16", "e4m3": "e4m3"}


def arrays(dtype, k, draw, seed=19, transposed=False):
    """A (M x K) and B (K x N) values: integers in [-2, 2], or normal."""
    rng = np.random.default_rng(seed)
    shapes = ((M, k), (k, N))
    if draw == "integers":
        return [rng.integers(-2, 3, s).astype(np.float32) for s in shapes]
    kind = KINDS[dtype]
    # Rounded to the input type (subnormals too).
    return [R.round_to(rng.standard_normal(s), 0.0, kind, "rn").astype(np.float32) for s in shapes]


def scale_arrays(scales, rows, cols, seed=3):
    rng = np.random.default_rng(seed)
    return {"none": (), "tensor": (np.array([[0.5]], np.float32), np.array([[3.0]], np.float32)),
            "row": (rng.uniform(0.5, 2, (rows, 1)).astype(np.float32),
                    rng.uniform(0.5, 2, (1, cols)).astype(np.float32))}[scales]


def operands(a, b, dtype, transposed):
    """The kernel's A and Bt bits (swap-AB: the GEMM's A is Bt)."""
    kind, bits = KINDS[dtype], np.uint8 if dtype == "e4m3" else np.uint16
    a_bits, bt_bits = (np.ascontiguousarray(R.encode(x, kind).astype(bits)) for x in (a, b.T))
    return (bt_bits, a_bits) if transposed else (a_bits, bt_bits)


def one_launch(a, b, dtype, how, scale_args, counters=None):
    """C of the one-launch kernel, the workspace and the counters after."""
    k, transposed = a.shape[1], how.transposed
    gm, gn = (N, M) if transposed else (M, N)
    w = np.full((CONFIG.split_k, gm, -(-gn // 8) * 8), np.nan, np.float32)
    c = np.zeros((M, N), np.float32 if how.out_dtype == "float32" else np.uint16)
    tiles = -(-gm // 64) * -(-gn // 64)
    counters = np.zeros((tiles, 1), np.uint32) if counters is None else counters
    kernel = hopper_gemm(gm, gn, k, dtype, CONFIG, finish=how)
    tile_mlir.interpret(kernel, *operands(a, b, dtype, transposed), w, c, counters, *scale_args)
    return c, w, counters


def two_launches(a, b, dtype, how, scale_args):
    """C of the partial GEMM, then gemm_reduce's sum."""
    k, transposed = a.shape[1], how.transposed
    gm, gn = (N, M) if transposed else (M, N)
    w = np.zeros((CONFIG.split_k, gm, -(-gn // 8) * 8), np.float32)
    tile_mlir.interpret(hopper_gemm(gm, gn, k, dtype, CONFIG, partial=True), *operands(a, b, dtype, transposed), w)
    c = np.zeros((M, N), np.float32 if how.out_dtype == "float32" else np.uint16)
    tile_mlir.interpret(split_k_reduce(M, N, CONFIG.split_k, how.out_dtype, how.scales, transposed), w, c, *scale_args)
    return c


def rounded(values, out_dtype):
    """C's bits: float32 as it is, else rounded once to nearest even."""
    values = np.asarray(values, np.float32)
    return values if out_dtype == "float32" else narrow(values, out_dtype)


CASES = [("bfloat16", SplitKFinish("bfloat16")), ("e4m3", SplitKFinish("float16", "row")),
         ("e4m3", SplitKFinish("bfloat16", "tensor", transposed=True)), ("float16", SplitKFinish("float32", "row",
                                                                                                 transposed=True)),
         ("bfloat16", SplitKFinish("bfloat16", "row", transposed=True))]


@pytest.mark.parametrize("dtype, how", CASES)
def test_exact_data_gives_the_scaled_product_rounded_once(dtype, how):
    # Integer data: every partial is exact, so C is the exact product times
    # the scales (in the stated order) rounded once; swap-AB's C is written
    # back as C (M x N); the counters are zero after the launch.
    k = 1024 if dtype == "e4m3" else 512
    a, b = arrays(dtype, k, "integers")
    scale_args = scale_arrays(how.scales, M, N)
    c, _, counters = one_launch(a, b, dtype, how, scale_args)
    want = gemm_reference.expected(a, b).astype(np.float32)
    if how.scales == "tensor":
        want = want * (scale_args[0] * scale_args[1])
    elif how.scales == "row":
        want = want * scale_args[0] * scale_args[1]
    assert np.array_equal(c, rounded(want, how.out_dtype))
    assert not counters.any()


@pytest.mark.parametrize("dtype, how", CASES[:3])
def test_random_data_gives_the_two_launch_plans_bits(dtype, how):
    # Normal data through the tensor cores' accumulation: the slices' sum
    # is in slice order whichever block arrived last, so C is the two
    # launch plan's bit for bit.
    k = 1024 if dtype == "e4m3" else 512
    a, b = arrays(dtype, k, "normal", seed=7)
    scale_args = scale_arrays(how.scales, M, N)
    c, _, _ = one_launch(a, b, dtype, how, scale_args)
    assert np.array_equal(c, two_launches(a, b, dtype, how, scale_args))


@pytest.mark.parametrize("arrive", ["atom.relaxed.gpu.global.add.u32", "atom.release.gpu.global.add.u32",
                                    "atom.acquire.gpu.global.add.u32"])
def test_an_arrival_without_acquire_or_release_is_a_race(monkeypatch, arrive):
    # The last block's reads of W are ordered after the other slices'
    # stores only through the counter's release and acquire.
    from tile_mlir.pipelining import arrivals
    monkeypatch.setattr(arrivals, "ARRIVE", arrive)  # the part's arrival (pipelining.last_arrival)
    a, b = arrays("bfloat16", 512, "integers")
    with pytest.raises(HazardError, match=r"read-after-write race on W byte \d+"):
        one_launch(a, b, "bfloat16", SplitKFinish("bfloat16"), ())


def test_counters_not_zero_at_launch_are_reported():
    # A counter left at 1: the tile's third slice takes itself for the last
    # and reads W before the fourth has stored it.
    a, b = arrays("bfloat16", 512, "integers")
    with pytest.raises(HazardError, match=r"race on W byte \d+"):
        one_launch(a, b, "bfloat16", SplitKFinish("bfloat16"), (), np.array([[1], [0]], np.uint32))


def test_what_it_cannot_take_is_refused():
    with pytest.raises(ValueError, match=r"C is one of \['bfloat16', 'float16', 'float32'\] and scales one of "
                       r"\('none', 'tensor', 'row'\), got 'int8', 'none'"):
        SplitKFinish("int8")
    with pytest.raises(ValueError, match=r"C's 16-bit pairs take an even N, got 71"):
        hopper_gemm(20, 71, 512, "bfloat16", CONFIG, finish=SplitKFinish())


@pytest.mark.parametrize("make", [
    lambda: hopper_gemm(16, 4096, 4096, "bfloat16", HopperGemmConfig(consumers=1, bn=128, stages=6, split_k=4,
                                                                        blocks=132), finish=SplitKFinish()),
    # swap-AB at M 3 with rowwise scales into fp16
    lambda: hopper_gemm(4096, 3, 4096, "e4m3", HopperGemmConfig(consumers=2, bn=64, stages=8, split_k=4, blocks=132),
                        finish=SplitKFinish("float16", "row", transposed=True))])
def test_one_launch_variants_assemble_with_no_stack(make):
    resources = sass.ptxas_resources(tile_mlir.compile(make(), target="sm_90a").ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources), resources
