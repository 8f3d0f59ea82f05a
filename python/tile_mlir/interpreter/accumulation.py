"""sm_90's floating tensor-core accumulation: D = A B + C of one mma.sync
or wgmma as the chip computes it, where the PTX ISA leaves the order and
the precision of the additions to the chip. Measured on an H100 and an
H200 and fitted by tools/gpu/accumulation_check.py, bit for bit on every
element of its draws (docs/interpreter.md, "Tensor-core accumulation").

One block (`BlockSum`) sums C and `block` products at once. Each product
aligns by the sum of its inputs' exponent fields (a subnormal's is the
least normal exponent), C by its own; every term is cut toward zero to the
grid 2^(E - fraction_bits), E the largest of those exponents; the cut
terms are summed exactly and the sum is rounded once to D's type. A longer
K is blocks in K's order, each block's D the next one's C (a wgmma of K 16
or 32: one block; a GEMM's K loop: a chain of them).

- f16, bf16 and tf32 into f32: one block of the instruction's K, 25
  fraction bits, rounded toward zero (mma.sync m16n8k4/k8/k16; wgmma K16,
  tf32 K8).
- f16 into f16: the same block, rounded to nearest even.
- e4m3/e5m2 wgmma: a block of 32, 13 fraction bits; into f32 the sum is
  cut to 14 significant bits (the narrow fp8 accumulator DeepSeek-V3
  reports), into f16 rounded to nearest even.
- e4m3/e5m2 mma.sync (`ConvertedToF16`): ptxas emulates it on sm_90 with
  two f16 HMMAs and an add (its SASS: F2FP.F16.E4M3.UNPACK_B, HMMA, FADD
  or HADD2): the low and high halves of each fragment register (k = 4j,
  4j + 1 and 4j + 2, 4j + 3) are an f16 block each, chained from +0, and C
  is added last, rounded to nearest even.

The products of the narrow inputs are exact in float64 (at most 11 + 11
significant bits), and so are the cut terms' sums (fewer than 53 bits).
A NaN result is the tensor cores' canonical NaN (all ones but the sign).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import reference as R

# Below every exponent a term can have: an all-zero block aligns to it.
_NO_EXPONENT = -100_000
# The canonical NaN of the tensor cores' results (measured).
NAN_BITS = {"f32": 0x7FFFFFFF, "f16": 0x7FFF}


@dataclass(frozen=True)
class BlockSum:
    """Blocks of `block` products, each summed with C as the module says."""

    block: int
    fraction_bits: int
    rounding: str
    significant_bits: Optional[int] = None
    """Where set, each block's sum is first cut toward zero to this many
    significant bits (fp8's accumulator)."""

    def dot(self, products: np.ndarray, exponents: np.ndarray, c: np.ndarray, kind: str) -> np.ndarray:
        """D (float64 values of `kind`) of `products` (..., K), aligned by
        `exponents` (..., K), and C (...)."""
        acc = np.asarray(c, dtype=np.float64)
        for start in range(0, products.shape[-1], self.block):
            terms = np.concatenate([acc[..., None], products[..., start:start + self.block]], axis=-1)
            aligned_by = np.concatenate([exponents_of(acc, kind)[..., None],
                                         exponents[..., start:start + self.block]], axis=-1)
            acc = _round(self._narrow(self._sum(terms, aligned_by)), kind, self.rounding)
        return acc

    def _sum(self, terms: np.ndarray, exponents: np.ndarray) -> np.ndarray:
        """The exact sum of `terms` (..., T) cut to the grid below the
        largest of `exponents`; IEEE 754's where a term is inf or NaN."""
        finite = np.isfinite(terms)
        every_finite = finite.all()
        safe = terms if every_finite else np.where(finite, terms, 0.0)
        top = np.where(safe != 0, exponents, _NO_EXPONENT).max(axis=-1)
        # Powers of two (exact products): 2^-grid scales the grid to 1.
        scale = np.exp2((self.fraction_bits - top).clip(-1000, 1000).astype(np.float64))
        total = np.trunc(safe * scale[..., None]).sum(axis=-1) / scale
        if not every_finite:
            with np.errstate(invalid="ignore"):
                total = np.where(finite.all(axis=-1), total, terms.sum(axis=-1))
        zero = total == 0
        if zero.any():  # an exact zero is -0 only where every term is -0
            negative_zero = np.all((terms == 0) & np.signbit(terms), axis=-1)
            total = np.where(zero, np.where(negative_zero, -0.0, 0.0), total)
        return total

    def _narrow(self, values: np.ndarray) -> np.ndarray:
        if self.significant_bits is None:
            return values
        mantissa, exponent = np.frexp(values)
        cut = np.ldexp(np.trunc(np.ldexp(mantissa, self.significant_bits)), exponent - self.significant_bits)
        return np.where(np.isfinite(values), cut, values)


@dataclass(frozen=True)
class ConvertedToF16:
    """fp8 mma.sync on sm_90: the inputs converted to f16 (exactly), the
    products in two f16 blocks of K / 2 (each register's low half, then its
    high half), chained from +0, then C added, rounded to nearest even."""

    inner: BlockSum

    def dot(self, products: np.ndarray, exponents: np.ndarray, c: np.ndarray, kind: str) -> np.ndarray:
        k = products.shape[-1]
        halves = [j for j in range(k) if (j // 2) % 2 == 0] + [j for j in range(k) if (j // 2) % 2 == 1]
        chained = self.inner.dot(products[..., halves], exponents[..., halves], np.zeros(np.shape(c)), kind)
        return _round_sum(chained, np.asarray(c, dtype=np.float64), kind)


_F16_INPUTS = ("f16", "bf16", "tf32")
_FP8 = ("e4m3", "e5m2")


def sm90(instruction: str, d_kind: str, a_kind: str, b_kind: str, k: int):
    """The measured model of an "mma" (mma.sync) or "wgmma" of these types
    and K (one instruction's), or None for other types (f64, integers:
    reference.mma's exact model is theirs)."""
    if d_kind not in ("f32", "f16") or a_kind not in _F16_INPUTS + _FP8:
        return None
    rounding = "rz" if d_kind == "f32" else "rn"
    if a_kind in _FP8 and instruction == "mma":
        return ConvertedToF16(BlockSum(k // 2, 25, rounding))
    if a_kind in _FP8:  # wgmma: the fp8 datapath; an f32 sum keeps 14 significant bits
        return BlockSum(k, 13, rounding, significant_bits=14 if d_kind == "f32" else None)
    return BlockSum(k, 25, rounding)


MODELS = ("sm_90", "exact")


def multiply(accumulation: str, instruction: str, d_kind, a_kind, b_kind, c_kind, a, b, c, satfinite=False,
             rounding="rn"):
    """(D's bits, defined) of one "mma" or "wgmma": under `accumulation`
    "sm_90", the measured model where sm90() has one; else (and under
    "exact") reference.mma's exact-or-undefined model."""
    model = sm90(instruction, d_kind, a_kind, b_kind, np.shape(a)[-1]) if accumulation == "sm_90" else None
    if model is None:
        return R.mma(d_kind, a_kind, b_kind, c_kind, a, b, c, satfinite, rounding)
    return mma(model, d_kind, a_kind, b_kind, c_kind, a, b, c)


def exponents_of(values: np.ndarray, kind: str) -> np.ndarray:
    """The exponent field's value of each finite nonzero value of `kind`
    (a subnormal's: the least normal exponent); else below every other."""
    least = 2 - (1 << (R.FORMATS["f32" if kind == "tf32" else kind][0] - 1))
    usable = np.isfinite(values) & (values != 0)
    exponent = np.frexp(np.where(usable, values, 1.0))[1] - 1
    return np.where(usable, np.maximum(exponent, least), _NO_EXPONENT)


def mma(model, d_kind, a_kind, b_kind, c_kind, a, b, c):
    """(D's bits, defined) of one instruction under `model` (sm90's): `a`
    (..., M, K), `b` (..., K, N) and `c` (..., M, N) element bit patterns
    (any leading shape: a batch of instructions), every element defined."""
    a_values, b_values = (R.decode(x, "f32" if kind == "tf32" else kind) for x, kind in ((a, a_kind), (b, b_kind)))
    # The fp8 emulation aligns the products of its f16 conversions.
    align_a, align_b = ("f16", "f16") if isinstance(model, ConvertedToF16) else (a_kind, b_kind)
    columns = np.swapaxes(b_values, -1, -2)  # (..., N, K)
    products = a_values[..., :, None, :] * columns[..., None, :, :]
    exponents = exponents_of(a_values, align_a)[..., :, None, :] + exponents_of(columns, align_b)[..., None, :, :]
    d = model.dot(products, exponents, R.decode(c, c_kind), d_kind)
    width = {"f32": 32, "f16": 16}[d_kind]
    with np.errstate(invalid="ignore"):  # NaN's bits are the tensor cores' own (below)
        encoded = R.encode(d, d_kind).astype(np.uint64)
    bits = np.where(np.isnan(d), np.uint64(NAN_BITS[d_kind]), encoded)
    return bits.astype(R.UINT[width]), np.ones(d.shape, dtype=bool)


def _round(values: np.ndarray, kind: str, mode: str) -> np.ndarray:
    """Rounded to `kind`; a nonzero sum that rounds to zero is +0 (the sum
    is a fixed-point integer there: it has no sign)."""
    rounded = R.round_to(values, np.zeros_like(values), kind, mode)
    return np.where((rounded == 0) & (values != 0), 0.0, rounded)


def _round_sum(x: np.ndarray, y: np.ndarray, kind: str) -> np.ndarray:
    """x + y rounded once to `kind`, to nearest even (an FADD or HADD2):
    float64's sum and the sign of its exact error (two-sum) to the
    rounding."""
    with np.errstate(invalid="ignore"):
        hi, residual = R.two_sum(x, y)
    return R.round_to(hi, residual, kind, "rn")
