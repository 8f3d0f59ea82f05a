"""The warp tensor-core GEMM of bench/gemm (issue #27): the interpreter
equals numpy bit for bit on integer-valued data (gemm_reference.py), ptxas
-v shows no stack and no spills, the SASS of the main loop is the
instructions written (HMMA, LDSM, LDG.128, STS.128, one barrier, no local
memory), and the committed H200 run is bit-exact."""

import collections
import importlib.util
import json
import os
import re
import sys

import numpy as np
import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path[:0] = [os.path.join(ROOT, "bench", "gemm"), os.path.join(ROOT, "tools", "sass")]
import gemm_reference  # noqa: E402
import sass  # noqa: E402

# bench/*/kernels.py share a module name: load this one under its own.
_spec = importlib.util.spec_from_file_location("gemm_kernels", os.path.join(ROOT, "bench", "gemm", "kernels.py"))
kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernels)


@pytest.mark.parametrize("m, n, k, dtype", [(128, 128, 64, "float16"), (256, 128, 96, "bfloat16")])
def test_interpreter_equals_numpy(m, n, k, dtype):
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, dtype, seed=m + k)
    c = np.zeros((m, n), np.float32)
    tile_mlir.interpret(kernels.gemm_kernel(m, n, k, dtype), a_bits, b_bits, c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


@pytest.fixture(scope="module")
def compiled():
    return tile_mlir.compile(kernels.gemm_kernel(4096, 4096, 4096), target="sm_90")


def test_no_stack_and_no_spills(compiled):
    resources = sass.ptxas_resources(compiled.ptx)
    assert sass.NO_SPILLS.search(resources), resources


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_main_loop_sass_is_the_instructions_written(compiled):
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # One 32-wide step of K: 2 halves x 16 mma, 2 x (4 A + 2 B) ldmatrix, two
    # 16-byte pieces of A and of B per thread (and the first step's before
    # the loop), one barrier; the epilogue's 32 pair stores.
    assert len(re.findall(r"\bHMMA\.16816\.F32\b", text)) == counts["HMMA"] == 32
    assert len(re.findall(r"\bLDSM\.16\.M88\.4\b", text)) == 8
    assert len(re.findall(r"\bLDSM\.16\.MT88\.4\b", text)) == 4
    assert len(re.findall(r"\bLDG\.E\.128\b", text)) == counts["LDG"] == 8
    assert counts["STS"] == 4 and counts["BAR"] == 1
    assert len(re.findall(r"\bSTG\.E\.64\b", text)) == counts["STG"] == 32
    assert counts["LDL"] == counts["STL"] == 0


def test_committed_h200_runs_are_bit_exact():
    entries = {}
    for name in ("results.json", "results_prefetch.json", "results_retimed.json", "results_tilings.json",
                 "results_tma.json", "results_tma_first.json"):
        with open(os.path.join(ROOT, "bench", "gemm", name)) as f:
            entries.update({f"{name}:{k}": v for k, v in json.load(f)["kernels"].items()})
    # Every fp variant run (results.json, and the prefetched ones in
    # results_prefetch.json), each bit-exact on integer-valued data and
    # within 1e-4 of the float64 product on random data (cuBLAS: 3e-3 for
    # bf16); so is every kernel of the later runs.
    run = {key.split(":")[1] for key in entries
           if key.startswith(("results.json", "results_prefetch.json", "results_tma.json")) and "int8" not in key}
    assert run == {name for name in kernels.VARIANTS if name.startswith("gemm_") and "int8" not in name}
    for entry in entries.values():
        if "int8" in entry.get("dtype", ""):
            assert entry["bit_exact_vs_int64_modulo_2_32"]
            continue
        assert entry["bit_exact_integer_data"] and entry["max_error_relative_to_max"] < 1e-4
    with open(os.path.join(ROOT, "bench", "gemm", "results_int8.json")) as f:
        report = json.load(f)
    assert set(report["kernels"]) == {"gemm_int8_4096", "gemm_int8_8192"}
    assert all(entry["bit_exact_vs_int64_modulo_2_32"] for entry in report["kernels"].values())


def test_int8_interpreter_equals_numpy_modulo_2_32():
    # Full s8 range: the s32 sums are exact and wrap (no .satfinite).
    m, n, k = 128, 128, 192
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    bt = rng.integers(-128, 128, (n, k), dtype=np.int8)
    c = np.zeros((m, n), np.int32)
    tile_mlir.interpret(kernels.gemm_kernel(m, n, k, "int8", block=(128, 128, 64)), a, bt, c)
    assert np.array_equal(c, (a.astype(np.int64) @ bt.astype(np.int64).T).astype(np.int32))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_int8_main_loop_sass():
    compiled = tile_mlir.compile(kernels.gemm_kernel(4096, 4096, 4096, "int8", block=(128, 128, 64)), target="sm_90")
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # Per 64 bytes of K: 2 x 16 IMMA m16n8k32, 2 x (4 ldmatrix .x4 of A +
    # 2 .x4 of Bt, each two n8 blocks).
    assert len(re.findall(r"\bIMMA\.16832\.S8\.S8\b", text)) == counts["IMMA"] == 32
    assert len(re.findall(r"\bLDSM\.16\.M88\.4\b", text)) == counts["LDSM"] == 12
    assert counts["BAR"] == 1 and counts["LDL"] == counts["STL"] == 0


def test_cp_async_pipeline_equals_numpy_and_waits_right():
    # Three stages of cp.async over 4 steps of K: the interpreter delivers
    # each group at its wait and would report a read before it.
    a_bits, b_bits, a, b = gemm_reference.inputs(128, 128, 128, "float16", seed=9)
    c = np.zeros((128, 128), np.float32)
    tile_mlir.interpret(kernels.gemm_kernel(128, 128, 128, stages=3), a_bits, b_bits, c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_cp_async_pipeline_sass():
    compiled = tile_mlir.compile(kernels.gemm_kernel(4096, 4096, 4096, stages=3), target="sm_90")
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # Two stages ahead (2 x 4 copies) before the loop, 4 per step in it; a
    # commit each; one wait and one barrier per step; no staging registers.
    assert counts["LDGSTS"] == 12 and counts["LDGDEPBAR"] == 3 and counts["DEPBAR"] == 1
    assert counts["HMMA"] == 32 and counts["LDSM"] == 12 and counts["BAR"] == 1
    assert counts["LDG"] == counts["STS"] == counts["LDL"] == counts["STL"] == 0
    assert compiled.dynamic_shared_bytes == 3 * (128 * 40 + 32 * 136) * 2


def test_tail_equals_numpy_in_the_interpreter():
    # 100 x 136 x 40 over 64 x 128 x 32 blocks: a partial block in M, in N
    # and in K. Pieces outside A and B copy 0 bytes (zeros), stores outside
    # C are predicated off: C equals numpy and nothing else is written.
    m, n, k = 100, 136, 40
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16", seed=3)
    c = np.full((m, n), -7, np.float32)
    tile_mlir.interpret(kernels.gemm_kernel(m, n, k, "bfloat16", block=(64, 128, 32), warps=(2, 2), stages=3,
                                            swizzle=True, tail=True), a_bits, b_bits, c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


def test_tail_needs_whole_pieces():
    with pytest.raises(ValueError, match="N, K multiples of 8"):
        kernels.gemm_kernel(100, 130, 40, stages=3, tail=True)


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_tail_sass():
    kernel = tile_mlir.compile(kernels.VARIANTS["tail_bfloat16_4000x4040x4008_t128x256x64s3_swizzled"][0](
        **kernels.VARIANTS["tail_bfloat16_4000x4040x4008_t128x256x64s3_swizzled"][1]), target="sm_90")
    # Every copy carries its size register: 2 steps ahead and one per step,
    # 12 pieces each.
    assert len(re.findall(r"cp\.async\.cg\.shared\.global \[%rd\d+(?:\+\d+)?\], \[%rd\d+\], 16, %r\d+;", kernel.ptx)) == 36
    resources = sass.ptxas_resources(kernel.ptx)
    assert sass.NO_SPILLS.search(resources), resources
    counts = collections.Counter(i.mnemonic for i in sass.instructions(kernel.cubin))
    assert counts["LDGSTS"] == 36 and counts["HMMA"] == 128 and counts["LDL"] == counts["STL"] == 0
    # The 64 accumulator pairs of a thread, stored under their predicates.
    assert counts["STG"] == 64


def test_int8_swizzled_tail_equals_numpy_modulo_2_32():
    # s8 through the cp.async pipeline into swizzled tiles (128-byte rows),
    # with a partial block in M, N and K: 40 x 48 x 144 over 64 x 64 x 128.
    m, n, k = 40, 48, 144
    rng = np.random.default_rng(6)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    bt = rng.integers(-128, 128, (n, k), dtype=np.int8)
    c = np.full((m, n), 7, np.int32)
    tile_mlir.interpret(kernels.gemm_kernel(m, n, k, "int8", block=(64, 64, 128), warps=(2, 2), stages=3,
                                            swizzle=True, tail=True), a, bt, c)
    assert np.array_equal(c, (a.astype(np.int64) @ bt.astype(np.int64).T).astype(np.int32))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_int8_swizzled_main_loop_sass():
    make, kwargs = kernels.VARIANTS["gemm_int8_4096_t128x256x128s3_swizzled"]
    kernel = tile_mlir.compile(make(**kwargs), target="sm_90")
    counts = collections.Counter(sass.between(kernel.cubin, "DEPBAR.LE"))
    # A step of 128 bytes of K per 64 x 64 warp tile: 4 x 4 x 8 IMMA
    # m16n8k32, 4 x (4 + 4) ldmatrix .x4, 4 + 8 pieces per thread.
    assert counts["IMMA"] == 128 and counts["LDSM"] == 32 and counts["LDGSTS"] == 12 and counts["BAR"] == 1
    assert counts["LDL"] == counts["STL"] == 0


def test_runtime_sizes_one_kernel_for_every_shape():
    # m, n, k None: tensors of runtime extents and int32 sizes; one kernel
    # runs 40 x 72 x 40 (a partial block in M, N and K) and 64 x 64 x 96.
    fn = kernels.gemm_kernel(None, None, None, "bfloat16", block=(64, 64, 32), warps=(2, 2), stages=3, swizzle=True)
    for m, n, k in ((40, 72, 40), (64, 64, 96)):
        a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16", seed=m + n)
        c = np.full((m, n), -7, np.float32)
        tile_mlir.interpret(fn, a_bits, b_bits, c, m, n, k, grid=(-(-n // 64), -(-m // 64)))
        assert np.array_equal(c, gemm_reference.expected(a, b))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_runtime_sizes_sass():
    kernel = tile_mlir.compile(kernels.gemm_kernel(None, None, None, "bfloat16", block=(128, 256, 64), warps=(2, 4),
                                                   stages=3, swizzle=True), target="sm_90")
    assert [p.shape for p in kernel.params[:3]] == [(None, None)] * 3 and kernel.grid is None
    resources = sass.ptxas_resources(kernel.ptx)
    assert sass.NO_SPILLS.search(resources), resources
    counts = collections.Counter(i.mnemonic for i in sass.instructions(kernel.cubin))
    # 2 steps ahead and one per step, 12 pieces each; the loop's mma.
    assert counts["LDGSTS"] == 36 and counts["HMMA"] == 128 and counts["LDL"] == counts["STL"] == 0


def test_prefetched_fragments_equal_numpy_in_the_interpreter():
    # Fragments double-buffered across the step's barrier (prefetch): over
    # 3 steps of K, each with a wait, a barrier and a refill inside its
    # last 16 of K; the interpreter would report a read before a copy landed.
    a_bits, b_bits, a, b = gemm_reference.inputs(64, 64, 192, "bfloat16", seed=11)
    c = np.zeros((64, 64), np.float32)
    tile_mlir.interpret(kernels.gemm_kernel(64, 64, 192, "bfloat16", stages=3, block=(64, 64, 64), warps=(2, 2),
                                            swizzle=True, prefetch=True), a_bits, b_bits, c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_prefetched_fragments_sass():
    kernel = tile_mlir.compile(kernels.gemm_kernel(4096, 4096, 4096, "bfloat16", block=(128, 256, 64), warps=(2, 4),
                                                   stages=3, group_m=8, swizzle=True, prefetch=True), target="sm_90")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(kernel.ptx))
    counts = collections.Counter(i.mnemonic for i in sass.instructions(kernel.cubin))
    # The prologue: 2 steps of 12 copies, a wait, the barrier, a refill of
    # 12 and the first 16 of K's 8 ldmatrix; a step: 4 x 32 mma, 3 x 8
    # ldmatrix ahead, and in its last 16 of K a wait, the barrier, a refill
    # and the next step's first 8 ldmatrix.
    assert counts["HMMA"] == 128 and counts["LDSM"] == 8 + 32
    assert counts["LDGSTS"] == 24 + 12 + 12 and counts["BAR"] == 2 and counts["DEPBAR"] == 2
    assert counts["LDL"] == counts["STL"] == counts["LDG"] == counts["STS"] == 0


def test_l2_qualified_copies_equal_numpy_and_are_spelled_as_asked():
    # l2_priority and l2_prefetch qualify every cp.async of the pipeline;
    # the policy is made once, before the first copy. Each policy copy
    # carries ptxas 13.0's caveat (test_cp_async.py): this pipeline is the
    # kernel the H200 stopped with an illegal instruction.
    fn = kernels.gemm_kernel(64, 64, 192, "bfloat16", stages=3, block=(64, 64, 64), warps=(2, 2), swizzle=True,
                             prefetch=True, l2_priority="evict_last", l2_prefetch="256B")
    a_bits, b_bits, a, b = gemm_reference.inputs(64, 64, 192, "bfloat16", seed=12)
    c = np.zeros((64, 64), np.float32)
    tile_mlir.interpret(fn, a_bits, b_bits, c)
    assert np.array_equal(c, gemm_reference.expected(a, b))
    with pytest.warns(tile_mlir.TileWarning, match=r"cp\.async with \.L2::cache_hint into an LDGSTS"):
        ptx = tile_mlir.compile(fn, target="sm_90").ptx
    policies = re.findall(r"createpolicy\.fractional\.L2::evict_last\.b64 (%rd\d+);", ptx)
    copies = re.findall(r"cp\.async\.cg\.shared\.global(\S*) \[%rd\d+\], \[%rd\d+\], 16(, %rd\d+)?;", ptx)
    assert len(policies) == 1 and copies
    assert set(copies) == {(".L2::cache_hint.L2::256B", f", {policies[0]}")}


def test_mbarrier_pipeline_equals_numpy_in_the_interpreter():
    # Full and empty mbarriers a stage instead of the step's barrier, 4
    # stages over 5 steps: bit for bit, the copies delivered by the phases,
    # and no race (a refill is a write at its issue: without the empty wait
    # it races with the reads of the step before, test_cp_async.py).
    fn = kernels.gemm_kernel(64, 64, 160, "float16", stages=4, block=(64, 64, 32), warps=(2, 2), swizzle=True,
                             prefetch=True, mbarriers=True)
    a_bits, b_bits, a, b = gemm_reference.inputs(64, 64, 160, "float16", seed=14)
    c = np.zeros((64, 64), np.float32)
    tile_mlir.interpret(fn, a_bits, b_bits, c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


def test_without_its_empty_wait_the_mbarrier_pipeline_races():
    # kernels.py with the refill's wait on the stage's empty mbarrier taken
    # out: at 4 stages a refill may then overwrite a stage another warp
    # still reads, and the interpreter says where.
    source = open(os.path.join(ROOT, "bench", "gemm", "kernels.py")).read()
    assert source.count("wait(empty, kt - 1)") == 1
    mutant = type(kernels)("gemm_kernels_without_empty_wait")
    exec(compile(source.replace("wait(empty, kt - 1)", "pass"), "kernels_without_empty_wait.py", "exec"),
         mutant.__dict__)
    fn = mutant.gemm_kernel(64, 64, 160, "float16", stages=4, block=(64, 64, 32), warps=(2, 2), swizzle=True,
                            prefetch=True, mbarriers=True)
    a_bits, b_bits, _, _ = gemm_reference.inputs(64, 64, 160, "float16", seed=14)
    with pytest.raises(tile_mlir.HazardError, match="write-after-read race on the dynamic shared memory"):
        tile_mlir.interpret(fn, a_bits, b_bits, np.zeros((64, 64), np.float32))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_mbarrier_pipeline_sass_has_no_block_barrier_in_the_loop():
    kernel = tile_mlir.compile(kernels.gemm_kernel(4096, 4096, 4096, "bfloat16", block=(128, 256, 64), warps=(2, 4),
                                                   stages=4, group_m=8, swizzle=True, prefetch=True, mbarriers=True),
                               target="sm_90")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(kernel.ptx))
    counts = collections.Counter(i.mnemonic for i in sass.instructions(kernel.cubin))
    # One BAR, after the mbarriers' initialization; a step's 128 mma.
    assert counts["BAR"] == 1 and counts["HMMA"] == 128 and counts["LDL"] == counts["STL"] == 0
    assert counts["SYNCS"] > 0


@pytest.mark.parametrize("dtype, prefetch", [("bfloat16", True), ("float16", False)])
def test_tma_boxes_equal_numpy_past_every_edge_in_the_interpreter(dtype, prefetch):
    # M, N and K all end inside a block tile and a step: the boxes fill
    # zeros past the tensors (their bytes still complete the mbarrier's
    # transaction count) and the epilogue stores only what lies inside C,
    # whose other elements keep their 7s.
    m, n, k = 40, 40, 136
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, dtype, seed=21)
    c = np.full((m, n), 7, np.float32)
    fn = kernels.gemm_kernel(m, n, k, dtype, stages=3, block=(32, 32, 64), warps=(1, 2), tma=True, prefetch=prefetch)
    tile_mlir.interpret(fn, a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


def test_int8_tma_boxes_equal_numpy_modulo_2_32():
    # s8 boxes of 128 bytes of K, read by ldmatrix as b16, past every edge.
    m, n, k = 40, 48, 304
    rng = np.random.default_rng(22)
    a, bt = rng.integers(-128, 128, (m, k)).astype(np.int8), rng.integers(-128, 128, (n, k)).astype(np.int8)
    c = np.zeros((m, n), np.int32)
    fn = kernels.gemm_kernel(m, n, k, "int8", stages=3, block=(32, 32, 128), warps=(1, 1), tma=True, prefetch=True)
    tile_mlir.interpret(fn, a, bt, c)
    assert np.array_equal(c, (a.astype(np.int64) @ bt.T.astype(np.int64)).astype(np.int32))


def test_without_the_barrier_before_its_refill_the_tma_pipeline_races():
    # Thread 0 refills the stage the step before read once every warp has
    # passed the step's barrier; without it the box may land while the
    # other warp still reads that stage, and the interpreter says where.
    source = open(os.path.join(ROOT, "bench", "gemm", "kernels.py")).read()
    barrier = 'T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))\n                copy(kt + stages - 1'
    assert source.count(barrier) == 1
    mutant = type(kernels)("gemm_kernels_without_refill_barrier")
    exec(compile(source.replace(barrier, "copy(kt + stages - 1"), "kernels_without_refill_barrier.py", "exec"),
         mutant.__dict__)
    fn = mutant.gemm_kernel(32, 64, 256, "bfloat16", stages=3, block=(32, 64, 64), warps=(1, 2), tma=True)
    a_bits, b_bits, _, _ = gemm_reference.inputs(32, 64, 256, "bfloat16", seed=23)
    with pytest.raises(tile_mlir.HazardError, match="race on the dynamic shared memory"):
        tile_mlir.interpret(fn, a_bits, np.ascontiguousarray(b_bits.T), np.zeros((32, 64), np.float32))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_tma_pipeline_sass():
    kernel = tile_mlir.compile(kernels.gemm_kernel(4096, 4096, 4096, "bfloat16", block=(128, 256, 64), warps=(2, 4),
                                                   stages=4, group_m=8, tma=True, prefetch=True), target="sm_90")
    resources = sass.ptxas_resources(kernel.ptx)
    assert sass.NO_SPILLS.search(resources) and "Used 210 registers" in resources, resources
    counts = collections.Counter(i.mnemonic for i in sass.instructions(kernel.cubin))
    # Two boxes a step: 3 stages ahead, the first refill and one a step;
    # barriers after the mbarriers' initialization, before the first
    # refill and one a step; no copy computed by the threads, no local
    # memory. A step: 128 mma, 32 ldmatrix (and the first 8 before).
    text = sass.listing(kernel.cubin)
    assert len(re.findall(r"\bUTMALDG\.2D\b", text)) == counts["UTMALDG"] == 2 * (3 + 1 + 1)
    assert counts["BAR"] == 3 and counts["HMMA"] == 128 and counts["LDSM"] == 8 + 32
    assert counts["LDGSTS"] == counts["LDG"] == counts["STS"] == counts["LDL"] == counts["STL"] == 0


def test_tma_takes_a_pipeline_and_steps_of_128_bytes():
    message = "tma takes a pipeline \\(stages\\), steps of 128 bytes of K, no tail and no mbarriers"
    for options in (dict(), dict(stages=3, block=(128, 128, 32)), dict(stages=3, tail=True),
                    dict(stages=3, prefetch=True, mbarriers=True)):
        with pytest.raises(ValueError, match=message):
            kernels.gemm_kernel(256, 256, 256, "bfloat16", tma=True, **{"block": (128, 128, 64), **options})


def test_prefetch_needs_a_pipeline_no_longer_than_k():
    with pytest.raises(ValueError, match="prefetch takes a cp.async pipeline"):
        kernels.gemm_kernel(128, 128, 64, stages=3, block=(128, 128, 64), prefetch=True)
