"""Which tile of the output a block (or a persistent block's i-th turn)
computes. ``GroupedTiles`` orders the tiles of an M x N grid of tiles in
groups of `group_m` tile rows, column by column within a group, so that
blocks running at once share rows of A and columns of B in L2 (the
grouped rasterization of Triton's tutorials and CUTLASS's swizzle):

    tiles = GroupedTiles(tiles_n=16, group_m=8, tile_m=128, tile_n=256)
    row0, col0 = tiles.origin(tile)        # tile: an int or an index

A persistent kernel walks tiles bid, bid + blocks, ... (``T.serial(bid,
count, blocks)``) and asks each one's origin.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GroupedTiles:
    """Tiles of `tile_m` x `tile_n` elements, `tiles_n` to a row of them,
    in groups of `group_m` tile rows."""

    tiles_n: int
    group_m: int
    tile_m: int
    tile_n: int

    def __post_init__(self):
        for name in ("tiles_n", "group_m", "tile_m", "tile_n"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} is a positive integer, got {value!r}")

    def origin(self, tile):
        """(first row, first column) of tile number `tile` in the order."""
        per_group = self.group_m * self.tiles_n
        in_group = tile % per_group
        row0 = ((tile // per_group) * self.group_m + in_group % self.group_m) * self.tile_m
        return row0, (in_group // self.group_m) * self.tile_n
