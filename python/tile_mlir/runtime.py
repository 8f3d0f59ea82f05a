"""Loading and launching compiled tile kernels through the CUDA driver.

This module needs only numpy and a CUDA driver (``libcuda.so.1``): it imports
without the compiled extension and without MLIR, so precompiled kernels run
where neither exists. A kernel travels as one JSON artifact holding its PTX,
its cubin (when ptxas was present), its launch configuration and its
signature; arguments are checked against the signature before any launch.
"""

from __future__ import annotations

import base64
import ctypes
import json
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

ARTIFACT_FORMAT = "tile-mlir-kernel/1"


class CudaError(RuntimeError):
    """A CUDA driver call failed, or there is no usable CUDA driver or GPU."""


class ArgumentError(TypeError):
    """An argument does not match the kernel's signature."""


@dataclass(frozen=True)
class Param:
    name: str
    shape: Tuple[int, ...]
    dtype: str
    written: bool = True
    """Whether the kernel stores to it: only such numpy arrays are copied
    back, and only they must be writeable (artifacts without the field
    count every parameter as written)."""

    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


class _Driver:
    """The few driver entry points a launch needs, bound with ctypes."""

    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as error:
            raise CudaError(f"no CUDA driver: libcuda.so.1 could not be loaded ({error})") from None
        self._check(self.lib.cuInit(0), "cuInit")
        count = ctypes.c_int()
        self._check(self.lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
        if count.value == 0:
            raise CudaError("no CUDA device is visible")
        self.device = ctypes.c_int()
        self._check(self.lib.cuDeviceGet(ctypes.byref(self.device), 0), "cuDeviceGet")
        self.context = ctypes.c_void_p()
        self._check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.context), self.device),
                    "cuDevicePrimaryCtxRetain")
        self._check(self.lib.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        self.lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        self.lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        self.lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 6 + [
            ctypes.c_uint, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]

    def _check(self, status, what):
        if status != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(status, ctypes.byref(name))
            raise CudaError(f"{what} failed: {name.value.decode() if name.value else status}")

    def compute_capability(self) -> Tuple[int, int]:
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(self.lib.cuDeviceGetAttribute(ctypes.byref(major), 75, self.device), "cuDeviceGetAttribute")
        self._check(self.lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, self.device), "cuDeviceGetAttribute")
        return major.value, minor.value

    def load_module(self, image: bytes):
        module = ctypes.c_void_p()
        self._check(self.lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)), "cuModuleLoadData")
        return module

    def load(self, image: bytes, name: str, module=None):
        module = module or self.load_module(image)
        function = ctypes.c_void_p()
        self._check(self.lib.cuModuleGetFunction(ctypes.byref(function), module, name.encode()),
                    f"cuModuleGetFunction({name})")
        return function

    def alloc(self, nbytes: int) -> int:
        pointer = ctypes.c_uint64()
        self._check(self.lib.cuMemAlloc_v2(ctypes.byref(pointer), max(nbytes, 1)), "cuMemAlloc")
        return pointer.value

    def free(self, pointer: int):
        self._check(self.lib.cuMemFree_v2(pointer), "cuMemFree")

    def to_device(self, pointer: int, array: np.ndarray):
        self._check(self.lib.cuMemcpyHtoD_v2(pointer, array.ctypes.data, array.nbytes), "cuMemcpyHtoD")

    def to_host(self, array: np.ndarray, pointer: int):
        self._check(self.lib.cuMemcpyDtoH_v2(array.ctypes.data, pointer, array.nbytes), "cuMemcpyDtoH")

    def launch(self, function, grid, block, pointers: Sequence[int], sync: bool = True):
        values = [ctypes.c_uint64(p) for p in pointers]
        params = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        self._check(self.lib.cuLaunchKernel(function, *grid, *block, 0, None, params, None), "cuLaunchKernel")
        if sync:
            self._check(self.lib.cuCtxSynchronize(), "kernel execution (cuCtxSynchronize)")


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


def _device_pointer(value):
    """(pointer, shape, dtype, contiguous) of a CUDA array, or None."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        return None
    shape = tuple(interface["shape"])
    dtype = np.dtype(interface["typestr"])
    strides = interface.get("strides")
    contiguous = strides is None or tuple(strides) == tuple(
        int(np.prod(shape[i + 1:], dtype=np.int64)) * dtype.itemsize for i in range(len(shape)))
    return interface["data"][0], shape, dtype, contiguous


class Kernel:
    """A compiled kernel: PTX, cubin, launch configuration and signature."""

    def __init__(self, name: str, ptx: str, cubin: Optional[bytes], target: str,
                 params: List[Param], grid: Tuple[int, int, int], block: Tuple[int, int, int]):
        self.name, self.ptx, self.cubin, self.target = name, ptx, cubin, target
        self.params, self.grid, self.block = params, tuple(grid), tuple(block)
        self._function = None
        self._module = None  # a module shared with other kernels of one image

    # -- artifact ------------------------------------------------------------
    def save(self, path: str) -> None:
        artifact = {
            "format": ARTIFACT_FORMAT, "name": self.name, "target": self.target,
            "grid": list(self.grid), "block": list(self.block),
            "params": [{"name": p.name, "shape": list(p.shape), "dtype": p.dtype, "written": p.written}
                       for p in self.params],
            "ptx": self.ptx,
            "cubin": base64.b64encode(self.cubin).decode() if self.cubin else None,
        }
        with open(path, "w") as f:
            json.dump(artifact, f, indent=1)

    # -- launch --------------------------------------------------------------
    def check_arguments(self, args) -> None:
        if len(args) != len(self.params):
            raise ArgumentError(f"{self.name} takes {len(self.params)} arrays "
                                f"({', '.join(p.name for p in self.params)}), got {len(args)}")
        for param, value in zip(self.params, args):
            device = _device_pointer(value)
            if device is not None:
                _, shape, dtype, contiguous = device
            elif isinstance(value, np.ndarray):
                shape, dtype, contiguous = value.shape, value.dtype, value.flags.c_contiguous
                if param.written and not value.flags.writeable:
                    raise ArgumentError(f"{param.name}: the array is read-only, but the kernel writes it")
            else:
                raise ArgumentError(f"{param.name}: expected a numpy array or a CUDA array, "
                                    f"got {type(value).__name__}")
            if tuple(shape) != param.shape:
                raise ArgumentError(f"{param.name}: expected shape {param.shape}, got {tuple(shape)}")
            if np.dtype(dtype) != np.dtype(param.dtype):
                raise ArgumentError(f"{param.name}: expected dtype {param.dtype}, got {np.dtype(dtype)}")
            if not contiguous:
                raise ArgumentError(f"{param.name}: expected a C-contiguous array")
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

    def __call__(self, *args, sync: bool = True):
        """Launches on the local GPU. numpy arrays are copied in and back;
        CUDA arrays (torch, cupy, ...) are used in place. With sync=False and
        only CUDA arrays, the launch is asynchronous on the default stream."""
        self.check_arguments(args)
        drv = driver()
        if self._function is None:
            image = self.cubin if self.cubin else self.ptx.encode() + b"\0"
            self._function = drv.load(image, self.name, self._module)
        pointers, owned = [], {}  # id(array) -> [pointer, array, written]
        try:
            for param, value in zip(self.params, args):
                device = _device_pointer(value)
                if device is not None:
                    pointers.append(device[0])
                    continue
                # One device buffer per host array: the same array passed
                # twice is one buffer, as it is one on the host.
                entry = owned.get(id(value))
                if entry is None:
                    entry = owned[id(value)] = [drv.alloc(value.nbytes), value, False]
                    drv.to_device(entry[0], np.ascontiguousarray(value))
                entry[2] |= param.written
                pointers.append(entry[0])
            drv.launch(self._function, self.grid, self.block, pointers, sync=sync or bool(owned))
            for pointer, value, written in owned.values():
                if written:
                    drv.to_host(value, pointer)
        finally:
            for pointer, _, _ in owned.values():
                drv.free(pointer)


def load(path: str) -> Kernel:
    """Loads a kernel saved with ``Kernel.save``."""
    with open(path) as f:
        artifact = json.load(f)
    if artifact.get("format") != ARTIFACT_FORMAT:
        raise ValueError(f"{path}: not a {ARTIFACT_FORMAT} artifact")
    params = [Param(p["name"], tuple(p["shape"]), p["dtype"], bool(p.get("written", True)))
              for p in artifact["params"]]
    cubin = base64.b64decode(artifact["cubin"]) if artifact.get("cubin") else None
    return Kernel(artifact["name"], artifact["ptx"], cubin, artifact["target"], params,
                  tuple(artifact["grid"]), tuple(artifact["block"]))
