"""Reductions across threads, one instruction at a time as a kernel writes
them: the butterfly of a warp (shfl.sync.bfly), and a block's reduction
through shared memory (each warp's lane 0 stores its partial, a bar.sync,
then every thread combines the partials in warp order, so every thread
gets the same bits).

    partner = T.alloc_local((1, 1), "float32")
    butterfly(total, "add.rn.f32", partner)              # 16, 8, 4, 2, 1
    butterfly(row_max, "max.f32", partner, lanes=4)      # a quad: 2, 1
    block_reduce(total, partials, t, "add.rn.f32")       # partials: (warps,) f32 shared

The order of a float reduction is the one written here (the butterfly's
offsets from the widest down, the partials from warp 0 up), which the
interpreter reproduces bit for bit.
"""

from __future__ import annotations

from .. import script as T

FULL = 0xFFFFFFFF


def butterfly(value, opcode: str, partner, lanes: int = 32, offsets=None) -> None:
    """`value` (a (1, 1) 32-bit tile) becomes `opcode` over each group of
    `lanes` lanes (a power of two, 2 to 32) of the warp: shfl.sync.bfly by
    lanes / 2 down to 1 (or the `offsets` given, in order), `partner`
    receiving the other lane's value. Every lane of the warp takes part."""
    if lanes not in (2, 4, 8, 16, 32):
        raise ValueError(f"a butterfly spans 2, 4, 8, 16 or 32 lanes, got {lanes}")
    for offset in offsets or [lanes >> k for k in range(1, lanes.bit_length())]:
        T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], partner.view("uint32"), value.view("uint32"),
                          T.uint32(offset), T.uint32(31), T.uint32(FULL))
        T.cuda.tile.apply(T.ptx[opcode], value, value, partner)


def block_reduce(value, partials, t, opcode: str, partner=None) -> None:
    """`value` (1, 1) f32 becomes the block's `opcode` reduction in every
    thread: the warp's butterfly, lane 0's result to partials[warp] (a
    shared f32 buffer of one element per warp, a multiple of 4), bar.sync,
    then the partials read four at a time and combined from warp 0 up."""
    warps = partials.shape[0]
    if warps % 4:
        raise ValueError(f"the partials are read four at a time: {warps} warps is not a multiple of 4")
    butterfly(value, opcode, partner if partner is not None else T.alloc_local((1, 1), "float32"))
    warp, lane = t // 32, t % 32
    T.cuda.tile.apply(T.ptx["st.shared.f32"], partials[warp:warp + 1], value, pred=lane == 0)
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    every = T.alloc_local((warps // 4, 4), "float32")
    T.cuda.tile.apply(T.ptx["ld.shared.v4.f32"], every, partials.reshape((warps // 4, 4)))
    flat = every.reshape((warps, 1))
    T.cuda.tile.apply(T.ptx["mov.b32"], value.view("uint32"), flat[0:1].view("uint32"))
    for w in range(1, warps):
        T.cuda.tile.apply(T.ptx[opcode], value, value, flat[w:w + 1])
