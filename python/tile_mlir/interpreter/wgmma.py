"""wgmma.mma_async and its groups (PTX ISA 9.0, 9.7.15) for the interpreter.

A warpgroup (four warps, 128 threads) issues wgmma.mma_async together:
D (64 x N) = A (64 x K) B (K x N) + D, or A B where scale-d is false. A is
in registers or, like B, in shared memory that a matrix descriptor
(tile.matrix_descriptor) describes.

- Descriptors: tile.matrix_descriptor gives each swizzled shared buffer a
  place in a virtual shared window (aligned to 1024 bytes, as the verifier
  requires of the real one) and encodes the tile's start there with the
  fields of 9.7.15.5.1. wgmma decodes them as the chip does: row r of a
  K-major operand at start + (r / 8) * SBO + (r % 8) * W (W = 32, 64 or
  128 bytes, the layout type), its K bytes contiguous, every address then
  swizzled by its own bits 7-9 (Swizzle<1..3, 4, 3>). With imm-trans 1
  the operand is MN-major: row k of K there, its M or N elements
  contiguous along a swizzled row, and each further such row the leading
  byte offset on. A descriptor that tile.matrix_descriptor did not make
  and the interleaved (unswizzled) mode are not modelled.
- Fragments: thread l of warp w of the warpgroup holds A's and D's rows
  16w + (l / 4) and 16w + (l / 4) + 8 as an mma.m16n8 fragment holds rows
  l / 4 and l / 4 + 8 (tile_mlir.fragments): D's registers go through N in
  blocks of eight columns, four f32 (or two f16x2) registers each.
- reference.mma multiplies, with A's (or B's) elements negated where
  imm-scale-a (imm-scale-b) is -1.
- Asynchrony: the result is in D at once for the interpreter, but until a
  wgmma.wait_group covers the wgmma's committed group, D's registers are in
  flight: another instruction reading or writing them, or writing the
  shared bytes the wgmma reads, is a WgmmaHazard. A later wgmma of the
  same warpgroup may accumulate into the same D (the ISA's chaining).
  wgmma.fence's ordering of earlier register accesses is not checked.
"""

import functools

import numpy as np

from . import accumulation as ACC
from . import effects as E
from . import proxy as P
from . import reference as R
from .. import fragments

# The layout type (descriptor bits 62-63) and the bytes between rows of a
# group of eight.
ROW_BYTES = {1: 128, 2: 64, 3: 32}
WINDOW = 1 << 18


class WgmmaHazard:
    """A register of a wgmma's D, or a shared byte it reads, touched by
    another instruction before a wgmma.wait_group covered its group."""

    kind = "wgmma before its wait"

    def __init__(self, opcode, point, what, issued_at):
        self.opcode, self.second, self.what, self.first = opcode, point, what, issued_at

    def __str__(self):
        return (f"{self.second}: {self.opcode} {self.what}, which the wgmma.mma_async at {self.first} "
                f"has in flight: no wgmma.wait_group since covers its group")


class WgmmaFault(Exception):
    """A wgmma the interpreter cannot give a meaning: a descriptor it did not
    make or one that differs across the warpgroup (the ISA requires the
    same), a warpgroup that does not execute it whole."""


class State:
    """Descriptor bases and each warpgroup's groups."""

    def __init__(self):
        # buffer id -> base.
        self.bases = {}
        # base -> (buffer, per-block start offset, size).
        self.windows = {}
        self.next_base = 1024
        # first thread of a warpgroup -> (uncommitted ops, committed groups).
        self.uncommitted = {}
        self.groups = {}
        # program point -> the report of a write of shared bytes that
        # another asynchronous reader issued there holds (tcgen05.mma).
        self.other_readers = {}


def state(interp):
    if getattr(interp, "wgmma_state", None) is None:
        interp.wgmma_state = State()
    return interp.wgmma_state


def descriptor(interp, view):
    """tile.matrix_descriptor of `view`: (bits per thread, 64)."""
    st = state(interp)
    if view.swizzle is None:
        raise WgmmaFault("tile.matrix_descriptor of a view without its swizzle")
    start, bits, _, _ = view.swizzle
    buffer = view.buffer
    in_block = start - (interp.lanes // interp.per_block) * buffer.block_bytes \
        if buffer.block_bytes else start
    # One window per buffer (a block's copy of it), so that tiles carved
    # from one dynamic shared buffer keep their offsets in it.
    key = id(buffer)
    if key not in st.bases:
        size = buffer.block_bytes or buffer.data.size
        st.bases[key] = st.next_base
        st.windows[st.next_base] = (buffer, 0, size)
        st.next_base += -(-size // 1024) * 1024
        if st.next_base > WINDOW:
            raise WgmmaFault("the swizzled shared buffers exceed the 256 KiB a descriptor addresses")
    address = st.bases[key] + in_block + (view.offset - start)
    row_bytes = 16 << bits
    # A 3-D view's atoms (an MN-major operand's swizzled rows) are the
    # leading byte offset apart; a 2-D view's is 16 (unused).
    leading = view.strides[0] if len(view.shape) == 3 else 16
    fields = ((leading // 16) << 16) | ((8 * row_bytes // 16) << 32) | ((4 - bits) << 62)
    value = ((address.astype(np.uint64) & np.uint64(0x3FFFF)) >> np.uint64(4)) | np.uint64(fields)
    return value, 64


def _signed(value):
    bits, width = value
    v = int(bits[0])
    return v - (1 << width) if v >> (width - 1) else v


def operand_matrix(interp, desc, rows, kind, k, first, block, mn_major=False):
    """The operand a descriptor describes: (bits rows x k, known, buffer,
    byte addresses) for the warpgroup of thread `first`. K-major (the
    default): row r (of M or N) at (r / 8) SBO + (r % 8) W, its K elements
    contiguous. MN-major (imm-trans 1): row k of K at (k / 8) SBO +
    (k % 8) W, its M or N elements contiguous along a swizzled row, each
    further row of them the leading byte offset (LBO) on."""
    st = state(interp)
    d = int(desc)
    layout = d >> 62
    if layout == 0:
        raise WgmmaFault("a descriptor of the interleaved (unswizzled) mode, which tile.matrix_descriptor "
                         "does not make")
    row_bytes = ROW_BYTES[layout]
    group_bytes = ((d >> 32) & 0x3FFF) << 4
    start = (d & 0x3FFF) << 4
    base = max((b for b in st.windows if b <= start), default=None)
    if base is None or start >= base + st.windows[base][2]:
        raise WgmmaFault(f"a descriptor whose start {start:#x} is in no buffer tile.matrix_descriptor described")
    buffer, in_block, size = st.windows[base]
    element_bytes = fragments.ELEMENT_BITS[kind] // 8
    r = np.arange(rows)[:, None, None]
    c = np.arange(k)[None, :, None]
    byte = np.arange(element_bytes)[None, None, :]
    if mn_major:
        # M or N along a swizzled row, then the next row the leading byte
        # offset on.
        per_row = row_bytes // element_bytes
        leading = ((d >> 16) & 0x3FFF) << 4
        absolute = (start + (r // per_row) * leading + (c // 8) * group_bytes + (c % 8) * row_bytes
                    + (r % per_row) * element_bytes + byte)
    else:
        absolute = start + (r // 8) * group_bytes + (r % 8) * row_bytes + c * element_bytes + byte
    swizzled = absolute ^ (((absolute >> 7) & ((row_bytes // 16) - 1)) << 4)
    if swizzled.min() < base or swizzled.max() >= base + size:
        raise WgmmaFault(f"a descriptor that reads bytes {swizzled.min() - base} to {swizzled.max() - base} of a "
                         f"{size}-byte buffer")
    at = block * buffer.block_bytes + in_block + (swizzled - base)
    data = buffer.data[at].astype(np.uint64)
    bits = np.zeros((rows, k), np.uint64)
    for i in range(element_bytes):
        bits |= data[:, :, i] << np.uint64(8 * i)
    known = buffer.defined[at].all(axis=2)
    return bits, known, buffer, at.reshape(-1)


def _register_matrix(interp, view, coord, kind, k, first):
    """A in registers: the 64 x k matrix the warpgroup's fragments hold."""
    per = fragments.per_register(kind)
    width = fragments.ELEMENT_BITS[kind]
    regs = [interp.read(view, coord + [r]) for r in range(4)]
    bits = np.zeros((64, k), np.uint64)
    known = np.zeros((64, k), bool)
    for t in range(128):
        warp, lane = t // 32, t % 32
        for r, (value, defined, _) in enumerate(regs):
            for e in range(per):
                row, col = fragments.element((16, 8, k), "a", kind, r * per + e, lane)
                bits[16 * warp + row, col] = (int(value[first + t]) >> (e * width)) & ((1 << width) - 1)
                known[16 * warp + row, col] = bool(defined[first + t])
    return bits, known


def negate(bits, kind):
    return bits ^ np.uint64(1 << (fragments.ELEMENT_BITS[kind] - 1))


@functools.lru_cache(maxsize=None)
def _d_places(n):
    """(rows, columns), each (128, n / 2): where D's element e (f32 order)
    of the warpgroup's thread t sits (fragments.wgmma_d_place), as index
    arrays, so that a D moves between its matrix and the registers in one
    gather or scatter."""
    rows, cols = np.zeros((128, n // 2), np.intp), np.zeros((128, n // 2), np.intp)
    for t in range(128):
        for e in range(n // 2):
            rows[t, e], cols[t, e] = fragments.wgmma_d_place(e, t // 32, t % 32)
    rows.flags.writeable = cols.flags.writeable = False
    return rows, cols


class WgmmaCall:
    """One wgmma.mma_async tile.apply as each warpgroup's product sees it:
    the shape, the matrices' types, the transposes and negations, the
    named operands and the repeat extents of its m, n and k axes."""

    def __init__(self, form, values, group):
        self.form, self.opcode, self.group = form, form.opcode, group
        self.m, self.n, self.k = form.matrix_shape
        self.dkind, self.akind, self.bkind = (operand.matrix_type for operand in form.operands[:3])
        if self.akind == "b1":
            raise R.NotCovered(f"{self.opcode}: the single-bit wgmma")
        named = self.named = {o.name: v for o, v in zip(form.operands, values)}
        self.trans_a = bool(int(named["imm-trans-a"][0][0])) if "imm-trans-a" in named else False
        self.trans_b = bool(int(named["imm-trans-b"][0][0])) if "imm-trans-b" in named else False
        self.scale_a = _signed(named["imm-scale-a"]) if "imm-scale-a" in named else 1
        self.scale_b = _signed(named["imm-scale-b"]) if "imm-scale-b" in named else 1
        self.d_view = named["d"]
        if not _is_view(self.d_view):
            raise R.NotCovered(f"{self.opcode}: a scalar accumulator")
        self.extents = {}
        for operand, view in zip(form.operands, values):
            if _is_view(view):
                for letter, extent in zip(operand.axes, view.shape[len(group):-1]):
                    self.extents[letter] = extent
        self.operand = {o.name: o for o in form.operands}
        self.a_op = form.operands[1]
        self.per = 1 if self.dkind != "f16" else 2  # D elements a register

    def coord(self, name, repeat):
        """The element of operand `name` at repeat {m, n, k} `repeat`."""
        return self.group + [repeat[x] for x in self.operand[name].axes]


def execute(interp, form, values, group):
    """One wgmma.mma_async of each warpgroup the active threads make up."""
    call = WgmmaCall(form, values, group)
    executing = interp.active.copy()
    in_block = interp.lanes % interp.per_block
    firsts = [int(f) for f in np.unique((interp.lanes - in_block % 128)[executing])]
    for kk in range(call.extents.get("k", 1)):
        for mm in range(call.extents.get("m", 1)):
            for nn in range(call.extents.get("n", 1)):
                for first in firsts:
                    _warpgroup_product(interp, call, {"m": mm, "n": nn, "k": kk}, first, executing)


def _warpgroup_product(interp, call, repeat, first, executing):
    """D = A B + C (or A B) of the warpgroup from thread `first`, its
    shared operands declared read until the wait, its D registers in
    flight."""
    members = first + np.arange(128)
    if members[-1] >= interp.threads or not executing[members].all():
        raise WgmmaFault(f"{call.opcode} at {interp.points[interp.point]}: the warpgroup of thread {first} does not "
                         f"execute it whole (.sync.aligned needs all 128 threads)")
    a, a_known, b_rows, b_known, reads, a_registers = _operands(interp, call, repeat, first, members)
    c, c_known = _accumulator(interp, call, repeat, first)
    satfinite = "satfinite" in call.opcode.split(".")
    d, d_known = ACC.multiply(interp.accumulation, "wgmma", call.dkind, call.akind, call.bkind, call.dkind, a,
                              b_rows.T, c, satfinite)
    d_known = d_known & c_known & a_known.all(axis=1)[:, None] & b_known.all(axis=1)[None, :]
    for buf, at in reads:
        interp.declare(E.read(buf, at, np.full(at.size, first, np.int64)))
        P.check_async_read(interp, buf, at)
        if getattr(buf, "wgmma_reading", None) is None:
            buf.wgmma_reading = np.zeros(buf.data.size, np.int32)
        buf.wgmma_reading[at] = interp.point
    _write_d(interp, call, repeat, first, members, (d, d_known))
    state(interp).uncommitted.setdefault(first, []).append(
        {"point": interp.point, "registers": _d_in_flight(interp, call, repeat, members), "shared": reads,
         "a_registers": [] if a_registers is None else [a_registers]})


def _operands(interp, call, repeat, first, members):
    """(A, its defined bits, B's rows, theirs, the shared bytes read, A's
    registers held until the wait or None): A from shared memory through
    its descriptor or from registers, B through its descriptor, each
    negated by its imm-scale."""
    block, reads, a_registers = first // interp.per_block, [], None
    if call.a_op.name == "a-desc":
        a_desc = _descriptor_value(interp, call.named["a-desc"], call.coord("a-desc", repeat), members, call.opcode)
        a, a_known, buf, at = operand_matrix(interp, a_desc, call.m, call.akind, call.k, first, block, call.trans_a)
        reads.append((buf, at))
    else:
        a, a_known = _register_matrix(interp, call.named["a"], call.coord("a", repeat), call.akind, call.k, first)
        a_registers = _reading(interp, call.named["a"], call.coord("a", repeat), members)
    b_desc = _descriptor_value(interp, call.named["b-desc"], call.coord("b-desc", repeat), members, call.opcode)
    b_rows, b_known, buf, at = operand_matrix(interp, b_desc, call.n, call.bkind, call.k, first, block,
                                               call.trans_b)
    reads.append((buf, at))
    if call.scale_a < 0:
        a = negate(a, call.akind)
    if call.scale_b < 0:
        b_rows = negate(b_rows, call.bkind)
    return a, a_known, b_rows, b_known, reads, a_registers


def _accumulator(interp, call, repeat, first):
    """(C, its defined bits): D's registers as they stand where scale-d
    accumulates (a chained wgmma reads the one before it without a
    hazard), zeros where it does not."""
    scale_d = call.named["scale-d"]
    if _is_view(scale_d):
        bits, sd_known, _ = interp.read(scale_d, call.coord("scale-d", repeat) + [0])
        accumulate, sd_known = bool(bits[first]), bool(sd_known[first])
    else:
        value = scale_d[0] if isinstance(scale_d, tuple) else scale_d
        accumulate, sd_known = bool(value[first]), True
    d_op = call.operand["d"]
    interp.wgmma_own_access = True
    try:
        regs = [interp.read(call.d_view, call.coord("d", repeat) + [r]) for r in range(d_op.count)]
    finally:
        interp.wgmma_own_access = False
    c = np.zeros((call.m, call.n), np.uint64)
    c_known = np.ones((call.m, call.n), bool)
    if accumulate:
        rows, cols = _d_places(call.n)
        elements = range(call.n // 2)
        threads = slice(first, first + 128)
        # Element e of each thread: register e / per, its e % per-th half
        # where two f16 elements share one.
        values = np.stack([regs[e // call.per][0][threads].astype(np.uint64) for e in elements], axis=1)
        shifts = (16 * (np.arange(call.n // 2) % call.per)).astype(np.uint64)
        c[rows, cols] = (values >> shifts) & np.uint64((1 << (32 // call.per)) - 1)
        c_known[rows, cols] = np.stack([regs[e // call.per][1][threads] for e in elements], axis=1)
    if not sd_known:
        c_known[:] = False
    return c, c_known


def _write_d(interp, call, repeat, first, members, product):
    """D (and its defined bits) into the warpgroup's registers, in the
    ISA's fragment layout."""
    d, d_known = product
    count = call.operand["d"].count
    out = [np.zeros(interp.threads, np.uint64) for _ in range(count)]
    out_known = [np.ones(interp.threads, bool) for _ in range(count)]
    rows, cols = _d_places(call.n)
    # (thread, register, element of the register): each register's
    # elements ORed at their shifts, defined where all are.
    values = d[rows, cols].astype(np.uint64).reshape(128, count, call.per)
    shifts = (16 * np.arange(call.per)).astype(np.uint64)
    packed = np.bitwise_or.reduce(values << shifts, axis=2)
    known = d_known[rows, cols].reshape(128, count, call.per).all(axis=2)
    for r in range(count):
        out[r][first:first + 128] = packed[:, r]
        out_known[r][first:first + 128] = known[:, r]
    mask = np.zeros(interp.threads, bool)
    mask[members] = True
    interp.wgmma_own_access = True
    try:
        for r in range(count):
            interp.write(call.d_view, call.coord("d", repeat) + [r], out[r], out_known[r], mask)
    finally:
        interp.wgmma_own_access = False


def _d_in_flight(interp, call, repeat, members):
    """Marks D's register bytes as in flight until the wait; returns them
    (buffer, threads, bytes) for wgmma.wait_group."""
    buffer, nbytes = call.d_view.buffer, max(call.d_view.bits, 8) // 8
    if getattr(buffer, "in_flight", None) is None:
        buffer.in_flight = np.zeros(buffer.data.shape, np.int32)
    registers = []
    for r in range(call.operand["d"].count):
        at = call.d_view.addresses(call.coord("d", repeat) + [r])[members][:, None] + np.arange(nbytes)
        buffer.in_flight[members[:, None], at] = interp.point
        registers.append((buffer, members, at))
    return registers


def _is_view(value):
    """Whether an operand is a tile (machine.View), not a scalar value."""
    return hasattr(value, "addresses")


def _descriptor_value(interp, value, coord, members, opcode):
    if _is_view(value):
        bits, known, _ = interp.read(value, coord + [0])
    else:
        bits, known = value[0], np.ones(interp.threads, bool)
    words = bits[members]
    if not known[members].all():
        raise WgmmaFault(f"{opcode}: a descriptor never written")
    if (words != words[0]).any():
        raise WgmmaFault(f"{opcode}: the descriptor differs across the warpgroup (the PTX ISA requires "
                         f"the same in every warp)")
    return words[0]


def commit(interp):
    st = state(interp)
    in_block = interp.lanes % interp.per_block
    for first in np.unique((interp.lanes - in_block % 128)[interp.active]):
        ops = st.uncommitted.pop(int(first), [])
        st.groups.setdefault(int(first), []).append(ops)


def wait(interp, pending):
    """wgmma.wait_group `pending`: every committed group but the newest
    `pending` of each executing warpgroup completes. A wgmma may read its
    shared operands at any time from its issue to its retirement: the race
    check sees the reads at both ends (at the issue in `execute`, again
    here), so another thread's write that is not ordered before the issue
    or after this wait is a race, whichever order the streams ran them in
    (one ordered between them meets `check_shared_write`)."""
    st = state(interp)
    in_block = interp.lanes % interp.per_block
    for first in np.unique((interp.lanes - in_block % 128)[interp.active]):
        groups = st.groups.get(int(first), [])
        while len(groups) > pending:
            for op in groups.pop(0):
                for buffer, members, at in op["registers"]:
                    buffer.in_flight[members[:, None], at] = 0
                for buffer, members, at in op["a_registers"]:
                    buffer.a_in_flight[members[:, None], at] = 0
                for buffer, at in op["shared"]:
                    buffer.wgmma_reading[at] = 0
                    interp.declare(E.read(buffer, at, np.full(at.size, first, np.int64)))


def check_registers(interp, buffer, at, writing):
    """A read or write of registers (`at`: per thread, the bytes) that a
    wgmma has in flight, by the active threads."""
    if getattr(interp, "wgmma_own_access", False):
        return
    flight = buffer.in_flight[interp.lanes, at]
    bad = (flight != 0) & interp.active
    if bad.any():
        issued = int(flight[bad][0])
        _report(interp, issued, "writes registers of its D" if writing else "reads registers of its D")


def _reading(interp, view, coord, members):
    """Marks A's four registers (each thread's bytes) as read by the wgmma
    until its wait (the ISA: "the contents of the registers ... must not be
    modified until wgmma.wait_group"); returns them as D's are recorded."""
    buffer = view.buffer
    if buffer.a_in_flight is None:
        buffer.a_in_flight = np.zeros(buffer.data.shape, np.int32)
    nbytes = max(view.bits, 8) // 8
    at = np.concatenate([view.addresses(coord + [r])[members][:, None] + np.arange(nbytes) for r in range(4)],
                        axis=1)
    buffer.a_in_flight[members[:, None], at] = interp.point
    return buffer, members, at


def check_a_registers(interp, buffer, at):
    """A write of registers (`at`: per thread, the first byte) that a
    wgmma still reads as its A, by the active threads."""
    flight = buffer.a_in_flight[interp.lanes, at]
    bad = (flight != 0) & interp.active
    if bad.any():
        _report(interp, int(flight[bad][0]), "writes registers of its A")


def check_shared_write(interp, buffer, at):
    """A write of shared bytes that a wgmma (or another asynchronous
    reader that marks them: tcgen05.mma, which reports it itself) still
    reads."""
    if getattr(interp, "wgmma_own_access", False):
        return
    reading = buffer.wgmma_reading[at]
    if (reading != 0).any():
        issued = int(reading[reading != 0][0])
        reporter = state(interp).other_readers.get(issued)
        if reporter is not None:
            reporter(interp, issued)
            return
        _report(interp, issued, "overwrites shared memory it reads")


def _report(interp, issued, what):
    key = ("wgmma", issued, interp.point, what)
    if not interp.first_report(key):
        return
    interp.hazards.append(WgmmaHazard(interp.current_opcode, interp.points[interp.point], what,
                                      interp.points[issued]))
