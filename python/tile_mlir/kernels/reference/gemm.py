"""Inputs and the expected result of the GEMMs (gemm_mma, gemm_hopper): integer-valued fp16/bf16
data small enough that every product and partial sum of A B is exact in
f32 (|a|, |b| <= 4, so |sum| <= 16 K < 2^24), where the mma's result is the
exact one whatever its order of addition (PTX ISA: the order is the
chip's); on such data C equals numpy's A B bit for bit."""

import numpy as np


def e4m3_bits(values):
    """Values e4m3 holds exactly (small integers) as its bits (uint8): sign,
    four exponent bits biased by 7, three mantissa bits (PTX ISA 5.2.5)."""
    values = np.asarray(values, np.float64)
    magnitude = np.abs(values)
    safe = np.where(magnitude > 0, magnitude, 1)
    exponent = np.floor(np.log2(safe)).astype(np.int64)
    mantissa = np.round((safe / 2.0 ** exponent - 1) * 8).astype(np.int64)
    assert ((1 + mantissa / 8) * 2.0 ** exponent == safe).all() and (exponent >= -6).all()
    out = ((values < 0).astype(np.int64) << 7) | ((exponent + 7) << 3) | mantissa
    return np.where(magnitude > 0, out, 0).astype(np.uint8)


def bits(values, dtype):
    """float values as fp16 or bf16 bit patterns (uint16), or e4m3's (uint8)."""
    values = np.asarray(values, np.float32)
    if dtype == "e4m3":
        return e4m3_bits(values)
    if dtype == "float16":
        return values.astype(np.float16).view(np.uint16)
    return (values.view(np.uint32) >> 16).astype(np.uint16)  # exact: small integers


def inputs(m, n, k, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, (m, k)).astype(np.float32)
    b = rng.integers(-4, 5, (k, n)).astype(np.float32)
    return bits(a, dtype), bits(b, dtype), a, b


def expected(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
