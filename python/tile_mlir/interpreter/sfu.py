"""The special function unit's results where they were tabulated on the
GPU (an H100: tools/gpu/ex2_tables.py; docs/python.md): ex2.approx.ftz.f32.

MUFU.EX2 splits |x| into its integer part n and its fraction, cut toward
zero to 23 bits (k / 2^23), and scales a table entry by 2^n: 2^x is
positive[k] 2^n for x >= 0 and negative[k] 2^-n for x < 0 (two tables of
2^23 f32 values, stored as their first bits and int8 steps between
neighbours). Measured: every such x of 1M draws in each range tried
(fractions, integer offsets up to 125, -126 to 0, tiny magnitudes) gives
the table's bits. .ftz flushes a subnormal input (2^0 = 1) and a result
below 2^-126 (+0); 2^128 and above is inf; -inf gives +0, NaN the
canonical NaN."""

from __future__ import annotations

import functools
import os

import numpy as np

TABLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ex2_approx_ftz_f32.npz")
FRACTION_BITS = 23
SMALLEST_NORMAL = 2.0 ** -126


@functools.lru_cache(maxsize=None)
def tables():
    """(positive, negative): float32 arrays of the 2^23 entries. The
    steps add up in uint32 (wrapping as the int64 sum cast to uint32
    would), and the entries stay float32: the tables are 64 MiB, not 256
    (a lookup widens only what it reads)."""
    data = np.load(TABLES)
    out = []
    for sign in ("positive", "negative"):
        steps = data[f"{sign}_steps"]
        bits = np.empty(steps.size + 1, np.uint32)
        bits[0] = np.uint32(int(data[f"{sign}_first"][0]) & 0xFFFFFFFF)
        np.cumsum(steps, dtype=np.uint32, out=bits[1:])
        bits[1:] += bits[0]
        out.append(bits.view(np.float32))
    return tuple(out)


def ex2_approx_ftz_f32(x: np.ndarray) -> np.ndarray:
    """The GPU's ex2.approx.ftz.f32 of f32 values `x` (float64 in and out)."""
    positive, negative = tables()
    x = np.asarray(x, dtype=np.float64)
    x = np.where(np.abs(x) < SMALLEST_NORMAL, 0.0, x)
    finite = np.isfinite(x)
    magnitude = np.where(finite, np.abs(x), 0.0)
    whole = np.floor(magnitude)
    index = np.floor((magnitude - whole) * (1 << FRACTION_BITS)).astype(np.int64)
    exponent = np.minimum(whole, 1000).astype(np.int64)
    with np.errstate(over="ignore"):
        value = np.where(x >= 0, np.ldexp(positive[index].astype(np.float64), exponent),
                         np.ldexp(negative[index].astype(np.float64), -exponent))
    value = np.where(value >= 2.0 ** 128, np.inf, np.where(value < SMALLEST_NORMAL, 0.0, value))
    return np.where(finite, value, np.where(np.isnan(x), np.nan, np.where(x > 0, np.inf, 0.0)))
