"""The PTX form table, as the compiler sees it.

``parse(opcode, target=None)`` returns the :class:`Form` of an opcode
spelling, or raises :class:`PTXFormError` with the same message the verifier
gives. The table itself lives in C++ (``lib/PTX/Forms.cpp``); this module is
its Python face.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from . import _tile


class PTXFormError(ValueError):
    """An opcode that is not a PTX instruction form, or not on the target."""


@dataclass(frozen=True)
class Operand:
    name: str
    """Diagnostic name: dst, lhs, rhs, src, src1, ..."""
    role: str
    """"dst" (written) or "src" (read)."""
    space: str
    """"reg" for a register, else the memory space of an address operand."""
    type: str
    """PTX type token of one register or element, e.g. "f16x2"."""
    bits: int
    """Width of one register or memory element."""
    count: int
    """Registers bound from the operand's final tile axis."""
    register_bits: int
    """Width of the PTX register that holds one value (8-bit integers sit in
    16-bit registers)."""
    carriers: Tuple[str, ...]
    """Element types (MLIR spelling) that may carry one register."""
    immediates: Tuple[int, ...] = ()
    """The values an immediate ("imm") operand may take; when empty, every
    value from 0 to max_immediate."""
    max_immediate: int = 0
    immediate_step: int = 1
    """Without immediates: the values are the multiples of this from 0 to
    max_immediate (a bulk copy's size, of 16)."""
    read_at: int = 0
    """An rw operand stands at the destination's position and again at this
    one of the PTX operand list, where it is read (fma d, a, b, d: 3)."""
    joined_by_bar: bool = False
    """Its registers are written p|q (setp's pair), not {p, q}."""
    bar_before: bool = False
    """It follows the previous operand after a bar (elect.sync d|p)."""
    sized_by: str = ""
    """For a memory operand sized by an immediate (cp.async), its name."""
    axes: str = ""
    """The repeat axes it spans, a letter each, where the form's repeat
    space is not shared by every operand (an mma: D and C "mn", A "mk", B
    "nk"); "" spans the apply's whole repeat shape."""
    accumulator: bool = False
    """An accumulator input (mma's C): it feeds the first step along the
    axes it does not span, the destination each later one."""
    braced: bool = False
    """Written in braces even as one register (an mma fragment: {%r1})."""
    address: bool = False
    """A register holding an address, written in brackets: a TMA's tensor
    map ([%rd1, ...])."""
    within_address: bool = False
    """Written inside the brackets of the address before it: a TMA's
    coordinates ([%rd1, {%r1, %r2}])."""
    box: bool = False
    """A memory operand that is one whole tile, the box of the tensor map
    before it (a TMA's shared destination or source)."""
    bulk: bool = False
    """A memory operand of a bulk copy (cp.async.bulk): its sized_by bytes
    contiguous from an address aligned to 16 bytes."""
    matrix_type: str = ""
    """An operand that holds or describes a matrix of the multiply (wgmma's
    d, a or a-desc, b-desc): the PTX type of its elements ("bf16", "e4m3",
    "b1"), whatever its registers' type; "" for any other operand."""
    matrix_bits: int = 0
    """The width of those elements in bits; 0 for any other operand."""


@dataclass(frozen=True)
class Form:
    opcode: str
    family: str
    operands: Tuple[Operand, ...]
    min_sm: int
    min_ptx: int
    """PTX ISA version times ten, e.g. 86 for 8.6."""
    arch_specific: bool
    reads_memory: bool
    writes_memory: bool
    warp_collective: bool = False
    """Every thread of a warp executes it together (mma.sync.aligned)."""
    warpgroup_collective: bool = False
    """Every thread of a warpgroup executes it together (wgmma.mma_async)."""
    accesses_described_memory: bool = False
    """It reads or writes memory that no operand names, through the
    descriptors it takes (wgmma.mma_async's matrix descriptors, a TMA's
    tensor map)."""
    block_barrier: bool = False
    """A barrier of the block (bar.sync): every thread of the block, or the
    count it names, reaches it together; it takes no guard."""
    observes_warp: bool = False
    """Its result is the set of threads executing it together
    (activemask)."""
    orders_memory: bool = False
    """A fence (membar, fence): no operands, it orders the thread's memory
    accesses."""
    reads_carry: bool = False
    """It reads the carry flag CC.CF (addc, subc, madc)."""
    writes_carry: bool = False
    """It writes the carry flag (a .cc form: add.cc, addc.cc, mad.lo.cc)."""
    accesses_tensor_memory: bool = False
    """It reads or writes Blackwell's tensor memory (tcgen05), which no
    operand names."""
    lowered: bool = True
    """tile.apply takes it; cp.async and mma are parsed and enumerated
    before they are lowered."""
    sink_result: bool = False
    """Its PTX operand list starts with the sink ``_`` (an mbarrier arrival
    on .shared::cluster returns no state); no operand stands for it."""
    arch_only: bool = False
    """Only on ``a`` targets from min_sm to max_sm (cvt.rs: sm_100a to
    sm_103a); ``arch_specific`` with a ``max_sm``: on ``a`` or ``f``
    targets in that range (tcgen05)."""
    max_sm: int = 0
    """The newest SM that has it (0: every later one)."""
    address_value: bool = False
    """Its memory operand is an address read as a value, written without
    brackets (isspacep, cvta, getctarank): no byte there is read or
    written."""
    caveat: str = ""
    """A measured way in which ptxas or the hardware departs from the PTX
    ISA for this form (tile-expand warns with it); "" for none."""
    matrix_shape: Optional[Tuple[int, int, int]] = None
    """An mma or wgmma form's (m, n, k) from its shape qualifier
    (m64n128k16: (64, 128, 16)); None for other forms."""


def parse(opcode: str, target: Optional[str] = None) -> Form:
    """Parses ``opcode``; with ``target`` (e.g. "sm_90"), also checks the floor."""
    if not isinstance(opcode, str):
        raise PTXFormError(f"an opcode is a string, got {type(opcode).__name__}")
    try:
        raw = _tile.parse_form(opcode, target)
    except ValueError as error:
        raise PTXFormError(str(error)) from None
    return _form(raw)


def _form(raw) -> Form:
    operands = tuple(Operand(**{**op, "carriers": tuple(op["carriers"]), "immediates": tuple(op["immediates"])})
                     for op in raw["operands"])
    return Form(**{**raw, "operands": operands})


def overloads(opcode: str, target: Optional[str] = None) -> Tuple[Form, ...]:
    """Every form ``opcode`` names: the one ``parse`` returns first, then its
    other operand signatures: for mov.b32/b64/b128 the forms that pack
    registers into one, or unpack one, with braces (``mov.b64 d, {a, b}``),
    fma's tied accumulator, min.f32's three inputs. An instruction's
    operands decide which one it is. With ``target``, only the forms that
    exist there (min.f32 has three inputs from sm_100 on)."""
    parse(opcode, target)  # the same errors and target check
    try:
        return tuple(_form(raw) for raw in _tile.overloads(opcode, target))
    except ValueError as error:
        raise PTXFormError(str(error)) from None


def families() -> Tuple[str, ...]:
    """The instruction families tile.apply takes."""
    return tuple(_tile.families())


def table_families() -> Tuple[str, ...]:
    """Every family the table parses, lowered or not (fma, cp.async, mma)."""
    return tuple(_tile.table_families())


def forms(family: str) -> Tuple[str, ...]:
    """Every legal spelling of ``family``, one per qualifier set, with its
    qualifiers in the record's order (the table's own enumeration: what
    ``docs/ptx-forms.md`` lists)."""
    return tuple(_tile.enumerate_forms(family))


def describe(opcode: str, target: Optional[str] = None) -> str:
    """One line per form of ``opcode`` (or its error), as the table sees it:
    ``python -m tile_mlir.parse_form mul.lo.s32 fma.rn.f32`` prints them, for
    readers and for the interpreter's lit tests (test/PTX/interpreter)."""
    try:
        forms = overloads(opcode, target)
    except PTXFormError as error:
        return f"{opcode}: error: {error}"
    lines = []
    for index, form in enumerate(forms):
        operands = []
        for op in form.operands:
            text = f"{op.name}:{op.role}:{op.type}"
            if op.bar_before:
                text = "|" + text
            if op.count > 1:
                text += f"x{op.count}" + ("|" if op.joined_by_bar else "")
            if op.space != "reg":
                text += f"@{op.space}"
            if op.role == "imm":
                text += "=" + (",".join(map(str, op.immediates)) or f"0..{op.max_immediate}"
                               + (f"/{op.immediate_step}" if op.immediate_step > 1 else ""))
            if op.read_at:
                text += f"@{op.read_at}"
            operands.append(text)
        floor = f"sm_{form.min_sm} ptx {form.min_ptx // 10}.{form.min_ptx % 10}" if form.min_sm or form.min_ptx \
            else "any target"
        line = f"{form.opcode}#{index}: {form.family} ({', '.join(operands)}) {floor}"
        if form.caveat:
            line += f" caveat: {form.caveat}"
        lines.append(line)
    return "\n".join(lines)

