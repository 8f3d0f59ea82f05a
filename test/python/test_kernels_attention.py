"""tile_mlir.kernels.attention: FlashAttention 3's forward, persistent and
warp-specialized, built on tile_mlir.pipelining (TmaRing for Q and for K
and V, ConsumerTurns, NamedBarriers, HeadTiles, OnlineSoftmax,
stage_and_store).

In the interpreter, on data where every step is exact, O equals float64
rounded once by the final division (times a reciprocal) and once to bf16,
with each configuration that won on the H200 (AttentionConfig.best), and
the race and hazard checks pass. A consumer that skips a wait is
reported. In SASS, the kernel keeps the sequence of HGMMA, UTMALDG,
UTMASTG, SYNCS, BAR, STSM and MUFU of the bench kernels it replaced
(bench/attention's BEST, commit 14ca50e: the same for 14 of the 16 and
registers equal in all; d 128 with V in a ring of its own has one STSM and
one F2FP of the epilogue swapped), and its wgmma as written."""

import collections
import contextlib
import os
import re
import sys
import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir.kernels import attention as attention_module
from tile_mlir.kernels.attention import AttentionConfig, attention
from tile_mlir.kernels.attention_combine import attention_combine
from tile_mlir.kernels.attention_keys import PagedKeys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))
import sass  # noqa: E402

from tile_mlir.kernels.reference import gemm as gemm_reference  # noqa: E402


@contextlib.contextmanager
def no_interpret_warning():
    """ex2.approx.ftz.f32 runs as the GPU computes it (interpreter/sfu.py):
    the interpreter approximates nothing here, so it warns of nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", tile_mlir.InterpretWarning)
        yield


def exact_case(seq, d, causal, seed, config):
    """The kernel (1 head, scale_log2 1) in the interpreter on data where
    every step is exact (one nonzero of 0-2 per row of Q, K in -2..2: S in
    -4..4, so P's powers of two, their sums and P V are exact), against
    float64: O = (P V) times rcp.rn(l), rounded to bf16 (nearest even)."""
    rng = np.random.default_rng(seed)
    q = np.zeros((seq, d))
    q[np.arange(seq), rng.integers(0, d, seq)] = rng.integers(0, 3, seq)
    k = rng.integers(-2, 3, (seq, d)).astype(np.float64)
    v = rng.integers(-4, 5, (seq, d)).astype(np.float64)
    bits = [gemm_reference.bits(x.astype(np.float32), "bfloat16") for x in (q, k, v)]
    out = np.zeros((1, seq, d), np.uint16)
    with no_interpret_warning():
        tile_mlir.interpret(attention(1, seq, d, causal, scale_log2=1.0, config=config),
                            *(b.reshape(1, seq, d) for b in bits), out)
    s = q @ k.T
    if causal:
        s[np.triu_indices(seq, 1)] = -np.inf
    p = np.exp2(s - s.max(axis=1, keepdims=True))
    l = p.sum(axis=1, keepdims=True).astype(np.float32)
    want = (p @ v).astype(np.float32) * (np.float32(1) / l)
    u = want.view(np.uint32).astype(np.uint64)
    return out[0], ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


@pytest.mark.parametrize("seq, d, causal", [
    # One block takes both tiles of 128 rows (2 key blocks each): the
    # rings, Q's two buffers and the turns run on from tile to tile.
    (256, 64, False),
    # Causal, one unit: rows 128-255 over two key blocks, then rows 0-127
    # over one; 5 stages, two buffers of Q.
    (256, 64, True),
    # Causal at S 512 (two units: tiles of 4, 1, 3 and 2 key blocks), O's
    # stage freed at once, one buffer of Q.
    (512, 64, True),
    # d 128: V in a ring of 2 beside K's of 3, two buffers of Q.
    (256, 128, False),
    # d 128 causal, the stage of O freed after the next tile's first S.
    (256, 128, True)])
def test_exact_data_equals_float64_with_the_winning_configuration(seq, d, causal):
    # The configuration of the bench's entry at S 1024 (S 8192 for the
    # causal S 512 case: one buffer of Q, O's stage freed at once), one
    # block.
    best = AttentionConfig.best(d, causal, 8192 if seq == 512 else 1024)
    out, want = exact_case(seq, d, causal, 3, AttentionConfig(**{**best.__dict__, "blocks": 1}))
    assert np.array_equal(out, want)


def test_the_winning_configurations():
    assert AttentionConfig.best(64, False, 8192) == AttentionConfig(stages=4, q_buffers=2)
    assert AttentionConfig.best(64, True, 2048) == AttentionConfig(stages=5, q_buffers=2)
    assert AttentionConfig.best(64, True, 4096) == AttentionConfig(stages=5, defer_free=False)
    assert AttentionConfig.best(128, True, 2048) == AttentionConfig(stages=3, v_stages=2, q_buffers=2)
    assert AttentionConfig.best(128, False, 4096) == AttentionConfig(stages=3)


def test_a_consumer_that_skips_the_wait_for_v_is_reported(monkeypatch):
    # With V in a ring of its own, P V must wait for V's full barrier, not
    # only for K's: without it the wgmma reads V's slot before its box.
    monkeypatch.setattr(attention_module._KeyValueRing, "wait_v", lambda self, g: None)
    kernel = attention(1, 256, 128, scale_log2=1.0, config=AttentionConfig(stages=3, v_stages=2, q_buffers=2,
                                                                            blocks=1))
    zeros = np.zeros((1, 256, 128), np.uint16)
    with pytest.raises(tile_mlir.HazardError, match=r"attention.py:\d+: wgmma.mma_async.sync.aligned.m64n128k16.f32."
                       r"bf16.bf16 touches the dynamic shared memory byte \d+, which the cp.async.bulk at "
                       r".*attention.py:\d+ has not delivered: no mbarrier wait has seen the phase it completes"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tile_mlir.InterpretWarning)
            tile_mlir.interpret(kernel, zeros, zeros, zeros, zeros.copy())


@pytest.mark.parametrize("seq, d, kw, message", [
    (0, 64, {}, "a sequence of 0 queries, or d 64 not 64 or 128"),
    (256, 96, {}, "d 96 not 64 or 128"),
    (256, 64, {"causal": True, "seq_k": 255}, "255 keys for 256 queries: causal takes at least as many keys as "
     "queries")])
def test_shapes_it_cannot_take_are_refused(seq, d, kw, message):
    with pytest.raises(ValueError, match=message):
        attention(4, seq, d, **kw)


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
@pytest.mark.parametrize("d, causal, seq, stsm, boxes, hgmma", [
    (64, False, 4096, 4, 1, {"64x128x16": 8, "64x64x16": 16}),
    (64, True, 8192, 4, 1, {"64x128x16": 8, "64x64x16": 16}),
    (128, False, 2048, 8, 2, {"64x128x16": 32}),
    (128, True, 8192, 8, 2, {"64x128x16": 32})])
def test_sass_is_the_instructions_written(d, causal, seq, stsm, boxes, hgmma):
    # O: 4 stmatrix.x4 a 64 columns and one TMA box each, no st.global. The
    # wgmma as written, each issue laid out twice (before the key-block
    # loop and in it): S 4 n128 a half; P V 8 n64 at d 64, 8 n128 at d 128
    # (one a k chunk over both halves). setmaxnreg 24 / 240, no spills.
    compiled = tile_mlir.compile(attention(64, seq, d, causal), target="sm_90a")
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources) and "Used 168 registers" in resources, resources
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert counts["STSM"] == stsm and counts["UTMASTG"] == boxes and counts["STG"] == 0
    assert counts["LDL"] == counts["STL"] == 0
    text = sass.listing(compiled.cubin)
    assert collections.Counter(re.findall(r"\bHGMMA\.(64x\d+x16)\.F32\.BF16\b", text)) == hgmma
    assert len(re.findall(r"\bUSETMAXREG\.DEALLOC\.CTAPOOL 0x18\b", text)) == 1
    assert len(re.findall(r"\bUSETMAXREG\.TRY_ALLOC\.CTAPOOL UP0, 0xf0\b", text)) == 1


# Integer instructions whose choice moves with the register allocation
# (the same moves and address arithmetic spelled differently).
_INTEGER_MOVES = re.compile(r"^(MOV|IMAD|IADD3|VIADD|SHF|LEA|ISETP|SEL|IMNMX|VIMNMX|LOP3|PRMT|S2R|CS2R|ULDC|UMOV|UIADD3|"
                            r"ULEA|USHF|UIMAD|ULOP3|R2UR|NOP|BRA|BSYNC|BSSY)")


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_without_fold_barriers_ptxas_folds_nothing_into_the_conversions():
    # The cvt.rn.bf16x2.f32 read ex2.approx results (P) and mul.rn results
    # (O / l). ex2 is measured never to fold into a cvt
    # (tools/forms/cvt_source_folds.py), so P's are emitted as written; mul
    # is a measured producer, so O's keep the cvt-source barrier
    # (docs/design.md). Built without it (fold_barriers="off"), ptxas makes
    # every float and conversion instruction it made with it, F2FP
    # included: it folded nothing here. Only the VIMNMX barriers (one a
    # source) go.
    make = lambda mode: tile_mlir.compile(attention(64, 4096, 64, causal=True), target="sm_90a",  # noqa: E731
                                          fold_barriers=mode)
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


def exact_inputs(shape, seed):
    """Exact data (as exact_case's) for shape (heads, group, queries,
    keys, d), every head its own: float64 q, k and v."""
    bh, group, seq, seq_k, d = shape
    rng = np.random.default_rng(seed)
    q = np.zeros((bh, seq, d))
    for h in range(bh):
        q[h, np.arange(seq), rng.integers(0, d, seq)] = rng.integers(0, 3, seq)
    k = rng.integers(-2, 3, (bh // group, seq_k, d)).astype(np.float64)
    v = rng.integers(-4, 5, (bh // group, seq_k, d)).astype(np.float64)
    return q, k, v


def exact_reference(q, k, v, group, causal):
    """float64's O times rcp(l) rounded to bf16 bits, and each row's (m, l)."""
    seq, seq_k = q.shape[1], k.shape[1]
    s = q @ np.repeat(k, group, axis=0).transpose(0, 2, 1)
    if causal:  # query i sees keys up to i + seq_k - seq
        s[:, np.arange(seq)[:, None] + seq_k - seq < np.arange(seq_k)[None, :]] = -np.inf
    m = s.max(axis=2, keepdims=True)
    p = np.exp2(s - m)
    l = p.sum(axis=2, keepdims=True)
    want = (p @ np.repeat(v, group, axis=0)).astype(np.float32) * (np.float32(1) / l.astype(np.float32))
    u = want.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16), (m[..., 0], l[..., 0])


def ragged_case(shape, causal, seed, config, stats=False):
    """The kernel on exact data (as exact_case) for shape (heads, group,
    queries, keys, d), every head its own data; O's rows are all written
    (every element starts as a sentinel), and with `stats` each row's
    (m, l). Returns (O, want, stats, (m, l) of float64)."""
    bh, group, seq, seq_k, d = shape
    q, k, v = exact_inputs(shape, seed)
    bits = [gemm_reference.bits(x.astype(np.float32), "bfloat16") for x in (q, k, v)]
    out = np.full((bh, seq, d), 0xDEAD, np.uint16)
    kernel = attention(bh, seq, d, causal, scale_log2=1.0, config=config, group=group, seq_k=seq_k, stats=stats)
    got_stats = np.full((bh, seq, 2), np.nan, np.float32)
    with no_interpret_warning():
        tile_mlir.interpret(kernel, *bits, out, *((got_stats,) if stats else ()))
    want, rows = exact_reference(q, k, v, group, causal)
    return out, want, got_stats, rows


@pytest.mark.parametrize("shape, causal", [
    # Two heads of 200 queries and keys: the second tile of each head is
    # 72 rows, its last key block 72 keys; nothing lands in the other head.
    ((2, 1, 200, 200, 64), False),
    # 100 queries over 130 keys in two groups of two query heads (GQA).
    ((4, 2, 100, 130, 64), False),
    # Causal, 100 queries over 300 keys: query i sees keys up to i + 200
    # (the bottom-right diagonal), three key blocks a tile.
    ((1, 1, 100, 300, 64), True),
    # Causal, 300 queries and keys: three tiles, paired with a fourth past
    # the rows (it loads zeros and stores nothing); d 128.
    ((1, 1, 300, 300, 128), True),
    # Decode: one query over 129 keys, causal (it sees them all).
    ((2, 2, 1, 129, 64), True)])
def test_any_length_equals_float64(shape, causal):
    d = shape[4]
    config = AttentionConfig(**{**AttentionConfig.best(d, causal, 1024).__dict__, "blocks": 1})
    out, want, _, _ = ragged_case(shape, causal, 5, config)
    assert np.array_equal(out, want)


def test_the_rows_statistics_give_the_log_sum_exp():
    # m (base 2, times scale_log2 = 1) and l of each row inside the
    # sequence: m exact, l the sum of powers of two in float32 (exact
    # here), so ln 2 (m + log2 l) is float64's log-sum-exp.
    config = AttentionConfig(**{**AttentionConfig.best(64, True, 1024).__dict__, "blocks": 1})
    out, want, stats, (m, l) = ragged_case((2, 1, 100, 150, 64), True, 7, config, stats=True)
    assert np.array_equal(out, want)
    assert np.array_equal(stats[..., 0], m.astype(np.float32))
    assert np.array_equal(stats[..., 1], l.astype(np.float32))


@pytest.mark.parametrize("causal, seq_k", [(True, 300), (False, 100)])
def test_tails_and_the_rows_statistics_assemble_with_no_stack(causal, seq_k):
    # Three-axis boxes over 200 queries and 300 keys, causal on the
    # bottom-right diagonal, each row's m and l stored; or 100 keys, one
    # block masked unconditionally: through ptxas with no stack frame and
    # no spills, in the bench kernels' 168 registers.
    kernel = attention(8, 200, 64, causal, group=2, seq_k=seq_k, stats=True)
    resources = sass.ptxas_resources(tile_mlir.compile(kernel, target="sm_90a").ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources) and "Used 168 registers" in resources, resources


# -- Split-KV (decode): parts of the keys, merged by attention_combine ---------------

def split_case(shape, causal, splits, seed, blocks=132, stats=False, one_launch=False):
    """The kernel with config.splits = `splits` and attention_combine on
    exact data (as ragged_case) for shape (heads, group, queries, keys,
    d): the parts' float32 O, m and l, then O merged and rounded. Returns
    (O, want, merged (m, l) or None, (m, l) of float64)."""
    bh, group, seq, seq_k, d = shape
    q, k, v = exact_inputs(shape, seed)
    bits = [gemm_reference.bits(x.astype(np.float32), "bfloat16") for x in (q, k, v)]
    config = AttentionConfig(stages=3, blocks=blocks, splits=splits, one_launch=one_launch)
    partial = np.full((splits * bh, seq, d), np.nan, np.float32)
    parts = np.full((splits * bh, seq, 2), np.nan, np.float32)
    out = np.full((bh * seq, d), 0xDEAD, np.uint16)
    merged = np.full((bh * seq, 2), np.nan, np.float32)
    kernel = attention(bh, seq, d, causal, scale_log2=1.0, config=config, group=group, seq_k=seq_k,
                       stats=stats and one_launch)
    with no_interpret_warning():
        if one_launch:  # the counters (two a tile) zero before and after
            counters = np.zeros((bh * -(-seq // 128) * 2, 1), np.uint32)
            tile_mlir.interpret(kernel, *bits, partial, parts, out.reshape(bh, seq, d), counters,
                                *((merged.reshape(bh, seq, 2),) if stats else ()))
            assert not counters.any()
        else:
            tile_mlir.interpret(kernel, *bits, partial, parts)
            tile_mlir.interpret(attention_combine(splits, bh * seq, d, stats=stats), partial.reshape(splits, -1, d),
                                parts.reshape(splits, -1, 2), out, *((merged,) if stats else ()))
    want, rows = exact_reference(q, k, v, group, causal)
    return out.reshape(bh, seq, d), want, merged if stats else None, rows


@pytest.mark.parametrize("shape, causal, splits, blocks", [
    # Two heads of 5 queries over 700 keys (6 key blocks) in 3 parts of 2,
    # the last one's second block a tail of 60 keys: six units on as many
    # blocks.
    ((2, 1, 5, 700, 64), False, 3, 132),
    # GQA over 1024 keys in 3 parts of 3 blocks (the last part's second
    # and third blocks past the keys: masked whole), two blocks taking
    # three units each (the rings run on across parts).
    ((2, 2, 3, 1024, 64), False, 3, 2),
    # Causal, 4 queries over 600 keys at d 128 in 2 parts: the diagonal
    # crosses the last part's last block; each part starts at a key every
    # row sees.
    ((2, 2, 4, 600, 128), True, 2, 132)])
@pytest.mark.parametrize("one_launch", [False, True])
def test_split_keys_merge_to_the_unsplit_result(shape, causal, splits, blocks, one_launch):
    # Exact data: each part's O, m and l exact, so the merge's powers of
    # two and sums are too, and O is float64's rounded as the unsplit
    # kernel rounds it (by the reciprocal of l, then to bf16); the merged m
    # and l are the whole row's. Merged by the second kernel, or in the
    # same launch by each tile's last part (its counters left zero; the
    # race check passes the handoff through them).
    out, want, merged, (m, l) = split_case(shape, causal, splits, 11, blocks, stats=True, one_launch=one_launch)
    assert np.array_equal(out, want)
    assert np.array_equal(merged[:, 0], m.ravel().astype(np.float32))
    assert np.array_equal(merged[:, 1], l.ravel().astype(np.float32))


@pytest.mark.parametrize("kw, message", [
    ({"seq_k": 300, "splits": 3}, r"3 key blocks do not split in 3 parts of whole key blocks, each with a key"),
    ({"seq_k": 500, "splits": 3}, r"4 key blocks do not split in 3 parts of whole key blocks, each with a key"),
    ({"seq_k": 300, "splits": 2, "causal": True}, r"causal, the last of 2 parts of the keys starts at key 256, "
     r"which query 0 does not see \(it sees keys up to 44\): every row sees a key of every part")])
def test_splits_it_cannot_take_are_refused(kw, message):
    # 3 blocks in 3 parts is one a part; 4 blocks in 3 parts of 2 leave the
    # last part no key; causal 256 queries over 300 keys: query 0 sees
    # keys 0-44 only, none of the second part's.
    splits, causal = kw.pop("splits"), kw.pop("causal", False)
    config = AttentionConfig(splits=splits)
    if kw["seq_k"] == 300 and splits == 3:
        attention(4, 256, 64, causal, config=config, **kw)  # three parts of one block: taken
        return
    with pytest.raises(ValueError, match=message):
        attention(4, 256, 64, causal, config=config, **kw)


@pytest.mark.parametrize("d", [64, 128])
def test_split_parts_assemble_with_no_stack(d):
    # The parts' O from the registers (st.global.v2.f32, predicated on the
    # row: d / 4 a thread), no stmatrix or TMA store; the rows' m and l one
    # more (LLVM sinks the two rows' branches' stores into one); the bench
    # kernels' 168 registers and no spills. The merge: the parts unrolled
    # (all 8 parts' 16-byte loads in flight together), no stack.
    compiled = tile_mlir.compile(attention(32, 4, d, config=AttentionConfig(splits=8), seq_k=8192), target="sm_90a")
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources) and "Used 168 registers" in resources, resources
    assert compiled.ptx.count("st.global.v2.f32") == d // 4 + 1 and "stmatrix" not in compiled.ptx
    assert "cp.async.bulk.tensor.3d.global.shared" not in compiled.ptx
    # In one launch, the last part's merge is a loop over the parts (16
    # unrolled would spill): no stack either.
    merged = tile_mlir.compile(attention(8, 4, d, config=AttentionConfig(splits=16, one_launch=True), seq_k=16384,
                                         stats=True), target="sm_90a")
    resources = sass.ptxas_resources(merged.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources) and "Used 168 registers" in resources, resources
    merge = tile_mlir.compile(attention_combine(8, 128, d, stats=True), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(merge.ptx, arch="sm_90a"))
    assert merge.ptx.count("ld.global.v4.f32") == 8 and merge.ptx.count("ex2.approx.ftz.f32") == 2 * 8


# -- A paged KV cache (attention_keys.PagedKeys) -----------------------------------------

def paged_case(shape, page_size, splits, seed):
    """The kernel over a paged cache on exact data: shape (batch, cache
    heads, group, queries, keys, d); each sequence's pages scattered over
    the cache by a random block table (a few pages spare). Returns (O,
    want) as ragged_case's."""
    batch, h_kv, group, seq, seq_k, d = shape
    width = -(-seq_k // page_size)
    pages = batch * width + 3
    bh = batch * h_kv * group
    q, k, v = exact_inputs((bh, group, seq, seq_k, d), seed)
    table = np.random.default_rng(seed + 1).permutation(pages)[:batch * width].reshape(batch, width).astype(np.int32)
    caches = [np.zeros((pages, page_size, h_kv, d)) for _ in range(2)]
    for b in range(batch):
        for key in range(seq_k):
            for cache, x in zip(caches, (k, v)):
                cache[table[b, key // page_size], key % page_size] = x[b * h_kv:(b + 1) * h_kv, key]
    bits = [gemm_reference.bits(x.astype(np.float32), "bfloat16") for x in (q, *caches)]
    paging = PagedKeys(pages, page_size, h_kv, batch, width, seq_k)
    kernel = attention(bh, seq, d, scale_log2=1.0, config=AttentionConfig(stages=3, splits=splits), group=group,
                       seq_k=seq_k, paging=paging)
    out = np.full((bh * seq, d), 0xDEAD, np.uint16)
    with no_interpret_warning():
        if splits == 1:
            tile_mlir.interpret(kernel, *bits, table, out.reshape(bh, seq, d))
        else:
            partial = np.full((splits * bh, seq, d), np.nan, np.float32)
            parts = np.full((splits * bh, seq, 2), np.nan, np.float32)
            tile_mlir.interpret(kernel, *bits, table, partial, parts)
            tile_mlir.interpret(attention_combine(splits, bh * seq, d), partial.reshape(splits, -1, d),
                                parts.reshape(splits, -1, 2), out)
    return out.reshape(bh, seq, d), exact_reference(q, k, v, group, False)[0]


@pytest.mark.parametrize("shape, page_size, splits", [
    # Pages of 16 keys: a key block is 8 boxes of whole pages; 300 keys end
    # inside the third block (its page slots past the table read the last
    # page, whose keys past 300 are masked).
    ((2, 1, 1, 4, 300, 64), 16, 1),
    # Pages of 256 keys (a block is half a page), GQA, 600 keys in 2 parts.
    ((2, 2, 2, 3, 600, 64), 256, 2)])
def test_a_paged_cache_equals_float64(shape, page_size, splits):
    out, want = paged_case(shape, page_size, splits, 13)
    assert np.array_equal(out, want)


def test_a_page_past_the_cache_is_reported():
    # A block table entry past the cache's pages: the interpreter names the
    # kernel's line (the user's call that built it), the thread and the
    # value it reads as a page (a GPU would clamp it: a wrong page).
    paging = PagedKeys(4, 128, 1, 1, 2, 256)
    kernel = attention(1, 2, 64, scale_log2=1.0, config=AttentionConfig(stages=3), seq_k=256, paging=paging)
    cache = np.zeros((4, 128, 1, 64), np.uint16)
    table = np.array([[0, 4]], np.int32)
    with pytest.raises(tile_mlir.InterpretError, match=r"attention: .*test_kernels_attention.py:\d+: thread \(0\) of "
                       r"block \(0\) reads the value 4 as an index of an axis of 4: out of bounds"):
        tile_mlir.interpret(kernel, np.zeros((1, 2, 64), np.uint16), cache, cache, table,
                            np.zeros((1, 2, 64), np.uint16))


def test_pages_it_cannot_take_are_refused():
    with pytest.raises(ValueError, match=r"a page of 12 keys: a power of two from 8"):
        PagedKeys(4, 12, 1, 1, 2, 24)
    with pytest.raises(ValueError, match=r"300 keys a sequence do not fit its 2 pages of 128"):
        PagedKeys(4, 128, 1, 1, 2, 300)
    with pytest.raises(ValueError, match=r"a paged cache of 1 x 2 heads of 256 keys serves 1 heads of 256 keys"):
        attention(1, 2, 64, seq_k=256, paging=PagedKeys(4, 128, 2, 1, 2, 256))


def test_a_merge_that_does_not_wait_for_the_other_parts_is_a_race(monkeypatch):
    # In one launch, the last part reads the others' O after its counter
    # saw them: a merge by every part, at once (no counter), reads the
    # other blocks' stores unordered, and the interpreter reports it.
    from tile_mlir.kernels import attention_combine as combine_module

    def merge_at_once(self, rows, tile_index, head, rows_from, t):
        self._merge(rows, head, rows_from, t)
    monkeypatch.setattr(combine_module.LaunchMerge, "arrive", merge_at_once)
    with pytest.raises(tile_mlir.HazardError, match=r"read-after-write race on Partial byte \d+"):
        split_case((1, 1, 5, 700, 64), False, 3, 11, one_launch=True)


def test_merges_it_cannot_take_are_refused():
    with pytest.raises(ValueError, match=r"one_launch merges the parts of split keys: it takes splits of 2 or more"):
        attention(4, 4, 64, seq_k=1024, config=AttentionConfig(one_launch=True))
    with pytest.raises(ValueError, match=r"O is one of \['bfloat16', 'float16'\], not 'float32'"):
        attention_combine(2, 64, 64, "float32")
    with pytest.raises(ValueError, match=r"1 parts of 64 rows of 64 columns: two parts or more, whole 16 bytes a row"):
        attention_combine(1, 64, 64)


@pytest.mark.parametrize("page_size", [16, 256])
def test_a_paged_kernel_assembles_with_no_stack(page_size):
    # Pages of 16: 8 four-axis boxes a block for K and for V, each page
    # index read from the table; of 256: one box a block. Split, through
    # ptxas with no stack frame and no spills.
    paging = PagedKeys(512, page_size, 8, 4, 4096 // page_size, 4096)
    kernel = attention(32, 4, 128, config=AttentionConfig(splits=4, one_launch=True), seq_k=4096, paging=paging)
    compiled = tile_mlir.compile(kernel, target="sm_90a")
    resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
    assert sass.NO_SPILLS.search(resources) and "Used 168 registers" in resources, resources
    assert compiled.ptx.count("cp.async.bulk.tensor.4d") == 2 * 2 * (128 // min(page_size, 128))
