"""A launcher prepared for one kernel's launches on device arrays of the
shapes it was compiled for (tile_mlir.ops' fast path). Everything that does
not depend on the arrays' addresses is done once: the function loaded, the
grid, one ctypes argument array whose slots are updated in place, and each
tensor map's fields; a map is encoded again only for an address it has not
seen lately. Kernel.__call__ checks and converts every argument on every
call; this trusts its caller, which has checked them (shapes, dtypes, one
device), and takes raw device pointers:

    launch = PreparedLauncher(kernel)
    launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), stream=torch.cuda.current_stream().cuda_stream)
"""

import ctypes
import functools
from collections import OrderedDict
from typing import Optional

from . import runtime, tensor_maps

# Tensor maps kept a parameter: the addresses seen last (weights keep
# theirs; an allocator hands activations the same few blocks).
MAPS_KEPT = 16


class PreparedLauncher:
    def __init__(self, kernel: runtime.Kernel):
        if kernel.convention != "bare" or kernel.grid is None or kernel.cluster:
            raise ValueError(f"{kernel.name}: a prepared launcher takes a kernel of the bare convention with its "
                             "grid compiled in and no cluster")
        if any(p.kind != "tensor" or None in p.shape for p in kernel.params):
            raise ValueError(f"{kernel.name}: a prepared launcher takes tensor parameters of static shapes")
        self.kernel, self.function = kernel, kernel.function()
        lib = runtime.driver().lib
        self.lib = lib
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
        self.grid, self.block = kernel.grid, kernel.block
        # cuLaunchKernel bound again without argtypes, its fixed arguments
        # converted once: ctypes then checks each value's type instead of
        # converting it (1 us less a launch on the GPU machine's host).
        unconverted = type(lib.cuLaunchKernel)(("cuLaunchKernel", lib))
        unconverted.restype = ctypes.c_int
        fixed = [ctypes.c_uint(v) for v in (*self.grid, *self.block, kernel.dynamic_shared_bytes)]
        self._launch = functools.partial(unconverted, ctypes.c_void_p(self.function.value), *fixed)

    def __call__(self, *pointers: int, stream: Optional[int] = None) -> None:
        self.pointers[:] = pointers
        for entry in self.maps:
            entry.update(self.lib, self.pointers[entry.index])
        status = self._launch(ctypes.c_void_p(stream or None), self.params, None)
        if status != 0:
            runtime.driver().check(status, "cuLaunchKernel")


class _MapSlot:
    """A tensor map parameter's bytes, encoded for the address it holds
    (kept for the addresses seen lately; nothing done for the same one)."""

    def __init__(self, index, param, box, swizzle, slot):
        self.index, self.param, self.box, self.swizzle, self.slot = index, param, box, swizzle, slot
        self.address, self.seen = None, OrderedDict()

    def update(self, lib, address: int) -> None:
        if address == self.address:
            return
        encoded = self.seen.get(address)
        if encoded is None:
            param = self.param
            encoded = tensor_maps.encode(lib, param.name, address, param.shape, param.dtype, self.box, self.swizzle)
            self.seen[address] = encoded
            if len(self.seen) > MAPS_KEPT:
                self.seen.popitem(last=False)
        ctypes.memmove(self.slot.address, encoded.address, tensor_maps.TENSOR_MAP_BYTES)
        self.address = address
