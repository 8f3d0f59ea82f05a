"""TMA tensor maps, encoded on the host for a launch.

A kernel parameter ``T.Tensor(shape, dtype, tma=T.TensorMap(box, swizzle))``
has, after the tensor's own arguments, one 128-byte CUtensorMap per map,
passed by value (the kernel's 64-byte aligned .param; tile.tensor_map). At
each launch the runtime encodes it from the array's device address and
extents with the driver's cuTensorMapEncodeTiled, after checking every
field the driver would refuse (CUDA Driver API, "Tensor Map Object
Management"), so that a bad array is an ArgumentError naming the
parameter and the rule rather than CUDA_ERROR_INVALID_VALUE:

- rank 1 to 5, extents 1 to 2^32, a box of 1 to 256 per axis whose
  innermost extent spans a multiple of 16 bytes (and, swizzled, exactly
  the swizzle's span: the compiler checked these from the types);
- a global address aligned to 16 bytes, strides multiples of 16 bytes
  below 2^40.

Elements outside the tensor are read as zeros (CU_TENSOR_MAP_FLOAT_OOB_
FILL_NONE); the copy moves bits, so integer types map to the unsigned
type of their width.
"""

from __future__ import annotations

import ctypes
from typing import Sequence

import numpy as np

TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64

# Each dtype's CUtensorMapDataType (the bits a copy moves) and bytes.
DATA_TYPES = {"uint8": (0, 1), "int8": (0, 1), "uint16": (1, 2), "int16": (1, 2), "uint32": (2, 4),
              "int32": (3, 4), "uint64": (4, 8), "int64": (5, 8), "float16": (6, 2), "float32": (7, 4),
              "float64": (8, 8), "bfloat16": (9, 2)}
# cuTensorMapEncodeTiled's parameters (cuda.h), which the driver binding
# gives the entry point once.
ENCODE_ARGTYPES = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                   ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32),
                   ctypes.POINTER(ctypes.c_uint32), ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
# CUtensorMapSwizzle by the bytes of the span.
SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}
_INTERLEAVE_NONE, _L2_PROMOTION_128B, _OOB_FILL_ZEROS = 0, 2, 0


class TensorMapError(ValueError):
    """An array a tensor map cannot describe."""


class TensorMapBytes:
    """One encoded CUtensorMap, held 64-byte aligned for the launch."""

    def __init__(self):
        self._storage = (ctypes.c_uint8 * (TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN))()
        start = ctypes.addressof(self._storage)
        self.address = start + (-start) % TENSOR_MAP_ALIGN


def _byte_strides(shape: Sequence[int], itemsize: int):
    """The bytes between consecutive indices of each axis but the
    innermost, outermost first."""
    return [int(np.prod(shape[axis + 1:], dtype=np.int64)) * itemsize for axis in range(len(shape) - 1)]


def check(name: str, address: int, shape: Sequence[int], dtype: str, box: Sequence[int],
          swizzle: int) -> None:
    """Raises TensorMapError where cuTensorMapEncodeTiled would refuse the
    map of the array at `address` (row-major `shape` of `dtype`)."""
    where = f"{name}: a tensor map (box {tuple(box)}, swizzle {swizzle or 'none'})"
    if dtype not in DATA_TYPES:
        raise TensorMapError(f"{where} cannot describe {dtype} elements")
    itemsize = DATA_TYPES[dtype][1]
    if not 1 <= len(shape) <= 5 or len(shape) != len(box):
        raise TensorMapError(f"{where} needs a tensor of rank {len(box)} (1 to 5), got shape {tuple(shape)}")
    if address % 16:
        raise TensorMapError(f"{where} needs the array's address aligned to 16 bytes, got {address:#x}")
    for axis, extent in enumerate(shape):
        if not 1 <= extent <= 1 << 32:
            raise TensorMapError(f"{where}: extent {extent} of axis {axis} is not 1 to 2^32")
    for axis, stride in reversed(list(enumerate(_byte_strides(shape, itemsize)))):
        if stride % 16 or stride >= 1 << 40:
            raise TensorMapError(f"{where}: the stride along axis {axis} is {stride} bytes, not a "
                                 "multiple of 16 below 2^40")
    for axis, extent in enumerate(box):
        if not 1 <= extent <= 256:
            raise TensorMapError(f"{where}: box extent {extent} of axis {axis} is not 1 to 256")
    inner = box[-1] * itemsize
    if inner % 16 or (swizzle and inner != swizzle) or swizzle not in SWIZZLES:
        raise TensorMapError(f"{where}: the innermost box extent spans {inner} bytes; it must be a "
                             "multiple of 16 and, swizzled, the swizzle's span")


def encode(lib, name: str, address: int, shape: Sequence[int], dtype: str, box: Sequence[int],
           swizzle: int) -> TensorMapBytes:
    """The CUtensorMap of the array at `address`, through `lib` (libcuda,
    its entry point bound with ENCODE_ARGTYPES)."""
    check(name, address, shape, dtype, box, swizzle)
    data_type, itemsize = DATA_TYPES[dtype]
    rank = len(shape)
    # The driver counts axes innermost first; strides exclude the innermost.
    dims = (ctypes.c_uint64 * rank)(*reversed([int(d) for d in shape]))
    strides = (ctypes.c_uint64 * max(rank - 1, 1))(*reversed(_byte_strides(shape, itemsize) or [0]))
    box_dims = (ctypes.c_uint32 * rank)(*reversed([int(b) for b in box]))
    element_strides = (ctypes.c_uint32 * rank)(*([1] * rank))
    result = TensorMapBytes()
    status = lib.cuTensorMapEncodeTiled(ctypes.c_void_p(result.address), data_type, rank,
                                        ctypes.c_void_p(address), dims, strides, box_dims, element_strides,
                                        _INTERLEAVE_NONE, SWIZZLES[swizzle], _L2_PROMOTION_128B,
                                        _OOB_FILL_ZEROS)
    if status != 0:
        raise TensorMapError(f"{name}: cuTensorMapEncodeTiled refused the tensor map (CUresult {status})")
    return result
