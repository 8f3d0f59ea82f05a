"""``T.ewise(fn, dst, *inputs)``: a caller-defined scalar expression applied
to every register of a tile.

Unlike ``tile.apply``, which names one exact PTX instruction, ewise makes no
instruction promise: ``fn`` is traced on scalar ``Expr`` values, once per
register, and becomes upstream ``arith`` and ``math`` operations, which the pipeline lowers
to NVVM (math functions through libdevice). The expression must be well
typed: its operands share one dtype (``T.cast`` converts explicitly), and
its result has the destination's dtype.

    T.ewise(lambda x, y: x * y / (1.0 + T.exp(-x)), out, x, y)   # silu(x) * y
"""

from __future__ import annotations

import itertools
import math as _pymath

from mlir import ir
from mlir.dialects import arith, math, memref

from . import script as _script
from .script import REGISTER_SPACE, Buffer, Scalar, TileError

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTEGERS = ("int8", "int16", "int32", "int64")
# A kernel expands every register of the tile; past this a tile is a mistake.
MAX_ELEMENTS = 1 << 16


class Expr:
    """One scalar of an ewise expression: an MLIR value and its dtype."""

    def __init__(self, value: ir.Value, dtype: str):
        self.value, self.dtype = value, dtype

    def __bool__(self):
        raise TileError("ewise: a value has no truth value at trace time; use T.where(cond, a, b)")

    def _binary(self, other, name, float_op, int_op, reverse=False):
        other = _lift(other, self.dtype, name)
        a, b = (other, self) if reverse else (self, other)
        _same_dtype(a, b, name)
        op = float_op if a.dtype in FLOATS else int_op
        with _script._location():
            return Expr(op(a.value, b.value), a.dtype)

    def __add__(self, other):
        return self._binary(other, "+", arith.addf, arith.addi)

    def __radd__(self, other):
        return self._binary(other, "+", arith.addf, arith.addi, reverse=True)

    def __sub__(self, other):
        return self._binary(other, "-", arith.subf, arith.subi)

    def __rsub__(self, other):
        return self._binary(other, "-", arith.subf, arith.subi, reverse=True)

    def __mul__(self, other):
        return self._binary(other, "*", arith.mulf, arith.muli)

    def __rmul__(self, other):
        return self._binary(other, "*", arith.mulf, arith.muli, reverse=True)

    def __truediv__(self, other):
        if self.dtype not in FLOATS:
            raise TileError(f"ewise: / divides floats; {self.dtype} divides with //")
        return self._binary(other, "/", arith.divf, None)

    def __rtruediv__(self, other):
        if self.dtype not in FLOATS:
            raise TileError(f"ewise: / divides floats; {self.dtype} divides with //")
        return self._binary(other, "/", arith.divf, None, reverse=True)

    def __floordiv__(self, other):
        if self.dtype in FLOATS:
            raise TileError("ewise: // divides integers; floats divide with /")
        return self._binary(other, "//", None, arith.floordivsi)

    def __neg__(self):
        with _script._location():
            if self.dtype in FLOATS:
                return Expr(arith.negf(self.value), self.dtype)
            return Expr(arith.subi(_constant(0, self.dtype), self.value), self.dtype)

    def _compare(self, other, name, float_pred, int_pred):
        other = _lift(other, self.dtype, name)
        _same_dtype(self, other, name)
        with _script._location():
            if self.dtype in FLOATS:
                value = arith.cmpf(float_pred, self.value, other.value)
            else:
                value = arith.cmpi(int_pred, self.value, other.value)
        return Expr(value, "bool")

    def __lt__(self, other):
        return self._compare(other, "<", arith.CmpFPredicate.OLT, arith.CmpIPredicate.slt)

    def __le__(self, other):
        return self._compare(other, "<=", arith.CmpFPredicate.OLE, arith.CmpIPredicate.sle)

    def __gt__(self, other):
        return self._compare(other, ">", arith.CmpFPredicate.OGT, arith.CmpIPredicate.sgt)

    def __ge__(self, other):
        return self._compare(other, ">=", arith.CmpFPredicate.OGE, arith.CmpIPredicate.sge)


def _constant(number, dtype: str) -> ir.Value:
    with _script._location():
        if dtype in FLOATS:
            return arith.constant(_script._element_type(dtype), float(number))
        return arith.constant(_script._element_type(dtype), int(number))


def _lift(value, dtype: str, what: str) -> Expr:
    """An operand of `what` as an Expr: a Python number takes the other
    operand's dtype where it fits exactly (a float literal only as a float)."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, Scalar):
        return Expr(value.materialize(), value.dtype)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TileError(f"ewise: {what} takes ewise values, typed scalars (T.float32(...)) or "
                        f"numbers, got {type(value).__name__} {value!r}")
    if isinstance(value, float) and dtype not in FLOATS:
        raise TileError(f"ewise: the float {value!r} meets a {dtype} in {what}; "
                        f"convert explicitly with T.cast")
    if dtype == "bool":
        raise TileError(f"ewise: {what} on a comparison; combine comparisons with T.where")
    Scalar(dtype, value)  # the same range rules as a typed scalar
    return Expr(_constant(value, dtype), dtype)


def _same_dtype(a: Expr, b: Expr, what: str) -> None:
    if a.dtype != b.dtype:
        raise TileError(f"ewise: the operands of {what} are {a.dtype} and {b.dtype}; "
                        f"convert one explicitly with T.cast")


def _float_function(name, op):
    def function(x):
        x = _lift(x, "float32", name)
        if x.dtype not in FLOATS:
            raise TileError(f"ewise: T.{name} takes a float, got {x.dtype}; convert with T.cast")
        with _script._location():
            return Expr(op(x.value), x.dtype)
    function.__name__ = name
    function.__doc__ = f"``{name}`` of a float ewise value (math.{name})."
    return function


exp = _float_function("exp", math.exp)
exp2 = _float_function("exp2", math.exp2)
log = _float_function("log", math.log)
log2 = _float_function("log2", math.log2)
sqrt = _float_function("sqrt", math.sqrt)
rsqrt = _float_function("rsqrt", math.rsqrt)
tanh = _float_function("tanh", math.tanh)
sin = _float_function("sin", math.sin)
cos = _float_function("cos", math.cos)
erf = _float_function("erf", math.erf)


def fabs(x):
    """|x| of a float or integer ewise value."""
    x = _lift(x, "float32", "T.fabs")
    with _script._location():
        return Expr(math.absf(x.value) if x.dtype in FLOATS else math.absi(x.value), x.dtype)


def maximum(a, b):
    """The larger of two ewise values (floats: a NaN input gives NaN)."""
    a = a if isinstance(a, Expr) else _lift(a, b.dtype if isinstance(b, Expr) else "float32", "T.maximum")
    return a._binary(b, "T.maximum", arith.maximumf, arith.maxsi)


def minimum(a, b):
    """The smaller of two ewise values (floats: a NaN input gives NaN)."""
    a = a if isinstance(a, Expr) else _lift(a, b.dtype if isinstance(b, Expr) else "float32", "T.minimum")
    return a._binary(b, "T.minimum", arith.minimumf, arith.minsi)


def where(cond, a, b):
    """``a`` where the comparison ``cond`` holds, else ``b``."""
    if not isinstance(cond, Expr) or cond.dtype != "bool":
        raise TileError("ewise: T.where takes a comparison (x > 0) first")
    dtype = a.dtype if isinstance(a, Expr) else (b.dtype if isinstance(b, Expr) else "float32")
    a, b = _lift(a, dtype, "T.where"), _lift(b, dtype, "T.where")
    _same_dtype(a, b, "T.where")
    with _script._location():
        return Expr(arith.select(cond.value, a.value, b.value), a.dtype)


def cast(x, dtype: str):
    """``x`` converted to ``dtype``: float widths round to nearest, float to
    integer truncates, integer to float rounds to nearest."""
    x = _lift(x, "float32", "T.cast")
    if dtype not in FLOATS + INTEGERS:
        raise TileError(f"ewise: T.cast converts to one of {', '.join(FLOATS + INTEGERS)}, got {dtype!r}")
    if dtype == x.dtype:
        return x
    target = _script._element_type(dtype)
    source_bits = ir.FloatType(x.value.type).width if x.dtype in FLOATS else ir.IntegerType(x.value.type).width
    target_bits = ir.FloatType(target).width if dtype in FLOATS else ir.IntegerType(target).width
    with _script._location():
        if x.dtype in FLOATS and dtype in FLOATS:
            value = x.value
            if target_bits == source_bits:  # f16 <-> bf16, exactly through f32
                value = arith.extf(ir.F32Type.get(), value)
                source_bits = 32
            value = arith.extf(target, value) if target_bits > source_bits else arith.truncf(target, value)
        elif x.dtype in FLOATS:
            value = arith.fptosi(target, x.value)
        elif dtype in FLOATS:
            value = arith.sitofp(target, x.value)
        else:
            value = arith.extsi(target, x.value) if target_bits > source_bits else arith.trunci(target, x.value)
    return Expr(value, dtype)


def _register_tile(value, what: str) -> Buffer:
    if not isinstance(value, Buffer):
        raise TileError(f"ewise: {what} is a register tile (T.alloc_local), got {type(value).__name__}")
    _script._check_owned(value)
    space = value.type.memory_space
    if space is None or ir.IntegerAttr(space).value != REGISTER_SPACE:
        raise TileError(f"ewise: {what} is a register tile (T.alloc_local); tensors in global or "
                        "shared memory need explicit ld/st")
    if value.dtype not in FLOATS + INTEGERS:
        raise TileError(f"ewise: {what} is {value.dtype}; ewise computes on float and signed "
                        "integer tiles (view unsigned registers as signed ones)")
    return value


def ewise(fn, dst, *inputs):
    """Writes ``fn(*inputs)`` into every register of ``dst``: each input is
    a register tile of ``dst``'s shape, read at the same register, or a
    typed scalar, the same for all. ``fn`` sees ewise values (``Expr``) and
    returns one of ``dst``'s dtype."""
    _script._active()
    if not callable(fn):
        raise TileError(f"ewise: the first argument is a function of the inputs, got {type(fn).__name__}")
    dst = _register_tile(dst, "the destination")
    tiles = []
    for i, value in enumerate(inputs):
        if isinstance(value, Scalar):
            tiles.append(value)
            continue
        tile = _register_tile(value, f"input {i}")
        if tile.shape != dst.shape:
            raise TileError(f"ewise: input {i} has shape {tile.shape}, the destination {dst.shape}; "
                            "they must match")
        tiles.append(tile)
    count = _pymath.prod(dst.shape)
    if count > MAX_ELEMENTS:
        raise TileError(f"ewise: the destination has {count} registers, more than {MAX_ELEMENTS}")
    with _script._location():
        index = {}
        for coords in itertools.product(*(range(extent) for extent in dst.shape)):
            indices = [index.setdefault(c, arith.constant(ir.IndexType.get(), c)) for c in coords]
            args = [Expr(memref.load(t.value, indices), t.dtype) if isinstance(t, Buffer)
                    else Expr(t.materialize(), t.dtype) for t in tiles]
            result = fn(*args)
            result = _lift(result, dst.dtype, "the result")
            if result.dtype != dst.dtype:
                raise TileError(f"ewise: the expression is {result.dtype}, the destination "
                                f"{dst.dtype}; convert with T.cast")
            memref.store(result.value, dst.value, indices)
