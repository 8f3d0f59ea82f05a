"""A register or memory instruction (every family without an executor of
its own, executors.py), for one repeat: its sources read (registers,
immediates, memory, each with its defined bits and NaN marks), the result
from reference.py (a move keeps its bytes as they are), and its
destinations written, under its guard (a false guard leaves them
undefined, or as they were with preserve_dst); a form of a carry chain
reads or writes the thread's carry flag (carry.py)."""

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from . import atomics as A
from . import carry as C
from . import fragment_origins as O
from . import memory_model as MM
from . import reference as R
from .memory import View, element_bytes, mask_bits
from .reference import NotCovered


# The families that move bits as they are.
MOVES = ("ld", "ldu", "st", "mov")


def may_be_a_move(interp, form, values, coord):
    """R.folds_to_a_move for this instruction's sources: a constant 1.0
    of the form's type, or two sources that are one register."""
    sources = [value for operand, value in zip(form.operands, values)
               if operand.role == "src" and operand.space == "reg"]
    ty = form.opcode.rsplit(".", 1)[-1]
    if len(sources) != 2 or ty not in R.FORMATS:
        return False
    one = any(isinstance(v, tuple) and R.decode(np.uint64(v[0][0]) & mask_bits(R.bits_of(ty)), ty) == 1.0
              for v in sources)
    a, b = sources
    same = (isinstance(a, View) and isinstance(b, View) and a.buffer is b.buffer
            and np.array_equal(a.addresses(coord + [0]), b.addresses(coord + [0])))
    return R.folds_to_a_move(form.opcode, one, same)


@dataclass
class Sources:
    """An instruction's source values for one repeat: each register's bits
    (`bits`) and defined bits (`each_defined`), all of them defined
    (`defined`), which are NaNs an instruction made (`nan`), the
    immediates, the memory operand (operand, view) and, in tracked runs, a
    move's source bytes' origins in order (`moved`)."""

    threads: int
    bits: list = field(default_factory=list)
    each_defined: list = field(default_factory=list)
    immediates: dict = field(default_factory=dict)
    memory: tuple = None
    moved: list = None

    def __post_init__(self):
        self.defined = np.ones(self.threads, bool)
        self.nan = np.zeros(self.threads, bool)

    def add(self, bits, defined, nan=None, origin=None):
        self.bits.append(bits)
        self.each_defined.append(defined)
        self.defined &= defined
        if nan is not None:
            self.nan |= nan
        if self.moved is not None:
            self.moved.append(origin)


def instruction(interp, form, values, coord, execute, preserve, pred_defined=None):
    """One repeat of a register or memory instruction (an atomic:
    atomics.py): where the guard register is unknown (`pred_defined`
    false), the instruction may or may not run, so what it would write is
    undefined."""
    if pred_defined is not None:
        maybe = execute | (interp.active & ~pred_defined)
    if form.family in ("atom", "red"):
        return A.atomic(interp, form, values, coord, execute if pred_defined is None else maybe)
    sources = read_sources(interp, form, values, coord, execute if pred_defined is None else maybe)
    if form.reads_carry or form.writes_carry:
        bits, carry_out, defined = C.carried(interp.carry, form, sources)
        results, made_nan, per_register = [bits], [np.zeros(interp.threads, bool)], [defined]
    else:
        results, made_nan, per_register = compute(interp, form, values, coord, sources)
    if pred_defined is not None:
        per_register = [d & pred_defined for d in per_register]
        execute = maybe
    if form.writes_carry:  # the flag of the threads that (may) run it
        interp.carry.write(carry_out, per_register[0], interp.active & execute)
    write_results(interp, form, values, coord, execute, preserve, sources, (results, made_nan, per_register))


def read_sources(interp, form, values, coord, touches):
    """The sources' values: registers, immediates and a load's memory
    (`touches`: the threads that may access it)."""
    sources = Sources(interp.threads, moved=[] if interp.origins is not None and form.family in MOVES else None)
    for operand, value in zip(form.operands, values):
        if operand.space != "reg":
            sources.memory = (operand, value)
            nbytes = operand.count * element_bytes(value.bits)
            interp.check_alignment(value, coord + [0], nbytes, touches)
            interp.bank_requests(value, coord + [0], nbytes, touches)
            if form.family == "ldu":
                check_uniform_load(interp, value, coord, touches)
            if operand.role == "src":  # ld: the registers come from memory
                for reg in range(operand.count):
                    bits, defined, nan = interp.read(value, coord + [reg], touches, MM.order_of(form))
                    sources.add(bits, defined, nan, sources.moved is not None
                                and interp.byte_origins(value, coord + [reg]))
        elif operand.role == "imm":
            sources.immediates[len(sources.immediates)] = int(value[0][0])
        elif operand.role == "src" and operand.name != "cache-policy":
            # (A cache policy changes where a line may stay in L2, not what
            # the access moves.)
            _read_register(interp, operand, value, coord, sources)
    if any(o.bits > 64 for o in form.operands):
        raise NotCovered("128-bit registers")
    return sources


def check_uniform_load(interp, view, coord, touches):
    """ldu (PTX ISA 9.0, 9.7.9.10) loads data that is read-only during the
    kernel, from an address common to the threads of the warp: the
    interpreter refuses what the ISA leaves undefined, at the line: shared
    memory, a tensor the kernel may also write (setup.written_tensors: a
    store, an atomic, a copy or a tensor map reaches it), and threads of
    one warp at different addresses."""
    buffer, name = view.buffer, view.buffer.name or "a tensor"
    if buffer.shared or buffer.private:
        raise interp.fault(touches, f"ldu loads global memory; {name} is "
                                    f"{'shared memory' if buffer.shared else 'a register tile'}")
    if not buffer.read_only:
        raise interp.fault(touches, f"ldu loads data that is read-only during the kernel, but this kernel may "
                                    f"also write {name} (a store, an atomic, a copy or a tensor map reaches it)")
    lanes = np.flatnonzero(touches)
    if lanes.size < 2:
        return
    address = view.addresses(coord + [0])[lanes]
    warp = interp.warp_first[lanes]
    starts = np.flatnonzero(np.r_[True, warp[1:] != warp[:-1]])
    leader = np.repeat(starts, np.diff(np.r_[starts, lanes.size]))
    apart = np.flatnonzero(address != address[leader])
    if apart.size:
        i = apart[0]
        where = np.zeros(interp.threads, bool)
        where[lanes[i]] = True
        raise interp.fault(where, f"ldu loads byte {int(address[i])} of {name}, but thread {int(lanes[leader[i]])} "
                                  f"of its warp loads byte {int(address[leader[i]])}: ldu's address must be the "
                                  "same in every thread of the warp")


def _read_register(interp, operand, value, coord, sources):
    dtype = R.UINT[max(operand.bits, 8)]
    if isinstance(value, View):
        for reg in range(operand.count):
            bits, defined, nan = interp.read(value, coord + [reg])
            sources.add((bits & mask_bits(operand.bits)).astype(dtype), defined, nan,
                        sources.moved is not None and interp.byte_origins(value, coord + [reg]))
    elif isinstance(value, tuple):
        sources.add((value[0] & mask_bits(operand.bits)).astype(dtype), np.ones(interp.threads, bool), None,
                    np.full((element_bytes(operand.bits), interp.threads), O.UNKNOWN, np.int64))
    else:
        raise NotCovered("an index as an instruction operand")


def compute(interp, form, values, coord, sources):
    """(results, which are made NaNs, each result's defined bits): a move
    keeps its registers' bits as they are (a NaN's too), each register
    defined apart; an operation is reference.py's, undefined where the ISA
    leaves it so or where a source is a NaN of unknown payload."""
    if form.family in MOVES:
        results = repack([s.astype(np.uint64) for s in sources.bits], form)
        per_register = sources.each_defined if len(results) == len(sources.bits) else \
            [sources.defined] * len(results)
        return results, [sources.nan] * len(results), per_register
    if R.APPROXIMATE & set(form.opcode.split(".")) and form.opcode not in R.MEASURED:
        interp.approximated.setdefault(form.opcode, interp.points[interp.point])
    with np.errstate(all="ignore"):
        out = R.reference(SimpleNamespace(opcode=form.opcode, family=form.family, operands=form.operands,
                                          immediates=sources.immediates), sources.bits)
    defined = sources.defined
    if isinstance(out, R.Partial):  # unspecified where the ISA says so
        defined = defined & out.defined.reshape(defined.shape)
        out = out.values
    results = [np.asarray(out).astype(np.uint64)]
    defined = defined & ~sources.nan
    made_nan = [is_nan(results[0], result_type(form))]
    if may_be_a_move(interp, form, values, coord):
        # ptxas may move the source instead: a NaN's bits are either.
        defined = defined & ~made_nan[0]
    return results, made_nan, [defined] * len(results)


def write_results(interp, form, values, coord, execute, preserve, sources, computed):
    """A store's memory, or the destination registers: where the guard is
    false, as they were (preserve_dst) or undefined."""
    results, made_nan, per_register = computed
    if form.family == "st":
        _, view = sources.memory
        origins = split_origins(sources.moved, [element_bytes(view.bits)] * len(results))
        for reg, bits in enumerate(results):
            interp.write(view, coord + [reg], bits, per_register[reg], execute, made_nan[reg], origins[reg],
                         order=MM.order_of(form))
        return
    flat = [(operand, value, reg) for operand, value in zip(form.operands, values)
            if operand.role == "dst" and operand.space == "reg" for reg in range(operand.count)]
    if len(flat) != len(results):
        raise NotCovered(f"{form.opcode}: {len(results)} results for {len(flat)} registers")
    origins = split_origins(sources.moved, [element_bytes(view.bits) for _, view, _ in flat])
    for (operand, view, reg), bits, made, origin, defined in zip(flat, results, made_nan, origins, per_register):
        where = interp.active & execute if preserve else interp.active.copy()
        written = defined if preserve else defined & execute
        interp.write(view, coord + [reg], bits & mask_bits(operand.bits), written, where, made, origin)


def split_origins(moved, sizes):
    """A move's source byte origins (a list of (bytes, threads)) dealt to
    destination elements of `sizes` bytes, in order; where the byte counts
    differ (a widening load) or nothing is tracked, unknown (None)."""
    if moved is None or sum(m.shape[0] for m in moved) != sum(sizes):
        return [None] * len(sizes)
    joined = np.concatenate(moved)
    bounds = np.cumsum([0] + sizes)
    return [joined[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def repack(registers, form):
    """A mov's source registers as its destination registers: mov.b32 d,
    {a, b} joins a (the low bits) and b; mov.b32 {a, b}, d splits d."""
    dst = next((o for o in form.operands if o.role == "dst" and o.space == "reg"), None)
    if form.family != "mov" or dst is None or dst.count == len(registers):
        return registers
    src = next(o for o in form.operands if o.role == "src")
    if dst.count == 1:
        return [sum((r & np.uint64(mask_bits(src.bits))) << np.uint64(k * src.bits)
                    for k, r in enumerate(registers))]
    return [(registers[0] >> np.uint64(k * dst.bits)) & np.uint64(mask_bits(dst.bits))
            for k in range(dst.count)]


_NAN_FORMATS = {"f16": (16, 5, 10), "bf16": (16, 8, 7), "f32": (32, 8, 23), "f64": (64, 11, 52),
                "tf32": (32, 8, 23), "e5m2": (8, 5, 2)}


def is_nan(bits, ptx_type):
    """Whether any float lane of registers of `ptx_type` is a NaN (e4m3's
    only NaNs are 0x7f and 0xff)."""
    lane_type, lanes = ptx_type, 1
    if ptx_type in R.LANES:
        lane_type, _, lanes = R.LANES[ptx_type]
    bits = bits.astype(np.uint64)
    result = np.zeros(bits.shape, bool)
    if lane_type == "e4m3":
        for k in range(lanes):
            result |= (bits >> np.uint64(8 * k)) & np.uint64(0x7F) == np.uint64(0x7F)
        return result
    if lane_type not in _NAN_FORMATS:
        return result
    width, exp_bits, man_bits = _NAN_FORMATS[lane_type]
    for k in range(lanes):
        lane = bits >> np.uint64(width * k)
        exponent = (lane >> np.uint64(man_bits)) & np.uint64((1 << exp_bits) - 1)
        mantissa = lane & np.uint64((1 << man_bits) - 1)
        result |= (exponent == np.uint64((1 << exp_bits) - 1)) & (mantissa != 0)
    return result


def result_type(form):
    """The numeric type of a form's result: a cvt's is its destination type
    token (tf32 sits in a b32 register), any other's its dst operand's."""
    if form.family == "cvt":
        tokens = [t for t in form.opcode.split(".")[1:]
                  if t in R.FORMATS or t in R.LANES or t in R.INT_TYPES or t == "tf32"]
        if tokens:
            return tokens[0]
    return next(o.type for o in form.operands if o.role == "dst")
