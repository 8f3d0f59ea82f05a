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
