"""atom and red add.noftz on f16, bf16, f16x2 and bf16x2 (issue 26): in the
table with ptxas 13.0's rules (.noftz required, bf16 from sm_90), lowered
as written, and run by the interpreter as round-to-nearest adds that keep
subnormals, lane by lane. Expected values are numpy's float16 sums in
ascending thread order (the interpreter's order: exact here, where the
values are small integers and every partial sum is representable)."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T


def accumulate(opcode, dtype, threads=64):
    @T.function
    def k(A: T.Tensor((threads, 1), dtype), Total: T.Tensor((1, 1), dtype), Old: T.Tensor((threads, 1), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=threads))
        t = T.thread_id()
        a = T.alloc_local((1, 1), dtype)
        old = T.alloc_local((1, 1), dtype)
        bits = 16 if dtype == "uint16" else 32
        T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[opcode], old, Total, a)
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits}"], Old[t:t + 1], old)
    return k


def test_f16_adds_are_exact_sums_in_thread_order_and_emitted_as_written():
    a = (np.arange(64) % 7 - 3).astype(np.float16).reshape(64, 1)
    total = np.array([[0.5]], np.float16)
    old = np.zeros((64, 1), np.float16)
    kernel = accumulate("atom.global.add.noftz.f16", "uint16")
    tile_mlir.interpret(kernel, a.view(np.uint16), total.view(np.uint16), old.view(np.uint16))
    running = np.float16(0.5) + np.concatenate([[0], np.cumsum(a.ravel().astype(np.float64))])
    assert old.ravel().tolist() == running[:-1].astype(np.float16).tolist()
    assert total[0, 0] == np.float16(running[-1])
    assert re.search(r"atom\.global\.add\.noftz\.f16 %rs\d+, \[%rd\d+\], %rs\d+;",
                     " ".join(tile_mlir.compile(kernel).ptx.split()))


def test_packed_halves_add_lane_by_lane_and_keep_subnormals():
    # Low lanes add 2^-24 (the smallest f16 subnormal) each: .noftz keeps it.
    low = np.full(64, np.float16(2.0 ** -24))
    high = (np.arange(64) % 3).astype(np.float16)
    a = (low.view(np.uint16).astype(np.uint32) | (high.view(np.uint16).astype(np.uint32) << 16)).reshape(64, 1)
    total = np.zeros((1, 1), np.uint32)
    old = np.zeros((64, 1), np.uint32)
    tile_mlir.interpret(accumulate("atom.global.add.noftz.f16x2", "uint32"), a, total, old)
    sums = total.view(np.float16).ravel()
    assert sums[0] == np.float16(64 * 2.0 ** -24) and sums[1] == np.float16(high.astype(np.float64).sum())


def test_bf16_needs_sm_90_and_noftz_is_required():
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"requires sm_90 or newer and PTX ISA 7\.8"):
        tile_mlir.ptx.parse("atom.global.add.noftz.bf16", target="sm_80")
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"atom\.f16 needs 'noftz'"):
        tile_mlir.ptx.parse("atom.global.add.f16")
    assert tile_mlir.ptx.parse("red.global.add.noftz.bf16x2", target="sm_90").min_sm == 90


def test_vector_atomics_update_each_element_and_follow_ptxas():
    @T.function
    def k(A: T.Tensor((64, 4), "float32"), Total: T.Tensor((1, 4), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        t = T.thread_id()
        a = T.alloc_local((1, 4), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], a, A[t:t + 1, :])
        T.cuda.tile.apply(T.ptx["red.global.v4.f32.add"], Total, a)

    a = np.tile(np.array([1.0, 2.0, 0.5, -3.0], np.float32), (64, 1))
    total = np.zeros((1, 4), np.float32)
    tile_mlir.interpret(k, a, total)
    assert total.ravel().tolist() == [64.0, 128.0, 32.0, -192.0]
    assert re.search(r"red\.global\.v4\.f32\.add \[%rd\d+\], \{%r\d+, %r\d+, %r\d+, %r\d+\};",
                     " ".join(tile_mlir.compile(k).ptx.split()))
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"atom vectors take f32 \(add, \.v2 or \.v4\)"):
        tile_mlir.ptx.parse("atom.global.v8.f16x2.add.noftz")
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"requires sm_90 or newer and PTX ISA 8\.1"):
        tile_mlir.ptx.parse("atom.global.v2.f32.add", target="sm_80")
    # A variant's message names its family (it printed "{ctx}.red takes ...").
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"^bar\.red takes popc with \.u32, or and/or"):
        tile_mlir.ptx.parse("bar.red.popc.b32")
