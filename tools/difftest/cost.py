#!/usr/bin/env python3
"""What the fold barriers cost, rebuilt both ways: the kernels of difftest
campaigns 5 to 9 (today's gen.py at their seeds), compiled with
fold_barriers="always" (every operand a fold class marks, as before data
flow chose them) and "auto", their barriers counted in the PTX and their
instructions in the SASS (ptxas 13.0 -O3, tools/sass).

    python tools/difftest/cost.py --out tools/difftest/results/fold_barrier_cost.json [--per-seed N]
        [--seeds S ...] [--rows earlier.jsonl]
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "sass"))

# (campaign, generator seed, kernels): docs/difftest.md's campaigns table.
CAMPAIGNS = [(5, 5, 10000), (5, 6, 10000), (6, 7, 4000), (7, 8, 6000), (8, 9, 8000), (9, 10, 6000)]
MODES = ("always", "auto")
CHUNK = 250


def barriers(ptx):
    """(identity maxes, split-and-joins) in a PTX text: the scoped registers
    each barrier declares."""
    return (len(re.findall(r"\.reg \.b\d+ %tile_f\d+_\d+;", ptx)),
            len(re.findall(r"\.reg \.b\d+ %tile_s\d+_\d+;", ptx)))


def compile_seed(seed):
    """The PTX of one generated kernel in each mode, or None when the
    generator or the compiler rejects it."""
    import gen
    import tile_mlir
    from tile_mlir import script as T
    warnings.simplefilter("ignore")
    try:
        spec = gen.generate(random.Random(seed), f"k{seed}")
        return {mode: tile_mlir.compile(spec.fn, target="sm_90", cubin=False, cache=False,
                                        fold_barriers=mode).ptx for mode in MODES}
    except (T.TileError, tile_mlir.CompileError):
        return None


def sass_counts(ptx_texts):
    """SASS mnemonic counts of the kernels, assembled as one module."""
    import sass
    from campaign import merge_ptx
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(merge_ptx(ptx_texts))
        subprocess.run(["ptxas", "-arch=sm_90", src, "-o", out], check=True, capture_output=True)
        with open(out, "rb") as f:
            return collections.Counter(sass.counts(f.read()))


def measure(campaign, seed, kernels, pool):
    seeds = [seed * 1_000_003 + k for k in range(kernels)]
    compiled = [c for c in pool.imap(compile_seed, seeds, chunksize=16) if c]
    result = {"campaign": campaign, "generator_seed": seed, "kernels": len(compiled)}
    for mode in MODES:
        texts = [c[mode] for c in compiled]
        maxes, splits = map(sum, zip(*(barriers(t) for t in texts)))
        chunks = [texts[i:i + CHUNK] for i in range(0, len(texts), CHUNK)]
        sass = sum(pool.map(sass_counts, chunks), collections.Counter())
        result[mode] = {
            "identity_max_barriers": maxes, "split_join_barriers": splits,
            "kernels_with_a_barrier": sum(1 for t in texts if any(barriers(t))),
            "sass_instructions": sum(n for m, n in sass.items() if m != "NOP"),
            "sass_imnmx": sass["VIMNMX"] + sass["IMNMX"],
            "sass_prmt": sass["PRMT"],
        }
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--per-seed", type=int, default=0,
                        help="the first N kernels of each seed instead of the campaign's count")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seeds", type=int, nargs="*", help="only these generator seeds")
    parser.add_argument("--rows", help="a report whose rows to keep (measured before)")
    args = parser.parse_args(argv)
    start = time.time()
    rows = []
    if args.rows:
        with open(args.rows) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    with multiprocessing.Pool(args.jobs) as pool:
        for campaign, seed, kernels in CAMPAIGNS:
            if (args.seeds and seed not in args.seeds) or any(r["generator_seed"] == seed for r in rows):
                continue
            rows.append(measure(campaign, seed, min(kernels, args.per_seed or kernels), pool))
            print(json.dumps(rows[-1]), flush=True)
    rows.sort(key=lambda row: (row["campaign"], row["generator_seed"]))
    report = {"what": __doc__.split("\n\n")[0], "rows": rows, "seconds": round(time.time() - start)}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
