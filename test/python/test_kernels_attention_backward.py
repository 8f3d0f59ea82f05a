"""tile_mlir.kernels.attention_backward (issue 57's first step): dK, dV
and dQ of attention on wgmma, d 64 and 128, causal or not, any lengths, in the
interpreter against float64, within a bound derived from the kernel's
roundings; and the hazards its waits and fences prevent, reported when
one is left out."""

import collections
import math
import os
import re
import sys
import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir.kernels import attention_backward as backward_module
from tile_mlir.kernels.attention_backward import attention_backward
from tile_mlir.kernels.reference import gemm as gemm_reference

# Each type's unit roundoff (round to nearest): bf16's 8 significant
# bits (7 stored), fp16's 11.
UNIT = {"bfloat16": 2.0 ** -8, "float16": 2.0 ** -11}
# Half the spacing of each type's subnormals: a rounding's absolute error
# below the normal range (fp16's starts at 2^-14).
TINY = {"bfloat16": 2.0 ** -134, "float16": 2.0 ** -25}


def case(bh, seq, seq_k, seed, causal=False, group=1, d=64):
    """Integer Q (a nonzero of 0-2 a row), K in -2..2, V in -4..4 and dO in
    -2..2, scale 1 / log2 e (base-2 scores, exact); the forward's lse2
    and D = rowsum(dO O) in float64, given to the kernel in float32."""
    rng = np.random.default_rng(seed)
    q = np.zeros((bh, seq, d))
    for h in range(bh):
        q[h, np.arange(seq), rng.integers(0, d, seq)] = rng.integers(0, 3, seq)
    k = rng.integers(-2, 3, (bh // group, seq_k, d)).astype(np.float64)
    v = rng.integers(-4, 5, (bh // group, seq_k, d)).astype(np.float64)
    do = rng.integers(-2, 3, (bh, seq, d)).astype(np.float64)
    s = q @ np.repeat(k, group, axis=0).transpose(0, 2, 1)
    if causal:  # query i sees keys up to i + seq_k - seq
        s[:, np.arange(seq)[:, None] + seq_k - seq < np.arange(seq_k)[None, :]] = -np.inf
    m = s.max(-1, keepdims=True)
    l = np.exp2(s - m).sum(-1, keepdims=True)
    p = np.exp2(s - m) / l
    o = p @ np.repeat(v, group, axis=0)
    rows = np.stack([(m + np.log2(l))[..., 0], (do * o).sum(-1)], -1)
    return (q, k, v, do), p, rows


def row_pairs(rows):
    """(lse2, D) of each query (bh, seq, 2) as the kernel takes them: a
    row of pairs a head, float32, an even count of queries (zeros past
    the last)."""
    bh, seq, _ = rows.shape
    pairs = np.zeros((bh, seq + seq % 2, 2), np.float32)
    pairs[:, :seq] = rows
    return pairs.reshape(bh, -1)


def run(bh, seq, seq_k, seed=0, causal=False, group=1, dtype="bfloat16", warpgroups=1, d=64):
    """The kernel's (dQ, dK, dV) as float64, and float64's with the
    elementwise bounds of their differences."""
    (q, k, v, do), p, rows = case(bh, seq, seq_k, seed, causal, group, d)
    scale = 1 / math.log2(math.e)
    bits = [gemm_reference.bits(x.astype(np.float32), dtype) for x in (q, do, k, v)]
    dq = np.zeros((bh, seq, d), np.float32)
    dk, dv = (np.zeros((bh // group, seq_k, d), np.uint16) for _ in range(2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tile_mlir.InterpretWarning)  # ex2.approx as the GPU's table
        tile_mlir.interpret(attention_backward(bh, seq, seq_k, scale=scale, causal=causal, group=group, dtype=dtype,
                                               warpgroups=warpgroups, d=d),
                            *bits, row_pairs(rows), dq, dk, dv)
    if dtype == "bfloat16":
        widen = lambda b: (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)  # noqa: E731
    else:
        widen = lambda b: b.view(np.float16).astype(np.float64)  # noqa: E731
    U = UNIT[dtype]
    wide = [np.repeat(x, group, axis=0) for x in (k, v)]
    dp = do @ wide[1].transpose(0, 2, 1)
    ds = p * (dp - rows[..., 1:])
    t = lambda x: x.transpose(0, 2, 1)  # noqa: E731
    per_group = lambda x: x.reshape(bh // group, group, *x.shape[1:]).sum(1)  # noqa: E731 (dK, dV over a group)
    want = (ds @ wide[0], per_group(scale * t(ds) @ q), per_group(t(p) @ do))
    # P^T and dS^T enter the products rounded to the inputs' type (u of
    # |P| and |dS|, or half a subnormal step); before that dS^T = P (dP - D) carries float32's
    # errors: P's (ex2.approx and the fma before it, under 2^-21 relative)
    # times |dP - D|, and D's rounding and the subtraction's, under
    # 2^-22 (|dP| + |D|) |P| together; the sums are float32 over 64 terms
    # a wgmma and a key block a step (2^-15 of the absolute sums covers
    # them); dK and dV are rounded once more (u of the result, or half a
    # subnormal step).
    a = np.abs
    tiny = TINY[dtype]
    ds_error = (U + 2 ** -15) * a(ds) + a(p) * (a(dp) + a(rows[..., 1:])) * 2.0 ** -22 + tiny
    p_error = (U + 2 ** -15) * p + tiny
    bounds = (ds_error @ a(wide[0]), scale * per_group(t(ds_error) @ a(q)) + U * a(want[1]) + tiny,
              per_group(t(p_error) @ a(do)) + U * a(want[2]) + tiny)
    return (dq.astype(np.float64), widen(dk), widen(dv)), want, bounds


@pytest.mark.parametrize("bh, seq, seq_k, causal, group", [
    # Two steps of 64 queries over two key blocks; two heads of one step
    # over three key blocks (dQ summed from three blocks by red.add).
    (1, 128, 128, False, 1), (2, 64, 192, False, 1),
    # Causal: key block 1 starts at query block 1 (its first step), the
    # diagonal blocks masked; 128 queries over 192 keys (the bottom-right
    # diagonal 64 keys on).
    (1, 128, 128, True, 1), (1, 128, 192, True, 1),
    # GQA: two query heads a head of K and V, dK and dV summed over both
    # (each key block's steps: head 0's query blocks, then head 1's),
    # causal too (each head from the block's first step).
    (4, 64, 128, False, 2), (2, 128, 128, True, 2),
    # Tails: 100 queries over 150 keys (the last query block of 36, the
    # last key block of 22: masked, nothing past either stored or added);
    # causal 70 over 100 in groups of two.
    (1, 100, 150, False, 1), (2, 70, 100, True, 2)])
def test_gradients_are_float64s_within_the_rounding_bound(bh, seq, seq_k, causal, group):
    got, want, bounds = run(bh, seq, seq_k, causal=causal, group=group)
    check(got, want, bounds)


@pytest.mark.parametrize("bh, seq, seq_k, causal, group", [
    # Two warpgroups a block, 64 keys each: 128 keys in one block; 192
    # (the second block's warpgroup 1 past the last key: its keys all
    # masked, its dK and dV not stored); causal over 192 keys; GQA; tails
    # (150 keys: warpgroup 0 of block 1 has 22, warpgroup 1 none).
    (1, 128, 128, False, 1), (1, 64, 192, False, 1), (1, 128, 192, True, 1), (4, 64, 128, False, 2),
    (1, 100, 150, False, 1), (2, 70, 100, True, 2)])
def test_two_warpgroups_give_float64s_gradients_within_the_bound(bh, seq, seq_k, causal, group):
    check(*run(bh, seq, seq_k, causal=causal, group=group, warpgroups=2))


@pytest.mark.parametrize("bh, seq, seq_k, causal, group, warpgroups", [
    # Head dimension 128 (two 64-column boxes a tile, dK, dV and dQ an
    # m64n64 D a box): whole blocks; causal with tails over 192 keys;
    # GQA on two warpgroups with a tail.
    (1, 128, 128, False, 1, 1), (1, 100, 150, True, 1, 1), (2, 70, 100, False, 2, 2)])
def test_head_dimension_128_gives_float64s_gradients_within_the_bound(bh, seq, seq_k, causal, group, warpgroups):
    check(*run(bh, seq, seq_k, causal=causal, group=group, warpgroups=warpgroups, d=128))


def test_fp16_gradients_are_float64s_within_fp16s_bound():
    # fp16 operands, P and dS rounded to fp16 (u = 2^-11): the bound 8x
    # tighter, causal GQA.
    check(*run(2, 128, 128, causal=True, group=2, dtype="float16"))


def check(got, want, bounds):
    for name, g, w, b in zip(("dQ", "dK", "dV"), got, want, bounds):
        assert np.all(np.abs(g - w) <= b), (name, np.max(np.abs(g - w) - b))
        # The bound is not vacuous: a few bf16 ulps of the largest element.
        assert b.max() < 2 ** -5 * np.abs(w).max(), (name, b.max() / np.abs(w).max())


def test_a_step_that_skips_the_wait_for_its_queries_is_reported(monkeypatch):
    # The products read Q's and dO's slot before its TMA boxes landed.
    monkeypatch.setattr(backward_module.TmaRing, "wait", lambda self, state: None)
    with pytest.raises(tile_mlir.HazardError, match=r"wgmma.mma_async.* touches the dynamic shared memory byte \d+, "
                       r"which the cp.async.bulk at .* has not delivered"):
        run(1, 64, 64)


def test_ds_written_without_the_proxy_fence_is_reported(monkeypatch):
    # dS^T is written by stmatrix (the generic proxy) and read by the dQ
    # wgmma (the async proxy): without fence.proxy.async between them the
    # interpreter reports the read.
    real = backward_module.T.cuda.tile.apply

    def without_fence(op, *args, **kw):
        if "fence.proxy.async" in str(op):
            return None
        return real(op, *args, **kw)
    monkeypatch.setattr(backward_module.T.cuda.tile, "apply", without_fence)
    with pytest.raises(tile_mlir.HazardError, match=r"proxy"):
        run(1, 64, 64)


def test_dq_staged_before_the_last_reductions_read_it_is_reported(monkeypatch):
    # Two query blocks: the second step writes dQ's staging buffer, which
    # the first step's TMA reductions read until thread 0's
    # cp.async.bulk.wait_group.read (and the barrier after it) says so.
    real = backward_module.T.cuda.tile.apply

    def without_wait(op, *args, **kw):
        if str(op) == "cp.async.bulk.wait_group.read":
            return None
        return real(op, *args, **kw)
    monkeypatch.setattr(backward_module.T.cuda.tile, "apply", without_wait)
    with pytest.raises(tile_mlir.HazardError, match=r"st.shared.v2.f32 writes the dynamic shared memory byte \d+, "
                       r"which the cp.async.bulk.tensor store at .* may still read: no "
                       r"cp.async.bulk.wait_group.read covers its bulk group"):
        run(1, 128, 64)


def test_shapes_it_cannot_take_are_refused():
    with pytest.raises(ValueError, match=r"100 keys for 120 queries: causal takes at least as many keys as queries"):
        attention_backward(1, 120, 100, causal=True)
    with pytest.raises(ValueError, match=r"3 query heads do not share heads of K and V in groups of 2"):
        attention_backward(3, 64, 64, group=2)
    with pytest.raises(ValueError, match=r"0 queries and 64 keys: the backward takes at least one of each"):
        attention_backward(1, 0, 64)
    with pytest.raises(ValueError, match=r"a block is 1 or 2 warpgroups, not 3"):
        attention_backward(1, 64, 64, warpgroups=3)


class Sass:
    """A kernel's ptxas resources, SASS listing, instruction counts (by
    mnemonic) and HGMMA shapes; skips where the disassemblers are not
    installed."""

    def __init__(self, kernel):
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "sass"))
        import sass
        if not sass.available():
            pytest.skip("needs cuobjdump and nvdisasm (the test extra)")
        compiled = tile_mlir.compile(kernel, target="sm_90a")
        self.resources = sass.ptxas_resources(compiled.ptx, arch="sm_90a")
        self.no_spills = bool(sass.NO_SPILLS.search(self.resources))
        self.listing = sass.listing(compiled.cubin)
        self.counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
        self.hgmma = collections.Counter(re.findall(r"\bHGMMA\.(64x\d+x16)\.F32\.BF16\b", self.listing))

    def spelled(self, pattern):
        return len(re.findall(pattern, self.listing))


def test_sass_is_the_products_written_with_no_spills():
    # Five products of four k chunks a step (S^T, dP^T, dV, dK, dQ): 20
    # HGMMA 64x64x16; dQ staged by 16 STS.64 a thread (a row's two
    # adjacent columns each) and added by 2 TMA reductions (UTMAREDG .ADD,
    # no per-thread REDG), dS^T's 4 stmatrix.x4, 32 MUFU.EX2, the
    # queries' (lse2, D) by 8 LDS.128 from the ring (no global load in
    # the loop), dK's and dV's 32 stores; no local memory, and at most
    # 168 registers: three blocks (65,536 registers) an SM.
    code = Sass(attention_backward(64, 4096, 4096))
    counts = code.counts
    assert code.no_spills and code.hgmma == {"64x64x16": 20}
    assert (counts["REDG"], counts["STSM"], counts["MUFU"], counts["STG"]) == (0, 4, 32, 32)
    assert code.spelled(r"\bSTS\.64\b") == counts["STS"] == 16
    assert code.spelled(r"\bUTMAREDG\.3D\.ADD\b") == counts["UTMAREDG"] == 2
    assert code.spelled(r"\bLDS\.128\b") == counts["LDS"] == 8 and counts["LDG"] == 0
    assert counts["LDL"] == counts["STL"] == 0
    assert int(re.search(r"Used (\d+) registers", code.resources).group(1)) <= 168, code.resources


def test_two_warpgroups_sum_their_dq_in_shared_memory_before_one_reduction():
    # Each warpgroup's step is the one-warpgroup kernel's (20 HGMMA, 32
    # MUFU.EX2, 4 STSM); dQ: warpgroup 0's 16 STS.64, warpgroup 1's 16
    # LDS.64 and 16 STS.64 (its sums), still 2 TMA reductions a step; no
    # local memory.
    code = Sass(attention_backward(64, 4096, 4096, warpgroups=2))
    counts = code.counts
    assert code.no_spills and code.hgmma == {"64x64x16": 20}
    assert (counts["STSM"], counts["MUFU"], counts["STS"], counts["LDS"], counts["UTMAREDG"], counts["REDG"]) == \
        (4, 32, 32, 16 + 8, 2, 0)
    assert code.spelled(r"\bLDS\.64\b") == 16 and counts["LDL"] == counts["STL"] == 0


def test_head_dimension_128_fits_the_registers():
    # d 128 on one warpgroup: dK, dV and dQ an m64n64 D a box (40 HGMMA:
    # S^T and dP^T over 8 k chunks, dV, dK and dQ two N-64 products each),
    # 4 TMA reductions a step, and no local memory (dV's and dK's
    # products retire before dQ's accumulators are written).
    code = Sass(attention_backward(64, 4096, 4096, d=128))
    assert code.no_spills and code.hgmma == {"64x64x16": 40}
    assert tuple(code.counts[m] for m in ("UTMAREDG", "STS", "LDL", "STL")) == (4, 32, 0, 0)


def test_a_type_it_cannot_take_is_refused():
    with pytest.raises(ValueError, match=r"Q, K, V and dO are one of \['bfloat16', 'float16'\], not 'float32'"):
        attention_backward(1, 64, 64, dtype="float32")


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_the_kernel_the_op_launches_keeps_its_loop_in_registers(d, causal):
    # tile_mlir.ops.attention's backward launches WARPGROUPS[d] warpgroups
    # a block: that kernel, not only the tests' own. d 64 uses no local
    # memory. d 128 on two warpgroups (255 registers) does: ptxas stores a
    # few words (8 bytes, causal 24) once, before the step loop, and
    # reloads them in it (an H100 profile counted 2.1 M such loads at B 4,
    # H 16, S 4096); it is kept because it ran faster than the one
    # warpgroup kernel, which spills nothing (4.34 against 5.42 ms, causal
    # 2.66 against 3.20: bench/README.md).
    from tile_mlir.ops.attention_grad import WARPGROUPS
    code = Sass(attention_backward(64, 4096, 4096, d=d, causal=causal, warpgroups=WARPGROUPS[d]))
    if d == 64:
        assert code.no_spills and code.counts["LDL"] == code.counts["STL"] == 0, code.resources
        return
    spilled = 24 if causal else 8
    assert f"{spilled} bytes spill stores, {spilled} bytes spill loads" in code.resources, code.resources
    first_mma = code.listing.index("HGMMA")
    assert [m.start() < first_mma for m in re.finditer(r"\bSTL\b", code.listing)] == [True] * (spilled // 4)
