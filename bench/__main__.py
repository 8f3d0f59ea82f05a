"""The benchmarks' one command line (run from the repository's root):

    python -m bench list
    python -m bench build NAME [--out DIR] [--baseline REV] [--only TEXT]
    python -m bench run NAME [ARTIFACTS] [--report FILE]     # GPU: on the device machine
    python -m bench compare NAME [--report FILE]

`build` compiles the benchmark's entries (tile_mlir.kernels, here, with
MLIR) to artifacts in build/bench/NAME; `--baseline REV` adds, for each
entry, the kernel it replaced as the bench of commit REV wrote it (loaded
from git), saved as NAME__base_REV, so that one run times both. `run`
times the artifacts against the peers on the GPU machine (torch and the
CUDA driver, no MLIR) and writes the benchmark's one results file,
bench/results/NAME.json. CPU benchmarks (compile, cache) run here and take
no artifacts. `compare` prints every ratio of a results file, among them
each entry's against its baseline (`ratio_vs_baseline`, timed in the same
rounds) where the run had one.
"""

import argparse
import importlib
import json
import os
import subprocess
import sys
import warnings

from .artifacts import BASE_TAG

BENCHMARKS = ("gemm_hopper", "attention", "gemm_mma", "softmax", "rmsnorm", "reduce_sum", "swiglu", "streaming",
              "dependent_launch",
              "ops_launch", "ops_host", "ops_block", "ops_gemm", "ops_attention", "ops_grouped", "ops_compile", "ops_norms", "compile", "compile_scaling", "compile_stages", "cache", "interpreter")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def benchmark(name):
    if name not in BENCHMARKS:
        raise SystemExit(f"no benchmark {name!r}: {', '.join(BENCHMARKS)}")
    return importlib.import_module(f"bench.{name}")


def results_path(name):
    return os.path.join(ROOT, "bench", "results", f"{name}.json")


def baseline_module(rev, path):
    """bench file `path` as commit `rev` had it, loaded as a module."""
    text = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], capture_output=True, text=True,
                          check=True).stdout
    module = type(sys)(f"baseline_{rev}_{os.path.basename(path)[:-3]}")
    # A benchmark module's relative imports resolve in this bench package
    # (its kernels, then, are this tree's, as its entries build them).
    module.__package__ = "bench"
    # Named by its commit and path: its kernels' locations say where they
    # came from.
    exec(compile(text, f"{rev}:{path}", "exec"), module.__dict__)
    return module


def build(name, out, baseline=None, only=None):
    import tile_mlir
    module = benchmark(name)
    os.makedirs(out, exist_ok=True)
    if hasattr(module, "build"):  # a benchmark that builds its own artifacts
        return module.build(out)
    entries = {key: make for key, make in module.ENTRIES.items() if not only or only in key}
    kernels = {key: make for key, make in entries.items()}
    if baseline:
        for key in entries:
            path, table, old = module.BASELINE[key]
            # A table of (make, kwargs) (the notebooks'), or of makers (ENTRIES).
            held = getattr(baseline_module(baseline, path), table)[old]
            make, kwargs = held if isinstance(held, tuple) else (held, {})
            kernels[f"{key}{BASE_TAG}{baseline}"] = lambda make=make, kwargs=kwargs: make(**kwargs)
    options = getattr(module, "COMPILE_OPTIONS", {"target": "sm_90a"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, make in kernels.items():
            tile_mlir.compile(make(), **options).save(os.path.join(out, f"{key}.json"))
            print(key, "saved", flush=True)


def ratios(node, path=()):
    """(path, {key: value}) of every entry of a report with ratio_vs_* keys."""
    if not isinstance(node, dict):
        return
    found = {k: v for k, v in node.items() if k.startswith("ratio_vs") and isinstance(v, (int, float))}
    if found:
        yield path, found
    for key, child in node.items():
        yield from ratios(child, path + (key,))


def compare(name, report_path):
    with open(report_path) as f:
        report = json.load(f)
    print(f"{name}: {report.get('device', '?')}, {report_path}")
    for path, found in ratios(report):
        print("  " + "/".join(path[1:] if path[:1] == ("kernels",) else path) + ": "
              + ", ".join(f"{k[len('ratio_vs_'):]} {v:.3f}x" for k, v in sorted(found.items())))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("list", "build", "run", "compare"))
    parser.add_argument("name", nargs="?")
    parser.add_argument("artifacts", nargs="?")
    parser.add_argument("--out")
    parser.add_argument("--baseline")
    parser.add_argument("--only")
    parser.add_argument("--report")
    args = parser.parse_args(argv)
    if args.command == "list":
        for name in BENCHMARKS:
            print(f"{name:16s} {(benchmark(name).__doc__ or '').strip().splitlines()[0]}")
        return 0
    if not args.name:
        parser.error(f"{args.command} takes a benchmark's name")
    report = args.report or results_path(args.name)
    if args.command == "build":
        build(args.name, args.out or os.path.join("build", "bench", args.name), args.baseline, args.only)
    elif args.command == "run":
        module = benchmark(args.name)
        if getattr(module, "KIND", "gpu") == "cpu":
            module.run(report)
        else:
            module.run(args.artifacts or os.path.join("build", "bench", args.name), report)
    else:
        compare(args.name, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
