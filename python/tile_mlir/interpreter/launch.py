"""``tile_mlir.interpret(fn, *args, grid=None)``: a @T.function run by the
reference interpreter, as ``kernel(*args)`` runs it on a GPU.

    out = np.zeros((4, 1), "float32")
    tile_mlir.interpret(negative_magnitude, a, out)   # out now holds the result

The arguments are checked as a launch checks them (count, shapes, dtypes,
writability, aliasing); the written arrays receive the kernel's stores. A
race (two threads touching one byte of global memory between the same two
barriers, at least one of them writing) raises HazardError naming both
lines of the kernel, before any array is written. Bytes the kernel stores
without defining them (a register read before it was written, a predicated
destination without preserve_dst) are left as they were, with an
InterpretWarning saying how many there are.
"""

from __future__ import annotations

import warnings
from typing import List

import numpy as np

from .. import runtime
from . import executors, fragment_origins, machine, mbarrier, streams, tma
from .hazards import Hazard, LoopFault
from .accumulation import MODELS as ACCUMULATION_MODELS


class InterpretError(Exception):
    """The kernel uses something the interpreter does not model yet."""


class InterpretWarning(UserWarning):
    """The kernel stored bytes it never defined."""


class HazardError(Exception):
    """The interpreter found races; ``hazards`` lists them (Hazard:
    the kind, the memory, both program points and both threads)."""

    def __init__(self, name: str, hazards: List[Hazard]):
        self.hazards = hazards
        lines = "\n".join(f"  {hazard}" for hazard in hazards)
        super().__init__(f"{name}: {len(hazards)} race{'s' if len(hazards) != 1 else ''} found by "
                         f"the interpreter:\n{lines}")


class FragmentLayoutError(Exception):
    """An mma's fragment, or a store of its D, is not one matrix in the PTX
    ISA's layout: the registers were loaded from (or D stored to) the wrong
    coordinates (interpreter/fragment_origins.py)."""


def _signature(fn) -> runtime.Kernel:
    """The launch-time view of `fn` (no code): its parameters, grid and
    block, for the checks a launch makes."""
    params = fn.runtime_params()
    return runtime.Kernel(fn.name, "", None, "interpreter", params, fn.grid, fn.block,
                          "descriptor" if fn.dynamic else "bare")


def _check_as_compile_does(fn, target):
    """What compile() refuses before lowering (tile-attach-target: the
    shared memory a block may declare, the target's forms, the verifier's
    launch-dependent rules), refused here with compile's CompileError: the
    interpreter runs no kernel the GPU could not be given."""
    from .. import compiler
    chip = compiler.resolve_target(target)
    with fn.context:
        module = fn.module.operation.clone(ip=False)
        compiler.check(module, chip)


def interpret(fn, *args, grid=None, shared_banks=None, fragment_layouts=True, target="sm_90a",
              accumulation="sm_90") -> None:
    """Runs the @T.function `fn` on the CPU over numpy arrays (and Python
    numbers for scalar parameters), writing what it stores into the written
    arrays; `grid` as for a kernel compiled with ``LaunchConfig(grid=None)``.
    Raises HazardError on a race, InterpretError for what is not modelled,
    runtime.ArgumentError for arguments a launch would refuse. A dict as
    `shared_banks` receives, for each (file:line, opcode) that accessed
    shared memory, its requests, the wavefronts the banks serve them in and
    the ideal (one per 32 distinct words of a phase): more wavefronts than
    ideal are bank conflicts. An mma whose fragments were loaded from
    memory not in the PTX ISA's layout, or whose D is stored out of it,
    raises FragmentLayoutError at that mma or store; `fragment_layouts`
    False runs such a kernel anyway (registers filled from memory on
    purpose in another order multiply other matrices). What compile()
    refuses for `target` (tile_mlir.CompileError) is refused here too; the
    default is the chip the interpreter models, sm_90a (Hopper with its
    arch-specific forms: wgmma, setmaxnreg). A floating mma.sync or wgmma
    accumulates as sm_90's tensor cores do, measured bit for bit
    (`accumulation` "sm_90": interpreter/accumulation.py), where that was
    measured; elsewhere, and with `accumulation` "exact", an element is
    defined only where every partial sum is exact."""
    from ..frontend.kernel import PrimFunc
    if not isinstance(fn, PrimFunc):
        raise TypeError(f"tile_mlir.interpret takes a @T.function kernel, got {type(fn).__name__}")
    if accumulation not in ACCUMULATION_MODELS:
        raise ValueError(f"accumulation is one of {', '.join(ACCUMULATION_MODELS)}, got {accumulation!r}")
    _check_as_compile_does(fn, target)
    signature = _signature(fn)
    signature.check_arguments(args)
    launch_grid = signature.launch_grid(grid)
    if any(not isinstance(a, np.ndarray) for a, p in zip(args, signature.params) if p.kind == "tensor"):
        raise InterpretError(f"{fn.name}: the interpreter takes numpy arrays, not CUDA arrays")
    inputs, aliases, seen, shapes = {}, {}, {}, {}
    for param, value in zip(signature.params, args):
        if param.kind == "scalar":
            inputs[param.name] = np.array(value, param.dtype).tobytes()
            continue
        shapes[param.name] = value.shape  # the extents a runtime-sized tensor has
        if id(value) in seen:
            aliases[param.name] = seen[id(value)]
        seen.setdefault(id(value), param.name)
        inputs[param.name] = value.tobytes()
    func = fn.module.body.operations[0].regions[0].blocks[0].operations[0]
    hazards: List[Hazard] = []
    approximated: dict = {}
    try:
        with fn.context:
            out = machine.run(func, inputs, launch_grid, fn.block, aliases, hazards, approximated, shapes,
                              shared_banks, fragment_layouts, accumulation)
    except machine.NotCovered as why:
        where = f"{why.point}: " if why.point else ""
        raise InterpretError(f"{fn.name}: {where}the interpreter does not model {why} yet") from None
    except machine.MemoryFault as why:
        raise InterpretError(f"{fn.name}: {why}") from None
    except fragment_origins.FragmentLayoutFault as why:
        raise FragmentLayoutError(f"{fn.name}: {why}") from None
    except (mbarrier.MbarrierFault, LoopFault, streams.Stuck, tma.TmaFault, executors.Trap) as why:
        before = getattr(why, "hazards_before", [])
        found = "".join(f"\n  {hazard}" for hazard in before)
        raise InterpretError(f"{fn.name}: {why}" + (f"\nbefore it, the interpreter found {len(before)} "
                                                    f"hazard{'s' if len(before) != 1 else ''}:{found}"
                                                    if before else "")) from None
    if hazards:
        raise HazardError(fn.name, hazards)
    for opcode, point in approximated.items():
        warnings.warn(f"{point}: {opcode} ran as its correctly rounded result; a GPU's differs from it "
                      "within the PTX ISA's bound", InterpretWarning, stacklevel=2)
    # Parameters passed one array share one buffer (the first's name): the
    # array receives it once if any of them is written.
    copied = set()
    for param, value in zip(signature.params, args):
        owner = aliases.get(param.name, param.name)
        if param.kind != "tensor" or not param.written or owner in copied:
            continue
        copied.add(owner)
        data, defined = out[owner]
        target = value.reshape(-1).view(np.uint8)
        target[defined] = data[defined]
        undefined = int((~defined).reshape(-1, value.itemsize).any(axis=1).sum())
        if undefined:
            warnings.warn(f"{fn.name}: {undefined} of {value.size} elements of {param.name} were stored "
                          "undefined (a register read before it was written, or a predicated "
                          "destination without preserve_dst); they were left as they were",
                          InterpretWarning, stacklevel=2)
