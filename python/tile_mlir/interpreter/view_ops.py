"""The interpreter's handlers of the ops that make memref values (HANDLERS,
by op name): register tiles (memref.alloca), subviews and reshapes, the
dynamic shared memory and buffers carved from it, another block's shared
memory in the cluster (tile.mapa), tensor maps and swizzled views. A
value is a View: a buffer, a byte offset per thread, byte strides, a
shape and an element width."""

import numpy as np

from . import arith_ops as AR
from . import tma as T
from .memory import Buffer, View, element_bytes
from .reference import MemoryFault, NotCovered


def layout(memref_type):
    from mlir import ir
    memref_type = ir.MemRefType(memref_type)
    strides, offset = memref_type.get_strides_and_offset()
    bits = memref_type.element_type.width
    if any(s == ir.ShapedType.get_dynamic_stride_or_offset() for s in strides):
        raise NotCovered("dynamic strides")
    # A predicate (i1) takes a byte, as a register element.
    return list(memref_type.shape), [s * element_bytes(bits) for s in strides], bits


def memref_alloca(interp, op):
    shape, strides, bits = layout(op.results[0].type)
    size = int(np.prod(shape, dtype=np.int64)) * element_bytes(bits)
    # A group tile (tile.scope) is private storage too: each thread
    # addresses only its own group row of it.
    buffer = interp.track(Buffer(np.zeros((interp.threads, size), np.uint8), np.zeros((interp.threads, size), bool),
                               True))
    interp.values[op.results[0]] = View(buffer, np.zeros(interp.threads, np.int64), strides, shape, bits)


def memref_subview(interp, op):
    from mlir import ir
    source = interp.values[op.operands[0]]
    result = ir.MemRefType(op.results[0].type)
    if any(s == ir.ShapedType.get_dynamic_stride_or_offset() for s in result.get_strides_and_offset()[0]):
        # A view of a runtime-sized tensor: the source's strides times
        # the steps, over the axes kept (a dropped axis has size 1, and
        # the stride of a kept axis of size 1 addresses nothing).
        steps = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
        kept = list(range(len(sizes)))
        for axis in range(len(sizes)):
            if len(kept) > result.rank and sizes[axis] == 1:
                kept.remove(axis)
        shape, bits = list(result.shape), result.element_type.width
        strides = [source.strides[a] * steps[a] for a in kept]
    else:
        shape, strides, bits = layout(op.results[0].type)
    static = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    dynamic = iter(op.operands[1:])
    # The static offsets' bytes summed first: one pass over the threads
    # for them, one for each dynamic offset.
    constant, offset = 0, source.offset
    for value, stride in zip(static, source.strides):
        if value == ir.ShapedType.get_dynamic_stride_or_offset():
            offset = offset + interp.values[next(dynamic)] * stride
        else:
            constant += value * stride
    offset = offset + constant if constant or offset is source.offset else offset
    interp.values[op.results[0]] = View(source.buffer, offset, strides, shape, bits, source.swizzle)


def gpu_dynamic_shared_memory(interp, op):
    """The launch's dynamic shared memory: the bytes the kernel declares,
    one copy per block, uninitialized."""
    size = interp.dynamic_shared_bytes
    blocks = interp.threads // interp.per_block
    if interp.dynamic_shared is None:
        interp.dynamic_shared = interp.track(Buffer(np.zeros(blocks * size, np.uint8),
                                                np.zeros(blocks * size, bool), False,
                                                "the dynamic shared memory", shared=True, block_bytes=size))
    interp.values[op.results[0]] = View(interp.dynamic_shared, interp.block_linear * size, [1], [size], 8)


def memref_view(interp, op):
    """A buffer carved from the dynamic shared memory at a byte offset."""
    source = interp.values[op.operands[0]]
    shape, strides, bits = layout(op.results[0].type)
    shift = AR.signed(interp.values[op.operands[1]])
    interp.values[op.results[0]] = View(source.buffer, source.offset + shift, strides, shape, bits)


def same_offset(interp, op):
    source = interp.values[op.operands[0]]
    shape, strides, bits = layout(op.results[0].type)
    interp.values[op.results[0]] = View(source.buffer, source.offset, strides, shape, bits, source.swizzle)


def block_of_rank(interp, rank):
    """Per thread, the linear index of the block of cluster rank
    `rank` (x fastest) in the thread's cluster."""
    cx, cy, _ = interp.cluster
    position = (rank % cx, rank // cx % cy, rank // (cx * cy))
    bid = [b // c * c + p for b, c, p in zip(interp.bid, interp.cluster, position)]
    return bid[0] + interp.grid[0] * (bid[1] + interp.grid[1] * bid[2])


def tile_mapa(interp, op):
    """tile.mapa (mapa.shared::cluster): the same offsets in the shared
    memory of the block of rank `rank` of each thread's cluster."""
    source = interp.values[op.operands[0]]
    rank = AR.signed(interp.values[op.operands[1]]).astype(np.int64)
    blocks = int(np.prod(interp.cluster))
    bad = np.flatnonzero(interp.active & ((rank < 0) | (rank >= blocks)))
    if bad.size:
        thread = int(bad[0])
        raise MemoryFault(f"{interp.points[interp.point]}: mapa.shared::cluster: thread {thread} maps rank "
                          f"{int(rank[thread])}, but its cluster has {blocks} block"
                          f"{'s' if blocks > 1 else ''} (ranks 0 to {blocks - 1}); PTX leaves the "
                          "address undefined")
    rank = np.where(interp.active, rank, interp.cluster_rank)
    shift = (block_of_rank(interp, rank) - interp.block_linear) * source.buffer.block_bytes
    interp.values[op.results[0]] = View(source.buffer, source.offset + shift, source.strides, source.shape,
                                      source.bits, source.swizzle)


def tile_tensor_map(interp, op):
    """A tensor map: the tensor it describes, its box and swizzle."""
    from mlir import ir
    interp.values[op.results[0]] = T.TensorMap(interp.values[op.operands[1]],
                                             ir.DenseI64ArrayAttr(op.attributes["box"]),
                                             ir.IntegerAttr(op.attributes["swizzle"]).value,
                                             str(ir.MemRefType(op.operands[1].type).element_type))


def tile_swizzle(interp, op):
    """The buffer through an XOR swizzle; its views keep it."""
    from mlir import ir
    source = interp.values[op.operands[0]]
    bits, base, shift = (ir.IntegerAttr(op.attributes[name]).value for name in ("bits", "base", "shift"))
    interp.values[op.results[0]] = View(source.buffer, source.offset, source.strides, source.shape, source.bits,
                                      (source.offset, bits, base, shift))


# A generic view (Buffer.generic), a reshape, a view or broadcast of a
# tile: the same bytes.
HANDLERS = {
    "memref.alloca": memref_alloca,
    "memref.subview": memref_subview,
    "gpu.dynamic_shared_memory": gpu_dynamic_shared_memory,
    "memref.view": memref_view,
    "tile.mapa": tile_mapa,
    "tile.tensor_map": tile_tensor_map,
    "tile.swizzle": tile_swizzle,
    "memref.memory_space_cast": same_offset,
    "memref.expand_shape": same_offset,
    "memref.collapse_shape": same_offset,
    "tile.view": same_offset,
    "tile.broadcast": same_offset,
}

# The ops whose result is a view of their first operand's buffer (the
# set-up follows a tensor through them: setup.written_tensors).
VIEWS = ("memref.subview", "memref.view", "tile.mapa", "tile.swizzle", "memref.memory_space_cast",
         "memref.expand_shape", "memref.collapse_shape", "tile.view", "tile.broadcast")
