"""Where each accumulator register sits in its matrix, as objects: the
wgmma D fragment of a warpgroup, from the PTX ISA's fragment tables
(tile_mlir.fragments, the tables the interpreter checks mma.sync against).
Kernels wrote the formula by hand at each use
(``row0 + 16 * warp + lane // 4 + 8 * ((e % 4) // 2)``).

    acc = WgmmaAccumulator(n=256)
    row, col = acc.place(e, warp, lane, row0, col0)   # register e of this thread

A wgmma D of N columns holds N / 2 registers a thread: warp w of the
warpgroup holds rows 16w to 16w + 15, as an m16n8 mma.sync D fragment
holds its 16 rows, one such fragment per block of 8 columns (PTX ISA
9.7.15.5.1, "Matrix fragments for wgmma.mma_async: D").
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import fragments

@dataclass(frozen=True)
class MmaAccumulator:
    """The C/D fragment of an mma.sync spelling (`opcode`): where each of a
    lane's accumulator elements sits, from the PTX ISA's tables
    (fragments.element, which the interpreter multiplies with)."""

    opcode: str

    def __post_init__(self):
        fragments.shape_of(self.opcode)  # refuses what is not an mma.sync

    @property
    def elements(self) -> int:
        """Accumulator elements a lane holds."""
        return fragments.fragment_size(fragments.shape_of(self.opcode), "d")

    def place(self, i: int, lane, row0=0, col0=0):
        """(row, column) of element `i` of `lane` (an int or an index
        expression), offset by (row0, col0)."""
        if not 0 <= i < self.elements:
            raise ValueError(f"a lane holds elements 0 to {self.elements - 1} of {self.opcode}'s D, not {i}")
        row, col = fragments.element(fragments.shape_of(self.opcode), "d", fragments.kinds_of(self.opcode)[0], i,
                                     lane)
        return row0 + row, col0 + col


@dataclass(frozen=True)
class WgmmaAccumulator:
    """The D fragment of a wgmma with `n` columns (64 rows)."""

    n: int

    def __post_init__(self):
        if self.n % 8 or not 8 <= self.n <= 256:
            raise ValueError(f"a wgmma's N is a multiple of 8 from 8 to 256, got {self.n}")

    @property
    def registers(self) -> int:
        """32-bit registers of a thread (f32 or s32 elements)."""
        return self.n // 2

    def place(self, e: int, warp, lane, row0=0, col0=0):
        """(row, column) of register `e` of the thread (`warp` of the
        warpgroup, `lane`: ints or index expressions), offset by (row0,
        col0): the m16n8 D table's element e % 4 in warp `warp`'s 16 rows
        and block e / 4 of 8 columns."""
        if not 0 <= e < self.registers:
            raise ValueError(f"a thread holds registers 0 to {self.registers - 1} of an N={self.n} D, not {e}")
        row, col = fragments.wgmma_d_place(e, warp, lane)
        return row0 + row, col0 + col


def row_swizzle(row_bytes: int):
    """The swizzle (bits, base, shift: ``tile.swizzle(bits=, base=,
    shift=)``) of a shared tile with rows of `row_bytes` (a power of two,
    32 or more) under which the 8 rows one ldmatrix phase reads, at one
    16-byte unit each, fall on 8 distinct 16-byte bank groups, and so do 8
    consecutive 16-byte pieces a phase of cp.async writes: the unit index
    is XORed with the row's position among the rows that share banks. Rows
    of 128 bytes or more (row r at bit log2(row_bytes)) put r % 8 on the 8
    units of a 128-byte line; shorter rows share a line with their
    neighbours, and the row bits above the line's (bit 7) go on the units
    of a row."""
    log = row_bytes.bit_length() - 1
    if row_bytes != 1 << log or log < 5:
        raise ValueError(f"rows of {row_bytes} bytes: a power of two, at least 32")
    return min(3, log - 4), 4, max(3, log - 4)

