"""``tvm.runtime.tensor`` and devices, over the tile_mlir runtime."""

from __future__ import annotations

import numpy as np

from ... import runtime as _runtime


class Device:
    def __init__(self, kind: str, index: int = 0):
        self.kind, self.index = kind, index

    def __repr__(self):
        return f"{self.kind}({self.index})"


def cuda(index: int = 0) -> Device:
    if index != 0:
        raise ValueError("only CUDA device 0 is supported")
    return Device("cuda", index)


def cpu(index: int = 0) -> Device:
    return Device("cpu", index)


class Tensor:
    """An array on a device. CUDA tensors own device memory and expose it
    through ``__cuda_array_interface__``; ``numpy()`` copies back."""

    def __init__(self, array: np.ndarray, device: Device):
        self.device = device
        self.shape, self.dtype = array.shape, array.dtype
        if device.kind == "cpu":
            self._host, self._pointer = np.array(array, copy=True), None
            return
        array = np.ascontiguousarray(array)
        driver = _runtime.driver()
        self._host = None
        self._pointer = driver.alloc(array.nbytes)
        self._nbytes = array.nbytes
        driver.to_device(self._pointer, array)

    @property
    def __cuda_array_interface__(self):
        if self._pointer is None:
            raise AttributeError("a CPU tensor has no CUDA array interface")
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self._pointer, False),
                "version": 3, "strides": None}

    def numpy(self) -> np.ndarray:
        if self._pointer is None:
            return self._host.copy()
        out = np.empty(self.shape, self.dtype)
        _runtime.driver().to_host(out, self._pointer)
        return out

    def __del__(self):
        pointer = getattr(self, "_pointer", None)
        if pointer is not None:
            try:
                _runtime.driver().free(pointer)
            except Exception:  # the driver may already be gone at exit
                pass


def tensor(array, device: Device = None) -> Tensor:
    return Tensor(np.asarray(array), device or cpu())
