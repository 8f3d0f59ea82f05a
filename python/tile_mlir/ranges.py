"""Value ranges of the index expressions the script front end builds, so
that ``T.serial`` counts in 32 bits where its bounds fit, as CUDA's ``int``
loops do, and in 64 bits only where they may not (docs/python.md)."""

from __future__ import annotations

import re
from typing import Dict, Iterable, Optional, Tuple

from mlir import ir

Range = Tuple[int, int]

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
# The largest grid and block CUDA launches, per axis.
_GRID_LIMITS = {"x": INT32_MAX, "y": 65535, "z": 65535}
_BLOCK_LIMITS = {"x": 1024, "y": 1024, "z": 64}


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
    if name == "arith.index_cast":
        # A 32-bit scalar parameter.
        source = op.operands[0].type
        if isinstance(source, ir.IntegerType) and source.width == 32:
            return (INT32_MIN, INT32_MAX)
        return None
    if name == "arith.muli":
        ranges = [value_range(v, grid, block, known) for v in op.operands]
        if None in ranges:
            return None
        products = [a * b for a in ranges[0] for b in ranges[1]]
        return (min(products), max(products))
    return None


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
