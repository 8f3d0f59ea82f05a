"""tile.apply in the interpreter: the op decoded once (its form, operand
values, group coordinates and guard), then the executor of its form's
class in the form table: its family's (one table, EXECUTORS: the cluster
barrier, mbarriers, the asynchronous copies and wgmma with their fences
and waits, mma, the matrix moves, the warp collectives); else by the
form's flags, a block barrier or a fence; else a register or memory
instruction (instruction.py), one repeat at a time."""

import itertools
from dataclasses import dataclass

import numpy as np

from . import address_values as AV
from . import async_store as AS
from . import barriers as B
from . import cp_async as CP
from . import mbarrier as M
from . import memory_model as MM
from . import mma_sync as MS
from . import tcgen05_copy as TCP
from . import tcgen05_mma as TMMA
from . import tensor_memory as TM
from . import tma as T
from . import warp_collectives as WC
from . import wgmma as W
from .instruction import instruction
from .memory import View
from .reference import NotCovered


@dataclass
class Apply:
    """One tile.apply: its form, operand values, the executing thread's
    group coordinates, its guard (a per-thread condition, or a predicate
    tile of one register a repeat) and whether a false guard keeps the
    destination (preserve_dst)."""

    form: object
    values: list
    group: list
    guard: object
    preserve: bool

    @property
    def opcode(self):
        return self.form.opcode

    def repeats(self):
        """Each repeat's coordinates: the group's, then the repeat axes of
        the first tile operand (between the group's axes and the registers)."""
        shape = next((v.shape[len(self.group):-1] for v in self.values if isinstance(v, View)), [])
        for coord in itertools.product(*[range(n) for n in shape]):
            yield self.group + list(coord)

    def executing(self, interp, coord=None):
        """(threads executing, where the guard is known): a predicate tile's
        register of repeat `coord` (one never written leaves the guard
        unknown), or the condition (known everywhere: None)."""
        if isinstance(self.guard, View):
            bits, known, _ = interp.read(self.guard, coord + [0])
            return interp.active & (bits != 0), known
        return interp.active & self.guard, None


def decode(interp, op) -> Apply:
    from mlir import ir
    from .. import ptx
    opcode = ir.StringAttr(op.attributes["opcode"]).value
    interp.current_opcode = opcode
    scope = ir.StringAttr(op.attributes["scope"]).value if "scope" in op.attributes else "thread"
    segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    values = [interp.values[a] for a in op.operands[:segments[0]]]
    guard = interp.values[op.operands[segments[0]]] if segments[1] else np.ones(interp.threads, bool)
    return Apply(select_form(ptx.overloads(opcode), values), values, interp.group_coordinates(scope), guard,
                 "preserve_dst" in op.attributes)


def execute(interp, op) -> None:
    """Runs one tile.apply."""
    apply = decode(interp, op)
    form = apply.form
    executor = EXECUTORS.get(form.family)
    if executor is None:
        executor = _block_barrier if form.block_barrier else _fence if form.orders_memory else _per_register
    executor(interp, apply)


def _block_barrier(interp, apply):
    values = B.barrier_operands(interp, apply.form, apply.values)
    B.barrier(interp, apply.form, values, interp.active.copy())
    if "red" in apply.opcode.split("."):
        B.barrier_reduction(interp, apply.form, apply.values, interp.active.copy())


def _fence(interp, apply):
    """A fence orders its thread's accesses, which the interpreter keeps in
    program order anyway; with strong accesses it releases and acquires
    (memory_model.py); fence.proxy.async orders the generic proxy's
    accesses before the async proxy's (proxy.py)."""
    executing, _ = apply.executing(interp)
    if interp.sync is not None:
        interp.sync.fence(np.flatnonzero(executing), MM.order_of(apply.form))
    if apply.opcode.startswith("fence.proxy.async"):
        interp.unfenced.fence(interp, interp.lanes[executing])


def _mbarrier(interp, apply):
    """mbarrier, and cp.async's arrival on one (cp.async.mbarrier.arrive)."""
    run = M.pending_count if "pending_count" in apply.opcode.split(".") else M.execute
    executing, _ = apply.executing(interp)
    for coord in apply.repeats():
        run(interp, apply.form, apply.values, coord, executing)


def _cp_async(interp, apply):
    if "mbarrier" in apply.opcode.split("."):
        _mbarrier(interp, apply)
        return
    CP.async_copy(interp, apply.form, apply.values, apply.group, apply.executing(interp)[0])


def _matrix_move(interp, apply):
    if "m8n8" not in apply.opcode.split("."):
        raise NotCovered(f"{apply.opcode}: the sm_100a .b8 shapes (checked by ptxas only)")
    for coord in apply.repeats():
        MS.matrix_move(interp, apply.form, apply.values, coord)


def _warp_collective(interp, apply):
    """A warp collective per repeat; under a predicate tile (activemask's),
    the threads whose guard is unknown do not execute it."""
    run = WC.shuffle if apply.form.family == "shfl" else WC.collective
    for coord in apply.repeats():
        executing, known = apply.executing(interp, coord)
        run(interp, apply.form, apply.values, coord, executing if known is None else executing & known)


def _per_register(interp, apply):
    """A register or memory instruction per repeat (instruction.py):
    where a predicate tile's register is unknown, what it writes is too."""
    for coord in apply.repeats():
        executing, known = apply.executing(interp, coord)
        instruction(interp, apply.form, apply.values, coord, executing, apply.preserve, known)


def _move_matrix(interp, apply):
    """movmatrix per repeat (warp_collectives.py): the whole warp runs it."""
    for coord in apply.repeats():
        executing, known = apply.executing(interp, coord)
        WC.move_matrix(interp, apply.form, apply.values, coord, executing if known is None else executing & known)


def _no_visible_effect(interp, apply):
    """What an interpreted launch cannot see: griddepcontrol (it has no
    grid before or after it, so wait has nothing to wait for and
    launch_dependents nothing to start; docs/families/griddepcontrol.md),
    nanosleep (time passes; the threads' turns are the machine's) and
    prefetch / prefetchu (a line into a cache)."""


def _multimem(interp, apply):
    """multimem.ld_reduce, st and red: a multimem address names memory on
    every GPU of an NVLink multicast object, which one interpreted launch
    (one GPU) does not have: refused at the line."""
    raise NotCovered(f"{apply.opcode} (a multimem address names memory on every GPU of an NVLink multicast "
                     "object; the interpreter runs one GPU)")


def _tensor_map_edit(interp, apply):
    """tensormap.cp_fenceproxy (a tensor map copied for the tensormap
    proxy) and tensormap.replace (a field of a map in memory edited): the
    interpreter's tensor maps are parameters, not bytes of its memory that
    a kernel edits (and the map's encoding is the driver's, which no
    document gives), so both are refused at the line."""
    raise NotCovered(f"{apply.opcode} (its tensor maps are parameters, not bytes a kernel edits)")


def _cache_line(interp, apply):
    """discard.L2 (PTX ISA 9.7.9.16): a weak write of unstable
    indeterminate bytes over the 128-byte line (later reads see them
    undefined, and another thread's access of the line races with it);
    applypriority: the line's L2 priority, which no thread sees. A line
    not aligned to 128 bytes faults, as on the chip."""
    executing, _ = apply.executing(interp)
    line = apply.values[0]
    nothing, undefined = np.zeros(interp.threads, np.uint64), np.zeros(interp.threads, bool)
    for coord in apply.repeats():
        interp.check_alignment(line, coord + [0], 128, executing)
        if apply.form.family == "discard":
            for byte in range(128):
                interp.write(line, coord + [byte], nothing, undefined, executing)


class Trap(Exception):
    """A thread executed trap: the launch stops with an error."""


def _trap(interp, apply):
    """trap: the kernel stops with an error where any thread executes it
    (on the GPU the launch fails and its context is lost)."""
    executing, known = apply.executing(interp)
    threads = np.flatnonzero(executing if known is None else executing | (interp.active & ~known))
    if threads.size:
        raise Trap(f"{interp.points[interp.point]}: thread {int(threads[0])} executed trap: the launch stops "
                   "with an error")


def _exit(interp, apply):
    """exit: the executing threads run nothing more; a barrier of all the
    block's threads waits for the others only (PTX ISA 9.0, exit). A guard
    the interpreter does not know is refused (the thread may or may not
    go on), and so is exit while warpgroups take turns."""
    executing, known = apply.executing(interp)
    if known is not None and (interp.active & ~known).any():
        raise NotCovered(f"{apply.opcode} under a guard some threads do not know")
    if interp.streams is not None:
        raise NotCovered(f"{apply.opcode} while warpgroups take turns")
    interp.exited |= executing
    interp.active = interp.active & ~executing


def _wgmma(interp, apply):
    """wgmma.mma_async, commit_group and wait_group (wgmma.py); its fence
    orders nothing the interpreter runs out of order."""
    name = apply.opcode.split(".")[1]
    if name == "mma_async":
        W.execute(interp, apply.form, apply.values, apply.group)
    elif name == "commit_group":
        W.commit(interp)
    elif name == "wait_group":
        W.wait(interp, int(apply.values[0][0][0]))


# tcgen05.mma and commit (tcgen05_mma.py), cp (tcgen05_copy.py); the rest:
# tensor_memory.py.
_TCGEN05_MMA = {"mma": TMMA.mma, "commit": TMMA.commit, "cp": TCP.copy}


def _tcgen05(interp, apply):
    _TCGEN05_MMA.get(apply.opcode.split(".")[1], TM.execute)(interp, apply)


def _with_executing(method):
    """An executor that takes (form, values, executing) after the interpreter."""
    return lambda interp, apply: method(interp, apply.form, apply.values, apply.executing(interp)[0])


# The executor of each family (the form table's `family`).
EXECUTORS = {
    "barrier.cluster": lambda interp, apply: B.cluster_barrier(interp, apply.form, interp.active.copy()),
    "mbarrier": _mbarrier,
    "cp.async": _cp_async,
    "cp.async.bulk": _with_executing(T.execute),
    **{family: lambda interp, apply: AS.execute(interp, apply.form, apply.values, apply.group,
                                                apply.executing(interp)[0]) for family in ("st.async", "red.async")},
    "prefetch.tensormap": _with_executing(T.execute),
    "wgmma": _wgmma,
    "createpolicy": lambda interp, apply: CP.cache_policy(interp, apply.values, apply.group,
                                                          apply.executing(interp)[0]),
    "mma": lambda interp, apply: MS.mma(interp, apply.form, apply.values, apply.group),
    "ldmatrix": _matrix_move,
    "stmatrix": _matrix_move,
    **{family: _warp_collective for family in ("shfl", "vote", "match", "redux", "elect", "activemask")},
    "movmatrix": _move_matrix,
    "griddepcontrol": _no_visible_effect,
    "nanosleep": _no_visible_effect,
    "prefetch": _no_visible_effect,
    "prefetchu": _no_visible_effect,
    "trap": _trap,
    "exit": _exit,
    "tcgen05": _tcgen05,
    "discard": _cache_line,
    "multimem": _multimem,
    "tensormap.cp_fenceproxy": _tensor_map_edit,
    "tensormap.replace": _tensor_map_edit,
    "applypriority": _cache_line,
    **{family: AV.execute for family in ("isspacep", "cvta", "getctarank")},
}


def select_form(forms, values):
    """The overload whose register counts and widths the operands match (the
    spec's rule: the final axis counts one instruction's registers)."""
    for form in forms:
        if len(form.operands) != len(values):
            continue
        fits = True
        for operand, value in zip(form.operands, values):
            if operand.role == "imm":
                # The front end passes immediates as i64 constants.
                fits &= isinstance(value, tuple)
            elif isinstance(value, View) and operand.sized_by:
                pass  # cp.async's bytes, in elements of any width
            elif isinstance(value, View):
                fits &= value.shape[-1] == operand.count and value.bits == operand.bits
            elif isinstance(value, tuple):
                fits &= operand.count == 1 and value[1] == operand.bits
            elif isinstance(value, np.ndarray) and value.dtype == bool:
                fits &= operand.type == "pred"  # a runtime condition (wgmma's scale-d)
            else:
                fits = False
        if fits:
            return form
    return forms[0]
