"""``T.ewise(fn, dst, *inputs)``: a caller-defined scalar expression applied
to every register of a tile.

Unlike ``tile.apply``, which names one exact PTX instruction, ewise makes no
instruction promise: ``fn`` is traced on scalar ``Expr`` values, once per
register, and becomes upstream ``arith`` and ``math`` operations, which the pipeline lowers
to NVVM (math functions through libdevice). The expression must be well
typed: its operands share one dtype (``T.cast`` converts explicitly), and
its result has the destination's dtype. Every operation is defined for
every input (docs/families/ewise.md): integer division by zero, shifts past
the width and casts of out-of-range floats have documented results, and a
constant operation that no result can be given for is an error.

    T.ewise(lambda x, y: x * y / (1.0 + T.exp(-x)), out, x, y)   # silu(x) * y
"""

from __future__ import annotations

import itertools
import math as _pymath

from mlir import ir
from mlir.dialects import arith, math, memref

from .. import _tile
from .tiles import Buffer
from .tracing import (_FLOAT_OVERFLOW, TileError, _active, _element_type, _location,
                      _short)
from .values import Bool, Index, Scalar, _check_owned, derived_once

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTEGERS = ("int8", "int16", "int32", "int64")
# A kernel expands every register of the tile; past this a tile is a mistake.
MAX_ELEMENTS = 1 << 16
# The operations all ewise calls of one kernel may build: a 16384-register
# tile with a 20-operation expression took 69 s to compile; this budget
# stops such a kernel at its line in a fraction of a second.
MAX_OPERATIONS = 1 << 18

_UNSUPPORTED = {
    "**": "multiply (x * x), or use T.exp2 and T.log2",
    "round()": "use T.cast, which truncates toward zero",
    "math.floor()": "use T.cast, which truncates toward zero",
    "math.ceil()": "use T.cast, which truncates toward zero",
    "math.trunc()": "use T.cast, which truncates toward zero",
    "int()": "a value of the running kernel has no Python value; use T.cast",
    "float()": "a value of the running kernel has no Python value; use T.cast",
    "an index": "a value of the running kernel has no Python value",
    "divmod()": "use // and % separately",
    "@": "ewise computes one register at a time",
}


def _unsupported(what):
    def method(self, *args):
        raise TileError(f"ewise: {what} is not supported on ewise values; {_UNSUPPORTED[what]}")
    return method


class Expr:
    """One scalar of an ewise expression: an MLIR value and its dtype."""

    def __init__(self, value: ir.Value, dtype: str):
        self.value, self.dtype = value, dtype

    def use(self) -> ir.Value:
        """The value, for an operation of the kernel being traced: an Expr
        of another kernel names another module's value (which aborted the
        interpreter when that module died)."""
        if self.value.context != _active().context:
            raise TileError("this ewise value was made in another @T.function; values do not "
                            "cross kernels")
        return self.value

    def __bool__(self):
        raise TileError("ewise: a value has no truth value at trace time; use T.where(cond, a, b) "
                        "(a Python if, and, or, not or `in` would decide once, for every register)")

    __hash__ = object.__hash__

    def binary(self, other, name, float_op, int_op, reverse=False):
        """self `name` other (`reverse`: other `name` self) as one ewise
        operation: `float_op` on floats, `int_op` on integers (None: the
        operation has no integer form). The operators and T.minimum,
        T.maximum build on it."""
        other = _lift(other, self.dtype, name)
        a, b = (other, self) if reverse else (self, other)
        _same_dtype(a, b, name)
        if a.dtype == "bool":
            raise TileError(f"ewise: {name} on comparisons; combine them with &, | and ~")
        op = float_op if a.dtype in FLOATS else int_op
        if op is None:
            kind = "floats" if a.dtype in FLOATS else "integers"
            raise TileError(f"ewise: {name} does not take {kind} ({a.dtype})")
        with _location():
            return Expr(op(a.use(), b.use()), a.dtype)

    def __add__(self, other):
        return self.binary(other, "+", arith.addf, arith.addi)

    def __radd__(self, other):
        return self.binary(other, "+", arith.addf, arith.addi, reverse=True)

    def __sub__(self, other):
        return self.binary(other, "-", arith.subf, arith.subi)

    def __rsub__(self, other):
        return self.binary(other, "-", arith.subf, arith.subi, reverse=True)

    def __mul__(self, other):
        return self.binary(other, "*", arith.mulf, arith.muli)

    def __rmul__(self, other):
        return self.binary(other, "*", arith.mulf, arith.muli, reverse=True)

    def __truediv__(self, other):
        if self.dtype not in FLOATS:
            raise TileError(f"ewise: / divides floats; {self.dtype} divides with //")
        return self.binary(other, "/", arith.divf, None)

    def __rtruediv__(self, other):
        if self.dtype not in FLOATS:
            raise TileError(f"ewise: / divides floats; {self.dtype} divides with //")
        return self.binary(other, "/", arith.divf, None, reverse=True)

    def _division(self, other, name, reverse, remainder):
        if self.dtype in FLOATS:
            raise TileError(f"ewise: {name} takes integers; floats divide with /")
        other = _lift(other, self.dtype, name)
        a, b = (other, self) if reverse else (self, other)
        _same_dtype(a, b, name)
        with _location():
            quotient, rest = _floor_division(a, b, name)
        return rest if remainder else quotient

    def __floordiv__(self, other):
        return self._division(other, "//", False, False)

    def __rfloordiv__(self, other):
        return self._division(other, "//", True, False)

    def __mod__(self, other):
        return self._division(other, "%", False, True)

    def __rmod__(self, other):
        return self._division(other, "%", True, True)

    def _bitwise(self, other, name, op, reverse=False):
        other = _lift(other, self.dtype, name)
        a, b = (other, self) if reverse else (self, other)
        _same_dtype(a, b, name)
        if a.dtype in FLOATS:
            raise TileError(f"ewise: {name} takes integers or comparisons, got {a.dtype}")
        with _location():
            return Expr(op(a.use(), b.use()), a.dtype)

    def __and__(self, other):
        return self._bitwise(other, "&", arith.andi)

    def __rand__(self, other):
        return self._bitwise(other, "&", arith.andi, reverse=True)

    def __or__(self, other):
        return self._bitwise(other, "|", arith.ori)

    def __ror__(self, other):
        return self._bitwise(other, "|", arith.ori, reverse=True)

    def __xor__(self, other):
        return self._bitwise(other, "^", arith.xori)

    def __rxor__(self, other):
        return self._bitwise(other, "^", arith.xori, reverse=True)

    def __invert__(self):
        if self.dtype in FLOATS:
            raise TileError(f"ewise: ~ takes integers or comparisons, got {self.dtype}")
        with _location():
            ones = _constant(1 if self.dtype == "bool" else -1, self.dtype)
            return Expr(arith.xori(self.use(), ones), self.dtype)

    def _shift(self, other, name, reverse):
        other = _lift(other, self.dtype, name)
        a, b = (other, self) if reverse else (self, other)
        _same_dtype(a, b, name)
        if a.dtype not in INTEGERS:
            raise TileError(f"ewise: {name} shifts integers, got {a.dtype}")
        with _location():
            return _shift(a, b, name)

    def __lshift__(self, other):
        return self._shift(other, "<<", False)

    def __rlshift__(self, other):
        return self._shift(other, "<<", True)

    def __rshift__(self, other):
        return self._shift(other, ">>", False)

    def __rrshift__(self, other):
        return self._shift(other, ">>", True)

    def __neg__(self):
        if self.dtype == "bool":
            raise TileError("ewise: - on a comparison; use ~")
        with _location():
            if self.dtype in FLOATS:
                return Expr(arith.negf(self.use()), self.dtype)
            return Expr(arith.subi(_constant(0, self.dtype), self.use()), self.dtype)

    def __pos__(self):
        return self

    def __abs__(self):
        return fabs(self)

    __pow__ = __rpow__ = _unsupported("**")
    __round__ = _unsupported("round()")
    __floor__ = _unsupported("math.floor()")
    __ceil__ = _unsupported("math.ceil()")
    __trunc__ = _unsupported("math.trunc()")
    __int__ = _unsupported("int()")
    __float__ = _unsupported("float()")
    __index__ = _unsupported("an index")
    __divmod__ = __rdivmod__ = _unsupported("divmod()")
    __matmul__ = __rmatmul__ = _unsupported("@")

    def _compare(self, other, name, float_pred, int_pred):
        other = _lift(other, self.dtype, name)
        _same_dtype(self, other, name)
        if self.dtype == "bool" and name not in ("==", "!="):
            raise TileError(f"ewise: {name} on comparisons; combine them with &, | and ~")
        with _location():
            if self.dtype in FLOATS:
                value = arith.cmpf(float_pred, self.use(), other.use())
            else:
                value = arith.cmpi(int_pred, self.use(), other.use())
        return Expr(value, "bool")

    def __lt__(self, other):
        return self._compare(other, "<", arith.CmpFPredicate.OLT, arith.CmpIPredicate.slt)

    def __le__(self, other):
        return self._compare(other, "<=", arith.CmpFPredicate.OLE, arith.CmpIPredicate.sle)

    def __gt__(self, other):
        return self._compare(other, ">", arith.CmpFPredicate.OGT, arith.CmpIPredicate.sgt)

    def __ge__(self, other):
        return self._compare(other, ">=", arith.CmpFPredicate.OGE, arith.CmpIPredicate.sge)

    # Built in the kernel, never decided while tracing: Python's default ==
    # compared the objects, so `1.0 if a == 0.0 else a` was a plain copy.
    # As in Python, a NaN is unequal to everything, itself included.
    def __eq__(self, other):
        return self._compare(other, "==", arith.CmpFPredicate.OEQ, arith.CmpIPredicate.eq)

    def __ne__(self, other):
        return self._compare(other, "!=", arith.CmpFPredicate.UNE, arith.CmpIPredicate.ne)


_WIDTHS = {"bool": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
           "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}


def _width(dtype: str) -> int:
    return _WIDTHS[dtype]


def _constant(number, dtype: str) -> ir.Value:
    with _location():
        if dtype in FLOATS:
            return arith.constant(_element_type(dtype), float(number))
        if dtype == "bool":
            return arith.constant(ir.IntegerType.get_signless(1), int(number))
        return arith.constant(_element_type(dtype), int(number))


def _constant_value(expr: Expr):
    """The Python value of an integer Expr that is an arith.constant, else
    None."""
    owner = expr.value.owner if isinstance(expr.value, ir.OpResult) else None
    if owner is None or owner.name != "arith.constant" or expr.dtype not in INTEGERS:
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def _lift(value, dtype: str, what: str) -> Expr:
    """An operand of `what` as an Expr: a Python number takes the other
    operand's dtype where it fits exactly (a float literal only as a float)."""
    if isinstance(value, Expr):
        value.use()
        return value
    if isinstance(value, Scalar):
        return Expr(value.materialize(), value.dtype)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TileError(f"ewise: {what} takes ewise values, typed scalars (T.float32(...)) or "
                        f"numbers, got {type(value).__name__} {_short(value)}")
    if dtype == "bool":
        raise TileError(f"ewise: {what} on a comparison and a number; combine comparisons "
                        "with &, | and ~, and select values with T.where")
    if isinstance(value, float) and dtype not in FLOATS:
        raise TileError(f"ewise: the float {value!r} meets a {dtype} in {what}; "
                        f"convert explicitly with T.cast")
    Scalar(dtype, value)  # the same range rules as a typed scalar
    return Expr(_constant(value, dtype), dtype)


def _same_dtype(a: Expr, b: Expr, what: str) -> None:
    if a.dtype != b.dtype:
        raise TileError(f"ewise: the operands of {what} are {a.dtype} and {b.dtype}; "
                        f"convert one explicitly with T.cast")


def _floor_division(a: Expr, b: Expr, name: str):
    """(a // b, a % b) as Python defines them (floor division, a remainder
    with the divisor's sign), for every input: arith's division is undefined
    for a zero divisor and for the minimum over -1. A zero divisor gives
    -1 and a (x // 0 and x % 0 are -1 and x, as RISC-V defines them); the
    minimum over -1 wraps to the minimum, remainder 0. A constant zero
    divisor is an error."""
    dtype, bits = a.dtype, _width(a.dtype)
    minimum = -(1 << (bits - 1))
    divisor = _constant_value(b)
    if divisor == 0:
        raise TileError(f"ewise: {name} by the constant 0 has no result")
    x, y = a.use(), b.use()
    if divisor == -1:
        # x // -1 is -x, which wraps for the minimum alone; x % -1 is 0.
        quotient = arith.subi(_constant(0, dtype), x)
    elif divisor is not None:
        quotient = arith.floordivsi(x, y)
    else:
        zero = arith.cmpi(arith.CmpIPredicate.eq, y, _constant(0, dtype))
        overflow = arith.andi(arith.cmpi(arith.CmpIPredicate.eq, x, _constant(minimum, dtype)),
                              arith.cmpi(arith.CmpIPredicate.eq, y, _constant(-1, dtype)))
        safe = arith.select(arith.ori(zero, overflow), _constant(1, dtype), y)
        quotient = arith.floordivsi(x, safe)
        quotient = arith.select(overflow, _constant(minimum, dtype), quotient)
        quotient = arith.select(zero, _constant(-1, dtype), quotient)
    # The remainder follows from the quotient, wrapping: a - (-1) * 0 is a,
    # and the minimum - minimum * -1 is 0.
    remainder = arith.subi(x, arith.muli(quotient, y))
    return Expr(quotient, dtype), Expr(remainder, dtype)


def _shift(a: Expr, b: Expr, name: str) -> Expr:
    """a << b or a >> b (arithmetic), as PTX's shl and shr define amounts
    past the width: a shift by the width or more (b read as unsigned) gives
    0, or for >> the sign. arith's shifts are undefined there."""
    dtype, bits = a.dtype, _width(a.dtype)
    amount = _constant_value(b)
    x, y = a.use(), b.use()
    if amount is not None:
        if not 0 <= amount < bits:
            raise TileError(f"ewise: {name} by the constant {amount}: a {dtype} shifts by 0 to "
                            f"{bits - 1} (a shift by a runtime amount past the width gives "
                            f"{'the sign' if name == '>>' else '0'})")
        return Expr((arith.shli if name == "<<" else arith.shrsi)(x, y), dtype)
    inside = arith.cmpi(arith.CmpIPredicate.ult, y, _constant(bits, dtype))
    safe = arith.select(inside, y, _constant(bits - 1, dtype))
    if name == "<<":
        value = arith.select(inside, arith.shli(x, safe), _constant(0, dtype))
    else:
        value = arith.shrsi(x, safe)  # bits - 1 already fills with the sign
    return Expr(value, dtype)


def _float_function(name, op):
    def function(x):
        x = _lift(x, "float32", name)
        if x.dtype not in FLOATS:
            raise TileError(f"ewise: T.{name} takes a float, got {x.dtype}; convert with T.cast")
        with _location():
            return Expr(op(x.use()), x.dtype)
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
    """|x| of a float or integer ewise value (the integer minimum stays
    itself, as two's complement wraps)."""
    x = _lift(x, "float32", "T.fabs")
    if x.dtype == "bool":
        raise TileError("ewise: T.fabs takes a number, got a comparison")
    with _location():
        return Expr(math.absf(x.use()) if x.dtype in FLOATS else math.absi(x.use()), x.dtype)


def _dtype_of(*values, default="float32") -> str:
    return next((v.dtype for v in values if isinstance(v, Expr)), default)


def _index_operands(*values) -> bool:
    """Whether an index form applies: index expressions and Python ints,
    at least one an index expression (a bound, a clamped row)."""
    return (any(isinstance(v, Index) for v in values)
            and all(isinstance(v, Index) or (isinstance(v, int) and not isinstance(v, bool)) for v in values))


def _check_index_mix(what: str, *values) -> None:
    """An index expression meets only index expressions and ints."""
    if any(isinstance(v, Index) for v in values) and not _index_operands(*values):
        other = next(v for v in values if not isinstance(v, Index))
        raise TileError(f"{what} of an index expression takes index expressions and ints, "
                        f"got {type(other).__name__} {_short(other)}")


def _index_binary(a, b, op) -> Index:
    a, b = Index.of(a), Index.of(b)

    def build():
        with _location():
            return Index([(op(a.materialize(), b.materialize()), 1)])
    return derived_once((op.__name__, a.key(), b.key()), build)


def maximum(a, b):
    """The larger of two ewise values (floats: a NaN input gives NaN), or
    of two index expressions (an index expression)."""
    if _index_operands(a, b):
        return _index_binary(a, b, arith.maxsi)
    _check_index_mix("T.maximum", a, b)
    a = _lift(a, _dtype_of(a, b), "T.maximum")
    return a.binary(b, "T.maximum", arith.maximumf, arith.maxsi)


def minimum(a, b):
    """The smaller of two ewise values (floats: a NaN input gives NaN), or
    of two index expressions (an index expression)."""
    if _index_operands(a, b):
        return _index_binary(a, b, arith.minsi)
    _check_index_mix("T.minimum", a, b)
    a = _lift(a, _dtype_of(a, b), "T.minimum")
    return a.binary(b, "T.minimum", arith.minimumf, arith.minsi)


def where(cond, a, b):
    """``a`` where the comparison ``cond`` holds, else ``b``: ewise values,
    or, with a runtime condition (a Bool: ``row < m``), index expressions."""
    if isinstance(cond, Bool) and all(isinstance(v, Index) or (isinstance(v, int) and not isinstance(v, bool))
                                      for v in (a, b)):
        _check_owned(cond)
        a, b = Index.of(a), Index.of(b)
        with _location():
            return Index([(arith.select(cond.value, a.materialize(), b.materialize()), 1)])
    if isinstance(cond, Bool):
        raise TileError("T.where of a runtime condition selects index expressions and ints, got "
                        f"{type(a).__name__} and {type(b).__name__}; ewise values take a comparison "
                        "of ewise values (x > 0)")
    if not isinstance(cond, Expr) or cond.dtype != "bool":
        raise TileError("ewise: T.where takes a comparison (x > 0) first")
    dtype = _dtype_of(a, b)
    a, b = _lift(a, dtype, "T.where"), _lift(b, dtype, "T.where")
    _same_dtype(a, b, "T.where")
    with _location():
        return Expr(arith.select(cond.use(), a.use(), b.use()), a.dtype)


def _float_to_integer(x: Expr, dtype: str) -> ir.Value:
    """fptosi that saturates, as cvt.rzi.sat does: toward zero, NaN to 0,
    out-of-range values to the nearest end (arith's fptosi is poison there;
    a poison arm of a select that is not taken is no poison)."""
    bits = _width(dtype)
    target = _element_type(dtype)
    value = x.use()
    float_type = value.type
    limit = 2.0 ** (bits - 1)
    # The first float at or past each end; a type whose range ends first
    # (f16 for 32 and 64 bits) meets only infinities there.
    high = limit if limit <= _FLOAT_OVERFLOW[x.dtype] else _pymath.inf
    truncated = arith.fptosi(target, value)
    too_high = arith.cmpf(arith.CmpFPredicate.OGE, value, arith.constant(float_type, high))
    too_low = arith.cmpf(arith.CmpFPredicate.OLT, value, arith.constant(float_type, -high))
    nan = arith.cmpf(arith.CmpFPredicate.UNO, value, value)
    result = arith.select(too_high, arith.constant(target, (1 << (bits - 1)) - 1), truncated)
    result = arith.select(too_low, arith.constant(target, -(1 << (bits - 1))), result)
    return arith.select(nan, arith.constant(target, 0), result)


def _integer_to_bfloat16(x: Expr) -> ir.Value:
    """An integer rounded once to the nearest bf16. NVPTX below sm_90 turns
    sitofp to bf16 into cvt.rn.f32 then cvt.rn.bf16.f32, two roundings
    (16842753 became 16777216, not 16908288), and LLVM folds any exact
    detour (through f64) back into that sitofp. So the magnitude is rounded
    to f32 to odd first, in integer steps LLVM keeps: rounded to nearest,
    stepped back toward zero if that went up, its last bit set if inexact.
    With 24 bits against bf16's 8, rounding that once more is exact."""
    value = x.use()
    unsigned = value.type
    zero = arith.constant(unsigned, 0)
    negative = arith.cmpi(arith.CmpIPredicate.slt, value, zero)
    # |minimum| is 2^(bits-1), which an unsigned reading holds.
    magnitude = arith.select(negative, arith.subi(zero, value), value)
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    nearest = arith.uitofp(f32, magnitude)
    back = arith.fptoui(unsigned, nearest)  # at most 2^(bits-1): it fits
    word = arith.bitcast(i32, nearest)
    went_up = arith.extui(i32, arith.cmpi(arith.CmpIPredicate.ugt, back, magnitude))
    inexact = arith.extui(i32, arith.cmpi(arith.CmpIPredicate.ne, back, magnitude))
    odd = arith.ori(arith.subi(word, went_up), inexact)
    sign = arith.select(negative, arith.constant(i32, -(1 << 31)), arith.constant(i32, 0))
    return arith.truncf(ir.BF16Type.get(), arith.bitcast(f32, arith.ori(odd, sign)))


def cast(x, dtype: str):
    """``x`` converted to ``dtype``: float widths round to nearest, float to
    integer truncates toward zero and saturates (NaN is 0), integer to float
    rounds to nearest once, and integer widths wrap (docs/families/ewise.md)."""
    x = _lift(x, "float32", "T.cast")
    if dtype not in FLOATS + INTEGERS:
        raise TileError(f"ewise: T.cast converts to one of {', '.join(FLOATS + INTEGERS)}, got {dtype!r}")
    if x.dtype == "bool":
        raise TileError("ewise: T.cast of a comparison; select values with T.where(cond, 1, 0)")
    if dtype == x.dtype:
        return x
    target = _element_type(dtype)
    source_bits, target_bits = _width(x.dtype), _width(dtype)
    with _location():
        if x.dtype in FLOATS and dtype in FLOATS:
            value = x.use()
            if target_bits == source_bits:  # f16 <-> bf16, exactly through f32
                value = arith.extf(ir.F32Type.get(), value)
                source_bits = 32
            value = arith.extf(target, value) if target_bits > source_bits else arith.truncf(target, value)
        elif x.dtype in FLOATS:
            value = _float_to_integer(x, dtype)
        elif dtype == "bfloat16" and source_bits > 16:
            value = _integer_to_bfloat16(x)
        elif dtype in FLOATS:
            value = arith.sitofp(target, x.use())
        else:
            value = arith.extsi(target, x.use()) if target_bits > source_bits else arith.trunci(target, x.use())
    return Expr(value, dtype)


def _register_tile(value, what: str, destination: bool) -> Buffer:
    """`value` as a thread-owned register tile, checked by the rules
    tile.apply's register operands meet (verifyThreadRegisterTile)."""
    if not isinstance(value, Buffer):
        raise TileError(f"ewise: {what} is a register tile (T.alloc_local), got {type(value).__name__}")
    _check_owned(value)
    problem = _tile.check_thread_register_tile(value.value, destination)
    if problem:
        raise TileError(f"ewise: {what}: {problem}")
    if value.dtype not in FLOATS + INTEGERS:
        raise TileError(f"ewise: {what} is {value.dtype}; ewise computes on float and signed "
                        "integer tiles (view unsigned registers as signed ones)")
    return value


def ewise(fn, dst, *inputs):
    """Writes ``fn(*inputs)`` into every register of ``dst``: each input is
    a register tile of ``dst``'s shape, read at the same register, or a
    typed scalar, the same for all. ``fn`` sees ewise values (``Expr``) and
    returns one of ``dst``'s dtype. All operands are thread-owned register
    tiles, and ``dst`` has a register per element, as ``tile.apply``
    requires of its operands at thread scope."""
    builder = _active()
    if not callable(fn):
        raise TileError(f"ewise: the first argument is a function of the inputs, got {type(fn).__name__}")
    dst = _register_tile(dst, "the destination", True)
    tiles = []
    for i, value in enumerate(inputs):
        if isinstance(value, Scalar):
            tiles.append(value)
            continue
        tile = _register_tile(value, f"input {i}", False)
        if tile.shape != dst.shape:
            raise TileError(f"ewise: input {i} has shape {tile.shape}, the destination {dst.shape}; "
                            "they must match")
        tiles.append(tile)
    count = _pymath.prod(dst.shape)
    if count > MAX_ELEMENTS:
        raise TileError(f"ewise: the destination has {count} registers, more than {MAX_ELEMENTS}")
    block = ir.InsertionPoint.current.block
    with _location():
        index = {}
        for n, coords in enumerate(itertools.product(*(range(extent) for extent in dst.shape))):
            before = len(block.operations) if n == 0 else None
            indices = [index.setdefault(c, arith.constant(ir.IndexType.get(), c)) for c in coords]
            args = [Expr(memref.load(t.value, indices), t.dtype) if isinstance(t, Buffer)
                    else Expr(t.materialize(), t.dtype) for t in tiles]
            result = fn(*args)
            result = _lift(result, dst.dtype, "the result")
            if result.dtype != dst.dtype:
                raise TileError(f"ewise: the expression is {result.dtype}, the destination "
                                f"{dst.dtype}; convert with T.cast")
            memref.store(result.use(), dst.value, indices)
            if n == 0:
                # Every register traces the same expression: the first one's
                # operations, times the registers, is the call's cost.
                total = builder.ewise_operations + (len(block.operations) - before) * count
                if total > MAX_OPERATIONS:
                    raise TileError(f"ewise: this kernel's ewise calls would build {total} "
                                    f"operations, more than {MAX_OPERATIONS}; split the tile or "
                                    "the kernel")
                builder.ewise_operations = total


# A Scalar in an ewise expression computes as an ewise value.
def _scalar_operator(name):
    """A Scalar in an ewise expression computes as an ewise value:
    ``T.int32(7) // x``, ``-T.float32(k)``."""
    def method(self, *others):
        return getattr(Expr(self.materialize(), self.dtype), name)(*others)
    method.__name__ = name
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "and", "or", "xor", "lshift",
              "rshift", "pow"):
    setattr(Scalar, f"__{_name}__", _scalar_operator(f"__{_name}__"))
    setattr(Scalar, f"__r{_name}__", _scalar_operator(f"__r{_name}__"))
for _name in ("neg", "pos", "invert", "abs", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(Scalar, f"__{_name}__", _scalar_operator(f"__{_name}__"))
