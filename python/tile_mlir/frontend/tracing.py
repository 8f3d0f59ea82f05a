"""What every part of the script front end builds on: TileError and the
user's location, dtypes and memref types, the launch configuration, and
the kernel builder that the body of the @T.function being traced talks to."""

from __future__ import annotations

import math
import operator
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import numpy as np
from mlir import ir

from .. import ranges as _ranges

# The tile_mlir package: frames inside it are not the user's.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# numpy dtype names and the MLIR element types that carry them.
_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
}
GLOBAL_SPACE, SHARED_SPACE, REGISTER_SPACE = 1, 3, 5


class TileError(ValueError):
    """A kernel definition broke a rule; the message starts with the user's
    ``file.py:line`` (the first caller outside tile_mlir)."""

    def __init__(self, message: str, located: bool = False):
        if not located:
            filename, line = _caller()
            message = f"{filename}:{line}: {message}"
        super().__init__(message)


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _integer(value, what: str, low: int = _INT64[0], high: int = _INT64[1]) -> int:
    """``value`` as a Python int in [low, high]; a float, a bool or a value
    out of range is an error, never rounded or wrapped."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TileError(f"{what} must be an integer, got {_short(value)}")
    value = operator.index(value)
    if not low <= value <= high:
        raise TileError(f"{what} must be in [{low}, {high}], got {_short(value)}")
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "..." + text[-8:]


def _check_opcode(opcode) -> None:
    if not isinstance(opcode, str):
        raise TileError(f"an opcode is a string such as T.ptx[\"add.f32\"], got {_short(opcode)}")
    if not opcode.isascii():
        bad = next(c for c in opcode if not c.isascii())
        raise TileError(f"the opcode {opcode!r} contains {bad!r}, which no PTX instruction "
                        "spelling has (only letters, digits, '.', '_' and ':')")


def _shape(shape, what: str, runtime: bool = False) -> Tuple[int, ...]:
    """Static extents; with `runtime`, None marks an extent each launch
    gives (a tensor parameter's)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(None if runtime and d is None else _integer(d, f"{what} axis {i}", 0)
                 for i, d in enumerate(dims))


_DYNAMIC = ir.ShapedType.get_dynamic_size() if hasattr(ir.ShapedType, "get_dynamic_size") else -(1 << 63)


def _memref_dims(shape) -> List[int]:
    return [_DYNAMIC if d is None else d for d in shape]


def _element_type(dtype: str) -> ir.Type:
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise TileError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
    return ir.Type.parse(_DTYPES[dtype])


def _tensor_element_type(dtype: str) -> ir.Type:
    """The element of a tensor in memory: a bool is numpy's byte (0 or 1),
    loaded and stored by the 8-bit forms; only register predicates are i1."""
    return ir.IntegerType.get_signless(8) if dtype == "bool" else _element_type(dtype)


def _memref_type(shape, element, strides, offset, space) -> ir.MemRefType:
    """A memref type whose layout is the identity when the strides are the
    row-major ones, as MLIR's reshaping ops infer it."""
    row_major = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
    if offset == 0 and list(strides) == row_major:
        return ir.MemRefType.get(list(shape), element, memory_space=space)
    return ir.MemRefType.get(list(shape), element, ir.StridedLayoutAttr.get(offset, list(strides)), space)


_inside_package = {}


def _caller() -> Tuple[str, int]:
    """The first frame outside tile_mlir. Walking frames directly: building
    inspect.stack() took 95% of tracing time."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        inside = _inside_package.get(filename)
        if inside is None:
            inside = _inside_package[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
        if not inside:
            return filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def _location() -> ir.Location:
    filename, line = _caller()
    return ir.Location.file(filename, line, 1)


def _raise(error: ir.MLIRError) -> None:
    messages = "; ".join(d.message for d in error.error_diagnostics) or str(error)
    raise TileError(messages) from None


# -- annotations and launch ---------------------------------------------------

# The dtypes a scalar kernel parameter (``n: T.int32``) may have.
_SCALAR_PARAMS = ("int32", "int64", "float32", "float64")


# CUDA's launch limits: grid x < 2^31, y and z < 2^16; block x and y up to
# 1024, z up to 64, and 1024 threads in all.
_GRID_LIMITS = ((1 << 31) - 1, 65535, 65535)
_BLOCK_LIMITS = (1024, 1024, 64)
_MAX_BLOCK_THREADS = 1024


def _dim3(value, what: str, limits) -> Tuple[int, int, int]:
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(values) <= 3:
        raise TileError(f"{what} is 1 to 3 positive integers, got {value!r}")
    dims = tuple(_integer(v, f"{what} {axis}", 1, limit)
                 for v, axis, limit in zip(values, "xyz", limits))
    return dims + (1,) * (3 - len(dims))


@dataclass(frozen=True)
class LaunchConfig:
    """A kernel's launch shape. ``grid=None`` leaves the grid to each call
    (``kernel[grid](...)`` or ``kernel(..., grid=...)``); a fixed grid is
    compiled in (the lowering may assume it) and a call must keep it.
    ``cluster`` groups blocks into thread block clusters (sm_90 and newer):
    1 to 3 extents, at most 8 blocks, dividing a fixed grid. ``dependent``
    launches it as a programmatic dependent (sm_90 and newer): it may start
    while the kernel before it in its stream still runs, and reads what
    that kernel wrote only after ``griddepcontrol.wait``, which it must
    have."""
    grid: Any = 1
    block: Any = 1
    cluster: Any = None
    dependent: bool = False


class _Builder(threading.local):
    current: Optional["_KernelBuilder"] = None


_builder = _Builder()


def _active() -> "_KernelBuilder":
    if _builder.current is None:
        raise TileError("this call is only valid inside a @T.function body")
    return _builder.current


_FLOAT_OVERFLOW = {"float16": 65520.0, "bfloat16": 2.0**128 - 2.0**119,
                   "float32": 2.0**128 - 2.0**103, "float64": math.inf}

class _KernelBuilder:
    def __init__(self, fn, context: ir.Context):
        self.fn, self.context = fn, context
        self.launch: Optional[LaunchConfig] = None
        self.written: set = set()  # names of the parameters the kernel stores to
        self.ranges: dict = {}  # the ranges of loop counters (tile_mlir.ranges)
        # Index values derived at runtime (t % 8, min(a, b), a ^ b), by
        # operation, operands and block: one expression written twice in a
        # block is one value, so A[t % 8 : t % 8 + 1] has a static extent.
        self.derived: dict = {}
        self.ewise_operations = 0  # what T.ewise built, against its budget
        self.open_loops: list = []  # T.serial loops whose body is being traced
        self.unentered_ifs: list = []  # T.if_ conditions not used in a with
        # The gpu.func being built and its entry block, and the shared
        # buffers (workgroup attributions) T.alloc_shared added to it.
        self.func, self.entry, self.shared = None, None, []
        # The dynamic shared memory (gpu.dynamic_shared_memory) and the bytes
        # T.alloc_dynamic_shared carved from it so far.
        self.dynamic_base, self.dynamic_shared_bytes = None, 0

    def range_of(self, index):
        """The values ``index`` may take when the kernel runs, or None."""
        try:
            grid = block = None
            if self.launch is not None:
                block = _dim3(self.launch.block, "the block's", _BLOCK_LIMITS)
                if self.launch.grid is not None:
                    grid = _dim3(self.launch.grid, "the grid's", _GRID_LIMITS)
        except TileError:
            return None  # reported at the launch's check
        return _ranges.expression_range(index.terms, index.const, grid, block, self.ranges)
