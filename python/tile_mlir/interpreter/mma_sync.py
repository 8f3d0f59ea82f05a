"""The warp's matrix instructions: ldmatrix and stmatrix (PTX ISA
9.7.14.5.15-16), and mma.sync (9.7.14.5.14), each operand's fragment
from tile_mlir.fragments, the product from the accumulation model, and
where each element came from (fragment_origins) where the run tracks it."""

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from . import accumulation as ACC
from . import fragment_origins as O
from . import warp_collectives as WC
from .. import fragments
from .memory import View
from .reference import NotCovered


def matrix_move(interp, form, values, coord):
    """ldmatrix and stmatrix .m8n8 .b16 (PTX ISA 9.0, 9.7.14.5.15-16):
    row r of matrix j is the 8 b16 elements at the address of lane
    8j + r (here: that lane's row of the memory operand); register j of
    lane l holds elements 2(l % 4) and 2(l % 4) + 1 of row l / 4 (the
    lower one in the low half), or with .trans those rows' elements of
    column l / 4."""
    tokens = form.opcode.split(".")
    trans = "trans" in tokens
    regs_op = next(o for o in form.operands if o.space == "reg")
    named = {o.space == "reg": v for o, v in zip(form.operands, values)}
    regs, memory = named[True], named[False]
    count = regs_op.count
    executing = interp.active
    lane, first_threads, partial = WC.whole_warps(interp, form, executing)
    first = interp.lanes - lane
    supplies = executing & (lane < 8 * count)  # the lanes whose addresses are read

    def source(j, row):
        return first + 8 * j + row

    interp.check_alignment(memory, coord + [0], 16, supplies)
    interp.bank_requests(memory, coord + [0], 16, supplies, phase_lanes=8)
    if form.family == "ldmatrix":
        rows = interp.read_row(memory, coord, 8, supplies)
        # (8, threads): element e of the row each thread's address reads.
        values = np.stack([bits for bits, _, _ in rows]) & np.uint64(0xFFFF)
        defined = np.stack([known for _, known, _ in rows])
        row_origins = np.stack([interp.byte_origins(memory, coord + [e]) for e in range(8)])  # (8, 2, threads)
        for j in range(count):
            word = np.zeros(interp.threads, np.uint64)
            origin = np.empty((4, interp.threads), np.int64)
            known = ~partial
            for h in range(2):
                if trans:
                    r, c = 2 * (lane % 4) + h, lane // 4
                else:
                    r, c = lane // 4, 2 * (lane % 4) + h
                src = source(j, r)
                word |= values[c, src] << np.uint64(16 * h)
                known = known & defined[c, src]
                origin[2 * h:2 * h + 2] = row_origins[c, :, src].T
            interp.write(regs, coord + [j], word, known, executing, None, origin)
        return
    # stmatrix: memory element (r, c) of matrix j, written through lane
    # 8j + r's address, comes from lane 4r + c/2 (.trans: 4c + r/2).
    words = [interp.read(regs, coord + [j]) for j in range(count)]
    word_origins = [interp.byte_origins(regs, coord + [j]) for j in range(count)]
    row = lane % 8
    j_of = lane // 8
    for e in range(8):
        value = np.zeros(interp.threads, np.uint64)
        origin = np.full((2, interp.threads), O.UNKNOWN, np.int64)
        known = ~partial
        for j in range(count):
            mine = j_of == j
            if trans:
                src_lane, h = 4 * e + row // 2, row % 2
            else:
                src_lane, h = 4 * row + e // 2, e % 2
            src = first + src_lane
            word, defined, _ = words[j]
            value = np.where(mine, (word[src] >> np.uint64(16 * h)) & np.uint64(0xFFFF), value)
            known = np.where(mine, known & defined[src], known)
            origin = np.where(mine, word_origins[j][2 * h + np.arange(2)[:, None], src], origin)
        interp.write(memory, coord + [e], value, known, supplies, origin=origin)


@dataclass
class _Issue:
    """One mma.sync apply: what each product of its repeat space needs."""
    interp: object
    form: object
    group: list
    shape: tuple
    kinds: tuple  # (d, a, b, c)
    first_threads: list
    partial: np.ndarray
    executing: np.ndarray

    def fragment(self, operand_name, view, coord, count, rows, cols):
        """Every warp's matrices of bits and defined bits (warps, rows,
        cols), and, in a tracked run, each warp's fragment checked against
        the ISA's layout (fragment_origins): its offsets along K by warp."""
        interp, kind = self.interp, self.kinds["dabc".index(operand_name)]
        regs = [interp.read(view, self.group + coord + [r]) for r in range(count)]
        if interp.origins is not None and fragments.ELEMENT_BITS[kind] % 8 == 0:
            return _checked_fragment(interp, self.form, self.shape, (operand_name, kind, count, rows, cols), view,
                                     self.group + coord, regs, self.first_threads)
        return gather(self.shape, operand_name, kind, regs, self.first_threads, rows, cols), {}


def mma(interp, form, values, group):
    """mma.sync over the repeat space (m, n, k) of a warp-scope apply,
    k outermost, C feeding k = 0 and D each later k, as tile-expand
    issues it: each warp's 32 lanes give their fragment registers
    (tile_mlir.fragments, from the PTX ISA), reference.mma multiplies,
    and each lane gets its D registers back. Every lane of the warp must
    execute it (.aligned); otherwise each lane's D is undefined and the
    missing lanes are a hazard."""
    named = {o.name: (o, v) for o, v in zip(form.operands, values)}
    if not all(isinstance(v, View) for v in values):
        raise NotCovered(f"{form.opcode}: a scalar fragment register")
    dst = named.get("d") or named["acc"]
    src_c = named.get("c") or named["acc"]
    extents = {}
    for operand, view in zip(form.operands, values):
        for letter, extent in zip(operand.axes, view.shape[len(group):-1]):
            extents[letter] = extent
    executing = interp.active
    _, first_threads, partial = WC.whole_warps(interp, form, executing)
    issue = _Issue(interp, form, group, fragments.shape_of(form.opcode), fragments.kinds_of(form.opcode),
                   first_threads, partial, executing)
    (a_op, a_view), (b_op, b_view) = named["a"], named["b"]
    # A's fragment at (k, m) serves every n, B's at (k, n) every m: each
    # is read and checked once, and the products of one k are one batch
    # (they read C before any writes D), unless D's registers are A's or
    # B's, or C's other than as the same view.
    reused = dst[1].buffer is not a_view.buffer and dst[1].buffer is not b_view.buffer
    batched = reused and (src_c[1] is dst[1] or src_c[1].buffer is not dst[1].buffer)
    m, n, k = issue.shape
    sources = {}

    def source(operand, view, coord, rows, cols):
        key = (operand.name, tuple(coord))
        if not reused or key not in sources:
            sources[key] = issue.fragment(operand.name, view, coord, operand.count, rows, cols)
        return sources[key]

    for kk in range(extents.get("k", 1)):
        c_op, c_view = src_c if kk == 0 else dst
        batch = []
        for mm, nn in itertools.product(range(extents.get("m", 1)), range(extents.get("n", 1))):
            point = {"k": kk, "m": mm, "n": nn}
            a_f, a_along_k = source(a_op, a_view, [point[x] for x in a_op.axes], m, k)
            b_f, b_along_k = source(b_op, b_view, [point[x] for x in b_op.axes], k, n)
            c_f, _ = issue.fragment("c", c_view, [point[x] for x in c_op.axes], c_op.count, m, n)
            for w in a_along_k:
                O.check_k_order(interp.points[interp.point], form.opcode, a_along_k[w], b_along_k.get(w))
            batch.append((point, a_f, b_f, c_f))
            if not batched:
                _multiply(issue, dst, batch)
                batch = []
        _multiply(issue, dst, batch)


def _multiply(issue, dst, batch):
    """The products of `batch` ((point, A, B, C) fragments) in one call
    of the accumulation model, each D written to its registers."""
    if not batch:
        return
    stacked = [tuple(np.concatenate([job[i][j] for job in batch]) for j in range(2)) for i in (1, 2, 3)]
    d, d_known = _products(issue.interp.accumulation, issue.form, issue.kinds, *stacked)
    warps = len(issue.first_threads)
    for i, (point, *_) in enumerate(batch):
        _write_d(issue, dst, point, (d[i * warps:(i + 1) * warps], d_known[i * warps:(i + 1) * warps]))


def _write_d(issue, dst, point, product):
    """Each lane's D registers at `point` of the repeat space, from its
    warp's product, with their origins in a tracked run."""
    interp, shape, dkind = issue.interp, issue.shape, issue.kinds[0]
    d_op, d_view = dst
    d_coord = issue.group + [point[x] for x in d_op.axes]
    per, bits_each = fragments.per_register(dkind), fragments.ELEMENT_BITS[dkind]
    tracked = interp.origins is not None and bits_each % 8 == 0
    d_size = bits_each // 8
    out_bits, out_def = scatter(shape, dkind, d_op.count, product, issue.first_threads, interp.threads)
    out_def = [known & ~issue.partial for known in out_def]
    out_origin = [np.full((per * d_size, interp.threads), O.UNKNOWN, np.int64) for _ in range(d_op.count)]
    if tracked:
        # D's bytes are this mma's (row, column), for the checks of
        # the mma it feeds and of its stores.
        at_rows, at_cols = layout(shape, "d", dkind, d_op.count)
        cell = (at_rows * shape[1] + at_cols) * d_size  # (32, count, per)
        bases = np.array([interp.origins.new_instance(interp.points[interp.point], issue.form.opcode, shape[1],
                                                      d_size) for _ in issue.first_threads], np.int64)
        members = (np.asarray(issue.first_threads)[:, None] + np.arange(32)).reshape(-1)
        for r in range(d_op.count):
            # (warps, per, d_size, 32) -> rows e * d_size + byte, columns the warps' lanes
            placed = bases[:, None, None, None] + cell[:, r, :].T[None, :, None, :] + \
                np.arange(d_size)[None, None, :, None]
            out_origin[r][:, members] = placed.transpose(1, 2, 0, 3).reshape(per * d_size, -1)
    for r in range(d_op.count):
        interp.write(d_view, d_coord + [r], out_bits[r], out_def[r], issue.executing, None,
                     out_origin[r] if tracked else None)


@functools.lru_cache(maxsize=None)
def layout(shape, operand, kind, count):
    """(rows, cols), each (32, count, per): where each lane's register
    elements sit in the operand's matrix (tile_mlir.fragments)."""
    per = fragments.per_register(kind)
    rows, cols = np.zeros((32, count, per), np.int64), np.zeros((32, count, per), np.int64)
    for lane in range(32):
        for r in range(count):
            for e in range(per):
                rows[lane, r, e], cols[lane, r, e] = fragments.element(shape, operand, kind, r * per + e, lane)
    return rows, cols


def gather(shape, operand, kind, regs, first_threads, rows, cols):
    """Every warp's operand matrix (warps, rows, cols) of element bits, and
    which are defined, from its lanes' registers `regs` ([(bits,
    defined, nan)] per register, each over the threads)."""
    count, per, width = len(regs), fragments.per_register(kind), fragments.ELEMENT_BITS[kind]
    at_rows, at_cols = layout(shape, operand, kind, count)
    members = np.asarray(first_threads)[:, None] + np.arange(32)[None, :]  # (warps, 32)
    bits = np.stack([value for value, _, _ in regs], axis=1)[members]  # (warps, 32, count)
    defined = np.stack([d for _, d, _ in regs], axis=1)[members]
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(width))
    parts = (bits[..., None].astype(np.uint64) >> shifts) & np.uint64((1 << width) - 1)
    warps = np.arange(len(first_threads))[:, None, None, None]
    matrices = np.zeros((len(first_threads), rows, cols), np.uint64)
    known = np.zeros((len(first_threads), rows, cols), bool)
    matrices[warps, at_rows, at_cols] = parts
    known[warps, at_rows, at_cols] = np.broadcast_to(defined[..., None], parts.shape)
    return matrices, known


def _products(accumulation, form, kinds, a_f, b_f, c_f):
    """Every warp's D (warps, M, N) and which elements are defined: one
    batch under a measured model (accumulation.mma takes any leading
    shape), else instruction by instruction."""
    (a, a_known), (b, b_known), (c, c_known) = a_f, b_f, c_f
    satfinite = "satfinite" in form.opcode.split(".")
    rounding = next((t for t in form.opcode.split(".") if t in ("rn", "rz", "rm", "rp")), "rn")
    dkind, akind, bkind, _ = kinds
    if accumulation == "sm_90" and ACC.sm90("mma", dkind, akind, bkind, a.shape[-1]) is not None:
        d, d_known = ACC.multiply(accumulation, "mma", *kinds, a, b, c, satfinite, rounding)
    else:
        each = [ACC.multiply(accumulation, "mma", *kinds, a[w], b[w], c[w], satfinite, rounding)
                for w in range(a.shape[0])]
        d, d_known = np.stack([x[0] for x in each]), np.stack([x[1] for x in each])
    return d, d_known & c_known & a_known.all(axis=2)[:, :, None] & b_known.all(axis=1)[:, None, :]


def scatter(shape, kind, count, product, first_threads, threads):
    """Each thread's D registers (bits, defined) from its warp's product
    (d, known): (warps, M, N) each, in first_threads' order."""
    per, width = fragments.per_register(kind), fragments.ELEMENT_BITS[kind]
    at_rows, at_cols = layout(shape, "d", kind, count)
    d, known = product[0].astype(np.uint64), product[1]
    warps = np.arange(len(first_threads))[:, None, None, None]
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(width))
    words = np.bitwise_or.reduce(d[warps, at_rows, at_cols] << shifts, axis=3)  # (warps, 32, count)
    whole = known[warps, at_rows, at_cols].all(axis=3)
    members = (np.asarray(first_threads)[:, None] + np.arange(32)[None, :]).reshape(-1)
    out_bits = [np.zeros(threads, np.uint64) for _ in range(count)]
    out_def = [np.ones(threads, bool) for _ in range(count)]
    for r in range(count):
        out_bits[r][members] = words[:, :, r].reshape(-1)
        out_def[r][members] = whole[:, :, r].reshape(-1)
    return out_bits, out_def


def _checked_fragment(interp, form, shape, operand, view, coord, regs, first_threads):
    """fragment() in a run that tracks origins: per warp, the matrix, and
    each element's origin checked against the ISA's layout."""
    operand_name, kind, count, rows, cols = operand
    per, size = fragments.per_register(kind), fragments.ELEMENT_BITS[kind] // 8
    matrices, known = gather(shape, operand_name, kind, regs, first_threads, rows, cols)
    # (thread, register, element): the origin of each element.
    origins = np.stack([O.element_origins(interp.byte_origins(view, coord + [r]).T.reshape(interp.threads * per, size))
                        .reshape(interp.threads, per) for r in range(count)], axis=1)
    at_rows, at_cols = layout(shape, operand_name, kind, count)
    members = np.asarray(first_threads)[:, None] + np.arange(32)[None, :]
    placed = np.full((len(first_threads), rows, cols), O.UNKNOWN, np.int64)
    placed[np.arange(len(first_threads))[:, None, None, None], at_rows, at_cols] = origins[members]
    where = holders(shape, operand_name, kind, count, rows, cols)
    # Warps whose fragment is plainly in place (O.in_place) need no
    # check, and C's have no offsets along K to return.
    judged = ~O.in_place(placed, by_rows=operand_name != "b") if operand_name == "c" else \
        np.ones(len(first_threads), bool)
    along_k = {w: O.check_fragment(interp.origins, interp.points[interp.point], form.opcode, operand_name, kind,
                                   placed[w], where) if judged[w] else None for w in range(len(first_threads))}
    return (matrices, known), along_k


@functools.lru_cache(maxsize=None)
def holders(shape, operand, kind, count, rows, cols):
    """(rows, cols, 3): the lane, register and element in it that hold
    each element of the operand's matrix."""
    at_rows, at_cols = layout(shape, operand, kind, count)
    where = np.zeros((rows, cols, 3), np.int64)
    lanes, regs, elements = np.meshgrid(np.arange(32), np.arange(count), np.arange(at_rows.shape[2]), indexing="ij")
    where[at_rows, at_cols] = np.stack([lanes, regs, elements], axis=-1)
    return where
