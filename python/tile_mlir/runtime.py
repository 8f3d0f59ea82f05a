"""Loading and launching compiled tile kernels through the CUDA driver.

This module needs only numpy and a CUDA driver (``libcuda.so.1``): it imports
without the compiled extension and without MLIR, so precompiled kernels run
where neither exists. A kernel travels as one JSON artifact holding its PTX,
its cubin (when ptxas was present), its launch configuration and its
signature; arguments are checked against the signature before any launch.
"""

from __future__ import annotations

import base64
import binascii
import ctypes
import functools
import json
import math
import sys
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import tensor_maps
from .tensor_maps import TensorMapBytes

ARTIFACT_FORMAT = "tile-mlir-kernel/1"


class CudaError(RuntimeError):
    """A CUDA driver call failed, or there is no usable CUDA driver or GPU."""


class ArgumentError(TypeError):
    """An argument does not match the kernel's signature."""


class ArtifactError(ValueError):
    """An artifact file is not a valid kernel: the message names the file
    and the field."""


# CUDA's limits on a launch: grid x, y, z and block x, y, z.
GRID_LIMITS = ((1 << 31) - 1, 65535, 65535)
BLOCK_LIMITS = (1024, 1024, 64)
MAX_BLOCK_THREADS = 1024
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64")


def launch_dims(value, what: str, limits) -> Tuple[int, int, int]:
    """1 to 3 positive integers within `limits`, as (x, y, z); ValueError
    naming `what` otherwise."""
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(values) <= 3 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer))
                                         for v in values):
        raise ValueError(f"{what} is 1 to 3 positive integers, got {value!r}")
    for v, axis, limit in zip(values, "xyz", limits):
        if not 1 <= v <= limit:
            raise ValueError(f"{what} {axis} is {v}, outside 1..{limit}")
    return tuple(int(v) for v in values) + (1,) * (3 - len(values))


def stream_handle(stream) -> Optional[int]:
    """The CUstream of `stream`: None (the default stream), an integer
    handle, or an object that carries one (torch's ``cuda_stream``,
    cupy's ``ptr``)."""
    if stream is None:
        return None
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            stream = getattr(stream, attribute)
            break
    if isinstance(stream, bool) or not isinstance(stream, (int, np.integer)) or stream < 0:
        raise ArgumentError(f"stream is a CUDA stream handle (an int), a torch or cupy stream, "
                            f"or None, got {type(stream).__name__} {stream!r}")
    return int(stream)


# The largest runtime extent (a T.Tensor axis of None) a launch may give:
# CUDA's 32-bit counts, so that the kernel's loops to it count in 32 bits
# and its divisions are unsigned (the frontend assumes it; a launch past it
# is refused).
RUNTIME_EXTENT_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class Param:
    name: str
    shape: Tuple[Optional[int], ...]
    """A tensor's extents; None where each launch gives its own."""
    dtype: str
    written: bool = True
    """Whether the kernel stores to it: only such numpy arrays are copied
    back, and only they must be writeable (artifacts without the field
    count every parameter as written)."""
    kind: str = "tensor"
    """"tensor" (an array argument) or "scalar" (a number passed by value)."""
    tensor_maps: Tuple[Tuple[Tuple[int, ...], int], ...] = ()
    """A tensor's TMA tensor maps, (box, swizzle bytes) each: a 128-byte
    kernel argument each after the tensor's own, encoded at launch
    (tensor_maps.py)."""

    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


# The smallest magnitude that rounds to infinity in each float type.
FLOAT_OVERFLOW = {"float32": 2.0**128 - 2.0**103, "float64": math.inf}


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "..." + text[-8:]


# Dynamic shared memory a kernel takes without opting in, and the most any
# target gives a block (227 KiB: sm_90, sm_100).
DEFAULT_DYNAMIC_SHARED_BYTES = 48 * 1024
MAX_SHARED_BYTES = 227 * 1024

SCALAR_TYPES = {"int32": ctypes.c_int32, "int64": ctypes.c_int64, "float32": ctypes.c_float,
                "float64": ctypes.c_double}


# cuda.h: CUlaunchConfig, CUlaunchAttribute and its 64-byte value union.
_CLUSTER_DIMENSION = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
_PROGRAMMATIC_STREAM_SERIALIZATION = 6  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION


class _LaunchAttributeValue(ctypes.Union):
    _fields_ = [("pad", ctypes.c_char * 64), ("cluster", ctypes.c_uint * 3), ("allowed", ctypes.c_int)]


class _LaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", _LaunchAttributeValue)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_LaunchAttribute)), ("numAttrs", ctypes.c_uint)]


class _Driver:
    """The few driver entry points a launch needs, bound with ctypes."""

    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as error:
            raise CudaError(f"no CUDA driver: libcuda.so.1 could not be loaded ({error})") from None
        self.check(self.lib.cuInit(0), "cuInit")
        count = ctypes.c_int()
        self.check(self.lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
        if count.value == 0:
            raise CudaError("no CUDA device is visible")
        self.device = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(self.device), 0), "cuDeviceGet")
        self.context = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.context), self.device),
                    "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        self.lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        self.lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        # Entry points of CUDA 12 and newer, bound where the driver has them.
        if hasattr(self.lib, "cuLaunchKernelEx"):
            self.lib.cuLaunchKernelEx.argtypes = [ctypes.POINTER(LaunchConfig), ctypes.c_void_p,
                                                  ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        if hasattr(self.lib, "cuTensorMapEncodeTiled"):
            self.lib.cuTensorMapEncodeTiled.argtypes = tensor_maps.ENCODE_ARGTYPES
        self.lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 6 + [
            ctypes.c_uint, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]

    def device_name(self):
        """The card's name, as cuDeviceGetName gives it (results name the
        card that measured them)."""
        name = ctypes.create_string_buffer(256)
        self.check(self.lib.cuDeviceGetName(name, 256, self.device), "cuDeviceGetName")
        return name.value.decode()

    def check(self, status, what):
        if status != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(status, ctypes.byref(name))
            raise CudaError(f"{what} failed: {name.value.decode() if name.value else status}")

    def compute_capability(self) -> Tuple[int, int]:
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(major), 75, self.device), "cuDeviceGetAttribute")
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, self.device), "cuDeviceGetAttribute")
        return major.value, minor.value

    def load_module(self, image: bytes):
        module = ctypes.c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)), "cuModuleLoadData")
        return module

    def load(self, image: bytes, name: str, module=None):
        module = module or self.load_module(image)
        function = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(function), module, name.encode()),
                    f"cuModuleGetFunction({name})")
        return function

    def check_device(self, pointer: int, name: str) -> None:
        """A CUDA array must live on the device kernels launch on."""
        ordinal = ctypes.c_int()
        status = self.lib.cuPointerGetAttribute(ctypes.byref(ordinal), 9,  # DEVICE_ORDINAL
                                                ctypes.c_uint64(pointer))
        if status == 0 and ordinal.value != self.device.value:
            raise ArgumentError(f"{name}: the array lives on CUDA device {ordinal.value}, but "
                                f"tile-mlir launches on device {self.device.value}")

    def alloc(self, nbytes: int) -> int:
        pointer = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(pointer), max(nbytes, 1)), "cuMemAlloc")
        return pointer.value

    def free(self, pointer: int):
        self.check(self.lib.cuMemFree_v2(pointer), "cuMemFree")

    def to_device(self, pointer: int, array: np.ndarray):
        self.check(self.lib.cuMemcpyHtoD_v2(pointer, array.ctypes.data, array.nbytes), "cuMemcpyHtoD")

    def to_host(self, array: np.ndarray, pointer: int):
        self.check(self.lib.cuMemcpyDtoH_v2(array.ctypes.data, pointer, array.nbytes), "cuMemcpyDtoH")

    def allow_dynamic_shared(self, function, nbytes: int, name: str) -> None:
        """Lets `function` take `nbytes` of dynamic shared memory: past 48
        KiB with the kernel's static shared memory (the attribute's default
        is 48 KiB less the static bytes) a kernel must opt in
        (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), up to what the
        device gives a block with its static shared memory."""
        most, static = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.cuFuncGetAttribute(ctypes.byref(static), 1, function),  # SHARED_SIZE_BYTES
                    "cuFuncGetAttribute")
        if static.value + nbytes <= DEFAULT_DYNAMIC_SHARED_BYTES:
            return
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(most), 97, self.device),  # ..._OPTIN
                    "cuDeviceGetAttribute")
        if static.value + nbytes > most.value:
            raise CudaError(f"{name} needs {static.value + nbytes} bytes of shared memory per block "
                            f"({static.value} static, {nbytes} dynamic); this device gives a block at "
                            f"most {most.value}")
        self.check(self.lib.cuFuncSetAttribute(function, 8, nbytes),  # MAX_DYNAMIC_SHARED_SIZE_BYTES
                    "cuFuncSetAttribute")

    def launch(self, function, grid, block, arguments: Sequence, sync: bool = True,
               stream: Optional[int] = None, shared_bytes: int = 0, cluster=None, dependent: bool = False):
        """`arguments` are ctypes values (pointers as c_uint64, scalars by
        value), or ints for pointers; `shared_bytes` the dynamic shared
        memory of each block; `cluster` the blocks of a thread block
        cluster (cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
        `dependent` a programmatic dependent launch (with
        CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)."""
        values = [a if isinstance(a, (ctypes._SimpleCData, TensorMapBytes)) else ctypes.c_uint64(a)
                  for a in arguments]
        params = (ctypes.c_void_p * len(values))(*[
            ctypes.c_void_p(v.address) if isinstance(v, TensorMapBytes) else
            ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        handle = ctypes.c_void_p(stream) if stream else None
        attributes = []
        if cluster:
            attributes.append(_LaunchAttribute(id=_CLUSTER_DIMENSION))
            attributes[-1].value.cluster = (ctypes.c_uint * 3)(*cluster)
        if dependent:
            attributes.append(_LaunchAttribute(id=_PROGRAMMATIC_STREAM_SERIALIZATION))
            attributes[-1].value.allowed = 1
        if attributes:
            array = (_LaunchAttribute * len(attributes))(*attributes)
            config = LaunchConfig(*grid, *block, shared_bytes, handle, array, len(attributes))
            self.check(self.lib.cuLaunchKernelEx(ctypes.byref(config), function, params, None),
                        "cuLaunchKernelEx")
        else:
            self.check(self.lib.cuLaunchKernel(function, *grid, *block, shared_bytes, handle, params, None),
                        "cuLaunchKernel")
        if sync:
            self.check(self.lib.cuStreamSynchronize(handle) if stream else self.lib.cuCtxSynchronize(),
                        "kernel execution (synchronize)")


_driver: Optional[_Driver] = None


def driver() -> _Driver:
    """The process's driver binding, created on first use (never at import)."""
    global _driver
    if _driver is None:
        _driver = _Driver()
    return _driver


def local_arch() -> Optional[str]:
    """The local GPU's target (e.g. "sm_90"), or None without a usable GPU."""
    try:
        major, minor = driver().compute_capability()
    except CudaError:
        return None
    return f"sm_{major}{minor}"


# DLPack (dlpack.h): the device types and the tensor struct a capsule holds.
_KDL_CPU, _KDL_CUDA = 1, 2
_DLPACK_DTYPES = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
                  (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
                  (2, 16): "float16", (2, 32): "float32", (2, 64): "float64", (6, 8): "bool"}


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLPackArray:
    """A CUDA array received through DLPack, seen as a CUDA array interface.
    It holds the capsule, so the producer keeps the memory while the
    launch uses it; the capsule is never consumed, and its destructor
    releases the producer's tensor as DLPack says."""

    def __init__(self, value, device_id: int):
        self.capsule = value.__dlpack__()
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        tensor = _DLTensor.from_address(get(self.capsule, b"dltensor"))
        shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
        dtype = _DLPACK_DTYPES.get((tensor.code, tensor.bits))
        if dtype is None or tensor.lanes != 1:
            raise ArgumentError(f"a DLPack tensor of type code {tensor.code}, {tensor.bits} bits, "
                                f"{tensor.lanes} lanes has no numpy dtype (view bfloat16 as int16)")
        strides = None
        if tensor.strides:
            strides = tuple(tensor.strides[i] * np.dtype(dtype).itemsize for i in range(tensor.ndim))
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": np.dtype(dtype).str, "strides": strides, "version": 3,
            "data": ((tensor.data or 0) + tensor.byte_offset, False)}
        self.device_id = device_id


def _as_cuda_array(value):
    """A CUDA array interface for `value`: its own, or one from DLPack
    (``__dlpack__``), checked to live on the device kernels launch on."""
    if (isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__")
            or not hasattr(value, "__dlpack_device__")):
        return value
    device_type, device_id = value.__dlpack_device__()
    if int(device_type) == _KDL_CPU:
        raise ArgumentError("a DLPack array in host memory: pass a numpy array (or a CUDA array)")
    if int(device_type) != _KDL_CUDA:
        raise ArgumentError(f"a DLPack array on device type {int(device_type)}: tile-mlir launches on "
                            "CUDA device 0")
    if int(device_id) != 0:
        raise ArgumentError(f"the array lives on CUDA device {int(device_id)}, but tile-mlir launches "
                            "on device 0")
    return DLPackArray(value, int(device_id))


def _device_pointer(value):
    """(pointer, shape, dtype, contiguous, read_only) of a CUDA array, or None."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        return None
    shape = tuple(interface["shape"])
    dtype = np.dtype(interface["typestr"])
    strides = interface.get("strides")
    contiguous = strides is None or tuple(strides) == tuple(
        int(np.prod(shape[i + 1:], dtype=np.int64)) * dtype.itemsize for i in range(len(shape)))
    pointer, read_only = interface["data"]
    return pointer, shape, dtype, contiguous, bool(read_only)


class Kernel:
    """A compiled kernel: PTX, cubin, launch configuration and signature."""

    def __init__(self, name: str, ptx: str, cubin: Optional[bytes], target: str,
                 params: List[Param], grid: Tuple[int, int, int], block: Tuple[int, int, int],
                 convention: str = "bare", dynamic_shared_bytes: int = 0,
                 cluster: Optional[Tuple[int, int, int]] = None, *, dependent: bool = False):
        self.name, self.ptx, self.cubin, self.target = name, ptx, cubin, target
        # Blocks per thread block cluster, launched with cuLaunchKernelEx.
        self.cluster = None if cluster is None else tuple(cluster)
        # A programmatic dependent launch (LaunchConfig(dependent=True)).
        self.dependent = dependent
        # The dynamic shared memory every launch gives a block
        # (T.alloc_dynamic_shared).
        self.dynamic_shared_bytes = dynamic_shared_bytes
        # "bare": one pointer per tensor; "descriptor": pointer, pointer,
        # offset, sizes and strides per tensor (runtime sizes, scalars).
        self.convention = convention
        self.params, self.block = params, tuple(block)
        # None: chosen at each launch (LaunchConfig(grid=None)).
        self.grid = None if grid is None else tuple(grid)
        self._function = None
        self._module = None  # a module shared with other kernels of one image

    # -- artifact ------------------------------------------------------------
    def save(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.artifact(), f, indent=1)

    def artifact(self) -> dict:
        """The JSON object ``save`` writes."""
        return {
            "format": ARTIFACT_FORMAT, "name": self.name, "target": self.target,
            "grid": None if self.grid is None else list(self.grid), "block": list(self.block),
            "convention": self.convention,
            "dynamic_shared_bytes": self.dynamic_shared_bytes,
            **({"cluster": list(self.cluster)} if self.cluster else {}),
            **({"dependent": True} if self.dependent else {}),
            "params": [{"name": p.name, "kind": p.kind, "shape": list(p.shape), "dtype": p.dtype,
                        "written": p.written,
                        **({"tensor_maps": [{"box": list(box), "swizzle": swizzle}
                                            for box, swizzle in p.tensor_maps]} if p.tensor_maps else {})}
                       for p in self.params],
            "ptx": self.ptx,
            "cubin": base64.b64encode(self.cubin).decode() if self.cubin else None,
        }

    # -- launch --------------------------------------------------------------
    def check_arguments(self, args) -> None:
        args = [_as_cuda_array(a) for a in args]
        if len(args) != len(self.params):
            what = "arrays" if all(p.kind == "tensor" for p in self.params) else "arguments"
            raise ArgumentError(f"{self.name} takes {len(self.params)} {what} "
                                f"({', '.join(p.name for p in self.params)}), got {len(args)}")
        for param, value in zip(self.params, args):
            if param.kind == "scalar":
                _check_scalar(param, value)
                continue
            device = _device_pointer(value)
            if device is not None:
                pointer, shape, dtype, contiguous, read_only = device
                if param.written and read_only:
                    raise ArgumentError(f"{param.name}: the CUDA array is read-only "
                                        "(__cuda_array_interface__), but the kernel writes it")
                if pointer < 0 or (pointer == 0 and int(np.prod(shape)) > 0):
                    raise ArgumentError(f"{param.name}: the CUDA array's pointer is {pointer}, "
                                        "not a device address")
            elif isinstance(value, np.ndarray):
                shape, dtype, contiguous = value.shape, value.dtype, value.flags.c_contiguous
                if param.written and not value.flags.writeable:
                    raise ArgumentError(f"{param.name}: the array is read-only, but the kernel writes it")
            else:
                raise ArgumentError(f"{param.name}: expected a numpy array or a CUDA array, "
                                    f"got {type(value).__name__}")
            if len(shape) != len(param.shape) or any(want is not None and want != got
                                                     for want, got in zip(param.shape, shape)):
                raise ArgumentError(f"{param.name}: expected shape {_shape_text(param.shape)}, "
                                    f"got {tuple(shape)}")
            for axis, (want, got) in enumerate(zip(param.shape, shape)):
                if want is None and got > RUNTIME_EXTENT_LIMIT:
                    raise ArgumentError(f"{param.name}: axis {axis}'s runtime extent {got} is past 2^31 - 1, the "
                                        "largest a kernel counts to")
            if np.dtype(dtype) != np.dtype(param.dtype):
                raise ArgumentError(f"{param.name}: expected dtype {param.dtype}, got {np.dtype(dtype)}")
            if not contiguous:
                raise ArgumentError(f"{param.name}: expected a C-contiguous array")
            # What cuTensorMapEncodeTiled refuses, before anything runs (the
            # interpreter too): a numpy array is copied to a device
            # allocation, aligned to 256 bytes.
            for box, swizzle in param.tensor_maps:
                try:
                    tensor_maps.check(param.name, pointer if device is not None else 0, [int(d) for d in shape],
                                      param.dtype, box, swizzle)
                except tensor_maps.TensorMapError as error:
                    raise ArgumentError(str(error)) from None
        self._check_aliasing(args)

    def _check_aliasing(self, args) -> None:
        """The same numpy array for two parameters shares one device buffer;
        two different arrays over overlapping host memory cannot be copied
        back consistently and are refused."""
        hosts = [(p, a) for p, a in zip(self.params, args) if isinstance(a, np.ndarray)
                 and _device_pointer(a) is None]
        for i, (p, a) in enumerate(hosts):
            for q, b in hosts[:i]:
                if a is not b and np.may_share_memory(a, b) and (p.written or q.written):
                    raise ArgumentError(f"{q.name} and {p.name} are different arrays over overlapping "
                                        "memory; pass the same array for both, or copies")

    def __repr__(self):
        grid = "chosen at launch" if self.grid is None else self.grid
        params = ", ".join(f"{p.name}: {p.dtype}" + ("" if p.kind == "scalar" else _shape_text(p.shape, "[]"))
                           for p in self.params)
        return f"<tile-mlir kernel {self.name} for {self.target}, grid {grid}, block {self.block}, ({params})>"

    def __getitem__(self, grid):
        """``kernel[grid](*arrays)``, as in Triton: this launch's grid."""
        return functools.partial(self.__call__, grid=grid)

    def _tensor_arguments(self, param: Param, pointer: int, shape, dtype) -> List:
        """The kernel arguments of one tensor: its pointer, or under the
        descriptor convention the memref descriptor (allocated and aligned
        pointers, offset, sizes, strides in elements) of a C-contiguous
        array; then its tensor maps, encoded for this array."""
        shape = [int(d) for d in shape]
        maps = []
        for box, swizzle in param.tensor_maps:
            try:
                maps.append(tensor_maps.encode(driver().lib, param.name, pointer, shape, param.dtype, box,
                                               swizzle))
            except tensor_maps.TensorMapError as error:
                raise ArgumentError(str(error)) from None
        if self.convention == "bare":
            return [ctypes.c_uint64(pointer)] + maps
        strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
        return ([ctypes.c_uint64(pointer), ctypes.c_uint64(pointer), ctypes.c_int64(0)]
                + [ctypes.c_int64(d) for d in shape] + [ctypes.c_int64(s) for s in strides] + maps)

    def launch_grid(self, grid) -> Tuple[int, int, int]:
        """The grid a launch uses: the call's, which must equal a grid
        compiled in (the lowering may assume that one)."""
        if grid is None:
            if self.grid is None:
                raise ArgumentError(f"{self.name} was compiled with LaunchConfig(grid=None): choose "
                                    "the grid at launch, kernel[grid](...) or kernel(..., grid=...)")
            return self.grid
        try:
            chosen = launch_dims(grid, "the grid's", GRID_LIMITS)
        except ValueError as error:
            raise ArgumentError(str(error)) from None
        if self.grid is not None and chosen != self.grid:
            raise ArgumentError(f"{self.name} was compiled for grid {self.grid}, which the lowering "
                                f"may assume; got {chosen}. Compile with LaunchConfig(grid=None) "
                                "to choose the grid at launch")
        return chosen

    def function(self):
        """The loaded CUfunction (loaded on first use, its dynamic shared
        memory allowed)."""
        if self._function is None:
            drv = driver()
            image = self.cubin if self.cubin else self.ptx.encode() + b"\0"
            function = drv.load(image, self.name, self._module)
            if self.dynamic_shared_bytes:
                drv.allow_dynamic_shared(function, self.dynamic_shared_bytes, self.name)
            self._function = function
        return self._function

    def __call__(self, *args, grid=None, stream=None, sync: bool = True):
        """Launches on the local GPU, on `stream` (a handle, or a torch or
        cupy stream; None is the default stream) and with `grid` (for a
        kernel compiled with LaunchConfig(grid=None)). numpy arrays are
        copied in and back (only those the kernel writes); CUDA arrays
        (torch, cupy, ...) are used in place. With sync=False and only CUDA
        arrays, the launch is asynchronous."""
        launch_grid = self.launch_grid(grid)
        handle = stream_handle(stream)
        # DLPack arrays are seen through their capsules, held for the call.
        args = [_as_cuda_array(a) for a in args]
        self.check_arguments(args)
        drv = driver()
        self.function()
        pointers, owned = [], {}  # id(array) -> [pointer, array, written]
        try:
            for param, value in zip(self.params, args):
                if param.kind == "scalar":
                    pointers.append(SCALAR_TYPES[param.dtype](value))
                    continue
                device = _device_pointer(value)
                if device is not None:
                    drv.check_device(device[0], param.name)
                    pointers += self._tensor_arguments(param, device[0], device[1], device[2])
                    continue
                # One device buffer per host array: the same array passed
                # twice is one buffer, as it is one on the host.
                entry = owned.get(id(value))
                if entry is None:
                    entry = owned[id(value)] = [drv.alloc(value.nbytes), value, False]
                    drv.to_device(entry[0], np.ascontiguousarray(value))
                entry[2] |= param.written
                pointers += self._tensor_arguments(param, entry[0], value.shape, value.dtype)
            drv.launch(self._function, launch_grid, self.block, pointers,
                       sync=sync or bool(owned), stream=handle, shared_bytes=self.dynamic_shared_bytes,
                       **({"cluster": self.cluster} if self.cluster else {}),
                       **({"dependent": True} if self.dependent else {}))
            for pointer, value, written in owned.values():
                if written:
                    drv.to_host(value, pointer)
        finally:
            for pointer, _, _ in owned.values():
                drv.free(pointer)


def _shape_text(shape, brackets="()") -> str:
    """(4, 2), or (?, 4) for a runtime extent."""
    text = ", ".join("?" if d is None else str(d) for d in shape)
    if brackets == "()" and len(shape) == 1:
        text += ","
    return brackets[0] + text + brackets[1]


def _check_scalar(param: Param, value) -> None:
    if param.dtype.startswith("int"):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ArgumentError(f"{param.name}: expected an integer ({param.dtype}), "
                                f"got {type(value).__name__} {value!r}")
        info = np.iinfo(param.dtype)
        if not info.min <= int(value) <= info.max:
            raise ArgumentError(f"{param.name}: {value} does not fit {param.dtype}")
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ArgumentError(f"{param.name}: expected a number ({param.dtype}), got {type(value).__name__}")
    else:
        # inf and nan are spelled on purpose; a finite number that would
        # round to infinity in the parameter's type does not fit.
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        explicit = isinstance(value, (float, np.floating)) and not math.isfinite(value)
        if not explicit and abs(number) >= FLOAT_OVERFLOW[param.dtype]:
            raise ArgumentError(f"{param.name}: {_short(value)} does not fit {param.dtype}: it "
                                "would round to infinity")


def _elf_problem(image: bytes) -> Optional[str]:
    """Why `image` is not a CUDA ELF object, or None: checked before
    cuModuleLoadData reads it (which trusts the header's offsets)."""
    if len(image) < 64 or image[:4] != b"\x7fELF":
        return "not an ELF image (no 64-byte header starting \\x7fELF)"
    if image[4] != 2 or image[5] != 1:
        return "not a 64-bit little-endian ELF image"
    if int.from_bytes(image[18:20], "little") != 190:  # EM_CUDA
        return "an ELF image for another machine than CUDA"
    section_offset = int.from_bytes(image[40:48], "little")
    section_size = int.from_bytes(image[58:60], "little")
    section_count = int.from_bytes(image[60:62], "little")
    if section_offset + section_size * section_count > len(image):
        return (f"the ELF section headers end at {section_offset + section_size * section_count}, "
                f"past the image's {len(image)} bytes")
    return None


def load(path: str) -> Kernel:
    """Loads a kernel saved with ``Kernel.save``, checking every field first:
    an invalid one raises ArtifactError naming the file and the field."""
    def fail(field, why):
        raise ArtifactError(f"{path}: {field}: {why}")

    try:
        with open(path) as f:
            artifact = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArtifactError(f"{path}: not readable as JSON ({error})") from None
    except RecursionError:
        # json nests one Python frame per array or object: a file nested
        # past the interpreter's depth is not an artifact (save() writes
        # a flat object).
        raise ArtifactError(f"{path}: not an artifact: JSON nested deeper than Python's recursion limit "
                            f"({sys.getrecursionlimit()})") from None
    if not isinstance(artifact, dict):
        fail("the file", f"expected a JSON object, got {type(artifact).__name__}")
    if artifact.get("format") != ARTIFACT_FORMAT:
        fail("format", f"expected {ARTIFACT_FORMAT!r}, got {artifact.get('format')!r}")
    for field in ("name", "target", "ptx"):
        if not isinstance(artifact.get(field), str) or not artifact[field]:
            fail(field, f"expected a non-empty string, got {artifact.get(field)!r}")
    if not artifact["name"].isidentifier():
        fail("name", f"{artifact['name']!r} is not a kernel name")
    target = artifact["target"]
    if not (target.startswith("sm_") and target[3:].rstrip("af").isdigit()):
        fail("target", f"expected sm_XX, sm_XXa or sm_XXf, got {target!r}")
    grid = artifact.get("grid")
    try:
        grid = None if grid is None else launch_dims(grid, "grid", GRID_LIMITS)
        block = launch_dims(artifact.get("block"), "block", BLOCK_LIMITS)
    except ValueError as error:
        fail(str(error).split(" ")[0], str(error))
    if block[0] * block[1] * block[2] > MAX_BLOCK_THREADS:
        fail("block", f"{block} has more than {MAX_BLOCK_THREADS} threads")
    convention = artifact.get("convention", "bare")
    if convention not in ("bare", "descriptor"):
        fail("convention", f"expected 'bare' or 'descriptor', got {convention!r}")
    if not isinstance(artifact.get("params"), list):
        fail("params", f"expected a list, got {artifact.get('params')!r}")
    params = []
    for i, p in enumerate(artifact["params"]):
        where = f"params[{i}]"
        if not isinstance(p, dict):
            fail(where, f"expected an object, got {p!r}")
        if not isinstance(p.get("name"), str) or not p["name"]:
            fail(f"{where}.name", f"expected a non-empty string, got {p.get('name')!r}")
        kind = p.get("kind", "tensor")
        if kind not in ("tensor", "scalar"):
            fail(f"{where}.kind", f"expected 'tensor' or 'scalar', got {kind!r}")
        shape = p.get("shape")
        if not isinstance(shape, list) or any(
                d is not None and (isinstance(d, bool) or not isinstance(d, int) or d < 0) for d in shape):
            fail(f"{where}.shape", f"expected a list of non-negative integers or nulls, got {shape!r}")
        if None in shape and convention == "bare":
            fail(f"{where}.shape", "a runtime extent (null) needs the descriptor convention")
        dtypes = tuple(SCALAR_TYPES) if kind == "scalar" else DTYPES
        if p.get("dtype") not in dtypes:
            fail(f"{where}.dtype", f"expected one of {', '.join(dtypes)}, got {p.get('dtype')!r}")
        if not isinstance(p.get("written", True), bool):
            fail(f"{where}.written", f"expected true or false, got {p.get('written')!r}")
        maps = p.get("tensor_maps", [])
        if not isinstance(maps, list) or any(
                not isinstance(m, dict) or not isinstance(m.get("box"), list) or len(m["box"]) != len(shape)
                or any(isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= 256 for b in m["box"])
                or m.get("swizzle") not in tensor_maps.SWIZZLES for m in maps) or (maps and kind != "tensor"):
            fail(f"{where}.tensor_maps", "expected a list of {box: [1 to 256 per axis], swizzle: 0, 32, 64 "
                 f"or 128}} of a tensor, got {maps!r}")
        params.append(Param(p["name"], tuple(shape), p["dtype"], p.get("written", True), kind,
                            tuple((tuple(m["box"]), m["swizzle"]) for m in maps)))
    cubin = artifact.get("cubin")
    if cubin is not None:
        if not isinstance(cubin, str):
            fail("cubin", f"expected base64 text or null, got {type(cubin).__name__}")
        try:
            cubin = base64.b64decode(cubin, validate=True)
        except (binascii.Error, ValueError) as error:  # ValueError: not ASCII
            fail("cubin", f"not base64 ({error})")
        problem = _elf_problem(cubin)
        if problem:
            fail("cubin", problem)
    if convention == "bare" and any(p.kind == "scalar" for p in params):
        fail("convention", "scalar parameters need the descriptor convention")
    dynamic = artifact.get("dynamic_shared_bytes", 0)
    if isinstance(dynamic, bool) or not isinstance(dynamic, int) or not 0 <= dynamic <= MAX_SHARED_BYTES:
        fail("dynamic_shared_bytes", f"expected a byte count from 0 to {MAX_SHARED_BYTES}, got {dynamic!r}")
    cluster = artifact.get("cluster")
    if cluster is not None:
        try:
            cluster = launch_dims(cluster, "cluster", (8, 8, 8))
        except ValueError as error:
            fail("cluster", str(error))
        if grid is None or any(g % c for g, c in zip(grid, cluster)):
            fail("cluster", f"the grid {grid} does not hold whole clusters of {cluster}")
    dependent = artifact.get("dependent", False)
    if not isinstance(dependent, bool):
        fail("dependent", f"expected true or false, got {dependent!r}")
    return Kernel(artifact["name"], artifact["ptx"], cubin or None, target, params, grid, block, convention,
                  dynamic, cluster, dependent=dependent)
