"""The reference's exact division and square root (the correctly rounded
div, rcp and sqrt forms round from them): the float64 result and the sign
of what it leaves out, computed in numpy (two_product's exact remainder),
equal those of exact rational arithmetic (Fraction), element for element,
on values over every f32, f16 and f64 range, zeros, infinities, NaNs and
subnormals."""

from fractions import Fraction

import numpy as np
import pytest

from tile_mlir.interpreter import reference as R

N = 20000
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.7976931348623157e308, 1.0, -3.0])


def draws(kind, rng):
    if kind == "f32":
        with np.errstate(over="ignore"):
            return (rng.standard_normal(N) * np.exp2(rng.integers(-149, 128, N))).astype(np.float32).astype(float)
    if kind == "f64":
        return rng.standard_normal(N) * np.exp2(rng.integers(-1070, 1020, N).astype(float))
    if kind == "f16":
        return rng.standard_normal(N).astype(np.float16).astype(float)
    return rng.integers(-64, 64, N).astype(float)  # exact quotients and roots


def rational_div(a, b):
    hi, res = a / b, np.zeros(a.size)
    for i, (x, y) in enumerate(zip(a, b)):
        if np.isfinite(x) and np.isfinite(y) and x != 0 and y != 0:
            exact = Fraction(float(x)) / Fraction(float(y))
            if np.isinf(hi[i]):  # past the largest double: the residual is the quotient's sign
                res[i] = 1 if exact > 0 else -1
                continue
            res[i] = (exact > Fraction(float(hi[i]))) - (exact < Fraction(float(hi[i])))
    return hi, res


def rational_sqrt(a):
    hi, res = np.sqrt(a), np.zeros(a.size)
    for i, (x, h) in enumerate(zip(a, hi)):
        if np.isfinite(x) and x > 0:
            square = Fraction(float(h)) ** 2
            res[i] = (Fraction(float(x)) > square) - (Fraction(float(x)) < square)
    return hi, res


@pytest.mark.parametrize("kind", ["f32", "f64", "f16", "integers"])
def test_division_and_roots_equal_rational_arithmetic(kind):
    rng = np.random.default_rng(["f32", "f64", "f16", "integers"].index(kind))
    a, b = draws(kind, rng), draws(kind, rng)
    a[:SPECIALS.size], b[SPECIALS.size:2 * SPECIALS.size] = SPECIALS, SPECIALS
    with np.errstate(all="ignore"):
        want_div, want_sqrt = rational_div(a, b), rational_sqrt(np.abs(a))
    got_div, got_sqrt = R.exact_div(a, b), R.exact_sqrt(np.abs(a))
    for got, want in ((got_div, want_div), (got_sqrt, want_sqrt)):
        assert np.array_equal(got[0], want[0], equal_nan=True)
        assert np.array_equal(got[1], want[1])
    assert (want_div[1] != 0).any() and (want_sqrt[1] != 0).any()  # inexact results among them
