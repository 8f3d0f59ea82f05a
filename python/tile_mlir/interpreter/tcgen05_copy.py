"""tcgen05.cp (PTX ISA 9.7.16.8.7) for the interpreter, with cta_group::1:
shared memory, through its matrix descriptor, into tensor memory.

- One thread issues it (it is not .sync.aligned): each executing thread
  issues its own copy. The source is a rows x words matrix of 32-bit words
  (the shape's `rows x bits`: 128x256b, 4x256b and 128x128b, 64x128b with
  .warpx2, 32x128b with .warpx4), read K-major through the descriptor as
  tcgen05.mma reads its operands (wgmma.operand_matrix).
- Row r lands at the address's lane plus r (4x256b: 32 r, a row a lane
  quadrant; .warpx2::01_23: r / 32 64 + r % 32) and, with a multicast, at
  the copies the seed system's tmem_copy names: .warpx4 32, 64 and 96
  lanes further, .warpx2::02_13 64 further, .warpx2::01_23 32 further;
  its words in the columns from the address's on, which must be a
  multiple of 4 (128 bits) and lie in one allocation of the block.
- Asynchrony as tcgen05.mma's (tcgen05_mma.py): the words are written at
  once for the interpreter, but they are the copy's until a wait sees the
  phase of an mbarrier that a later tcgen05.commit of the issuing thread
  arrives on (a tcgen05.ld or st of them before is a hazard), and so are
  the shared bytes it reads (a write of them before is a hazard). A copy
  never committed is reported when the kernel ends.

Refused (NotCovered, at the line): cta_group::2, and the decompressing
copies (.b8x16.b6x16_p32, .b8x16.b4x16_p64).
"""

import numpy as np

from . import tcgen05_mma as TMMA
from . import tensor_memory as TM
from . import wgmma as W
from .reference import NotCovered

SHAPES = {"128x256b": (128, 8), "4x256b": (4, 8), "128x128b": (128, 4), "64x128b": (64, 4), "32x128b": (32, 4)}
COPIES = {"": (0,), "warpx4": (0, 32, 64, 96), "warpx2::02_13": (0, 64), "warpx2::01_23": (0, 32)}


def lanes(shape: str, multicast: str) -> np.ndarray:
    """The lanes (from the address's) of each source row: rows x copies."""
    rows = np.arange(SHAPES[shape][0])
    if shape == "4x256b":
        first = 32 * rows
    elif multicast == "warpx2::01_23":
        first = rows // 32 * 64 + rows % 32
    else:
        first = rows
    return first[:, None] + np.array(COPIES[multicast])[None, :]


def copy(interp, apply):
    """One tcgen05.cp tile.apply: each executing thread's copy, each repeat
    in turn."""
    tokens = apply.opcode.split(".")
    if "cta_group::2" in tokens or "b8x16" in tokens:
        what = "a CTA pair" if "cta_group::2" in tokens else "a decompressing copy"
        raise NotCovered(f"{apply.opcode}: {what} (docs/families/tcgen05.md)")
    shape = next(t for t in tokens if t in SHAPES)
    multicast = next((t for t in tokens if t.startswith("warpx")), "")
    taddr, desc = apply.values
    for coord in apply.repeats():
        executing, known = apply.executing(interp, coord)
        for thread in np.flatnonzero(executing if known is None else executing & known):
            _issue(interp, (shape, multicast), (taddr, desc), coord, int(thread))


def _issue(interp, layout, operands, coord, thread):
    """`thread`'s copy: the rows written into tensor memory, its words and
    the shared bytes it reads marked as the copy's until the commit's
    phase is waited for."""
    st, block = TM.state(interp), int(interp.block_of(np.array([thread]))[0])
    taddr, desc = (TM.scalar(interp, value, coord, thread) for value in operands)
    if taddr is None or desc is None:
        TM.report(interp, f"thread {thread} reads its {'taddr' if taddr is None else 's-desc'} from a register "
                          "never written")
        return
    rows, words = SHAPES[layout[0]]
    at = _destination(interp, (st, block, thread), taddr, lanes(*layout), words)
    if at is None:
        return
    bits, known, buffer, addresses = W.operand_matrix(interp, desc, rows, "tf32", words, thread, block)
    copies = at[1].shape[0]
    st.words[at] = np.broadcast_to(bits.astype(np.uint32), (copies, rows, words))
    st.defined[at] = st.half_defined[at] = np.broadcast_to(known, (copies, rows, words))
    st.mma_pending[at] = interp.point
    st.issuers[interp.point] = "tcgen05.cp"
    TMMA.read_shared(interp, buffer, addresses, thread)
    TMMA.in_flight(st, TMMA.Issued(interp.point, thread, at, [(buffer, addresses)]))


def _destination(interp, issuer, taddr, row_lanes, words):
    """(block, lanes, columns) of each copy's rows' words (copies x rows x
    words), or None where a rule is broken (a fault, or reported)."""
    st, block, thread = issuer
    lane, column = taddr >> 16, taddr & 0xFFFF
    if column % 4:
        raise interp.fault(interp.lanes == thread, f"its column {column} is not a multiple of 4 (128 bits)")
    reached = lane + row_lanes
    if reached.max() >= TM.LANES:
        raise interp.fault(interp.lanes == thread, f"its rows reach lane {int(reached.max())}, past lane 127")
    if TM.allocation_holding(st, block, column, words) is None:
        TM.report(interp, f"its columns {column}-{column + words - 1} are in no allocation of its block")
        return None
    word_lanes = np.broadcast_to(reached.T[:, :, None], reached.T.shape + (words,))
    return block, word_lanes, np.broadcast_to(column + np.arange(words), word_lanes.shape)
