"""A launch's set-up in the interpreter: what the kernel needs of the race
check's clocks (mbarriers, release and acquire through memory, clusters),
and its arguments bound to buffers: tensors (aliases sharing one), scalar
parameters' bits, and the static shared buffers, one copy per block."""

import functools
import re

import numpy as np

from . import clocks as C
from . import memory_model as MM
from . import proxy as P
from . import races as RC
from . import view_ops as VO
from .memory import Buffer, View, element_bytes

# Past this many clock entries (threads x threads of a block), a kernel with
# mbarriers runs without their ordering: the race check then reports what
# only they order.
MAX_CLOCK_ENTRIES = 1 << 24


def has_apply(op, prefixes):
    """Whether `op` holds a tile.apply of a form whose opcode starts with
    one of `prefixes`."""
    return has_apply_where(op, lambda opcode: opcode.startswith(prefixes))


def has_apply_where(op, predicate):
    """Whether `op` holds a tile.apply whose opcode satisfies `predicate`."""
    from mlir import ir
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name == "tile.apply" and predicate(ir.StringAttr(inner.attributes["opcode"]).value):
                    return True
                if has_apply_where(inner, predicate):
                    return True
    return False


@functools.lru_cache(maxsize=None)
def forms_of(opcode):
    """The forms an opcode names (ptx.overloads), parsed once a process:
    the set-up's walks ask of every tile.apply of a kernel, each run."""
    from .. import ptx
    return ptx.overloads(opcode)


def reads_through_async_proxy(op):
    """Whether `op` holds an instruction of a family that reads shared
    memory through the async proxy (proxy.ASYNC_PROXY_READERS): only then
    need generic writes be remembered until a fence.proxy.async."""
    return has_apply_where(op, lambda opcode: any(form.family in P.ASYNC_PROXY_READERS for form in forms_of(opcode)))


def synchronizes_through_memory(op):
    """Whether `op` holds an instruction that may order other threads'
    accesses through memory: a fence, an acquire, a release or a strong
    load or store (memory_model.py)."""
    return has_apply_where(op, lambda opcode: any(MM.synchronizes(form) for form in forms_of(opcode)))


# The instruction families that only read the memory they name.
LOADS = frozenset(("ld", "ldu", "ldmatrix", "prefetch", "prefetchu"))
# Uses of a tensor that neither write nor hand it on.
READS = ("memref.load", "memref.dim")


def written_tensors(func, tensors):
    """The tensor parameters of `tensors` that the kernel may write: every
    one that a view of reaches an op other than a view, a load
    instruction (LOADS: every form of its opcode), an address read as a
    value (isspacep, cvta, getctarank) or READS (a store, an
    atomic, a copy, a tensor map, a loop's carried value, ...). The others
    are only read: their reads cannot race."""
    from mlir import ir
    root = {tensor: tensor for tensor in tensors}
    written = set()

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    roots = {root[v] for v in inner.operands if v in root}
                    if inner.name in VO.VIEWS and inner.operands and inner.operands[0] in root:
                        root[inner.results[0]] = root[inner.operands[0]]
                    elif roots and not (inner.name in READS or inner.name == "tile.apply" and all(
                            form.family in LOADS or form.address_value
                            for form in forms_of(ir.StringAttr(inner.attributes["opcode"]).value))):
                        written.update(roots)
                    walk(inner)
    walk(func)
    return written


def order_clocks(interp, func, through_memory, as_streams):
    """The clocks the race check orders accesses by (clocks.py), where the
    kernel can order them: over every thread where a release may reach
    another block (through memory, or an arrival on another block's
    mbarrier of the cluster: .release.cluster, then its .acquire.cluster
    wait), else within blocks; and release and acquire through memory."""
    from mlir import ir
    threads = interp.threads
    has_mbarriers = has_apply(func, ("mbarrier", "cp.async.mbarrier"))
    clustered = "nvvm.cluster_dim" in func.attributes and \
        int(np.prod(list(ir.DenseI32ArrayAttr(func.attributes["nvvm.cluster_dim"])))) > 1
    if (through_memory or clustered and has_mbarriers) and threads <= RC.MAX_CLOCK_THREADS:
        interp.clocks = C.Clocks(threads, interp.per_block, span=threads)
    elif (as_streams or through_memory or has_mbarriers) and \
            threads * interp.per_block <= MAX_CLOCK_ENTRIES:
        interp.clocks = C.Clocks(threads, interp.per_block)
    if through_memory and interp.clocks is not None:
        interp.sync = MM.Synchronization(interp)


def _workgroup_alignments(func):
    """{index: bytes} of the static shared buffers declared with an
    llvm.align (T.alloc_shared's align), which NVVM gives their arrays."""
    from mlir import ir
    if "workgroup_attrib_attrs" not in func.attributes:
        return {}
    found = {}
    for index, attrs in enumerate(ir.ArrayAttr(func.attributes["workgroup_attrib_attrs"])):
        attrs = ir.DictAttr(attrs)
        if "llvm.align" in attrs:
            found[index] = ir.IntegerAttr(attrs["llvm.align"]).value
    return found





def bind_arguments(interp, func, inputs, aliases, shapes):
    """The kernel's parameters and shared buffers as values: each tensor a
    View of its input's bytes (or of the buffer of the parameter it
    aliases), row major over `shapes` where its extents are runtime ones;
    each scalar its bits; each static shared buffer one uninitialized copy
    per block. Returns the tensors' buffers by parameter name."""
    from mlir import ir
    threads = interp.threads
    body = func.regions[0].blocks[0]
    buffers = {}
    # Tensor maps (!llvm.ptr) take no input: tile.tensor_map names the
    # tensor each describes.
    parameters = list(body.arguments)[:len(ir.FunctionType(
        ir.TypeAttr(func.attributes["function_type"]).value).inputs)]
    tensor_args = [a for a in parameters if not str(a.type).startswith("!llvm.ptr")]
    written = written_tensors(func, [a for a in tensor_args if isinstance(a.type, ir.MemRefType)])
    for argument, (name, data) in zip(tensor_args, inputs.items()):
        if not isinstance(argument.type, ir.MemRefType):
            # A scalar parameter: its bits, as the integers and floats of
            # the instructions travel.
            width = len(data) * 8
            interp.values[argument] = (np.full(threads, int.from_bytes(data, "little"), np.uint64), width)
            continue
        if name in aliases:
            buffer = buffers[name] = buffers[aliases[name]]
            buffer.read_only = buffer.read_only and argument not in written
        else:
            data = np.frombuffer(data, np.uint8).copy()
            buffer = buffers[name] = Buffer(data, np.ones(data.size, bool), False, name)
            buffer.read_only = argument not in written
        memref_type = ir.MemRefType(argument.type)
        if memref_type.has_static_shape:
            shape, strides, bits = VO.layout(argument.type)
        else:
            # A runtime-sized tensor: row major over the launch's extents.
            shape, bits = list(shapes[name]), memref_type.element_type.width
            strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) * element_bytes(bits)
                       for i in range(len(shape))]
        if interp.origins is not None and buffer.origin is None:
            interp.track(buffer, interp.origins.tensor(name, shape, strides, bits, buffer.data.size))
        interp.values[argument] = View(buffer, np.zeros(threads, np.int64), strides, shape, bits)
    # Workgroup attributions follow the parameters: shared memory, one copy
    # per block, uninitialized.
    alignments = _workgroup_alignments(func)
    for index, argument in enumerate(list(body.arguments)[len(parameters):]):
        shape, strides, bits = VO.layout(argument.type)
        size = int(np.prod(shape, dtype=np.int64)) * element_bytes(bits)
        blocks = threads // interp.per_block
        match = re.search(r'"([^"]*)":(\d+)', str(argument.location))
        name = f"the shared buffer of {match.group(1)}:{match.group(2)}" if match else "a shared buffer"
        buffer = interp.track(Buffer(np.zeros(blocks * size, np.uint8), np.zeros(blocks * size, bool), False, name,
                                     shared=True, block_bytes=size, align=alignments.get(index)))
        interp.values[argument] = View(buffer, interp.block_linear * size, strides, shape, bits)
    return buffers
