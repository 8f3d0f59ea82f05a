#!/usr/bin/env python3
"""Runs the artifacts of build_artifacts.py on a CUDA GPU with numpy and the
driver only, compares bit for bit, checks the SASS, and writes a JSON report (and every
kernel's SASS, in kernels.sass beside it).

    PYTHONPATH=python python tools/gpu/run_artifacts.py build/gpu report.json
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from tile_mlir import runtime

from chain_specs import (AMOUNT_CHAINS, CHAINS, FIELD_CONSTANTS, RANGE_CHAINS, RELU_CHAINS, SHUFFLE_MODES,
                         SIGN_CHAINS)
import collective_specs


def bits_equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check_packed_add(kernel, rng):
    x = np.arange(16, dtype="float16").reshape(8, 2)
    y = np.full((8, 2), 2, dtype="float16")
    out = np.zeros((8, 1), dtype="uint32")
    kernel(x.view("uint32").copy(), y.view("uint32").copy(), out)
    return bits_equal(out.view("float16"), x + y), 16


def check_negative_magnitude(kernel, rng):
    x = np.array([[1.5], [-2.0], [3.25], [-0.5]], dtype="float32")
    out = np.zeros((4, 1), dtype="float32")
    kernel(x, out)
    return bits_equal(out, -np.abs(x)), 4


def check_narrow_pairs(kernel, rng):
    x = np.linspace(-2, 2, 8, dtype="float32").reshape(4, 2)
    out = np.zeros((4, 1), dtype="uint32")
    kernel(x, out)
    return bits_equal(out.view("float16"), x.astype("float16")), 8


def check_predicated_neg(kernel, rng):
    a = rng.standard_normal((32, 4, 1)).astype("float32")
    out = np.full((32, 4, 1), 7.0, dtype="float32")
    kept = rng.standard_normal((32, 4, 1)).astype("float32")
    kept_before = kept.copy()
    kernel(a, out, kept)
    active = np.arange(32) < 16
    want_kept = np.where(active[:, None, None], -a, kept_before)
    # Inactive lanes of Out are not stored at all, so they keep 7.0.
    want_out = np.where(active[:, None, None], -a, np.float32(7.0))
    return bits_equal(kept, want_kept) and bits_equal(out, want_out), 2 * a.size


def check_warp_scope(kernel, rng):
    a = rng.standard_normal((32, 4, 1)).astype("float32")
    out = np.full((32, 4, 1), np.nan, dtype="float32")
    kernel(a, out)
    return bits_equal(out, a * np.float32(-3.0)), a.size


def check_wide_offsets(kernel, rng):
    a = rng.standard_normal((32768, 1)).astype("float32")
    out = np.full((32768, 1), 7.0, dtype="float32")
    kernel(a, out)
    want = np.full((32768, 1), 7.0, dtype="float32")
    want[0::4096] = -a[0::4096]
    return bits_equal(out, want), a.size


def check_runtime_slice(kernel, rng):
    a = rng.standard_normal((32, 1)).astype("float32")
    out = np.full((32, 1), np.nan, dtype="float32")
    kernel(a, out)
    return bits_equal(out, -a), a.size


def check_even_view(kernel, rng):
    a = rng.integers(0, 1 << 16, (64, 1), dtype="uint16")
    out = np.zeros((32, 1), dtype="uint32")
    kernel(a, out)
    return bits_equal(out, a.reshape(32, 2).copy().view("uint32")), a.size


def check_add_one(kernel, rng):
    y = rng.standard_normal((64, 1)).astype("float32")
    want = y + np.float32(1)
    kernel(y, y)  # aliased: one buffer, copied back once
    aliased = bits_equal(y, want)
    a = rng.standard_normal((64, 1)).astype("float32")
    a.flags.writeable = False  # never written, so never copied back
    out = np.zeros((64, 1), dtype="float32")
    kernel(out, a)
    return aliased and bits_equal(out, a + np.float32(1)), 2 * y.size


def check_branch(kernel, rng):
    a = rng.standard_normal((32, 1)).astype("float32")
    out = np.full((32, 1), 7.0, dtype="float32")
    kernel(a, out)
    taken = (np.arange(32) < 16) & (np.arange(32) != 3)
    return bits_equal(out, np.where(taken[:, None], -a, np.float32(7.0))), a.size


def check_unsigned_kept(kernel, rng):
    a = rng.integers(0, 1 << 32, (32, 2, 1), dtype="uint32")
    out = np.zeros((32, 2, 1), dtype="uint32")
    kernel(a, out)
    defined = bits_equal(out[:, 0], a[:, 0]) and bits_equal(out[:8, 1], a[:8, 1])
    return defined, 32 + 8


def check_serial_predicates(kernel, rng):
    a = rng.integers(0, 2000, (32, 4, 1), dtype="uint32")
    out = np.zeros((32, 4, 1), dtype="uint32")
    kernel(a, out)
    below = a < 1000
    low = (np.arange(32) < 16)[:, None, None]
    want = np.where(low & below, (-a.astype(np.int64)).astype("uint32"), np.where(low, np.uint32(0), a))
    return bits_equal(out, want.astype("uint32")), a.size


def check_kept_testp(kernel, rng):
    a = rng.integers(0, 1 << 32, (64, 1), dtype="uint32")
    a[::3] = 0x7fc00001  # NaNs
    a[1::7] = 7
    out = np.full((64, 1), 9, dtype="uint32")
    kernel(a, out)
    nan = np.isnan(a.view("float32"))
    low = (np.arange(64) < 35)[:, None]
    want = np.where(low, nan, a != 7).astype("uint32")
    return bits_equal(out, want), a.size


def check_viewed_halves(kernel, rng):
    # Finite halves (a NaN's payload is the hardware's to choose).
    a = (rng.standard_normal((32, 2)) * 1000).astype("float16").view("uint32")
    out = np.zeros((32, 2), dtype="float32")
    kernel(a, out)
    halves = a.view("float16").reshape(32, 2)
    return bits_equal(out, halves.astype("float32")), out.size


CHAIN_INPUTS = {
    # f32: negatives, -inf, NaNs, values beyond u32 and s16.
    "chain_u32_s16": np.array([0xbfc00000, 0xff800000, 0x7fc00000, 0xffc00123, 0x3fc00000, 0x47c35000,
                               0x4f800000, 0xc7c35000], np.uint32),
    # bf16: NaNs of both signs, infinities, values beyond s32.
    "chain_s64_s32": np.array([0x7fc0, 0xffc0, 0x7f81, 0x7f80, 0xff80, 0x4f00, 0xcf00, 0x5f00], np.uint16),
    # bf16 beyond f16's range and below its subnormals, halves, random bits.
    "chain_f16_s32": np.concatenate([np.array([0x4780, 0xc780, 0x477f, 0x3380, 0xb380, 0x3f00, 0xbf40, 0x3f7f], np.uint16),
                                     np.random.default_rng(5006506).integers(0, 1 << 16, 24, dtype=np.uint16)]),
    # f16x2 pairs: subnormal, half-integer and random halves, none NaN (the
    # interpreter leaves a register with a NaN lane's payload undefined).
    "chain_neg_s8": np.concatenate([np.array([0x00013c00, 0x83ff0000, 0x3e003e00, 0xbe00be00, 0x57c057c0, 0x0001d7c0], np.uint32),
                                    np.random.default_rng(6005967).integers(0, 1 << 32, 26, dtype=np.uint32)
                                    & np.uint32(0xBFFFBFFF)]),
}


def expected(opcode, srcs, dtype):
    """The conformance reference's result bits of `opcode` on `srcs`."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "conformance"))
    import reference
    from types import SimpleNamespace
    form = SimpleNamespace(opcode=opcode, family=opcode.split(".")[0], operands=[])
    return np.asarray(reference.reference(form, srcs)).astype(dtype)


def chain_runner(inputs, mid_dtype, out_dtype):
    """Runs a chain kernel on copies of `inputs`: (Mid, Out), flattened."""
    def run(kernel):
        mid, out = np.zeros((32, 1), mid_dtype), np.zeros((32, 1), out_dtype)
        kernel(*(x.copy() for x in inputs), mid, out)
        return mid.reshape(-1), out.reshape(-1)
    return run


def judge_chain(name, kernel, run, want_mid, want_out, barrier="fusion"):
    """Bit-exact on both outputs; the same PTX without the `barrier` the
    chain is about ("fusion" or "saturation"), as ptxas assembles it (what
    the lowering emitted before it had one), is run too and its right
    results recorded."""
    mid, out = run(kernel)
    bare = without_barrier(kernel, barrier)
    if bare is not None:
        _, bare_out = run(bare)
        BARE_RESULTS[name] = {"right": int((bare_out == want_out).sum()), "of": 32}
    return bits_equal(mid, want_mid) and bits_equal(out, want_out), 64


def isa_bfe_s32(a, position, length):
    """bfe.s32 as the PTX ISA writes it: pos and len are the low 8 bits;
    d[i] = a[pos + i] while i < len and pos + i <= 31, else the sign bit
    a[min(pos + len - 1, 31)] (0 when len is 0)."""
    pos, ln = position & 0xFF, length & 0xFF
    out = []
    for x in a.astype(np.int64) & 0xFFFFFFFF:
        bit = lambda i: (int(x) >> i) & 1  # noqa: E731
        sbit = 0 if ln == 0 else bit(min(pos + ln - 1, 31))
        d = sum((bit(pos + i) if i < ln and pos + i <= 31 else sbit) << i for i in range(32))
        out.append(d)
    return np.array(out, np.uint64).astype(np.uint32).view(np.int32)


def check_bfe_constant_position(kernel, rng):
    # Both signs, the extremes, and random words.
    a = np.concatenate([np.array([0, 1, -1, 5, -5, 0x7FFFFFFF, -0x80000000, 0x40000000], np.int32),
                        rng.integers(-(1 << 31), 1 << 31, 24, dtype=np.int64).astype(np.int32)]).reshape(32, 1)
    want = np.stack([isa_bfe_s32(a.reshape(-1), p, n) for p, n in FIELD_CONSTANTS],
                    axis=1).reshape(32, len(FIELD_CONSTANTS), 1)

    def run(k):
        out = np.zeros_like(want)
        k(a.copy(), out)
        return out

    out = run(kernel)
    bare = without_barrier(kernel, "opaque")
    if bare is not None:
        BARE_RESULTS["bfe_constant_position"] = {"right": int((run(bare) == want).sum()), "of": int(want.size)}
    return bits_equal(out, want), int(want.size)


def check_chain(name, first, second):
    def check(kernel, rng):
        a = np.resize(CHAIN_INPUTS[name], 32).reshape(32, 1)
        mid_dtype = {"s64": "uint64", "f16": "uint16"}.get(first.split(".")[-2], "uint32")
        out_dtype = f"uint{second.split('.')[-2][1:]}"
        want_mid = expected(first, [a.reshape(-1)], mid_dtype)
        narrow_in = want_mid.view(np.uint16)[1::2] if first.startswith("neg") else want_mid
        want_out = expected(second, [narrow_in], out_dtype)
        return judge_chain(name, kernel, chain_runner([a], mid_dtype, out_dtype), want_mid, want_out)
    return check


BARE_RESULTS = {}


def without_barrier(kernel, barrier):
    if not isinstance(kernel, runtime.Kernel):  # the interpreter's stand-in
        return None
    if barrier == "saturation":
        return without_saturation_barrier(kernel)
    if barrier == "opaque":
        # `.reg .b32 %tile_zI_R; mov ... %laneid; shr ...; add.u32 %tile_zI_R,
        # %tile_zI_R, %src; ... op ..., %tile_zI_R` back to `op` reading %src.
        ptx = re.sub(r"\.reg \.b32 (%tile_z\d+_\d+); mov\.u32 \1, %laneid; shr\.u32 \1, \1, 5; "
                     r"add\.u32 \1, \1, (%\w+); ([^{}]*?)\1\b", r"\3\2", kernel.ptx)
        return assemble(kernel, ptx) if ptx != kernel.ptx else None
    # `.reg .bN %tile_fI_R; max.sN %tile_fI_R, %src, MIN; ... op ..., %tile_fI_R`
    # back to `op` reading %src (a saturation barrier in the block stays).
    ptx = re.sub(r"\.reg \.b\d+ (%tile_f\d+_\d+); max\.s\d+ \1, (%\w+), -?\d+; ([^{}]*?)\1\b",
                 r"\3\2", kernel.ptx)
    return assemble(kernel, ptx) if ptx != kernel.ptx else None


def without_saturation_barrier(kernel):
    # `op %tile_sI_0, ...; mov {pieces}, %tile_sI_0; mov %dst, {pieces};`
    # back to `op %dst, ...;` (a cvt's max stays, as the lowering had it).
    ptx = re.sub(r"\.reg \.b\d+ (%tile_s\d+_0); \.reg \.b\d+ [^;]*; ([^{}]*?)\1(,[^;{}]*;) "
                 r"mov\.b\d+ (\{[^}]*\}), \1; mov\.b\d+ (%\w+), \4;", r"\2\5\3", kernel.ptx)
    return assemble(kernel, ptx) if ptx != kernel.ptx else None


def assemble(kernel, ptx):
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "k.ptx"), "w").write(ptx)
        done = subprocess.run(["ptxas", f"-arch={kernel.target}", os.path.join(tmp, "k.ptx"), "-o",
                               os.path.join(tmp, "k.cubin")], capture_output=True)
        if done.returncode:
            return None
        cubin = open(os.path.join(tmp, "k.cubin"), "rb").read()
    return runtime.Kernel(kernel.name, ptx, cubin, kernel.target, kernel.params, kernel.grid, kernel.block)


AMOUNT_INPUTS = np.concatenate([
    # f32 bits whose negation or magnitude is a small, a huge or a
    # sign-bit amount: 0, 1, 63, 64, 0x80000000 and beyond.
    np.array([0x80000000, 0x80000001, 0x8000003f, 0x80000040, 0x00000000, 0x7f7fffff, 0xc2000000,
              0x42800000, 0x3f800000, 0x80000020, 0x00000005, 0x8000007f], np.uint32),
    np.random.default_rng(7003105).integers(0, 1 << 32, 20, dtype=np.uint32) & np.uint32(0xBF7FFFFF)])


def check_amount_chain(name, first, shift):
    def check(kernel, rng):
        a = AMOUNT_INPUTS.reshape(32, 1)
        x = np.random.default_rng(64).integers(0, 1 << 64, 32, dtype=np.uint64).reshape(32, 1)
        want_mid = expected(first, [a.reshape(-1)], np.uint32)
        want_out = expected(shift, [x.reshape(-1), want_mid], np.uint64)
        return judge_chain(name, kernel, chain_runner([a, x], np.uint32, np.uint64), want_mid, want_out)
    return check


# f32 bits in (0, 1) whose low half has its sign set, as in seed 7001561,
# then f32 bits of every sign and size, no low half a NaN (the ISA leaves
# abs of a NaN unspecified).
SIGN_INPUTS = np.concatenate([
    np.array([0x3ce5e597, 0x3e498885, 0x210bba68, 0x3ea1860a, 0x00008001, 0x3f7f8123, 0x3c008400,
              0xbf008000, 0x7fc08000, 0x3f800000], np.uint32),
    np.random.default_rng(7001561).integers(0, 1 << 32, 22, dtype=np.uint32) & np.uint32(0xFFFFBFFF)])


def check_sign_chain(name, first, second):
    def check(kernel, rng):
        a = SIGN_INPUTS.reshape(32, 1)
        one = np.full(32, 0x3f800000, np.uint32)
        want_mid = expected(first, [a.reshape(-1), one], np.uint32)
        want_out = expected(second, [want_mid], np.uint32)
        return judge_chain(name, kernel, chain_runner([a], np.uint32, np.uint32), want_mid, want_out)
    return check


# A[t] (64 bits) beyond every saturating range and at its edges, with
# B[t]: the clamped results are NaN bits (0x7fffffff, 0x7fff and
# 0x7fffffffffffffff) and negative ones; the rest is random.
RANGE_A = np.concatenate([
    np.array([0, 1, 0x3f800000, 0x7f800001, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
              (1 << 64) - 1, (1 << 64) - (1 << 31), (1 << 63) - 1, 1 << 63, 0x46ea6001, 0x7f7fffff,
              0xfffffffffff00000, 0x40dd4c0000000000], np.uint64),
    np.random.default_rng(8003086).integers(0, 1 << 63, 16, dtype=np.uint64)
    >> np.random.default_rng(1).integers(0, 63, 16, dtype=np.uint64)])
RANGE_B = np.concatenate([
    np.array([0x7fffffff, 0x80000000, 0x7fffffff, 0x80000001, 0xffffffff, 0x7fff0000, 1, 0x8000,
              0x7fff, 0x12345678, 0xfff00000, 0x40000000, 0x7ffffffe, 0x3f800000, 0xc0000000, 0x10000],
             np.uint32),
    np.random.default_rng(8003087).integers(0, 1 << 32, 16, dtype=np.uint32)])


def check_range_chain(name, first, second, constant, mid_dtype, sources):
    def check(kernel, rng):
        a, b = RANGE_A.reshape(32, 1), RANGE_B.reshape(32, 1)
        values = {"a": RANGE_A, "b": RANGE_B, "low": (RANGE_A & np.uint64(0xffffffff)).astype(np.uint32)}
        want_mid = expected(first, [values[source] for source in sources], mid_dtype)
        float_type = {"uint16": np.float16, "uint32": np.float32, "uint64": np.float64}[mid_dtype]
        c = np.full(32, constant, float_type).view(mid_dtype)
        want_out = expected(second, [want_mid, c], mid_dtype)
        return judge_chain(name, kernel, chain_runner([a, b], mid_dtype, mid_dtype), want_mid, want_out,
                           barrier="saturation")
    return check


def check_relu_chain(name, first, second, dtype):
    def check(kernel, rng):
        # Halves of both signs (products and sums negative half the time),
        # no NaN (a NaN result is the canonical one either way).
        draw = np.random.default_rng(9005246).integers(0, 1 << 32, (2, 32), dtype=np.uint64)
        halves = (draw & np.uint64(0x3FFF3FFF)) | (draw & np.uint64(0x80008000))
        a, b = (halves.astype(dtype) if dtype == "uint32" else (halves & np.uint64(0xBFFF)).astype(dtype))
        sources = [a, b] + ([a] if first.startswith("fma") else [])
        want_mid = expected(first, sources, dtype)
        want_out = expected(second, [want_mid, np.zeros(32, dtype)], dtype)
        return judge_chain(name, kernel, chain_runner([a.reshape(32, 1), b.reshape(32, 1)], dtype, dtype),
                           want_mid, want_out)
    return check


CHAIN_CHECKS = {
    name: check_chain(name, first, second) for name, (first, second, *_) in CHAINS.items()
}


def check_shared_rotate(kernel, rng):
    a = rng.standard_normal((256, 1)).astype(np.float32)
    out = np.zeros_like(a)
    kernel(a, out)
    want = np.concatenate([np.roll(block, -1, axis=0) for block in a.reshape(4, 64, 1)])
    return bits_equal(out, want), out.size


def check_warp_butterfly_sum(kernel, rng):
    a = rng.standard_normal((128, 1)).astype(np.float32)
    out = np.zeros_like(a)
    kernel(a, out)
    values = a.reshape(-1, 32)
    for offset in (16, 8, 4, 2, 1):  # each step adds the partner's value
        values = (values + values[:, np.arange(32) ^ offset]).astype(np.float32)
    return bits_equal(out, values.reshape(128, 1)), out.size


def shuffle_source(mode, lane, b, c):
    """The lane shfl.sync reads for `lane`, from the PTX ISA's pseudo-code."""
    bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & segmask) | (cval & ~segmask)
    min_lane = lane & segmask
    j = {"up": lane - bval, "down": lane + bval, "bfly": lane ^ bval,
         "idx": min_lane | (bval & ~segmask)}[mode]
    inside = j >= max_lane if mode == "up" else j <= max_lane
    return j if inside else lane


def check_shuffle_modes(kernel, rng):
    a = rng.integers(-2**31, 2**31, (32, 1), dtype=np.int64).astype(np.int32)
    out = np.zeros((32, len(SHUFFLE_MODES), 1), np.int32)
    kernel(a, out)
    want = np.array([[a[shuffle_source(mode, lane, b, c), 0] for mode, b, c in SHUFFLE_MODES]
                     for lane in range(32)], np.int32).reshape(out.shape)
    return bits_equal(out, want), out.size


def check_atomic_histogram(kernel, rng):
    """Order-independent results exactly (the bins' sums, the blocks'
    maxima) and the old values as a chain: each thread's old value plus its
    own is another thread's old value of the bin, or the bin's total."""
    a = rng.integers(0, 2**32, (1024, 1), dtype=np.uint64).astype(np.uint32)
    start = rng.integers(0, 2**32, (16, 1), dtype=np.uint64).astype(np.uint32)
    bins, maxima, old = start.copy(), np.zeros((4, 1), np.int32), np.zeros_like(a)
    kernel(a, bins, maxima, old)
    want_bins = ((start[:, 0].astype(np.uint64) + a[:, 0].reshape(64, 16).astype(np.uint64).sum(axis=0))
                 % 2**32).astype(np.uint32).reshape(16, 1)
    want_max = a.view(np.int32).reshape(4, 256).max(axis=1).reshape(4, 1)
    chains = all(
        sorted(((old[b::16, 0].astype(np.uint64) + a[b::16, 0]) % 2**32).tolist())
        == sorted((set(old[b::16, 0].tolist()) - {int(start[b, 0])}) | {int(bins[b, 0])})
        and int(start[b, 0]) in set(old[b::16, 0].tolist())
        for b in range(16))
    ok = bits_equal(bins, want_bins) and bits_equal(maxima, want_max) and chains
    return ok, bins.size + maxima.size + old.size


def check_warp_collectives(name):
    mask, active_lanes, upper_nibbles = collective_specs.CONFIGS[name]

    def check(kernel, rng):
        threads = collective_specs.THREADS
        a = rng.choice(collective_specs.VALUES, (threads, 1))
        out = np.zeros((threads, len(collective_specs.COLUMNS)), np.int32)
        kernel(a, out)
        return bits_equal(out, collective_specs.expected(a.ravel(), mask, active_lanes,
                                                         upper_nibbles)), out.size
    return check


def check_dynamic_rotate(kernel, rng):
    """Each block's values rotated by one, the declared 80016 bytes as
    %dynamic_smem_size, and thread 0's word read back by every thread."""
    a = rng.standard_normal((256, 1)).astype(np.float32)
    want = np.concatenate([np.roll(a[:128, 0], -1), np.roll(a[128:, 0], -1)]).reshape(256, 1)
    out = np.zeros((256, 2), np.int32)
    kernel(a, out)
    sizes = np.tile(np.array([[80016, 7]], np.int32), (256, 1))
    return bits_equal(a, want) and bits_equal(out, sizes), a.size + out.size


CHECKS = {
    "dynamic_rotate": check_dynamic_rotate,
    **{name: check_warp_collectives(name) for name in collective_specs.CONFIGS},
    "atomic_histogram": check_atomic_histogram,
    "shared_rotate": check_shared_rotate,
    "warp_butterfly_sum": check_warp_butterfly_sum,
    "shuffle_modes": check_shuffle_modes,
    "warp_scope": check_warp_scope,
    "packed_add": check_packed_add,
    "negative_magnitude": check_negative_magnitude,
    "narrow_pairs": check_narrow_pairs,
    "predicated_neg": check_predicated_neg,
    "bfe_constant_position": check_bfe_constant_position,
    "wide_offsets": check_wide_offsets,
    "runtime_slice": check_runtime_slice,
    "even_view": check_even_view,
    "add_one": check_add_one,
    "branch": check_branch,
    "unsigned_kept": check_unsigned_kept,
    "serial_predicates": check_serial_predicates,
    "kept_testp": check_kept_testp,
    "viewed_halves": check_viewed_halves,
    **CHAIN_CHECKS,
    **{name: check_amount_chain(name, *spec) for name, spec in AMOUNT_CHAINS.items()},
    **{name: check_sign_chain(name, *spec) for name, spec in SIGN_CHAINS.items()},
    **{name: check_range_chain(name, *spec) for name, spec in RANGE_CHAINS.items()},
    **{name: check_relu_chain(name, *spec) for name, spec in RELU_CHAINS.items()},
}


def sass(kernel):
    if not kernel.cubin:
        return None
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(kernel.cubin)
        f.flush()
        result = subprocess.run(["cuobjdump", "-sass", f.name], capture_output=True, text=True)
    return result.stdout if result.returncode == 0 else None


def sass_summary(text):
    ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\d+\s+)?([A-Z][A-Z0-9_.]*)", text)
    counts = {}
    for op in ops:
        base = op.split(".")[0]
        counts[base] = counts.get(base, 0) + 1
    return counts


def main(artifacts, report_path):
    rng = np.random.default_rng(0)
    report = {"device": None, "kernels": {}}
    report["device"] = runtime.local_arch()
    listings = []
    for name, check in CHECKS.items():
        kernel = runtime.load(os.path.join(artifacts, f"{name}.json"))
        ok, elements = check(kernel, rng)
        text = sass(kernel)
        entry = {"bit_exact": bool(ok), "elements": elements}
        if text is not None:
            entry["sass_ops"] = sass_summary(text)
            entry["local_memory"] = bool(re.search(r"\b(LDL|STL)\b", text))
            listings.append(f"// ===== {name} =====\n{text}")
        if name in BARE_RESULTS:
            entry["without_barrier"] = BARE_RESULTS[name]
        report["kernels"][name] = entry
        print(name, entry)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(os.path.dirname(report_path) or ".", "kernels.sass"), "w") as f:
        f.write("\n".join(listings))
    return 0 if all(k["bit_exact"] for k in report["kernels"].values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
