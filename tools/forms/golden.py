#!/usr/bin/env python3
"""A refactoring check for the form table, not evidence of its accuracy:
records what the table answers (verdict, message, overloads with their
operands, availability per target) for every spelling of the ptxas
differential corpus and its single-token edits, so that a rewrite of the
table can be compared with the table it replaces. Accuracy comes from
ptxas (tools/ptxas_diff).

    python tools/forms/golden.py dump build/forms_golden.json
    python tools/forms/golden.py compare build/forms_golden.json
"""

from __future__ import annotations

import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ptxas_diff"))

import orders  # noqa: E402
import ptxas_diff  # noqa: E402
from tile_mlir import ptx  # noqa: E402

TARGETS = ("sm_75", "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103a",
           "sm_110a", "sm_120a")


def corpus():
    spellings = set(ptxas_diff.spellings())
    rng = random.Random(7)
    for form in ptxas_diff.legal_forms(one_per_qualifier_set=True):
        spellings.update(orders.edits(form, rng))
    return sorted(spellings)


def answer(spelling):
    try:
        forms = ptx.overloads(spelling)
    except ptx.PTXFormError as error:
        return {"error": str(error)}
    available = []
    for target in TARGETS:
        try:
            ptx.parse(spelling, target=target)
            available.append(target)
        except ptx.PTXFormError:
            pass
    return {"forms": [_older_repr(f) for f in forms], "targets": available}


def _older_repr(form):
    """The repr without the fields added with the records (immediates,
    max_immediate, read_at, joined_by_bar, bar_before, sized_by, warp_collective,
    warpgroup_collective, accesses_described_memory, block_barrier, observes_warp, orders_memory, lowered, sink_result, caveat) at their defaults, so a golden file
    written before them still compares."""
    text = repr(form).replace(", immediates=(), max_immediate=0, read_at=0, joined_by_bar=False, "
                              "bar_before=False, sized_by=''", "")
    text = text.replace(", block_barrier=False", "").replace(", observes_warp=False", "").replace(", orders_memory=False", "")
    text = text.replace(", sink_result=False", "")
    text = text.replace(", warpgroup_collective=False, accesses_described_memory=False", "")
    return text.replace(", warp_collective=False, lowered=True", "").replace(", caveat=''", "")


def main(argv):
    mode, path = argv
    if mode == "dump":
        table = {s: answer(s) for s in corpus()}
        json.dump(table, open(path, "w"))
        print(len(table), "spellings,", sum("forms" in a for a in table.values()), "legal")
        return 0
    table = json.load(open(path))
    differ = [s for s, want in table.items() if answer(s) != want]
    for s in differ[:40]:
        print(s, "\n  was", table[s], "\n  now", answer(s))
    print(f"{len(table)} spellings, {len(differ)} answered differently")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
