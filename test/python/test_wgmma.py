"""wgmma.mma_async in the interpreter (interpreter/wgmma.py, PTX ISA 9.0,
9.7.15): descriptors from tile.matrix_descriptor over 32-, 64- and
128-byte swizzles, A in registers, accumulation, negation, f16, tf32 and s8
against numpy on integer-valued data; the hazards of its asynchrony; the
H200's verdict (tools/gpu/results/wgmma.json)."""

import json
import os
import sys

import numpy as np
import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
import wgmma_check as W  # noqa: E402


def product(name, **changes):
    """The D (64 x n) the interpreter gives, and numpy's."""
    spec = {**W.CASES[name], **changes}
    (a, b), arrays = W.case_arrays(spec)
    c_in = arrays[2].copy()
    tile_mlir.interpret(W.wgmma_tile(**spec), *arrays)
    out, n, dkind = arrays[-1], spec["n"], spec.get("dkind", "f32")
    want = (-1 if spec.get("negate_a") else 1) * (a @ b.T)
    got = np.zeros((64, n))
    for t in range(W.THREADS):
        for i in range(n // 2):
            row, col = W.d_place(i, t)
            if dkind == "f16":
                got[row, col] = np.uint16((int(out[t, i // 2]) >> (16 * (i % 2))) & 0xFFFF).view(np.float16)
                c = np.uint16((int(c_in[t, i // 2]) >> (16 * (i % 2))) & 0xFFFF).view(np.float16)
            else:
                got[row, col], c = out[t, i], c_in[t, i]
            if spec.get("accumulate"):
                want[row, col] += c
    return got, want


@pytest.mark.parametrize("name", ["bf16_n8_64B_accumulate", "f16_n32_32B_negated", "f16_f16_n64_128B",
                                  "e5m2_e4m3_f16_n32_64B", "u8_s8_n16_32B_accumulate", "f16_n32_both_mn_major",
                                  "f16_n32_64B_b_mn_major", "bf16_n128_b_mn_major_2_rows",
                                  "bf16_registers_n256_b_mn_major_4_rows", "f16_n32_32B_both_mn_major_rows",
                                  "tf32_n16_128B", "s8_n32_128B"])
def test_the_product_is_numpys(name):
    got, want = product(name)
    assert np.array_equal(got, want)


def test_a_in_registers_from_ldmatrix():
    got, want = product("bf16_registers_n64", n=16, k_steps=2)
    assert np.array_equal(got, want)


def test_a_wrong_swizzle_reads_other_rows():
    # The descriptor says 64-byte rows where the data sits in 128-byte
    # ones: the compiler refuses the tile (its rows are 128 bytes apart).
    import tile_mlir.script as T
    with pytest.raises(T.TileError, match=r"element \(1, 0\) of the tile is 128 bytes from its start, "
                                          r"but the descriptor reads 64 there"):
        @T.function
        def k(Out: T.Tensor((1,), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
            s = T.alloc_shared((64, 64), "uint16", align=1024).swizzle("64B")
            s[0:64, 0:16].matrix_descriptor()


def test_a_descriptor_moved_past_its_buffer_is_refused():
    # A descriptor moved by arithmetic (no tile proves it) 4096 bytes on:
    # its 64 rows of 128 bytes would run past the 8 KiB buffer.
    import tile_mlir.script as T
    from tile_mlir.interpreter.wgmma import WgmmaFault

    @T.function
    def k(Out: T.Tensor((128, 32), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        s = T.alloc_shared((64, 64), "uint16", align=1024).swizzle("128B")
        zero = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], zero.reshape((4, 1)), T.uint32(0))
        for p in range(4):
            row, col = t // 8 + 16 * p, 4 * (t % 8)
            T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], s.view("uint32")[row:row + 1, col:col + 4], zero)
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        d = T.alloc_local((1, 1, 32), "float32")
        desc = s[0:64, 0:16].matrix_descriptor()
        moved = T.alloc_local((1, 1, 1), "uint64")
        T.cuda.tile.apply(T.ptx["add.s64"], moved, desc, T.uint64(256))
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"], d, desc, moved, t >= 128,
                          T.int32(1), T.int32(1), T.uint32(0), T.uint32(0))
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out.view("uint32")[t:t + 1, :].reshape((32, 1)),
                          d.view("uint32").reshape((32, 1)))
    with pytest.raises(WgmmaFault, match="a descriptor that reads bytes 4096 to 12287 of a 8192-byte buffer"):
        tile_mlir.interpret(k, np.zeros((128, 32), np.float32))


def test_reading_d_before_the_wait_is_a_hazard():
    spec = {**W.CASES["bf16_n8_64B_accumulate"], "wait": None}
    _, arrays = W.case_arrays(spec)
    with pytest.raises(tile_mlir.HazardError, match=r"wgmma_check.py:\d+: st.global.b32 reads registers of its D, "
                                                    r"which the wgmma.mma_async at \S*wgmma_check.py:\d+ has in "
                                                    r"flight: no wgmma.wait_group since covers its group"):
        tile_mlir.interpret(W.wgmma_tile(**spec), *arrays)


def test_a_wait_that_leaves_the_group_pending_is_a_hazard():
    # wait_group 1 lets the newest group stay in flight.
    spec = {**W.CASES["bf16_n8_64B_accumulate"], "wait": 1}
    _, arrays = W.case_arrays(spec)
    with pytest.raises(tile_mlir.HazardError, match=r"st.global.b32 reads registers of its D"):
        tile_mlir.interpret(W.wgmma_tile(**spec), *arrays)


def test_overwriting_its_shared_operand_before_the_wait_is_a_hazard():
    spec = {**W.CASES["bf16_n8_64B_accumulate"], "overwrite": True}
    _, arrays = W.case_arrays(spec)
    with pytest.raises(tile_mlir.HazardError, match=r"st.shared.v4.b32 overwrites shared memory it reads, which "
                                                    r"the wgmma.mma_async at \S*wgmma_check.py:\d+ has in flight"):
        tile_mlir.interpret(W.wgmma_tile(**spec), *arrays)


def test_the_h200_agrees_bit_for_bit():
    with open(os.path.join(ROOT, "tools", "gpu", "results", "wgmma.json")) as f:
        report = json.load(f)
    assert report["kernels"] == len(W.CASES)
    assert sorted(report["passed"]) == sorted(W.CASES)
    assert report["mismatched"] == []


def _handed_over(wait_first):
    """Warpgroup 1 issues D = A B^T (m64n8k16, bf16) from shared memory and
    hands A to warpgroup 0 (bar.arrive / bar.sync, barrier 1 of 256
    threads), which zeroes A; `wait_first`: warpgroup 1 retires the wgmma
    (wait_group 0) before it hands A over, else after."""
    from tile_mlir import script as T

    @T.function
    def kernel(A: T.Tensor((64, 16), "uint16"), B: T.Tensor((8, 16), "uint16"), Out: T.Tensor((128, 4), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
        t = T.thread_id()
        sa = T.alloc_shared((64, 16), "uint16", align=256).swizzle("32B")
        sb = T.alloc_shared((8, 16), "uint16", align=256).swizzle("32B")
        word = T.alloc_local((1, 1), "uint32")
        for tile, tensor, rows in ((sa, A, 64), (sb, B, 8)):
            for piece in range(0, rows * 8, 256):  # a word of a row of 8 words a thread
                row, col = (piece + t) // 8, t % 8
                with T.if_(piece + t < rows * 8):
                    T.cuda.tile.apply(T.ptx["ld.global.b32"], word, tensor.view("uint32")[row:row + 1, col:col + 1])
                    T.cuda.tile.apply(T.ptx["st.shared.b32"], tile.view("uint32")[row:row + 1, col:col + 1], word)
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t >= 128):
            d = T.alloc_local((1, 1, 4), "float32")
            T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
            T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"], d,
                              sa[0:64, 0:16].matrix_descriptor(), sb[0:8, 0:16].matrix_descriptor(), t < 128,
                              T.int32(1), T.int32(1), T.uint32(0), T.uint32(0))
            T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
            if wait_first:
                T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
            T.cuda.tile.apply(T.ptx["bar.arrive"], T.uint32(1), T.uint32(256))
            if not wait_first:
                T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
            p = t - 128
            T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[p:p + 1, 0:4], d.reshape((1, 4)))
        with T.if_(t < 128):
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(1), T.uint32(256))
            T.cuda.tile.apply(T.ptx["mov.b32"], word, T.uint32(0))
            half, quarter = t // 2, 4 * (t % 2)  # a word in each 16-byte unit of A's rows
            T.cuda.tile.apply(T.ptx["st.shared.b32"], sa.view("uint32")[half:half + 1, quarter:quarter + 1], word)

    rng = np.random.default_rng(5)
    a, b = rng.integers(-3, 4, (64, 16)), rng.integers(-3, 4, (8, 16))
    bits = [(x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16) for x in (a, b)]
    out = np.zeros((128, 4), np.float32)
    tile_mlir.interpret(kernel, *bits, out)
    got = np.zeros((64, 8))
    for t in range(128):
        for i in range(4):
            row, col = W.d_place(i, t)
            got[row, col] = out[t, i]
    assert np.array_equal(got, a @ b.T)


def test_a_shared_operand_handed_over_after_the_wait_is_no_race():
    _handed_over(wait_first=True)


def test_a_shared_operand_handed_over_before_the_wait_is_a_race():
    # The wgmma may read A until its wait_group retires it: warpgroup 0's
    # writes are ordered after the issue (the handover) but not after the
    # retirement, a race whichever order the interpreter runs them in.
    # (Barrier 1 counts the whole block, but warpgroup 1 only arrives: it
    # orders warpgroup 1's accesses before the arrival, not after.)
    with pytest.raises(tile_mlir.HazardError, match=r"test_wgmma.py:\d+: write-after-read race on the shared buffer "
                                                    r"of \S+ byte 0: thread 0 here, thread 128 at \S+test_wgmma.py:\d+"):
        _handed_over(wait_first=False)


def test_overwriting_its_a_registers_before_the_wait_is_a_hazard():
    # The PTX ISA (9.7.15.5.2): the registers of A must not be modified
    # until a wgmma.wait_group covers the wgmma; a second k step that
    # reloads them with ldmatrix does.
    spec = {**W.CASES["bf16_registers_n64"], "n": 16, "k_steps": 2, "reload_a": True}
    _, arrays = W.case_arrays(spec)
    with pytest.raises(tile_mlir.HazardError, match=r"wgmma_check.py:\d+: ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                                                    r"writes registers of its A, which the wgmma.mma_async at "
                                                    r"\S*wgmma_check.py:\d+ has in flight"):
        tile_mlir.interpret(W.wgmma_tile(**spec), *arrays)
