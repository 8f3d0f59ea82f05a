"""The interpreter's handlers of the ops that read a thread's identity and
the special registers (HANDLERS, by op name): gpu's thread, block and
lane ids and dimensions, and nvvm's %warpid, %smid, the cluster's ids,
%clock64, %globaltimer and %dynamic_smem_size.

Special registers whose values the hardware picks get one value it could
give (docs/python.md), never compared with a GPU's: %warpid, the warp's
index in its block (one block per SM); %smid, 0; %clock64 and
%globaltimer, a counter that each read advances, the same in every
thread."""

import numpy as np

from .memory import mask_bits


def _axis(op):
    return "xyz".index(str(op.attributes["dimension"])[-2])


def _special(interp, op, values):
    """A special register's value per thread, as an integer of its width."""
    from mlir import ir
    width = ir.IntegerType(op.results[0].type).width
    interp.values[op.results[0]] = (np.asarray(values).astype(np.uint64) & mask_bits(width), width)


def _cluster_axis(interp, op, of_block):
    """The block's index within its cluster (`of_block`), or the cluster's
    index in the grid, along the op's axis."""
    axis = "xyz".index(op.name[-1])
    block = interp.bid[axis]
    _special(interp, op, block % interp.cluster[axis] if of_block else block // interp.cluster[axis])


def _clock(interp, op):
    interp.clock += 1
    _special(interp, op, np.full(interp.threads, interp.clock))


def _set(compute):
    """A handler storing `compute(interp, op)` as the op's index result."""
    def handler(interp, op):
        interp.values[op.results[0]] = compute(interp, op)
    return handler


HANDLERS = {
    "gpu.thread_id": _set(lambda interp, op: interp.tid[_axis(op)]),
    "gpu.block_id": _set(lambda interp, op: interp.bid[_axis(op)]),
    "gpu.block_dim": _set(lambda interp, op: np.full(interp.threads, interp.block[_axis(op)], np.int64)),
    "gpu.grid_dim": _set(lambda interp, op: np.full(interp.threads, interp.grid[_axis(op)], np.int64)),
    "gpu.lane_id": _set(lambda interp, op: interp.warp_lane),
    "nvvm.read.ptx.sreg.warpid": lambda interp, op: _special(interp, op, interp.lanes % interp.per_block // 32),
    "nvvm.read.ptx.sreg.cluster.ctarank": lambda interp, op: _special(interp, op, interp.cluster_rank),
    "nvvm.read.ptx.sreg.cluster.nctarank": lambda interp, op: _special(
        interp, op, np.full(interp.threads, int(np.prod(interp.cluster)))),
    **{f"nvvm.read.ptx.sreg.nclusterid.{a}": lambda interp, op: _special(
        interp, op, np.full(interp.threads, interp.grid["xyz".index(op.name[-1])]
                            // interp.cluster["xyz".index(op.name[-1])])) for a in "xyz"},
    **{f"nvvm.read.ptx.sreg.cluster.ctaid.{a}": lambda interp, op: _cluster_axis(interp, op, True) for a in "xyz"},
    **{f"nvvm.read.ptx.sreg.clusterid.{a}": lambda interp, op: _cluster_axis(interp, op, False) for a in "xyz"},
    "nvvm.read.ptx.sreg.smid": lambda interp, op: _special(interp, op, np.zeros(interp.threads)),
    "nvvm.read.ptx.sreg.clock64": _clock,
    "nvvm.read.ptx.sreg.globaltimer": _clock,
    "nvvm.read.ptx.sreg.dynamic.smem.size": lambda interp, op: _special(
        interp, op, np.full(interp.threads, interp.dynamic_shared_bytes)),
}
