"""The attention forward of bench/attention (issue #28): wgmma for S = Q K^T
(K-major descriptors) and O += P V (P's registers as A fragments, V read
MN-major), the online softmax between them. On data where every step is
exact (S integer, so P is powers of two with scale_log2 1), the
interpreter's O equals float64's, rounded once by the final division, bit
for bit, over two key blocks of 64 or of 128, and causal with head
dimension 128 (the diagonal block's keys past a row masked to -inf, Q, K
and V in two halves of 64 columns); ptxas -v shows no spills;
the SASS of the loop is the eight wgmma written. The same holds for the
warp-specialized kernels: FlashAttention 3's order with a ring that is
refilled (the interpreter runs the warpgroups as streams), bf16 O, and the
persistent kernel whose consumers take turns; and their SASS without fold
barriers is their SASS with them less the barriers."""

import collections
import importlib.util
import os
import re
import sys
import warnings

import numpy as np
import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path[:0] = [os.path.join(ROOT, "bench", "gemm"), os.path.join(ROOT, "tools", "sass")]
import gemm_reference  # noqa: E402
import sass  # noqa: E402

_spec = importlib.util.spec_from_file_location("attention_kernels",
                                               os.path.join(ROOT, "bench", "attention", "kernels.py"))
kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernels)


def _exact_case(make, seq, d, causal, seed, **options):
    """Runs `make(1, seq, scale_log2=1.0, ...)` in the interpreter on data
    where every step is exact (one nonzero of 0-2 per row of Q, K in -2..2:
    S in -4..4, so P's powers of two, their sums and P V are exact) and
    checks O against float64 rounded once by the final division."""
    rng = np.random.default_rng(seed)
    q = np.zeros((seq, d))
    q[np.arange(seq), rng.integers(0, d, seq)] = rng.integers(0, 3, seq)
    k = rng.integers(-2, 3, (seq, d)).astype(np.float64)
    v = rng.integers(-4, 5, (seq, d)).astype(np.float64)
    bits = [gemm_reference.bits(x.astype(np.float32), "bfloat16") for x in (q, k, v)]
    bf16_out = options.get("out") == "bfloat16"
    out = np.zeros((seq, d), np.uint16 if bf16_out else np.float32)
    with pytest.warns(tile_mlir.InterpretWarning, match="ex2.approx.ftz.f32 ran as its correctly rounded"):
        tile_mlir.interpret(make(1, seq, scale_log2=1.0, causal=causal, d=d, **options), *bits, out)
    s = q @ k.T
    if causal:
        s[np.triu_indices(seq, 1)] = -np.inf
    p = np.exp2(s - s.max(axis=1, keepdims=True))
    l = p.sum(axis=1, keepdims=True).astype(np.float32)
    if options.get("divide") == "rcp":
        want = (p @ v).astype(np.float32) * (np.float32(1) / l)  # rcp.rn.f32, then mul.rn.f32
    else:
        want = (p @ v).astype(np.float32) / l
    if bf16_out:  # cvt.rn.bf16x2.f32: to nearest, ties to even (no NaN here)
        u = want.view(np.uint32).astype(np.uint64)
        want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("seq, options", [(128, {}), (256, {"bn": 128}), (128, {"causal": True, "d": 128})])
def test_interpreter_equals_float64_on_exact_data(seq, options):
    options = dict(options)
    _exact_case(kernels.attention_kernel, seq, options.pop("d", 64), options.pop("causal", False), 0, **options)


def test_warp_specialized_interpreter_equals_float64_on_exact_data():
    # The TMA producer and two consumers of 64 rows (one block of 128 query
    # rows), causal, head dimension 128: the mask in the consumers' last
    # key blocks, Q, K and V in two halves of 64 columns by TMA boxes.
    _exact_case(kernels.attention_specialized, 128, 128, True, 1)


@pytest.mark.parametrize("seq, options", [
    (256, dict(d=64, bn=64, stages=2)),
    (256, dict(d=128, bn=128, stages=2, causal=True, out="bfloat16", divide="rcp"))])
def test_pipelined_interpreter_equals_float64_on_exact_data(seq, options):
    # FlashAttention 3's order: S of key block j and P V of block j - 1
    # in flight together, the softmax between their waits; four key blocks
    # of 64 through a ring of 2 stages, each refilled once the consumers
    # free it (the warpgroups run as streams), and causal with d 128 (one
    # block of two key blocks of 128, one of a single block: the loop never
    # runs; O / l by a reciprocal, rounded to bf16). The consumers' turns
    # run in the persistent kernel's test.
    options = dict(options, pipelined=True, registers=(24, 240))
    _exact_case(kernels.attention_specialized, seq, options.pop("d"), options.pop("causal", False), 2, **options)


@pytest.mark.parametrize("d, options", [
    (128, dict(epilogue="tma_in_q")), (64, dict(epilogue="tma", causal=True)),
    (128, dict(epilogue="tma_in_k", causal=True, bn=128, stages=2)),
    (64, dict(epilogue="tma_in_k", causal=True, bn=128, stages=2, defer_free=False, seq=512)),
    (128, dict(epilogue="tma_in_k", bn=128, stages=3, v_stages=2, q_buffers=2)),
    (64, dict(epilogue="tma_in_k", causal=True, bn=128, stages=3, v_stages=2, q_buffers=2, defer_free=False,
              seq=512))])
def test_persistent_interpreter_equals_float64_on_exact_data(d, options):
    # One block takes both tiles of 128 rows, four key blocks of 64 each
    # through 3 stages: the ring, the consumers' turns (bar.sync and
    # bar.arrive with a thread count of 256) and Q run on from the first
    # tile to the second; O in bf16, by a reciprocal, stored by TMA boxes.
    # Through the consumer's rows of Q (d 128), the second tile's Q waits
    # until the first tile's boxes have read them (loaded before its key
    # block 3); through a buffer of its own (d 64), the second tile's boxes
    # wait. Causal, the two tiles are one unit: rows 128-255 over four key
    # blocks, then rows 0-127 over two (fewer than the stages: its Q loads
    # after them), the diagonal blocks masked. Through the consumer's rows
    # of K (keys of 128, 2 stages): each tile's O waits in the stage of its
    # last key block until the other consumer's last S retired, and that
    # stage waits for the boxes; at d 128 (rows 128-255 over two key
    # blocks, then rows 0-127 over one) freed once the next tile's S is in
    # flight, at d 64 (S 512: two pairs, tiles of 4, 1, 3 and 2 key blocks)
    # at once. With V in a ring of 2 beside K's of 3 and two buffers of Q
    # (keys of 128): at d 128, the second tile's Q loaded once the
    # producer has loaded the first's key block 1; causal at d 64 (S 512),
    # the third tile's Q in the first's buffer, the second's loaded after
    # its only key block, and O's stage freed at once. The register stores
    # run in the pipelined kernels' tests.
    def make(bh, seq, causal, **options):
        return kernels.attention_persistent(bh, seq, causal=causal, **options)
    options = dict(dict(bn=64, stages=3, blocks=1, out="bfloat16", divide="rcp"), **options)
    causal, seq = options.pop("causal", False), options.pop("seq", 256)
    _exact_case(make, seq, d, causal, 3, **options)


def test_persistent_consumer_that_skips_the_wait_for_v_is_reported(monkeypatch):
    # With V in a ring of its own, P V must wait for V's full mbarrier,
    # not only for K's. Without that wait, the interpreter reports the
    # wgmma's read of V's stage before the TMA box has been delivered.
    monkeypatch.setattr(kernels._Ring, "wait_v", lambda self, g: None)
    kernel = kernels.attention_persistent(1, 256, scale_log2=1.0, d=128, bn=128, stages=3, blocks=1,
                                          out="bfloat16", divide="rcp", epilogue="tma_in_k", v_stages=2, q_buffers=2)
    zeros = np.zeros((256, 128), np.uint16)
    with pytest.raises(tile_mlir.HazardError, match=r"kernels.py:\d+: wgmma.mma_async.sync.aligned.m64n128k16.f32."
                       r"bf16.bf16 touches the dynamic shared memory byte \d+, which the cp.async.bulk at "
                       r".*kernels.py:\d+ has not delivered: no mbarrier wait has seen the phase it completes"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tile_mlir.InterpretWarning)
            tile_mlir.interpret(kernel, zeros, zeros, zeros, zeros.copy())


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_pipelined_sass():
    # setmaxnreg is kept (the consumers need more than the 168 registers
    # of 384 threads): no spills in 240, S's 8 wgmma n128 before the loop
    # and in it, P V's 8 n128 in it and after it (V's two halves of 64
    # columns one MN-major operand, a 3-D descriptor); as two n64 a k chunk
    # (`wide_pv=False`), P V's 16 n64 there instead.
    for wide_pv, n128, n64 in ((True, 32, 0), (False, 16, 32)):
        compiled = tile_mlir.compile(kernels.attention_specialized(
            64, 4096, d=128, bn=128, stages=3, pipelined=True, registers=(24, 240), wide_pv=wide_pv),
            target="sm_90a")
        resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
        assert sass.NO_SPILLS.search(resources), resources
        text = sass.listing(compiled.cubin)
        counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
        assert len(re.findall(r"\bUSETMAXREG\.TRY_ALLOC\b|\bUSETMAXREG\.DEALLOC\b", text)) == counts["USETMAXREG"] == 2
        assert len(re.findall(r"\bHGMMA\.64x128x16\.F32\.BF16\b", text)) == n128
        assert len(re.findall(r"\bHGMMA\.64x64x16\.F32\.BF16\b", text)) == n64 == counts["HGMMA"] - n128
        assert counts["LDL"] == counts["STL"] == 0


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
@pytest.mark.parametrize("d, options, stsm, boxes", [
    (64, dict(epilogue="tma"), 4, 1), (128, dict(epilogue="tma_in_q"), 8, 2), (64, dict(epilogue="tma_in_k"), 4, 1),
    (128, dict(epilogue="tma_in_k"), 8, 2), (64, dict(epilogue="tma_in_k", stages=4, q_buffers=2), 4, 1),
    (128, dict(epilogue="tma_in_k", v_stages=2, q_buffers=2), 8, 2)])
def test_tma_epilogue_sass(d, options, stsm, boxes):
    # The persistent kernel's O: 4 stmatrix.x4 a 64 columns, one TMA box
    # store each, no st.global; at d 128 through the consumer's rows of Q
    # or of K, with 3 stages (or K's 3, V's 2 and two buffers of Q) and no
    # spills in 240 registers. The wgmma as written, each issue laid out
    # twice (before the loop and in it): S 4 n128 at d 64, 8 at d 128; P V
    # 8 n64 at d 64, 8 n128 at d 128 (one a k chunk).
    compiled = tile_mlir.compile(kernels.attention_persistent(64, 4096, d=d, **options), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert counts["STSM"] == stsm and counts["UTMASTG"] == boxes and counts["STG"] == 0
    assert counts["LDL"] == counts["STL"] == 0
    hgmma = collections.Counter(re.findall(r"\bHGMMA\.(64x\d+x16)\.F32\.BF16\b", sass.listing(compiled.cubin)))
    assert hgmma == ({"64x128x16": 8, "64x64x16": 16} if d == 64 else {"64x128x16": 32})


# Integer instructions whose choice moves with the register allocation
# (the same moves and address arithmetic spelled differently).
_INTEGER_MOVES = re.compile(r"^(MOV|IMAD|IADD3|VIADD|SHF|LEA|ISETP|SEL|IMNMX|VIMNMX|LOP3|PRMT|S2R|CS2R|ULDC|UMOV|UIADD3|"
                            r"ULEA|USHF|UIMAD|ULOP3|R2UR|NOP|BRA|BSYNC|BSSY)")


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_without_fold_barriers_ptxas_folds_nothing_into_the_conversions():
    # The pipelined kernels' cvt.rn.bf16x2.f32 read ex2.approx results (P)
    # and mul.rn results (O / l). ex2 is measured never to fold into a cvt
    # (tools/forms/cvt_source_folds.py), so P's are emitted as written;
    # mul is a measured producer, so O's keep the cvt-source barrier
    # (docs/design.md). Built without it (fold_barriers="off", as
    # bench/attention/build.py builds them), ptxas makes every float and
    # conversion instruction it made with it, F2FP included: it folded
    # nothing here. Only the VIMNMX barriers (one a source) go.
    make = lambda mode: tile_mlir.compile(kernels.attention_specialized(
        64, 4096, d=64, bn=128, stages=3, causal=True, pipelined=True, registers=(24, 240), pingpong=True,
        out="bfloat16", divide="rcp"), target="sm_90a", fold_barriers=mode)
    with pytest.warns(UserWarning, match="fold-barriers=off leaves cvt.rn.bf16x2.f32 exposed to the cvt-source"):
        off = make("off")
    auto = make("auto")
    ops = [collections.Counter(i.opcode for i in sass.instructions(c.cubin)) for c in (auto, off)]
    # P's 32 cvt before the loop and 32 in it, O's 16 in the store; an
    # identity max for each of the two sources of O's.
    cvts = 2 * 32 + 16
    assert ops[0]["VIMNMX"] - ops[1]["VIMNMX"] == 2 * 16 and ops[1]["VIMNMX"] == 0
    floats = [collections.Counter({op: n for op, n in o.items() if not _INTEGER_MOVES.match(op)}) for o in ops]
    assert floats[0] == floats[1] and floats[0]["F2FP.BF16.F32.PACK_AB"] == cvts


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_warp_specialized_sass():
    compiled = tile_mlir.compile(kernels.attention_specialized(64, 4096), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # Q's box, and K's and V's a key block (ptxas lays the producer's loop
    # out twice: before and after the stages are full); no cp.async; each
    # consumer's four wgmma for S and four for O; one block barrier, after
    # the mbarriers' initialization.
    assert len(re.findall(r"\bUTMALDG\.2D\b", text)) == counts["UTMALDG"] == 1 + 2 * 2
    assert counts["LDGSTS"] == 0 and counts["BAR"] == 1
    assert len(re.findall(r"\bHGMMA\.64x64x16\.F32\.BF16\b", text)) == counts["HGMMA"] == 8
    assert counts["LDL"] == counts["STL"] == 0


@pytest.fixture(scope="module")
def compiled():
    return tile_mlir.compile(kernels.attention_kernel(64, 4096), target="sm_90a")


def test_no_stack_and_no_spills(compiled):
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources), resources


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_main_loop_sass(compiled):
    text = sass.listing(compiled.cubin)
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    # Four wgmma from shared memory for S, four with A in registers for O;
    # the key block's 2 x 4 copies in the loop, Q's 4 and block 0's 8
    # before it; two barriers a block; no local memory.
    assert len(re.findall(r"\bHGMMA\.64x64x16\.F32\.BF16\b", text)) == counts["HGMMA"] == 8
    assert counts["LDGSTS"] == 4 + 8 + 8
    assert counts["BAR"] == 2
    assert counts["LDL"] == counts["STL"] == 0


def test_committed_h200_runs_are_within_the_backends_error():
    import json
    for file in ("results.json", "results_first.json", "results_rerun.json", "results_ws.json",
                 "results_fa3_first.json", "results_fa3.json", "results_fa3pp.json", "results_p2.json",
                 "results_bf.json", "results_persistent.json", "results_fold_ab.json", "results_held.json",
                 "results_wide_pv.json", "results_tma_epilogue.json", "results_tma_in_q.json",
                 "results_causal_persistent.json", "results_d64_stages.json", "results_final.json",
                 "results_final_rerun.json", "results_tma_in_k.json", "results_defer_free.json",
                 "results_final2.json", "results_final2_rerun.json", "results_final2_third.json",
                 "results_split_q_a.json", "results_split_q_b.json", "results_blocks.json", "results_overlap.json",
                 "results_overlap_peeled.json", "results_prefetch_q.json", "results_double_q.json",
                 "results_final3.json", "results_final3_rerun.json", "results_final3_third.json"):
        with open(os.path.join(ROOT, "bench", "attention", file)) as f:
            report = json.load(f)
        assert report["device"].startswith("NVIDIA H200")
        for name, entry in report["kernels"].items():
            backends = [v for k, v in entry.items() if k.endswith("_max_error_relative_to_max") and k != "max_error_relative_to_max"]
            # run.py records O's type since results_fold_ab.json; before, the
            # bf16 kernels were the fa3bf and persistent ones.
            if entry.get("out", "bfloat16" if "_fa3bf_" in name or "_persistent_" in name else "float32") == "bfloat16":
                # bf16 O: the rounding of the output, as the backends'.
                assert entry["max_error_relative_to_max"] <= max(backends), (file, name)
            else:
                # f32 O against float64: no worse than the best bf16 backend.
                assert entry["max_error_relative_to_max"] <= min(backends), (file, name)
