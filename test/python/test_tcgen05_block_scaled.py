"""Block-scaled tcgen05.mma (kind::mxf8f6f4, scale_vec::1X) in the
interpreter: each row of A and of B times 2^(e - 127), e its ue8m0 scale
in tensor memory as the seed system lays a scale operand out
(apache-tvm-tirx, patterns/tcgen05_mma.py `_scale_operand`): row r at lane
r % 32 of each 32-lane quadrant (four replicas), word column the
address's + r // 32, the byte the instruction descriptor's scale id
names. Against numpy on integer data and scales 2^-k to 2^k (exact)."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T
from tile_mlir import tcgen05
from tile_mlir.interpreter.launch import HazardError, InterpretWarning

from tcgen05_blocks import allocated, handed_over, unloaded, wait_for
from test_tcgen05_mma import COMMIT, fp8_bits, stage

OPCODE = "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"
N = 32
SCALES_AT = 32  # the scales' first column: D takes columns 0-31
B_SCALES_AT = SCALES_AT + 4  # M 128: A's scales take four words


def scale_image(a_exponents, b_exponents, a_id, b_id):
    """(128, 8) words: the scales as the seed system's layout puts them, the
    same in each quadrant (row q 32 + l of the image is lane q 32 + l)."""
    words = np.zeros((32, 8), np.uint32)
    for rows, first, ident in ((a_exponents, 0, a_id), (b_exponents, 4, b_id)):
        for r, e in enumerate(rows):
            words[r % 32, first + r // 32] |= np.uint32(int(e)) << np.uint32(8 * ident)
    return np.tile(words, (4, 1))


def block_scaled_kernel(a_id, b_id, wait_st=True, b_scales_at=B_SCALES_AT):
    """128 threads: A (128 x 32 e4m3) and B (32 x 32) staged in shared
    memory; each warp stores its quadrant's scale words (tcgen05.st
    32x32b.x8 at column 32) and hands them over; thread 0's mma into D
    (columns 0-31), committed, waited for, unloaded into Out."""
    idesc = tcgen05.instruction_descriptor(OPCODE, d="f32", a="e4m3", b="e4m3", m=128, n=N, scale_type="ue8m0",
                                           a_scale_id=a_id, b_scale_id=b_id)

    @T.function
    def kernel(A: T.Tensor((1, 128, 32), "uint8"), B: T.Tensor((1, N, 32), "uint8"),
               Scales: T.Tensor((128, 8), "uint32"), Out: T.Tensor((128, N), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        sa = T.alloc_shared((1, 128, 32), "uint8", align=1024).swizzle("32B")
        sb = T.alloc_shared((1, N, 32), "uint8", align=1024).swizzle("32B")
        word = T.alloc_local((1, 1), "uint32")
        stage(sa, A, (128, 8), t, word)
        stage(sb, B, (N, 8), t, word)
        base, bar = allocated(t, 64)
        quadrant = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], quadrant, base, T.uint32(((t // 32 * 32) << 16) + SCALES_AT))
        row = T.alloc_local((8,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], row.reshape((8, 1)), Scales[t, :].reshape((8, 1)))
        T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x8.b32"], quadrant, row)
        if wait_st:
            T.cuda.tile.apply(T.ptx["tcgen05.wait::st.sync.aligned"])
        handed_over()
        sfa, sfb = T.alloc_local((1,), "uint32"), T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], sfa, base, T.uint32(SCALES_AT))
        T.cuda.tile.apply(T.ptx["add.u32"], sfb, base, T.uint32(b_scales_at))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[OPCODE], base, sa[0, 0:128, 0:32].matrix_descriptor(format="tcgen05"),
                              sb[0, 0:N, 0:32].matrix_descriptor(format="tcgen05"), T.uint32(idesc), sfa, sfb, t < 0)
            T.cuda.tile.apply(T.ptx[COMMIT], bar)
        wait_for(bar)
        at = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["add.u32"], at, base, T.uint32((t // 32 * 32) << 16))
        unloaded(t, at, Out, N, base, 64)
    return kernel


def operands(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-8, 9, (128, 32)), rng.integers(-8, 9, (N, 32))
    a_exponents, b_exponents = 127 + rng.integers(-6, 7, 128), 127 + rng.integers(-6, 7, N)
    return a, b, a_exponents, b_exponents


@pytest.mark.parametrize("a_id, b_id", [(0, 0), (3, 1)])
def test_each_row_is_scaled_by_its_power_of_two(a_id, b_id):
    a, b, ea, eb = operands(21 + a_id)
    out = np.zeros((128, N), np.uint32)
    tile_mlir.interpret(block_scaled_kernel(a_id, b_id), fp8_bits(a[None], "e4m3"), fp8_bits(b[None], "e4m3"),
                        scale_image(ea, eb, a_id, b_id), out, target="sm_100a")
    want = (a * np.ldexp(1.0, ea - 127)[:, None]) @ (b * np.ldexp(1.0, eb - 127)[:, None]).T
    assert np.array_equal(out.view(np.float32), want.astype(np.float32))


def test_replicas_that_disagree_and_the_nan_scale_leave_rows_undefined():
    # Row 5's scale differs in quadrant 2's replica; row 9's is 255 (NaN):
    # their rows of D are undefined, reported where they are stored.
    a, b, ea, eb = operands(30)
    ea[9] = 255
    image = scale_image(ea, eb, 0, 0)
    image[64 + 5, 0] ^= 1
    out = np.zeros((128, N), np.uint32)
    with pytest.warns(InterpretWarning, match=f"{2 * N} of {128 * N} elements of Out were stored undefined"):
        tile_mlir.interpret(block_scaled_kernel(0, 0), fp8_bits(a[None], "e4m3"), fp8_bits(b[None], "e4m3"), image,
                            out, target="sm_100a")


def test_scales_stored_without_wait_st_are_reported():
    a, b, ea, eb = operands(31)
    with pytest.raises(HazardError, match=r"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X: "
                                          r"reads, as scale-A-tmem, columns that the tcgen05.st at "
                                          r"\S*test_tcgen05_block_scaled.py:\d+ writes"):
        tile_mlir.interpret(block_scaled_kernel(0, 0, wait_st=False), fp8_bits(a[None], "e4m3"),
                            fp8_bits(b[None], "e4m3"), scale_image(ea, eb, 0, 0), np.zeros((128, N), np.uint32),
                            target="sm_100a")


@pytest.mark.parametrize("b_scales_at, message", [
    ((32 << 16) + B_SCALES_AT, "scale-B-tmem at lane 32: its rows' lanes start at lane 0"),
    (64, "scale-B-tmem's columns 64-64 are in no allocation of its block")])
def test_a_scale_address_off_lane_0_or_its_allocation_is_reported(b_scales_at, message):
    a, b, ea, eb = operands(32)
    with pytest.raises(HazardError, match=message):
        tile_mlir.interpret(block_scaled_kernel(0, 0, b_scales_at=b_scales_at), fp8_bits(a[None], "e4m3"),
                            fp8_bits(b[None], "e4m3"), scale_image(ea, eb, 0, 0), np.zeros((128, N), np.uint32),
                            target="sm_100a")
