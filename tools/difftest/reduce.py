#!/usr/bin/env python3
"""Shrinks a mismatching generated kernel to a small reproducer by delta
debugging over its instructions and its repeat count.

A variant is (seed, instructions skipped, repeats): the generator replays
the seed drawing every random choice but emitting only the kept
instructions, so a variant is the same kernel minus instructions. The judge
is the H200, which is elsewhere, so reduction runs in rounds: `variants`
writes a bundle of every candidate of the next ddmin step for each failing
seed, `campaign.py run` judges them there, and `next` reads that report to
keep the smallest variants that still mismatch. `ddmin` is the classic
algorithm (Zeller and Hildebrandt) for any judge that can answer here.

    python tools/difftest/reduce.py variants report.json round1.json.gz
    PYTHONPATH=python python tools/difftest/campaign.py run round1.json.gz judged1.json   # on the GPU
    python tools/difftest/reduce.py next round1.json.gz judged1.json round2.json.gz
    python tools/difftest/reduce.py show SEED --skip 0,2 --repeats 1         # the reproducer's MLIR
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def ddmin(items, fails):
    """A 1-minimal subset of `items` for which `fails(subset)` holds."""
    items, n = list(items), 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        subsets = [items[i:i + chunk] for i in range(0, len(items), chunk)]
        for subset in subsets:
            if fails(subset):
                items, n = subset, 2
                break
        else:
            for subset in subsets:
                complement = [x for x in items if x not in subset]
                if complement and fails(complement):
                    items, n = complement, max(n - 1, 2)
                    break
            else:
                if n >= len(items):
                    break
                n = min(len(items), n * 2)
    return items


def spec_of(seed, skip=(), repeats=None):
    import gen
    return gen.generate(random.Random(seed), f"k{seed}", frozenset(skip), repeats)


def candidates(seed, skip, repeats):
    """The variants smaller by one step of every ddmin granularity at once
    (each judging round costs a device call): every chunk of the kept
    instructions left out, and every chunk kept alone, for 2, 4, ...
    chunks down to single instructions; or fewer repeats."""
    spec = spec_of(seed, skip, repeats)
    kept = [i for i in range(spec.instructions) if i not in skip]
    removals = set()
    parts = 2
    while len(kept) > 1:
        size = -(-len(kept) // parts)
        chunks = [kept[i:i + size] for i in range(0, len(kept), size)]
        for chunk in chunks:
            removals.add(tuple(chunk))
            if len(chunks) > 2:
                removals.add(tuple(i for i in kept if i not in chunk))
        if size == 1:
            break
        parts *= 2
    out = [(sorted(set(skip) | set(chunk)), repeats) for chunk in sorted(removals)
           if len(chunk) < len(kept)]
    if (repeats or spec.repeats) > 1:
        out.append((sorted(skip), (repeats or spec.repeats) // 2))
    return out


def write_bundle(variants, path):
    import campaign
    entries = []
    for index, (seed, skip, repeats) in enumerate(variants):
        # Variants of one seed go into one PTX module: each needs a name.
        entry = campaign.prepare(seed, skip, repeats, name=f"k{seed}_v{index}")
        if "cubin" in entry or "ptx" in entry:
            entry["variant"] = {"skip": skip, "repeats": repeats}
            entries.append(entry)
    chunks = [{"ptx": campaign.merge_ptx([e.pop("ptx") for e in entries[i:i + campaign.CHUNK]]),
               "kernels": entries[i:i + campaign.CHUNK]} for i in range(0, len(entries), campaign.CHUNK)]
    with gzip.open(path, "wt") as f:
        json.dump({"chunks": chunks, "rejected": [], "not_covered": [], "failures": []}, f)
    print(f"{len(entries)} variants in {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("variants")
    v.add_argument("report")
    v.add_argument("bundle")
    n = sub.add_parser("next")
    n.add_argument("previous")
    n.add_argument("report")
    n.add_argument("bundle")
    s = sub.add_parser("show")
    s.add_argument("seed", type=int)
    s.add_argument("--skip", default="")
    s.add_argument("--repeats", type=int)
    args = parser.parse_args(argv)
    if args.command == "show":
        skip = [int(x) for x in args.skip.split(",") if x]
        print(spec_of(args.seed, skip, args.repeats).fn.module)
        return 0
    with open(args.report) as f:
        failing = json.load(f)["mismatched_kernels"]
    if args.command == "variants":
        variants = [(k["seed"], skip, repeats) for k in failing for skip, repeats in candidates(k["seed"], [], None)]
    else:
        with gzip.open(args.previous, "rt") as f:
            previous = {e["name"]: e for c in json.load(f)["chunks"] for e in c["kernels"]}
        # The smallest still-failing variant of each seed goes on; variants
        # share their seed, so the report names the kernel.
        best = {}
        for k in failing:
            variant = previous[k["name"]]["variant"]
            size = (-len(variant["skip"]), variant["repeats"] or 99)
            if k["seed"] not in best or size < best[k["seed"]][0]:
                best[k["seed"]] = (size, variant)
        variants = [(seed, skip, repeats) for seed, (_, v) in best.items()
                    for skip, repeats in candidates(seed, v["skip"], v["repeats"])]
        for seed, (_, v) in best.items():
            print(f"seed {seed}: still failing with skip={v['skip']} repeats={v['repeats']}")
    write_bundle(variants, args.bundle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
