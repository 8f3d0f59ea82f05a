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
from typing import NamedTuple, Optional


@dataclass(frozen=True)
class GroupedTiles:
    """Tiles of `tile_m` x `tile_n` elements, `tiles_n` to a row of them,
    in groups of `group_m` tile rows. `tiles_m`, the grid's tile rows,
    where it is not a multiple of `group_m`: the last group has the
    rows left, column by column as the others (without it every group is
    taken as whole, and a grid of a partial last group would be walked
    wrong)."""

    tiles_n: int
    group_m: int
    tile_m: int
    tile_n: int
    tiles_m: Optional[int] = None

    def __post_init__(self):
        for name in ("tiles_n", "group_m", "tile_m", "tile_n", "tiles_m"):
            value = getattr(self, name)
            if name == "tiles_m" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} is a positive integer, got {value!r}")

    def origin(self, tile):
        """(first row, first column) of tile number `tile` in the order."""
        row, col = self.place(tile)
        # Scaled last, so that a runtime origin stays a known multiple of
        # the tile (what an aligned view of it needs proven).
        return row * self.tile_m, col * self.tile_n

    def place(self, tile):
        """(tile row, tile column) of tile number `tile`."""
        # A grid of fewer tile rows than a group is one whole group.
        group_m = min(self.group_m, self.tiles_m or self.group_m)
        whole = self._in_groups(tile, group_m, 0)
        rows_left = (self.tiles_m or 0) % group_m
        if not rows_left:
            return whole
        # The partial last group starts after the whole groups' tiles.
        first_row = self.tiles_m - rows_left
        start = first_row * self.tiles_n
        last = self._in_groups(tile - start, rows_left, first_row)
        if isinstance(tile, int):
            return last if tile >= start else whole
        from .. import script as T
        in_whole = tile < start
        return tuple(T.where(in_whole, w, p) for w, p in zip(whole, last))

    def _in_groups(self, tile, group_m, first_row):
        """(tile row, tile column) of `tile` in groups of `group_m` rows
        from tile row `first_row`."""
        per_group = group_m * self.tiles_n
        in_group = tile % per_group
        return first_row + (tile // per_group) * group_m + in_group % group_m, in_group // group_m


class EitherTiles:
    """The order of `first` where a runtime condition holds when the kernel
    runs, else `second`'s (a kernel of a runtime M: whether its tile rows
    make whole groups is known only then). Both orders are of one tile."""

    def __init__(self, condition, first: GroupedTiles, second: GroupedTiles):
        if (first.tile_m, first.tile_n) != (second.tile_m, second.tile_n):
            raise ValueError(f"the two orders' tiles differ: {first.tile_m} x {first.tile_n} and "
                             f"{second.tile_m} x {second.tile_n}")
        self.condition, self.first, self.second = condition, first, second

    def origin(self, tile):
        """(first row, first column) of tile number `tile`: the places
        chosen, then scaled (a known multiple of the tile, as
        GroupedTiles.origin keeps it)."""
        from .. import script as T
        row, col = (T.where(self.condition, a, b) for a, b in zip(self.first.place(tile), self.second.place(tile)))
        return row * self.first.tile_m, col * self.first.tile_n


class HeadTile(NamedTuple):
    """One query tile of HeadTiles: its first row within its head, its
    head, its key blocks, and the ring's step of its first key block."""

    first_row: object
    head: object
    steps: object
    first_step: object
    split: object = 0  # which of the key sequence's `splits` parts its key blocks are (split-KV)


@dataclass(frozen=True)
class HeadTiles:
    """The query tiles of `heads` heads of `places` tiles of `tile_m` rows,
    each tile's key blocks of `tile_n` keys, dealt to `blocks` persistent
    blocks: block b takes units b, b + blocks, ... Not causal, a unit is
    one tile, of places x tile_m / tile_n key blocks (or `kv_steps`); with
    `splits`, a unit is a tile's part of the keys, `kv_steps` key blocks
    from key block split x kv_steps (flash-decoding's split-KV: a head's
    few query rows spread over blocks), a tile's parts in adjacent units.
    Causal (a tile attends to the keys up to its last row, and
    `extra_steps` key blocks more: the bottom-right diagonal of S_q
    queries over S_k > S_q keys), a unit is a pair of one head's tiles,
    P - 1 - p and p of its P, which see P + 1 (+ 2 extra) tiles' worth of
    key blocks together, so every unit is the same work and the ring's
    step of each tile's first key block has a closed form:

        tiles = HeadTiles(heads=64, places=32, tile_m=128, tile_n=128, causal=True, blocks=132)
        for i in T.serial(0, tiles.count(bid)):
            for h in T.serial(0, 2):                      # tiles.per_unit
                tile = tiles.tile(bid, i, h)              # a HeadTile
    """

    heads: int
    places: int
    tile_m: int
    tile_n: int
    causal: bool
    blocks: int
    kv_steps: Optional[int] = None  # key blocks a tile, when not places x tile_m / tile_n (not causal)
    extra_steps: int = 0  # causal: key blocks each tile sees past its own rows' diagonal
    splits: int = 1  # not causal: parts of the keys, kv_steps key blocks each

    def __post_init__(self):
        if self.splits < 1 or (self.splits > 1 and (self.causal or self.kv_steps is None)):
            raise ValueError(f"{self.splits} splits of the keys: splits take tiles not causal, of kv_steps "
                             "key blocks a part")
        if self.causal and self.kv_steps is not None:
            raise ValueError("a causal tile's key blocks follow its rows: kv_steps takes no causal tiles")
        if self.extra_steps and not self.causal:
            raise ValueError("extra_steps moves the causal diagonal: it takes causal tiles only")
        if self.causal and self.places % 2:
            raise ValueError(f"causal pairs a head's tiles: {self.places} tiles is an odd number")
        if self.tile_m % self.tile_n:
            raise ValueError(f"a tile of {self.tile_m} rows is not whole key blocks of {self.tile_n}")

    @property
    def units(self) -> int:
        return self.heads * self.places // 2 if self.causal else self.heads * self.places * self.splits

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

    def tile(self, bid, i, h=0) -> HeadTile:
        """Tile h of block bid's unit i."""
        unit, per_tile = bid + i * self.grid, self.tile_m // self.tile_n
        if not self.causal:
            tile, split = (unit // self.splits, unit % self.splits) if self.splits > 1 else (unit, 0)
            head, place = tile // self.places, tile % self.places
            steps = self.places * per_tile if self.kv_steps is None else self.kv_steps
            return HeadTile(place * self.tile_m, head, steps, i * steps, split)
        head, p = unit // (self.places // 2), unit % (self.places // 2)
        place = (self.places - 1 - p) + h * (2 * p + 1 - self.places)
        extra = self.extra_steps
        first = i * ((self.places + 1) * per_tile + 2 * extra) + h * ((self.places - p) * per_tile + extra)
        return HeadTile(place * self.tile_m, head, (place + 1) * per_tile + extra, first)


@dataclass(frozen=True)
class StreamKShares:
    """Stream-K's split of a persistent kernel's last wave: of `tiles`
    tiles of `steps` steps of K each over `blocks` blocks, the whole waves
    go a tile a block, and the tiles past them (`tiles % blocks`, the
    shared tiles) by steps: block b takes steps [b S / P, (b + 1) S / P) of
    their S steps in order (P blocks), so every block runs about the same
    number of steps. A tile whose steps several blocks share is finished by
    the block whose share holds its step 0, after adding the others'
    partials (they arrive later in their shares):

        split = StreamKShares(tiles=512, steps=64, blocks=132)
        for i in T.serial(split.first_shared_tile(bid), split.end_shared_tile(bid)):
            begin, end = split.segment(bid, i)          # its steps of shared tile i
            ...                                         # fixup if begin == 0, else a partial

    Tried in the Hopper GEMM and slower there (bench/README.md: partials
    through L2 and the fixup's fences cost more than the idle SMs); kept as
    a part for a kernel whose last wave is long."""

    tiles: int
    steps: int
    blocks: int

    def __post_init__(self):
        for name in ("tiles", "steps", "blocks"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} is a positive integer, got {getattr(self, name)!r}")

    @property
    def shared_tiles(self) -> int:
        """The tiles past the whole waves (none when fewer steps than
        blocks: a block without a step would never report its partial)."""
        shared = self.tiles % self.blocks
        return shared if shared * self.steps >= self.blocks else 0

    @property
    def whole_tiles(self) -> int:
        return self.tiles - self.shared_tiles

    def share(self, block):
        """[begin, end) of block `block`'s steps of the shared tiles' S."""
        total = self.shared_tiles * self.steps
        return block * total // self.blocks, (block + 1) * total // self.blocks

    def first_shared_tile(self, block):
        return self.share(block)[0] // self.steps

    def end_shared_tile(self, block):
        return (self.share(block)[1] + self.steps - 1) // self.steps

    def segment(self, block, i):
        """[begin, end) of shared tile i's steps in block `block`'s share."""
        begin, end = self.share(block)
        if isinstance(begin, int):
            return max(begin - i * self.steps, 0), min(end - i * self.steps, self.steps)
        from .. import script as T
        return T.maximum(begin - i * self.steps, 0), T.minimum(end - i * self.steps, self.steps)

    def contributors(self, i):
        """The blocks whose shares hold steps of shared tile i, in order:
        the first finishes the tile."""
        total = self.shared_tiles * self.steps
        first = i * self.steps * self.blocks // total
        last = ((i + 1) * self.steps * self.blocks + total - 1) // total
        return range(first, last)
