#!/usr/bin/env python3
"""The interpreter's race verdicts against compute-sanitizer's racecheck on
the GPU, for shared-memory kernels with and without the barrier that orders
them (racecheck sees shared memory only).

    python tools/gpu/racecheck.py build build/racecheck      # here: compile, interpret
    python3 tools/gpu/racecheck.py judge build/racecheck OUT.json   # there: sanitize

`build` compiles each kernel, runs it in tile_mlir.interpret and stores the
artifact with the interpreter's verdict (races found, and their program
points); `judge` runs each under `compute-sanitizer --tool racecheck` and
records whether racecheck reported a hazard, and whether the two agree.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.append(os.path.join(ROOT, "python"))  # after an installed tile_mlir


def kernels():
    """name -> @T.function: neighbours through shared memory, with each of
    the barriers that order them, without one, and with the barrier in the
    wrong place (before the stores)."""
    from tile_mlir import script as T

    def rotate(barrier, before_store=False):
        @T.function
        def k(A: T.Tensor((256, 1), "float32"), Out: T.Tensor((256, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=64))
            S = T.alloc_shared((64, 1), "float32")
            t = T.thread_id()
            i = T.block_id() * 64 + t
            r = T.alloc_local((1, 1), "float32")
            T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[i:i + 1])
            if barrier and before_store:
                T.cuda.tile.apply(T.ptx[barrier], T.uint32(0))
            T.cuda.tile.apply(T.ptx["st.shared.f32"], S[t:t + 1], r)
            if barrier and not before_store:
                T.cuda.tile.apply(T.ptx[barrier], T.uint32(0))
            n = (t + 1) % 64
            T.cuda.tile.apply(T.ptx["ld.shared.f32"], r, S[n:n + 1])
            T.cuda.tile.apply(T.ptx["st.global.f32"], Out[i:i + 1], r)
        return k

    return {"shared_no_barrier": rotate(None), "shared_bar_sync": rotate("bar.sync"),
            "shared_barrier_sync": rotate("barrier.sync"),
            "shared_barrier_too_early": rotate("bar.sync", before_store=True)}


def build(out_dir):
    import numpy as np
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    verdicts = {}
    for name, fn in kernels().items():
        kernel = tile_mlir.compile(fn, target="sm_90")
        kernel.save(os.path.join(out_dir, f"{name}.json"))
        a = np.arange(256, dtype="float32").reshape(256, 1)
        try:
            tile_mlir.interpret(fn, a, np.zeros_like(a))
            verdicts[name] = {"races": []}
        except tile_mlir.HazardError as error:
            verdicts[name] = {"races": [f"{h.kind}: {os.path.basename(h.first)} / "
                                        f"{os.path.basename(h.second)}" for h in error.hazards]}
        print(name, verdicts[name])
    with open(os.path.join(out_dir, "verdicts.json"), "w") as f:
        json.dump(verdicts, f, indent=1)


def launch(path):
    """Runs one artifact once (under the sanitizer)."""
    import numpy as np
    from tile_mlir import runtime
    kernel = runtime.load(path)
    a = np.arange(256, dtype="float32").reshape(256, 1)
    kernel(a, np.zeros_like(a))


def judge(out_dir, report_path):
    with open(os.path.join(out_dir, "verdicts.json")) as f:
        verdicts = json.load(f)
    report = {}
    for name, verdict in verdicts.items():
        run = subprocess.run(["compute-sanitizer", "--tool", "racecheck", "--racecheck-report", "all",
                              sys.executable, os.path.abspath(__file__), "launch",
                              os.path.join(out_dir, f"{name}.json")],
                             capture_output=True, text=True, env={**os.environ,
                                                                  "PYTHONPATH": os.path.join(ROOT, "python")})
        text = run.stdout + run.stderr
        summary = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)",
                            text)
        hazards = int(summary.group(1)) if summary else None
        found = bool(hazards)
        report[name] = {"interpreter_races": verdict["races"], "racecheck_hazards": hazards,
                        "racecheck_summary": summary.group(0) if summary else text[-1500:],
                        "agree": summary is not None and found == bool(verdict["races"])}
        print(name, report[name])
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    return 0 if all(r["agree"] for r in report.values()) else 1


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "build":
        build(sys.argv[2])
    elif command == "launch":
        launch(sys.argv[2])
    else:
        sys.exit(judge(sys.argv[2], sys.argv[3]))
