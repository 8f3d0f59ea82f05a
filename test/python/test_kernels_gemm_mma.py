"""tile_mlir.kernels.gemm_mma: C = A Bt^T on mma.sync, TMA boxes in stages
and double-buffered fragments (issue #30's result).

In the interpreter it equals numpy bit for bit on integer-valued data past
every edge of M, N and K (the boxes' zero fill; C's elements outside the
product keep their values), and the s8 kernel equals the exact product
modulo 2^32 on the full range. Without the block barrier before a refill,
the interpreter names the race. Its SASS is what the bench kernels it
replaced had (bench/gemm's *_tma_prefetch winners, commit 14ca50e: the
same sequence of HMMA/IMMA, LDSM, UTMALDG, SYNCS, BAR and STG, and 210 or
77 registers; checked before they were deleted)."""

import collections
import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir.kernels import gemm_mma as gemm_module
from tile_mlir.kernels.gemm_mma import MmaGemmConfig, gemm_mma
from tile_mlir.kernels.reference import gemm as gemm_reference

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))
import sass  # noqa: E402


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_boxes_equal_numpy_past_every_edge(dtype):
    # M, N and K all end inside a block tile and a step: the boxes fill
    # zeros past the tensors (their bytes still complete the mbarrier's
    # transaction count) and the epilogue stores only what lies inside C,
    # whose other elements keep their 7s.
    m, n, k = 40, 40, 136
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, dtype, seed=21)
    c = np.full((m, n), 7, np.float32)
    config = MmaGemmConfig(block=(32, 32, 64), warps=(1, 2), stages=3, group_m=1)
    tile_mlir.interpret(gemm_mma(m, n, k, dtype, config), a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


def test_grouped_blocks_equal_numpy():
    # Four block rows in groups of two, two block columns.
    m, n, k = 128, 64, 192
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16", seed=5)
    c = np.zeros((m, n), np.float32)
    config = MmaGemmConfig(block=(32, 32, 64), warps=(1, 2), stages=3, group_m=2)
    tile_mlir.interpret(gemm_mma(m, n, k, "bfloat16", config), a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


def test_int8_equals_the_product_modulo_2_32():
    # s8 boxes of 128 bytes of K, read by ldmatrix as b16, past every edge.
    m, n, k = 40, 48, 304
    rng = np.random.default_rng(22)
    a, bt = rng.integers(-128, 128, (m, k)).astype(np.int8), rng.integers(-128, 128, (n, k)).astype(np.int8)
    c = np.zeros((m, n), np.int32)
    config = MmaGemmConfig(block=(32, 32, 128), warps=(1, 1), stages=3, group_m=1)
    tile_mlir.interpret(gemm_mma(m, n, k, "int8", config), a, bt, c)
    assert np.array_equal(c, (a.astype(np.int64) @ bt.T.astype(np.int64)).astype(np.int32))


def test_without_the_barrier_before_its_refill_the_pipeline_races(monkeypatch):
    # Thread 0 refills the stage the step before read once every warp has
    # passed the step's barrier; without it the box may land while the
    # other warp still reads that stage, and the interpreter says where.
    def refill_without_barrier(self, kt):
        self.copy(kt + self.g.config.stages - 1)
        get = gemm_module.PipelineState(self.g.config.stages, kt)
        if isinstance(kt, int):
            self.full[get.stage].wait(get.phase)
            return
        with gemm_module.T.if_(kt < self.g.steps):
            self.full[get.stage].wait(get.phase)

    monkeypatch.setattr(gemm_module._Boxes, "refill", refill_without_barrier)
    config = MmaGemmConfig(block=(32, 64, 64), warps=(1, 2), stages=3, group_m=1)
    a_bits, b_bits, _, _ = gemm_reference.inputs(32, 64, 256, "bfloat16", seed=23)
    with pytest.raises(tile_mlir.HazardError, match="race on the dynamic shared memory"):
        tile_mlir.interpret(gemm_mma(32, 64, 256, "bfloat16", config), a_bits, np.ascontiguousarray(b_bits.T),
                            np.zeros((32, 64), np.float32))


@pytest.mark.parametrize("kwargs, message", [
    (dict(m=64, n=64, k=256, dtype="float32"), "dtype is one of"),
    (dict(m=256, n=256, k=256, config=MmaGemmConfig(block=(128, 128, 128))), "a step is 128 bytes of K: 64"),
    (dict(m=256, n=256, k=128, config=MmaGemmConfig(block=(128, 128, 64), warps=(2, 2))), "4 stages over 2 steps"),
    (dict(m=256, n=256, k=100), r"K 100: a TMA box's rows are whole 16 bytes"),
    (dict(m=384, n=256, k=256), r"3 block rows in groups of 8"),
])
def test_problems_it_cannot_take_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gemm_mma(**{"dtype": "bfloat16", **kwargs})


def test_the_winning_configurations():
    assert MmaGemmConfig.best(4096, "bfloat16") == MmaGemmConfig(block=(128, 256, 64), warps=(2, 4), stages=4,
                                                                 group_m=8)
    assert MmaGemmConfig.best(64, "float16") == MmaGemmConfig(block=(64, 32, 64), warps=(2, 1), stages=8,
                                                              group_m=1)
    assert MmaGemmConfig.best(8192, "int8").block == (128, 256, 128)


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
@pytest.mark.parametrize("dtype, mma", [("bfloat16", "HMMA"), ("int8", "IMMA")])
def test_main_loop_sass(dtype, mma):
    compiled = tile_mlir.compile(gemm_mma(4096, 4096, 4096, dtype), target="sm_90a")
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources) and "Used 210 registers" in resources, resources
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # A step of a 64 x 64 warp tile: 4 x 8 x 4 mma and 4 x (4 + 4)
    # ldmatrix .x4, laid out once in the loop; the prologue's first
    # fragments (4 + 4); the boxes: 3 stages before the loop, one a step,
    # two boxes each; the block barrier after the mbarriers' initialization,
    # the first step's, and one a step; no local memory.
    assert counts[mma] == 128 and counts["LDSM"] == 32 + 8
    assert counts["UTMALDG"] == 2 * 3 + 2 + 2
    assert counts["BAR"] == 3 and counts["LDL"] == counts["STL"] == 0
