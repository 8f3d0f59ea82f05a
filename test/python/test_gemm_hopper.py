"""The Hopper GEMM of bench/gemm_hopper (issue #28): wgmma over swizzled
shared tiles that cp.async fills, through tile.matrix_descriptor. The
interpreter equals numpy bit for bit on integer-valued data
(bench/gemm/gemm_reference.py); ptxas -v shows no stack and no spills; the
SASS of the main loop is the instructions written (HGMMA 64x256x16, the
cp.async copies, one barrier, no local memory)."""

import collections
import importlib.util
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
_spec = importlib.util.spec_from_file_location("gemm_hopper_kernels",
                                               os.path.join(ROOT, "bench", "gemm_hopper", "kernels.py"))
kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernels)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_interpreter_equals_numpy(dtype):
    m, n, k = 128, 64, 320
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, dtype, seed=3)
    c = np.zeros((m, n), np.float32)
    kernel = kernels.gemm_kernel(m, n, k, dtype, bn=64, stages=4, group_m=1)
    tile_mlir.interpret(kernel, a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


@pytest.fixture(scope="module")
def compiled():
    return tile_mlir.compile(kernels.gemm_kernel(4096, 4096, 4096), target="sm_90a")


def test_no_stack_and_no_spills(compiled):
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources), resources


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_main_loop_sass_is_the_instructions_written(compiled):
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # One step of K = 64: four wgmma m64n256k16 per warpgroup; 4 + 8
    # 16-byte copies of A and Bt per thread in the loop and 2 x 12 before
    # it; the step's barrier; the epilogue's 64 pair stores; no local
    # memory.
    assert len(re.findall(r"\bHGMMA\.64x256x16\.F32\.BF16\b", text)) == counts["HGMMA"] == 4
    assert counts["LDGSTS"] == 3 * 12
    assert counts["BAR"] == 1
    assert len(re.findall(r"\bSTG\.E\.64\b", text)) == counts["STG"] == 64
    assert counts["LDL"] == counts["STL"] == 0


def test_warp_specialized_interpreter_equals_numpy_and_is_race_free():
    # The producer's copies reach the consumers only through the full
    # mbarriers (clocks.py orders them); 4 steps over 4 stages, so the
    # lockstep interpreter never makes the producer wait on a consumer.
    m, n, k = 128, 64, 256
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16", seed=5)
    c = np.zeros((m, n), np.float32)
    kernel = kernels.gemm_specialized(m, n, k, bn=64, stages=4, group_m=1)
    tile_mlir.interpret(kernel, a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_warp_specialized_sass():
    compiled = tile_mlir.compile(kernels.gemm_specialized(4096, 4096, 4096), target="sm_90a")
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources), resources
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # setmaxnreg as written in each role; the consumers' four wgmma a step;
    # the producer's 8 + 16 copies a step; the one barrier after the
    # mbarriers' initialization.
    assert len(re.findall(r"\bUSETMAXREG\.DEALLOC\.CTAPOOL 0x58\b", text)) == 1
    assert len(re.findall(r"\bUSETMAXREG\.TRY_ALLOC\.CTAPOOL UP0, 0xd0\b", text)) == 1
    assert len(re.findall(r"\bHGMMA\.64x256x16\.F32\.BF16\b", text)) == counts["HGMMA"] == 4
    assert counts["LDGSTS"] == 24
    assert counts["BAR"] == 1
    assert counts["LDL"] == counts["STL"] == 0


def test_tma_producer_interpreter_equals_numpy_and_is_race_free():
    # One thread copies each step as two TMA boxes; the consumers see them
    # through the full mbarriers' transaction counts.
    m, n, k = 128, 64, 256
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16", seed=7)
    c = np.zeros((m, n), np.float32)
    kernel = kernels.gemm_specialized(m, n, k, bn=64, stages=4, group_m=1, tma=True, producer_regs=40,
                                      consumer_regs=232)
    tile_mlir.interpret(kernel, a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


def _persistent_equals_numpy(m, n, k, seed, **options):
    """gemm_persistent on m x n x k bf16 integer data (64-column tiles and
    four stages unless `options` say otherwise, f32 C) in the interpreter,
    against numpy bit for bit."""
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "bfloat16", seed=seed)
    c = np.zeros((m, n), np.float32)
    kernel = kernels.gemm_persistent(m, n, k, group_m=1, out="float32", **{"bn": 64, "stages": 4, **options})
    tile_mlir.interpret(kernel, a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


def _rounded_equals_numpy(m, n, k, seed, **options):
    """gemm_persistent on m x n x k bf16 integer data in [-2, 2], C in
    bf16, in the interpreter, against the exact product rounded once."""
    a, b = [np.random.default_rng(seed).integers(-2, 3, s).astype(np.float32) for s in ((m, k), (k, n))]
    c = np.zeros((m, n), np.uint16)
    kernel = kernels.gemm_persistent(m, n, k, group_m=1, **options)
    tile_mlir.interpret(kernel, gemm_reference.bits(a, "bfloat16"),
                        np.ascontiguousarray(gemm_reference.bits(b, "bfloat16").T), c)
    assert np.array_equal(c, gemm_reference.bits(gemm_reference.expected(a, b), "bfloat16"))


def test_persistent_interpreter_equals_numpy():
    # Four tiles over two blocks, two steps each: stages and phases run on
    # across a block's tiles (4 fills of 4 stages, so the lockstep
    # interpreter never makes the producer wait on a consumer).
    _persistent_equals_numpy(256, 128, 128, 9, blocks=2)


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_l2_policies_ride_in_the_tma_loads_descriptors():
    # Each box's load takes its policy as a descriptor that the kernel
    # writes (unlike cp.async's, test_cp_async.py); the plain kernel's
    # loads take none.
    plain = tile_mlir.compile(kernels.gemm_persistent(4096, 4096, 4096), target="sm_90a")
    hinted = tile_mlir.compile(kernels.gemm_persistent(4096, 4096, 4096, a_priority="evict_first",
                                                       b_priority="evict_last"), target="sm_90a")
    loads = [i for i in sass.instructions(hinted.cubin) if i.mnemonic == "UTMALDG"]
    assert len(loads) == 2 and all("desc[UR" in i.operands for i in loads)
    assert sass.unwritten_uniform_reads(hinted.cubin, "UTMALDG") == []
    assert not any("desc[" in i.operands for i in sass.instructions(plain.cubin) if i.mnemonic == "UTMALDG")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(hinted.ptx, arch="sm_90a"))


def test_cluster_multicast_interpreter_equals_numpy_and_is_race_free():
    # Two blocks in a cluster, two tiles each, one above the other: each
    # loads its A box and half of Bt's tile, which TMA multicasts into both
    # blocks; each consumer frees a stage in both blocks. Five steps over
    # three stages: each producer waits for both blocks' consumers, so the
    # kernel runs as streams, the blocks' cluster barriers between them.
    # The deferred epilogue stores the first tile under the second's wgmma.
    _rounded_equals_numpy(512, 16, 320, 11, bn=16, stages=3, blocks=2, cluster=2, epilogue="deferred")


def test_pingpong_interpreter_equals_numpy_and_is_race_free():
    # One block, two 128 x 16 tiles of four steps through one ring of two
    # stages: consumer 0 takes the first, consumer 1 the second. Consumer
    # 1's first stage is two phases ahead of the ring until consumer 0's
    # turn ends: without the turns it would wait on the wrong phase, which
    # never ends (as on the H200).
    _persistent_equals_numpy(256, 16, 256, 13, blocks=1, pingpong=True, bn=16, stages=2)


def test_pingpong_with_two_steps_in_flight_equals_numpy():
    # wgmma.wait_group 2: each step's stage is freed two steps later, and
    # a tile's last two at its end.
    _persistent_equals_numpy(256, 16, 256, 15, blocks=1, pingpong=True, bn=16, stages=3, pending=2)


def test_deferred_epilogue_interpreter_equals_numpy():
    # One block, two tiles of five steps: the first tile's pairs, rounded
    # to bf16, are stored in four chunks after the second tile's first
    # four steps of wgmma; the second's after the loop. Integer data whose
    # f32 sums are exact, rounded once (C to 1,280: not all of it exact in
    # bf16).
    _rounded_equals_numpy(256, 16, 320, 5, bn=16, stages=3, blocks=1, epilogue="deferred")


def test_stream_k_interpreter_equals_numpy_and_is_race_free():
    # Four tiles of five steps over three blocks: each takes a whole tile
    # (stored by the deferred epilogue), then the fourth tile's five steps
    # are shared out as [0, 1), [1, 3), [3, 5). Blocks 1 and 2 store their
    # partials and set their flags with a release; block 0 waits for both
    # flags with an acquire, adds the partials and stores the tile. The
    # blocks run as streams of their own; the race check orders the
    # partials by the flags' release and acquire alone. The flags end at
    # zero, as the next launch needs them.
    m, n, k, blocks = 512, 16, 320, 3
    a, b = [np.random.default_rng(17).integers(-2, 3, s).astype(np.float32) for s in ((m, k), (k, n))]
    c = np.zeros((m, n), np.uint16)
    kernel = kernels.gemm_persistent(m, n, k, group_m=1, bn=16, stages=3, blocks=blocks, epilogue="deferred",
                                     stream_k=True)
    assert [name for name, _ in kernel.params] == ["A", "B", "C", "Workspace", "Flags"]
    workspace = np.zeros(kernel.params[3][1].shape, np.float32)
    flags = np.zeros(kernel.params[4][1].shape, np.uint32)
    tile_mlir.interpret(kernel, gemm_reference.bits(a, "bfloat16"),
                        np.ascontiguousarray(gemm_reference.bits(b, "bfloat16").T), c, workspace, flags)
    assert np.array_equal(c, gemm_reference.bits(gemm_reference.expected(a, b), "bfloat16"))
    assert not flags.any()


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_stream_k_sass():
    # The fixup as written: the flag set by one release reduction (ptxas
    # makes the release two MEMBARs and two error barriers before a strong
    # REDG),
    # spun on by one acquire load (a strong LDG, then CCTL.IVALL) and reset
    # by one relaxed store; a partial stored and read as 32 16-byte pieces
    # a thread, added by 128 FADD; no spills.
    compiled = tile_mlir.compile(kernels.gemm_persistent(4096, 4096, 4096, epilogue="deferred", stream_k=True),
                                 target="sm_90a")
    ops = sass.instructions(compiled.cubin)
    counts = collections.Counter(i.opcode for i in ops)
    assert {op: counts[op] for op in ("REDG.E.ADD.STRONG.GPU", "LDG.E.STRONG.GPU", "STG.E.STRONG.GPU",
                                      "CCTL.IVALL", "STG.E.128", "LDG.E.128", "FADD")} == {
        "REDG.E.ADD.STRONG.GPU": 1, "LDG.E.STRONG.GPU": 1, "STG.E.STRONG.GPU": 1, "CCTL.IVALL": 1,
        "STG.E.128": 32, "LDG.E.128": 32, "FADD": 128}
    red = next(j for j, i in enumerate(ops) if i.mnemonic == "REDG")
    assert [i.opcode for i in ops[red - 4:red]] == ["MEMBAR.ALL.CTA", "MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR"]
    acquire = next(j for j, i in enumerate(ops) if i.opcode == "LDG.E.STRONG.GPU")
    assert ops[acquire + 1].opcode == "CCTL.IVALL"
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_pingpong_sass():
    compiled = tile_mlir.compile(kernels.gemm_persistent(4096, 4096, 4096, bn=128, stages=6, pingpong=True),
                                 target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # Each consumer's two wgmma of 64 rows for each of the step's four k16.
    assert len(re.findall(r"\bHGMMA\.64x128x16\.F32\.BF16\b", text)) == counts["HGMMA"] == 8
    assert counts["UTMALDG"] == 2 and counts["LDL"] == counts["STL"] == 0
    # The turns: a wait at the consumer's barrier (its id in a register),
    # the first turn given by consumer 1 and each later one after a tile's
    # last wgmma; and the block's barrier after the mbarriers' init.
    barriers = [(kind, re.sub(r"^R\d+$", "R", which)) for kind, which in re.findall(r"\bBAR\.(\w+)[.\w]* (\w+)", text)]
    assert barriers == [("SYNC", "0x0"), ("ARV", "0x1"), ("SYNC", "R"), ("ARV", "R")]


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_deferred_epilogue_sass():
    # The next tile's first four steps, each four HGMMA then a chunk of 16
    # of the previous tile's 64 stores; the loop's step; then the 64
    # roundings, and the last tile's 64 stores after the loop. No spills
    # with the 64 rounded pairs beside the 128 accumulators.
    compiled = tile_mlir.compile(kernels.gemm_persistent(4096, 4096, 4096, epilogue="deferred"), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    order = " ".join(i.mnemonic for i in sass.instructions(compiled.cubin)
                     if i.mnemonic in ("HGMMA", "STG", "F2FP"))
    chunk = " ".join(["HGMMA"] * 4 + ["STG"] * 16)
    assert order == " ".join([chunk] * 4 + ["HGMMA"] * 4 + ["F2FP"] * 64 + ["STG"] * 64)
    # The tile's first wgmma starts the accumulators (scale-d false: the
    # zero register as C), so nothing zeroes them; every other one adds.
    multiplies = [i.operands for i in sass.instructions(compiled.cubin) if i.mnemonic == "HGMMA"]
    assert multiplies[0].endswith("RZ, !UPT") and not any("RZ" in m for m in multiplies[1:])


def test_deferred_tma_epilogue_interpreter_equals_numpy():
    # The deferred epilogue with each chunk (64 rows by 16 columns of a
    # consumer) written by stmatrix into the consumer's 32-byte-swizzled
    # buffer and stored as a TMA box, the box before waited for by
    # cp.async.bulk.wait_group.read: one block, two tiles of five steps.
    _rounded_equals_numpy(256, 64, 320, 5, bn=64, stages=3, blocks=1, epilogue="deferred_tma")


def test_deferred_tma_epilogue_takes_chunks_a_box_can_hold():
    with pytest.raises(ValueError, match=r"the deferred TMA epilogue takes no stream-K and chunks of \[16, 32, 64\]"):
        kernels.gemm_persistent(4096, 4096, 4096, bn=32, epilogue="deferred_tma")
    with pytest.raises(ValueError, match="the deferred TMA epilogue takes no stream-K"):
        kernels.gemm_persistent(4096, 4096, 4096, epilogue="deferred_tma", stream_k=True)


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_deferred_tma_epilogue_sass():
    # The next tile's first four steps, each four HGMMA then a chunk of the
    # previous tile: 4 stmatrix .x4 (64 rows by 64 columns of a consumer)
    # and one TMA box; the loop's step; the 64 roundings; the last tile's
    # four chunks. No global store from the registers, one copy of the
    # code for both consumers (the barrier's id is 1 + c, in a register).
    compiled = tile_mlir.compile(kernels.gemm_persistent(4096, 4096, 4096, epilogue="deferred_tma"),
                                 target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    order = " ".join(i.mnemonic for i in sass.instructions(compiled.cubin)
                     if i.mnemonic in ("HGMMA", "STG", "F2FP", "STSM", "UTMASTG"))
    chunk = " ".join(["STSM"] * 4 + ["UTMASTG"])
    assert order == " ".join([" ".join(["HGMMA"] * 4 + [chunk])] * 4 + ["HGMMA"] * 4 + ["F2FP"] * 64 + [chunk] * 4)
    assert len(re.findall(r"\bBAR\.SYNC\.DEFER_BLOCKING R\d+, 0x80\b", sass.listing(compiled.cubin))) == 2 * 8


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_cluster_multicast_sass():
    compiled = tile_mlir.compile(kernels.gemm_persistent(4096, 4096, 4096, cluster=2), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # A's box, and Bt's half multicast (one copy per rank's branch).
    assert len(re.findall(r"\bUTMALDG\.2D\.MULTICAST\b", text)) == 2 and counts["UTMALDG"] == 3
    # Each consumer's two arrivals (its block's and its peer's stage) after
    # a step and after a tile's last, with no fence: MEMBARs only at the
    # cluster barriers after the mbarriers' initialization and before the
    # exit.
    assert len(re.findall(r"\bSYNCS\.ARRIVE\.TRANS64\.RED\.A1T0\b", text)) == 4
    assert counts["MEMBAR"] == 4 and counts["UCGABAR_ARV"] == counts["UCGABAR_WAIT"] == 2
    assert len(re.findall(r"\bHGMMA\.64x256x16\.F32\.BF16\b", text)) == counts["HGMMA"] == 4
    assert counts["LDL"] == counts["STL"] == 0


def test_tma_epilogue_interpreter_equals_numpy():
    # C through stmatrix into swizzled shared memory and TMA stores, behind
    # barriers of each consumer warpgroup's 128 threads; C in bf16 (every
    # value below 256, exact).
    _rounded_equals_numpy(256, 128, 128, 3, bn=64, stages=4, blocks=2, epilogue="tma")


def test_e4m3_interpreter_equals_numpy():
    # K 128 a step (four wgmma of K 32); integer-valued e4m3 data.
    m, n, k = 128, 64, 512
    a_bits, b_bits, a, b = gemm_reference.inputs(m, n, k, "e4m3", seed=5)
    c = np.zeros((m, n), np.float32)
    kernel = kernels.gemm_specialized(m, n, k, dtype="e4m3", bn=64, stages=4, group_m=1, tma=True,
                                      producer_regs=40, consumer_regs=232)
    tile_mlir.interpret(kernel, a_bits, np.ascontiguousarray(b_bits.T), c)
    assert np.array_equal(c, gemm_reference.expected(a, b))


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_tma_producer_sass():
    compiled = tile_mlir.compile(kernels.gemm_specialized(4096, 4096, 4096, out="same", tma=True,
                                                          producer_regs=40, consumer_regs=232), target="sm_90a")
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources), resources
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # The producer's two boxes a step (ptxas lays the loop out twice, for
    # the steps before and after the stages are full) and its
    # expect_tx, no cp.async; setmaxnreg 40 and 232; four wgmma a step.
    assert len(re.findall(r"\bUTMALDG\.2D\b", text)) == counts["UTMALDG"] == 4
    assert len(re.findall(r"\bSYNCS\.ARRIVE\.TRANS64 ", text)) == 2
    assert counts["LDGSTS"] == 0
    assert len(re.findall(r"\bUSETMAXREG\.DEALLOC\.CTAPOOL 0x28\b", text)) == 1
    assert len(re.findall(r"\bUSETMAXREG\.TRY_ALLOC\.CTAPOOL UP0, 0xe8\b", text)) == 1
    assert len(re.findall(r"\bHGMMA\.64x256x16\.F32\.BF16\b", text)) == counts["HGMMA"] == 4
    assert counts["LDL"] == counts["STL"] == 0
    # e4m3: the tensor cores' fp8 instruction (QGMMA), four a step of 128.
    fp8 = tile_mlir.compile(kernels.gemm_specialized(4096, 4096, 4096, dtype="e4m3", out="bfloat16", tma=True,
                                                     producer_regs=40, consumer_regs=232), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(fp8.ptx, arch="sm_90a"))
    fp8_text = sass.listing(fp8.cubin)
    assert len(re.findall(r"\bQGMMA\.64x256x32\.F32\.E4M3\.E4M3\b", fp8_text)) == 4


def test_committed_h200_runs_are_bit_exact():
    import json
    names = set()
    for file in ("results.json", "results_first.json", "sweep.json", "results_specialized.json",
                 "results_tma.json", "sweep_tma.json", "results_queued.json", "results_deferred_tma.json",
                 "results_deferred_tma_sweep.json", "results_deferred_tma_final.json",
                 "results_descriptor_ab.json", "results_final.json"):
        with open(os.path.join(ROOT, "bench", "gemm_hopper", file)) as f:
            report = json.load(f)
        assert report["device"].startswith("NVIDIA H200")
        for name, entry in report["kernels"].items():
            assert entry["bit_exact_integer_data"], (file, name)
            if entry["dtype"] == "e4m3":
                # Sums of products to 2^16 are kept exactly; on random data
                # the error is cuBLASLt's with fast accumulation, which
                # also sums in the tensor cores' accumulator.
                assert entry["bit_exact_integer_data_to_4"], (file, name)
                assert entry["max_error_relative_to_max"] == \
                    entry["scaled_mm_fast_accum_max_error_relative_to_max"], (file, name)
            elif entry.get("output", "float32") == "float32":
                assert entry["max_error_relative_to_max"] < 1e-4, (file, name)
            else:  # C rounded to the inputs' type, as cuBLAS's is
                assert entry["max_error_relative_to_max"] <= entry["cublas_max_error_relative_to_max"], (file, name)
            names.add(name)
    # Every variant built today was measured.
    assert set(kernels.VARIANTS) | set(kernels.TMA) | set(kernels.TMA_SWEEP) | set(kernels.QUEUED) \
        | set(kernels.DEFERRED_TMA) | set(kernels.FINAL) <= names
