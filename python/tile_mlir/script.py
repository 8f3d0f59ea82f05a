"""A script front end for tile kernels whose spelling follows the spec pages.

    from tile_mlir import script as T

    @T.function
    def packed_add(A: T.Tensor((8, 1), "uint32"), B: T.Tensor((8, 1), "uint32"),
                   Out: T.Tensor((8, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        a = T.alloc_local((8, 1), "uint32", layout="default")
        b = T.alloc_local((8, 1), "uint32", layout="default")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B)
        T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a, a, b)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out, a)

Decorating builds the kernel as MLIR (``packed_add.module``). Each op carries
the Python location of the call that made it; a call that breaks a legality
rule raises :class:`TileError` with the verifier's diagnostic and that
location.
"""

from __future__ import annotations

import inspect
import os
import threading
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from . import ptx as _ptx
from .dialects import tile as _tile_ops

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# numpy dtype names and the MLIR element types that carry them.
_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
}
GLOBAL_SPACE, SHARED_SPACE, REGISTER_SPACE = 1, 3, 5


class TileError(ValueError):
    """A kernel definition broke a rule; the message names the Python line."""


def _element_type(dtype: str) -> ir.Type:
    if dtype not in _DTYPES:
        raise TileError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
    return ir.Type.parse(_DTYPES[dtype])


def _memref_type(shape, element, strides, offset, space) -> ir.MemRefType:
    """A memref type whose layout is the identity when the strides are the
    row-major ones, as MLIR's reshaping ops infer it."""
    row_major = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
    if offset == 0 and list(strides) == row_major:
        return ir.MemRefType.get(list(shape), element, memory_space=space)
    return ir.MemRefType.get(list(shape), element, ir.StridedLayoutAttr.get(offset, list(strides)), space)


def _caller() -> Tuple[str, int]:
    for frame in inspect.stack()[2:]:
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR):
            return frame.filename, frame.lineno
    return "<unknown>", 0


def _location() -> ir.Location:
    filename, line = _caller()
    return ir.Location.file(filename, line, 1)


def _raise(error: ir.MLIRError) -> None:
    filename, line = _caller()
    messages = "; ".join(d.message for d in error.error_diagnostics) or str(error)
    raise TileError(f"{filename}:{line}: {messages}") from None


# -- annotations and launch ---------------------------------------------------

@dataclass(frozen=True)
class Tensor:
    """Annotation of a kernel parameter: a global tensor."""
    shape: Tuple[int, ...]
    dtype: str

    def __init__(self, shape, dtype):
        object.__setattr__(self, "shape", tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,))))
        object.__setattr__(self, "dtype", str(dtype))


def _dim3(value) -> Tuple[int, int, int]:
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(values) <= 3 or any(int(v) < 1 for v in values):
        raise TileError(f"a launch dimension is 1 to 3 positive integers, got {value!r}")
    return tuple(int(v) for v in values) + (1,) * (3 - len(values))


@dataclass(frozen=True)
class LaunchConfig:
    grid: Any = 1
    block: Any = 1


class _Builder(threading.local):
    current: Optional["_KernelBuilder"] = None


_builder = _Builder()


def _active() -> "_KernelBuilder":
    if _builder.current is None:
        raise TileError("this call is only valid inside a @T.function body")
    return _builder.current


# -- values -------------------------------------------------------------------

class Index:
    """An index expression: a linear combination of index SSA values (thread
    and block ids, ...) plus a constant. Keeping it symbolic lets a slice
    ``A[t * 4 : t * 4 + 4]`` see that its extent is the constant 4."""

    def __init__(self, terms=(), const: int = 0):
        self.terms: Tuple[Tuple[ir.Value, int], ...] = tuple((v, c) for v, c in terms if c != 0)
        self.const = const

    @staticmethod
    def of(value) -> "Index":
        if isinstance(value, Index):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return Index((), value)
        raise TileError(f"expected an integer or an index expression, got {type(value).__name__}")

    @property
    def is_static(self) -> bool:
        return not self.terms

    def same_terms(self, other: "Index") -> bool:
        if len(self.terms) != len(other.terms):
            return False
        remaining = list(other.terms)
        for value, coeff in self.terms:
            match = next((t for t in remaining if t[0] == value and t[1] == coeff), None)
            if match is None:
                return False
            remaining.remove(match)
        return True

    def materialize(self) -> ir.Value:
        index = ir.IndexType.get()
        with _location():
            result = None
            for value, coeff in self.terms:
                term = value if coeff == 1 else arith.muli(value, arith.constant(index, coeff))
                result = term if result is None else arith.addi(result, term)
            if result is None:
                return arith.constant(index, self.const)
            if self.const:
                result = arith.addi(result, arith.constant(index, self.const))
            return result

    def __add__(self, other):
        other = Index.of(other)
        terms = list(self.terms)
        for value, coeff in other.terms:
            for i, (v, c) in enumerate(terms):
                if v == value:
                    terms[i] = (v, c + coeff)
                    break
            else:
                terms.append((value, coeff))
        return Index(terms, self.const + other.const)

    __radd__ = __add__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (Index.of(other) * -1)

    def __rsub__(self, other):
        return Index.of(other) + self * -1

    def __mul__(self, other):
        other = Index.of(other)
        if other.is_static:
            return Index([(v, c * other.const) for v, c in self.terms], self.const * other.const)
        if self.is_static:
            return other * self
        with _location():
            return Index([(arith.muli(self.materialize(), other.materialize()), 1)])

    __rmul__ = __mul__

    def _compare(self, other, predicate):
        with _location():
            return Bool(arith.cmpi(predicate, self.materialize(), Index.of(other).materialize()))

    def __lt__(self, other):
        return self._compare(other, arith.CmpIPredicate.slt)

    def __le__(self, other):
        return self._compare(other, arith.CmpIPredicate.sle)

    def __gt__(self, other):
        return self._compare(other, arith.CmpIPredicate.sgt)

    def __ge__(self, other):
        return self._compare(other, arith.CmpIPredicate.sge)

    def eq(self, other):
        return self._compare(other, arith.CmpIPredicate.eq)

    def ne(self, other):
        return self._compare(other, arith.CmpIPredicate.ne)


class Bool:
    """A runtime predicate (i1)."""

    def __init__(self, value: ir.Value):
        self.value = value


class Scalar:
    """A typed scalar constant, e.g. ``T.float32(-2.5)``."""

    def __init__(self, dtype: str, value):
        self.dtype, self.python_value = dtype, value

    def materialize(self) -> ir.Value:
        element = _element_type(self.dtype)
        with _location():
            if isinstance(element, ir.IntegerType):
                # arith constants are signless: an unsigned scalar is its bits.
                signless = ir.IntegerType.get_signless(element.width)
                bits = int(self.python_value) & ((1 << element.width) - 1)
                if bits >= 1 << (element.width - 1):
                    bits -= 1 << element.width
                return arith.constant(signless, bits)
            return arith.constant(element, float(self.python_value))


def _scalar_maker(dtype):
    def make(value):
        return Scalar(dtype, value)
    make.__name__ = dtype
    return make


float16, bfloat16, float32, float64 = (_scalar_maker(d) for d in ("float16", "bfloat16", "float32", "float64"))
int8, int16, int32, int64 = (_scalar_maker(d) for d in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_scalar_maker(d) for d in ("uint8", "uint16", "uint32", "uint64"))


class Buffer:
    """A tile or tensor: an MLIR memref value with its dtype."""

    def __init__(self, value: ir.Value, dtype: str, name: str = ""):
        self.value, self.dtype, self.name = value, dtype, name

    @property
    def type(self) -> ir.MemRefType:
        return ir.MemRefType(self.value.type)

    @property
    def shape(self) -> Tuple[int, ...]:
        return tuple(self.type.shape)

    def __getitem__(self, key) -> "Buffer":
        keys = key if isinstance(key, tuple) else (key,)
        shape = self.shape
        if len(keys) > len(shape):
            raise TileError(f"too many indices for a rank-{len(shape)} tile")
        keys = keys + (slice(None),) * (len(shape) - len(keys))
        offsets, sizes, steps, dropped = [], [], [], []
        for axis, (k, extent) in enumerate(zip(keys, shape)):
            if isinstance(k, slice):
                start = Index.of(0 if k.start is None else k.start)
                stop = Index.of(extent if k.stop is None else k.stop)
                step = 1 if k.step is None else k.step
                if not isinstance(step, int) or step < 1:
                    raise TileError(f"axis {axis}: a slice step is a positive integer, got {step!r}")
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
            if start.is_static and not 0 <= start.const < extent:
                raise TileError(f"axis {axis}: index {start.const} is out of range for extent {extent}")
            if start.is_static and start.const + (count - 1) * step >= extent:
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

    def reshape(self, shape: Sequence[int]) -> "Buffer":
        """The same registers under another shape. A contiguous row-major tile
        takes any shape of the same size; any tile can gain trailing unit
        axes (e.g. a (2, 4) tile as (2, 4, 1), one register per repeat)."""
        shape = [int(d) for d in shape]
        old = list(self.shape)
        strides, offset = self.type.get_strides_and_offset()
        if shape[:len(old)] == old and all(d == 1 for d in shape[len(old):]) and old:
            # Trailing unit axes: the last source axis expands in place.
            reassociation = [[i] for i in range(len(old) - 1)] + [list(range(len(old) - 1, len(shape)))]
            new_strides = list(strides) + [strides[-1]] * (len(shape) - len(old))
            source = self
        else:
            row_major = [int(np.prod(old[i + 1:], dtype=np.int64)) for i in range(len(old))]
            if list(strides) != row_major or int(np.prod(shape)) != int(np.prod(old)):
                raise TileError(f"cannot reshape a {tuple(old)} tile with strides {tuple(strides)} "
                                f"to {tuple(shape)}: only contiguous tiles reshape freely")
            source = self
            if len(old) > 1:
                flat = _memref_type([int(np.prod(old))], self.type.element_type, [1], offset,
                                    self.type.memory_space)
                with _location():
                    source = Buffer(memref.CollapseShapeOp(flat, self.value, [list(range(len(old)))]).result,
                                    self.dtype, self.name)
            reassociation = [list(range(len(shape)))]
            new_strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
        result = _memref_type(shape, self.type.element_type, new_strides, offset, self.type.memory_space)
        try:
            with _location():
                op = memref.ExpandShapeOp(result, source.value, reassociation, [], shape)
                op.operation.verify()
        except ir.MLIRError as error:
            _raise(error)
        return Buffer(op.result, self.dtype, self.name)

    def view(self, dtype: str) -> "Buffer":
        """Reinterprets the register carriers as `dtype` (e.g. uint32 words as
        uint16 halves, low half first). Changes no bits."""
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

    def broadcast(self, shape: Sequence[int]) -> "Buffer":
        """A zero-stride view repeating unit axes to `shape` (inputs only)."""
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


# -- the kernel builder -------------------------------------------------------

class _KernelBuilder:
    def __init__(self, fn):
        self.fn = fn
        self.launch: Optional[LaunchConfig] = None


class PrimFunc:
    """A kernel defined with @T.function: its MLIR module, signature and launch."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.name = fn.__name__
        signature = inspect.signature(fn)
        self.params: List[Tuple[str, Tensor]] = []
        for name, param in signature.parameters.items():
            if not isinstance(param.annotation, Tensor):
                raise TileError(f"{self.name}: parameter {name!r} needs a T.Tensor(shape, dtype) annotation")
            self.params.append((name, param.annotation))
        self.context = ir.Context()
        self.grid, self.block = (1, 1, 1), (1, 1, 1)
        self.module = self._build(fn)

    def _build(self, fn) -> ir.Module:
        builder = _KernelBuilder(fn)
        with self.context, ir.Location.unknown():
            module = ir.Module.create()
            module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
            space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), GLOBAL_SPACE)
            arg_types = [ir.MemRefType.get(list(t.shape), _element_type(t.dtype), memory_space=space)
                         for _, t in self.params]
            with ir.InsertionPoint(module.body):
                kernels = gpu.GPUModuleOp("kernels")
                kernels.bodyRegion.blocks.append()
                with ir.InsertionPoint(kernels.bodyRegion.blocks[0]):
                    func = gpu.GPUFuncOp(ir.FunctionType.get(arg_types, []), sym_name=self.name, kernel=True)
                    block = func.body.blocks.append(*arg_types)
                    with ir.InsertionPoint(block):
                        args = [Buffer(v, t.dtype, n) for v, (n, t) in zip(block.arguments, self.params)]
                        previous, _builder.current = _builder.current, builder
                        try:
                            fn(*args)
                        finally:
                            _builder.current = previous
                        gpu.ReturnOp([])
            if builder.launch is None:
                raise TileError(f"{self.name}: the body must call T.device_entry(launch=...)")
            self.grid, self.block = _dim3(builder.launch.grid), _dim3(builder.launch.block)
            func.attributes["known_block_size"] = ir.DenseI32ArrayAttr.get(list(self.block))
            func.attributes["known_grid_size"] = ir.DenseI32ArrayAttr.get(list(self.grid))
        return module

    def __str__(self):
        return str(self.module)


def function(fn) -> PrimFunc:
    """Builds a kernel from a Python function (see the module docstring)."""
    return PrimFunc(fn)


prim_func = function


def device_entry(launch: LaunchConfig) -> None:
    if not isinstance(launch, LaunchConfig):
        raise TileError("T.device_entry takes launch=T.cuda.LaunchConfig(grid=..., block=...)")
    _active().launch = launch


def alloc_local(shape, dtype: str, layout: str = "default", scope: str = "thread") -> Buffer:
    """Registers owned by the issuing thread, or, with ``scope`` "warp",
    "warpgroup" or "cta", a tile whose leading group axes are distributed
    over the threads of that group (lane l owns row l)."""
    _active()
    if layout != "default":
        raise TileError(f"layout {layout!r} is not supported: only \"default\" (row-major) is")
    shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), REGISTER_SPACE)
    with _location():
        value = memref.alloca(ir.MemRefType.get(list(shape), _element_type(dtype), memory_space=space), [], [])
        if scope != "thread":
            value.owner.attributes["tile.scope"] = ir.StringAttr.get(scope)
    return Buffer(value, dtype)


def _gpu_index(op, dim: str) -> Index:
    if dim not in ("x", "y", "z"):
        raise TileError(f"a dimension is 'x', 'y' or 'z', got {dim!r}")
    _active()
    with _location():
        return Index([(op(getattr(gpu.Dimension, dim)), 1)])


def thread_id(dim: str = "x") -> Index:
    return _gpu_index(gpu.thread_id, dim)


def block_id(dim: str = "x") -> Index:
    return _gpu_index(gpu.block_id, dim)


def block_dim(dim: str = "x") -> Index:
    return _gpu_index(gpu.block_dim, dim)


def serial(start, stop=None, step=1):
    """``for i in T.serial(start, stop, step):`` a loop the kernel runs
    (``scf.for``), unlike a Python ``range``, which unrolls while tracing. The
    body is traced once, with ``i`` an index expression; bounds may be index
    expressions (``T.serial(t, rows, threads)`` is a grid-stride loop), the
    step a positive constant. Register tiles allocated in the body are
    private to one iteration."""
    if stop is None:
        start, stop = 0, start
    start, stop, step = Index.of(start), Index.of(stop), Index.of(step)
    if not step.is_static or step.const <= 0:
        raise TileError("T.serial takes a positive constant step")
    _active()
    with _location():
        loop = scf.ForOp(start.materialize(), stop.materialize(), step.materialize())
    with ir.InsertionPoint(loop.body):
        yield Index([(loop.induction_variable, 1)])
        with _location():
            scf.YieldOp([])


class _PTX:
    """``T.ptx[opcode]``: an opcode spelling, checked against the form table."""

    def __getitem__(self, opcode: str) -> str:
        try:
            _ptx.parse(opcode)
        except _ptx.PTXFormError as error:
            filename, line = _caller()
            raise TileError(f"{filename}:{line}: {error}") from None
        return opcode


ptx = _PTX()


def _operand(value) -> ir.Value:
    if isinstance(value, Buffer):
        return value.value
    if isinstance(value, Scalar):
        return value.materialize()
    if isinstance(value, Index):
        return value.materialize()
    raise TileError(f"an operand is a tile, a tensor or a typed scalar (e.g. T.float32(1.0)), "
                    f"got {type(value).__name__}; plain Python numbers have no PTX type")


def _apply(opcode: str, *operands, scope: str = "thread", pred=None, preserve_dst: bool = False):
    _active()
    values = [_operand(v) for v in operands]
    predicate = None
    if pred is not None:
        if isinstance(pred, bool):
            with _location():
                predicate = arith.constant(ir.IntegerType.get_signless(1), int(pred))
        elif isinstance(pred, Bool):
            predicate = pred.value
        else:
            raise TileError(f"pred is a runtime bool (e.g. T.thread_id() < 4) or a Python bool, "
                            f"got {type(pred).__name__}")
    try:
        with _location():
            op = _tile_ops.ApplyOp(opcode, values, pred=predicate, scope=scope,
                                   preserve_dst=True if preserve_dst else None)
            op.operation.verify()
    except ir.MLIRError as error:
        _raise(error)
    return op


class _TileNamespace:
    apply = staticmethod(_apply)


class _CudaNamespace:
    LaunchConfig = LaunchConfig
    tile = _TileNamespace()


cuda = _CudaNamespace()

__all__ = [
    "Tensor", "LaunchConfig", "TileError", "function", "prim_func", "device_entry", "alloc_local",
    "thread_id", "block_id", "block_dim", "serial", "ptx", "cuda", "Buffer", "Index", "Bool", "Scalar",
    "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
]
