"""Control flow the kernel runs: T.if_, T.serial and T.until."""

from __future__ import annotations


from mlir import ir
from mlir.dialects import arith, scf

from .. import ranges as _ranges
from .tracing import REGISTER_SPACE, TileError, _active, _caller, _location
from .values import Bool, Index, _check_owned


class if_:
    """``with T.if_(t < 16):`` a branch the kernel takes at run time
    (``scf.if``). Tiles used inside it keep their memory; for one predicated
    instruction, ``pred=`` is cheaper. Made but never entered with ``with``,
    it is an error at the end of the kernel, not a branch silently dropped."""

    def __init__(self, cond: "Bool"):
        builder = _active()
        if not isinstance(cond, Bool):
            raise TileError(f"T.if_ takes a runtime condition (e.g. T.thread_id() < 16), got "
                            f"{type(cond).__name__}; a Python value needs a Python if")
        _check_owned(cond)
        self.cond, self.where, self.entered = cond, _caller(), False
        self._point = None
        builder.unentered_ifs.append(self)

    def __enter__(self):
        builder = _active()
        if self.entered:
            raise TileError("this T.if_ was already used; write T.if_(cond) for each branch")
        self.entered = True
        builder.unentered_ifs.remove(self)
        with _location():
            self._branch = scf.IfOp(self.cond.value)
        self._point = ir.InsertionPoint(self._branch.then_block)
        self._point.__enter__()
        return None

    def __exit__(self, kind, value, traceback):
        with _location():
            scf.YieldOp([])
        self._point.__exit__(kind, value, traceback)
        return False


def _positive_step(step: "Index") -> bool:
    """A step that is at least 1 when the kernel runs: a positive constant,
    or launch sizes (each at least 1) with positive coefficients."""
    if step.is_static:
        return step.const > 0
    sizes = ("gpu.grid_dim", "gpu.block_dim")
    return step.const >= 0 and all(
        coefficient > 0 and isinstance(value, ir.OpResult) and value.owner.operation.name in sizes
        for value, coefficient in step.terms)


class _OpenLoop:
    """A loop whose body is being traced: its insertion point is left by
    leave() when the body raised or broke out of it."""

    def leave(self) -> None:
        self._point.__exit__(None, None, None)


class serial(_OpenLoop):
    """``for i in T.serial(start, stop, step):`` a loop the kernel runs
    (``scf.for``), unlike a Python ``range``, which unrolls while tracing. The
    body is traced once, with ``i`` an index expression; bounds may be index
    expressions (``T.serial(t, rows, threads)`` is a grid-stride loop), the
    step a positive constant or a positive multiple of the launch's sizes
    (``T.grid_dim() * 128``), which are never 0. Register tiles allocated in
    the body are private to one iteration. The loop counts in 32 bits when
    its start is provably in [0, 2^31) and its stop and step below 2^31
    (constants, thread and block ids and sizes of the compiled-in launch,
    int32 parameters, counters of such loops), else in 64 bits, where its
    counter must not wrap: a step that may pass 2^63 - 1 is an error, and a
    start proven >= 0 counts unsigned, so that stop + step cannot wrap.
    ``break`` and ``return`` in the body are errors: the body is traced
    once, so they cannot decide per iteration."""

    def __init__(self, start, stop=None, step=1):
        if stop is None:
            start, stop = 0, start
        self._bounds = (Index.of(start), Index.of(stop), Index.of(step))
        self.where = _caller()
        self._state = "new"

    def __iter__(self):
        return self

    def __next__(self):
        if self._state == "new":
            self._state = "body"
            return self._open()
        if self._state == "body":
            self._state = "done"
            self._close()
        raise StopIteration

    def _open(self) -> "Index":
        start, stop, step = self._bounds
        if not _positive_step(step):
            raise TileError("T.serial takes a positive constant step, or a positive multiple of "
                            "T.grid_dim() or T.block_dim() plus a constant >= 0")
        builder = _active()
        bounds = [builder.range_of(x) for x in (start, stop, step)]
        for what, bound in zip(("start", "stop", "step"), bounds):
            if bound is not None and not _ranges.INT64_MIN <= bound[0] <= bound[1] <= _ranges.INT64_MAX:
                raise TileError(f"T.serial's {what} may be {bound[1] if bound[1] > 0 else bound[0]}, "
                                "past a 64-bit index: it would wrap")
        # An index the ranges cannot follow is still a 64-bit value.
        bounds = [bound or (_ranges.INT64_MIN, _ranges.INT64_MAX) for bound in bounds]
        # 32 bits, as CUDA counts, where the start is in [0, 2^31) and the
        # stop and step are below 2^31: the counter then stays below 2^32
        # after its last step, so an unsigned comparison is exact. A stop
        # that may be negative is clamped to 0, which runs the loop as often
        # (never). In 64 bits the same holds with 2^63 when the start is
        # proven >= 0; else the counter's last step must not pass 2^63 - 1.
        narrow = (bounds[0][0] >= 0 and bounds[0][1] <= _ranges.INT32_MAX
                  and bounds[1][1] <= _ranges.INT32_MAX and bounds[2][1] <= _ranges.INT32_MAX)
        unsigned = bounds[0][0] >= 0
        if not unsigned:
            if bounds[1][1] - 1 + bounds[2][1] > _ranges.INT64_MAX:
                raise TileError("T.serial's counter may wrap past 2^63 - 1 after its last step: give "
                                "a start proven >= 0 (it then counts unsigned), or bounds that "
                                "leave room for the step")
        with _location():
            if narrow:
                width = ir.IntegerType.get_signless(32)
                low, high, stride = (arith.index_cast(width, x.materialize()) for x in (start, stop, step))
            else:
                low, high, stride = start.materialize(), stop.materialize(), step.materialize()
            if unsigned and bounds[1][0] < 0:
                high = arith.maxsi(high, arith.constant(high.type, 0))
            loop = scf.ForOp(low, high, stride)
            if unsigned:
                loop.operation.attributes["unsignedCmp"] = ir.UnitAttr.get()
        self._point = ir.InsertionPoint(loop.body)
        self._point.__enter__()
        builder.open_loops.append(self)
        counter = loop.induction_variable
        if narrow:
            with _location():
                counter = arith.index_castui(ir.IndexType.get(), counter)
        builder.ranges[counter] = (bounds[0][0], max(bounds[0][0], bounds[1][1] - 1))
        return Index([(counter, 1)])

    def ended_early(self) -> TileError:
        """The error for a body left by break or return."""
        return TileError(f"{self.where[0]}:{self.where[1]}: this T.serial's body ended early (break "
                         "or return): the body is traced once, so it cannot leave the loop per "
                         "iteration; guard the rest of the body with T.if_", located=True)

    def _close(self) -> None:
        builder = _active()
        if builder.open_loops[-1] is not self:
            raise builder.open_loops[-1].ended_early()
        with _location():
            scf.YieldOp([])
        self._point.__exit__(None, None, None)
        builder.open_loops.pop()


class until(_OpenLoop):
    """``with T.until(done):`` runs its body, then runs it again for as
    long as the thread's predicate register ``done`` (a bool tile of one
    register, which the body sets) is false (``scf.while``): the loop a
    thread spins in on ``mbarrier.try_wait``. Each thread leaves when its
    own ``done`` is true. Like T.serial's, the body is traced once, so
    ``break`` and ``return`` in it are errors."""

    def __init__(self, done):
        from .tiles import Buffer
        if not isinstance(done, Buffer) or done.dtype != "bool" or any(n != 1 for n in done.shape):
            raise TileError("T.until takes a predicate register: a bool tile of one element "
                            "(T.alloc_local((1, 1), \"bool\")) that the body sets")
        _check_owned(done)
        space = ir.MemRefType(done.value.type).memory_space
        if space is None or ir.IntegerAttr(space).value != REGISTER_SPACE:
            raise TileError("T.until's predicate is a register tile (T.alloc_local), not memory")
        self.done, self.where = done, _caller()

    def __enter__(self):
        builder = _active()
        with _location():
            self._loop = scf.WhileOp([], [])
            self._body = self._loop.before.blocks.append()
        self._point = ir.InsertionPoint(self._body)
        self._point.__enter__()
        builder.open_loops.append(self)
        return None

    def ended_early(self) -> TileError:
        """The error for a body left by break or return."""
        return TileError(f"{self.where[0]}:{self.where[1]}: this T.until's body ended early (break or "
                         "return): the body is traced once, so it cannot leave the loop per iteration",
                         located=True)

    def __exit__(self, kind, value, traceback):
        builder = _active()
        if kind is None:
            if builder.open_loops[-1] is not self:
                raise builder.open_loops[-1].ended_early()
            from mlir.dialects import memref
            with _location():
                zero = arith.constant(ir.IndexType.get(), 0)
                done = memref.load(self.done.value, [zero] * len(self.done.shape))
                again = arith.xori(done, arith.constant(ir.IntegerType.get_signless(1), 1))
                scf.ConditionOp(again, [])
            self._point.__exit__(kind, value, traceback)
            with ir.InsertionPoint(self._loop.after.blocks.append()), _location():
                scf.YieldOp([])
            builder.open_loops.pop()
            return False
        self._point.__exit__(kind, value, traceback)
        if builder.open_loops and builder.open_loops[-1] is self:
            builder.open_loops.pop()
        return False


# What makes a value differ between the threads of one block.
_THREAD_VARYING = ("gpu.thread_id", "gpu.lane_id", "nvvm.read.ptx.sreg.warpid",
                   "nvvm.read.ptx.sreg.clock64", "nvvm.read.ptx.sreg.globaltimer")


def _varies_in_block(value: ir.Value) -> bool:
    """Whether `value` may differ between the threads of a block: it
    depends on a thread id, or on the counter of a loop whose bounds do.
    Block ids, launch sizes, parameters and constants are the block's."""
    stack, seen = [value], set()
    while stack:
        value = stack.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, ir.BlockArgument):
            owner = value.owner.owner
            if owner.name == "scf.for":
                stack.extend(owner.operands[:3])
            continue
        op = value.owner
        if op.name in _THREAD_VARYING:
            return True
        stack.extend(op.operands)
    return False


def check_converged(opcode: str) -> None:
    """A block barrier must be reached by every thread of the block: not
    inside a T.if_ or T.serial whose condition or bounds vary between its
    threads (those that skip it, or run it fewer times, leave it waiting)."""
    block = ir.InsertionPoint.current.block
    while block is not None and block != _active().entry:
        op = block.owner
        if op.name == "scf.if" and _varies_in_block(op.operands[0]):
            raise TileError(f"{opcode} inside a T.if_ whose condition depends on the thread "
                            f"({_line(op)}): the threads that skip it leave the barrier waiting; "
                            "put the barrier outside the branch")
        if op.name == "scf.for" and any(_varies_in_block(v) for v in op.operands[:3]):
            raise TileError(f"{opcode} inside a T.serial whose bounds depend on the thread "
                            f"({_line(op)}): threads that run fewer iterations leave the barrier "
                            "waiting; give the loop the same bounds in every thread")
        block = op.operation.block


def _line(op) -> str:
    """`file.py:line` of an op the front end made."""
    text = str(op.location)
    start = text.find('"')
    if start < 0:
        return text
    end = text.find('"', start + 1)
    rest = text[end + 2:].split(":")[0]
    return f"{text[start + 1:end]}:{rest}"

