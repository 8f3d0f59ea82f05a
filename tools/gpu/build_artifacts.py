#!/usr/bin/env python3
"""Compiles the kernels that tools/gpu/run_artifacts.py runs on a GPU machine
without MLIR: the spec's three examples, and predication checks.

    python tools/gpu/build_artifacts.py build/gpu
"""

import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "examples", "spec"))

import tile_mlir  # noqa: E402
from tile_mlir import script as T  # noqa: E402

import abs_neg  # noqa: E402
import narrow_pairs  # noqa: E402
import packed_add  # noqa: E402
from chain_specs import (AMOUNT_CHAINS, CHAINS, FIELD_CONSTANTS, RANGE_CHAINS, RELU_CHAINS, SHUFFLE_MODES,  # noqa: E402
                         SIGN_CHAINS)
from collective_specs import COLUMNS, CONFIGS as COLLECTIVE_CONFIGS  # noqa: E402
from collective_specs import THREADS as COLLECTIVE_THREADS  # noqa: E402


@T.function
def predicated_neg(A: T.Tensor((32, 4, 1), "float32"), Out: T.Tensor((32, 4, 1), "float32"),
                   Kept: T.Tensor((32, 4, 1), "float32")):
    """Lanes 0..15 negate; the others leave Out undefined (Out) or keep the
    previous destination (Kept, preserve_dst)."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    src = T.alloc_local((4, 1), "float32")
    dst = T.alloc_local((4, 1), "float32")
    kept = T.alloc_local((4, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], src, A[t])
    T.cuda.tile.apply(T.ptx["ld.global.f32"], kept, Kept[t])
    T.cuda.tile.apply(T.ptx["neg.f32"], dst, src, pred=t < 16)
    T.cuda.tile.apply(T.ptx["neg.f32"], kept, src, pred=t < 16, preserve_dst=True)
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t], dst, pred=t < 16)
    T.cuda.tile.apply(T.ptx["st.global.f32"], Kept[t], kept)


@T.function
def bfe_constant_position(A: T.Tensor((32, 1), "int32"), Out: T.Tensor((32, len(FIELD_CONSTANTS), 1), "int32")):
    """Thread t extracts fields of A[t] with bfe.s32 at each constant
    (position, length) of FIELD_CONSTANTS: past the width, so each result
    is A[t]'s sign bit repeated, which ptxas -O3 folded to -1 (finding 9)."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    a = T.alloc_local((1, 1), "int32")
    d = T.alloc_local((len(FIELD_CONSTANTS), 1), "int32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t:t + 1])
    for k, (position, length) in enumerate(FIELD_CONSTANTS):
        T.cuda.tile.apply(T.ptx["bfe.s32"], d[k:k + 1], a, T.uint32(position), T.uint32(length))
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t], d)


@T.function
def warp_scope(A: T.Tensor((32, 4, 1), "float32"), Out: T.Tensor((32, 4, 1), "float32")):
    """A warp-scope apply over a (32, 4, 1) tile: lane l owns row l and runs
    its own four instructions; nothing is shuffled or staged."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    r = T.alloc_local((32, 4, 1), "float32", scope="warp")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A, scope="warp")
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], r, r, T.float32(-3.0), scope="warp")
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out, r, scope="warp")


@T.function
def wide_offsets(A: T.Tensor((32768, 1), "float32"), Out: T.Tensor((32768, 1), "float32")):
    """Rows 16 KiB apart, so the static offsets (0 to 112 KiB) span two
    64 KiB address windows of each buffer."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    r = T.alloc_local((8, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[0::4096])
    T.cuda.tile.apply(T.ptx["neg.f32"], r, r)
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out[0::4096], r)


@T.function
def runtime_slice(A: T.Tensor((32, 1), "float32"), Out: T.Tensor((32, 1), "float32")):
    """Thread t negates and stores slot t of a 32-register tile: a slice at a
    runtime index, which forwarding once turned into an undefined register
    (the write vanished and the store read garbage)."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    r = T.alloc_local((32, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A)
    T.cuda.tile.apply(T.ptx["neg.f32"], r[t:t + 1], r[t:t + 1])
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], r[t:t + 1])


@T.function
def even_view(A: T.Tensor((64, 1), "uint16"), Out: T.Tensor((32, 1), "uint32")):
    """Thread t loads halves 2t and 2t+1 as one word through a view at a
    runtime offset the compiler proves even (a bare t is rejected)."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    r = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[2 * t:2 * t + 2].reshape((1, 2)).view("uint32"))
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)


@T.function
def add_one(Out: T.Tensor((64, 1), "float32"), A: T.Tensor((64, 1), "float32")):
    """Out = A + 1, run with Out and A the same array (aliased) and with a
    read-only A."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    r = T.alloc_local((64, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A)
    T.cuda.tile.apply(T.ptx["add.rn.f32"], r, r, T.float32(1.0))
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out, r)


@T.function
def branch(A: T.Tensor((32, 1), "float32"), Out: T.Tensor((32, 1), "float32")):
    """Threads 0..15 but 3 take the T.if_ branch and negate; the rest store
    nothing."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    with T.if_((t < 16) & ~t.eq(3)):
        r = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["neg.f32"], r, r)
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], r)


@T.function
def unsigned_kept(A: T.Tensor((32, 2, 1), "uint32"), Out: T.Tensor((32, 2, 1), "uint32")):
    """Unsigned registers never written before a predicated, preserving
    load: compiled once the undef of a ui32 was LLVM-typed. Lanes below 8
    load both words; the others store their first word and an undefined
    second one, which the check does not read."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    r = T.alloc_local((2, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], r[0:1], A[t, 0:1])
    T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t], pred=t < 8, preserve_dst=True)
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t], r)


@T.function
def serial_predicates(A: T.Tensor((32, 4, 1), "uint32"), Out: T.Tensor((32, 4, 1), "uint32")):
    """A predicate tile written at a runtime index (so it keeps its memory,
    as bytes) and read inside T.if_: selp picks A or 0, then neg runs where
    the predicate holds. The Python API aborted on this (an upstream
    assertion in MemRefToLLVM) before predicate storage was widened."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    a = T.alloc_local((4, 1), "uint32")
    p = T.alloc_local((4, 1), "bool")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t])
    for i in T.serial(0, 4):
        T.cuda.tile.apply(T.ptx["setp.lt.u32"], p[i:i + 1], a[i:i + 1], T.uint32(1000))
    with T.if_(t < 16):
        T.cuda.tile.apply(T.ptx["selp.b32"], a, a, T.uint32(0), p)
        T.cuda.tile.apply(T.ptx["neg.s32"], a, a, pred=p, preserve_dst=True)
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t], a)


@T.function
def kept_testp(A: T.Tensor((64, 1), "uint32"), Out: T.Tensor((64, 1), "uint32")):
    """A predicate set by setp, then a guarded testp that keeps it where the
    guard is false (threads 35 and up): ptxas (CUDA 13.0) ignores the guard
    of a testp, so the lowering moves the test under the guard (difftest
    seed 8001639, docs/difftest.md finding 8)."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    t = T.thread_id()
    a = T.alloc_local((1, 1), "uint32")
    p = T.alloc_local((1, 1), "bool")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["setp.ne.u32"], p, a, T.uint32(7))
    T.cuda.tile.apply(T.ptx["testp.notanumber.f32"], p, a, pred=t < 35, preserve_dst=True)
    T.cuda.tile.apply(T.ptx["selp.b32"], a, T.uint32(1), T.uint32(0), p)
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], a)


@T.function
def viewed_halves(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 2), "float32")):
    """Two cvt.f32.f16 per word through a uint16 view, which tile-expand
    forwards as a split of the loaded register (register residency)."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    w = T.alloc_local((1, 1), "uint32")
    f = T.alloc_local((1, 2), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], w, A[t:t + 1])
    h = w.view("uint16")
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], f[:, 0:1], h[:, 0:1])
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], f[:, 1:2], h[:, 1:2])
    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Out[t:t + 1], f)


def conversion_chain(first, second, src_dtype, mid_dtype, out_dtype):
    """Thread t converts A[t] with `first`, stores the middle value, and
    converts it again with `second`: ptxas -O3 fused such chains into one
    conversion that is wrong for negative inputs or NaN
    (tools/difftest/results/ptxas_cvt_barrier.json)."""
    def chain(A: T.Tensor((32, 1), src_dtype), Mid: T.Tensor((32, 1), mid_dtype),
              Out: T.Tensor((32, 1), out_dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), src_dtype)
        m = T.alloc_local((1, 1), mid_dtype)
        o = T.alloc_local((1, 1), out_dtype)
        bits = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}
        T.cuda.tile.apply(T.ptx[f"ld.global.b{bits[src_dtype]}"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[first], m, a)
        if first.startswith("neg"):  # the high f16 of the pair
            T.cuda.tile.apply(T.ptx[second], o, m.view("uint16")[:, 1:2])
        else:
            T.cuda.tile.apply(T.ptx[second], o, m)
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits[mid_dtype]}"], Mid[t:t + 1], m)
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits[out_dtype]}"], Out[t:t + 1], o)
    return T.function(chain)


def amount_chain(first, shift):
    """Thread t computes a float op `first` of A[t], stores it, and shifts
    X[t] by it with the 64-bit `shift`: ptxas (CUDA 13.0) assembled
    neg.f32 then shr.b64 as a float-to-integer conversion of the negated
    value (tools/difftest/results/fold_probe.json)."""
    def chain(A: T.Tensor((32, 1), "uint32"), X: T.Tensor((32, 1), "uint64"),
              Mid: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 1), "uint64")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), "uint32")
        m = T.alloc_local((1, 1), "uint32")
        x = T.alloc_local((1, 1), "uint64")
        o = T.alloc_local((1, 1), "uint64")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["ld.global.b64"], x, X[t:t + 1])
        T.cuda.tile.apply(T.ptx[first], m, a)
        T.cuda.tile.apply(T.ptx[shift], o, x, m)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Mid[t:t + 1], m)
        T.cuda.tile.apply(T.ptx["st.global.b64"], Out[t:t + 1], o)
    return T.function(chain)


def sign_chain(first, second):
    """Thread t saturates A[t] with `first` (times 1.0), stores it, and
    takes `second`, abs of its packed halves: ptxas (CUDA 13.0) -O3 dropped
    the abs after a result it knew was not negative as an f32, so the low
    half kept its sign (difftest seed 7001561,
    tools/difftest/results/fold_probe.json)."""
    def chain(A: T.Tensor((32, 1), "uint32"), Mid: T.Tensor((32, 1), "uint32"),
              Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), "uint32")
        m = T.alloc_local((1, 1), "uint32")
        o = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[first], m, a, T.float32(1.0))
        T.cuda.tile.apply(T.ptx[second], o, m)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Mid[t:t + 1], m)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], o)
    return T.function(chain)


def range_chain(first, second, constant, mid_dtype, sources):
    """Thread t saturates to an integer with `first` of A[t] and B[t] (in
    the order `sources` names them), stores it, and takes `second` of its
    bits and `constant`: ptxas (CUDA 13.0) -O3 took the integer saturation
    for the float .sat, a value in [0.0, 1.0], and dropped the min or max
    (tools/difftest/results/sat_range.json)."""
    scalar = {"uint16": T.float16, "uint32": T.float32, "uint64": T.float64}[mid_dtype]
    bits = {"uint32": 32, "uint64": 64}

    def chain(A: T.Tensor((32, 1), "uint64"), B: T.Tensor((32, 1), "uint32"),
              Mid: T.Tensor((32, 1), mid_dtype), Out: T.Tensor((32, 1), mid_dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), "uint64")
        b = T.alloc_local((1, 1), "uint32")
        m = T.alloc_local((1, 1), mid_dtype)
        o = T.alloc_local((1, 1), mid_dtype)
        T.cuda.tile.apply(T.ptx["ld.global.b64"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B[t:t + 1])
        low = a.view("uint32")[:, 0:1]
        tiles = {"a": a, "b": b, "low": low}
        T.cuda.tile.apply(T.ptx[first], m, *(tiles[name] for name in sources))
        T.cuda.tile.apply(T.ptx[second], o, m, scalar(constant))
        width = {"uint16": 16, **bits}[mid_dtype]
        T.cuda.tile.apply(T.ptx[f"st.global.b{width}"], Mid[t:t + 1], m)
        T.cuda.tile.apply(T.ptx[f"st.global.b{width}"], Out[t:t + 1], o)
    return T.function(chain)


def relu_chain(first, second, dtype):
    """Thread t computes `first` of A[t] and B[t] (and A[t] again for an
    fma), stores it, and takes `second` of it and +0: ptxas (CUDA 13.0) -O3
    fused the two into an FMA with .relu, which leaves a negative product 0
    where xorsign.abs keeps it (finding 14)."""
    width = {"uint16": 16, "uint32": 32}[dtype]

    def chain(A: T.Tensor((32, 1), dtype), B: T.Tensor((32, 1), dtype),
              Mid: T.Tensor((32, 1), dtype), Out: T.Tensor((32, 1), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), dtype)
        b = T.alloc_local((1, 1), dtype)
        m = T.alloc_local((1, 1), dtype)
        o = T.alloc_local((1, 1), dtype)
        T.cuda.tile.apply(T.ptx[f"ld.global.b{width}"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[f"ld.global.b{width}"], b, B[t:t + 1])
        T.cuda.tile.apply(T.ptx[first], m, a, b, *([a] if first.startswith("fma") else []))
        zero = T.alloc_local((1, 1), dtype)  # +0 that ptxas sees as a constant
        T.cuda.tile.apply(T.ptx[f"mov.b{width}"], zero, T.uint16(0) if width == 16 else T.uint32(0))
        T.cuda.tile.apply(T.ptx[second], o, m, zero)
        T.cuda.tile.apply(T.ptx[f"st.global.b{width}"], Mid[t:t + 1], m)
        T.cuda.tile.apply(T.ptx[f"st.global.b{width}"], Out[t:t + 1], o)
    return T.function(chain)


@T.function
def shared_rotate(A: T.Tensor((256, 1), "float32"), Out: T.Tensor((256, 1), "float32")):
    """Each thread stages its element in shared memory; after bar.sync it
    reads its neighbour's: Out[b*64 + t] = A[b*64 + (t + 1) % 64]."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=64))
    S = T.alloc_shared((64, 1), "float32")
    t = T.thread_id()
    i = T.block_id() * 64 + t
    r = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[i:i + 1])
    T.cuda.tile.apply(T.ptx["st.shared.f32"], S[t:t + 1], r)
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    n = (t + 1) % 64
    T.cuda.tile.apply(T.ptx["ld.shared.f32"], r, S[n:n + 1])
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out[i:i + 1], r)


@T.function
def warp_butterfly_sum(A: T.Tensor((128, 1), "float32"), Out: T.Tensor((128, 1), "float32")):
    """A warp sum in five shfl.sync.bfly steps, each adding the partner's
    value (add.rn.f32), over two blocks of two warps."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=64))
    i = T.block_id() * 64 + T.thread_id()
    r = T.alloc_local((1, 1), "float32")
    other = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[i:i + 1])
    for offset in (16, 8, 4, 2, 1):
        T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], other.view("uint32"), r.view("uint32"),
                          T.uint32(offset), T.uint32(31), T.uint32(0xFFFFFFFF))
        T.cuda.tile.apply(T.ptx["add.rn.f32"], r, r, other)
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out[i:i + 1], r)


@T.function
def shuffle_modes(A: T.Tensor((32, 1), "int32"), Out: T.Tensor((32, 6, 1), "int32")):
    """Every shfl.sync mode with clamps and segment masks: column k of
    thread t is A at the lane SHUFFLE_MODES[k] names for lane t."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    r = T.alloc_local((1, 1), "int32")
    out = T.alloc_local((6, 1), "int32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
    for k, (mode, b, c) in enumerate(SHUFFLE_MODES):
        T.cuda.tile.apply(T.ptx[f"shfl.sync.{mode}.b32"], out[k:k + 1], r, T.uint32(b), T.uint32(c),
                          T.uint32(0xFFFFFFFF))
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t], out)


@T.function
def atomic_histogram(A: T.Tensor((1024, 1), "uint32"), Bins: T.Tensor((16, 1), "uint32"),
                     Max: T.Tensor((4, 1), "int32"), Old: T.Tensor((1024, 1), "uint32")):
    """Every thread adds its value to bin i % 16 (atom.global.add.u32, the old
    value kept), a block-shared maximum (red.shared.max.s32, then bar.sync),
    and thread 0 of each block stores its block's maximum."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=256))
    t = T.thread_id()
    i = T.block_id() * 256 + t
    top = T.alloc_shared((1, 1), "int32")
    v = T.alloc_local((1, 1), "uint32")
    old = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], v, A[i:i + 1])
    b = i % 16
    T.cuda.tile.apply(T.ptx["atom.global.add.u32"], old, Bins[b:b + 1], v)
    T.cuda.tile.apply(T.ptx["st.global.b32"], Old[i:i + 1], old)
    T.cuda.tile.apply(T.ptx["st.shared.b32"], top, T.int32(-2**31), pred=t < 1)
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    T.cuda.tile.apply(T.ptx["red.shared.max.s32"], top, v.view("int32"))
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    m = T.alloc_local((1, 1), "int32")
    T.cuda.tile.apply(T.ptx["ld.shared.b32"], m, top)
    blk = T.block_id()
    T.cuda.tile.apply(T.ptx["st.global.b32"], Max[blk:blk + 1], m, pred=t < 1)


def warp_collectives(mask, active_lanes, upper_nibbles):
    """Every vote, match, redux, elect and activemask once, on the lanes of
    each warp below `active_lanes` (with `upper_nibbles`, those whose lane
    % 8 >= 4), over `mask`: Out's columns as collective_specs.COLUMNS names
    them, zeros where a thread does not execute."""
    n, threads = len(COLUMNS), COLLECTIVE_THREADS

    @T.function
    def k(A: T.Tensor((threads, 1), "int32"), Out: T.Tensor((threads, n), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=threads))
        t = T.thread_id()
        a = T.alloc_local((1, 1), "int32")
        p = T.alloc_local((1, 1), "bool")
        q = T.alloc_local((1, 1), "bool")
        o = T.alloc_local((n, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["mov.b32"], o, T.int32(0))
        with T.if_(t % 32 < active_lanes), T.if_(t % 8 >= (4 if upper_nibbles else 0)):
            m = T.uint32(mask)
            T.cuda.tile.apply(T.ptx["setp.lt.s32"], p, a, T.int32(0))
            for i, mode in enumerate(("all", "any", "uni")):
                T.cuda.tile.apply(T.ptx[f"vote.sync.{mode}.pred"], q, p, m)
                T.cuda.tile.apply(T.ptx["selp.b32"], o[i:i + 1], T.int32(1), T.int32(0), q)
            T.cuda.tile.apply(T.ptx["vote.sync.ballot.b32"], o[3:4], p, m)
            T.cuda.tile.apply(T.ptx["match.any.sync.b32"], o[4:5], a, m)
            T.cuda.tile.apply(T.ptx["match.all.sync.b32"], o[5:6], q, a, m)
            T.cuda.tile.apply(T.ptx["selp.b32"], o[6:7], T.int32(1), T.int32(0), q)
            T.cuda.tile.apply(T.ptx["redux.sync.add.u32"], o[7:8], a, m)
            T.cuda.tile.apply(T.ptx["redux.sync.min.s32"], o[8:9], a, m)
            T.cuda.tile.apply(T.ptx["redux.sync.max.u32"], o[9:10], a, m)
            T.cuda.tile.apply(T.ptx["redux.sync.xor.b32"], o[10:11], a, m)
            T.cuda.tile.apply(T.ptx["elect.sync"], o[11:12], q, m)
            T.cuda.tile.apply(T.ptx["selp.b32"], o[12:13], T.int32(1), T.int32(0), q)
            T.cuda.tile.apply(T.ptx["activemask.b32"], o[13:14])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1, :].reshape((n, 1)), o)

    return k


def dynamic_rotate(words):
    """A `words`-word buffer of dynamic shared memory after a 4-byte one (at
    16: 80016 bytes for 20000 words, past the 48 KiB a launch gets without
    opting in): each thread stores its value at the far end of it, then
    reads its neighbour's; Out holds %dynamic_smem_size and the word thread
    0 stored in the first buffer."""
    @T.function
    def rotate(A: T.Tensor((256, 1), "float32"), Out: T.Tensor((256, 2), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128))
        t = T.thread_id()
        i = T.block_id() * 128 + t
        flag = T.alloc_dynamic_shared((1, 4), "uint8")
        s = T.alloc_dynamic_shared((words, 1), "float32")
        r = T.alloc_local((1, 1), "float32")
        n = T.alloc_local((2, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[i:i + 1])
        T.cuda.tile.apply(T.ptx["st.shared.f32"], s[words - 128 + t:words - 127 + t], r)
        T.cuda.tile.apply(T.ptx["st.shared.b32"], flag.view("uint32"), T.uint32(7), pred=t < 1)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        j = words - 128 + (t + 1) % 128
        T.cuda.tile.apply(T.ptx["ld.shared.f32"], r, s[j:j + 1])
        T.cuda.tile.apply(T.ptx["mov.b32"], n[0:1], T.int32(T.dynamic_smem_size()))
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], n[1:2], flag.view("uint32"))
        T.cuda.tile.apply(T.ptx["st.global.f32"], A[i:i + 1], r)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[i:i + 1, :].reshape((2, 1)), n)
    return rotate


KERNELS = {
    "dynamic_rotate": dynamic_rotate(20000),
    **{name: warp_collectives(*config) for name, config in COLLECTIVE_CONFIGS.items()},
    "atomic_histogram": atomic_histogram,
    "shared_rotate": shared_rotate,
    "warp_butterfly_sum": warp_butterfly_sum,
    "shuffle_modes": shuffle_modes,
    "warp_scope": warp_scope,
    "packed_add": packed_add.packed_add,
    "negative_magnitude": abs_neg.negative_magnitude,
    "narrow_pairs": narrow_pairs.narrow_pairs,
    "predicated_neg": predicated_neg,
    "bfe_constant_position": bfe_constant_position,
    "wide_offsets": wide_offsets,
    "runtime_slice": runtime_slice,
    "even_view": even_view,
    "add_one": add_one,
    "branch": branch,
    "unsigned_kept": unsigned_kept,
    "serial_predicates": serial_predicates,
    "kept_testp": kept_testp,
    "viewed_halves": viewed_halves,
    **{name: conversion_chain(*spec) for name, spec in CHAINS.items()},
    **{name: amount_chain(*spec) for name, spec in AMOUNT_CHAINS.items()},
    **{name: sign_chain(*spec) for name, spec in SIGN_CHAINS.items()},
    **{name: range_chain(*spec) for name, spec in RANGE_CHAINS.items()},
    **{name: relu_chain(*spec) for name, spec in RELU_CHAINS.items()},
}


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, fn in KERNELS.items():
        kernel = tile_mlir.compile(fn, target="sm_90")
        kernel.save(os.path.join(out_dir, f"{name}.json"))
        print(f"{name}: {len(kernel.ptx)} bytes of PTX, cubin {'yes' if kernel.cubin else 'no'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "gpu"))
