"""The warp collectives (PTX ISA 9.7.9.6, 9.7.13.8-12): shfl.sync, vote,
match, redux, elect and activemask, each executing thread combining the
threads of its membermask; and the rules every .sync collective keeps (a
thread inside its own membermask, every lane of the mask executing it,
one membermask for its lanes, whole warps for .aligned ones), whose
breaches are hazards."""

import numpy as np

from .hazards import CollectiveHazard
from .memory import View
from .reference import NotCovered


def shuffle(interp, form, values, coord, executing):
    """shfl.sync, from the ISA's pseudo-code (9.7.9.6): each executing
    thread reads `a` of the lane its mode, `b` and `c` name (its own when
    that lane is past the clamp). A thread outside its own membermask, a
    source lane outside the mask or not executing it, and a lane of the
    mask that does not execute it are hazards; what they read is
    undefined."""
    def bits(value):
        if isinstance(value, View):
            read, defined, nan = interp.read(value, coord + [0])
            return read & np.uint64(0xFFFFFFFF), defined, nan
        return value[0] & np.uint64(0xFFFFFFFF), np.ones(interp.threads, bool), np.zeros(interp.threads, bool)
    sources = values[2:] if len(values) == 6 else values[1:]
    (a, a_def, a_nan), (b, b_def, _), (c, c_def, _), (mask, mask_def, _) = (bits(v) for v in sources)
    lane, first = interp.warp_lane, interp.warp_first
    b, c, mask = b.astype(np.int64), c.astype(np.int64), mask.astype(np.int64)
    bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & segmask) | (cval & ~segmask)
    min_lane = lane & segmask
    mode = next(t for t in form.opcode.split(".") if t in ("up", "down", "bfly", "idx"))
    j = {"up": lane - bval, "down": lane + bval, "bfly": lane ^ bval,
         "idx": min_lane | (bval & ~segmask)}[mode]
    inside = j >= max_lane if mode == "up" else j <= max_lane
    j = np.where(inside, j, lane)
    # A lane past the end of a partial warp does not exist.
    warp_size = np.minimum(32, interp.per_block - (interp.thread_linear - lane))
    exists = j < warp_size
    source = first + np.where(exists, j, lane)
    own = (mask >> lane) & 1 == 1
    source_ok = exists & ((mask >> j) & 1 == 1) & executing[source]
    for problem, bad in (("is not in its own membermask", executing & ~own),
                         ("reads a lane outside its membermask or not executing it",
                          executing & own & ~source_ok)):
        collective_hazard(interp, form, problem, bad, lane, j)
    membermasks_agree(interp, form, mask, executing, first, warp_size, lane)
    # A lane of an executing thread's mask that does not execute it.
    for thread in np.flatnonzero(executing)[:1]:
        members = first[thread] + np.flatnonzero((int(mask[thread]) >> np.arange(32)) & 1)
        members = members[members < first[thread] + warp_size[thread]]
        missing = members[~executing[members]]
        if missing.size:
            collective_hazard(interp, form, f"waits for lane {int(lane[missing[0]])} of its "
                                    "membermask, which does not execute it",
                                    interp.lanes == thread, lane, j)
    result = a[source]
    defined = a_def[source] & b_def & c_def & mask_def & own & source_ok
    # A move: a NaN an instruction made stays one, its payload the chip's.
    interp.write(values[0], coord + [0], result, defined, executing, a_nan[source])
    if len(values) == 6:  # d|p: whether the source lane was inside the clamp
        interp.write(values[1], coord + [0], inside.astype(np.uint64), b_def & c_def & own,
                   executing, None)


def collective(interp, form, values, coord, executing):
    """vote, match, redux and elect (PTX ISA 9.0, 9.7.13.8-11), and
    activemask (9.7.13.12): each executing thread combines `a` over the
    threads of its membermask that execute the instruction. A thread
    outside its own membermask and a lane of the mask that does not
    execute it are hazards, as for shfl.sync; what they get is
    undefined. elect.sync elects the lowest lane of the mask: the ISA
    says only that the choice is deterministic."""
    named = {o.name: v for o, v in zip(form.operands, values)}
    lane, first = interp.warp_lane, interp.warp_first
    warp_size = np.minimum(32, interp.per_block - (interp.thread_linear - lane))
    lanes32 = np.arange(32)
    exists = lanes32[None, :] < warp_size[:, None]
    peer = np.where(exists, first[:, None] + lanes32[None, :], interp.lanes[:, None])
    peer_executes = exists & executing[peer]
    if form.family == "activemask":
        bits = (peer_executes.astype(np.uint64) << lanes32.astype(np.uint64)[None, :]).sum(axis=1)
        interp.write(named["d"], coord + [0], bits.astype(np.uint64), np.ones(interp.threads, bool),
                   executing, None)
        return

    def operand(value):
        if isinstance(value, View):
            # match and redux compare and add bits: a made NaN's are the
            # chip's, so what they give is unknown.
            read, defined, nan = interp.read(value, coord + [0])
            return read, defined & ~nan
        return value[0], np.ones(interp.threads, bool)
    mask, mask_def = operand(named["membermask"])
    mask = mask.astype(np.int64) & 0xFFFFFFFF
    in_mask = ((mask[:, None] >> lanes32[None, :]) & 1 == 1) & exists
    own = in_mask[interp.lanes, lane]
    missing = in_mask & ~peer_executes
    collective_hazard(interp, form, "is not in its own membermask", executing & ~own, lane, lane)
    membermasks_agree(interp, form, mask, executing, first, warp_size, lane)
    for thread in np.flatnonzero(executing & missing.any(axis=1))[:1]:
        absent = int(np.flatnonzero(missing[thread])[0])
        collective_hazard(interp, form, f"waits for lane {absent} of its membermask, which does "
                                "not execute it", interp.lanes == thread, lane, lane)
    members = in_mask & peer_executes
    defined = mask_def & own & ~missing.any(axis=1)
    mode = next((t for t in form.opcode.split(".")
                 if t in ("all", "any", "uni", "ballot", "add", "min", "max", "and", "or", "xor")),
                None)
    outputs = {}
    if form.family == "elect":
        leader = np.where(members.any(axis=1), members.argmax(axis=1), 0)
        outputs["d"] = leader.astype(np.uint64)
        outputs["p"] = (leader == lane).astype(np.uint64)
    else:
        source = named["a"]
        a, a_def = operand(source)
        a_bits = next(o for o in form.operands if o.name == "a").bits
        if form.family == "redux" and a_bits == 32 and form.opcode.split(".")[-1] == "f32":
            raise NotCovered(f"{form.opcode}: f32 redux (sm_100a)")
        values_of = a[peer]
        defined &= np.where(members, a_def[peer], True).all(axis=1)
        combine = {"vote": _vote, "match": _match, "redux": _redux}[form.family]
        outputs = combine(form, mode, members, values_of, a)
    for name, result in outputs.items():
        if name in named:  # match.all's predicate is optional
            interp.write(named[name], coord + [0], result, defined, executing, None)


# Each lane's bit in a membermask.
WEIGHTS = np.uint64(1) << np.arange(32).astype(np.uint64)


def _vote(form, mode, members, values_of, own):
    """vote.all/any/uni/ballot over the members' values (`own`: each
    thread's value)."""
    truth = values_of != 0
    return {"d": {
        "all": np.where(members, truth, True).all(axis=1),
        "any": (members & truth).any(axis=1),
        "uni": np.where(members, truth == (own != 0)[:, None], True).all(axis=1),
        "ballot": ((members & truth) * WEIGHTS[None, :]).sum(axis=1),
    }[mode].astype(np.uint64)}


def _match(form, mode, members, values_of, own):
    """match.any: the members holding each thread's value; match.all: all
    members, where all hold it (and the predicate)."""
    same = values_of == own[:, None]
    if mode == "any":
        return {"d": ((members & same) * WEIGHTS[None, :]).sum(axis=1).astype(np.uint64)}
    equal = np.where(members, same, True).all(axis=1)
    return {"d": np.where(equal, (members * WEIGHTS[None, :]).sum(axis=1), 0).astype(np.uint64),
            "p": equal.astype(np.uint64)}


def _redux(form, mode, members, values_of, own):
    """redux.sync's integer reductions (order-independent)."""
    words = values_of.astype(np.int64) & 0xFFFFFFFF
    if form.opcode.split(".")[-1] == "s32":
        words = np.where(words >= 1 << 31, words - (1 << 32), words)
    if mode == "add":
        result = np.where(members, words, 0).sum(axis=1)
    elif mode in ("min", "max"):
        fill = np.iinfo(np.int64).max if mode == "min" else np.iinfo(np.int64).min
        pick = np.where(members, words, fill)
        result = pick.min(axis=1) if mode == "min" else pick.max(axis=1)
    else:
        ufunc = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[mode]
        neutral = 0xFFFFFFFF if mode == "and" else 0
        result = ufunc.reduce(np.where(members, words, neutral), axis=1)
    return {"d": (result & 0xFFFFFFFF).astype(np.uint64)}


def move_matrix(interp, form, values, coord, executing):
    """movmatrix.sync.aligned.m8n8.trans.b16 (PTX ISA 9.0, 9.7.14.5.16):
    the warp's 8 x 8 matrix of b16, lane l's register holding elements
    2(l % 4) and 2(l % 4) + 1 of row l / 4, transposed: lane l gets those
    of column l / 4, the result's element (i, j) being the source's (j, i),
    which lane 4j + i / 2 holds in its half i % 2. Every lane executes it
    (.aligned): a missing lane is a hazard and its warp's result
    undefined."""
    d, a = values
    if not isinstance(a, View):
        raise NotCovered(f"{form.opcode}: a constant source (a register tile is the warp's matrix)")
    lane, _, partial = whole_warps(interp, form, executing)
    bits, read_defined, _ = interp.read(a, coord + [0])
    first = interp.lanes - lane
    shift = np.uint64(16) * ((lane // 4) % 2).astype(np.uint64)  # column l / 4's half
    out, defined = np.zeros(interp.threads, np.uint64), np.ones(interp.threads, bool)
    for half in (0, 1):
        source = first + 4 * (2 * (lane % 4) + half) + lane // 8  # row 2(l % 4) + half's lane
        out |= ((bits[source] >> shift) & np.uint64(0xFFFF)) << np.uint64(16 * half)
        defined &= read_defined[source]
    interp.write(d, coord + [0], out, defined & ~partial, executing, None)


def whole_warps(interp, form, executing):
    """(each thread's lane, the first thread of every warp, the threads
    of warps that run a .sync.aligned instruction with lanes missing):
    those lanes are a hazard, and what the warp gets is undefined."""
    lane = interp.warp_lane
    first_threads = np.unique(interp.warp_first)
    partial = np.zeros(interp.threads, bool)
    for first in first_threads:
        members = first + np.arange(32)
        if executing[members].any() and not executing[members].all():
            partial[members] = True
    if partial.any():
        bad = np.flatnonzero(partial & ~executing)[0]
        collective_hazard(interp, form, f"leaves lanes of its warp out ({form.family} needs all 32)",
                                interp.lanes == bad, lane, lane)
    return lane, first_threads, partial


def membermasks_agree(interp, form, mask, executing, first, warp_size, lane):
    """The threads of a membermask that execute a .sync collective pass
    it the same membermask, or what each gets is undefined (CUDA's
    warp intrinsics: "all non-exited threads named in mask must execute
    the same intrinsic with the same mask"): a hazard naming both."""
    mask = np.asarray(mask).astype(np.int64) & 0xFFFFFFFF
    if _one_mask_a_warp(mask, executing, first):
        return
    lanes32 = np.arange(32)
    exists = lanes32[None, :] < warp_size[:, None]
    peer = np.where(exists, first[:, None] + lanes32[None, :], interp.lanes[:, None])
    named = ((mask[:, None] >> lanes32[None, :]) & 1 == 1) & exists & executing[peer]
    differs = named & (mask[peer] != mask[:, None]) & executing[:, None]
    for thread in np.flatnonzero(differs.any(axis=1))[:1]:
        other = int(np.flatnonzero(differs[thread])[0])
        collective_hazard(interp, form, f"passes membermask {int(mask[thread]):#010x}, but lane {other} of "
                                f"it passes {int(mask[peer[thread, other]]):#010x}: lanes of one membermask "
                                "pass the same one", interp.lanes == thread, lane, lane)


def _one_mask_a_warp(mask, executing, first):
    """Whether the executing threads of each warp (the runs of `first`,
    its lane 0, over the threads in order) all pass one membermask: then
    no two disagree, and the pairwise check is not needed."""
    if mask.size == 0:
        return True
    starts = np.flatnonzero(np.concatenate(([True], first[1:] != first[:-1])))
    high = np.maximum.reduceat(np.where(executing, mask, -1), starts)
    low = np.minimum.reduceat(np.where(executing, mask, 1 << 40), starts)
    return bool(((high == low) | (high < 0)).all())


def collective_hazard(interp, form, problem, bad, lane, source):
    for thread in np.flatnonzero(bad)[:1]:
        key = ("collective", problem.split()[0], interp.point)
        if not interp.first_report(key):
            return
        interp.hazards.append(CollectiveHazard(form.opcode, interp.points[interp.point], int(thread),
                                             int(lane[thread]), int(source[thread]), problem))
