"""T.ewise's operations on register values (MLIR's arith and math dialects;
the index arithmetic of addresses is machine.py's), as the NVPTX back end
lowers them for sm_90 and the PTX ISA defines what those compute. Integers
shift (shl, shr: past the width, 0 or the sign, though T.ewise keeps its
shifts inside it), extend, truncate and bit-cast as LLVM defines. Floats: arith.addf, subf and mulf are add.rn, sub.rn and
mul.rn; divf is div.rn (f16 and bf16 through f32, as the back end
promotes them; the double rounding is innocuous); maximumf and minimumf
propagate NaN, maxnumf and minnumf return the number; extf, truncf and
the int-float conversions are cvt (rn; fptosi and fptoui truncate, NaN to
0, saturating); math.fma is fma.rn; cmpf is setp. They are exact, bit for
bit. math's functions (exp, log, sqrt, tanh, ...) run as their correctly
rounded result (`APPROXIMATED`: the GPU's libdevice result differs within
its bound; the interpreter says so)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from . import reference as R

WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
INTEGERS = {"i8": "s8", "i16": "s16", "i32": "s32", "i64": "s64"}

# A PTX form computing each exact op: its family and spelling.
_FORMS = {"addf": ("add", "add.rn.{0}"), "subf": ("sub", "sub.rn.{0}"), "mulf": ("mul", "mul.rn.{0}"),
          "negf": ("neg", "neg.{0}"), "maxnumf": ("max", "max.{0}"), "minnumf": ("min", "min.{0}"),
          "maximumf": ("max", "max.NaN.{0}"), "minimumf": ("min", "min.NaN.{0}"), "fma": ("fma", "fma.rn.{0}")}

APPROXIMATED = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
                "rsqrt": lambda x: 1.0 / np.sqrt(x), "tanh": np.tanh, "sin": np.sin, "cos": np.cos,
                "erf": np.vectorize(math.erf, otypes=[np.float64])}

# arith.cmpf's predicates (MLIR's CmpFPredicate), by number: (ordered
# comparison or None, true where unordered).
_COMPARE = {0: (None, False), 1: (np.equal, False), 2: (np.greater, False), 3: (np.greater_equal, False),
            4: (np.less, False), 5: (np.less_equal, False), 6: (np.not_equal, False), 7: ("ord", False),
            8: (np.equal, True), 9: (np.greater, True), 10: (np.greater_equal, True), 11: (np.less, True),
            12: (np.less_equal, True), 13: (np.not_equal, True), 14: ("uno", True), 15: (None, True)}


_FLOAT_OPS = ("divf", "extf", "truncf", "cmpf", "sitofp", "uitofp", "fptosi", "fptoui")
_INTEGER_OPS = ("shli", "shrsi", "shrui", "extsi", "extui", "trunci", "bitcast")


def handles(name: str) -> bool:
    dialect, _, op = name.partition(".")
    return (dialect == "arith" and (op in _FORMS or op in _FLOAT_OPS or op in _INTEGER_OPS) or
            dialect == "math" and (op in APPROXIMATED or op in ("absf", "fma")))


def width_of(type_name: str) -> int:
    return WIDTH.get(type_name) or int(type_name[1:])


def evaluate(name: str, result_type: str, operand_types, operands, predicate=None):
    """(result bits, approximated) of op `name` on `operands` (bits
    arrays) of `operand_types` ("f32", "i32", ...); cmpf's result is a bool
    array."""
    op = name.partition(".")[2]
    kind = operand_types[0]
    if op in _INTEGER_OPS:
        return _integer(op, width_of(result_type), [width_of(t) for t in operand_types], operands), False
    if op in _FORMS and kind in WIDTH and not (op in ("maximumf", "minimumf") and kind == "f64"):
        family, spelling = _FORMS[op]
        return _ptx(family, spelling.format(kind), operands), False
    if op in ("maximumf", "minimumf"):  # f64 has no max.NaN: NaN first, then the number's max
        values = [R.decode(x, kind) for x in operands]
        with np.errstate(invalid="ignore"):
            out = (np.maximum if op == "maximumf" else np.minimum)(*values)
        return R.encode(out, kind), False
    if op == "divf":
        return _divide(kind, operands), False
    if op == "absf":
        return operands[0] & np.uint64((1 << (WIDTH[kind] - 1)) - 1), False
    if op == "cmpf":
        return _compare(kind, operands, predicate), False
    if op in ("extf", "truncf", "sitofp", "uitofp", "fptosi", "fptoui"):
        return _convert(op, result_type, kind, operands[0]), False
    with np.errstate(all="ignore"):
        exact = APPROXIMATED[op](R.decode(operands[0], kind))
    return R.encode(R.round_to(exact, 0.0, kind, "rn"), kind), True


def _integer(op, width, widths, operands):
    """An integer op of register bits: the result's bits (of `width`)."""
    bits = operands[0] & _mask(widths[0])
    value = signed(bits, widths[0])
    if op in ("bitcast", "trunci", "extui"):
        return bits & _mask(width)
    if op == "extsi":
        return value.astype(np.uint64) & _mask(width)
    shift = np.minimum(signed(operands[1], widths[1]).astype(np.int64), 64)
    if op == "shli":
        return np.where(shift < width, bits << np.minimum(shift, 63).astype(np.uint64), 0) & _mask(width)
    if op == "shrui":
        return np.where(shift < width, bits >> np.minimum(shift, 63).astype(np.uint64), 0)
    return (value >> np.minimum(shift, 63)).astype(np.uint64) & _mask(width)  # shrsi: the sign fills


def _mask(width):
    return np.uint64((1 << width) - 1) if width < 64 else np.uint64(2**64 - 1)


def signed(bits, width):
    """Integer bits of `width` as signed int64 values (two's complement)."""
    values = np.asarray(bits).astype(np.uint64).astype(np.int64)
    if width < 64:
        values = values & ((1 << width) - 1)
        values = np.where(values >= 1 << (width - 1), values - (1 << width), values)
    return values


def _ptx(family, opcode, operands):
    return R.reference(SimpleNamespace(opcode=opcode, family=family), [np.asarray(x) for x in operands])


def _divide(kind, operands):
    if kind in ("f32", "f64"):
        return _ptx("div", f"div.rn.{kind}", operands)
    wide = [_ptx("cvt", f"cvt.f32.{kind}", [x]) for x in operands]
    return _ptx("cvt", f"cvt.rn.{kind}.f32", [_ptx("div", "div.rn.f32", wide)])


def _compare(kind, operands, predicate):
    a, b = (R.decode(x, kind) for x in operands)
    compare, unordered_true = _COMPARE[predicate]
    unordered = np.isnan(a) | np.isnan(b)
    if compare is None:
        return np.full(a.shape, unordered_true)
    if compare == "ord":
        return ~unordered
    if compare == "uno":
        return unordered
    with np.errstate(invalid="ignore"):
        return np.where(unordered, unordered_true, compare(a, b))


def _convert(op, result_type, kind, bits):
    if op == "extf":
        return _ptx("cvt", f"cvt.{result_type}.{kind}", [bits])
    if op == "truncf":
        return _ptx("cvt", f"cvt.rn.{result_type}.{kind}", [bits])
    if op in ("sitofp", "uitofp"):
        source = INTEGERS[kind] if op == "sitofp" else "u" + INTEGERS[kind][1:]
        return _ptx("cvt", f"cvt.rn.{result_type}.{source}", [bits])
    target = INTEGERS[result_type] if op == "fptosi" else "u" + INTEGERS[result_type][1:]
    return _ptx("cvt", f"cvt.rzi.{target}.{kind}", [bits])
