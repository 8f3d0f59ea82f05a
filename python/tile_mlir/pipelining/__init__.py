"""Parts for asynchronous pipelines, written once: mbarriers as objects
(barriers.py), the (stage, phase) of a ring at a step (state.py), the
TMA producer-to-consumer ring (ring.py), where accumulator registers sit
(layouts.py), which tiles a block takes (schedulers.py), the
stmatrix-to-TMA epilogue (epilogues.py), reductions across threads
(reductions.py), the online softmax's row state and its merge of split
parts (online_softmax.py), and the last of several blocks' arrivals
(arrivals.py).
Each part emits exactly the instructions a kernel would spell by hand with ``T.cuda.tile.apply``
(test_pipeline_parts.py compares the PTX), and each is proven in the
interpreter, the hazard it prevents included (docs/pipelining.md)."""

from .arrivals import last_arrival
from .barriers import Mbarrier, Mbarriers, NamedBarrierGroup, NamedBarriers, sync_block
from .layouts import MmaAccumulator, WgmmaAccumulator, row_swizzle
from .online_softmax import KeyMask, OnlineSoftmax
from .reductions import block_reduce, butterfly
from .ring import CpAsyncRing, TmaRing
from .roles import ConsumerTurns, WarpgroupRoles
from .schedulers import EitherTiles, GroupedTiles, HeadTile, HeadTiles, StreamKShares
from .state import PipelineState

__all__ = [
    "CpAsyncRing",
    "ConsumerTurns",
    "EitherTiles",
    "GroupedTiles",
    "HeadTile",
    "HeadTiles",
    "Mbarrier",
    "MmaAccumulator",
    "Mbarriers",
    "NamedBarrierGroup",
    "NamedBarriers",
    "KeyMask",
    "OnlineSoftmax",
    "PipelineState",
    "StreamKShares",
    "TmaRing",
    "WarpgroupRoles",
    "WgmmaAccumulator",
    "block_reduce",
    "butterfly",
    "last_arrival",
    "row_swizzle",
    "sync_block",
]
