"""The kernel's runtime values: index expressions (Index), conditions
(Bool) and typed scalars (Scalar)."""

from __future__ import annotations

import math
import operator
from typing import Tuple

import numpy as np
from mlir import ir
from mlir.dialects import arith

from .tracing import (_FLOAT_OVERFLOW, _SCALAR_PARAMS, TileError, _active, _element_type, _integer,
                      _location, _short)


# -- values -------------------------------------------------------------------

def derived_once(key, build):
    """The value `build` makes for `key` (an operation and its operands'
    keys), made once per block of the kernel being traced: a value made in
    the block of the insertion point dominates whatever follows there."""
    derived = _active().derived
    key = (ir.InsertionPoint.current.block, key)
    if key not in derived:
        derived[key] = build()
    return derived[key]


class Index:
    """An index expression: a linear combination of index SSA values (thread
    and block ids, ...) plus a constant. Keeping it symbolic lets a slice
    ``A[t * 4 : t * 4 + 4]`` see that its extent is the constant 4."""

    def __init__(self, terms=(), const: int = 0):
        self.terms: Tuple[Tuple[ir.Value, int], ...] = tuple((v, c) for v, c in terms if c != 0)
        self.const = const

    @staticmethod
    def of(value) -> "Index":
        """``value`` as an index expression: an Index stays, a Python int
        becomes a constant; anything else is a TileError."""
        if isinstance(value, Index):
            _check_owned(value)
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return Index((), _integer(value, "an index"))
        raise TileError(f"expected an integer or an index expression, got {type(value).__name__}")

    def __bool__(self):
        raise TileError(_NO_TRUTH.format(what="an index expression"))

    def __eq__(self, other):
        return self.eq(other)

    def __ne__(self, other):
        return self.ne(other)

    __hash__ = object.__hash__

    @property
    def is_static(self) -> bool:
        return not self.terms

    def same_terms(self, other: "Index") -> bool:
        """Whether both expressions have the same runtime terms (values and
        coefficients, in any order), so that they differ by a constant."""
        if len(self.terms) != len(other.terms):
            return False
        remaining = list(other.terms)
        for value, coeff in self.terms:
            match = next((t for t in remaining if t[0] == value and t[1] == coeff), None)
            if match is None:
                return False
            remaining.remove(match)
        return True

    def materialize(self) -> ir.Value:
        """The expression as an ``index`` value of the kernel (arith ops at
        the current insertion point)."""
        _check_owned(self)
        index = ir.IndexType.get()
        _integer(self.const, "an index")
        for _, coeff in self.terms:
            _integer(coeff, "an index coefficient")
        with _location():
            result = None
            for value, coeff in self.terms:
                term = value if coeff == 1 else arith.muli(value, arith.constant(index, coeff))
                result = term if result is None else arith.addi(result, term)
            if result is None:
                return arith.constant(index, self.const)
            if self.const:
                result = arith.addi(result, arith.constant(index, self.const))
            return result

    def __add__(self, other):
        _check_owned(self)
        other = Index.of(other)
        terms = list(self.terms)
        for value, coeff in other.terms:
            for i, (v, c) in enumerate(terms):
                if v == value:
                    terms[i] = (v, c + coeff)
                    break
            else:
                terms.append((value, coeff))
        return Index(terms, self.const + other.const)

    __radd__ = __add__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (Index.of(other) * -1)

    def __rsub__(self, other):
        return Index.of(other) + self * -1

    def __mul__(self, other):
        _check_owned(self)
        other = Index.of(other)
        if other.is_static:
            return Index([(v, c * other.const) for v, c in self.terms], self.const * other.const)
        if self.is_static:
            return other * self
        with _location():
            return Index([(arith.muli(self.materialize(), other.materialize()), 1)])

    __rmul__ = __mul__

    def _runtime(self, op, *operands: "Index") -> "Index":
        with _location():
            return Index([(op(*(x.materialize() for x in operands)), 1)])

    def key(self):
        """The expression as a hashable value: its terms in any order and
        its constant."""
        return frozenset(self.terms), self.const

    def _divide(self, other, name: str):
        other = Index.of(other)
        if self.is_static and other.is_static:
            return self._divide_once(other, name)
        return derived_once(("divide", self.key(), other.key()), lambda: self._divide_once(other, name))

    def _divide_once(self, other, name: str):
        """(self // other, self % other) as Python defines them: floor
        division, a remainder with the divisor's sign. The divisor is a
        nonzero constant or a runtime value proven at least 1 (a launch
        size): a division by zero has no result."""
        other = Index.of(other)
        if other.is_static and other.const == 0:
            raise TileError(f"{name} by 0 has no result")
        if self.is_static and other.is_static:
            return Index((), self.const // other.const), Index((), self.const % other.const)
        builder = _active()
        if not other.is_static:
            bounds = builder.range_of(other)
            if bounds is None or bounds[0] < 1:
                raise TileError(f"{name} by a runtime value needs one that is at least 1 when "
                                "the kernel runs (a constant, T.block_dim(), T.grid_dim()); this "
                                f"one may be {'anything' if bounds is None else bounds[0]}")
        elif other.const > 0 and all(c % other.const == 0 for _, c in self.terms):
            # (4t + 9) // 4 is t + 2: it stays an expression of t, so a
            # slice by it keeps its static extent.
            d = other.const
            return (Index([(v, c // d) for v, c in self.terms], self.const // d),
                    Index((), self.const % d))
        if other.is_static and other.const == -1:
            return self * -1, Index((), 0)
        bounds = builder.range_of(self)
        positive = other.is_static and other.const > 0 or not other.is_static
        if positive and bounds is not None and bounds[0] >= 0:
            # Non-negative over positive: unsigned division, which LLVM
            # turns into shifts and masks for powers of two.
            return self._runtime(arith.divui, self, other), self._runtime(arith.remui, self, other)
        quotient = self._runtime(arith.floordivsi, self, other)
        # The remainder as a value of its own, whose range is known: it has
        # the divisor's sign and is smaller than it.
        remainder = self - quotient * other
        with _location():
            value = remainder.materialize()
        if other.is_static:
            d = other.const
            builder.ranges[value] = (0, d - 1) if d > 0 else (d + 1, 0)
        else:
            builder.ranges[value] = (0, builder.range_of(other)[1] - 1)
        return quotient, Index([(value, 1)])

    def __floordiv__(self, other):
        return self._divide(other, "//")[0]

    def __rfloordiv__(self, other):
        return Index.of(other)._divide(self, "//")[0]

    def __mod__(self, other):
        return self._divide(other, "%")[1]

    def __rmod__(self, other):
        return Index.of(other)._divide(self, "%")[1]

    def _shift_amount(self, other, name: str) -> int:
        if isinstance(other, Index) and other.is_static:
            other = other.const
        if isinstance(other, bool) or not isinstance(other, int):
            raise TileError(f"an index expression shifts by a constant integer, got "
                            f"{type(other).__name__}: {name} by a runtime amount has no linear form; "
                            "multiply or divide instead")
        if not 0 <= other <= 62:
            raise TileError(f"an index expression shifts by 0 to 62, got {other}")
        return other

    def __lshift__(self, other):
        return self * (1 << self._shift_amount(other, "<<"))

    def __rshift__(self, other):
        return self // (1 << self._shift_amount(other, ">>"))

    def _bitwise(self, other, op, python_op):
        other = Index.of(other)
        if self.is_static and other.is_static:
            return Index((), python_op(self.const, other.const))
        return derived_once((op.__name__, self.key(), other.key()), lambda: self._runtime(op, self, other))

    def __and__(self, other):
        return self._bitwise(other, arith.andi, operator.and_)

    def __or__(self, other):
        return self._bitwise(other, arith.ori, operator.or_)

    def __xor__(self, other):
        return self._bitwise(other, arith.xori, operator.xor)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __index__(self):
        raise TileError("an index expression is a value of the running kernel and has no Python "
                        "value while tracing; T.serial loops where range() would unroll")

    def __truediv__(self, other):
        raise TileError("an index expression divides with // (floor division); / would make a float")

    __rtruediv__ = __truediv__

    def _compare(self, other, predicate):
        with _location():
            return Bool(arith.cmpi(predicate, self.materialize(), Index.of(other).materialize()))

    def __lt__(self, other):
        return self._compare(other, arith.CmpIPredicate.slt)

    def __le__(self, other):
        return self._compare(other, arith.CmpIPredicate.sle)

    def __gt__(self, other):
        return self._compare(other, arith.CmpIPredicate.sgt)

    def __ge__(self, other):
        return self._compare(other, arith.CmpIPredicate.sge)

    def eq(self, other):
        """``self == other`` as a runtime Bool (``==`` spells the same)."""
        return self._compare(other, arith.CmpIPredicate.eq)

    def ne(self, other):
        """``self != other`` as a runtime Bool (``!=`` spells the same)."""
        return self._compare(other, arith.CmpIPredicate.ne)


_NO_TRUTH = ("{what} is a value of the running kernel and has no truth value while "
             "tracing: a Python if, while, and, or or not would decide once, for every "
             "thread; use `with T.if_(cond):` for a branch, pred= for a predicated "
             "instruction, and &, | and ~ to combine conditions")


class Bool:
    """A runtime predicate (i1). Combine with ``&``, ``|`` and ``~``."""

    def __init__(self, value: ir.Value):
        self.value = value

    def __bool__(self):
        raise TileError(_NO_TRUTH.format(what="a runtime condition"))

    def _combine(self, other, op):
        if not isinstance(other, Bool):
            raise TileError(f"a condition combines with another runtime condition, got {type(other).__name__}")
        _check_owned(self)
        _check_owned(other)
        with _location():
            return Bool(op(self.value, other.value))

    def __and__(self, other):
        return self._combine(other, arith.andi)

    def __or__(self, other):
        return self._combine(other, arith.ori)

    def __invert__(self):
        _check_owned(self)
        with _location():
            true = arith.constant(ir.IntegerType.get_signless(1), 1)
            return Bool(arith.xori(self.value, true))

    # Built in the kernel, never decided while tracing: Python's default ==
    # compared the objects and gave a constant False predicate.
    def __eq__(self, other):
        return self._combine(other, lambda a, b: arith.cmpi(arith.CmpIPredicate.eq, a, b))

    def __ne__(self, other):
        return self._combine(other, arith.xori)

    __hash__ = object.__hash__


# The smallest magnitude that rounds to infinity in each float type: a
# finite value at or past it does not fit.
class Scalar:
    """A typed scalar constant, e.g. ``T.float32(-2.5)``. The value must fit
    the type: nothing is rounded to an integer, wrapped or overflowed."""

    def __init__(self, dtype: str, value):
        element = dtype
        if dtype in _FLOAT_OVERFLOW:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TileError(f"T.{dtype} takes a number, got {value!r}")
            # inf and nan are spelled on purpose; a finite value that would
            # round to infinity does not fit.
            explicit = isinstance(value, (float, np.floating)) and not math.isfinite(value)
            try:
                number = float(value)
            except OverflowError:
                number = math.inf
            if not explicit and abs(number) >= _FLOAT_OVERFLOW[dtype]:
                raise TileError(f"T.{dtype}({_short(value)}) does not fit {dtype}: it would "
                                "round to infinity")
            # A NaN's payload is bits the user chose (a signaling NaN stays
            # signaling): a numpy scalar of this dtype, or a Python float for
            # float64, keeps its bits; converting through a double quieted it.
            self.nan_bits = None
            if math.isnan(number):
                if isinstance(value, np.floating) and np.dtype(value.dtype).name == dtype:
                    self.nan_bits = int(value.view(f"uint{value.dtype.itemsize * 8}"))
                elif dtype == "float64" and isinstance(value, float):
                    self.nan_bits = int(np.float64(value).view(np.uint64))
            value = number
        else:
            bits = np.iinfo(element).bits
            low, high = (0, (1 << bits) - 1) if element.startswith("u") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            if isinstance(value, (float, np.floating)):
                raise TileError(f"T.{dtype} takes an integer, got {value!r}; round explicitly")
            value = _integer(value, f"T.{dtype}", low, high)
        self.dtype, self.python_value = dtype, value

    def materialize(self) -> ir.Value:
        """The constant as an ``arith.constant`` of its dtype (integers as
        their signless bits)."""
        element = _element_type(self.dtype)
        with _location():
            if isinstance(element, ir.IntegerType):
                # arith constants are signless: an unsigned scalar is its bits.
                signless = ir.IntegerType.get_signless(element.width)
                bits = int(self.python_value) & ((1 << element.width) - 1)
                if bits >= 1 << (element.width - 1):
                    bits -= 1 << element.width
                return arith.constant(signless, bits)
            if getattr(self, "nan_bits", None) is not None:
                digits = element.width // 4
                return arith.constant(element, ir.Attribute.parse(f"0x{self.nan_bits:0{digits}X} : {element}"))
            return arith.constant(element, float(self.python_value))


Scalar.__hash__ = object.__hash__


class _ComputedScalar(Scalar):
    """A scalar whose value the kernel computes when it runs (a wgmma matrix
    descriptor)."""

    def __init__(self, dtype: str, value: ir.Value):
        self.dtype, self.python_value, self._value = dtype, None, value

    def materialize(self) -> ir.Value:
        if self._value.context != _active().context:
            raise TileError(f"this T.{self.dtype} value was made in another @T.function; "
                            "values do not cross kernels")
        return self._value


class _ParamScalar(Scalar):
    """A scalar kernel parameter of a float dtype: its value arrives with the
    launch."""

    def __init__(self, dtype: str, value: ir.Value):
        self.dtype, self.python_value, self._value = dtype, None, value

    def materialize(self) -> ir.Value:
        if self._value.context != _active().context:
            raise TileError(f"this T.{self.dtype} parameter was made in another @T.function; "
                            "values do not cross kernels")
        return self._value


class _IndexScalar(Scalar):
    """An index expression as a typed scalar (``T.uint32(T.thread_id())``):
    an iota, a position, a mask bound. An integer type must hold every
    value the expression can take when the kernel runs; a float type rounds
    it to nearest."""

    def __init__(self, dtype: str, value: "Index"):
        _check_owned(value)
        if dtype not in _FLOAT_OVERFLOW and dtype != "int64":
            bits = np.iinfo(dtype).bits
            low, high = (0, (1 << bits) - 1) if dtype.startswith("u") else (
                -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            bounds = _active().range_of(value)
            if bounds is None or not (low <= bounds[0] and bounds[1] <= high):
                found = "an unknown range" if bounds is None else f"[{bounds[0]}, {bounds[1]}]"
                raise TileError(f"T.{dtype} of an index expression needs every value it takes to fit "
                                f"[{low}, {high}]; this one has {found} (T.int64 holds any)")
        self.dtype, self.python_value, self._index = dtype, None, value

    def materialize(self) -> ir.Value:
        value = self._index.materialize()
        element = _element_type(self.dtype)
        with _location():
            if isinstance(element, ir.IntegerType):
                return arith.index_cast(ir.IntegerType.get_signless(element.width), value)
            wide = arith.index_cast(ir.IntegerType.get_signless(64), value)
            return arith.sitofp(element, wide)


def _scalar_maker(dtype):
    def make(value):
        if isinstance(value, Index):
            return _IndexScalar(dtype, value)
        return Scalar(dtype, value)
    make.__name__ = dtype
    make.__doc__ = (f"``T.{dtype}(value)``: a typed {dtype} scalar operand of an apply, range-checked "
                    f"when traced; as an annotation (``n: T.{dtype}``) a scalar kernel parameter "
                    f"where {', '.join(_SCALAR_PARAMS)} take one.")
    # As an annotation (``n: T.int32``), a scalar kernel parameter.
    make.scalar_dtype = dtype
    return make


float16, bfloat16, float32, float64 = (_scalar_maker(d) for d in ("float16", "bfloat16", "float32", "float64"))
int8, int16, int32, int64 = (_scalar_maker(d) for d in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_scalar_maker(d) for d in ("uint8", "uint16", "uint32", "uint64"))


def _check_owned(value) -> None:
    """A Buffer, Index or Bool belongs to the kernel whose body made it: used
    in another, it named values of another module (which later aborted)."""
    # An Index is its terms; a Buffer or Bool is one SSA value.
    values = [v for v, _ in value.terms] if isinstance(value, Index) else [value.value]
    if not values:
        return  # a constant index belongs to no kernel
    context = _active().context
    if any(v.context != context for v in values):
        raise TileError(f"this {type(value).__name__} was made in another @T.function; "
                        "values do not cross kernels")
