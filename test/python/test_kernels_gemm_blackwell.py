"""The Blackwell GEMM (kernels/gemm_blackwell.py): bit for bit in the
interpreter on exact data (the TMA ring freed by the MMA's commits, D in
tensor memory handed to the epilogue through an mbarrier), assembled for
sm_100a with no spills and its SASS the instructions written."""

import collections
import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir.kernels.gemm_blackwell import BlackwellGemmConfig, blackwell_gemm

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "sass"))
import sass  # noqa: E402

NEEDS_SASS = pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")


def bf16_bits(values):
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize("m, n, k, bn, stages", [(128, 256, 256, 128, 2), (256, 64, 128, 64, 4)])
def test_the_product_is_numpys_bit_for_bit(m, n, k, bn, stages):
    # Entries in -1..1: every partial sum and C (|C| <= K <= 256) exact in
    # float32 and in bf16. With 4 steps over 2 slots the producer refills
    # a slot once the MMA's commit has freed it.
    rng = np.random.default_rng(m + n + k)
    a, b = rng.integers(-1, 2, (m, k)), rng.integers(-1, 2, (n, k))
    c = np.full((m, n), 0x7777, np.uint16)
    tile_mlir.interpret(blackwell_gemm(m, n, k, config=BlackwellGemmConfig(bn=bn, stages=stages)), bf16_bits(a),
                        bf16_bits(b), c, target="sm_100a")
    assert np.array_equal(c, bf16_bits(a @ b.T))


def e4m3_bits(values):
    # -1, 0 and 1 in e4m3: sign, exponent 7 (the bias), no fraction.
    return np.where(values == 0, 0, np.where(values > 0, 0x38, 0xB8)).astype(np.uint8)


def test_an_e4m3_product_is_numpys_bit_for_bit():
    # kind::f8f6f4: a step is 128 e4m3 of K (one 128-byte row), an mma 32.
    m, n, k = 128, 128, 512
    rng = np.random.default_rng(9)
    a, b = rng.integers(-1, 2, (m, k)), rng.integers(-1, 2, (n, k))
    assert np.abs(a @ b.T).max() <= 256  # every C exact in bf16
    c = np.zeros((m, n), np.uint16)
    tile_mlir.interpret(blackwell_gemm(m, n, k, "e4m3", BlackwellGemmConfig(stages=2)), e4m3_bits(a), e4m3_bits(b),
                        c, target="sm_100a")
    assert np.array_equal(c, bf16_bits(a @ b.T))


def test_shapes_it_does_not_take_are_refused():
    with pytest.raises(ValueError, match=r"100 x 128 x 64: M a multiple of 128, N of bn \(128: 64, 128 or 256\)"):
        blackwell_gemm(100, 128, 64)
    with pytest.raises(ValueError, match=r"N of bn \(96: 64, 128 or 256\)"):
        blackwell_gemm(128, 96, 64, config=BlackwellGemmConfig(bn=96))
    with pytest.raises(ValueError, match=r"128 x 128 x 64: .* K of 128"):
        blackwell_gemm(128, 128, 64, "e4m3")
    with pytest.raises(ValueError, match=r"dtype 'float16': one of bfloat16, e4m3"):
        blackwell_gemm(128, 128, 64, "float16")


@NEEDS_SASS
@pytest.mark.parametrize("dtype, mma, loads", [("bfloat16", "UTCHMMA", 4), ("e4m3", "UTCQMMA", 16)])
def test_sass_is_the_instructions_written_with_no_spills(dtype, mma, loads):
    # A step's four tcgen05.mma (UTCHMMA; e4m3's UTCQMMA), its commit and the last one
    # (UTCBAR), the producer's two TMA loads (UTMALDG: its loop of 16 bf16
    # steps peeled once by ptxas, the 8 e4m3 steps unrolled), the
    # epilogue's four 32-column loads of D (LDTM) and their
    # sixteen v4 stores; no local memory.
    compiled = tile_mlir.compile(blackwell_gemm(1024, 1024, 1024, dtype), target="sm_100a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_100a"))
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert (counts[mma], counts["UTCBAR"], counts["UTMALDG"], counts["LDTM"], counts["STG"]) == (4, 2, loads, 4, 16)
    assert (counts["LDL"], counts["STL"]) == (0, 0)
