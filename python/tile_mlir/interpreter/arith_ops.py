"""The interpreter's handlers of MLIR's arith ops, by op name (HANDLERS):
index arithmetic of the front end's index expressions (one int64 per
thread), register integers of T.ewise as (bits, width), wrapped to their
width, constants, comparisons and selects; T.ewise's float operations
through ewise_ops.py."""

import numpy as np

from . import ewise_ops as F
from .memory import mask_bits
from .reference import MemoryFault, NotCovered


def ir_int(attr) -> int:
    """An integer attribute's value."""
    from mlir import ir
    return ir.IntegerAttr(attr).value


def constant_op(interp, op):
    from mlir import ir
    attr = op.attributes["value"]
    result = op.results[0]
    if isinstance(result.type, ir.IndexType):
        # Every thread's one value, as a read-only view of it (no array a
        # thread: index arithmetic makes new arrays, nothing writes one).
        interp.values[result] = np.broadcast_to(np.int64(ir.IntegerAttr(attr).value), (interp.threads,))
    elif isinstance(result.type, ir.IntegerType):
        width = ir.IntegerType(result.type).width
        bits = ir.IntegerAttr(attr).value & ((1 << width) - 1)
        if width == 1:
            interp.values[result] = np.full(interp.threads, bool(bits))
        else:
            interp.values[result] = (np.full(interp.threads, bits, np.uint64), width)
    elif str(attr).startswith("0x"):
        # A float constant written as bits (a NaN with its payload).
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[str(result.type)]
        interp.values[result] = (np.full(interp.threads, int(str(attr).split()[0], 16), np.uint64), width)
    else:
        number = ir.FloatAttr(attr).value
        kind = str(result.type)
        encoded = {"f16": lambda v: int(np.float16(v).view(np.uint16)),
                   "f32": lambda v: int(np.float32(v).view(np.uint32)),
                   "f64": lambda v: int(np.float64(v).view(np.uint64)),
                   "bf16": lambda v: int(np.float32(v).view(np.uint32)) >> 16}[kind](number)
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[kind]
        interp.values[result] = (np.full(interp.threads, encoded, np.uint64), width)


def float_op(interp, op):
    """T.ewise's operations on register values (ewise_ops.py); an
    approximated function is noted for the warning."""
    name = op.name
    operands = [interp.values[v] for v in op.operands]
    bits = [np.asarray(v[0] if isinstance(v, tuple) else v).astype(np.uint64) for v in operands]
    predicate = None
    if name == "arith.cmpf":
        text = str(op.attributes["predicate"])
        predicate = int(text.split(":")[0]) if ":" in text else int(text)
    result_type = str(op.results[0].type)
    result, approximated = F.evaluate(name, result_type, [str(v.type) for v in op.operands], bits, predicate)
    if name == "arith.cmpf":
        interp.values[op.results[0]] = np.asarray(result, bool)
    else:
        interp.values[op.results[0]] = (np.asarray(result).astype(np.uint64), F.width_of(result_type))
    if approximated:
        interp.approximated.setdefault(name, interp.points[interp.point])


def binary(interp, op, fn):
    a, b = interp.values[op.operands[0]], interp.values[op.operands[1]]
    interp.values[op.results[0]] = integer(fn(signed(a), signed(b)), a, b)


def integer(result, *operands):
    """An index result as it is; one of register integers (bits,
    width), as T.ewise's arithmetic gives, wrapped to their width."""
    width = next((v[1] for v in operands if isinstance(v, tuple)), None)
    if width is None:
        return result
    return np.asarray(result).astype(np.int64).astype(np.uint64) & mask_bits(width), width


def addi_op(interp, op):
    binary(interp, op, lambda a, b: a + b)


def subi_op(interp, op):
    binary(interp, op, lambda a, b: a - b)


def muli_op(interp, op):
    binary(interp, op, lambda a, b: a * b)


def andi_op(interp, op):
    binary(interp, op, lambda a, b: a & b)


def ori_op(interp, op):
    binary(interp, op, lambda a, b: a | b)


def xori_op(interp, op):
    binary(interp, op, lambda a, b: a ^ b)


def signed(value):
    """An index array as it is; an integer's bits as signed int64."""
    if isinstance(value, tuple):
        return F.signed(*value)
    return value


def cast_index(interp, op, from_signed):
    # index -> iN truncates to N bits; iN -> index extends (signed or
    # not). T.serial's 32-bit counters and T.uint32(t) both pass here.
    from mlir import ir
    source, result = interp.values[op.operands[0]], op.results[0]
    if isinstance(result.type, ir.IntegerType):
        width = ir.IntegerType(result.type).width
        interp.values[result] = (signed(source).astype(np.uint64) & mask_bits(width), width)
    elif from_signed or not isinstance(source, tuple):
        # (A register's bits loaded by memref.load are an array of its
        # width's values, unsigned: as_index's index_castui.)
        interp.values[result] = np.asarray(signed(source)).astype(np.int64)
    else:
        interp.values[result] = source[0].astype(np.int64)


def index_cast_op(interp, op):
    cast_index(interp, op, True)


def index_castui_op(interp, op):
    cast_index(interp, op, False)


def index_binary(interp, op, fn):
    operands = [interp.values[v] for v in op.operands]
    a, b = (signed(v) for v in operands)
    interp.values[op.results[0]] = integer(fn(a, b), *operands)


# Index division and shifts of the front end's index expressions (only
# on index values, 64 bits): Python's // on int64 arrays is floor
# division; the unsigned forms are used on values proven >= 0.
def floordivsi_op(interp, op):
    index_binary(interp, op, lambda a, b: a // b)


def divui_op(interp, op):
    index_binary(interp, op, lambda a, b: (a.astype(np.uint64) // b.astype(np.uint64)).astype(np.int64))


def remui_op(interp, op):
    index_binary(interp, op, lambda a, b: (a.astype(np.uint64) % b.astype(np.uint64)).astype(np.int64))


def maxsi_op(interp, op):
    binary(interp, op, np.maximum)


def minui_op(interp, op):
    """An index clamped from above; Buffer.as_index(mode="check") marks
    the clamp of a value read from data, whose out-of-range values are
    reported at their line (the GPU reads the clamped element)."""
    a, b = (signed(interp.values[v]) for v in op.operands)
    if "tile.checked_index" in op.attributes:
        bound = ir_int(op.attributes["tile.checked_index"])
        outside = interp.active & ((a < 0) | (a >= bound))
        if outside.any():
            flat = int(np.flatnonzero(outside)[0])
            thread = ", ".join(str(int(ids[flat])) for ids in interp.tid)
            block = ", ".join(str(int(ids[flat])) for ids in interp.bid)
            trim = lambda text: text[:-6] if text.endswith(", 0, 0") else text  # noqa: E731
            raise MemoryFault(f"{interp.points[interp.point]}: thread ({trim(thread)}) of block ({trim(block)}) "
                              f"reads the value {int(a[flat])} "
                              f"as an index of an axis of {bound}: out of bounds (as_index checks it; a GPU "
                              f"reads element {bound - 1})")
    interp.values[op.results[0]] = np.minimum(a.astype(np.uint64), b.astype(np.uint64)).astype(np.int64)


def minsi_op(interp, op):
    binary(interp, op, np.minimum)


def select_op(interp, op):
    """An index select (T.where of a Bool): per thread."""
    cond, a, b = (interp.values[v] for v in op.operands)
    if isinstance(a, tuple):  # register bits of a float (or integer) ewise value: (bits, width)
        a_bits, b_bits = (np.asarray(x[0] if isinstance(x, tuple) else x) for x in (a, b))
        interp.values[op.results[0]] = (np.where(np.asarray(cond, bool), a_bits, b_bits), a[1])
        return
    interp.values[op.results[0]] = np.where(np.asarray(cond, bool), a, b)


def cmpi_op(interp, op):
    predicate = str(op.attributes["predicate"])
    number = int(predicate.split(":")[0]) if ":" in predicate else int(predicate)
    compare = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
               5: np.greater_equal}
    unsigned = {6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}
    if number in unsigned:
        a, b = (signed(interp.values[v]).astype(np.uint64) for v in op.operands)
        interp.values[op.results[0]] = unsigned[number](a, b)
        return
    if number not in compare:
        raise NotCovered(f"arith.cmpi predicate {number}")
    a, b = (signed(interp.values[v]) for v in op.operands)
    interp.values[op.results[0]] = compare[number](a, b)



# Each arith op by name; T.ewise's float operations (ewise_ops.handles) go
# to float_op.
HANDLERS = {
    "arith.constant": constant_op,
    "arith.addi": addi_op,
    "arith.subi": subi_op,
    "arith.muli": muli_op,
    "arith.andi": andi_op,
    "arith.ori": ori_op,
    "arith.xori": xori_op,
    "arith.index_cast": index_cast_op,
    "arith.index_castui": index_castui_op,
    "arith.floordivsi": floordivsi_op,
    "arith.divui": divui_op,
    "arith.remui": remui_op,
    "arith.maxsi": maxsi_op,
    "arith.minui": minui_op,
    "arith.minsi": minsi_op,
    "arith.select": select_op,
    "arith.cmpi": cmpi_op,
}
