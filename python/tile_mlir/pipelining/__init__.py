"""Parts for asynchronous pipelines, written once: mbarriers as objects
(barriers.py), the (stage, phase) of a ring at a step (state.py), the
TMA producer-to-consumer ring (ring.py), where accumulator registers sit
(layouts.py), the stmatrix-to-TMA epilogue (epilogues.py), and reductions
across threads (reductions.py). Each part emits exactly the
instructions a kernel would spell by hand with ``T.cuda.tile.apply``
(test_pipeline_parts.py compares the PTX), and each is proven in the
interpreter, the hazard it prevents included (docs/pipelining.md)."""

from .barriers import Mbarrier, Mbarriers, NamedBarrierGroup, NamedBarriers, sync_block
from .layouts import WgmmaAccumulator
from .reductions import block_reduce, butterfly
from .ring import TmaRing
from .roles import ConsumerTurns, WarpgroupRoles
from .schedulers import GroupedTiles
from .state import PipelineState

__all__ = ["ConsumerTurns", "GroupedTiles", "Mbarrier", "Mbarriers", "NamedBarrierGroup", "NamedBarriers", "PipelineState", "TmaRing", "WarpgroupRoles", "WgmmaAccumulator", "block_reduce", "butterfly", "sync_block"]
