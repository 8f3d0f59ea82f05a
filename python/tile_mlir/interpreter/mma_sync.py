"""The warp's matrix instructions: ldmatrix and stmatrix (PTX ISA
9.7.14.5.15-16), and mma.sync (9.7.14.5.14), each operand's fragment
from tile_mlir.fragments, the product from the accumulation model, and
where each element came from (fragment_origins) where the run tracks it."""

import functools
import itertools

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
        row_origins = [interp.byte_origins(memory, coord + [e]) for e in range(8)]
        for j in range(count):
            word = np.zeros(interp.threads, np.uint64)
            origin = np.full((4, interp.threads), O.UNKNOWN, np.int64)
            known = ~partial
            for h in range(2):
                if trans:
                    r, c = 2 * (lane % 4) + h, lane // 4
                else:
                    r, c = lane // 4, 2 * (lane % 4) + h
                src = source(j, r)
                part = np.zeros(interp.threads, np.uint64)
                part_known = np.ones(interp.threads, bool)
                for e in range(8):
                    pick = c == e
                    part = np.where(pick, rows[e][0][src] & np.uint64(0xFFFF), part)
                    part_known = np.where(pick, rows[e][1][src], part_known)
                    origin[2 * h:2 * h + 2] = np.where(pick, row_origins[e][:, src], origin[2 * h:2 * h + 2])
                word |= part << np.uint64(16 * h)
                known = known & part_known
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


def mma(interp, form, values, group):
    """mma.sync over the repeat space (m, n, k) of a warp-scope apply,
    k outermost, C feeding k = 0 and D each later k, as tile-expand
    issues it: each warp's 32 lanes give their fragment registers
    (tile_mlir.fragments, from the PTX ISA), reference.mma multiplies,
    and each lane gets its D registers back. Every lane of the warp must
    execute it (.aligned); otherwise each lane's D is undefined and the
    missing lanes are a hazard."""
    shape = fragments.shape_of(form.opcode)
    dkind, akind, bkind, ckind = fragments.kinds_of(form.opcode)
    named = {o.name: (o, v) for o, v in zip(form.operands, values)}
    if not all(isinstance(v, View) for v in values):
        raise NotCovered(f"{form.opcode}: a scalar fragment register")
    dst = named.get("d") or named["acc"]
    src_c = named.get("c") or named["acc"]
    extents = {}
    for operand, view in zip(form.operands, values):
        for letter, extent in zip(operand.axes, view.shape[len(group):-1]):
            extents[letter] = extent
    letters = "k" + "mn"
    executing = interp.active
    _, first_threads, partial = WC.whole_warps(interp, form, executing)

    def fragment(operand_name, view, coord, kind, count, rows, cols):
        """Every warp's matrices of bits and defined bits (warps, rows,
        cols), and, in a tracked run, each warp's fragment checked against
        the ISA's layout (fragment_origins): its offsets along K by warp."""
        regs = [interp.read(view, group + coord + [r]) for r in range(count)]
        if interp.origins is not None and fragments.ELEMENT_BITS[kind] % 8 == 0:
            return _checked_fragment(interp, form, shape, (operand_name, kind, count, rows, cols), view,
                                     group + coord, regs, first_threads)
        return gather(shape, operand_name, kind, regs, first_threads, rows, cols), {}

    m, n, k = shape
    ranges = [range(extents.get(letter, 1)) for letter in letters]
    a_op, a_view = named["a"]
    b_op, b_view = named["b"]
    # A's fragment at (k, m) serves every n, B's at (k, n) every m: each
    # is read and checked once, unless D's registers are theirs.
    sources = {}
    reused = dst[1].buffer is not a_view.buffer and dst[1].buffer is not b_view.buffer

    def source(operand_name, view, coord, kind, count, rows, cols):
        key = (operand_name, tuple(coord))
        if not reused or key not in sources:
            sources[key] = fragment(operand_name, view, coord, kind, count, rows, cols)
        return sources[key]

    for kk, mm, nn in itertools.product(*ranges):
        point = {"k": kk, "m": mm, "n": nn}
        c_op, c_view = src_c if kk == 0 else dst
        a_f, a_along_k = source("a", a_view, [point[x] for x in a_op.axes], akind, a_op.count, m, k)
        b_f, b_along_k = source("b", b_view, [point[x] for x in b_op.axes], bkind, b_op.count, k, n)
        c_f, _ = fragment("c", c_view, [point[x] for x in c_op.axes], ckind, c_op.count, m, n)
        for w in a_along_k:
            O.check_k_order(interp.points[interp.point], form.opcode, a_along_k[w], b_along_k.get(w))
        d_op, d_view = dst
        d_coord = group + [point[x] for x in d_op.axes]
        per = fragments.per_register(dkind)
        bits_each = fragments.ELEMENT_BITS[dkind]
        tracked = interp.origins is not None and bits_each % 8 == 0
        d_size = bits_each // 8
        d, d_known = _products(interp.accumulation, form, (dkind, akind, bkind, ckind), a_f, b_f, c_f)
        out_bits, out_def = scatter(shape, dkind, d_op.count, (d, d_known), first_threads, interp.threads)
        out_def = [known & ~partial for known in out_def]
        out_origin = [np.full((per * d_size, interp.threads), O.UNKNOWN, np.int64) for _ in range(d_op.count)]
        if tracked:
            # D's bytes are this mma's (row, column), for the checks of
            # the mma it feeds and of its stores.
            at_rows, at_cols = layout(shape, "d", dkind, d_op.count)
            cell = (at_rows * n + at_cols) * d_size  # (32, count, per)
            for first in first_threads:
                base = interp.origins.new_instance(interp.points[interp.point], form.opcode, n, d_size)
                for r in range(d_op.count):
                    # (per, d_size, 32) -> rows e * d_size + byte, columns the lanes
                    placed = base + cell[:, r, :].T[:, None, :] + np.arange(d_size)[None, :, None]
                    out_origin[r][:, first:first + 32] = placed.reshape(per * d_size, 32)
        for r in range(d_op.count):
            interp.write(d_view, d_coord + [r], out_bits[r], out_def[r], executing, None,
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
