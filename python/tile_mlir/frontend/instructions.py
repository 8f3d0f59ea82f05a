"""T.ptx[opcode] and T.cuda.tile.apply: one exact PTX form over tiles."""

from __future__ import annotations

from typing import List

from mlir import ir
from mlir.dialects import arith, memref

from .. import ptx as _ptx
from ..dialects import tile as _tile_ops
from .control import check_converged
from .tiles import Buffer
from .tracing import (_FLOAT_OVERFLOW, REGISTER_SPACE, LaunchConfig, TileError, _active, _check_opcode,
                      _location, _raise)
from .values import Bool, Index, Scalar, _check_owned, _IndexScalar


class _PTX:
    """``T.ptx[opcode]``: an opcode spelling, checked against the form table."""

    def __getitem__(self, opcode: str) -> str:
        _check_opcode(opcode)
        try:
            _ptx.parse(opcode)
        except _ptx.PTXFormError as error:
            raise TileError(str(error)) from None
        return opcode


ptx = _PTX()


def _operand(value, opcode: str, role: str) -> ir.Value:
    if isinstance(value, Buffer):
        _check_owned(value)
        return value.value
    if isinstance(value, Scalar):
        return value.materialize()
    if isinstance(value, Index):
        _check_owned(value)
        return value.materialize()
    if isinstance(value, Bool):
        # A runtime condition as a predicate register (wgmma's scale-d).
        _check_owned(value)
        return value.value
    what = type(value).__name__
    hint = "; plain Python numbers have no PTX type" if isinstance(value, (int, float, complex)) else ""
    raise TileError(f"{opcode}: operand {role}: expected a tile, a tensor or a typed scalar "
                    f"(e.g. T.float32(1.0)), got {what} {value!r}{hint}")


def _register_tuple(values, opcode: str, role: str, operand) -> ir.Value:
    """A tuple given for a source of several registers (a TMA's
    coordinates): a register tile of them, the operand's integer type, each
    an index expression, an integer scalar of that width or a Python int.
    Storing into the tile emits no instruction: tile-expand forwards the
    values to the instruction's registers."""
    if operand is None or operand.role != "src" or operand.space != "reg" or \
            len(values) != operand.count or operand.type[0] not in "bsu":
        want = (f"{operand.count} registers of {operand.type}" if operand is not None
                and operand.space == "reg" else "no tuple")
        raise TileError(f"{opcode}: operand {role}: a tuple stands for the registers of an integer "
                        f"source; this operand takes {want}, got {len(values)} values")
    bits = operand.register_bits
    element = ir.IntegerType.get_signless(bits)
    space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), REGISTER_SPACE)
    with _location():
        tile = memref.alloca(ir.MemRefType.get([len(values)], element, memory_space=space), [], [])
        for i, value in enumerate(values):
            if isinstance(value, bool) or not isinstance(value, (int, Index, Scalar)):
                raise TileError(f"{opcode}: operand {role}: element {i} is an index expression, an "
                                f"integer scalar or an int, got {type(value).__name__} {value!r}")
            if isinstance(value, int):
                if not -(1 << (bits - 1)) <= value < (1 << bits):
                    raise TileError(f"{opcode}: operand {role}: {value} does not fit {operand.type}")
                register = arith.constant(element, value)
            elif isinstance(value, Index):
                _check_owned(value)
                register = arith.index_cast(element, value.materialize())
            else:
                register = value.materialize()
                if register.type != element:
                    raise TileError(f"{opcode}: operand {role}: element {i} is a {value.dtype}, "
                                    f"not {bits} bits wide")
            memref.store(register, tile, [arith.constant(ir.IndexType.get(), i)])
    return tile


def _immediate_positions(opcode: str) -> set:
    return {i for i, operand in enumerate(_ptx.parse(opcode).operands) if operand.role == "imm"}


def _immediate(value, opcode: str, role: str) -> ir.Value:
    """An immediate operand (lop3's table): a typed integer scalar, by its
    value. An unsigned one is not its signless bits: T.uint8(232) was the i8
    -24, reported as an illegal immediate -24."""
    if isinstance(value, Scalar) and not isinstance(value, _IndexScalar) \
            and value.dtype not in _FLOAT_OVERFLOW:
        with _location():
            return arith.constant(ir.IntegerType.get_signless(64), int(value.python_value))
    return _operand(value, opcode, role)


_APPLY_OPTIONS = ("scope", "pred", "preserve_dst")


def _role_names(opcode: str, count: int) -> List[str]:
    """The form's operand names (dst, lhs, ...) for diagnostics."""
    try:
        names = [operand.name for operand in _ptx.parse(opcode).operands]
    except _ptx.PTXFormError as error:
        raise TileError(str(error)) from None
    return names[:count] + [f"#{i}" for i in range(len(names), count)]


def _apply(opcode, *operands, **options):
    """``T.cuda.tile.apply(T.ptx[opcode], *operands, pred=, preserve_dst=,
    scope=)``: one exact PTX form over tiles. Operands come in the form's
    order (destinations first); each repeat of the tiles' leading axes is
    one instruction, the final axis gives each operand's registers. ``pred``
    guards every repeat (a runtime Bool, a Python bool or a predicate tile,
    one predicate per repeat); ``preserve_dst`` keeps a destination's value
    where the guard is false; ``scope`` ("thread", "warp", "warpgroup",
    "cta") names the group whose threads each own a row. The form table
    checks the spelling, the operands and the target; a bad program raises
    TileError at the user's line. Returns the ``tile.apply`` op."""
    _active()
    _check_opcode(opcode)
    unknown = [name for name in options if name not in _APPLY_OPTIONS]
    if unknown:
        raise TileError(f"{opcode}: unknown option {unknown[0]}=; tile.apply takes "
                        f"{', '.join(o + '=' for o in _APPLY_OPTIONS)}")
    scope = options.get("scope", "thread")
    pred = options.get("pred")
    preserve_dst = options.get("preserve_dst", False)
    if not isinstance(scope, str):
        raise TileError(f"{opcode}: scope is 'thread', 'warp', 'warpgroup' or 'cta', got {scope!r}")
    if not isinstance(preserve_dst, bool):
        raise TileError(f"{opcode}: preserve_dst is True or False, got {preserve_dst!r}")
    roles = _role_names(opcode, len(operands))
    # A barrier with a thread count (bar.sync a, b) is a group's, which a
    # branch may hold: the interpreter checks that exactly b threads meet.
    if _ptx.parse(opcode).block_barrier and len(operands) < 2:
        check_converged(opcode)
    immediates = _immediate_positions(opcode)
    signature = _ptx.parse(opcode).operands
    values = [_immediate(v, opcode, role) if i in immediates else
              _register_tuple(v, opcode, role, signature[i] if i < len(signature) else None)
              if isinstance(v, tuple) else _operand(v, opcode, role)
              for i, (v, role) in enumerate(zip(operands, roles))]
    predicate = None
    if pred is not None:
        if isinstance(pred, bool):
            with _location():
                predicate = arith.constant(ir.IntegerType.get_signless(1), int(pred))
        elif isinstance(pred, Bool):
            _check_owned(pred)
            predicate = pred.value
        elif isinstance(pred, Buffer) and pred.dtype == "bool":
            # A predicate tile that setp wrote: one predicate per repeat.
            _check_owned(pred)
            predicate = pred.value
        else:
            raise TileError(f"{opcode}: pred is a runtime bool (e.g. T.thread_id() < 4), a Python "
                            f"bool or a predicate tile (T.alloc_local(..., \"bool\")), got "
                            f"{type(pred).__name__}")
    try:
        with _location():
            op = _tile_ops.ApplyOp(opcode, values, pred=predicate, scope=scope,
                                   preserve_dst=True if preserve_dst else None)
            op.operation.verify()
    except ir.MLIRError as error:
        _raise(error)
    _record_writes(opcode, operands)
    return op


def _record_writes(opcode: str, operands) -> None:
    """Notes the parameters a store writes, so the runtime copies back only
    those (and accepts read-only arrays for the rest)."""
    forms = _ptx.overloads(opcode)
    if not forms[0].writes_memory:
        return
    for operand, value in zip(forms[0].operands, operands):
        if operand.space != "reg" and isinstance(value, Buffer) and value.name:
            _active().written.add(value.name)
    # A TMA store (its box the source) writes the tensor its map describes.
    if any(operand.box and operand.role == "src" for operand in forms[0].operands):
        for operand, value in zip(forms[0].operands, operands):
            if operand.address and getattr(value, "tensor", ""):
                _active().written.add(value.tensor)


class _TileNamespace:
    """``T.cuda.tile``: the tile instructions."""

    apply = staticmethod(_apply)


class _CudaNamespace:
    """``T.cuda``: the launch configuration and ``tile.apply``."""

    LaunchConfig = LaunchConfig
    tile = _TileNamespace()


cuda = _CudaNamespace()
