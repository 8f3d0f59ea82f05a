"""Tiles: a kernel's tensors and register tiles (Buffer), their slices,
reshapes, dtype views and broadcasts, and alloc_local."""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np
from mlir import ir
from mlir.dialects import arith, gpu, memref

from ..dialects import tile as _tile_ops
from ..runtime import RUNTIME_EXTENT_LIMIT
from .tracing import (_DYNAMIC, REGISTER_SPACE, SHARED_SPACE, TileError, _active, _element_type, _integer,
                      _location, _raise, _shape, _tensor_element_type)
from .values import Bool, Index, Scalar, _ComputedScalar, _check_owned


def _identity_layout(memref_type: ir.MemRefType) -> bool:
    """Whether the layout's affine map is the identity, as memref's reshape
    ops ask (their results keep an identity layout, else a strided one): a
    rank-1 strided<[1]> at offset 0 is, a rank-2 row-major strided one is
    not (its map has one result)."""
    return memref_type.affine_map == ir.AffineMap.get_identity(memref_type.rank)


def _reshape_groups(old: List[int], new: List[int]) -> List[Tuple[List[int], List[int]]]:
    """The fewest axes of `old` and `new` that pair up with equal element
    counts, in order: (32, 1, 4) and (32, 4) pair as ([0], [0]) and
    ([1, 2], [1]). Unit axes at the end join the last group."""
    groups, i, j = [], 0, 0
    while i < len(old) and j < len(new):
        old_axes, new_axes = [i], [j]
        a, b = old[i], new[j]
        i, j = i + 1, j + 1
        while a != b:
            if a < b:
                a *= old[i]
                old_axes.append(i)
                i += 1
            else:
                b *= new[j]
                new_axes.append(j)
                j += 1
        groups.append((old_axes, new_axes))
    groups[-1][0].extend(range(i, len(old)))
    groups[-1][1].extend(range(j, len(new)))
    return groups


class Buffer:
    """A tile or tensor: an MLIR memref value with its dtype."""

    def __init__(self, value: ir.Value, dtype: str, name: str = ""):
        self.value, self.dtype, self.name = value, dtype, name
        # A tensor parameter's TMA tensor maps (T.Tensor(..., tma=...)).
        self.tensor_maps = ()

    @property
    def tensor_map(self):
        """The address of this tensor parameter's one tensor map (a uint64
        for cp.async.bulk.tensor); ``tensor_maps[i]`` when it has several."""
        if len(self.tensor_maps) != 1:
            raise TileError(f"{self.name or 'this tile'} has {len(self.tensor_maps)} tensor maps: "
                            + ("give its T.Tensor tma=T.TensorMap(box, swizzle)" if not self.tensor_maps
                               else "take one of tensor_maps"))
        return self.tensor_maps[0]

    def __bool__(self):
        raise TileError("a tile has no truth value; compare its registers with an instruction")

    @property
    def type(self) -> ir.MemRefType:
        return ir.MemRefType(self.value.type)

    @property
    def shape(self) -> Tuple[int, ...]:
        return tuple(self.type.shape)

    def extent(self, axis: int) -> Index:
        """The extent of `axis`: its constant, or for a runtime extent (a
        T.Tensor axis of None) the launch's, read from the tensor's
        descriptor (memref.dim): the one source of a runtime size, so that
        no separate parameter can disagree with the tensor."""
        _check_owned(self)
        shape = self.shape
        if isinstance(axis, bool) or not isinstance(axis, int) or not 0 <= axis < len(shape):
            raise TileError(f"extent: axis is an integer in [0, {len(shape)}), got {axis!r}")
        if shape[axis] != _DYNAMIC:
            return Index.of(shape[axis])
        builder = _active()
        with _location():
            value = memref.dim(self.value, arith.constant(ir.IndexType.get(), axis))
        builder.ranges[value] = (0, RUNTIME_EXTENT_LIMIT)
        return Index([(value, 1)])

    def __getitem__(self, key) -> "Buffer":
        _check_owned(self)
        keys = key if isinstance(key, tuple) else (key,)
        shape = self.shape
        if len(keys) > len(shape):
            raise TileError(f"too many indices for a rank-{len(shape)} tile")
        keys = keys + (slice(None),) * (len(shape) - len(keys))
        offsets, sizes, steps, dropped = [], [], [], []
        for axis, (k, extent) in enumerate(zip(keys, shape)):
            # A runtime extent (a T.Tensor axis of None) bounds nothing here:
            # keeping inside it is the kernel's part (a loop to n).
            runtime_extent = extent == _DYNAMIC
            if isinstance(k, slice):
                if runtime_extent and k.stop is None:
                    raise TileError(f"axis {axis} has a runtime extent: give the slice's stop "
                                    "(A[i:i + 4])")
                start = Index.of(0 if k.start is None else k.start)
                stop = Index.of(extent if k.stop is None else k.stop)
                step = 1 if k.step is None else k.step
                if isinstance(step, bool) or not isinstance(step, int) or step < 1:
                    raise TileError(f"axis {axis}: a slice step is a positive integer, got {step!r}")
                step = _integer(step, f"axis {axis}: a slice step", 1)
                if not stop.same_terms(start):
                    raise TileError(f"axis {axis}: the slice extent must be static "
                                    "(write stop as start + a constant)")
                count = -(-(stop.const - start.const) // step)
                if count < 1:
                    raise TileError(f"axis {axis}: the slice is empty")
            else:
                # An integer index drops its axis, as in numpy.
                start, count, step = Index.of(k), 1, 1
                dropped.append(axis)
            if runtime_extent:
                # Only the start's sign is known to be wrong: the extent
                # arrives with the launch.
                if start.is_static and start.const < 0:
                    raise TileError(f"axis {axis}: index {start.const} is out of range for "
                                    "a runtime extent")
            elif start.is_static and not 0 <= start.const < extent:
                raise TileError(f"axis {axis}: index {start.const} is out of range for extent {extent}")
            if not runtime_extent and start.is_static and start.const + (count - 1) * step >= extent:
                raise TileError(f"axis {axis}: slice {start.const}:{start.const + count * step} "
                                f"is out of range for extent {extent}")
            offsets.append(start)
            sizes.append(count)
            steps.append(step)
        return self._subview(offsets, sizes, steps, dropped)

    def _subview(self, offsets: List[Index], sizes: List[int], steps: List[int],
                 dropped: List[int]) -> "Buffer":
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        strides, offset = self.type.get_strides_and_offset()
        new_offset = offset
        for start, stride in zip(offsets, strides):
            if stride == 0:
                continue  # a broadcast axis: any start addresses the same element
            if not start.is_static or new_offset == dynamic or stride == dynamic:
                new_offset = dynamic
            else:
                new_offset += start.const * stride
        new_strides = [s if s == dynamic else s * k for s, k in zip(strides, steps)]
        kept = [axis for axis in range(len(sizes)) if axis not in dropped]
        if not kept:
            raise TileError("indexing every axis leaves no tile; slice the last axis instead")
        layout = ir.StridedLayoutAttr.get(new_offset, [new_strides[a] for a in kept])
        result = ir.MemRefType.get([sizes[a] for a in kept], self.type.element_type, layout,
                                   self.type.memory_space)
        static_offsets = [o.const if o.is_static else dynamic for o in offsets]
        dynamic_offsets = [o.materialize() for o in offsets if not o.is_static]
        with _location():
            view = memref.SubViewOp(result, self.value, dynamic_offsets, [], [],
                                    static_offsets, sizes, steps).result
        return Buffer(view, self.dtype, self.name)

    def _check_static(self, what: str) -> None:
        if _DYNAMIC in self.shape:
            raise TileError(f"cannot {what} a tensor with a runtime extent ({self.name or 'tile'}); "
                            "slice it to static extents first")

    def as_index(self, bound: int, mode: str = "check"):
        """This one-element register tile's value (an unsigned integer of
        up to 32 bits; a signed one is read as its bits, so a negative value
        is out of range) as an index into an axis of `bound` elements: an
        address from data (a histogram's bin, a gather's row, a block
        table's page). It is never a wild address: the index is clamped
        into [0, bound), and

        - ``"check"``: the interpreter raises, at this line, naming the
          thread and the value, where a value is out of range (a bug: the
          GPU reads the clamped element);
        - ``"clamp"``: out-of-range values take the nearest element, by
          design (padding), and nothing is reported;
        - ``"predicate"``: returns ``(index, valid)``, `valid` a runtime
          condition the access takes as ``pred=``.
        """
        _check_owned(self)
        if ir.MemRefType(self.value.type).memory_space != ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), REGISTER_SPACE) or int(np.prod(self.shape)) != 1:
            raise TileError(f"as_index reads one register: a register tile of one element, got a "
                            f"{self.shape} tile")
        if self.dtype not in ("int8", "int16", "int32", "uint8", "uint16", "uint32"):
            raise TileError(f"as_index reads an integer register of up to 32 bits, got {self.dtype}")
        bound = _integer(bound, "bound", 1, 1 << 40)
        if mode not in ("check", "clamp", "predicate"):
            raise TileError(f"mode is 'check', 'clamp' or 'predicate', got {mode!r}")
        # Its bits as the signless integer MLIR's arith takes.
        signless = self.view(self.dtype[1:]) if self.dtype.startswith("u") else self
        builder = _active()
        index_type = ir.IndexType.get()
        with _location():
            zero = arith.constant(index_type, 0)
            raw = memref.load(signless.value, [zero] * len(self.shape))
            value = arith.index_castui(index_type, raw)
            clamped = arith.minui(value, arith.constant(index_type, bound - 1))
            if mode == "check":
                clamped.owner.attributes["tile.checked_index"] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(64), bound)
            valid = arith.cmpi(arith.CmpIPredicate.ult, value, arith.constant(index_type, bound)) \
                if mode == "predicate" else None
        builder.ranges[clamped] = (0, bound - 1)
        index = Index([(clamped, 1)])
        return (index, Bool(valid)) if mode == "predicate" else index

    def reshape(self, shape: Sequence[int]) -> "Buffer":
        """The same registers under another shape, as numpy reshapes a
        row-major array: axes regroup where the element counts agree, and
        each group of source axes that merges must be contiguous in memory.
        Only the axes that change are touched, so a group tile's leading
        axes stay whole (a (32, 1, 4) warp tile reshapes to (32, 4)), and
        any tile can gain or drop unit axes."""
        _check_owned(self)
        self._check_static("reshape")
        shape = list(_shape(shape, "a reshape's"))
        old = list(self.shape)
        if shape == old:
            return self
        count, new_count = int(np.prod(old, dtype=object)), int(np.prod(shape, dtype=object))
        if count != new_count or count == 0:
            raise TileError(f"cannot reshape a {tuple(old)} tile ({count} elements) to {tuple(shape)} "
                            f"({new_count} elements)")
        groups = _reshape_groups(old, shape)
        strides, offset = self.type.get_strides_and_offset()
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        for old_axes, _ in groups:
            kept = [a for a in old_axes if old[a] != 1]
            if any(strides[a] == dynamic for a in kept) or any(
                    strides[a] != strides[b] * old[b] for a, b in zip(kept, kept[1:])):
                raise TileError(f"cannot reshape a {tuple(old)} tile with strides {tuple(strides)} "
                                f"to {tuple(shape)}: axes {old_axes[0]}..{old_axes[-1]} merge but are "
                                "not contiguous")
        identity = _identity_layout(self.type)
        source = self
        try:
            if any(len(o) > 1 for o, _ in groups):
                # memref's rule (computeCollapsedLayoutMap): a merged group
                # takes the stride of its innermost non-unit axis (its first
                # axis when all are units), and a strided source gives a
                # strided result.
                merged = [int(np.prod([old[a] for a in o])) for o, _ in groups]
                merged_strides = [strides[next((a for a in reversed(o) if old[a] != 1), o[0])]
                                  for o, _ in groups]
                if identity:
                    result = ir.MemRefType.get(merged, self.type.element_type,
                                               memory_space=self.type.memory_space)
                else:
                    result = ir.MemRefType.get(merged, self.type.element_type,
                                               ir.StridedLayoutAttr.get(offset, merged_strides),
                                               self.type.memory_space)
                with _location():
                    op = memref.CollapseShapeOp(result, source.value, [list(o) for o, _ in groups])
                    op.operation.verify()
                source = Buffer(op.result, self.dtype, self.name)
            if any(len(n) > 1 for _, n in groups):
                base = source.type.get_strides_and_offset()[0]
                new_strides = []
                for (_, axes), stride in zip(groups, base):
                    inner = [int(np.prod([shape[b] for b in axes[i + 1:]])) for i in range(len(axes))]
                    new_strides += [stride * k for k in inner]
                # expand_shape keeps a strided source's layout strided.
                if _identity_layout(source.type):
                    result = ir.MemRefType.get(shape, self.type.element_type,
                                               memory_space=self.type.memory_space)
                else:
                    result = ir.MemRefType.get(shape, self.type.element_type,
                                               ir.StridedLayoutAttr.get(offset, new_strides),
                                               self.type.memory_space)
                with _location():
                    op = memref.ExpandShapeOp(result, source.value, [list(n) for _, n in groups],
                                              [], shape)
                    op.operation.verify()
                source = Buffer(op.result, self.dtype, self.name)
        except ir.MLIRError as error:
            _raise(error)
        return source

    def generic(self) -> "Buffer":
        """The same elements through generic addresses, for the forms whose
        opcode names no state space (ld.b32, atom.add.u32): a tensor's or a
        shared tile's memref cast to no memory space (cvta in PTX). A
        register tile has none: its registers have no address."""
        _check_owned(self)
        space = self.type.memory_space
        if space is None:
            return self
        number = ir.IntegerAttr(space).value if isinstance(space, ir.IntegerAttr) else None
        if number == REGISTER_SPACE:
            raise TileError(f"{self.name + ': ' if self.name else ''}a register tile has no generic address; "
                            "take the generic view of a tensor or a shared tile")
        source = self.type
        result = ir.MemRefType.get(list(source.shape), source.element_type, source.layout)
        with _location():
            view = memref.MemorySpaceCastOp(result, self.value).result
        return Buffer(view, self.dtype, self.name)

    def view(self, dtype: str) -> "Buffer":
        """Reinterprets the register carriers as `dtype` (e.g. uint32 words as
        uint16 halves, low half first). Changes no bits. The final axis must
        be contiguous; a view as the tile's own dtype is the tile itself."""
        _check_owned(self)
        self._check_static("view")
        if dtype == self.dtype:
            return self
        element = _element_type(dtype)
        source = self.type
        old_bits = source.element_type.width
        new_bits = element.width
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        strides, offset = source.get_strides_and_offset()

        def scale(v):
            if v == dynamic:
                return v
            if (v * old_bits) % new_bits:
                raise TileError(f"a {dtype} view cannot split {v} x {old_bits}-bit elements")
            return v * old_bits // new_bits

        shape = list(source.shape)
        shape[-1] = scale(shape[-1])
        new_strides = [scale(s) for s in strides[:-1]] + [1]
        layout = ir.StridedLayoutAttr.get(scale(offset), new_strides)
        result = ir.MemRefType.get(shape, element, layout, source.memory_space)
        try:
            with _location():
                op = _tile_ops.ViewOp(result, self.value)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return Buffer(op.result, dtype, self.name)

    def swizzle(self, mode: str = None, *, bits: int = None, base: int = None, shift: int = None) -> "Buffer":
        """The shared buffer with its bytes placed by an XOR swizzle
        (tile.swizzle, CuTe's Swizzle<bits, base, shift> counted in bytes):
        the byte at offset o from the buffer's start is at
        o ^ ((o >> shift) & (2^bits - 1) << base). Views taken from the
        result address through it; each access must stay inside one
        2^base-byte unit (the compiler proves it). `mode` names the TMA and
        wgmma swizzles of 128-byte rows: "32B", "64B", "128B" are bits 1, 2,
        3 with base 4 and shift 3. Rows of another length take their own
        shift: with 2^r-byte rows, shift r - base puts the row index's low
        bits on the 16-byte units."""
        _check_owned(self)
        self._check_static("swizzle")
        if mode is not None:
            if bits is not None or base is not None or shift is not None:
                raise TileError("give a swizzle mode or bits, base and shift, not both")
            if mode not in SWIZZLE_MODES:
                raise TileError(f"swizzle mode is one of {', '.join(SWIZZLE_MODES)}, got {mode!r}")
            bits, base, shift = SWIZZLE_MODES[mode]
        elif bits is None or base is None or shift is None:
            raise TileError("a swizzle takes a mode (\"128B\") or all of bits, base and shift")
        i64 = ir.IntegerType.get_signless(64)
        attrs = [ir.IntegerAttr.get(i64, _integer(v, name, 0, 32))
                 for v, name in ((bits, "bits"), (base, "base"), (shift, "shift"))]
        try:
            with _location():
                op = _tile_ops.SwizzleOp(self.type, self.value, *attrs)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return Buffer(op.result, self.dtype, self.name)

    def of_block(self, rank) -> "Buffer":
        """This shared tile as the block of cluster rank `rank` (an index,
        0 to T.cluster_nctarank() - 1) holds it: tile.mapa, whose
        mapa.shared::cluster maps the tile's base address into the
        .shared::cluster window. Only instructions spelled with
        .shared::cluster (ld, st, atom, red, mbarrier) address the result;
        the block's own tile may be given to them too. Order another
        block's accesses with barrier.cluster or an mbarrier of the
        cluster scope, as for global memory."""
        _check_owned(self)
        self._check_static("map")
        if not _in_shared_memory(self.type):
            raise TileError(f"of_block maps a shared tile (T.alloc_shared), not {self.name or 'this tile'}")
        rank = Index.of(rank).materialize()
        result = ir.MemRefType.get(self.shape, self.type.element_type, self.type.layout,
                                   ir.IntegerAttr.get(ir.IntegerType.get_signless(64), CLUSTER_SPACE))
        try:
            with _location():
                i32 = arith.index_cast(ir.IntegerType.get_signless(32), rank)
                op = _tile_ops.MapaOp(result, self.value, i32)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return Buffer(op.result, self.dtype, self.name)

    def matrix_descriptor(self, format: str = "wgmma") -> "Scalar":
        """The wgmma matrix descriptor (a uint64) of this K-major shared
        tile: its rows are A's M or B's N, its columns K, in a buffer
        swizzled "32B", "64B" or "128B" and aligned to eight of its rows
        (align=1024 for "128B"). The compiler derives every field and
        proves that the descriptor addresses each element where the tile
        holds it (tile.matrix_descriptor). format="tcgen05": the same in
        sm_100's layout, which tcgen05.mma and tcgen05.cp read."""
        _check_owned(self)
        try:
            with _location():
                op = _tile_ops.MatrixDescriptorOp(ir.IntegerType.get_signless(64), self.value,
                                                  format=None if format == "wgmma" else format)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return _ComputedScalar("uint64", op.result)

    def broadcast(self, shape: Sequence[int]) -> "Buffer":
        """A zero-stride view repeating unit axes to `shape` (inputs only)."""
        _check_owned(self)
        self._check_static("broadcast")
        shape = _shape(shape, "a broadcast's")
        if len(shape) != len(self.shape):
            raise TileError(f"a broadcast keeps the rank: {self.shape} to {shape}")
        strides, offset = self.type.get_strides_and_offset()
        new_strides = [0 if (old == 1 and new != 1) else s
                       for old, new, s in zip(self.shape, shape, strides)]
        layout = ir.StridedLayoutAttr.get(offset, new_strides)
        result = ir.MemRefType.get(list(shape), self.type.element_type, layout, self.type.memory_space)
        try:
            with _location():
                op = _tile_ops.BroadcastOp(result, self.value)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return Buffer(op.result, self.dtype, self.name)


def _in_shared_memory(memref_type: ir.MemRefType) -> bool:
    """Whether the memref is a block's shared memory: space 3, or the GPU
    dialect's workgroup space (the dynamic shared memory's views)."""
    space = memref_type.memory_space
    if space is None:
        return False
    if isinstance(space, ir.IntegerAttr):
        return space.value == SHARED_SPACE
    return str(space) == "#gpu.address_space<workgroup>"


# The .shared::cluster window (NVPTX address space 7), where of_block maps.
CLUSTER_SPACE = 7

# The TMA and wgmma swizzle modes over 128-byte rows: (bits, base, shift).
SWIZZLE_MODES = {"32B": (1, 4, 3), "64B": (2, 4, 3), "128B": (3, 4, 3)}


def alloc_local(shape, dtype: str, layout: str = "default", scope: str = "thread") -> Buffer:
    """Registers owned by the issuing thread, or, with ``scope`` "warp",
    "warpgroup" or "cta", a tile whose leading group axes are distributed
    over the threads of that group (lane l owns row l)."""
    _active()
    if layout != "default":
        raise TileError(f"layout {layout!r} is not supported: only \"default\" (row-major) is")
    if not isinstance(scope, str):
        raise TileError(f"scope is 'thread', 'warp', 'warpgroup' or 'cta', got {scope!r}")
    shape = _shape(shape, "a tile shape's")
    space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), REGISTER_SPACE)
    with _location():
        value = memref.alloca(ir.MemRefType.get(list(shape), _element_type(dtype), memory_space=space), [], [])
        if scope != "thread":
            value.owner.attributes["tile.scope"] = ir.StringAttr.get(scope)
    return Buffer(value, dtype)


def _shared_arguments(what: str, builder, shape, align, name):
    """The checked shape and alignment of a shared buffer, declared at the
    top level of the body."""
    if ir.InsertionPoint.current.block != builder.entry:
        raise TileError(f"{what} declares a buffer of the whole kernel: call it outside "
                        "T.serial and T.if_")
    shape = _shape(shape, "a shared buffer shape's")
    align = _integer(align, "align", 1, 1 << 12)
    if align & (align - 1):
        raise TileError(f"align is a power of two, got {align}")
    if not isinstance(name, str):
        raise TileError(f"name is a string, got {name!r}")
    return shape, align


def alloc_shared(shape, dtype: str, align: int = 16, name: str = "") -> Buffer:
    """Shared memory of the block: a static buffer of the kernel (a
    workgroup attribution of its gpu.func, which NVVM makes a ``.shared``
    array aligned to `align` bytes), one per block, uninitialized. It is
    sliced, viewed and reshaped as a global tensor is, and read and written
    by the ``.shared`` forms of ``ld``/``st``. A kernel declares at most
    48 KiB of it (checked when it is compiled, at this line)."""
    builder = _active()
    shape, align = _shared_arguments("T.alloc_shared", builder, shape, align, name)
    space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), SHARED_SPACE)
    memref_type = ir.MemRefType.get(list(shape), _tensor_element_type(dtype), memory_space=space)
    with _location() as location:
        value = builder.entry.add_argument(memref_type, location)
    func = builder.func
    count = len(builder.shared)
    builder.shared.append(value)
    func.attributes["workgroup_attributions"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), count + 1)
    aligned = ir.DictAttr.get({"llvm.align": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), align)})
    func.attributes["workgroup_attrib_attrs"] = ir.ArrayAttr.get(
        ([ir.ArrayAttr(func.attributes["workgroup_attrib_attrs"])[i] for i in range(count)] if count else [])
        + [aligned])
    return Buffer(value, dtype, name)



# The gpu.func attribute that declares a kernel's dynamic shared bytes:
# tile-attach-target checks it against the target and the buffers carved
# from it, the runtime passes it to every launch, the interpreter sizes the
# region by it.
DYNAMIC_SHARED_ATTR = "tile.dynamic_shared_bytes"
# The alignment of the dynamic region's start: tile-extern-dynamic-shared
# declares it .align 1024, the repeat of the 128-byte swizzle that wgmma
# and TMA apply to shared addresses.
_DYNAMIC_ALIGN = 1024


def alloc_dynamic_shared(shape, dtype: str, align: int = 16, name: str = "") -> Buffer:
    """Shared memory of the block carved from the launch's dynamic shared
    memory: buffers follow each other at their alignments (at most 1024
    bytes, the region's own), the kernel declares their total, and each launch
    passes it, raising the kernel's limit above 48 KiB where it needs to
    (up to the target's maximum per block: 227 KiB on sm_90). Otherwise it
    is a shared buffer as ``T.alloc_shared`` makes one."""
    builder = _active()
    shape, align = _shared_arguments("T.alloc_dynamic_shared", builder, shape, align, name)
    if align > _DYNAMIC_ALIGN:
        raise TileError(f"a dynamic shared buffer is aligned to at most {_DYNAMIC_ALIGN} bytes (the "
                        f"dynamic region's own alignment), got align={align}")
    element = _tensor_element_type(dtype)
    workgroup = ir.Attribute.parse("#gpu.address_space<workgroup>")
    if builder.dynamic_base is None:
        with _location(), ir.InsertionPoint.at_block_begin(builder.entry):
            region = ir.MemRefType.get([_DYNAMIC], ir.IntegerType.get_signless(8), memory_space=workgroup)
            builder.dynamic_base = gpu.dynamic_shared_memory(region)
    offset = -(-builder.dynamic_shared_bytes // align) * align
    nbytes = int(np.prod(shape, dtype=np.int64)) * _element_bytes(element)
    with _location():
        shift = arith.constant(ir.IndexType.get(), offset)
        value = memref.view(ir.MemRefType.get(list(shape), element, memory_space=workgroup),
                            builder.dynamic_base, shift, [])
    builder.dynamic_shared_bytes = offset + nbytes
    builder.func.attributes[DYNAMIC_SHARED_ATTR] = ir.IntegerAttr.get(
        ir.IntegerType.get_signless(64), builder.dynamic_shared_bytes)
    return Buffer(value, dtype, name)


def _element_bytes(element: ir.Type) -> int:
    width = ir.IntegerType(element).width if isinstance(element, ir.IntegerType) else \
        ir.FloatType(element).width
    return max(width, 8) // 8
