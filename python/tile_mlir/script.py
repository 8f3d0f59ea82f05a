"""A script front end for tile kernels whose spelling follows the spec pages.

    from tile_mlir import script as T

    @T.function
    def packed_add(A: T.Tensor((8, 1), "uint32"), B: T.Tensor((8, 1), "uint32"),
                   Out: T.Tensor((8, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        a = T.alloc_local((8, 1), "uint32", layout="default")
        b = T.alloc_local((8, 1), "uint32", layout="default")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B)
        T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a, a, b)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out, a)

Decorating builds the kernel as MLIR (``packed_add.module``). Each op carries
the Python location of the call that made it; a call that breaks a legality
rule raises :class:`TileError` with the verifier's diagnostic and that
location.
"""

from __future__ import annotations

import inspect
import math
import operator
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from . import ptx as _ptx
from . import ranges as _ranges
from .dialects import tile as _tile_ops

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# numpy dtype names and the MLIR element types that carry them.
_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
}
GLOBAL_SPACE, SHARED_SPACE, REGISTER_SPACE = 1, 3, 5


class TileError(ValueError):
    """A kernel definition broke a rule; the message starts with the user's
    ``file.py:line`` (the first caller outside tile_mlir)."""

    def __init__(self, message: str, located: bool = False):
        if not located:
            filename, line = _caller()
            message = f"{filename}:{line}: {message}"
        super().__init__(message)


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _integer(value, what: str, low: int = _INT64[0], high: int = _INT64[1]) -> int:
    """``value`` as a Python int in [low, high]; a float, a bool or a value
    out of range is an error, never rounded or wrapped."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TileError(f"{what} must be an integer, got {_short(value)}")
    value = operator.index(value)
    if not low <= value <= high:
        raise TileError(f"{what} must be in [{low}, {high}], got {_short(value)}")
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "..." + text[-8:]


def _check_opcode(opcode) -> None:
    if not isinstance(opcode, str):
        raise TileError(f"an opcode is a string such as T.ptx[\"add.f32\"], got {_short(opcode)}")
    if not opcode.isascii():
        bad = next(c for c in opcode if not c.isascii())
        raise TileError(f"the opcode {opcode!r} contains {bad!r}, which no PTX instruction "
                        "spelling has (only letters, digits, '.', '_' and ':')")


def _shape(shape, what: str, runtime: bool = False) -> Tuple[int, ...]:
    """Static extents; with `runtime`, None marks an extent each launch
    gives (a tensor parameter's)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(None if runtime and d is None else _integer(d, f"{what} axis {i}", 0)
                 for i, d in enumerate(dims))


_DYNAMIC = ir.ShapedType.get_dynamic_size() if hasattr(ir.ShapedType, "get_dynamic_size") else -(1 << 63)


def _memref_dims(shape) -> List[int]:
    return [_DYNAMIC if d is None else d for d in shape]


def _element_type(dtype: str) -> ir.Type:
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise TileError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
    return ir.Type.parse(_DTYPES[dtype])


def _tensor_element_type(dtype: str) -> ir.Type:
    """The element of a tensor in memory: a bool is numpy's byte (0 or 1),
    loaded and stored by the 8-bit forms; only register predicates are i1."""
    return ir.IntegerType.get_signless(8) if dtype == "bool" else _element_type(dtype)


def _memref_type(shape, element, strides, offset, space) -> ir.MemRefType:
    """A memref type whose layout is the identity when the strides are the
    row-major ones, as MLIR's reshaping ops infer it."""
    row_major = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
    if offset == 0 and list(strides) == row_major:
        return ir.MemRefType.get(list(shape), element, memory_space=space)
    return ir.MemRefType.get(list(shape), element, ir.StridedLayoutAttr.get(offset, list(strides)), space)


_inside_package = {}


def _caller() -> Tuple[str, int]:
    """The first frame outside tile_mlir. Walking frames directly: building
    inspect.stack() took 95% of tracing time."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        inside = _inside_package.get(filename)
        if inside is None:
            inside = _inside_package[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
        if not inside:
            return filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def _location() -> ir.Location:
    filename, line = _caller()
    return ir.Location.file(filename, line, 1)


def _raise(error: ir.MLIRError) -> None:
    messages = "; ".join(d.message for d in error.error_diagnostics) or str(error)
    raise TileError(messages) from None


# -- annotations and launch ---------------------------------------------------

@dataclass(frozen=True)
class Tensor:
    """Annotation of a kernel parameter: a global tensor. An extent of None
    is given by each launch (``T.Tensor((None, 4), "float32")``): one kernel
    serves every size, and a slice of such an axis is the kernel's to keep
    in bounds (a grid-stride loop to ``n``)."""
    shape: Tuple[Optional[int], ...]
    dtype: str

    def __init__(self, shape, dtype):
        if not isinstance(dtype, str) or dtype not in _DTYPES:
            raise TileError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
        object.__setattr__(self, "shape", _shape(shape, "a tensor shape's", runtime=True))
        object.__setattr__(self, "dtype", dtype)

    @property
    def is_dynamic(self) -> bool:
        return None in self.shape


# The dtypes a scalar kernel parameter (``n: T.int32``) may have.
_SCALAR_PARAMS = ("int32", "int64", "float32", "float64")


# CUDA's launch limits: grid x < 2^31, y and z < 2^16; block x and y up to
# 1024, z up to 64, and 1024 threads in all.
_GRID_LIMITS = ((1 << 31) - 1, 65535, 65535)
_BLOCK_LIMITS = (1024, 1024, 64)
_MAX_BLOCK_THREADS = 1024


def _dim3(value, what: str, limits) -> Tuple[int, int, int]:
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(values) <= 3:
        raise TileError(f"{what} is 1 to 3 positive integers, got {value!r}")
    dims = tuple(_integer(v, f"{what} {axis}", 1, limit)
                 for v, axis, limit in zip(values, "xyz", limits))
    return dims + (1,) * (3 - len(dims))


@dataclass(frozen=True)
class LaunchConfig:
    """A kernel's launch shape. ``grid=None`` leaves the grid to each call
    (``kernel[grid](...)`` or ``kernel(..., grid=...)``); a fixed grid is
    compiled in (the lowering may assume it) and a call must keep it."""
    grid: Any = 1
    block: Any = 1


class _Builder(threading.local):
    current: Optional["_KernelBuilder"] = None


_builder = _Builder()


def _active() -> "_KernelBuilder":
    if _builder.current is None:
        raise TileError("this call is only valid inside a @T.function body")
    return _builder.current


# -- values -------------------------------------------------------------------

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

    def _divide(self, other, name: str):
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
        return self._runtime(op, self, other)

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
_FLOAT_OVERFLOW = {"float16": 65520.0, "bfloat16": 2.0**128 - 2.0**119,
                   "float32": 2.0**128 - 2.0**103, "float64": math.inf}


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


def _scalar_operator(name):
    """A Scalar in an ewise expression computes as an ewise value:
    ``T.int32(7) // x``, ``-T.float32(k)``."""
    def method(self, *others):
        from .ewise import Expr
        return getattr(Expr(self.materialize(), self.dtype), name)(*others)
    method.__name__ = name
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "and", "or", "xor", "lshift",
              "rshift", "pow"):
    setattr(Scalar, f"__{_name}__", _scalar_operator(f"__{_name}__"))
    setattr(Scalar, f"__r{_name}__", _scalar_operator(f"__r{_name}__"))
for _name in ("neg", "pos", "invert", "abs", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(Scalar, f"__{_name}__", _scalar_operator(f"__{_name}__"))
Scalar.__hash__ = object.__hash__


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
    values = [value.value] if isinstance(value, (Buffer, Bool)) else [v for v, _ in value.terms]
    if not values:
        return  # a constant index belongs to no kernel
    context = _active().context
    if any(v.context != context for v in values):
        raise TileError(f"this {type(value).__name__} was made in another @T.function; "
                        "values do not cross kernels")


def _identity_layout(memref_type: ir.MemRefType) -> bool:
    """Whether the layout's affine map is the identity, as memref's reshape
    ops ask (their results keep an identity layout, else a strided one): a
    rank-1 strided<[1]> at offset 0 is, a rank-2 row-major strided one is
    not (its map has one result)."""
    return memref_type.affine_map == ir.AffineMap.get_identity(memref_type.rank)


def _reshape_groups(old: List[int], new: List[int]) -> List[Tuple[List[int], List[int]]]:
    """The fewest axes of `old` and `new` that pair up with equal element
    counts, in order: (32, 1, 4) and (32, 4) pair as ([0], [0]) and
    ([1, 2], [1]). Unit axes at the end join the last group."""
    groups, i, j = [], 0, 0
    while i < len(old) and j < len(new):
        old_axes, new_axes = [i], [j]
        a, b = old[i], new[j]
        i, j = i + 1, j + 1
        while a != b:
            if a < b:
                a *= old[i]
                old_axes.append(i)
                i += 1
            else:
                b *= new[j]
                new_axes.append(j)
                j += 1
        groups.append((old_axes, new_axes))
    groups[-1][0].extend(range(i, len(old)))
    groups[-1][1].extend(range(j, len(new)))
    return groups


class Buffer:
    """A tile or tensor: an MLIR memref value with its dtype."""

    def __init__(self, value: ir.Value, dtype: str, name: str = ""):
        self.value, self.dtype, self.name = value, dtype, name

    def __bool__(self):
        raise TileError("a tile has no truth value; compare its registers with an instruction")

    @property
    def type(self) -> ir.MemRefType:
        return ir.MemRefType(self.value.type)

    @property
    def shape(self) -> Tuple[int, ...]:
        return tuple(self.type.shape)

    def __getitem__(self, key) -> "Buffer":
        _check_owned(self)
        keys = key if isinstance(key, tuple) else (key,)
        shape = self.shape
        if len(keys) > len(shape):
            raise TileError(f"too many indices for a rank-{len(shape)} tile")
        keys = keys + (slice(None),) * (len(shape) - len(keys))
        offsets, sizes, steps, dropped = [], [], [], []
        for axis, (k, extent) in enumerate(zip(keys, shape)):
            # A runtime extent (a T.Tensor axis of None) bounds nothing here:
            # keeping inside it is the kernel's part (a loop to n).
            runtime_extent = extent == _DYNAMIC
            if isinstance(k, slice):
                if runtime_extent and k.stop is None:
                    raise TileError(f"axis {axis} has a runtime extent: give the slice's stop "
                                    "(A[i:i + 4])")
                start = Index.of(0 if k.start is None else k.start)
                stop = Index.of(extent if k.stop is None else k.stop)
                step = 1 if k.step is None else k.step
                if isinstance(step, bool) or not isinstance(step, int) or step < 1:
                    raise TileError(f"axis {axis}: a slice step is a positive integer, got {step!r}")
                step = _integer(step, f"axis {axis}: a slice step", 1)
                if not stop.same_terms(start):
                    raise TileError(f"axis {axis}: the slice extent must be static "
                                    "(write stop as start + a constant)")
                count = -(-(stop.const - start.const) // step)
                if count < 1:
                    raise TileError(f"axis {axis}: the slice is empty")
            else:
                # An integer index drops its axis, as in numpy.
                start, count, step = Index.of(k), 1, 1
                dropped.append(axis)
            if runtime_extent:
                # Only the start's sign is known to be wrong: the extent
                # arrives with the launch.
                if start.is_static and start.const < 0:
                    raise TileError(f"axis {axis}: index {start.const} is out of range for "
                                    "a runtime extent")
            elif start.is_static and not 0 <= start.const < extent:
                raise TileError(f"axis {axis}: index {start.const} is out of range for extent {extent}")
            if not runtime_extent and start.is_static and start.const + (count - 1) * step >= extent:
                raise TileError(f"axis {axis}: slice {start.const}:{start.const + count * step} "
                                f"is out of range for extent {extent}")
            offsets.append(start)
            sizes.append(count)
            steps.append(step)
        return self._subview(offsets, sizes, steps, dropped)

    def _subview(self, offsets: List[Index], sizes: List[int], steps: List[int],
                 dropped: List[int]) -> "Buffer":
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        strides, offset = self.type.get_strides_and_offset()
        new_offset = offset
        for start, stride in zip(offsets, strides):
            if stride == 0:
                continue  # a broadcast axis: any start addresses the same element
            if not start.is_static or new_offset == dynamic or stride == dynamic:
                new_offset = dynamic
            else:
                new_offset += start.const * stride
        new_strides = [s if s == dynamic else s * k for s, k in zip(strides, steps)]
        kept = [axis for axis in range(len(sizes)) if axis not in dropped]
        if not kept:
            raise TileError("indexing every axis leaves no tile; slice the last axis instead")
        layout = ir.StridedLayoutAttr.get(new_offset, [new_strides[a] for a in kept])
        result = ir.MemRefType.get([sizes[a] for a in kept], self.type.element_type, layout,
                                   self.type.memory_space)
        static_offsets = [o.const if o.is_static else dynamic for o in offsets]
        dynamic_offsets = [o.materialize() for o in offsets if not o.is_static]
        with _location():
            view = memref.SubViewOp(result, self.value, dynamic_offsets, [], [],
                                    static_offsets, sizes, steps).result
        return Buffer(view, self.dtype, self.name)

    def _check_static(self, what: str) -> None:
        if _DYNAMIC in self.shape:
            raise TileError(f"cannot {what} a tensor with a runtime extent ({self.name or 'tile'}); "
                            "slice it to static extents first")

    def reshape(self, shape: Sequence[int]) -> "Buffer":
        """The same registers under another shape, as numpy reshapes a
        row-major array: axes regroup where the element counts agree, and
        each group of source axes that merges must be contiguous in memory.
        Only the axes that change are touched, so a group tile's leading
        axes stay whole (a (32, 1, 4) warp tile reshapes to (32, 4)), and
        any tile can gain or drop unit axes."""
        _check_owned(self)
        self._check_static("reshape")
        shape = list(_shape(shape, "a reshape's"))
        old = list(self.shape)
        if shape == old:
            return self
        count, new_count = int(np.prod(old, dtype=object)), int(np.prod(shape, dtype=object))
        if count != new_count or count == 0:
            raise TileError(f"cannot reshape a {tuple(old)} tile ({count} elements) to {tuple(shape)} "
                            f"({new_count} elements)")
        groups = _reshape_groups(old, shape)
        strides, offset = self.type.get_strides_and_offset()
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        for old_axes, _ in groups:
            kept = [a for a in old_axes if old[a] != 1]
            if any(strides[a] == dynamic for a in kept) or any(
                    strides[a] != strides[b] * old[b] for a, b in zip(kept, kept[1:])):
                raise TileError(f"cannot reshape a {tuple(old)} tile with strides {tuple(strides)} "
                                f"to {tuple(shape)}: axes {old_axes[0]}..{old_axes[-1]} merge but are "
                                "not contiguous")
        identity = _identity_layout(self.type)
        source = self
        try:
            if any(len(o) > 1 for o, _ in groups):
                # memref's rule (computeCollapsedLayoutMap): a merged group
                # takes the stride of its innermost non-unit axis (its first
                # axis when all are units), and a strided source gives a
                # strided result.
                merged = [int(np.prod([old[a] for a in o])) for o, _ in groups]
                merged_strides = [strides[next((a for a in reversed(o) if old[a] != 1), o[0])]
                                  for o, _ in groups]
                if identity:
                    result = ir.MemRefType.get(merged, self.type.element_type,
                                               memory_space=self.type.memory_space)
                else:
                    result = ir.MemRefType.get(merged, self.type.element_type,
                                               ir.StridedLayoutAttr.get(offset, merged_strides),
                                               self.type.memory_space)
                with _location():
                    op = memref.CollapseShapeOp(result, source.value, [list(o) for o, _ in groups])
                    op.operation.verify()
                source = Buffer(op.result, self.dtype, self.name)
            if any(len(n) > 1 for _, n in groups):
                base = source.type.get_strides_and_offset()[0]
                new_strides = []
                for (_, axes), stride in zip(groups, base):
                    inner = [int(np.prod([shape[b] for b in axes[i + 1:]])) for i in range(len(axes))]
                    new_strides += [stride * k for k in inner]
                # expand_shape keeps a strided source's layout strided.
                if _identity_layout(source.type):
                    result = ir.MemRefType.get(shape, self.type.element_type,
                                               memory_space=self.type.memory_space)
                else:
                    result = ir.MemRefType.get(shape, self.type.element_type,
                                               ir.StridedLayoutAttr.get(offset, new_strides),
                                               self.type.memory_space)
                with _location():
                    op = memref.ExpandShapeOp(result, source.value, [list(n) for _, n in groups],
                                              [], shape)
                    op.operation.verify()
                source = Buffer(op.result, self.dtype, self.name)
        except ir.MLIRError as error:
            _raise(error)
        return source

    def view(self, dtype: str) -> "Buffer":
        """Reinterprets the register carriers as `dtype` (e.g. uint32 words as
        uint16 halves, low half first). Changes no bits."""
        _check_owned(self)
        self._check_static("view")
        element = _element_type(dtype)
        source = self.type
        old_bits = source.element_type.width
        new_bits = element.width
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        strides, offset = source.get_strides_and_offset()

        def scale(v):
            if v == dynamic:
                return v
            if (v * old_bits) % new_bits:
                raise TileError(f"a {dtype} view cannot split {v} x {old_bits}-bit elements")
            return v * old_bits // new_bits

        shape = list(source.shape)
        shape[-1] = scale(shape[-1])
        new_strides = [scale(s) for s in strides[:-1]] + [1]
        layout = ir.StridedLayoutAttr.get(scale(offset), new_strides)
        result = ir.MemRefType.get(shape, element, layout, source.memory_space)
        try:
            with _location():
                op = _tile_ops.ViewOp(result, self.value)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return Buffer(op.result, dtype, self.name)

    def broadcast(self, shape: Sequence[int]) -> "Buffer":
        """A zero-stride view repeating unit axes to `shape` (inputs only)."""
        _check_owned(self)
        self._check_static("broadcast")
        shape = _shape(shape, "a broadcast's")
        if len(shape) != len(self.shape):
            raise TileError(f"a broadcast keeps the rank: {self.shape} to {shape}")
        strides, offset = self.type.get_strides_and_offset()
        new_strides = [0 if (old == 1 and new != 1) else s
                       for old, new, s in zip(self.shape, shape, strides)]
        layout = ir.StridedLayoutAttr.get(offset, new_strides)
        result = ir.MemRefType.get(list(shape), self.type.element_type, layout, self.type.memory_space)
        try:
            with _location():
                op = _tile_ops.BroadcastOp(result, self.value)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return Buffer(op.result, self.dtype, self.name)


# -- the kernel builder -------------------------------------------------------

class _KernelBuilder:
    def __init__(self, fn, context: ir.Context):
        self.fn, self.context = fn, context
        self.launch: Optional[LaunchConfig] = None
        self.written: set = set()  # names of the parameters the kernel stores to
        self.ranges: dict = {}  # the ranges of loop counters (tile_mlir.ranges)
        self.ewise_operations = 0  # what T.ewise built, against its budget
        self.open_loops: list = []  # T.serial loops whose body is being traced
        self.unentered_ifs: list = []  # T.if_ conditions not used in a with

    def range_of(self, index: "Index"):
        """The values ``index`` may take when the kernel runs, or None."""
        try:
            grid = block = None
            if self.launch is not None:
                block = _dim3(self.launch.block, "the block's", _BLOCK_LIMITS)
                if self.launch.grid is not None:
                    grid = _dim3(self.launch.grid, "the grid's", _GRID_LIMITS)
        except TileError:
            return None  # reported at the launch's check
        return _ranges.expression_range(index.terms, index.const, grid, block, self.ranges)


class PrimFunc:
    """A kernel defined with @T.function: its MLIR module, signature and launch."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.name = fn.__name__
        signature = inspect.signature(fn)
        # (name, T.Tensor) for tensors, (name, dtype) for scalars.
        self.params: List[Tuple[str, Any]] = []
        for name, param in signature.parameters.items():
            annotation = param.annotation
            scalar = getattr(annotation, "scalar_dtype", None)
            if scalar is not None:
                if scalar not in _SCALAR_PARAMS:
                    raise TileError(f"{self.name}: parameter {name!r}: a scalar parameter is one of "
                                    f"{', '.join('T.' + d for d in _SCALAR_PARAMS)}, got T.{scalar}")
                self.params.append((name, scalar))
            elif isinstance(annotation, Tensor):
                self.params.append((name, annotation))
            else:
                raise TileError(f"{self.name}: parameter {name!r} needs a T.Tensor(shape, dtype) or a "
                                "scalar (T.int32, T.int64, T.float32, T.float64) annotation")
        # Runtime sizes and scalars reach the kernel in memref descriptors
        # and by value; static tensors as bare pointers.
        self.dynamic = any(isinstance(spec, str) or spec.is_dynamic for _, spec in self.params)
        self.context = ir.Context()
        # Passes run on the calling thread, so that an LLVM fatal error can
        # unwind to Python as an exception (see _tile).
        self.context.enable_multithreading(False)
        self.grid, self.block = (1, 1, 1), (1, 1, 1)
        self.written: Tuple[str, ...] = ()
        self.module = self._build(fn)

    def _build(self, fn) -> ir.Module:
        builder = _KernelBuilder(fn, self.context)
        with self.context, ir.Location.unknown():
            module = ir.Module.create()
            module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
            space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), GLOBAL_SPACE)
            arg_types = [_element_type(t) if isinstance(t, str) else
                         ir.MemRefType.get(_memref_dims(t.shape), _tensor_element_type(t.dtype),
                                           memory_space=space)
                         for _, t in self.params]
            with ir.InsertionPoint(module.body):
                kernels = gpu.GPUModuleOp("kernels")
                kernels.bodyRegion.blocks.append()
                with ir.InsertionPoint(kernels.bodyRegion.blocks[0]):
                    code = fn.__code__
                    func = gpu.GPUFuncOp(ir.FunctionType.get(arg_types, []), sym_name=self.name, kernel=True,
                                         loc=ir.Location.file(code.co_filename, code.co_firstlineno, 1))
                    block = func.body.blocks.append(*arg_types)
                    with ir.InsertionPoint(block):
                        args = [_parameter(v, n, t) for v, (n, t) in zip(block.arguments, self.params)]
                        previous, _builder.current = _builder.current, builder
                        try:
                            fn(*args)
                            if builder.open_loops:
                                raise builder.open_loops[-1].ended_early()
                        finally:
                            # A body that raised or broke out of a loop left
                            # the loop's insertion point behind.
                            for loop in reversed(builder.open_loops):
                                loop._point.__exit__(None, None, None)
                            _builder.current = previous
                        gpu.ReturnOp([])
            if builder.unentered_ifs:
                where = builder.unentered_ifs[0].where
                raise TileError(f"{where[0]}:{where[1]}: T.if_(cond) is a context manager: write "
                                "`with T.if_(cond):` (alone it branches nowhere)", located=True)
            if builder.launch is None:
                raise TileError(f"{self.name}: the body must call T.device_entry(launch=...)")
            self.grid = (None if builder.launch.grid is None
                         else _dim3(builder.launch.grid, "the grid's", _GRID_LIMITS))
            self.block = _dim3(builder.launch.block, "the block's", _BLOCK_LIMITS)
            threads = self.block[0] * self.block[1] * self.block[2]
            if threads > _MAX_BLOCK_THREADS:
                raise TileError(f"a block of {self.block} has {threads} threads; "
                                f"CUDA allows at most {_MAX_BLOCK_THREADS}")
            self.written = tuple(name for name, _ in self.params if name in builder.written)
            func.attributes["known_block_size"] = ir.DenseI32ArrayAttr.get(list(self.block))
            if self.grid is not None:
                func.attributes["known_grid_size"] = ir.DenseI32ArrayAttr.get(list(self.grid))
        return module

    def __str__(self):
        return str(self.module)


def _parameter(value: ir.Value, name: str, spec):
    """What the kernel body sees of a parameter: a tensor's Buffer, an
    integer's index expression, a float's runtime scalar."""
    if isinstance(spec, Tensor):
        return Buffer(value, spec.dtype, name)
    if spec.startswith("int"):
        return Index([(arith.index_cast(ir.IndexType.get(), value), 1)])
    return _ParamScalar(spec, value)


def function(fn) -> PrimFunc:
    """Builds a kernel from a Python function (see the module docstring)."""
    return PrimFunc(fn)


prim_func = function


def device_entry(launch: LaunchConfig) -> None:
    """Marks the kernel's entry and sets its launch: ``T.device_entry(
    launch=T.cuda.LaunchConfig(grid=g, block=b))``. The block size is
    compiled in (the lowering assumes it); ``grid=None`` leaves the grid to
    each launch (``kernel[grid](...)``)."""
    if not isinstance(launch, LaunchConfig):
        raise TileError("T.device_entry takes launch=T.cuda.LaunchConfig(grid=..., block=...)")
    _active().launch = launch


def alloc_local(shape, dtype: str, layout: str = "default", scope: str = "thread") -> Buffer:
    """Registers owned by the issuing thread, or, with ``scope`` "warp",
    "warpgroup" or "cta", a tile whose leading group axes are distributed
    over the threads of that group (lane l owns row l)."""
    _active()
    if layout != "default":
        raise TileError(f"layout {layout!r} is not supported: only \"default\" (row-major) is")
    if not isinstance(scope, str):
        raise TileError(f"scope is 'thread', 'warp', 'warpgroup' or 'cta', got {scope!r}")
    shape = _shape(shape, "a tile shape's")
    space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), REGISTER_SPACE)
    with _location():
        value = memref.alloca(ir.MemRefType.get(list(shape), _element_type(dtype), memory_space=space), [], [])
        if scope != "thread":
            value.owner.attributes["tile.scope"] = ir.StringAttr.get(scope)
    return Buffer(value, dtype)


def _gpu_index(op, dim: str) -> Index:
    if dim not in ("x", "y", "z"):
        raise TileError(f"a dimension is 'x', 'y' or 'z', got {dim!r}")
    _active()
    with _location():
        return Index([(op(getattr(gpu.Dimension, dim)), 1)])


def thread_id(dim: str = "x") -> Index:
    """This thread's index in its block along ``dim`` (``%tid``), an index
    expression: ``A[T.thread_id():T.thread_id() + 1]`` is its row."""
    return _gpu_index(gpu.thread_id, dim)


def block_id(dim: str = "x") -> Index:
    """This block's index in the grid along ``dim`` (``%ctaid``), an index
    expression."""
    return _gpu_index(gpu.block_id, dim)


def block_dim(dim: str = "x") -> Index:
    """The threads of a block along ``dim`` (``%ntid``): the launch's block,
    which the kernel compiles in."""
    return _gpu_index(gpu.block_dim, dim)


def grid_dim(dim: str = "x") -> Index:
    """The blocks of the grid along ``dim``: the launch's, which a kernel
    compiled with ``LaunchConfig(grid=None)`` learns only when it runs."""
    return _gpu_index(gpu.grid_dim, dim)


class if_:
    """``with T.if_(t < 16):`` a branch the kernel takes at run time
    (``scf.if``). Tiles used inside it keep their memory; for one predicated
    instruction, ``pred=`` is cheaper. Made but never entered with ``with``,
    it is an error at the end of the kernel, not a branch silently dropped."""

    def __init__(self, cond: "Bool"):
        builder = _active()
        if not isinstance(cond, Bool):
            raise TileError(f"T.if_ takes a runtime condition (e.g. T.thread_id() < 16), got "
                            f"{type(cond).__name__}; a Python value needs a Python if")
        _check_owned(cond)
        self.cond, self.where, self.entered = cond, _caller(), False
        self._point = None
        builder.unentered_ifs.append(self)

    def __enter__(self):
        builder = _active()
        if self.entered:
            raise TileError("this T.if_ was already used; write T.if_(cond) for each branch")
        self.entered = True
        builder.unentered_ifs.remove(self)
        with _location():
            self._branch = scf.IfOp(self.cond.value)
        self._point = ir.InsertionPoint(self._branch.then_block)
        self._point.__enter__()
        return None

    def __exit__(self, kind, value, traceback):
        with _location():
            scf.YieldOp([])
        self._point.__exit__(kind, value, traceback)
        return False


def _positive_step(step: "Index") -> bool:
    """A step that is at least 1 when the kernel runs: a positive constant,
    or launch sizes (each at least 1) with positive coefficients."""
    if step.is_static:
        return step.const > 0
    sizes = ("gpu.grid_dim", "gpu.block_dim")
    return step.const >= 0 and all(
        coefficient > 0 and isinstance(value, ir.OpResult) and value.owner.operation.name in sizes
        for value, coefficient in step.terms)


class serial:
    """``for i in T.serial(start, stop, step):`` a loop the kernel runs
    (``scf.for``), unlike a Python ``range``, which unrolls while tracing. The
    body is traced once, with ``i`` an index expression; bounds may be index
    expressions (``T.serial(t, rows, threads)`` is a grid-stride loop), the
    step a positive constant or a positive multiple of the launch's sizes
    (``T.grid_dim() * 128``), which are never 0. Register tiles allocated in
    the body are private to one iteration. The loop counts in 32 bits when
    its start is provably in [0, 2^31) and its stop and step below 2^31
    (constants, thread and block ids and sizes of the compiled-in launch,
    int32 parameters, counters of such loops), else in 64 bits, where its
    counter must not wrap: a step that may pass 2^63 - 1 is an error, and a
    start proven >= 0 counts unsigned, so that stop + step cannot wrap.
    ``break`` and ``return`` in the body are errors: the body is traced
    once, so they cannot decide per iteration."""

    def __init__(self, start, stop=None, step=1):
        if stop is None:
            start, stop = 0, start
        self._bounds = (Index.of(start), Index.of(stop), Index.of(step))
        self.where = _caller()
        self._state = "new"

    def __iter__(self):
        return self

    def __next__(self):
        if self._state == "new":
            self._state = "body"
            return self._open()
        if self._state == "body":
            self._state = "done"
            self._close()
        raise StopIteration

    def _open(self) -> "Index":
        start, stop, step = self._bounds
        if not _positive_step(step):
            raise TileError("T.serial takes a positive constant step, or a positive multiple of "
                            "T.grid_dim() or T.block_dim() plus a constant >= 0")
        builder = _active()
        bounds = [builder.range_of(x) for x in (start, stop, step)]
        for what, bound in zip(("start", "stop", "step"), bounds):
            if bound is not None and not _ranges.INT64_MIN <= bound[0] <= bound[1] <= _ranges.INT64_MAX:
                raise TileError(f"T.serial's {what} may be {bound[1] if bound[1] > 0 else bound[0]}, "
                                "past a 64-bit index: it would wrap")
        # An index the ranges cannot follow is still a 64-bit value.
        bounds = [bound or (_ranges.INT64_MIN, _ranges.INT64_MAX) for bound in bounds]
        # 32 bits, as CUDA counts, where the start is in [0, 2^31) and the
        # stop and step are below 2^31: the counter then stays below 2^32
        # after its last step, so an unsigned comparison is exact. A stop
        # that may be negative is clamped to 0, which runs the loop as often
        # (never). In 64 bits the same holds with 2^63 when the start is
        # proven >= 0; else the counter's last step must not pass 2^63 - 1.
        narrow = (bounds[0][0] >= 0 and bounds[0][1] <= _ranges.INT32_MAX
                  and bounds[1][1] <= _ranges.INT32_MAX and bounds[2][1] <= _ranges.INT32_MAX)
        unsigned = bounds[0][0] >= 0
        if not unsigned:
            if bounds[1][1] - 1 + bounds[2][1] > _ranges.INT64_MAX:
                raise TileError("T.serial's counter may wrap past 2^63 - 1 after its last step: give "
                                "a start proven >= 0 (it then counts unsigned), or bounds that "
                                "leave room for the step")
        with _location():
            if narrow:
                width = ir.IntegerType.get_signless(32)
                low, high, stride = (arith.index_cast(width, x.materialize()) for x in (start, stop, step))
            else:
                low, high, stride = start.materialize(), stop.materialize(), step.materialize()
            if unsigned and bounds[1][0] < 0:
                high = arith.maxsi(high, arith.constant(high.type, 0))
            loop = scf.ForOp(low, high, stride)
            if unsigned:
                loop.operation.attributes["unsignedCmp"] = ir.UnitAttr.get()
        self._point = ir.InsertionPoint(loop.body)
        self._point.__enter__()
        builder.open_loops.append(self)
        counter = loop.induction_variable
        if narrow:
            with _location():
                counter = arith.index_castui(ir.IndexType.get(), counter)
        builder.ranges[counter] = (bounds[0][0], max(bounds[0][0], bounds[1][1] - 1))
        return Index([(counter, 1)])

    def ended_early(self) -> TileError:
        """The error for a body left by break or return."""
        return TileError(f"{self.where[0]}:{self.where[1]}: this T.serial's body ended early (break "
                         "or return): the body is traced once, so it cannot leave the loop per "
                         "iteration; guard the rest of the body with T.if_", located=True)

    def _close(self) -> None:
        builder = _active()
        if builder.open_loops[-1] is not self:
            raise builder.open_loops[-1].ended_early()
        with _location():
            scf.YieldOp([])
        self._point.__exit__(None, None, None)
        builder.open_loops.pop()
class _PTX:
    """``T.ptx[opcode]``: an opcode spelling, checked against the form table."""

    def __getitem__(self, opcode: str) -> str:
        _check_opcode(opcode)
        try:
            _ptx.parse(opcode)
        except _ptx.PTXFormError as error:
            raise TileError(str(error)) from None
        return opcode


ptx = _PTX()


def _operand(value, opcode: str, role: str) -> ir.Value:
    if isinstance(value, Buffer):
        _check_owned(value)
        return value.value
    if isinstance(value, Scalar):
        return value.materialize()
    if isinstance(value, Index):
        _check_owned(value)
        return value.materialize()
    what = type(value).__name__
    hint = "; plain Python numbers have no PTX type" if isinstance(value, (int, float, complex)) else ""
    raise TileError(f"{opcode}: operand {role}: expected a tile, a tensor or a typed scalar "
                    f"(e.g. T.float32(1.0)), got {what} {value!r}{hint}")


def _immediate_positions(opcode: str) -> set:
    return {i for i, operand in enumerate(_ptx.parse(opcode).operands) if operand.role == "imm"}


def _immediate(value, opcode: str, role: str) -> ir.Value:
    """An immediate operand (lop3's table): a typed integer scalar, by its
    value. An unsigned one is not its signless bits: T.uint8(232) was the i8
    -24, reported as an illegal immediate -24."""
    if isinstance(value, Scalar) and not isinstance(value, _IndexScalar) \
            and value.dtype not in _FLOAT_OVERFLOW:
        with _location():
            return arith.constant(ir.IntegerType.get_signless(64), int(value.python_value))
    return _operand(value, opcode, role)


_APPLY_OPTIONS = ("scope", "pred", "preserve_dst")


def _role_names(opcode: str, count: int) -> List[str]:
    """The form's operand names (dst, lhs, ...) for diagnostics."""
    try:
        names = [operand.name for operand in _ptx.parse(opcode).operands]
    except _ptx.PTXFormError as error:
        raise TileError(str(error)) from None
    return names[:count] + [f"#{i}" for i in range(len(names), count)]


def _apply(opcode, *operands, **options):
    """``T.cuda.tile.apply(T.ptx[opcode], *operands, pred=, preserve_dst=,
    scope=)``: one exact PTX form over tiles. Operands come in the form's
    order (destinations first); each repeat of the tiles' leading axes is
    one instruction, the final axis gives each operand's registers. ``pred``
    guards every repeat (a runtime Bool, a Python bool or a predicate tile,
    one predicate per repeat); ``preserve_dst`` keeps a destination's value
    where the guard is false; ``scope`` ("thread", "warp", "warpgroup",
    "cta") names the group whose threads each own a row. The form table
    checks the spelling, the operands and the target; a bad program raises
    TileError at the user's line. Returns the ``tile.apply`` op."""
    _active()
    _check_opcode(opcode)
    unknown = [name for name in options if name not in _APPLY_OPTIONS]
    if unknown:
        raise TileError(f"{opcode}: unknown option {unknown[0]}=; tile.apply takes "
                        f"{', '.join(o + '=' for o in _APPLY_OPTIONS)}")
    scope = options.get("scope", "thread")
    pred = options.get("pred")
    preserve_dst = options.get("preserve_dst", False)
    if not isinstance(scope, str):
        raise TileError(f"{opcode}: scope is 'thread', 'warp', 'warpgroup' or 'cta', got {scope!r}")
    if not isinstance(preserve_dst, bool):
        raise TileError(f"{opcode}: preserve_dst is True or False, got {preserve_dst!r}")
    roles = _role_names(opcode, len(operands))
    immediates = _immediate_positions(opcode)
    values = [_immediate(v, opcode, role) if i in immediates else _operand(v, opcode, role)
              for i, (v, role) in enumerate(zip(operands, roles))]
    predicate = None
    if pred is not None:
        if isinstance(pred, bool):
            with _location():
                predicate = arith.constant(ir.IntegerType.get_signless(1), int(pred))
        elif isinstance(pred, Bool):
            _check_owned(pred)
            predicate = pred.value
        elif isinstance(pred, Buffer) and pred.dtype == "bool":
            # A predicate tile that setp wrote: one predicate per repeat.
            _check_owned(pred)
            predicate = pred.value
        else:
            raise TileError(f"{opcode}: pred is a runtime bool (e.g. T.thread_id() < 4), a Python "
                            f"bool or a predicate tile (T.alloc_local(..., \"bool\")), got "
                            f"{type(pred).__name__}")
    try:
        with _location():
            op = _tile_ops.ApplyOp(opcode, values, pred=predicate, scope=scope,
                                   preserve_dst=True if preserve_dst else None)
            op.operation.verify()
    except ir.MLIRError as error:
        _raise(error)
    _record_writes(opcode, operands)
    return op


def _record_writes(opcode: str, operands) -> None:
    """Notes the parameters a store writes, so the runtime copies back only
    those (and accepts read-only arrays for the rest)."""
    forms = _ptx.overloads(opcode)
    if not forms[0].writes_memory:
        return
    for operand, value in zip(forms[0].operands, operands):
        if operand.space != "reg" and isinstance(value, Buffer) and value.name:
            _active().written.add(value.name)


class _TileNamespace:
    """``T.cuda.tile``: the tile instructions."""

    apply = staticmethod(_apply)


class _CudaNamespace:
    """``T.cuda``: the launch configuration and ``tile.apply``."""

    LaunchConfig = LaunchConfig
    tile = _TileNamespace()


cuda = _CudaNamespace()

# Last: the ewise module builds on the names above.
from .ewise import (Expr, cast, cos, erf, ewise, exp, exp2, fabs, log, log2, maximum,  # noqa: E402
                    minimum, rsqrt, sin, sqrt, tanh, where)

__all__ = [
    "Tensor", "LaunchConfig", "TileError", "function", "prim_func", "device_entry", "alloc_local",
    "thread_id", "block_id", "block_dim", "grid_dim", "serial", "if_", "ptx", "cuda", "Buffer", "Index", "Bool", "Scalar",
    "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "ewise", "Expr", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "sin", "cos", "erf", "fabs",
    "maximum", "minimum", "where", "cast",
]
