#!/usr/bin/env python3
"""Compile speed, tile-mlir against apache-tvm-tirx, measured side by side.

Runs worker.py in this environment (tile-mlir) and in the peer's (a venv
with apache-tvm-tirx, never a project dependency), writes the JSON result
and a PNG plot of the scaling.

    python bench/compile/run.py --peer-python .benchvenv/bin/python \
        --out bench/results/compile.json --plot bench/results/compile.png
"""

import argparse
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_worker(python, *args):
    result = subprocess.run([python, os.path.join(HERE, "worker.py"), *map(str, args)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer-python", required=True)
    parser.add_argument("--sizes", default="8,64,512,1024,4096")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--nvcc-max", type=int, default=1024,
                        help="largest R to run nvcc on (the peer plus nvcc took 306 s at R=4096)")
    parser.add_argument("--out", default=os.path.join(HERE, "..", "results", "compile.json"))
    parser.add_argument("--plot")
    args = parser.parse_args()
    tile = run_worker(sys.executable, "tile", args.sizes, args.repeats)
    peer = run_worker(args.peer_python, "peer", args.sizes, args.repeats, args.nvcc_max)
    rows = []
    for t in tile:
        p = next(p for p in peer if p["kernel"] == t["kernel"] and p["R"] == t["R"])
        row = {**t, "peer_source_seconds": p["source_seconds"], "peer_seconds": p.get("seconds"),
               "instructions_per_second": t["instructions"] / t["seconds"]}
        row["speedup_vs_peer_source"] = p["source_seconds"] / t["seconds"]
        if p.get("seconds"):
            row["speedup_vs_peer_with_nvcc"] = p["seconds"] / t["seconds"]
        rows.append(row)
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "python": platform.python_version(),
              "rows": rows}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    for r in rows:
        print(f"{r['kernel']:10s} R={r['R']:5d} {r['instructions']:6d} instr  tile {r['seconds']:7.3f} s  "
              f"peer source {r['peer_source_seconds']:7.3f} s  peer+nvcc "
              f"{(r['peer_seconds'] or float('nan')):8.3f} s  x{r.get('speedup_vs_peer_with_nvcc', float('nan')):.1f}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for kernel, style in (("packed_add", "-"), ("mixed", "--")):
            ks = [r for r in rows if r["kernel"] == kernel]
            ax.plot([r["R"] for r in ks], [r["seconds"] for r in ks], "o" + style, label=f"tile-mlir {kernel}")
            ax.plot([r["R"] for r in ks], [r["peer_source_seconds"] for r in ks], "s" + style,
                    label=f"tvm-tirx source {kernel}")
            with_nvcc = [r for r in ks if r["peer_seconds"]]
            ax.plot([r["R"] for r in with_nvcc], [r["peer_seconds"] for r in with_nvcc], "^" + style,
                    label=f"tvm-tirx + nvcc {kernel}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("repeats R")
        ax.set_ylabel("seconds, definition to PTX")
        ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
