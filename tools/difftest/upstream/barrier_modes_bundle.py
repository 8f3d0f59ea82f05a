"""A bundle of a few generated kernels, each compiled with fold_barriers
auto, always and off, for campaign.py run: tells whether a mismatch follows
the barrier choice (seeds 9005246 and 6003193 mismatch identically in all
three: results/exact_mismatches_every_mode.json).

    python tools/difftest/upstream/barrier_modes_bundle.py bundle.json.gz SEED [SEED ...]
"""
import gzip
import json
import os
import random
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
warnings.simplefilter("ignore")

import campaign  # noqa: E402
import gen  # noqa: E402
import tile_mlir  # noqa: E402



def main(path, seeds):
    chunks = []
    for seed in seeds:
        entry = campaign.prepare(seed)
        spec = gen.generate(random.Random(seed), f"k{seed}")
        for mode in ("auto", "always", "off"):
            variant = dict(entry)
            variant.pop("ptx", None)
            variant["features"] = list(variant["features"]) + [mode]
            ptx = tile_mlir.compile(spec.fn, target="sm_90", cache=False, fold_barriers=mode).ptx
            chunks.append({"ptx": ptx, "kernels": [variant]})
    with gzip.open(path, "wt") as f:
        json.dump({"chunks": chunks, "rejected": [], "not_covered": [], "failures": []}, f)


if __name__ == "__main__":
    main(sys.argv[1], [int(seed) for seed in sys.argv[2:]])
