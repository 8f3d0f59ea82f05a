"""@T.function: the tracer of a kernel body, its parameters' annotations,
its entry and launch, and the ids and sizes of the launch."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import numpy as np
from mlir import ir
from mlir.dialects import arith, gpu, nvvm

from .. import runtime
from ..dialects import tile as _tile_ops
from .tiles import Buffer
from .tracing import (_BLOCK_LIMITS, _DTYPES, _GRID_LIMITS, _MAX_BLOCK_THREADS, _SCALAR_PARAMS,
                      GLOBAL_SPACE, LaunchConfig, TileError, _active, _builder, _dim3, _element_type,
                      _KernelBuilder, _location, _memref_dims, _raise, _shape, _tensor_element_type)
from .values import Index, _ComputedScalar, _ParamScalar


# The swizzle modes of a tensor map, by the bytes of their span.
TMA_SWIZZLES = {"none": 0, "32B": 32, "64B": 64, "128B": 128}


@dataclass(frozen=True)
class TensorMap:
    """A TMA tensor map of a tensor parameter: ``T.Tensor(shape, dtype,
    tma=T.TensorMap(box=(64, 64), swizzle="128B"))``. `box` is the extent
    each copy moves, outermost first like the tensor's axes; `swizzle` how
    it lands in shared memory ("none", "32B", "64B", "128B"). The runtime
    encodes the map from the array a launch passes (cuTensorMapEncodeTiled)
    and the kernel reads it as ``A.tensor_map``: the user never builds one.
    Elements outside the tensor read as zero and are not written."""
    box: Tuple[int, ...]
    swizzle: str = "none"

    def __init__(self, box, swizzle="none"):
        if swizzle not in TMA_SWIZZLES:
            raise TileError(f"a tensor map's swizzle is one of {', '.join(map(repr, TMA_SWIZZLES))}, "
                            f"got {swizzle!r}")
        object.__setattr__(self, "box", _shape(box, "a tensor map's box"))
        object.__setattr__(self, "swizzle", swizzle)


@dataclass(frozen=True)
class Tensor:
    """Annotation of a kernel parameter: a global tensor. An extent of None
    is given by each launch (``T.Tensor((None, 4), "float32")``): one kernel
    serves every size, and a slice of such an axis is the kernel's to keep
    in bounds (a grid-stride loop to ``n``). `tma` gives it tensor maps
    (T.TensorMap, or a tuple of them), each a kernel parameter of its own
    after the tensor's."""
    shape: Tuple[Optional[int], ...]
    dtype: str
    tma: Tuple[TensorMap, ...] = ()

    def __init__(self, shape, dtype, tma=()):
        if not isinstance(dtype, str) or dtype not in _DTYPES:
            raise TileError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
        maps = (tma,) if isinstance(tma, TensorMap) else tuple(tma or ())
        if not all(isinstance(m, TensorMap) for m in maps):
            raise TileError(f"tma is a T.TensorMap or a tuple of them, got {tma!r}")
        object.__setattr__(self, "shape", _shape(shape, "a tensor shape's", runtime=True))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "tma", maps)

    @property
    def is_dynamic(self) -> bool:
        return None in self.shape


class _TensorMapAddress(_ComputedScalar):
    """``A.tensor_map``: the generic address (a uint64) of a tensor map
    parameter, the tensorMap operand of cp.async.bulk.tensor and
    prefetch.tensormap; `spec` is its box and swizzle, `tensor` the name of
    the parameter it describes."""

    def __init__(self, value: ir.Value, spec: TensorMap, tensor: str):
        super().__init__("uint64", value)
        self.spec, self.tensor = spec, tensor


class PrimFunc:
    """A kernel defined with @T.function: its MLIR module, signature and launch."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.name = fn.__name__
        signature = inspect.signature(fn)
        # (name, T.Tensor) for tensors, (name, dtype) for scalars.
        self.params: List[Tuple[str, Any]] = []
        for name, param in signature.parameters.items():
            annotation = param.annotation
            scalar = getattr(annotation, "scalar_dtype", None)
            if scalar is not None:
                if scalar not in _SCALAR_PARAMS:
                    raise TileError(f"{self.name}: parameter {name!r}: a scalar parameter is one of "
                                    f"{', '.join('T.' + d for d in _SCALAR_PARAMS)}, got T.{scalar}")
                self.params.append((name, scalar))
            elif isinstance(annotation, Tensor):
                self.params.append((name, annotation))
            else:
                raise TileError(f"{self.name}: parameter {name!r} needs a T.Tensor(shape, dtype) or a "
                                "scalar (T.int32, T.int64, T.float32, T.float64) annotation")
        # Runtime sizes and scalars reach the kernel in memref descriptors
        # and by value; static tensors as bare pointers.
        self.dynamic = any(isinstance(spec, str) or spec.is_dynamic for _, spec in self.params)
        self.context = ir.Context()
        # Passes run on the calling thread, so that an LLVM fatal error can
        # unwind to Python as an exception (see _tile).
        self.context.enable_multithreading(False)
        self.grid, self.block = (1, 1, 1), (1, 1, 1)
        # Blocks per thread block cluster (LaunchConfig(cluster=...)), or None.
        self.cluster = None
        # Launched as a programmatic dependent (LaunchConfig(dependent=True)).
        self.dependent = False
        self.written: Tuple[str, ...] = ()
        # The bytes of dynamic shared memory each launch gives a block.
        self.dynamic_shared_bytes = 0
        self.module = self._build(fn)

    def _build(self, fn) -> ir.Module:
        builder = _KernelBuilder(fn, self.context)
        with self.context, ir.Location.unknown():
            module = ir.Module.create()
            module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
            space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), GLOBAL_SPACE)
            # A tensor's maps follow it, each an !llvm.ptr (tile.tensor_map).
            pointer = ir.Type.parse("!llvm.ptr")
            arg_types = []
            for _, t in self.params:
                if isinstance(t, str):
                    arg_types.append(_element_type(t))
                    continue
                arg_types.append(ir.MemRefType.get(_memref_dims(t.shape), _tensor_element_type(t.dtype),
                                                   memory_space=space))
                arg_types += [pointer] * len(t.tma)
            with ir.InsertionPoint(module.body):
                kernels = gpu.GPUModuleOp("kernels")
                kernels.bodyRegion.blocks.append()
                with ir.InsertionPoint(kernels.bodyRegion.blocks[0]):
                    code = fn.__code__
                    func = gpu.GPUFuncOp(ir.FunctionType.get(arg_types, []), sym_name=self.name, kernel=True,
                                         loc=ir.Location.file(code.co_filename, code.co_firstlineno, 1))
                    block = func.body.blocks.append(*arg_types)
                    builder.func, builder.entry = func, block
                    with ir.InsertionPoint(block):
                        args, arguments = [], iter(block.arguments)
                        for name, spec in self.params:
                            value = next(arguments)
                            args.append(_parameter(value, name, spec))
                            if isinstance(spec, Tensor):
                                args[-1].tensor_maps = tuple(_tensor_map(next(arguments), value, m, name)
                                                             for m in spec.tma)
                        previous, _builder.current = _builder.current, builder
                        try:
                            fn(*args)
                            if builder.open_loops:
                                raise builder.open_loops[-1].ended_early()
                        finally:
                            # A body that raised or broke out of a loop left
                            # the loop's insertion point behind.
                            for loop in reversed(builder.open_loops):
                                loop.leave()
                            _builder.current = previous
                        gpu.ReturnOp([])
            if builder.unentered_ifs:
                where = builder.unentered_ifs[0].where
                raise TileError(f"{where[0]}:{where[1]}: T.if_(cond) is a context manager: write "
                                "`with T.if_(cond):` (alone it branches nowhere)", located=True)
            if builder.launch is None:
                raise TileError(f"{self.name}: the body must call T.device_entry(launch=...)")
            self.grid = (None if builder.launch.grid is None
                         else _dim3(builder.launch.grid, "the grid's", _GRID_LIMITS))
            self.block = _dim3(builder.launch.block, "the block's", _BLOCK_LIMITS)
            self.cluster = self._cluster(builder.launch.cluster)
            self.dependent = self._dependent(builder.launch.dependent, func)
            threads = self.block[0] * self.block[1] * self.block[2]
            if threads > _MAX_BLOCK_THREADS:
                raise TileError(f"a block of {self.block} has {threads} threads; "
                                f"CUDA allows at most {_MAX_BLOCK_THREADS}")
            self.written = tuple(name for name, _ in self.params if name in builder.written)
            self.dynamic_shared_bytes = builder.dynamic_shared_bytes
            func.attributes["known_block_size"] = ir.DenseI32ArrayAttr.get(list(self.block))
            if self.cluster is not None:
                # .explicitcluster and .reqnctapercluster in the PTX.
                func.attributes["nvvm.cluster_dim"] = ir.DenseI32ArrayAttr.get(list(self.cluster))
            if self.grid is not None:
                func.attributes["known_grid_size"] = ir.DenseI32ArrayAttr.get(list(self.grid))
        return module

    def _dependent(self, dependent, func):
        """LaunchConfig(dependent=True): the kernel may start before the one
        it follows has finished, so it must wait (griddepcontrol.wait)
        before it reads that kernel's results; one without a wait is
        refused."""
        if not isinstance(dependent, bool):
            raise TileError(f"{self.name}: LaunchConfig(dependent=...) takes True or False, got {dependent!r}")
        if not dependent:
            return False
        waits = []

        def find_wait(op):
            if op.name == "tile.apply" and ir.StringAttr(op.attributes["opcode"]).value == "griddepcontrol.wait":
                waits.append(op)
            return ir.WalkResult.ADVANCE
        func.operation.walk(find_wait)
        if not waits:
            raise TileError(f"{self.name}: LaunchConfig(dependent=True) lets it start while the kernel before it "
                            "still runs; it reads what that kernel wrote only after griddepcontrol.wait, and it "
                            "has none")
        return True

    def _cluster(self, cluster):
        """The launch's cluster, checked against the grid: CUDA guarantees
        clusters of up to 8 blocks, and the grid holds whole clusters."""
        if cluster is None:
            return None
        dims = _dim3(cluster, "the cluster's", (8, 8, 8))
        if dims[0] * dims[1] * dims[2] > 8:
            raise TileError(f"a cluster of {dims} has {dims[0] * dims[1] * dims[2]} blocks; CUDA guarantees "
                            "at most 8 (the portable cluster size)")
        if self.grid is None:
            raise TileError("a kernel with a cluster needs a fixed grid (LaunchConfig(grid=...)), which "
                            "must hold whole clusters")
        if any(g % c for g, c in zip(self.grid, dims)):
            raise TileError(f"the grid {self.grid} does not hold whole clusters of {dims}")
        return dims

    def __str__(self):
        return str(self.module)

    def runtime_params(self) -> List[runtime.Param]:
        """The parameters as a launch sees them: tensors (with what the
        kernel writes and their tensor maps) and scalars."""
        return [runtime.Param(name, (), spec, False, "scalar") if isinstance(spec, str) else
                runtime.Param(name, spec.shape, spec.dtype, name in self.written, "tensor",
                              tuple((m.box, TMA_SWIZZLES[m.swizzle]) for m in spec.tma))
                for name, spec in self.params]


def _parameter(value: ir.Value, name: str, spec):
    """What the kernel body sees of a parameter: a tensor's Buffer, an
    integer's index expression, a float's runtime scalar."""
    if isinstance(spec, Tensor):
        return Buffer(value, spec.dtype, name)
    if spec.startswith("int"):
        return Index([(arith.index_cast(ir.IndexType.get(), value), 1)])
    return _ParamScalar(spec, value)


def _tensor_map(param: ir.Value, tensor: ir.Value, spec: TensorMap, name: str) -> _TensorMapAddress:
    """The kernel's view of one tensor map: its address (tile.tensor_map)."""
    i64 = ir.IntegerType.get_signless(64)
    try:
        with _location():
            op = _tile_ops.TensorMapOp(i64, param, tensor, ir.DenseI64ArrayAttr.get(list(spec.box)),
                                       ir.IntegerAttr.get(i64, TMA_SWIZZLES[spec.swizzle]))
            op.operation.verify()
    except ir.MLIRError as error:
        _raise(error)
    return _TensorMapAddress(op.result, spec, name)


def function(fn) -> PrimFunc:
    """Builds a kernel from a Python function (see the module docstring)."""
    return PrimFunc(fn)


prim_func = function


def device_entry(launch: LaunchConfig) -> None:
    """Marks the kernel's entry and sets its launch: ``T.device_entry(
    launch=T.cuda.LaunchConfig(grid=g, block=b))``. The block size is
    compiled in (the lowering assumes it); ``grid=None`` leaves the grid to
    each launch (``kernel[grid](...)``)."""
    if not isinstance(launch, LaunchConfig):
        raise TileError("T.device_entry takes launch=T.cuda.LaunchConfig(grid=..., block=...)")
    _active().launch = launch


def _gpu_index(op, dim: str) -> Index:
    if dim not in ("x", "y", "z"):
        raise TileError(f"a dimension is 'x', 'y' or 'z', got {dim!r}")
    _active()
    with _location():
        return Index([(op(getattr(gpu.Dimension, dim)), 1)])


def thread_id(dim: str = "x") -> Index:
    """This thread's index in its block along ``dim`` (``%tid``), an index
    expression: ``A[T.thread_id():T.thread_id() + 1]`` is its row."""
    return _gpu_index(gpu.thread_id, dim)


def block_id(dim: str = "x") -> Index:
    """This block's index in the grid along ``dim`` (``%ctaid``), an index
    expression."""
    return _gpu_index(gpu.block_id, dim)


def cluster_ctarank() -> Index:
    """This block's rank in its cluster (``%cluster_ctarank``), an index
    expression: 0 to the cluster's blocks - 1."""
    blocks = _cluster_blocks()
    return _special_register(nvvm.read_ptx_sreg_cluster_ctarank, 32,
                             None if blocks is None else (0, blocks - 1))


def cluster_nctarank() -> Index:
    """The blocks of this block's cluster (``%cluster_nctarank``)."""
    blocks = _cluster_blocks()
    return _special_register(nvvm.read_ptx_sreg_cluster_nctarank, 32,
                             None if blocks is None else (blocks, blocks))


def _cluster_blocks():
    """The blocks of a cluster, where the launch fixes them (a kernel
    launched without clusters runs each block as a cluster of one), or
    None before T.device_entry."""
    launch = _active().launch
    if launch is None:
        return None
    cluster = launch.cluster if launch.cluster is not None else 1
    try:
        return int(np.prod(_dim3(cluster, "the cluster's", (8, 8, 8))))
    except TileError:
        return None  # reported at the launch's check


def cluster_count(dim: str = "x") -> Index:
    """The grid's clusters along ``dim`` (``%nclusterid``)."""
    return _cluster_register("nclusterid", dim)


def cluster_block_id(dim: str = "x") -> Index:
    """This block's index in its cluster along ``dim`` (``%cluster_ctaid``)."""
    return _cluster_register("cluster_ctaid", dim)


def cluster_id(dim: str = "x") -> Index:
    """The cluster's index in the grid along ``dim`` (``%clusterid``)."""
    return _cluster_register("clusterid", dim)


def _cluster_register(name: str, dim: str) -> Index:
    if dim not in ("x", "y", "z"):
        raise TileError(f"a dimension is 'x', 'y' or 'z', got {dim!r}")
    bounds = None
    launch = _active().launch
    if name == "cluster_ctaid" and launch is not None:
        try:
            extent = _dim3(launch.cluster if launch.cluster is not None else 1, "the cluster's", (8, 8, 8))
            bounds = (0, extent["xyz".index(dim)] - 1)
        except TileError:
            pass  # reported at the launch's check
    return _special_register(getattr(nvvm, f"read_ptx_sreg_{name}_{dim}"), 32, bounds)


def block_dim(dim: str = "x") -> Index:
    """The threads of a block along ``dim`` (``%ntid``): the launch's block,
    which the kernel compiles in."""
    return _gpu_index(gpu.block_dim, dim)


def lane_id() -> Index:
    """This thread's lane in its warp (``%laneid``, 0 to 31): its linear
    index in the block modulo 32."""
    _active()
    with _location():
        return Index([(gpu.lane_id(), 1)])


def _special_register(read, bits: int, bounds=None) -> Index:
    """A special register read once, here, as an index expression: an
    unsigned 32-bit one in [0, 2^32), a 64-bit one as its bits; `bounds`
    (low, high) where the launch fixes its values."""
    builder = _active()
    with _location():
        value = read(ir.IntegerType.get_signless(bits))
        cast = arith.index_castui if bits == 32 else arith.index_cast
        index = cast(ir.IndexType.get(), value)
    if bounds is not None:
        builder.ranges[index] = bounds
    return Index([(index, 1)])


def warp_id() -> Index:
    """The warp's slot on its SM (``%warpid``): not its index in the block
    (``T.thread_id() // 32``), and the ISA lets it change while the warp
    runs, so read it for diagnostics only."""
    return _special_register(nvvm.read_ptx_sreg_warpid, 32)


def sm_id() -> Index:
    """The SM the thread runs on (``%smid``); like %warpid it may change
    while the thread runs."""
    return _special_register(nvvm.read_ptx_sreg_smid, 32)


def clock64() -> Index:
    """The SM's 64-bit cycle counter (``%clock64``), read here: the
    difference of two reads in one thread counts the cycles between them."""
    return _special_register(nvvm.read_ptx_sreg_clock64, 64)


def global_timer() -> Index:
    """The GPU's nanosecond timer (``%globaltimer``), read here."""
    return _special_register(nvvm.read_ptx_sreg_globaltimer, 64)


def dynamic_smem_size() -> Index:
    """The bytes of dynamic shared memory the launch gave the block
    (``%dynamic_smem_size``)."""
    return _special_register(nvvm.read_ptx_sreg_dynamic_smem_size, 32)


def grid_dim(dim: str = "x") -> Index:
    """The blocks of the grid along ``dim``: the launch's, which a kernel
    compiled with ``LaunchConfig(grid=None)`` learns only when it runs."""
    return _gpu_index(gpu.grid_dim, dim)
