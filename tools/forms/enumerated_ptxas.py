#!/usr/bin/env python3
"""Every form the record enumerator lists, assembled by ptxas.

For each family that is a record (ptx.forms is not empty), every enumerated
spelling is written with the operands its primary signature names (an
immediate once with each value the table allows and once with each value
of 1, 2, 4, 8, 16, 32 it does not) and assembled for sm_80, sm_90 and
sm_100a. The table's verdict on a target is parse(spelling, target) and the
immediate's set; ptxas's is whether it assembles (a disagreement in a batch
is assembled again alone). It also checks that the
enumerator lists exactly the qualifier sets of the ptxas differential
corpus that the table accepts, so no legal form is missing from the docs.

    python tools/forms/enumerated_ptxas.py --out tools/forms/results/enumerated_ptxas.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ptxas_diff"))

import ptxas_diff as D  # noqa: E402
from tile_mlir import ptx  # noqa: E402

PROBE_IMMEDIATES = (1, 2, 4, 8, 16, 32)


def render(form, immediates=None):
    """The line of `form` with `immediates` ({operand index: value}) for
    its immediate operands."""
    texts = ["_"] if form.sink_result else []  # an mbarrier arrival on .shared::cluster
    for i, op in enumerate(form.operands):
        if op.role == "imm":
            texts.append(str(immediates[i]))
        elif op.space != "reg":
            # An address read as a value (isspacep, cvta, getctarank) is
            # the register itself.
            texts.append(f"%rd{30 + i}" if form.address_value else f"[%rd{30 + i}]")
        else:
            prefix = D.REG.get(op.register_bits, "%r")
            regs = [f"{prefix}{i * 8 + k + 1}" for k in range(op.count)]
            braced = op.count > 1 or op.braced  # an mma fragment: {%r1}
            text = "|".join(regs) if op.joined_by_bar else \
                "{" + ", ".join(regs) + "}" if braced else regs[0]
            if op.address:  # a tensor map: [%rd9]
                text = f"[{text}]"
            if op.bar_before:  # elect.sync d|p
                texts[-1] += "|" + text
            elif op.within_address:  # a TMA's coordinates: [%rd9, {%r17, %r18}]
                texts[-1] = texts[-1][:-1] + ", " + text + "]"
            else:
                texts.append(text)
    return f"{form.opcode} {', '.join(texts)};"


def legal_immediate(op, value):
    if op.immediates:
        return value in op.immediates
    return 0 <= value <= op.max_immediate and value % op.immediate_step == 0


def cases():
    """(line, spelling, immediate or None, table-accepts-on-target): each
    immediate operand probed in turn (bar.sync's barrier and thread count),
    the others at their first legal value."""
    out = []
    for family in ptx.table_families():
        for spelling in ptx.forms(family):
            form = ptx.parse(spelling)
            positions = [i for i, op in enumerate(form.operands) if op.role == "imm"]
            if not positions:
                out.append((render(form), spelling, None, True))
            first = {i: (form.operands[i].immediates or (0,))[0] for i in positions}
            for i in positions:
                for value in PROBE_IMMEDIATES:
                    out.append((render(form, {**first, i: value}), spelling, value,
                                legal_immediate(form.operands[i], value)))
    return out


def table_verdict(spelling, target):
    try:
        ptx.parse(spelling, target=target)
        return True
    except ptx.PTXFormError:
        return False


def key(spelling):
    """The name, qualifier set and types of a spelling: a qualifier ptxas
    takes repeated (bar.sync.sync) means what it means once."""
    tokens = spelling.split(".")
    types = tuple(t for t in tokens[1:] if t in D.BITS)
    return (tokens[0], tuple(sorted({t for t in tokens[1:] if t not in D.BITS})), types)


def completeness():
    """Qualifier sets of the differential corpus the table accepts but the
    enumerator does not list, and the reverse, per record family."""
    enumerated = {key(s) for f in ptx.table_families() for s in ptx.forms(f)}
    families = {f for f in ptx.table_families() if ptx.forms(f)}
    accepted = set()
    for spelling in D.spellings():
        try:
            form = ptx.parse(spelling)
        except ptx.PTXFormError:
            continue
        if form.family not in families:  # barrier.sync is a bar
            continue
        accepted.add(key(spelling))
    corpus_families = {k[0] for k in accepted}
    listed = {k for k in enumerated if k[0] in corpus_families}
    return sorted(map(str, accepted - listed)), sorted(map(str, listed - accepted))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--sample", type=int, default=0,
                        help="assemble this many lines of ld and st (seeded) and every other family's")
    args = parser.parse_args(argv)
    work = cases()
    if args.sample:
        memory = [c for c in work if c[1].split(".")[0] in ("ld", "st")]
        rest = [c for c in work if c[1].split(".")[0] not in ("ld", "st")]
        work = rest + random.Random(1).sample(memory, min(args.sample, len(memory)))
    report = {"lines": len(work), "sampled": bool(args.sample), "targets": list(D.TARGETS), "agree": 0, "disagreements": [],
              "families": {f: len(ptx.forms(f)) for f in ptx.table_families() if ptx.forms(f)}}
    with tempfile.TemporaryDirectory() as tmp:
        for target in D.TARGETS:
            rejected = {}
            for start in range(0, len(work), 800):
                chunk = work[start:start + 800]
                for i, message in D.assemble([c[0] for c in chunk], target, tmp).items():
                    rejected[start + i] = message
            for i, (line, spelling, value, allowed) in enumerate(work):
                table_ok = allowed and table_verdict(spelling, target)
                ptxas_ok = i not in rejected
                if table_ok != ptxas_ok:
                    # Alone, as tile-mlir emits it in a kernel of its own:
                    # ptxas crashes on st.param alone but not in every batch.
                    alone = D.assemble([line], target, tmp)
                    ptxas_ok = 0 not in alone
                    rejected[i] = alone.get(0)
                if table_ok == ptxas_ok:
                    report["agree"] += 1
                else:
                    report["disagreements"].append({"line": line, "target": target,
                                                    "table": "accepts" if table_ok else "rejects",
                                                    "ptxas_error": rejected.get(i)})
    missing, extra = completeness()
    report["corpus_sets_not_enumerated"] = missing
    report["enumerated_sets_not_in_corpus"] = len(extra)
    if args.out:
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
    print(f"{report['lines']} lines x {len(D.TARGETS)} targets: {report['agree']} agree, "
          f"{len(report['disagreements'])} disagree; {len(missing)} accepted qualifier sets not enumerated")
    for d in report["disagreements"][:20]:
        print(" ", d)
    for m in missing[:20]:
        print("  not enumerated:", m)
    return 1 if report["disagreements"] or missing else 0


if __name__ == "__main__":
    sys.exit(main())
