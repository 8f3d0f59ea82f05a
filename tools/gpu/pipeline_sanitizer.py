#!/usr/bin/env python3
"""The pipeline difftest class (tools/difftest/pipelines.py) under
compute-sanitizer's racecheck and synccheck on the GPU, against the
interpreter's verdicts (issue 60, item 5).

    python tools/gpu/pipeline_sanitizer.py build build/pipelines 2000    # here
    python3 tools/gpu/pipeline_sanitizer.py sanitize build/pipelines OUT [racecheck,synccheck [SECONDS]]  # there
    python tools/gpu/pipeline_sanitizer.py judge build/pipelines OUT results/pipeline_sanitizer.json

`build` takes kernels from the campaign's stream (seed 0) until it has
`count` instances, at least half of them racy, leaving out those that
hang (a GPU would hang too), compiles each distinct kernel once under its
own name, and records the interpreter's verdict of each. `sanitize` runs
every instance once under each tool, a process per mutation (a kernel
that hangs or faults takes only its group down), and keeps the raw logs.
`judge` reads which kernels each tool reported, and compares.
"""

import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "difftest"))
sys.path.append(os.path.join(ROOT, "python"))  # after an installed tile_mlir

TOOLS = ("racecheck", "synccheck")


def build(out_dir, count):
    import pipelines as P
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    names, instances, racy = {}, [], 0
    index = 0
    while len(instances) < count or racy < count // 2:
        p = P.random_pipeline(rng)
        seed, index = index, index + 1
        want = P.expected(p)
        if want == "hang" or (want == "clean" and len(instances) - racy >= count // 2 + count % 2):
            continue
        if p not in names:
            names[p] = f"pipeline_{len(names)}"
            verdict = P.judge(p)
            kernel = tile_mlir.compile(P.build(p, names[p]), target="sm_90a", cache=False)
            kernel.save(os.path.join(out_dir, names[p] + ".json"))
            names[p] = (names[p], verdict["verdict"])
        racy += want != "clean"
        instances.append({"kernel": names[p][0], "seed": seed, "mutation": p.mutation, "expected": want,
                          "interpreter": names[p][1], "spec": list(p.__dict__.values())})
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(instances, f)
    print(f"{len(instances)} instances ({racy} racy) of {len(names)} kernels")


def launch(out_dir, mutation):
    """Every instance of `mutation`, in order, each launch synchronized and
    announced on stdout."""
    import pipelines as P
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "manifest.json")) as f:
        instances = [i for i in json.load(f) if i["mutation"] == mutation]
    loaded = {}
    for instance in instances:
        name = instance["kernel"]
        if name not in loaded:
            loaded[name] = runtime.load(os.path.join(out_dir, name + ".json"))
        p = P.Pipeline(*instance["spec"])
        _, arrays = P.inputs(p, instance["seed"])
        print(f"@@ launch {name} {instance['seed']}", flush=True)
        loaded[name](*arrays)
        print(f"@@ done {name} {instance['seed']}", flush=True)


def sanitize(out_dir, logs, tools=TOOLS, seconds=240):
    """Each tool over each mutation's instances, a process each of at
    most `seconds` (what it did not reach is "not run")."""
    os.makedirs(logs, exist_ok=True)
    with open(os.path.join(out_dir, "manifest.json")) as f:
        mutations = sorted({i["mutation"] for i in json.load(f)})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python"),
                                                         os.path.join(ROOT, "tools", "difftest")])}
    for tool in tools:
        for mutation in mutations:
            command = ["compute-sanitizer", "--tool", tool, "--print-limit", "100000"]
            if tool == "racecheck":
                command += ["--racecheck-report", "all"]
            command += [sys.executable, os.path.abspath(__file__), "launch", out_dir, mutation]
            try:
                run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=seconds)
                text, code = run.stdout + run.stderr, run.returncode
            except subprocess.TimeoutExpired as error:
                text, code = (error.stdout or b"").decode() + (error.stderr or b"").decode(), "timeout"
            with open(os.path.join(logs, f"{tool}.{mutation}.log"), "w") as f:
                f.write(f"exit {code}\n{text}")
            print(tool, mutation, code, flush=True)


def reported(text):
    """{kernel: hazards reported} from one log, by the kernel's name in each
    report (a launch's own markers say where each kernel ran)."""
    found = collections.Counter()
    current = None
    for line in text.splitlines():
        marker = re.match(r"@@ launch (\S+)", line)
        if marker:
            current = marker.group(1)
            continue
        if re.match(r"=+ (Error|Warning): ", line) and current:
            found[current] += 1
    return found


def judge(out_dir, logs, report_path):
    with open(os.path.join(out_dir, "manifest.json")) as f:
        instances = json.load(f)
    by_tool, completed = {}, {}
    for tool in TOOLS:
        by_tool[tool], completed[tool] = collections.Counter(), set()
        for name in sorted(os.listdir(logs)):
            if name.startswith(tool + "."):
                text = open(os.path.join(logs, name)).read()
                by_tool[tool].update(reported(text))
                completed[tool] |= set(re.findall(r"@@ done (\S+ \d+)", text))
    rows = collections.Counter()
    for instance in instances:
        key = f"{instance['kernel']} {instance['seed']}"
        verdicts = []
        for tool in TOOLS:
            ran = key in completed[tool]
            verdicts.append(("reported" if by_tool[tool][instance["kernel"]] else "silent") if ran else "not run")
        rows[(instance["mutation"], instance["expected"], instance["interpreter"]) + tuple(verdicts)] += 1
    table = [{"mutation": m, "expected": e, "interpreter": i, "racecheck": r, "synccheck": s, "instances": n}
             for (m, e, i, r, s), n in sorted(rows.items())]
    report = {"instances": len(instances), "racy": sum(i["expected"] != "clean" for i in instances),
              "kernels": len({i["kernel"] for i in instances}), "table": table}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "build":
        build(sys.argv[2], int(sys.argv[3]))
    elif command == "launch":
        launch(sys.argv[2], sys.argv[3])
    elif command == "sanitize":
        sanitize(sys.argv[2], sys.argv[3], sys.argv[4].split(",") if len(sys.argv) > 4 else TOOLS,
                 int(sys.argv[5]) if len(sys.argv) > 5 else 240)
    else:
        judge(sys.argv[2], sys.argv[3], sys.argv[4])
