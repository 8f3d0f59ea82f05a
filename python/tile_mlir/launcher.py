"""A launcher prepared for one kernel's launches on device arrays of the
shapes it was compiled for (tile_mlir.ops' fast path). Everything that does
not depend on the arrays' addresses is done once: the function loaded, the
grid, one ctypes argument array whose slots are updated in place, and each
tensor map's fields; a map is encoded again only for an address it has not
seen lately. Kernel.__call__ checks and converts every argument on every
call; this trusts its caller, which has checked them (shapes, dtypes, one
device), and takes raw device pointers:

    launch = prepared(kernel)
    launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), stream=torch.cuda.current_stream().cuda_stream)

A kernel compiled with runtime extents and LaunchConfig(grid=None) (the
descriptor convention) takes them each call (ExtentLauncher):

    launch(x.data_ptr(), out.data_ptr(), extents=(rows, rows), grid=(rows, 1, 1), stream=...)
"""

import ctypes
from collections import OrderedDict
from typing import Optional

from . import runtime, tensor_maps

# Tensor maps kept a parameter: the addresses seen last (weights keep
# theirs; an allocator hands activations the same few blocks).
MAPS_KEPT = 16


def prepared(kernel: runtime.Kernel):
    """The prepared launcher of `kernel`: its grid and shapes compiled in
    (PreparedLauncher), or given each call (ExtentLauncher)."""
    return ExtentLauncher(kernel) if kernel.convention == "descriptor" else PreparedLauncher(kernel)


class _Launch:
    """cuLaunchKernelEx of one function on a parameter array: its
    configuration (grid, block, dynamic shared memory, stream) a struct
    written once, the stream again only when it changes. The entry point
    is bound without argtypes, so ctypes checks each value's type instead
    of converting it (1 us less a launch on the GPU machine's host), and it
    takes 4 values, where cuLaunchKernel takes 11 (each one's conversion
    is part of a call)."""

    def __init__(self, kernel: runtime.Kernel, grid):
        self.function = ctypes.c_void_p(kernel.function().value)
        self.config = runtime.LaunchConfig(*grid, *kernel.block, kernel.dynamic_shared_bytes, None, None, 0)
        self.config_address = ctypes.byref(self.config)
        self.stream = None
        self.launch = unconverted_entry("cuLaunchKernelEx")

    def __call__(self, params, stream: Optional[int]) -> None:
        if stream != self.stream:
            self.config.hStream = self.stream = stream
        status = self.launch(self.config_address, self.function, params, None)
        if status:
            runtime.driver().check(status, "cuLaunchKernelEx")

    def set_grid(self, grid) -> None:
        self.config.gridDimX, self.config.gridDimY, self.config.gridDimZ = grid


def unconverted_entry(name: str):
    """The driver's entry point `name` bound again without argtypes,
    returning an int status."""
    lib = runtime.driver().lib
    entry = type(getattr(lib, name))((name, lib))
    entry.restype = ctypes.c_int
    return entry


class PreparedLauncher:
    def __init__(self, kernel: runtime.Kernel):
        if kernel.convention != "bare" or kernel.grid is None or kernel.cluster or kernel.dependent:
            raise ValueError(f"{kernel.name}: a prepared launcher takes a kernel of the bare convention with its "
                             "grid compiled in, no cluster and no dependent launch")
        if any(p.kind != "tensor" or None in p.shape for p in kernel.params):
            raise ValueError(f"{kernel.name}: a prepared launcher takes tensor parameters of static shapes")
        self.kernel, self.lib = kernel, runtime.driver().lib
        # One uint64 a parameter, written in place by one slice assignment
        # a call; the parameter array points at them and at the maps.
        self.pointers = (ctypes.c_uint64 * len(kernel.params))()
        base, slots, self.maps = ctypes.addressof(self.pointers), [], []
        for index, param in enumerate(kernel.params):
            slots.append(base + 8 * index)
            for box, swizzle in param.tensor_maps:
                slot = tensor_maps.TensorMapBytes()
                self.maps.append(_MapSlot(index, param, box, swizzle, slot))
                slots.append(slot.address)
        self.params = (ctypes.c_void_p * len(slots))(*slots)
        self.launch = _Launch(kernel, kernel.grid)

    def __call__(self, *pointers: int, stream: Optional[int] = None) -> None:
        self.pointers[:] = pointers
        for entry in self.maps:
            if pointers[entry.index] != entry.address:
                entry.update(self.lib, pointers[entry.index])
        self.launch(self.params, stream)


class ExtentLauncher:
    """A prepared launcher of a kernel compiled with runtime extents and
    LaunchConfig(grid=None) (the descriptor convention): each call gives
    the addresses, the runtime extents (`extents`, in the order the
    parameters' None extents appear) and the grid; each tensor's memref
    descriptor (the address twice, offset 0, its sizes and its
    C-contiguous strides) is written into one argument array, and each of
    its tensor maps is encoded for its address and sizes (kept for those
    seen lately)."""

    def __init__(self, kernel: runtime.Kernel):
        if kernel.convention != "descriptor" or kernel.cluster or kernel.dependent or kernel.grid is not None:
            raise ValueError(f"{kernel.name}: an extent launcher takes a kernel of the descriptor convention, "
                             "compiled with LaunchConfig(grid=None), no cluster and no dependent launch")
        if any(p.kind != "tensor" for p in kernel.params):
            raise ValueError(f"{kernel.name}: an extent launcher takes tensor parameters only")
        self.kernel = kernel
        self.shapes = [tuple(p.shape) for p in kernel.params]
        self.words = (ctypes.c_uint64 * sum(3 + 2 * len(shape) for shape in self.shapes))()
        self.maps, self.params = _descriptor_params(kernel, self.words)
        self.launch = _Launch(kernel, (1, 1, 1))

    def sizes(self, extents):
        """Each tensor's sizes, its None extents taken from `extents` in turn."""
        given = iter(extents)
        return [[next(given) if extent is None else extent for extent in shape] for shape in self.shapes]

    def extents_of(self, shapes):
        """The runtime extents of tensors of `shapes` (in the parameters'
        order), as a call takes them."""
        return tuple(size for shape, got in zip(self.shapes, shapes) for want, size in zip(shape, got)
                     if want is None)

    def descriptor_words(self, pointers, extents):
        """The argument words: each tensor's descriptor."""
        values = []
        for pointer, sizes in zip(pointers, self.sizes(extents)):
            strides, step = [], 1
            for size in reversed(sizes):
                strides.append(step)
                step *= size
            values += [pointer, pointer, 0, *sizes, *reversed(strides)]
        return values

    def __call__(self, *pointers: int, extents=(), grid=(1, 1, 1), stream: Optional[int] = None) -> None:
        self.words[:] = self.descriptor_words(pointers, extents)
        if self.maps:
            sizes = self.sizes(extents)
            for entry in self.maps:
                entry.update(runtime.driver().lib, pointers[entry.index], sizes[entry.index])
        self.launch.set_grid(grid)
        self.launch(self.params, stream)

    def bind(self, extents, grid) -> "BoundLaunch":
        """A launcher of these extents and grid (an op's signature fixes
        them): its descriptors written once, a call writes the addresses."""
        return BoundLaunch(self, extents, grid)

    def bind_shapes(self, shapes, grid) -> "BoundLaunch":
        """bind() for tensors of `shapes`: their runtime extents read from them."""
        return self.bind(self.extents_of(shapes), grid)


def _descriptor_params(kernel: runtime.Kernel, words, pointers=None):
    """([_MapSlot], the kernel-parameter array) of a descriptor-convention
    kernel whose descriptors are `words`: each word's address, each tensor's
    map slots after its descriptor's words, as the kernel declares them.
    With `pointers` (a uint64 a tensor), a descriptor's allocated and
    aligned addresses are both read from the tensor's one (a parameter
    slot points at a value; two may point at the same)."""
    base, slots, maps, position = ctypes.addressof(words), [], [], 0
    for index, param in enumerate(kernel.params):
        count = 3 + 2 * len(param.shape)
        own = [base + 8 * (position + i) for i in range(count)]
        if pointers is not None:
            own[0] = own[1] = ctypes.addressof(pointers) + 8 * index
        slots += own
        position += count
        for box, swizzle in param.tensor_maps:
            slot = tensor_maps.TensorMapBytes()
            maps.append(_MapSlot(index, param, box, swizzle, slot))
            slots.append(slot.address)
    return maps, (ctypes.c_void_p * len(slots))(*slots)


class BoundLaunch:
    """ExtentLauncher's launches at one set of extents and one grid: the
    descriptors' sizes and strides written once into words of its own; a
    call writes the addresses (each the descriptor's allocated and aligned
    pointer), encodes a tensor map for an address it does not hold, and
    launches."""

    def __init__(self, launcher: ExtentLauncher, extents, grid):
        template = launcher.descriptor_words([0] * len(launcher.shapes), extents)
        self.words = (ctypes.c_uint64 * len(template))(*template)
        # The addresses, one a tensor, written by one slice assignment a call.
        self.pointers = (ctypes.c_uint64 * len(launcher.shapes))()
        self.maps, self.params = _descriptor_params(launcher.kernel, self.words, self.pointers)
        self.sizes = launcher.sizes(extents)
        self.lib = runtime.driver().lib if self.maps else None
        self.launch = _Launch(launcher.kernel, grid)

    def __call__(self, *pointers: int, stream: Optional[int] = None) -> None:
        self.pointers[:] = pointers
        for entry in self.maps:
            if pointers[entry.index] != entry.address:
                entry.update(self.lib, pointers[entry.index], self.sizes[entry.index])
        self.launch(self.params, stream)


class _MapSlot:
    """A tensor map parameter's bytes, encoded for the address it holds
    (kept for the addresses seen lately). The launcher calls update() only
    for an address other than the one it holds."""

    def __init__(self, index, param, box, swizzle, slot):
        self.index, self.param, self.box, self.swizzle, self.slot = index, param, box, swizzle, slot
        self.address, self.seen = None, OrderedDict()

    def update(self, lib, address: int, sizes=None) -> None:
        """The map for `address` (and `sizes`, a runtime-extent tensor's:
        its compiled shape otherwise) into the slot."""
        key = address if sizes is None else (address, *sizes)
        encoded = self.seen.get(key)
        if encoded is None:
            param = self.param
            encoded = tensor_maps.encode(lib, param.name, address, param.shape if sizes is None else sizes,
                                         param.dtype, self.box, self.swizzle)
            self.seen[key] = encoded
            if len(self.seen) > MAPS_KEPT:
                self.seen.popitem(last=False)
        ctypes.memmove(self.slot.address, encoded.address, tensor_maps.TENSOR_MAP_BYTES)
        self.address = address
