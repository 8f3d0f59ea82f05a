"""Every warp collective form of sm_90 (shfl, vote, match, redux, elect,
activemask), each qualifier set and operand signature that ptxas_diff
generates, for campaign.py --kind collectives (issue #29, item 3: the
conformance of collectives form by form).

Kernel k runs form k % F under variant k // F: a membermask and the lanes
that execute it (all, the low half, the even lanes, lanes 0 and 31; shfl
every lane, whose source outside the mask would be undefined), and for
shfl a lane operand and a clamp/segment value. Two blocks of two warps;
each thread applies the form once inside the branch of its mask's lanes
and stores every result (a predicate as 0 or 1; zeros where a lane does
not execute). Sources come from campaign.py's bit patterns; a match's
values are narrowed to two bits so that lanes share them, a vote's
predicate is the value's sign.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ptxas_diff"))

import gen  # noqa: E402
from tile_mlir import script as T  # noqa: E402

BLOCK = 64
GRID = 2
FAMILIES = ("shfl", "vote", "match", "redux", "elect", "activemask")
# (membermask, the lanes that execute: a condition on the lane, or None for all)
MASKS = ((0xFFFFFFFF, None), (0x0000FFFF, lambda lane: lane < 16),
         (0x55555555, lambda lane: lane % 2 == 0), (0x80000001, lambda lane: lane % 31 == 0))
# shfl's b (lane or offset) and c (clamp in bits 0-4, segment mask in bits 8-12)
SHUFFLE_OPERANDS = ((1, 0), (2, 31), (3, 0x1807), (5, 0x1807), (9, 0x1F00), (3, 0x1C00))
VARIANTS = len(MASKS) * len(SHUFFLE_OPERANDS) // 2  # 12: every mask thrice, every shfl pair twice

_forms = None


def forms():
    """The sm_90 collective forms, one per qualifier set, every signature."""
    global _forms
    if _forms is None:
        import ptxas_diff
        _forms = [f for f in ptxas_diff.legal_forms("sm_90", one_per_qualifier_set=True)
                  if f.family in FAMILIES]
    return _forms


def generate(index: int, name: str) -> gen.KernelSpec:
    form = forms()[index % len(forms())]
    variant = index // len(forms()) % VARIANTS
    # A shuffle whose source lane is outside the membermask is undefined
    # (the interpreter reports it), so shuffles take every lane.
    mask, executes = MASKS[0 if form.family == "shfl" else variant % len(MASKS)]
    shuffle_b, shuffle_c = SHUFFLE_OPERANDS[variant % len(SHUFFLE_OPERANDS)]
    sources = [o for o in form.operands if o.role == "src" and o.name != "membermask"]
    results = [o for o in form.operands if o.role == "dst"]
    loaded = [o for o in sources if o.name not in ("b", "c")]
    names = [f"S{i}" for i in range(len(loaded))] + [f"D{i}" for i in range(len(results))]
    widths = {f"S{i}": max(32, o.bits) for i, o in enumerate(loaded)}
    widths.update({f"D{i}": max(32, o.bits) for i, o in enumerate(results)})
    threads = GRID * BLOCK

    def body(*tensors):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=GRID, block=BLOCK))
        t = T.thread_id()
        row = T.block_id() * BLOCK + t
        values = []
        for i, operand in enumerate(loaded):
            bits = widths[f"S{i}"]
            value = T.alloc_local((1, 1), f"uint{bits}")
            T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], value, tensors[i][row:row + 1])
            if form.family == "match":
                T.cuda.tile.apply(T.ptx[f"and.b{bits}"], value, value, word(bits, 3))
            if operand.bits == 1:
                predicate = T.alloc_local((1, 1), "bool")
                T.cuda.tile.apply(T.ptx["setp.lt.s32"], predicate, value.view("int32"), T.int32(0))
                value = predicate
            values.append(value)
        outs = []
        for i in range(len(results)):
            bits = widths[f"D{i}"]
            outs.append(T.alloc_local((1, 1), f"uint{bits}"))
            T.cuda.tile.apply(T.ptx[f"mov.b{bits}"], outs[-1], word(bits, 0))
        held = [T.alloc_local((1, 1), "bool") if o.bits == 1 else out for o, out in zip(results, outs)]

        def apply():
            given = iter(values)
            operands = []
            for operand in form.operands:
                if operand.role == "dst":
                    operands.append(held[results.index(operand)])
                elif operand.name == "membermask":
                    operands.append(T.uint32(mask))
                elif operand.name == "b" and form.family == "shfl":
                    operands.append(T.uint32(shuffle_b))
                elif operand.name == "c" and form.family == "shfl":
                    operands.append(T.uint32(shuffle_c))
                else:
                    operands.append(next(given))
            T.cuda.tile.apply(T.ptx[form.opcode], *operands)
            for operand, h, out in zip(results, held, outs):
                if operand.bits == 1:
                    T.cuda.tile.apply(T.ptx["selp.b32"], out, T.uint32(1), T.uint32(0), h)

        if executes is None:
            apply()
        else:
            with T.if_(executes(t % 32)):
                apply()
        for i, out in enumerate(outs):
            bits = widths[f"D{i}"]
            T.cuda.tile.apply(T.ptx[f"st.global.b{bits}"], tensors[len(loaded) + i][row:row + 1], out)

    return gen.one_form_kernel(name, body, [(p, (threads, 1), widths[p]) for p in names], GRID, BLOCK,
                               ["collectives", form.family, f"mask {mask:#010x}"], form.opcode, "collectives")


def word(bits, value):
    """`value` as a scalar of a `bits`-wide unsigned register."""
    return T.uint64(value) if bits == 64 else T.uint32(value)
