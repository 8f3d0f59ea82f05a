#!/usr/bin/env python3
"""A kernel that hangs on the GPU, cut down by hand: variants of one
generated kernel's MLIR, each with lines dropped or replaced, compiled to
artifacts here and each launched under a time limit there.

    python tools/difftest/hang_variants.py build --kind block 11002804 build/hang
    PYTHONPATH=python python3 tools/difftest/hang_variants.py run build/hang

A variant is `name=pattern` (drop the lines matching the regular
expression) or `name=old->new` (replace text); `--variant` adds one.
docs/difftest.md (finding 10) has the variants measured on the H200.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DEFAULT_VARIANTS = [
    "as_generated=^$",
    r"no_div=\"div\.",
    r"no_counted_barrier=\"bar\.sync\"\(%c\d+_i64, %c\d+_i32\)",
    r"no_collectives=\"(elect|match|vote|shfl)\.",
    r"no_barriers=\"bar\.sync\"",
]


def build(args):
    import gen
    import gen_block
    import tile_mlir
    from tile_mlir import runtime
    rng = random.Random(args.seed)
    spec = gen_block.generate(rng, "k", racy=False) if args.kind == "block" else gen.generate(rng, "k")
    text = str(spec.fn.module)
    compiled = tile_mlir.compile(spec.fn, target="sm_90")
    os.makedirs(args.out, exist_ok=True)
    for variant in DEFAULT_VARIANTS + args.variant:
        name, rule = variant.split("=", 1)
        if "->" in rule:
            old, new = rule.split("->", 1)
            body = text.replace(old, new)
        else:
            body = "\n".join(line for line in text.splitlines()
                             if rule == "^$" or not re.search(rule, line))
        ptx = tile_mlir.compile_module(body, chip="sm_90")["kernels"].decode()
        runtime.Kernel("k", ptx, None, "sm_90", compiled.params, compiled.grid, compiled.block).save(
            os.path.join(args.out, f"{name}.json"))
    with open(os.path.join(args.out, "seed.json"), "w") as f:
        json.dump({"seed": args.seed}, f)


def launch(path, seed):
    import campaign
    from tile_mlir import runtime
    kernel = runtime.load(path)
    params = [{"name": p.name, "shape": list(p.shape), "dtype": p.dtype, "written": p.written}
              for p in kernel.params]
    arrays = campaign.kernel_inputs(seed, params, {})
    kernel(*[arrays[p.name] for p in kernel.params])


def run(args):
    with open(os.path.join(args.out, "seed.json")) as f:
        seed = json.load(f)["seed"]
    for file in sorted(f for f in os.listdir(args.out) if f.endswith(".json") and f != "seed.json"):
        try:
            subprocess.run([sys.executable, os.path.abspath(__file__), "launch", os.path.join(args.out, file),
                            str(seed)], timeout=args.seconds, check=True, capture_output=True)
            verdict = "returned"
        except subprocess.TimeoutExpired:
            verdict = "never returned"
        except subprocess.CalledProcessError as error:
            verdict = f"failed: {error.stderr.decode()[-200:]}"
        print(f"{file[:-5]}: {verdict}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--kind", choices=("thread", "block"), default="block")
    b.add_argument("seed", type=int)
    b.add_argument("out")
    b.add_argument("--variant", action="append", default=[])
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--seconds", type=float, default=10)
    one = sub.add_parser("launch")
    one.add_argument("path")
    one.add_argument("seed", type=int)
    args = parser.parse_args()
    if args.command == "launch":
        return launch(args.path, args.seed)
    return build(args) if args.command == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
