"""The warp's matrix instructions: ldmatrix and stmatrix (PTX ISA
9.7.14.5.15-16), and mma.sync (9.7.14.5.14), each operand's fragment
from tile_mlir.fragments, the product from the accumulation model, and
where each element came from (fragment_origins) where the run tracks it."""

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
        rows = [interp.read(memory, coord + [e], supplies) for e in range(8)]
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
    satfinite = "satfinite" in form.opcode.split(".")
    rounding = next((t for t in form.opcode.split(".") if t in ("rn", "rz", "rm", "rp")), "rn")
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
    lane, first_threads, partial = WC.whole_warps(interp, form, executing)

    def fragment(operand_name, view, coord, kind, count, rows, cols):
        """Per warp (first thread -> matrix of bits, defined); in a
        tracked run, each warp's fragment is checked against the ISA's
        layout (fragment_origins)."""
        per = fragments.per_register(kind)
        bits_each = fragments.ELEMENT_BITS[kind]
        regs = [interp.read(view, group + coord + [r]) for r in range(count)]
        checked = interp.origins is not None and bits_each % 8 == 0
        if checked:
            size = bits_each // 8
            # (register, element, thread): the origin of each element.
            origins = np.stack([O.element_origins(interp.byte_origins(view, group + coord + [r])
                                                  .T.reshape(interp.threads * per, size))
                                .reshape(interp.threads, per).T for r in range(count)])
        out, along_k = {}, {}
        for first in first_threads:
            members = first + np.arange(32)
            matrix = np.zeros((rows, cols), np.uint64)
            known = np.zeros((rows, cols), bool)
            placed, where = {}, {}
            for ln in range(32):
                thread = members[ln]
                for r, (value, defined, _) in enumerate(regs):
                    for e in range(per):
                        i = r * per + e
                        row, col = fragments.element(shape, operand_name, kind, i, ln)
                        part = (int(value[thread]) >> (e * bits_each)) & ((1 << bits_each) - 1)
                        matrix[row, col] = part
                        known[row, col] = bool(defined[thread])
                        if checked:
                            placed[(row, col)] = int(origins[r, e, thread])
                            where[(row, col)] = (ln, r, e)
            if checked:
                along_k[first] = O.check_fragment(interp.origins, interp.points[interp.point], form.opcode,
                                                  operand_name, kind, placed, where, rows, cols)
            out[first] = (matrix, known)
        return out, along_k

    m, n, k = shape
    ranges = [range(extents.get(letter, 1)) for letter in letters]
    for kk, mm, nn in itertools.product(*ranges):
        point = {"k": kk, "m": mm, "n": nn}
        a_op, a_view = named["a"]
        b_op, b_view = named["b"]
        c_op, c_view = src_c if kk == 0 else dst
        a_f, a_along_k = fragment("a", a_view, [point[x] for x in a_op.axes], akind, a_op.count, m, k)
        b_f, b_along_k = fragment("b", b_view, [point[x] for x in b_op.axes], bkind, b_op.count, k, n)
        c_f, _ = fragment("c", c_view, [point[x] for x in c_op.axes], ckind, c_op.count, m, n)
        for first in a_along_k:
            O.check_k_order(interp.points[interp.point], form.opcode, a_along_k[first], b_along_k.get(first))
        d_op, d_view = dst
        d_coord = group + [point[x] for x in d_op.axes]
        per = fragments.per_register(dkind)
        bits_each = fragments.ELEMENT_BITS[dkind]
        out_bits = [np.zeros(interp.threads, np.uint64) for _ in range(d_op.count)]
        out_def = [np.ones(interp.threads, bool) for _ in range(d_op.count)]
        tracked = interp.origins is not None and bits_each % 8 == 0
        d_size = bits_each // 8
        out_origin = [np.full((per * d_size, interp.threads), O.UNKNOWN, np.int64) for _ in range(d_op.count)]
        for first in first_threads:
            (a, a_known), (b, b_known), (c, c_known) = a_f[first], b_f[first], c_f[first]
            d, d_known = ACC.multiply(interp.accumulation, "mma", dkind, akind, bkind, ckind, a, b, c, satfinite,
                                      rounding)
            d_known = d_known & c_known & a_known.all(axis=1)[:, None] & b_known.all(axis=0)[None, :]
            members = first + np.arange(32)
            # D's bytes are this mma's (row, column), for the checks of
            # the mma it feeds and of its stores.
            base = interp.origins.new_instance(interp.points[interp.point], form.opcode, n, d_size) if tracked else 0
            for ln in range(32):
                thread = members[ln]
                for r in range(d_op.count):
                    word, known = 0, not partial[thread]
                    for e in range(per):
                        row, col = fragments.element(shape, "d", dkind, r * per + e, ln)
                        word |= int(d[row, col]) << (e * bits_each)
                        known = known and bool(d_known[row, col])
                        if tracked:
                            out_origin[r][e * d_size:(e + 1) * d_size, thread] = (
                                base + (row * n + col) * d_size + np.arange(d_size))
                    out_bits[r][thread] = word
                    out_def[r][thread] = known
        for r in range(d_op.count):
            interp.write(d_view, d_coord + [r], out_bits[r], out_def[r], executing, None,
                       out_origin[r] if tracked else None)
