"""Value ranges of the index expressions the script front end builds, so
that ``T.serial`` counts in 32 bits where its bounds fit, as CUDA's ``int``
loops do, and in 64 bits only where they may not (docs/python.md)."""

from __future__ import annotations

import re
from typing import Dict, Iterable, Optional, Tuple

from mlir import ir

Range = Tuple[int, int]

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
# The largest grid and block CUDA launches, per axis.
_GRID_LIMITS = {"x": INT32_MAX, "y": 65535, "z": 65535}
_BLOCK_LIMITS = {"x": 1024, "y": 1024, "z": 64}
# The most shared memory any target gives a block (227 KiB: sm_90, sm_100).
_MAX_SHARED_PER_BLOCK = 227 * 1024


def _axis(op) -> Optional[str]:
    match = re.search(r"dim ([xyz])", str(op.attributes["dimension"]))
    return match.group(1) if match else None


def value_range(value: ir.Value, grid, block, known: Dict[ir.Value, Range]) -> Optional[Range]:
    """The values ``value`` may take when the kernel runs, or None when
    unknown. ``grid`` and ``block`` are the launch's (x, y, z), ``grid``
    None when each launch chooses it; ``known`` holds the ranges of loop
    counters."""
    if value in known:
        return known[value]
    if not isinstance(value, ir.OpResult):
        return None
    op = value.owner
    name = op.name
    if name in ("gpu.thread_id", "gpu.block_dim", "gpu.block_id", "gpu.grid_dim"):
        axis = _axis(op)
        if axis is None:
            return None
        index = "xyz".index(axis)
        if name == "gpu.thread_id":
            return (0, (block[index] if block else _BLOCK_LIMITS[axis]) - 1)
        if name == "gpu.block_dim":
            return (block[index],) * 2 if block else (1, _BLOCK_LIMITS[axis])
        if name == "gpu.block_id":
            return (0, (grid[index] if grid else _GRID_LIMITS[axis]) - 1)
        return (grid[index],) * 2 if grid else (1, _GRID_LIMITS[axis])
    if name == "gpu.lane_id":
        return (0, 31)
    if name == "arith.index_castui":
        # An unsigned 32-bit special register (%warpid, %smid), or the
        # dynamic shared bytes, at most what any target gives a block.
        source = op.operands[0]
        if isinstance(source, ir.OpResult) and source.owner.name == "nvvm.read.ptx.sreg.dynamic.smem.size":
            return (0, _MAX_SHARED_PER_BLOCK)
        if isinstance(source.type, ir.IntegerType) and source.type.width == 32:
            return (0, (1 << 32) - 1)
        return None
    if name == "arith.index_cast":
        # A 32-bit scalar parameter.
        source = op.operands[0].type
        if isinstance(source, ir.IntegerType) and source.width == 32:
            return (INT32_MIN, INT32_MAX)
        return None
    if name == "arith.constant":
        if isinstance(value.type, ir.IndexType):
            number = ir.IntegerAttr(op.attributes["value"]).value
            return (number, number)
        return None
    if name == "arith.select":
        # Either arm: the union of their ranges.
        arms = [value_range(v, grid, block, known) for v in op.operands[1:]]
        if None in arms:
            return None
        return (min(a[0] for a in arms), max(a[1] for a in arms))
    if name not in _BINARY:
        return None
    ranges = [value_range(v, grid, block, known) for v in op.operands]
    if None in ranges:
        return None
    found = _BINARY[name](*ranges)
    # A result past int64 wrapped when the kernel ran: its range is unknown.
    if found is None or found[0] < INT64_MIN or found[1] > INT64_MAX:
        return None
    return found


def _ends(fn):
    """The range of a binary operation that is monotonic in each operand on
    the ranges where it is applied: the extremes of its four corners."""
    def combine(a: Range, b: Range) -> Range:
        corners = [fn(x, y) for x in a for y in b]
        return (min(corners), max(corners))
    return combine


def _divide(a: Range, b: Range) -> Optional[Range]:
    if b[0] < 1 and b[1] > -1:
        return None  # a divisor that may be 0: the front end never divides so
    return _ends(lambda x, y: x // y)(a, b)


def _remainder(a: Range, b: Range) -> Optional[Range]:
    if a[0] < 0 or b[0] < 1:
        return None
    return (0, min(a[1], b[1] - 1))


def _mask(a: Range, b: Range) -> Optional[Range]:
    # x & m with one side non-negative lies in [0, that side's maximum].
    highs = [r[1] for r in (a, b) if r[0] >= 0]
    return (0, min(highs)) if highs else None


def _bits(a: Range, b: Range) -> Optional[Range]:
    # x | y and x ^ y of non-negative values stay below the next power of
    # two of the larger.
    if a[0] < 0 or b[0] < 0:
        return None
    return (0, (1 << max(a[1], b[1]).bit_length()) - 1)


_BINARY = {
    "arith.ori": _bits,
    "arith.xori": _bits,
    "arith.addi": _ends(lambda x, y: x + y),
    "arith.subi": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "arith.muli": _ends(lambda x, y: x * y),
    "arith.divui": _divide,
    "arith.floordivsi": _divide,
    "arith.remui": _remainder,
    "arith.andi": _mask,
    "arith.minsi": _ends(min),
    "arith.maxsi": _ends(max),
}


def expression_range(terms: Iterable[Tuple[ir.Value, int]], const: int, grid, block,
                     known: Dict[ir.Value, Range]) -> Optional[Range]:
    """The range of ``const + sum(coeff * value)``, or None."""
    low = high = const
    for value, coeff in terms:
        found = value_range(value, grid, block, known)
        if found is None:
            return None
        ends = (coeff * found[0], coeff * found[1])
        low, high = low + min(ends), high + max(ends)
    return (low, high)
