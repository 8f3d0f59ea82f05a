#!/usr/bin/env python3
"""Which producers ptxas folds into a cvt that reads their result, seen in
SASS (docs/difftest.md, finding 2; docs/design.md, "Fold barriers").

For each family that computes a register from registers, a spread of its
forms (the table's enumeration on sm_90) feeds a spread of the cvt forms
whose source has the producer's type: the producer's sources are loaded
from global memory, its result goes only to the cvt, and the cvt's result
is stored. Each pair is built twice, with the cvt-source barrier written
out (an identity max.s16 or max.s32 of the result, before the cvt) and
without it, both lowered with fold_barriers="off" and assembled by ptxas
at -O3. Where the two kernels do the same computations in SASS (opcodes
with their modifiers, counted; moves, and one operation on either of two
pipes, taken as one) once the barrier's VIMNMX is set aside, ptxas merged
nothing into the conversion: the barrier changed nothing but itself.
Where they differ, ptxas folded the producer into the cvt or rewrote
around it, and the pair is reported with both sequences. A 64-bit result
is not judged: its identity max is several instructions. Each bare kernel
is also lowered as tile-mlir lowers it (fold_barriers="auto"): a pair that
folds where the lowering puts no barrier is a defect
(`folded_where_the_lowering_puts_no_barrier`, which must stay empty).

    python tools/forms/cvt_source_folds.py tools/forms/results/cvt_source_folds.json
    python tools/forms/cvt_source_folds.py out.json ex2 tanh   # every pair of some families
"""

from __future__ import annotations

import collections
import json
import os
import re
import sys
import warnings

from tile_mlir import compile_module, ptx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sass"))
import sass  # noqa: E402

TARGET = "sm_90"
FORMS_PER_FAMILY = 8
CVTS_PER_TYPE = 12
# What the identity max assembles to (test_fold_barriers.BARRIER_SASS).
BARRIER_SASS = ("VIMNMX", "IMNMX", "PRMT")
# Families whose result is not a computation ptxas sees (moves, memory,
# collectives, tensor cores), or that take no register result.
NOT_PRODUCERS = {"mov", "ld", "st", "createpolicy", "cp.async.bulk", "prefetch.tensormap", "cp.async",
                 "barrier.cluster", "bar", "atom", "red", "shfl", "vote", "match", "redux", "elect", "activemask",
                 "membar", "fence", "ldmatrix", "stmatrix", "wgmma", "setmaxnreg", "mbarrier", "mma", "setp",
                 "testp"}


def _spread(items, count):
    """`count` of `items`, evenly spaced, in order."""
    if len(items) <= count:
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


def _simple(form):
    """Whether every operand of `form` is a single register or an
    immediate, and exactly one is a register destination."""
    regs = [o for o in form.operands if o.role != "imm"]
    return (all(o.space == "reg" and o.count == 1 and not o.axes and o.type != "pred" and o.bits <= 64
                for o in regs)
            and sum(o.role == "dst" for o in regs) == 1 and not any(o.role == "rw" for o in regs))


def _forms(family):
    found = []
    for spelling in ptx.forms(family):
        try:
            form = ptx.parse(spelling, target=TARGET)
        except ptx.PTXFormError:
            continue
        # A reader of the carry flag is a link of a chain, not a producer
        # alone (the verifier wants a writer before it).
        if _simple(form) and not form.reads_carry:
            found.append(form)
    return found


def producers(every=False):
    """A spread of each family's forms, or with `every` all of them."""
    return {family: _forms(family) if every else _spread(_forms(family), FORMS_PER_FAMILY)
            for family in ptx.families() if family not in NOT_PRODUCERS}


def conversions(every=False):
    """cvt forms by their source's (type, bits): every source one register
    of that type (a pair's two sources included); a spread of each, or
    with `every` all of them."""
    by_source = collections.defaultdict(list)
    for form in _forms("cvt"):
        sources = [o for o in form.operands if o.role == "src"]
        if len({(o.type, o.bits) for o in sources}) == 1:
            by_source[(sources[0].type, sources[0].bits)].append(form)
    return {key: forms if every else _spread(forms, CVTS_PER_TYPE) for key, forms in by_source.items()}


def _memref(bits, space):
    return f"memref<1xi{bits}, {space}>"


def kernel(name, producer, cvt, barrier):
    """MLIR text: `producer` over loaded registers, its result read only
    by `cvt` (every source of a pair), through the identity max with
    `barrier`, the cvt's result stored."""
    args, body, operands = [], [], []
    dst = next(o for o in producer.operands if o.role == "dst")
    for i, op in enumerate(producer.operands):
        if op.role == "imm":
            body.append(f"%imm{i} = arith.constant {(op.immediates or (op.max_immediate,))[0]} : i32")
            operands.append((f"%imm{i}", "i32"))
            continue
        tile = _memref(op.bits, "5")
        body.append(f"%t{i} = memref.alloca() : {tile}")
        if op.role == "src":
            args.append(f"%in{i}: {_memref(op.bits, '1')}")
            body.append(f'tile.apply "ld.global.b{op.bits}"(%t{i}, %in{i}) : {tile}, {_memref(op.bits, "1")}')
        operands.append((f"%t{i}", tile))
    d = next(i for i, o in enumerate(producer.operands) if o.role == "dst")
    body.append(f'tile.apply "{producer.opcode}"({", ".join(n for n, _ in operands)}) : '
                f'{", ".join(t for _, t in operands)}')
    out = next(o for o in cvt.operands if o.role == "dst")
    sources = [o for o in cvt.operands if o.role == "src"]
    result = _memref(out.bits, "5")
    if barrier:
        tile = _memref(dst.bits, "5")
        body.append(f"%b = memref.alloca() : {tile}")
        body.append(f"%least = arith.constant {-(1 << (dst.bits - 1))} : i{dst.bits}")
        body.append(f'tile.apply "max.s{dst.bits}"(%b, %t{d}, %least) : {tile}, {tile}, i{dst.bits}')
        d = "b"
    body.append(f"%c = memref.alloca() : {result}")
    source = f"%t{d}" if d != "b" else "%b"
    body.append(f'tile.apply "{cvt.opcode}"(%c' + "".join(f", {source}" for _ in sources) + f") : {result}"
                + "".join(f", {_memref(dst.bits, '5')}" for _ in sources))
    args.append(f"%out: {_memref(out.bits, '1')}")
    body.append(f'tile.apply "st.global.b{out.bits}"(%out, %c) : {_memref(out.bits, "1")}, {result}')
    lines = "\n      ".join(body)
    return f"    gpu.func @{name}({', '.join(args)}) kernel {{\n      {lines}\n      gpu.return\n    }}"


def _entries(ptx_text):
    """{kernel name: its PTX body} of a module's PTX."""
    parts = re.split(r"^\.visible \.entry (\w+)", ptx_text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def _sass_by_function(cubin):
    """{function name: its instructions} of a cubin."""
    listing = sass.listing(cubin)
    parts = re.split(r"^\s*Function : (\S+)\s*$", listing, flags=re.M)
    return {parts[i]: sass.parse(parts[i + 1]) for i in range(1, len(parts), 2)}


# One operation that ptxas issues on either of two pipes, by the name of
# one: the choice follows the schedule, not a fold.
SAME_OPERATION = {"IMAD.IADD": "IADD3", "VIADD": "IADD3", "IMAD.SHL.U32": "SHF.L.U32", "IMAD.U32": "IMAD"}
# Moves (register copies and constants, whatever pipe ptxas puts them on)
# and what every kernel ends with.
NOT_COMPUTATIONS = ("MOV", "IMAD.MOV", "IMAD.MOV.U32", "HFMA2.MMA", "CS2R", "NOP", "BRA", "EXIT")


def _opcodes(instructions):
    """The computations among the instructions (opcodes with modifiers,
    counted), less the barrier's: what a fold would change."""
    return collections.Counter(SAME_OPERATION.get(i.opcode, i.opcode) for i in instructions
                               if i.mnemonic not in BARRIER_SASS and i.opcode not in NOT_COMPUTATIONS)


def main(report_path, families=()):
    """Every family, a spread of forms and conversions each; or the named
    `families`, every form of each before every conversion of its type."""
    pairs, not_judged = [], collections.defaultdict(list)
    every = bool(families)
    by_source = conversions(every)
    for family, forms in producers(every).items():
        if families and family not in families:
            continue
        for form in forms:
            dst = next(o for o in form.operands if o.role == "dst")
            if dst.bits not in (16, 32):
                # Its identity max is several instructions (64 bits), or
                # none exists (8-bit values in 16-bit registers).
                not_judged[family].append(form.opcode)
                continue
            # A bit-typed result is read as any type of its width.
            types = [(t, dst.bits) for t in ("u", "s", "f")] if dst.type.startswith("b") else [(dst.type, dst.bits)]
            for key in types:
                key = (key[0] + str(key[1]), key[1]) if len(key[0]) == 1 else key
                cvts = by_source.get(key, [])
                for cvt in cvts if every else _spread(cvts, CVTS_PER_TYPE // len(types)):
                    pairs.append((family, form, cvt))
    kernels = "\n".join(kernel(f"{side}{i}", form, cvt, side == "with")
                        for i, (_, form, cvt) in enumerate(pairs) for side in ("with", "bare"))
    module = (f'module attributes {{gpu.container_module}} {{\n'
              f'  gpu.module @probe [#nvvm.target<chip = "{TARGET}">] {{\n{kernels}\n  }}\n}}\n')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = compile_module(module, chip=TARGET, fold_barriers="off")["probe"].decode()
        # What the lowering itself guards: the bare kernels as it builds them.
        guarded_by_auto = {name: "max.s" in body for name, body in _entries(
            compile_module(module, chip=TARGET, fold_barriers="auto")["probe"].decode()).items()}
    listings = _sass_by_function(sass.assemble(text, level=3, arch=TARGET))
    report = {"target": TARGET, "ptxas_level": 3, "pairs": len(pairs),
              "families": {family: {"pairs": 0, "not_judged": not_judged.get(family, []), "folded": []}
                           for family in sorted({f for f, _, _ in pairs} | set(not_judged))}}
    for i, (family, form, cvt) in enumerate(pairs):
        guarded, bare = listings[f"with{i}"], listings[f"bare{i}"]
        entry = report["families"][family]
        entry["pairs"] += 1
        if not guarded_by_auto[f"bare{i}"]:
            entry["unguarded_by_the_lowering"] = entry.get("unguarded_by_the_lowering", 0) + 1
        if _opcodes(guarded) != _opcodes(bare):
            entry["folded"].append({"producer": form.opcode, "cvt": cvt.opcode,
                                    "unguarded_by_the_lowering": not guarded_by_auto[f"bare{i}"],
                                    "with_barrier": [ins.opcode for ins in guarded],
                                    "without": [ins.opcode for ins in bare]})
    report["folded_where_the_lowering_puts_no_barrier"] = [
        [f["producer"], f["cvt"]] for entry in report["families"].values() for f in entry["folded"]
        if f["unguarded_by_the_lowering"]]
    for family, entry in sorted(report["families"].items()):
        print(f"{family}: {len(entry['folded'])} of {entry['pairs']} pairs folded, "
              f"{entry.get('unguarded_by_the_lowering', 0)} left unguarded by the lowering"
              + (f"; not judged: {len(entry['not_judged'])} forms of 8 or 64 bits" if entry["not_judged"] else ""))
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    return report


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
