"""Argument checks and launches shared by the ops: a bad argument is a
clear error naming it, before anything runs; a CUDA tensor runs the
compiled kernel on the current stream; a CPU tensor runs the same kernel
in tile_mlir.interpret (exact, slow: for tests and debugging), and
refuses a result the interpreter could not define (InterpretedResultError:
floating tensor-core sums are followed only where every partial sum is
exact, until the interpreter models their accumulation)."""

import functools
import warnings
from typing import Callable, Dict, Iterable

import torch

from . import kernel_cache

BITS = {torch.bfloat16: torch.uint16, torch.float16: torch.uint16, torch.float32: torch.float32,
        torch.float8_e4m3fn: torch.uint8}
NAMES = {torch.bfloat16: "bfloat16", torch.float16: "float16", torch.float32: "float32", torch.float8_e4m3fn: "e4m3"}


def tensor(value, name: str, dims: Iterable[int], dtypes: Iterable[torch.dtype]) -> torch.Tensor:
    """`value` as a tensor argument of the op: a torch.Tensor of one of
    `dims` dimensions and one of `dtypes`."""
    tensors(**{name: value})
    dims, dtypes = tuple(dims), tuple(dtypes)
    if value.dim() not in dims:
        raise ValueError(f"{name} has {value.dim()} dimensions; the op takes {' or '.join(map(str, dims))}")
    if value.dtype not in dtypes:
        raise ValueError(f"{name} is {value.dtype}; the op takes {', '.join(str(d) for d in dtypes)}")
    return value


def tensors(**named) -> None:
    """The type guard of an op's Python wrapper: each a torch.Tensor (the
    dispatcher's own error for another type names no argument). The
    implementation checks the rest, once."""
    for name, value in named.items():
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} is a torch.Tensor, got {type(value).__name__}")


def eager(*tensors: torch.Tensor) -> bool:
    """Whether an op's wrapper may call its implementation directly: plain
    CUDA tensors (no fake, functional or other subclass), nothing being
    traced by torch.compile, and no input that autograd follows (the ops
    register no backward: through the dispatcher, autograd says so). This
    skips torch's Python custom-op dispatch (about 40 us a call), as
    FlashAttention's wrappers call their kernels; torch.compile, fake
    tensors and CPU tensors go through the op."""
    if torch.compiler.is_compiling():
        return False
    grad = torch.is_grad_enabled()
    for t in tensors:  # a loop, not all() over a generator: a microsecond less a call
        if type(t) is not torch.Tensor or not t.is_cuda or (grad and t.requires_grad):
            return False
    return True


# An eager call's prepared path by its signature (op, flags, and each
# tensor's signature_of): the checks and the choices depend on nothing
# else, so a call after the first of its signature skips them.
EAGER: Dict[tuple, Callable] = {}


def signature_of(t: torch.Tensor) -> tuple:
    """What an op's checks and plan read of a tensor: its shape, strides,
    dtype and device, and whether its address is whole 16 bytes (TMA and
    vector loads need it)."""
    return t.shape, t.stride(), t.dtype, t.device, t.data_ptr() & 15 == 0


def eager_call(key: tuple, prepare: Callable) -> Callable:
    """The prepared path of `key`: made by `prepare()` (which checks the
    arguments, raising before anything runs) on the first call."""
    call = EAGER.get(key)
    if call is None:
        call = EAGER[key] = prepare()
    return call


def aligned(t: torch.Tensor) -> torch.Tensor:
    """`t`, or a copy of it where its address is not whole 16 bytes (a
    view at an odd offset): the kernels' TMA maps and vector loads take
    only those (the documented fallback for such a view; a fresh tensor
    always is)."""
    if t.device.type == "meta" or t.data_ptr() % 16 == 0:
        return t
    return t.clone(memory_format=torch.contiguous_format)


def same_placement(**tensors) -> None:
    """One dtype and one device for every tensor (their names)."""
    (first, a), *rest = tensors.items()
    for name, t in rest:
        if t.dtype != a.dtype:
            raise ValueError(f"{name} is {t.dtype} and {first} {a.dtype}: the op takes one dtype")
        if t.device != a.device:
            raise ValueError(f"{name} is on {t.device} and {first} on {a.device}: the op takes one device")


def require(condition: bool, name: str, rule: str) -> None:
    if not condition:
        raise ValueError(f"{name}: {rule}")


PRECOMPILE_TARGET = "sm_90a"
SMS = 132  # an H100's (and H200's) multiprocessors: the units a split fills


@functools.lru_cache(maxsize=None)
def target(device: torch.device) -> str:
    """The PTX target of a CUDA device, or the refusal of one the kernels
    were not written for (wgmma and TMA: sm_90)."""
    major, minor = torch.cuda.get_device_capability(device)
    if (major, minor) != (9, 0):
        raise ValueError(f"the op's kernels run on compute capability 9.0 (Hopper); {device} is {major}.{minor}")
    return "sm_90a"


def bits(t: torch.Tensor) -> torch.Tensor:
    """The tensor as the kernels take it: 16-bit floats and e4m3 as their
    bits."""
    return t.view(BITS[t.dtype])


def tuned(fields: dict, candidates, stages: Callable, operands: Callable, device_tensor: torch.Tensor):
    """The configuration to launch with: the first candidate off the GPU
    (the interpreter; on meta tensors, precompile, every candidate's
    kernels compiled); on a CUDA device the autotuner's choice for
    `fields`, each candidate timed on its operands (`stages(config)`: the
    (spec, build) of each kernel it launches in turn; `operands(config)`:
    their arguments)."""
    if device_tensor.device.type == "meta":
        for config in candidates:
            for spec, build, *_ in stages(config):
                kernel_cache.kernel(spec, build, PRECOMPILE_TARGET)
        return candidates[0]
    if not device_tensor.is_cuda:
        return candidates[0]
    from . import autotune
    device = device_tensor.device

    def measure(config):
        operand_lists = operands(config)
        launchers = stage_launchers(stages(config), operand_lists, device)
        pointers = [[a.data_ptr() for a in args] for args in operand_lists]
        handle = stream(device.index)

        def once():
            for launcher, ptrs in zip(launchers, pointers):
                launcher(*ptrs, stream=handle)
        for _ in range(2):
            once()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        # The launches queue behind a busy kernel (about 6 ms), so the GPU's
        # time is measured, not the host's: a plan of two short kernels is
        # not charged for two launches' Python.
        torch.cuda._sleep(10_000_000)
        start.record()
        for _ in range(10):
            once()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 10
    return autotune.choose(dict(fields, device=torch.cuda.get_device_name(device)), candidates, measure)


def stage_launchers(stages, operand_lists, device: torch.device):
    """The launcher of each stage, (spec, build) or (spec, build, grid):
    with a grid, a kernel of runtime sizes (launcher.ExtentLauncher) bound
    to that grid and to the shapes of its operands (an op's signature
    fixes both); else the kernel's PreparedLauncher."""
    launchers = []
    for (spec, build, *grid), operands in zip(stages, operand_lists):
        made = kernel_cache.launcher(spec, build, target(device))
        launchers.append(made.bind_shapes([tuple(t.shape) for t in operands], (grid[0], 1, 1)) if grid else made)
    return launchers


_BY_SIGNATURE: Dict[tuple, object] = {}


def prepared(signature: tuple, device_tensor: torch.Tensor, choose: Callable, stages: Callable,
             operands: Callable = None):
    """(config, launchers) of a CUDA call: the configuration `choose()`
    picks (perhaps timing candidates) and the launcher of each kernel
    `stages(config)` gives (stage_launchers; `operands(config)`, their
    arguments, where a stage has a grid), made once a signature
    (everything that decides the kernels and their launches: op, shape,
    dtypes, variant) and device; a later call is one dictionary lookup."""
    key = (signature, device_tensor.device.index)
    hit = _BY_SIGNATURE.get(key)
    if hit is None:
        config = choose()
        stage_list = stages(config)
        operand_lists = operands(config) if operands else [()] * len(stage_list)
        hit = _BY_SIGNATURE[key] = (config, stage_launchers(stage_list, operand_lists, device_tensor.device))
    return hit


def chosen_configs() -> Dict[tuple, object]:
    """{(signature, device index): configuration} of each signature this
    process prepared (what the tuner picked: the benchmarks report it)."""
    return {key: config for key, (config, _) in _BY_SIGNATURE.items()}


def _raw_stream(index: int) -> int:
    return torch.cuda.current_stream(index).cuda_stream


# The current stream's handle without making a torch.cuda.Stream (6 us on
# the GPU machine's host; this, 0.3 us), as Triton's launcher reads it.
stream = getattr(torch._C, "_cuda_getCurrentRawStream", _raw_stream)


_COUNTERS: Dict[tuple, torch.Tensor] = {}


def counters(device: torch.device, count: int) -> torch.Tensor:
    """`count` uint32 counters, zero, for a kernel that leaves them zero
    (a one-launch split-K's arrivals): off the GPU fresh; on a CUDA device
    one buffer per device and stream, grown as needed, so that kernels on
    two streams never share one. Made while a CUDA graph captures, the
    graph zeroes its own at each replay (not kept: the capture ran
    nothing)."""
    if device.type != "cuda":
        return torch.zeros((count, 1), dtype=torch.int32, device=device).view(torch.uint32)
    key = (device.index, stream(device.index))
    held = _COUNTERS.get(key)
    if held is None or held.shape[0] < count:
        held = torch.zeros((max(count, 1024), 1), dtype=torch.int32, device=device).view(torch.uint32)
        if torch.cuda.is_current_stream_capturing():
            return held
        _COUNTERS[key] = held
    return held


def launch_all(launchers, operand_lists, device_index: int) -> None:
    """Each launcher on its operands' addresses, in order, on the current
    stream of the device (so a CUDA graph captures them)."""
    handle = stream(device_index)
    for launcher, args in zip(launchers, operand_lists):
        launcher(*[a.data_ptr() for a in args], stream=handle)


def by_signature(signature: tuple, device_tensor: torch.Tensor, choose: Callable, stages: Callable,
                 operands: Callable) -> None:
    """Runs the kernels of the configuration `choose()` picks:
    `stages(config)` gives each kernel's (spec, build), `operands(config)`
    their arguments, in launch order. On a CUDA device through prepared();
    elsewhere run()."""
    if device_tensor.is_cuda:
        config, launchers = prepared(signature, device_tensor, choose, stages, operands)
        launch_all(launchers, operands(config), device_tensor.device.index)
        return
    config = choose()
    for (spec, build, *grid), args in zip(stages(config), operands(config)):
        run(spec, build, *args, grid=(grid[0], 1, 1) if grid else None)


def run(spec: dict, build: Callable, *args: torch.Tensor, grid=None) -> None:
    """The kernel of `spec` on `args` (in the kernel's parameter order,
    already as their bits) off the GPU: interpreted on the CPU, the
    results written back; on meta tensors (precompile) compiled into the
    cache, nothing run. CUDA tensors launch through by_signature. `grid`:
    a kernel compiled with LaunchConfig(grid=None)'s, this call's."""
    if args[0].device.type == "meta":
        # precompile(): the kernel compiled into the cache, nothing run.
        kernel_cache.kernel(spec, build, PRECOMPILE_TARGET)
        return
    from ..interpreter.launch import InterpretWarning, interpret  # MLIR, on the CPU path only
    arrays = [a.numpy() for a in args]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InterpretWarning)
        interpret(kernel_cache.built(spec, build), *arrays, grid=grid)
    for warning in caught:
        text = str(warning.message)
        if "stored undefined" in text:
            # Never a silently wrong result: the interpreter keeps a float
            # tensor-core result only where every partial sum is exact.
            raise InterpretedResultError(f"tile_mlir.ops.{spec['op']} on the CPU runs its kernel in the "
                                         f"interpreter, which could not follow this data: {text}")
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)


class InterpretedResultError(RuntimeError):
    """An op's CPU (interpreted) result is not defined for its data."""
