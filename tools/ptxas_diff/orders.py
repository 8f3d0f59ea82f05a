#!/usr/bin/env python3
"""Qualifier order and single-token edits of legal spellings, judged by
ptxas, not by the table's beliefs.

For each legal form class (one spelling per qualifier set), every
permutation of its tokens after the family (sampled beyond 24), every
single-token deletion, and insertions and substitutions of tokens from
the PTX vocabulary are assembled with the *form's* operands (the edits do
not change what the operands are, so a rejection is about the spelling),
on sm_80, sm_90 and sm_100a at the newest PTX version. A spelling where the
table and ptxas disagree is listed.

    python tools/ptxas_diff/orders.py --out tools/ptxas_diff/orders.json [--sample N]
    python tools/ptxas_diff/orders.py --sm100 --out tools/ptxas_diff/orders_sm100.json
    python tools/ptxas_diff/orders.py --families st.async red.async --out tools/ptxas_diff/orders_async.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ptxas_diff as D  # noqa: E402
from tile_mlir import ptx  # noqa: E402

VOCABULARY = ["rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "satfinite", "relu",
              "lo", "hi", "wide", "cc", "global", "shared", "local", "const", "param", "v2", "v4", "nc",
              "weak", "relaxed", "acquire", "release", "volatile", "mmio", "cta", "gpu", "sys", "ca", "cg", "cs",
              "lu", "cv", "wb", "wt", "L1::evict_last", "L2::64B", "f16", "f32", "s32", "u32", "b32"]


# The tcgen05 qualifiers, for its edits (--sm100).
TCGEN05_VOCABULARY = VOCABULARY + ["sync", "aligned", "cta_group::1", "cta_group::2", "shared::cta",
                                   "shared::cluster", "multicast::cluster", "mbarrier::arrive::one", "down",
                                   "pack::16b", "unpack::16b", "x1", "x4", "x128", "32x32b", "16x256b",
                                   "16x32bx2", "128x256b", "64x128b", "warpx4", "warpx2::02_13", "b8x16",
                                   "b6x16_p32", "b64", "kind::f16", "kind::i8", "kind::mxf4", "block_scale",
                                   "scale_vec::2X", "block16", "block32", "ashift", "collector::a::fill",
                                   "collector::a::discard", "collector::b0::use", "ws"]


# The asynchronous stores' and reductions' qualifiers, for their edits
# (--families st.async red.async).
ASYNC_VOCABULARY = VOCABULARY + ["shared::cluster", "shared::cta", "cluster", "mbarrier::complete_tx::bytes",
                                 "bulk_group", "add", "min", "max", "inc", "dec", "and", "xor", "b64", "u64", "s64",
                                 "f64", "v8", "async"]


def edits(form, rng, permutations=24, others=24, vocabulary=VOCABULARY):
    tokens = form.opcode.split(".")
    family, rest = tokens[0], tokens[1:]
    out = set()
    perms = list(itertools.islice(itertools.permutations(rest), 5040))
    for perm in rng.sample(perms, min(permutations, len(perms))):
        out.add(".".join([family, *perm]))
    for i in range(len(rest)):
        out.add(".".join([family] + rest[:i] + rest[i + 1:]))
    edits_made = 0
    while edits_made < others:
        i = rng.randrange(len(rest) + 1)
        token = rng.choice(vocabulary)
        if rng.random() < 0.5:
            out.add(".".join([family] + rest[:i] + [token] + rest[i:]))
        elif i < len(rest):
            out.add(".".join([family] + rest[:i] + [token] + rest[i + 1:]))
        edits_made += 1
    out.discard(form.opcode)
    return sorted(out)


def run(forms, rng, targets=D.TARGETS, batch=800, vocabulary=VOCABULARY):
    cases = []
    seen = set()
    for form in forms:
        for spelling in edits(form, rng, vocabulary=vocabulary):
            # A spelling the table accepts is written with its own operands,
            # any other with its source form's: an edit that changes no
            # operand is then judged on its spelling alone.
            try:
                operands = D.table_operands(ptx.parse(spelling))
            except ptx.PTXFormError:
                operands = D.table_operands(form)
            if (spelling, tuple(operands)) in seen:
                continue
            seen.add((spelling, tuple(operands)))
            cases.append((spelling, operands, form.opcode))
    report = {"spellings": len(cases), "targets": list(targets), "agree": 0, "disagreements": [],
              "explained": []}
    with tempfile.TemporaryDirectory() as workdir:
        for target in targets:
            verdicts = []
            for spelling, operands, source in cases:
                try:
                    ptx.parse(spelling, target=target)
                    accepted = True
                except ptx.PTXFormError:
                    accepted = False
                verdicts.append(accepted)
            for start in range(0, len(cases), batch):
                chunk = cases[start:start + batch]
                rejected = D.assemble([D.render(s, ops) for s, ops, _ in chunk], target, workdir)
                for i, (spelling, operands, source) in enumerate(chunk):
                    table_ok, ptxas_ok = verdicts[start + i], i not in rejected
                    if table_ok != ptxas_ok:
                        alone = D.assemble([D.render(spelling, operands)], target, workdir)
                        ptxas_ok = 0 not in alone
                    if table_ok == ptxas_ok:
                        report["agree"] += 1
                        continue
                    why = D.explanation(spelling)
                    report["explained" if why else "disagreements"].append({
                        "spelling": spelling, "from": source, "target": target,
                        "table": "accepts" if table_ok else "rejects",
                        "ptxas_error": None if ptxas_ok else alone.get(0), **({"why": why} if why else {})})
    report["checks"] = len(cases) * len(targets)
    report["false_accepts"] = sum(d["table"] == "accepts" for d in report["disagreements"])
    report["false_rejects"] = sum(d["table"] == "rejects" for d in report["disagreements"])
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--sample", type=int, default=0, help="check this many form classes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--families", nargs="*", help="every legal form of these families (all their spellings, "
                        "not one per qualifier set), with their qualifiers in the vocabulary")
    parser.add_argument("--sm100", action="store_true",
                        help="tcgen05's forms and edits, on the targets that have it and two that do not")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if args.sm100:
        forms = [ptx.parse(spelling) for spelling in ptx.forms("tcgen05")]
    elif args.families:
        forms = [ptx.parse(spelling) for family in args.families for spelling in ptx.forms(family)]
    else:
        forms = D.legal_forms(one_per_qualifier_set=True)
        forms = [f for f in forms if all(o.count == 1 or o.space != "reg" for o in f.operands) or f.family != "mov"]
    if args.sample:
        forms = rng.sample(forms, min(args.sample, len(forms)))
    if args.sm100:
        report = run(forms, rng, targets=D.tcgen05.TARGETS, vocabulary=TCGEN05_VOCABULARY)
    else:
        report = run(forms, rng, vocabulary=ASYNC_VOCABULARY if args.families else VOCABULARY)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
    print(f"{report['spellings']} spellings x {len(report['targets'])} targets: {report['agree']} agree, "
          f"{len(report['explained'])} explained, "
          f"{report['false_accepts']} accepted by the table but rejected by ptxas, "
          f"{report['false_rejects']} rejected by the table but accepted by ptxas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
