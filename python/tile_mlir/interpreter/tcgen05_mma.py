"""tcgen05.mma and tcgen05.commit (PTX ISA 9.0, 9.7.16.10 and 9.7.16.12)
for the interpreter, with cta_group::1: D (M x N, in tensor memory) =
A (M x K) B (K x N) + D, or A B where enable-input-d is false.

- One thread issues it (it is not .sync.aligned): each executing thread
  issues its own. A and B come from shared memory through sm_100's matrix
  descriptors (tile.matrix_descriptor(format="tcgen05"), decoded as
  wgmma's are: the fields and the swizzles are the same), K-major or
  MN-major as the instruction descriptor says; the instruction descriptor
  (tcgen05.decode_instruction_descriptor) gives the types, M, N, the
  majors and the negations. K is 256 bits of A's elements (16 of f16 and
  bf16, 8 of tf32, 32 of 8-bit types).
- D's elements sit where `places` says (the ISA's datapath layouts: M 128
  and 64, and .ws's M 64 and 32 with N folded over the lanes), the
  columns from the address's on; they must lie in an allocation of the
  issuing block, the address at lane 0.
- The arithmetic is reference.mma's: exact where every partial sum is
  (integers; narrow floats into f32), else undefined. No sm_100 is lent:
  the chip's order of additions is not measured.
- Asynchrony: the product is in tensor memory at once for the
  interpreter, but until a wait sees the phase of the mbarrier that a
  later tcgen05.commit of the issuing thread arrives on, D's words are the
  mma's: a tcgen05.ld or st of them is a hazard, and so is a write of the
  shared bytes it reads. A later tcgen05.mma may accumulate into the same
  D (the tensor pipe keeps their order). The commit arrives once (.one)
  when the thread's earlier mma complete: for the interpreter at the
  commit, an asynchronous arrival (a single wait, not a loop, that sees
  its phase complete is reported, as for cp.async.mbarrier.arrive); with
  .multicast::cluster on the same mbarrier of each block ctaMask names. A
  tcgen05.mma never committed is reported when the kernel ends. A thread
  whose wait saw the phase takes D's words only after a
  tcgen05.fence::after_thread_sync of its warp (PTX ISA 9.7.16.6): its
  tcgen05.ld or st of them before the fence is reported.

- disable-output-lane (four registers, lane i's bit i % 32 of register
  i // 32): the rows at set lanes keep their words; scale-input-d: D's
  input times 2^-scale (defined where exact).
- A in tensor memory ([a-tmem]): row i at lane i (M 128, the ISA's layout
  D; M 64 lanes 0-63, as the seed system places A for layout F), its 256
  bits of K in the 8 columns from the address's on, 32 / bits elements a
  column, the first in the low bits; in one allocation of the block, the
  address at lane 0. Until the commit's phase is waited for, a tcgen05.st
  to A's words is a hazard. The warps' hand-off of A (tcgen05.st, fences,
  a barrier, then the issue) is not checked at the mma.

Refused (NotCovered, at the line): cta_group::2, A in tensor memory with
.ws and A's shift (.ashift), the zero-column mask and B's shift of .ws,
collector usage, the block-scaled and sub-byte kinds, an f16 D, and a CTA
pair's commit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import effects as E
from . import mbarrier as M
from . import proxy as P
from . import reference as R
from . import tensor_memory as TM
from . import view_ops as VO
from . import wgmma as W
from .. import tcgen05 as TC
from .reference import NotCovered

ELEMENT_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8}
# kind::mxf4 and mxf4nvf4: e2m1 elements two to a byte (the first of K in
# the low four bits), 64 of K an mma. (kind::f8f6f4's and mxf8f6f4's
# sub-byte elements lie padded in bytes, which is not modelled.)
PACKED_KINDS = ("kind::mxf4", "kind::mxf4nvf4")
PACKED_BITS = {"e2m1": 4}
# e2m1's 16 codes (OCP MX: sign bit 3, exponent bits 1-2 of bias 1, one
# mantissa bit; no infinity or NaN).
E2M1_VALUES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0] * 2) * np.repeat([1.0, -1.0], 8)


def places(m: int, n: int, ws: bool):
    """(lanes, columns) from D's address of each element [i, j] of an
    M x N D: the ISA's datapath layouts for cta_group::1, as the seed
    system's tmem_datapath_layout names them. M 128 (layout D): lane i,
    column j. M 64 (F): rows 16q to 16q + 15 at lanes 32q to 32q + 15.
    .ws M 64 (E) and M 32 (G): N folded over the lanes, into 2 or 4 column
    blocks of N / 2 or N / 4, block h at lanes m h on."""
    i, j = np.indices((m, n))
    if m == 128:
        return i, j
    if not ws:
        return 32 * (i // 16) + i % 16, j
    width = n // (128 // m)
    return i + m * (j // width), j % width


SHAPES = {(128, False), (64, False), (128, True), (64, True), (32, True)}  # (M, .ws)


@dataclass(eq=False)
class Issued:
    """One tcgen05.mma in flight: its program point, its issuing thread, D's
    words (block, lanes, columns), the shared bytes it reads ((buffer,
    byte addresses)) and the tensor-memory words it reads (A's, the block
    scales'; flat index arrays, or None)."""

    point: int
    thread: int
    at: tuple
    reads: list
    tmem_reads: tuple = None


def mma(interp, apply):
    """One tcgen05.mma tile.apply: each executing thread's issue, each
    repeat in turn."""
    named = {o.name: v for o, v in zip(apply.form.operands, apply.values)}
    kind = _refuse_unmodelled(apply.opcode, named)
    ws = "ws" in apply.opcode.split(".")
    for coord in apply.repeats():
        executing, known = apply.executing(interp, coord)
        for thread in np.flatnonzero(executing if known is None else executing & known):
            _issue(interp, (apply.opcode, ws), named, kind, coord, int(thread))


def _refuse_unmodelled(opcode, named):
    """The kind, where the form is one the module models."""
    tokens = opcode.split(".")
    kind = next(t for t in tokens if t.startswith("kind::"))
    unmodelled = ("cta_group::2" in tokens and "a CTA pair" or "ashift" in tokens and "A's shift"
                  or "a-tmem" in named and "ws" in tokens and "A in tensor memory with .ws"
                  or "zero-column-mask-desc" in named and "the zero-column mask"
                  or any(t.startswith("collector::") for t in tokens) and "collector usage"
                  or kind not in ("kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8", "kind::mxf8f6f4",
                                  *PACKED_KINDS) and kind)
    if unmodelled:
        raise NotCovered(f"{opcode}: {unmodelled} (docs/families/tcgen05.md)")
    return kind


def _issue(interp, instruction, named, kind, coord, thread):
    """`thread`'s mma: D computed into tensor memory, its words and its
    shared operands marked as the mma's until the commit's phase is
    waited for."""
    (opcode, ws), st, block = instruction, TM.state(interp), int(interp.block_of(np.array([thread]))[0])
    a_name = "a-tmem" if "a-tmem" in named else "a-desc"
    scaled = ("scale-A-tmem", "scale-B-tmem") if "scale-A-tmem" in named else ()
    values = {name: TM.scalar(interp, named[name], coord, thread)
              for name in ("d-tmem", a_name, "b-desc", "idesc", "enable-input-d", *scaled)}
    missing = [name for name, value in values.items() if value is None]
    if missing:
        TM.report(interp, f"thread {thread} reads its {', '.join(missing)} from a register never written")
        return
    fields = _fields(interp, opcode, kind, values["idesc"], thread)
    lanes, columns = places(fields.m, fields.n, ws)
    column0 = _column0(interp, st, block, values["d-tmem"], int(columns.max()) + 1)
    operands = None if column0 is None else _operands(interp, st, block, values, fields, (kind, thread))
    if operands is None:
        return
    at = (block, lanes, column0 + columns)
    if operands.a_words is not None:
        TM.check_stored(interp, operands.a_words, what="reads, as its A,")
    if values["enable-input-d"]:
        TM.check_stored(interp, at, what="accumulates into")
    c, c_known = _input_d(st, at, (fields.m, fields.n), values["enable-input-d"], _scale_shift(named))
    tmem_reads = [] if operands.a_words is None else [operands.a_words]
    if scaled:
        factors = _block_scales(interp, (st, block, thread), values, fields, TC.scale_vector(opcode))
        if factors is None:
            return
        d, d_known = R.mma_of_values(fields.d, _scaled(operands.a, fields.a, factors[0]),
                                     tuple(x.T for x in _scaled(operands.b, fields.b, factors[1])), (c, fields.d))
        tmem_reads += factors[2]
    else:
        d, d_known = R.mma(fields.d, fields.a, fields.b, fields.d, operands.a, operands.b.T, c, fields.saturate)
    d_known = d_known & c_known & operands.a_known.all(axis=1)[:, None] & operands.b_known.all(axis=1)[None, :]
    kept = _disabled_lanes(interp, named, coord, thread, lanes)
    st.words[at] = np.where(kept, st.words[at], d)
    st.defined[at] = st.half_defined[at] = np.where(kept, st.defined[at], d_known)
    st.mma_pending[at] = interp.point
    for buffer, addresses in operands.reads:
        read_shared(interp, buffer, addresses, thread)
    tmem_reads = _flat(*tmem_reads) if tmem_reads else None
    if tmem_reads is not None:
        st.mma_reading[tmem_reads] = interp.point
    in_flight(st, Issued(interp.point, thread, at, operands.reads, tmem_reads))


def _fields(interp, opcode, kind, idesc, thread):
    """The instruction descriptor's fields, where the interpreter models
    them (NotCovered otherwise; a descriptor the ISA does not define is
    the thread's fault)."""
    try:
        fields = TC.decode_instruction_descriptor(kind, idesc)
    except TC.DescriptorError as error:
        raise interp.fault(interp.lanes == thread, f"its instruction descriptor: {error}") from None
    ws = "ws" in opcode.split(".")
    elements = set(PACKED_BITS) if kind in PACKED_KINDS else set(ELEMENT_BITS)
    if (fields.m, ws) not in SHAPES or fields.max_shift or fields.d not in ("f32", "s32") or \
            not {fields.a, fields.b} <= elements or fields.k96:
        raise NotCovered(f"{opcode}: M {fields.m}, D {fields.d}, A {fields.a}, B's shift {fields.max_shift}"
                         f"{', a K of 96' if fields.k96 else ''} (M 64 or 128, .ws M 32 too, unshifted, into f32 or "
                         "s32 of f16, bf16, tf32, e4m3, e5m2, 8-bit integers or the mxf4 kinds' packed e2m1 is "
                         "modelled)")
    if kind in PACKED_KINDS and "MN" in (fields.a_major, fields.b_major):
        raise interp.fault(interp.lanes == thread, f"its instruction descriptor: {kind}'s e2m1 operands are "
                                                   "K-major (the transpose bits 15-16 are 0)")
    return fields


@dataclass
class _Operands:
    """An mma's A and B (element bits rows x K, defined), the shared bytes
    it reads ((buffer, addresses)) and A's tensor-memory words (or None)."""

    a: np.ndarray
    a_known: np.ndarray
    b: np.ndarray
    b_known: np.ndarray
    reads: list
    a_words: tuple = None


def _operands(interp, st, block, values, fields, issuer):
    """A (from shared memory or tensor memory) and B, negated as the
    descriptor says; None where A's words are in no allocation (reported)."""
    kind, thread = issuer
    packed = kind in PACKED_KINDS
    bits = (PACKED_BITS if packed else ELEMENT_BITS)[fields.a]
    k = 256 // bits
    reads, a_words = [], None
    if "a-tmem" in values:
        a_words = _a_words(interp, st, block, values["a-tmem"], fields.m)
        if a_words is None:
            return None
        a, a_known = _a_in_tensor_memory(st, a_words, bits, k)
    else:
        a, a_known, a_buffer, a_at = _shared_operand(interp, (values["a-desc"], fields.m, fields.a, k, packed),
                                                     thread, block, fields.a_major == "MN")
        reads.append((a_buffer, a_at))
    b, b_known, b_buffer, b_at = _shared_operand(interp, (values["b-desc"], fields.n, fields.b, k, packed), thread,
                                                 block, fields.b_major == "MN")
    reads.append((b_buffer, b_at))
    a = _negate(a, fields.a, packed) if fields.negate_a else a
    b = _negate(b, fields.b, packed) if fields.negate_b else b
    return _Operands(a, a_known, b, b_known, reads, a_words)


def _shared_operand(interp, operand, thread, block, mn_major):
    """W.operand_matrix's (bits rows x k, known, buffer, addresses); packed
    e2m1 read as k / 2 bytes a row, element 2j the low four bits of byte j
    and 2j + 1 the high four."""
    desc, rows, element, k, packed = operand
    if not packed:
        return W.operand_matrix(interp, desc, rows, element, k, thread, block, mn_major)
    data, known, buffer, at = W.operand_matrix(interp, desc, rows, "u8", k // 2, thread, block, mn_major)
    bits = np.stack([data & np.uint64(0xF), data >> np.uint64(4)], axis=2).reshape(rows, k)
    return bits, np.repeat(known, 2, axis=1), buffer, at


def _negate(bits, element, packed):
    return bits ^ np.uint64(1 << (PACKED_BITS[element] - 1)) if packed else W.negate(bits, element)


def _flat(*words):
    """Tensor-memory words (block, lanes, columns) as one flat index."""
    flat = []
    for block, lanes, columns in words:
        lanes, columns = np.broadcast_arrays(lanes, columns)
        flat.append((np.full(lanes.size, block), lanes.reshape(-1), columns.reshape(-1)))
    return tuple(np.concatenate([f[i] for f in flat]) for i in range(3))


# The ue8m0 scale that is NaN (its other codes e are 2^(e - 127)).
UE8M0_NAN = 255


def _block_scales(interp, where, values, fields, vector):
    """(A's scales, B's scales (rows x `vector` factors, NaN where
    undefined), the words of both): each row's scale vector in tensor
    memory as the seed system lays a scale operand out
    (patterns/tcgen05_mma.py): row r at lane r % 32 of each 32-lane
    quadrant (four replicas, which must agree), word column (the
    address's) + r // 32, its factor j in byte id + j of the word (PTX ISA
    9.7.16.10.7.2: 1X the byte the scale id names, 2X the half-word, 4X
    the word). None where the address is not at lane 0 or the words are
    outside the block's allocations (reported, as D's are)."""
    st, block, thread = where
    scale_type, a_id, b_id = fields.scales
    try:
        TC.check_block_scales(vector, scale_type, (("A's scale id", a_id), ("B's scale id", b_id)))
    except TC.DescriptorError as error:
        raise interp.fault(interp.lanes == thread, f"its instruction descriptor: {error}") from None
    found, words = [], []
    for name, rows, ident in (("scale-A-tmem", fields.m, a_id), ("scale-B-tmem", fields.n, b_id)):
        column = _column0(interp, st, block, values[name], -(-rows // 32), name)
        if column is None:
            return None
        r = np.arange(rows)
        at = (block, (32 * np.arange(4))[:, None] + r % 32, column + r // 32)
        TM.check_stored(interp, at, what=f"reads, as {name},")
        shifts = (8 * (ident + np.arange(vector))).astype(np.uint32)
        codes = (st.words[at][:, :, None] >> shifts) & np.uint32(0xFF)  # (replica, row, factor)
        agree = (codes == codes[0]).all(axis=0) & st.defined[at].all(axis=0)[:, None]
        found.append(np.where(agree, _scale_values(codes[0], scale_type), np.nan))
        words.append(at)
    return found[0], found[1], words


def _scale_values(codes, scale_type):
    """Scale codes as float64 factors, NaN where the ISA gives none: ue8m0
    2^(e - 127) (255 NaN); ue4m3 an e4m3 without its sign (0x7F NaN; a set
    bit 7 is no ue4m3)."""
    if scale_type == "ue8m0":
        return np.where(codes == UE8M0_NAN, np.nan, np.ldexp(1.0, codes.astype(np.int64) - 127))
    return np.where(codes >> np.uint32(7), np.nan, R.decode(codes & np.uint32(0x7F), "e4m3"))


def _scaled(bits, element, factors):
    """An operand's elements (rows x K) times its rows' scale vectors (K in
    as many equal blocks as a row has factors), as mma_of_values takes
    them: (values, sign bits); exact (an element's few significant bits
    times a factor's)."""
    if element in PACKED_BITS:
        values, negative = E2M1_VALUES[bits.astype(np.intp)], (bits >> np.uint64(3)).astype(bool)
    else:
        values, negative = R.values_and_signs(bits, element)
    return values * np.repeat(factors, bits.shape[1] // factors.shape[1], axis=1), negative


def in_flight(st, issued):
    """An asynchronous operation issued: in flight until a commit's phase
    after it is waited for."""
    st.uncommitted.setdefault(issued.thread, []).append(issued)
    st.mma_in_flight.setdefault(issued.thread, []).append(issued)


def _input_d(st, at, shape, enabled, shift):
    """D's input (bits, defined): zeros where enable-input-d is false; else
    D's words, times 2^-shift with scale-input-d (defined where that is
    exact: a float32 D's product by a power of two that stays normal)."""
    if not enabled:
        return np.zeros(shape, np.uint32), np.ones(shape, bool)
    c, known = st.words[at], st.defined[at]
    if not shift:
        return c, known
    values = R.decode(c.astype(np.uint64), "f32") * 2.0 ** -shift
    exact = (np.abs(values) >= 2.0 ** -126) | (values == 0) | ~np.isfinite(values)
    return R.encode(values, "f32").astype(np.uint32), known & exact


def _scale_shift(named):
    """scale-input-d's immediate (0 to 15), 0 without one."""
    if "scale-input-d" not in named:
        return 0
    return int(np.asarray(named["scale-input-d"][0]).reshape(-1)[0])


def _disabled_lanes(interp, named, coord, thread, lanes):
    """Per element of D, whether disable-output-lane's bit for its lane is
    set (the word is kept): four 32-bit registers, lane i at bit i % 32 of
    register i // 32. None of them without the operand."""
    if "disable-output-lane" not in named:
        return np.zeros(lanes.shape, bool)
    mask = [interp.read(named["disable-output-lane"], coord + [r]) for r in range(4)]
    words = np.array([int(bits[thread]) for bits, _, _ in mask], np.uint64)
    if not all(bool(known[thread]) for _, known, _ in mask):
        raise interp.fault(interp.lanes == thread, "its disable-output-lane mask reads a register never written")
    return ((words[lanes // 32] >> (lanes % 32).astype(np.uint64)) & np.uint64(1)).astype(bool)


def _column0(interp, st, block, taddr, n, name="D"):
    """The first column of D (or A, or a block-scale operand) (from lane
    0), or None where its `n` columns are not in one allocation of the
    block (reported)."""
    lane, column = taddr >> 16, taddr & 0xFFFF
    if lane:
        TM.report(interp, f"{name} at lane {lane}: its rows' lanes start at lane 0")
        return None
    if TM.allocation_holding(st, block, column, n) is not None:
        return column
    TM.report(interp, f"{name}'s columns {column}-{column + n - 1} are in no allocation of its block")
    return None


A_COLUMNS = 8  # K is 256 bits of A's elements: 8 32-bit columns of a row


def _a_words(interp, st, block, taddr, m):
    """A's words in tensor memory (block, lanes, columns), m x 8: row i at
    lane i (M 128, the ISA's layout D; M 64 lanes 0-63, as the seed
    system's A for layout F places it), its 256 bits in the 8 columns
    from the address's on. None where they are not in one allocation of
    the block (reported)."""
    column0 = _column0(interp, st, block, taddr, A_COLUMNS, "A")
    if column0 is None:
        return None
    lanes, columns = np.indices((m, A_COLUMNS))
    return block, lanes, column0 + columns


def _a_in_tensor_memory(st, words, bits, k):
    """A (bits m x k, defined) from its words: 32 / bits elements a word,
    element e of a word in its bits e * bits on (the first in the low
    bits); a 16-bit element in a word's low half is defined where the half
    is (tcgen05.st's .unpack::16b defines it alone)."""
    per = 32 // bits
    element = np.arange(k)
    at = (words[0], words[1][:, element // per], words[2][:, element // per])
    shift = ((element % per) * bits).astype(np.uint64)
    a = (st.words[at].astype(np.uint64) >> shift) & np.uint64((1 << bits) - 1)
    known = st.defined[at]
    if bits == 16:
        known = known | (st.half_defined[at] & (element % per == 0))
    return a, known


def read_shared(interp, buffer, addresses, thread):
    """The shared bytes the mma reads: read now for the race check, and
    the mma's until its completion is waited for (a write of them before
    is a hazard: wgmma.check_shared_write, which names this mma)."""
    interp.declare(E.read(buffer, addresses, np.full(addresses.size, interp.lanes[thread], np.int64)))
    P.check_async_read(interp, buffer, addresses)
    if buffer.wgmma_reading is None:
        buffer.wgmma_reading = np.zeros(buffer.data.size, np.int32)
    buffer.wgmma_reading[addresses] = interp.point
    W.state(interp).other_readers[interp.point] = _report_shared_write


def _report_shared_write(interp, issued):
    TM.report(interp, f"overwrites shared memory that the {TM.issuer(TM.state(interp), issued)} at "
                      f"{interp.points[issued]} reads: no wait "
                      "has seen the phase its tcgen05.commit arrives on", key=("mma shared", issued))


def commit(interp, apply):
    """tcgen05.commit.cta_group::1.mbarrier::arrive::one{.multicast::cluster}:
    each executing thread's mma so far (every one not yet complete, whether
    an earlier commit tracks it too) complete when a wait sees the phase
    its arrival counts towards (on each mbarrier it arrives on); the
    arrival is made now (asynchronously)."""
    if "cta_group::2" in apply.opcode.split("."):
        raise NotCovered(f"{apply.opcode}: a CTA pair's commit (docs/families/tcgen05.md)")
    st, mbar = TM.state(interp), apply.values[0]
    for coord in apply.repeats():
        executing, known = apply.executing(interp, coord)
        for thread in np.flatnonzero(executing if known is None else executing & known):
            # It tracks every earlier mma of the thread not yet complete,
            # committed before or not (PTX ISA 9.7.16.12).
            st.uncommitted.pop(int(thread), None)
            issued = list(st.mma_in_flight.get(int(thread), []))
            for address in _commit_targets(interp, apply, coord, int(thread)):
                barrier = interp.mbarriers.get(interp.points[interp.point], interp.mbarriers.key(mbar, address),
                                               apply.opcode)
                token = interp.point, barrier.phase
                barrier.completions.append((barrier.phase, lambda issued=issued, token=token:
                                            _complete(interp, issued, token)))
                barrier.observers.setdefault(barrier.phase, []).append(
                    lambda waiter, token=token, where=interp.points[interp.point]: TM.awaiting_fence(
                        interp, waiter, token, where))
                _arrive(interp, apply.opcode, barrier, int(thread))


def _commit_targets(interp, apply, coord, thread):
    """The byte addresses of the mbarriers the thread's commit arrives on:
    its own, or with .multicast::cluster the same offset in the shared
    memory of each block whose cluster rank ctaMask's bit is set."""
    mbar = apply.values[0]
    address = int(mbar.addresses(coord + [0])[thread])
    if "multicast::cluster" not in apply.opcode.split("."):
        return [address]
    mask = TM.scalar(interp, apply.values[1], coord, thread)
    blocks = int(np.prod(interp.cluster))
    if mask is None or mask >> blocks:
        raise interp.fault(interp.lanes == thread, f"its ctaMask {mask} names a rank past its cluster's {blocks} "
                                                   "blocks (or was never written)")
    own = int(interp.block_linear[thread])
    return [address + (int(VO.block_of_rank(interp, rank)[thread]) - own) * mbar.buffer.block_bytes
            for rank in range(blocks) if mask >> rank & 1]


def _arrive(interp, opcode, barrier, thread):
    """The commit's arrival (.one) on `barrier`, made now and counted as
    asynchronous."""
    where = interp.points[interp.point]
    if barrier.pending < 1:
        raise M.MbarrierFault(f"{where}: {opcode}: an arrival where none is pending (the phase waits for its "
                              "transactions): more arrivals than a phase expects are undefined")
    M.arrive_async(interp, barrier, thread, where)


def _complete(interp, issued, token):
    """The mma complete: their D words and shared bytes are free again
    (where no later mma holds them); D's words handed over by the commit
    `token` (its program point and phase), which a waiting thread takes
    after a tcgen05.fence::after_thread_sync."""
    st = TM.state(interp)
    for mma_issued in issued:
        st.handed_over[mma_issued.at] = st.token_id(token)
        flight = st.mma_in_flight.get(mma_issued.thread, [])
        if mma_issued in flight:
            flight.remove(mma_issued)
        at = mma_issued.at
        st.mma_pending[at] = np.where(st.mma_pending[at] == mma_issued.point, 0, st.mma_pending[at])
        for buffer, addresses in mma_issued.reads:
            held = buffer.wgmma_reading[addresses]
            buffer.wgmma_reading[addresses] = np.where(held == mma_issued.point, 0, held)
        if mma_issued.tmem_reads is not None:
            held = st.mma_reading[mma_issued.tmem_reads]
            st.mma_reading[mma_issued.tmem_reads] = np.where(held == mma_issued.point, 0, held)
