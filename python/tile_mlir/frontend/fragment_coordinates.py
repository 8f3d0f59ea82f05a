"""Where each register of an mma fragment sits in its matrix, as index
values of the kernel: the PTX ISA's tables (tile_mlir.fragments) evaluated
at this thread's lane, so a kernel can load fragments from global memory
without ldmatrix, or store D where it belongs."""

from __future__ import annotations

from typing import Tuple

from .. import fragments
from .kernel import lane_id
from .tracing import TileError
from .values import Index


def mma_coordinates(opcode: str, operand: str, element: int) -> Tuple[Index, Index]:
    """(row, column) of element `element` of this lane's fragment of
    `operand` ("a", "b", "c" or "d") of the mma spelled `opcode`: A is M x K,
    B is K x N (row k, column n), C and D are M x N. Elements are numbered
    register by register, a register's from its low bits up
    (docs/families/mma.md)."""
    try:
        shape = fragments.shape_of(opcode)
    except ValueError as why:
        raise TileError(f"mma_coordinates: {why}") from None
    try:
        d, a, b, c = fragments.kinds_of(opcode)
        kind = {"a": a, "b": b, "c": c, "d": d}[operand]
        size = fragments.fragment_size(shape, operand)
    except KeyError:
        raise TileError(f"mma_coordinates: {opcode!r} has no operand {operand!r} (one of 'a', 'b', 'c', "
                        "'d')") from None
    if not 0 <= element < size:
        raise TileError(f"mma_coordinates: {operand} of {opcode} holds {size} elements per lane, "
                        f"not element {element}")
    return fragments.element(shape, operand, kind, element, lane_id())
