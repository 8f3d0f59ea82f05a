"""tile_mlir.kernels.attention_backward_prepare: the backward's (lse2, D)
pairs and zeroed dQ, bit for bit against numpy on random normal data in
the stated order of operations (each thread's 8 products in order, then
the butterfly over the row's threads), the padding pair zeros."""

import math

import numpy as np
import pytest

import tile_mlir
from tile_mlir.kernels.attention_backward_prepare import attention_backward_prepare
from tile_mlir.kernels.reference import gemm as gemm_reference


def rounded(x, dtype):
    """x rounded to bf16 or fp16, as float32, and its bits."""
    bits = gemm_reference.bits(x.astype(np.float32), dtype)
    if dtype == "bfloat16":
        return (bits.astype(np.uint32) << 16).view(np.float32), bits
    return bits.view(np.float16).astype(np.float32), bits


def expected_d(o, do, d):
    """D in the kernel's order: each 8 values' products summed in order
    (float32: a product of two 16-bit values is exact, so an fma is the
    rounded sum), then the butterfly (offsets per_row / 2 down to 1)."""
    per_row = d // 8
    prod = (o * do).astype(np.float32).reshape(*o.shape[:-1], per_row, 8)
    part = prod[..., 0]
    for e in range(1, 8):
        part = (part + prod[..., e]).astype(np.float32)
    offset = per_row // 2
    while offset:
        part = (part + part[..., np.arange(per_row) ^ offset]).astype(np.float32)
        offset //= 2
    return part[..., 0]


@pytest.mark.parametrize("bh, seq, d, dtype, with_grad", [
    (3, 37, 64, "bfloat16", False), (2, 64, 128, "float16", True), (1, 5, 128, "bfloat16", True)])
def test_pairs_and_zeroed_dq_are_the_stated_order_bit_for_bit(bh, seq, d, dtype, with_grad):
    rng = np.random.default_rng(seq)
    o, o_bits = rounded(rng.standard_normal((bh, seq, d)), dtype)
    do, do_bits = rounded(rng.standard_normal((bh, seq, d)), dtype)
    lse = rng.standard_normal((bh, seq)).astype(np.float32) * 4
    grad = rng.standard_normal((bh, seq)).astype(np.float32)
    rows = np.full((bh, 2 * (seq + seq % 2)), np.nan, np.float32)
    dq = np.full((bh, seq, d), np.nan, np.float32)
    args = [o_bits, do_bits, lse[..., None]] + ([grad[..., None]] if with_grad else []) + [rows, dq]
    tile_mlir.interpret(attention_backward_prepare(bh, seq, d, dtype, grad_lse=with_grad), *args)
    want_d = expected_d(o, do, d)
    if with_grad:
        want_d = (want_d - grad).astype(np.float32)
    pairs = rows.reshape(bh, -1, 2)
    np.testing.assert_array_equal(pairs[:, :seq, 0].view(np.uint32),
                                  (lse * np.float32(math.log2(math.e))).astype(np.float32).view(np.uint32))
    np.testing.assert_array_equal(pairs[:, :seq, 1].view(np.uint32), want_d.view(np.uint32))
    assert (pairs[:, seq:] == 0).all()  # an odd seq's padding pair
    assert (dq == 0).all()


def test_what_it_cannot_take_is_refused():
    with pytest.raises(ValueError, match=r"head dimension 96: the preparation takes 64 or 128"):
        attention_backward_prepare(1, 8, 96)
