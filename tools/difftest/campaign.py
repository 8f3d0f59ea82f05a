#!/usr/bin/env python3
"""Differential testing with the GPU as judge.

  build  (here, with the compiler) generates random kernels (gen.py),
         compiles each to a cubin, runs the reference interpreter
         (interp.py) on random inputs, and writes one bundle: cubins,
         inputs, expected bytes and which of them are defined.
  run    (on the GPU, numpy and the CUDA driver only) launches every kernel
         of a bundle, compares each defined output byte with the
         interpreter's, and writes a JSON report.
  check  (here, in CI) generates, compiles, assembles and interprets
         without a GPU, so generator, verifier and interpreter disagreements
         and crashes show.

--kind thread draws gen.py's kernels (each thread its own rows); --kind
block draws gen_block.py's (shared memory, barriers, warp collectives,
atomics), of which every tenth is deliberately racy: the interpreter must
report its race (a finding if it does not, and a race in any other kernel
is one too); racy kernels are kept apart in the bundle ("racy"), for
compute-sanitizer's racecheck, not compared: `racecheck` (on the GPU) runs
them, and as many race-free kernels, under it. --kind tensor draws the
block kernels with the warp tensor-core phases too (cp.async groups with
src-size, s8 mma.sync chains over K). --kind atomics is no random draw:
kernel k of the bundle runs the k-th atom or red form of sm_90
(gen_atomics.py), each thread on its own cell, for the conformance of
atomics (--kernels 399 covers every form once).

    python tools/difftest/campaign.py build --kernels 2000 --seed 1 build/difftest/bundle.json
    PYTHONPATH=python python tools/difftest/campaign.py run build/difftest/bundle.json report.json
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import multiprocessing
import os
import random
import re
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
CHUNK = 250  # kernels per PTX module


_MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _splitmix64(x):
    x = (x + np.uint64(0x9E3779B97F4A7C15)) & _MASK64
    x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _MASK64
    x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _MASK64
    return x ^ (x >> np.uint64(31))


def make_input(seed, index, bits, size):
    """The input bits of parameter `index` of kernel `seed`: random bits,
    small integers and moderate floats of the width (the same registers
    feed integer and float forms). Integer arithmetic only, so the GPU side
    regenerates exactly these bits with any numpy instead of carrying them."""
    with np.errstate(over="ignore"):
        h = _splitmix64(np.arange(size, dtype=np.uint64) + np.uint64((seed * 64 + index) << 20))
        g = _splitmix64(h)
    width = np.uint64((1 << bits) - 1) if bits < 64 else _MASK64
    raw = h & width
    small = (np.uint64(1 << 63) + (g & np.uint64(7)) - np.uint64(4) - np.uint64(1 << 63)) & width
    exp_bits, man_bits, bias = {8: (4, 3, 7), 16: (5, 10, 15), 32: (8, 23, 127), 64: (11, 52, 1023)}[bits]
    exponent = (np.uint64(bias - 6) + (g >> np.uint64(8)) % np.uint64(13)) & np.uint64((1 << exp_bits) - 1)
    floats = ((g >> np.uint64(63)) << np.uint64(bits - 1)) | (exponent << np.uint64(man_bits)) | \
        ((g >> np.uint64(20)) & np.uint64((1 << man_bits) - 1))
    pick = (g >> np.uint64(4)) % np.uint64(10)
    out = np.where(pick < 3, raw, np.where(pick < 5, small, floats & width))
    return out.astype({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits])


POISON = 0xA5A5A5A5A5A5A5A5


def kernel_inputs(seed, params, aliases):
    """{name: array} of every parameter: inputs from make_input, outputs
    poisoned; an aliased parameter is the same array as its target."""
    arrays = {}
    for index, param in enumerate(params):
        name, shape, dtype = param["name"], param["shape"], np.dtype(param["dtype"])
        if name in aliases:
            arrays[name] = arrays[aliases[name]]
        elif name.startswith("out"):
            arrays[name] = np.full(shape, POISON & ((1 << 8 * dtype.itemsize) - 1), dtype)
        else:
            arrays[name] = make_input(seed, index, 8 * dtype.itemsize, int(np.prod(shape))).reshape(shape)
    return arrays


def kernel_func(fn):
    return fn.module.body.operations[0].regions[0].blocks[0].operations[0]


RACY_EVERY = 10  # of block kernels, every tenth drops a barrier


def prepare(seed, skip=(), repeats=None, name=None, kind="thread", racy=False):
    """One generated kernel (a reducer's variant with `skip` and `repeats`,
    named `name` so that variants of one seed can share a PTX module) with
    inputs and the interpreter's verdict, or a reason it was not compared.
    A block kernel (gen_block.py) is also judged for races: `racy` ones
    must have one, the others none."""
    import gen
    import gen_atomics
    import gen_block
    import gen_collectives
    import interp
    import tile_mlir
    from tile_mlir import script as T
    rng = random.Random(seed)
    try:
        if kind == "atomics":
            # The seed's place after --seed's base names the form.
            spec = gen_atomics.generate(seed % 1_000_003, name or f"k{seed}")
        elif kind == "collectives":
            spec = gen_collectives.generate(seed % 1_000_003, name or f"k{seed}")
        elif kind in ("block", "tensor"):
            spec = gen_block.generate(rng, name or f"k{seed}", racy=racy, tensor=kind == "tensor")
        else:
            spec = gen.generate(rng, name or f"k{seed}", frozenset(skip), repeats)
    except T.TileError as error:
        return {"seed": seed, "rejected": str(error)}
    try:
        kernel = tile_mlir.compile(spec.fn, target="sm_90")
    except tile_mlir.CompileError as error:
        return {"seed": seed, "rejected": str(error)}
    params = [{"name": p.name, "shape": list(p.shape), "dtype": p.dtype, "written": p.written}
              for p in kernel.params]
    inputs = kernel_inputs(seed, params, spec.aliases)
    hazards = []
    try:
        out = interp.run(kernel_func(spec.fn), {n: a.tobytes() for n, a in inputs.items()},
                         spec.fn.grid, spec.fn.block, spec.aliases, hazards)
    except interp.NotCovered as why:
        return {"seed": seed, "not_covered": str(why)}
    if racy:
        if not hazards:
            return {"seed": seed, "error": "a kernel that drops a barrier between a store and another "
                                           "thread's load was not reported as racy"}
        entry = _entry(seed, kernel.name, kernel.ptx, spec, params, out)
        entry["hazards"] = [str(h) for h in hazards]
        return {"racy": entry}
    if hazards:
        return {"seed": seed, "error": f"a race-free kernel was reported racy: {hazards[0]}"}
    return _entry(seed, kernel.name, kernel.ptx, spec, params, out)


def prepare_module(seeds):
    """Several generated kernels as one .mlir module of several gpu.funcs,
    compiled by compile_module (the tile-ptx path) into one PTX text, each
    function interpreted from the parsed module text."""
    import gen
    import interp
    import tile_mlir
    from mlir import ir
    specs = [(seed, gen.generate(random.Random(seed), f"k{seed}")) for seed in seeds]
    funcs = []
    for _, spec in specs:
        text = str(spec.fn.module)
        body = text[text.index("gpu.func"):]
        funcs.append(body[:body.rindex("}", 0, body.rindex("}"))].rstrip())
    module_text = ("module attributes {gpu.container_module} {\n  gpu.module @kernels {\n" + "\n".join(funcs) +
                   "\n  }\n}\n")
    try:
        ptx = tile_mlir.compile_module(module_text, chip="sm_90")["kernels"].decode()
    except tile_mlir.CompileError as error:
        return [{"seed": seeds[0], "rejected": f"module of {seeds}: {error}"}]
    entries = []
    with ir.Context():
        module = ir.Module.parse(module_text)
        functions = {ir.StringAttr(op.attributes["sym_name"]).value: op
                     for op in module.body.operations[0].regions[0].blocks[0].operations}
        for seed, spec in specs:
            params = [{"name": n, "shape": list(t.shape), "dtype": t.dtype, "written": n in spec.fn.written}
                      for n, t in spec.fn.params]
            inputs = kernel_inputs(seed, params, spec.aliases)
            try:
                out = interp.run(functions[f"k{seed}"], {n: a.tobytes() for n, a in inputs.items()},
                                 spec.fn.grid, spec.fn.block, spec.aliases)
            except interp.NotCovered as why:
                entries.append({"seed": seed, "not_covered": str(why)})
                continue
            entries.append(_entry(seed, f"k{seed}", None, spec, params, out, ["module"]))
    kept = [e for e in entries if "params" in e]
    if kept:
        kept[0]["ptx"] = ptx
    return entries


def _entry(seed, name, ptx, spec, params, out, extra=()):
    written = [p["name"] for p in params if p["written"]]
    # Only defined bytes are kept: the mask, then those bytes in order.
    return {
        "seed": seed, "name": name, "ptx": ptx, "grid": list(spec.fn.grid), "block": list(spec.fn.block),
        "ops": spec.ops, "features": sorted(set(spec.features) | set(extra)), "params": params,
        "aliases": spec.aliases,
        "defined": {n: base64.b64encode(np.packbits(out[n][1]).tobytes()).decode() for n in written},
        "expected": {n: base64.b64encode(out[n][0][out[n][1]].tobytes()).decode() for n in written},
    }


def merge_ptx(texts):
    """One PTX module of many: the newest header, then every kernel's body
    (kernel names are unique per seed)."""
    texts = [t for t in texts if t]
    versions = [re.search(r"^\.version (\d+)\.(\d+)", t, re.M).groups() for t in texts]
    major, minor = max((int(a), int(b)) for a, b in versions)
    bodies = [re.split(r"^\.address_size 64\n", t, maxsplit=1, flags=re.M)[1] for t in texts]
    return f".version {major}.{minor}\n.target sm_90\n.address_size 64\n" + "\n".join(bodies)


def build(args):
    entries, rejected, not_covered, failures, racy = [], [], [], [], []
    start = time.time()
    k = 0
    kind = getattr(args, "kind", "thread")
    block = kind in ("block", "tensor", "atomics", "collectives")
    # Explicit seeds (--seeds) rebuild kernels of earlier campaigns one by
    # one, each racy or not as its campaign drew it.
    explicit = [int(s) for s in args.seeds.split(",")] if getattr(args, "seeds", None) else None
    total = len(explicit) if explicit else args.kernels
    while k < total:
        seed = explicit[k] if explicit else args.seed * 1_000_003 + k
        # Every fifth thread kernel starts a module of three gpu.funcs.
        group = ([seed + i for i in range(min(3, args.kernels - k))] if k % 5 == 0 and not block and not explicit
                 else [seed])
        k += len(group)
        try:
            if kind in ("atomics", "collectives"):
                prepared = [prepare(seed, kind=kind)]
            elif block:
                index = seed - seed // 1_000_003 * 1_000_003 if explicit else k - 1
                prepared = [prepare(seed, kind=kind, racy=(index + 1) % RACY_EVERY == 0)]
            else:
                prepared = prepare_module(group) if len(group) > 1 else [prepare(seed)]
        except Exception:  # noqa: BLE001 - a crash of the generator or interpreter is a finding
            failures.append({"seed": seed, "error": traceback.format_exc()[-1500:]})
            continue
        for entry in prepared:
            if "rejected" in entry:
                rejected.append(entry)
            elif "not_covered" in entry:
                not_covered.append(entry)
            elif "error" in entry:
                failures.append(entry)
            elif "racy" in entry:
                racy.append(entry["racy"])
            else:
                entries.append(entry)
    chunks = []
    for at in range(0, len(entries), CHUNK):
        group = entries[at:at + CHUNK]
        chunks.append({"ptx": merge_ptx([e.pop("ptx") for e in group]), "kernels": group})
    bundle = {"chunks": chunks, "rejected": rejected, "not_covered": not_covered, "failures": failures,
              "racy": racy, "seconds": round(time.time() - start, 1)}
    if args.bundle:
        os.makedirs(os.path.dirname(os.path.abspath(args.bundle)), exist_ok=True)
        with gzip.open(args.bundle, "wt") as f:
            json.dump(bundle, f)
    print(f"{len(entries)} kernels, {len(rejected)} rejected by the compiler, {len(not_covered)} not covered, "
          f"{len(failures)} generator or interpreter failures, {len(racy)} racy kernels reported racy, "
          f"{bundle['seconds']} s")
    for entry in (rejected + failures)[:5]:
        print("FINDING", entry.get("seed"), (entry.get("rejected") or entry.get("error"))[-600:])
    return 1 if rejected or failures else 0


_FLOAT_LANES = {8: (("e5m2", 5, 2), ("e4m3", 4, 3)), 16: (("f16", 5, 10), ("bf16", 8, 7)),
                32: (("f32", 8, 23),), 64: (("f64", 11, 52),)}


def _lane_nan(x, fmt, exp_bits, man_bits):
    if fmt == "e4m3":
        return x & 0x7F == 0x7F
    return (x >> man_bits) & ((1 << exp_bits) - 1) == (1 << exp_bits) - 1 and x & ((1 << man_bits) - 1) != 0


def nan_payload_only(got, want, bits):
    """Whether got and want differ only in the payloads of NaNs, lane by
    lane for some float lane width (PTX leaves payloads to the chip)."""
    for lane in (8, 16, 32, 64):
        if lane > bits:
            break
        for fmt, exp_bits, man_bits in _FLOAT_LANES[lane]:
            lanes = [((int(got) >> (k * lane)) & ((1 << lane) - 1), (int(want) >> (k * lane)) & ((1 << lane) - 1))
                     for k in range(bits // lane)]
            if all(g == w or (_lane_nan(g, fmt, exp_bits, man_bits) and _lane_nan(w, fmt, exp_bits, man_bits))
                   for g, w in lanes):
                return True
    return False


def run_chunk(job, skip=(), progress=None):
    """Launches the kernels of one chunk in this process and compares. With
    an optimization level, the chunk's PTX is assembled by the local ptxas
    at that level instead of by the driver's JIT (which optimizes fully).
    Kernels whose seeds are in `skip` are not launched; before each launch
    its seed is written to the file `progress`, so that a watchdog can name
    a kernel that never returns."""
    from tile_mlir import runtime
    chunk, opt = job
    result = {"kernels": 0, "compared_bytes": 0, "mismatched_kernels": [], "nan_bits_only_kernels": 0,
              "features": {}}
    drv = runtime.driver()
    image = chunk["ptx"].encode() + b"\0"
    if opt is not None:
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "k.ptx"), "w") as f:
                f.write(chunk["ptx"])
            subprocess.run(["ptxas", "-arch=sm_90", f"-O{opt}", os.path.join(tmp, "k.ptx"), "-o",
                            os.path.join(tmp, "k.cubin")], check=True)
            with open(os.path.join(tmp, "k.cubin"), "rb") as f:
                image = f.read()
    module = drv.load_module(image)
    for entry in chunk["kernels"]:
        if entry["seed"] in skip:
            continue
        params = [runtime.Param(p["name"], tuple(p["shape"]), p["dtype"], p["written"]) for p in entry["params"]]
        kernel = runtime.Kernel(entry["name"], "", None, "sm_90", params, tuple(entry["grid"]),
                                tuple(entry["block"]))
        kernel._module = module
        arrays = kernel_inputs(entry["seed"], entry["params"], entry["aliases"])
        if progress:
            with open(progress, "w") as f:
                f.write(str(entry["seed"]))
        kernel(*[arrays[p.name] for p in params])
        bad = []
        for p in params:
            if p.name not in entry["expected"]:
                continue
            got = arrays[p.name].reshape(-1)
            size = got.size * got.itemsize
            defined = np.unpackbits(np.frombuffer(base64.b64decode(entry["defined"][p.name]), np.uint8))[:size]
            defined = defined.astype(bool)
            want_bytes = np.zeros(size, np.uint8)
            want_bytes[defined] = np.frombuffer(base64.b64decode(entry["expected"][p.name]), np.uint8)
            want = want_bytes.view(got.dtype)
            whole = defined.reshape(got.size, got.itemsize).all(axis=1)
            result["compared_bytes"] += int(defined.sum())
            # Every bit is compared: the interpreter models the NaNs the H200
            # makes (hardware_nans) and leaves undefined what varies. A
            # difference between two NaNs at some lane width is labelled, to
            # sort the report, and is a mismatch all the same.
            for i in np.nonzero((got != want) & whole)[0]:
                bad.append({"param": p.name, "element": int(i), "got": hex(int(got[i])), "want": hex(int(want[i])),
                            "nan_bits": nan_payload_only(got[i], want[i], got.itemsize * 8)})
        result["kernels"] += 1
        result["nan_bits_only_kernels"] += bool(bad) and all(b["nan_bits"] for b in bad)
        for feature in entry["features"]:
            result["features"][feature] = result["features"].get(feature, 0) + 1
        if bad:
            # The hardware's outputs travel back, so a mismatch is analysed
            # (and reduced) here with the interpreter.
            outputs = {p.name: base64.b64encode(arrays[p.name].tobytes()).decode()
                       for p in params if p.name in entry["expected"]}
            result["mismatched_kernels"].append({"seed": entry["seed"], "name": entry["name"],
                                                 "features": entry["features"],
                                                 "mismatches": len(bad), "first": bad[:4], "outputs": outputs})
    return result


def run_chunk_command(args):
    """`run-chunk`: one chunk of a bundle, in a process of its own (the
    watchdog's child): its result as JSON."""
    with gzip.open(args.bundle, "rt") as f:
        chunk = json.load(f)["chunks"][args.chunk]
    skip = {int(s) for s in args.skip.split(",") if s}
    result = run_chunk((chunk, args.ptxas_opt), skip, args.progress)
    with open(args.out, "w") as f:
        json.dump(result, f)
    return 0


def guarded_chunk(job):
    """Runs one chunk in a child process under a watchdog: a kernel that
    does not return within the chunk's time limit, or whose launch fails
    (a CUDA error), is named (the progress file), skipped, and the chunk
    run again without it. Returns the result and those kernels."""
    import subprocess
    import tempfile
    bundle, index, opt, limit, kernels = job
    skip, hung = [], []
    with tempfile.TemporaryDirectory() as tmp:
        progress, out = os.path.join(tmp, "progress"), os.path.join(tmp, "result.json")
        while True:
            command = [sys.executable, os.path.abspath(__file__), "run-chunk", bundle, str(index), out,
                       "--progress", progress, "--skip", ",".join(map(str, skip))]
            if opt is not None:
                command += ["--ptxas-opt", str(opt)]
            try:
                subprocess.run(command, timeout=limit, check=True, capture_output=True, text=True)
            except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as failure:
                with open(progress) as f:
                    seed = int(f.read())
                skip.append(seed)
                how = "never returned" if isinstance(failure, subprocess.TimeoutExpired) else \
                    f"failed: {(failure.stderr or '')[-300:]}"
                hung.append({"seed": seed, "features": kernels.get(seed, []), "how": how})
                continue
            with open(out) as f:
                return json.load(f), hung


def run(args):
    with gzip.open(args.bundle, "rt") as f:
        bundle = json.load(f)
    start = time.time()
    # Each chunk runs in a process of its own (its own CUDA context; the
    # driver JIT-compiles the chunks in parallel), under a watchdog.
    from multiprocessing.pool import ThreadPool
    jobs = [(args.bundle, i, args.ptxas_opt, args.chunk_seconds,
             {e["seed"]: e["features"] for e in chunk["kernels"]}) for i, chunk in enumerate(bundle["chunks"])]
    with ThreadPool(args.jobs) as pool:
        guarded = pool.map(guarded_chunk, jobs, chunksize=1)
    results = [result for result, _ in guarded]
    report = {"kernels": 0, "compared_bytes": 0, "mismatched_kernels": [], "nan_bits_only_kernels": 0,
              "features": {}, "hung_kernels": [h for _, hung in guarded for h in hung]}
    for result in results:
        for key in ("kernels", "compared_bytes", "nan_bits_only_kernels"):
            report[key] += result[key]
        report["mismatched_kernels"] += result["mismatched_kernels"]
        for feature, count in result["features"].items():
            report["features"][feature] = report["features"].get(feature, 0) + count
    report["seconds"] = round(time.time() - start, 1)
    report["assembler"] = "driver JIT" if args.ptxas_opt is None else f"ptxas -O{args.ptxas_opt}"
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    print(f"{report['kernels']} kernels, {report['compared_bytes']} bytes compared, "
          f"{len(report['mismatched_kernels'])} kernels with mismatches "
          f"({report['nan_bits_only_kernels']} of them in NaN bits only), "
          f"{len(report['hung_kernels'])} that never returned, {report['seconds']} s")
    return 1 if report["mismatched_kernels"] or report["hung_kernels"] else 0


def launch_one(path):
    """Launches the kernel of one entry file (racecheck's child process)."""
    from tile_mlir import runtime
    with open(path) as f:
        entry = json.load(f)
    params = [runtime.Param(p["name"], tuple(p["shape"]), p["dtype"], p["written"]) for p in entry["params"]]
    kernel = runtime.Kernel(entry["name"], entry["ptx"], None, "sm_90", params, tuple(entry["grid"]),
                            tuple(entry["block"]))
    arrays = kernel_inputs(entry["seed"], entry["params"], entry["aliases"])
    kernel(*[arrays[p.name] for p in params])


def _sanitize(job):
    """compute-sanitizer's racecheck over one entry: hazards it reports."""
    import subprocess
    import tempfile
    entry, racy = job
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(entry, f)
    run = subprocess.run(["compute-sanitizer", "--tool", "racecheck", "--racecheck-report", "all",
                          sys.executable, os.path.abspath(__file__), "launch-one", f.name],
                         capture_output=True, text=True)
    os.unlink(f.name)
    text = run.stdout + run.stderr
    summary = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", text)
    hazards = int(summary.group(1)) if summary else None
    return {"seed": entry["seed"], "racy": racy, "interpreter_races": entry.get("hazards", [])[:2],
            "racecheck_hazards": hazards, "racecheck_summary": summary.group(0) if summary else text[-1200:],
            "agree": summary is not None and bool(hazards) == racy}


def racecheck(args):
    """The bundle's racy kernels, and as many race-free ones, under
    compute-sanitizer's racecheck (it sees shared memory only, which is
    where the racy class races): its verdicts against the interpreter's."""
    with gzip.open(args.bundle, "rt") as f:
        bundle = json.load(f)
    jobs = [(entry, True) for entry in bundle["racy"][:args.count]]
    for chunk in bundle["chunks"]:
        for entry in chunk["kernels"]:
            if len(jobs) >= 2 * min(args.count, len(bundle["racy"])):
                break
            if "exchange" in entry["features"]:
                jobs.append(({**entry, "ptx": chunk["ptx"]}, False))
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        results = pool.map(_sanitize, jobs, chunksize=1)
    report = {"kernels": len(results), "racy": sum(r["racy"] for r in results),
              "agree": sum(r["agree"] for r in results), "results": results}
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    print(f"{report['kernels']} kernels ({report['racy']} racy): racecheck agrees with the interpreter on "
          f"{report['agree']}")
    return 0 if report["agree"] == report["kernels"] else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("bundle", nargs="?")
    b.add_argument("--kernels", type=int, default=200)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--kind", choices=("thread", "block", "tensor", "atomics", "collectives"), default="thread")
    b.add_argument("--seeds", help="comma-separated seeds of earlier campaigns, instead of --kernels and --seed")
    c = sub.add_parser("check")
    c.add_argument("--kernels", type=int, default=60)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--kind", choices=("thread", "block", "tensor"), default="thread")
    r = sub.add_parser("run")
    r.add_argument("bundle")
    r.add_argument("report")
    r.add_argument("--jobs", type=int, default=min(12, os.cpu_count() or 1))
    r.add_argument("--ptxas-opt", type=int, choices=range(4), default=None,
                   help="assemble with ptxas at this -O level instead of the driver's JIT")
    r.add_argument("--chunk-seconds", type=float, default=60,
                   help="the watchdog's limit for one chunk: a kernel still running then never returns")
    rc = sub.add_parser("run-chunk")
    rc.add_argument("bundle")
    rc.add_argument("chunk", type=int)
    rc.add_argument("out")
    rc.add_argument("--progress")
    rc.add_argument("--skip", default="")
    rc.add_argument("--ptxas-opt", type=int, choices=range(4), default=None)
    s = sub.add_parser("racecheck")
    s.add_argument("bundle")
    s.add_argument("report")
    s.add_argument("--count", type=int, default=50, help="racy kernels, and as many race-free ones")
    s.add_argument("--jobs", type=int, default=8)
    one = sub.add_parser("launch-one")
    one.add_argument("entry")
    args = parser.parse_args(argv)
    if args.command == "run":
        return run(args)
    if args.command == "racecheck":
        return racecheck(args)
    if args.command == "launch-one":
        return launch_one(args.entry)
    if args.command == "run-chunk":
        return run_chunk_command(args)
    if args.command == "check":
        args.bundle = None
    return build(args)


if __name__ == "__main__":
    sys.exit(main())
