"""tcgen05.mma and tcgen05.commit in the interpreter
(interpreter/tcgen05_mma.py, PTX ISA 9.0, 9.7.16.10 and 9.7.16.12): one
thread issues D (128 x N, in tensor memory) = A B (+ D) from shared memory
through sm_100's descriptors; the commit's mbarrier phase, waited for,
hands D to four warps' tcgen05.ld. The products against numpy on
integer-valued data (exact), and the hazards of the asynchrony."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T
from tile_mlir import tcgen05
from tile_mlir.interpreter.launch import HazardError, InterpretError, InterpretWarning

from tcgen05_blocks import allocated, handed_over, unloaded, wait_for

KIND_OPCODE = "tcgen05.mma.cta_group::1.kind::{}"
COMMIT = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"


def mma_kernel(n=32, kind="f16", elements=("bf16", "bf16", "f32"), b_major="K", steps=1, wait=True,
               commit=True, overwrite=False, m=128, disable=None, scale=None, ws=False, idesc=None, d_lane=0,
               fence=True):
    """128 threads: A (128 x 16 16-bit, or x 32 bytes) and B (n x K)
    staged in 32-byte-swizzled shared tiles, `steps` products chained into
    D (the first without its input), committed to an mbarrier that every
    thread waits on, then each warp's 32 lanes of D loaded (32x32b) into
    Out. `overwrite`: thread 1 writes A's first word after the issue;
    `disable` (four words: the lanes' bits) and `scale` (scale-input-d):
    the later steps' disable-output-lane mask and D's scale; `ws`:
    tcgen05.mma.ws; `idesc`: the instruction descriptor's word, as given;
    `d_lane`: the lane of D's address (its column the allocation's);
    `fence`: the tcgen05.fence::after_thread_sync after the wait."""
    opcode = KIND_OPCODE.format(kind).replace("mma.", "mma.ws." if ws else "mma.")
    a_kind, b_kind, d_kind = elements
    word_bits = {"f16": 16, "bf16": 16, "tf32": 32}.get(a_kind, 8)
    k_bytes = 32
    dtype = f"uint{word_bits}"
    k = k_bytes * 8 // word_bits
    b_shape = (n, k) if b_major == "K" else (k, n)
    if idesc is None:
        idesc = tcgen05.instruction_descriptor(opcode, d=d_kind, a=a_kind, b=b_kind, m=m, n=n, b_major=b_major)

    @T.function
    def kernel(A: T.Tensor((steps, 128, k), dtype), B: T.Tensor((steps,) + b_shape, dtype),
               Out: T.Tensor((128, n), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        sa = T.alloc_shared((steps, 128, k), dtype, align=1024).swizzle("32B")
        b_row = b_shape[1] * word_bits // 8
        sb = T.alloc_shared((steps,) + b_shape, dtype, align=1024).swizzle(f"{b_row}B")
        word = T.alloc_local((1, 1), "uint32")
        stage(sa, A, (steps * 128, k * word_bits // 32), t, word)
        stage(sb, B, (steps * b_shape[0], b_shape[1] * word_bits // 32), t, word)
        base, bar = allocated(t, 64)
        d_at = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], d_at, base, T.uint32(d_lane << 16))
        mask = T.alloc_local((4,), "uint32")
        for r, word in enumerate(disable or ()):
            T.cuda.tile.apply(T.ptx["mov.b32"], mask[r:r + 1], T.uint32(word))
        with T.if_(t == 0):
            for s in range(steps):
                b_tile = sb[s, 0:b_shape[0], 0:b_shape[1]]
                accumulate = t < 0 if s == 0 else t == 0  # D's input from the second step on
                extra = ([mask] if disable and s else []), ([T.uint32(scale)] if scale is not None and s else [])
                T.cuda.tile.apply(T.ptx[opcode], d_at,
                                  sa[s, 0:m, 0:k].matrix_descriptor(format="tcgen05"),
                                  b_tile.matrix_descriptor(format="tcgen05"), T.uint32(idesc), *extra[0], accumulate,
                                  *extra[1])
            if commit:
                T.cuda.tile.apply(T.ptx[COMMIT], bar)
        if overwrite:
            T.cuda.tile.apply(T.ptx["mov.b32"], word, T.uint32(0))
            T.cuda.tile.apply(T.ptx["st.shared.b32"], sa.view("uint32").reshape((steps * 128, 8))[0:1, 0:1],
                              word, pred=t == 1)
        if wait:
            wait_for(bar)
        at = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], at, base, T.uint32((t // 32 * 32) << 16))
        unloaded(t, at, Out, n, base, 64, fence)
    return kernel


def stage(tile, tensor, shape, t, word):
    """The block's 128 threads copy `tensor` into the shared `tile`, a
    32-bit word each at a time (`shape`: rows, words a row)."""
    rows, per_row = shape
    words = tile.view("uint32").reshape((rows, per_row))
    source = tensor.view("uint32").reshape((rows, per_row))
    for piece in range(0, rows * per_row, 128):
        row, col = (piece + t) // per_row, (piece + t) % per_row
        with T.if_(piece + t < rows * per_row):
            T.cuda.tile.apply(T.ptx["ld.global.b32"], word, source[row:row + 1, col:col + 1])
            T.cuda.tile.apply(T.ptx["st.shared.b32"], words[row:row + 1, col:col + 1], word)


def bf16_bits(values):
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def test_a_bf16_product_is_numpys():
    rng = np.random.default_rng(1)
    a, b = rng.integers(-4, 5, (1, 128, 16)), rng.integers(-4, 5, (1, 32, 16))
    out = np.zeros((128, 32), np.uint32)
    tile_mlir.interpret(mma_kernel(), bf16_bits(a), bf16_bits(b), out, target="sm_100a")
    assert np.array_equal(out.view(np.float32), (a[0] @ b[0].T).astype(np.float32))


def run(kernel, a, b, n):
    out = np.zeros((128, n), np.uint32)
    tile_mlir.interpret(kernel, a, b, out, target="sm_100a")
    return out


def fp8_bits(values, kind):
    import torch
    dtype = torch.float8_e4m3fn if kind == "e4m3" else torch.float8_e5m2
    return torch.tensor(values, dtype=torch.float32).to(dtype).view(torch.uint8).numpy()


def test_an_e4m3_by_e5m2_product_is_numpys():
    # kind::f8f6f4: K is 32 bytes of 8-bit elements; small integers are
    # exact in both formats.
    rng = np.random.default_rng(11)
    a, b = rng.integers(-8, 9, (1, 128, 32)), rng.integers(-8, 9, (1, 32, 32))
    out = run(mma_kernel(kind="f8f6f4", elements=("e4m3", "e5m2", "f32")), fp8_bits(a, "e4m3"),
              fp8_bits(b, "e5m2"), 32)
    assert np.array_equal(out.view(np.float32), (a[0] @ b[0].T).astype(np.float32))


@pytest.mark.parametrize("case", ["f16_b_mn_major_n64", "bf16_two_steps", "s8_u8", "tf32"])
def test_the_product_is_numpys(case):
    rng = np.random.default_rng(7)
    if case == "f16_b_mn_major_n64":
        a, b = rng.integers(-8, 9, (1, 128, 16)), rng.integers(-8, 9, (1, 16, 64))
        out = run(mma_kernel(n=64, elements=("f16", "f16", "f32"), b_major="MN"), a.astype(np.float16).view(np.uint16),
                  b.astype(np.float16).view(np.uint16), 64)
        assert np.array_equal(out.view(np.float32), (a[0] @ b[0]).astype(np.float32))
    elif case == "bf16_two_steps":
        # The second product accumulates into the first's D (enable-input-d).
        a, b = rng.integers(-4, 5, (2, 128, 16)), rng.integers(-4, 5, (2, 32, 16))
        out = run(mma_kernel(steps=2), bf16_bits(a), bf16_bits(b), 32)
        assert np.array_equal(out.view(np.float32), (a[0] @ b[0].T + a[1] @ b[1].T).astype(np.float32))
    elif case == "s8_u8":
        a, b = rng.integers(-128, 128, (1, 128, 32)), rng.integers(0, 256, (1, 32, 32))
        out = run(mma_kernel(kind="i8", elements=("s8", "u8", "s32")), a.astype(np.int8).view(np.uint8),
                  b.astype(np.uint8), 32)
        assert np.array_equal(out.view(np.int32), a[0] @ b[0].T)
    else:
        a, b = rng.integers(-16, 17, (1, 128, 8)), rng.integers(-16, 17, (1, 32, 8))
        out = run(mma_kernel(kind="tf32", elements=("tf32", "tf32", "f32")), a.astype(np.float32).view(np.uint32),
                  b.astype(np.float32).view(np.uint32), 32)
        assert np.array_equal(out.view(np.float32), (a[0] @ b[0].T).astype(np.float32))


def hazard(kernel):
    rng = np.random.default_rng(3)
    a, b = rng.integers(-4, 5, (1, 128, 16)), rng.integers(-4, 5, (1, 32, 16))
    with pytest.raises(HazardError) as caught:
        run(kernel, bf16_bits(a), bf16_bits(b), 32)
    return str(caught.value)


def test_d_loaded_before_the_commit_is_waited_for():
    text = hazard(mma_kernel(wait=False))
    assert "tcgen05.ld.sync.aligned.32x32b.x32.b32: reads columns that the tcgen05.mma at " in text
    assert "writes: no wait has seen the phase its tcgen05.commit arrives on" in text


def test_an_operand_overwritten_before_the_commit_is_waited_for():
    text = hazard(mma_kernel(overwrite=True))
    assert "st.shared.b32: overwrites shared memory that the tcgen05.mma at " in text


def test_d_loaded_after_the_wait_without_the_fence_after_it():
    # PTX ISA 9.7.16.6: the wait that sees the commit's phase hands D over
    # to the waiting thread only with a tcgen05.fence::after_thread_sync
    # after it, before its tcgen05.ld.
    text = hazard(mma_kernel(fence=False))
    assert re.search(r"tcgen05.ld.sync.aligned.32x32b.x32.b32: thread 0 uses the words the tcgen05.commit at "
                     r"\S*test_tcgen05_mma.py:\d+ hands over with no tcgen05.fence::after_thread_sync since its "
                     r"wait saw the phase", text), text


def test_an_mma_never_committed():
    text = hazard(mma_kernel(wait=False, commit=False))
    assert "tcgen05.mma: thread 0's tcgen05.mma is never committed: no tcgen05.commit tracks its completion" in text


def test_disabled_lanes_keep_their_rows():
    # disable-output-lane on the second step: lanes 0-31 and 96 (bits of
    # registers 0 and 3) keep the first step's D.
    rng = np.random.default_rng(8)
    a, b = rng.integers(-4, 5, (2, 128, 16)), rng.integers(-4, 5, (2, 32, 16))
    out = run(mma_kernel(steps=2, disable=(0xFFFFFFFF, 0, 0, 1)), bf16_bits(a), bf16_bits(b), 32)
    first, both = a[0] @ b[0].T, a[0] @ b[0].T + a[1] @ b[1].T
    kept = np.zeros(128, bool)
    kept[0:32] = kept[96] = True
    assert np.array_equal(out.view(np.float32), np.where(kept[:, None], first, both).astype(np.float32))


def test_scale_input_d_halves_the_input():
    # scale-input-d 1 on the second step: D = A1 B1 + D / 2 (exact here).
    rng = np.random.default_rng(9)
    a, b = rng.integers(-4, 5, (2, 128, 16)), rng.integers(-4, 5, (2, 32, 16))
    out = run(mma_kernel(steps=2, scale=1), bf16_bits(a), bf16_bits(b), 32)
    assert np.array_equal(out.view(np.float32), (a[1] @ b[1].T + (a[0] @ b[0].T) / 2).astype(np.float32))


def test_m_64_rows_are_16_lanes_of_each_quadrant():
    # M 64 (the ISA's layout F): rows 16 q to 16 q + 15 at lanes 32 q to
    # 32 q + 15; the quadrants' other lanes are never written (undefined,
    # reported where they are stored).
    rng = np.random.default_rng(5)
    a, b = rng.integers(-4, 5, (1, 128, 16)), rng.integers(-4, 5, (1, 32, 16))
    out = np.zeros((128, 32), np.uint32)
    with pytest.warns(InterpretWarning, match="2048 of 4096 elements of Out were stored undefined"):
        tile_mlir.interpret(mma_kernel(m=64), bf16_bits(a), bf16_bits(b), out, target="sm_100a")
    want = (a[0, :64] @ b[0].T).astype(np.float32)
    lanes = 32 * (np.arange(64) // 16) + np.arange(64) % 16
    assert np.array_equal(out[lanes].view(np.float32), want)


@pytest.mark.parametrize("m", [64, 32])
def test_ws_folds_n_over_the_lanes(m):
    # .ws M 64 (layout E) and M 32 (layout G): D[i, j] at lane
    # i + m (j // w), column j % w, w = N / (128 / m).
    rng = np.random.default_rng(m)
    a, b = rng.integers(-4, 5, (1, 128, 16)), rng.integers(-4, 5, (1, 64, 16))
    out = np.zeros((128, 64), np.uint32)
    with pytest.warns(InterpretWarning, match="stored undefined"):  # the columns past w
        tile_mlir.interpret(mma_kernel(n=64, m=m, ws=True), bf16_bits(a), bf16_bits(b), out, target="sm_100a")
    want = (a[0, :m] @ b[0].T).astype(np.float32)
    width = 64 // (128 // m)
    lanes = np.arange(128)
    for c in range(width):
        assert np.array_equal(out[:, c].view(np.float32), want[lanes % m, lanes // m * width + c]), c


def test_what_is_not_modelled_is_refused():
    # An f16 D (how its halves sit in tensor memory's 32-bit columns is
    # not modelled): refused at the line.
    with pytest.raises(InterpretError, match=r"test_tcgen05_mma.py:\d+: the interpreter does not model "
                                             r"tcgen05.mma.cta_group::1.kind::f16: M 128, D f16, A f16"):
        run(mma_kernel(elements=("f16", "f16", "f16")), np.zeros((1, 128, 16), np.uint16),
            np.zeros((1, 32, 16), np.uint16), 32)


def multicast_kernel(mask):
    """A cluster of two blocks: block 0's thread 0 issues one mma
    (kind::i8, 128 x 32 x 32 of ones: every D word 32) and commits it to
    the mbarrier at the same offset of each block whose rank `mask`
    names; every thread of both blocks waits on its block's mbarrier,
    then block 0 loads D into Out."""
    idesc = tcgen05.instruction_descriptor(KIND_OPCODE.format("i8"), d="s32", a="s8", b="s8", m=128, n=32)

    @T.function
    def kernel(Out: T.Tensor((128, 32), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128, cluster=2))
        t, rank = T.thread_id(), T.cluster_ctarank()
        slot = T.alloc_shared((1,), "uint32", align=16)
        bar = T.alloc_shared((1,), "uint64", align=8)
        done = T.alloc_local((1,), "bool")
        sa = T.alloc_shared((128, 32), "uint8", align=1024).swizzle("32B")
        sb = T.alloc_shared((32, 32), "uint8", align=1024).swizzle("32B")
        ones = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], ones, T.uint32(0x01010101))
        for tile, rows in ((sa, 128), (sb, 32)):
            for row in range(0, rows, 16):  # 8 words a row, 128 threads: 16 rows a pass
                r, c = row + t // 8, t % 8
                T.cuda.tile.apply(T.ptx["st.shared.b32"], tile.view("uint32")[r:r + 1, c:c + 1], ones)
        with T.if_(t < 32):
            T.cuda.tile.apply(T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"], slot, T.uint32(32))
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        base = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], base, slot)
        with T.if_((t == 0) & (rank == 0)):
            T.cuda.tile.apply(T.ptx[KIND_OPCODE.format("i8")], base,
                              sa[0:128, 0:32].matrix_descriptor(format="tcgen05"),
                              sb[0:32, 0:32].matrix_descriptor(format="tcgen05"), T.uint32(idesc), t < 0)
            T.cuda.tile.apply(T.ptx["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster."
                                    "multicast::cluster.b64"], bar, T.uint16(mask))
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        with T.if_(rank == 0):
            at = T.alloc_local((1,), "uint32")
            T.cuda.tile.apply(T.ptx["add.u32"], at, base, T.uint32((t // 32 * 32) << 16))
            d = T.alloc_local((32,), "uint32")
            T.cuda.tile.apply(T.ptx["tcgen05.ld.sync.aligned.32x32b.x32.b32"], d, at)
            T.cuda.tile.apply(T.ptx["tcgen05.wait::ld.sync.aligned"])
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t, :].reshape((32, 1)), d.reshape((32, 1)))
        T.cuda.tile.apply(T.ptx["tcgen05.fence::before_thread_sync"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["tcgen05.fence::after_thread_sync"])
        with T.if_(t < 32):
            T.cuda.tile.apply(T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], base, T.uint32(32))
    return kernel


def test_a_multicast_commit_arrives_on_each_named_block():
    # ctaMask 0b11: both blocks' mbarriers complete (block 1 waits on its
    # own); block 0 reads the product.
    out = np.zeros((128, 32), np.uint32)
    tile_mlir.interpret(multicast_kernel(0b11), out, target="sm_100a")
    assert (out == 32).all()


def test_a_block_the_mask_leaves_out_waits_forever():
    # ctaMask 0b01: block 1's mbarrier never completes: its wait loop
    # never ends (reported).
    with pytest.raises(InterpretError, match=r"this loop never ends"):
        tile_mlir.interpret(multicast_kernel(0b01), np.zeros((128, 32), np.uint32), target="sm_100a")


def test_an_instruction_descriptor_no_type_has_is_a_fault():
    # A's code 7 is no type of kind::f16: a fault at the mma's line.
    with pytest.raises(InterpretError, match=r"test_tcgen05_mma.py:\d+: tcgen05.mma.cta_group::1.kind::f16: thread 0: "
                                             r"its instruction descriptor: the descriptor's a code 7 is no type "
                                             r"kind::f16 takes"):
        run(mma_kernel(idesc=7 << 7 | 1 << 4 | 4 << 17 | 8 << 24), np.zeros((1, 128, 16), np.uint16),
            np.zeros((1, 32, 16), np.uint16), 32)


def test_d_past_the_allocation_is_reported():
    # N 128 from column 0 of a 64-column allocation.
    with pytest.raises(HazardError, match="D's columns 0-127 are in no allocation of its block"):
        run(mma_kernel(n=128), np.zeros((1, 128, 16), np.uint16), np.zeros((1, 128, 16), np.uint16), 128)


def test_d_at_a_lane_other_than_0_is_reported():
    # D's rows are lanes 0-127 of its columns (layout D, M 128): an address
    # at lane 32 is no D.
    with pytest.raises(HazardError, match="D at lane 32: its rows' lanes start at lane 0"):
        run(mma_kernel(d_lane=32), np.zeros((1, 128, 16), np.uint16), np.zeros((1, 32, 16), np.uint16), 32)


def test_a_disable_mask_register_never_written_is_a_fault():
    # The second step's mask is four registers; only the first is written.
    with pytest.raises(InterpretError, match=r"test_tcgen05_mma.py:\d+: tcgen05.mma.cta_group::1.kind::f16: thread 0: "
                                             r"its disable-output-lane mask reads a register never written"):
        run(mma_kernel(steps=2, disable=(0xFFFFFFFF,)), np.zeros((2, 128, 16), np.uint16),
            np.zeros((2, 32, 16), np.uint16), 32)


def test_a_multicast_mask_past_the_cluster_is_a_fault():
    with pytest.raises(InterpretError, match=r"thread 0: its ctaMask 5 names a rank past its cluster's 2 blocks"):
        tile_mlir.interpret(multicast_kernel(0b101), np.zeros((128, 32), np.uint32), target="sm_100a")


def a_in_tensor_memory_kernel(m=128, overwrite=False, wait_st=True, d_stored=False):
    """128 threads: A (m x 16 bf16, two a 32-bit word, the first in the low
    half) stored by tcgen05.st into columns 64-71 (row i at lane i; with m
    64 the quadrants past it store nothing), B (32 x 16) staged in shared
    memory; thread 0's tcgen05.mma reads A from tensor memory into D
    (columns 0-31), committed and waited for; each warp loads its lanes of
    D into Out. `overwrite`: warp 0 stores A's columns again after the
    issue, before the wait. `wait_st` False: the stores of A are handed
    over without their warps' tcgen05.wait::st. `d_stored`: each warp
    also stores its lanes of D's first 8 columns, with no wait::st, and
    the mma accumulates into D."""
    opcode = KIND_OPCODE.format("f16")
    idesc = tcgen05.instruction_descriptor(opcode, d="f32", a="bf16", b="bf16", m=m, n=32, b_major="K")

    @T.function
    def kernel(A: T.Tensor((128, 8), "uint32"), B: T.Tensor((1, 32, 16), "uint16"),
               Out: T.Tensor((128, 32), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        sb = T.alloc_shared((1, 32, 16), "uint16", align=1024).swizzle("32B")
        word = T.alloc_local((1, 1), "uint32")
        stage(sb, B, (32, 8), t, word)
        base, bar = allocated(t, 128)
        at = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], at, base, T.uint32(((t // 32 * 32) << 16) + 64))
        row = T.alloc_local((8,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], row.reshape((8, 1)), A[t, :].reshape((8, 1)))
        with T.if_(t < m):
            T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x8.b32"], at, row)
            if wait_st:
                T.cuda.tile.apply(T.ptx["tcgen05.wait::st.sync.aligned"])
        if d_stored:
            d_at = T.alloc_local((1,), "uint32")
            T.cuda.tile.apply(T.ptx["sub.u32"], d_at, at, T.uint32(64))
            T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x8.b32"], d_at, row)
        handed_over()
        a_at = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], a_at, base, T.uint32(64))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[opcode], base, a_at, sb[0, 0:32, 0:16].matrix_descriptor(format="tcgen05"),
                              T.uint32(idesc), t == 0 if d_stored else t < 0)
            T.cuda.tile.apply(T.ptx[COMMIT], bar)
        if overwrite:
            with T.if_(t < 32):
                T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x8.b32"], at, row)
        wait_for(bar)
        T.cuda.tile.apply(T.ptx["sub.u32"], at, at, T.uint32(64))
        unloaded(t, at, Out, 32, base, 128)
    return kernel


def packed_rows(a):
    """A's bf16 rows as tensor memory holds them: two a 32-bit word, the
    first element in the low half."""
    bits = bf16_bits(a).astype(np.uint32)
    return bits[:, 0::2] | bits[:, 1::2] << 16


def test_a_in_tensor_memory_is_row_i_at_lane_i_packed_along_the_columns():
    rng = np.random.default_rng(11)
    a, b = rng.integers(-4, 5, (128, 16)), rng.integers(-4, 5, (1, 32, 16))
    out = np.zeros((128, 32), np.uint32)
    tile_mlir.interpret(a_in_tensor_memory_kernel(), packed_rows(a), bf16_bits(b), out, target="sm_100a")
    assert np.array_equal(out.view(np.float32), (a @ b[0].T).astype(np.float32))


def test_a_in_tensor_memory_of_m_64_is_lanes_0_to_63():
    # M 64 (layout F): D's rows 16q to 16q + 15 at lanes 32q to 32q + 15;
    # A's row i at lane i (lanes 0-63, the seed system's operand layout).
    rng = np.random.default_rng(12)
    a, b = rng.integers(-4, 5, (128, 16)), rng.integers(-4, 5, (1, 32, 16))
    out = np.zeros((128, 32), np.uint32)
    with pytest.warns(InterpretWarning, match="stored undefined"):  # lanes 16-31 of each quadrant hold no D
        tile_mlir.interpret(a_in_tensor_memory_kernel(m=64), packed_rows(a), bf16_bits(b), out, target="sm_100a")
    want = (a[:64] @ b[0].T).astype(np.float32)
    lanes = 32 * (np.arange(64) // 16) + np.arange(64) % 16
    assert np.array_equal(out[lanes].view(np.float32), want)


@pytest.mark.parametrize("variant, message", [
    # warp 0 stores A's columns again after the issue, before the wait
    ({"overwrite": True}, r"tcgen05.st.sync.aligned.32x32b.x8.b32: writes columns that the tcgen05.mma at "
                          r".*test_tcgen05_mma.py:\d+ reads as its A: no wait has seen the phase its "
                          r"tcgen05.commit arrives on"),
    # tcgen05.st completes at its warp's tcgen05.wait::st: the mma reading
    # A's words, or accumulating into D's, before it
    ({"wait_st": False}, r"tcgen05.mma.cta_group::1.kind::f16: reads, as its A, columns that the tcgen05.st at "
                         r"\S*test_tcgen05_mma.py:\d+ writes: its warp has run no tcgen05.wait::st.sync.aligned "
                         r"since"),
    ({"d_stored": True}, r"tcgen05.mma.cta_group::1.kind::f16: accumulates into columns that the tcgen05.st at "
                         r"\S*test_tcgen05_mma.py:\d+ writes: its warp has run no tcgen05.wait::st.sync.aligned "
                         r"since")])
def test_a_in_tensor_memorys_hazards(variant, message):
    rng = np.random.default_rng(13)
    a, b = rng.integers(-4, 5, (128, 16)), rng.integers(-4, 5, (1, 32, 16))
    with pytest.raises(HazardError, match=message):
        tile_mlir.interpret(a_in_tensor_memory_kernel(**variant), packed_rows(a), bf16_bits(b),
                            np.zeros((128, 32), np.uint32), target="sm_100a")
