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


@dataclass(frozen=True)
class HeadTiles:
    """The query tiles of `heads` heads of `places` tiles of `tile_m` rows,
    each tile's key blocks of `tile_n` keys, dealt to `blocks` persistent
    blocks: block b takes units b, b + blocks, ... Not causal, a unit is
    one tile, of places x tile_m / tile_n key blocks. Causal (a tile
    attends to the keys up to its last row), a unit is a pair of one
    head's tiles, P - 1 - p and p of its P, which see P + 1 tiles' worth of
    key blocks together, so every unit is the same work and the ring's
    step of each tile's first key block has a closed form:

        tiles = HeadTiles(heads=64, places=32, tile_m=128, tile_n=128, causal=True, blocks=132)
        for i in T.serial(0, tiles.count(bid)):
            for h in T.serial(0, 2):                      # tiles.per_unit
                tile = tiles.tile(bid, i, h)              # first_row, head_row, steps, first_step
    """

    heads: int
    places: int
    tile_m: int
    tile_n: int
    causal: bool
    blocks: int

    def __post_init__(self):
        if self.causal and self.places % 2:
            raise ValueError(f"causal pairs a head's tiles: {self.places} tiles is an odd number")
        if self.tile_m % self.tile_n:
            raise ValueError(f"a tile of {self.tile_m} rows is not whole key blocks of {self.tile_n}")

    @property
    def units(self) -> int:
        return self.heads * self.places // 2 if self.causal else self.heads * self.places

    @property
    def per_unit(self) -> int:
        return 2 if self.causal else 1

    @property
    def grid(self) -> int:
        """The blocks launched: at most one a unit."""
        return min(self.blocks, self.units)

    def count(self, bid):
        """Block `bid`'s units."""
        return (self.units - bid + self.grid - 1) // self.grid

    def tile(self, bid, i, h=0):
        """Tile h of block bid's unit i: (its first row within its head,
        its head's first row, its key blocks, the ring's step of its first
        key block)."""
        unit, per_tile = bid + i * self.grid, self.tile_m // self.tile_n
        seq = self.places * self.tile_m
        if not self.causal:
            head, place = unit // self.places, unit % self.places
            return place * self.tile_m, head * seq, self.places * per_tile, i * (self.places * per_tile)
        head, p = unit // (self.places // 2), unit % (self.places // 2)
        place = (self.places - 1 - p) + h * (2 * p + 1 - self.places)
        first = (i * (self.places + 1) + h * (self.places - p)) * per_tile
        return place * self.tile_m, head * seq, (place + 1) * per_tile, first
