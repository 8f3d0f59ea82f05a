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
        self.lib = runtime.driver().lib
        self.pointers, slots, self.maps = [], [], []
        for param in kernel.params:
            pointer = ctypes.c_uint64(0)
            self.pointers.append(pointer)
            slots.append(ctypes.cast(ctypes.byref(pointer), ctypes.c_void_p))
            for box, swizzle in param.tensor_maps:
                slot = tensor_maps.TensorMapBytes()
                self.maps.append((len(self.pointers) - 1, param, box, swizzle, slot, OrderedDict()))
                slots.append(ctypes.c_void_p(slot.address))
        self.params = (ctypes.c_void_p * len(slots))(*slots)
        self.grid, self.block = kernel.grid, kernel.block

    def _map(self, index, param, box, swizzle, slot, seen):
        """The map of parameter `index`'s current address into its slot."""
        address = self.pointers[index].value
        encoded = seen.get(address)
        if encoded is None:
            encoded = tensor_maps.encode(self.lib, param.name, address, param.shape, param.dtype, box, swizzle)
            seen[address] = encoded
            if len(seen) > MAPS_KEPT:
                seen.popitem(last=False)
        ctypes.memmove(slot.address, encoded.address, tensor_maps.TENSOR_MAP_BYTES)

    def __call__(self, *pointers: int, stream: Optional[int] = None) -> None:
        for slot, value in zip(self.pointers, pointers):
            slot.value = value
        for entry in self.maps:
            self._map(*entry)
        status = self.lib.cuLaunchKernel(self.function, *self.grid, *self.block, self.kernel.dynamic_shared_bytes,
                                         ctypes.c_void_p(stream) if stream else None, self.params, None)
        if status != 0:
            runtime.driver().check(status, "cuLaunchKernel")
