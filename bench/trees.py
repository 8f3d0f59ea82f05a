"""Another commit's tree beside this one, for the CPU benchmarks that time
this tree against a baseline in processes of their own (interpreter,
ops_host)."""

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def worktree(rev, into):
    """A worktree of `rev` with this tree's build outputs in python/ (the
    compiled extension, the generated dialect module: git ignores them)."""
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", into, rev], check=True, capture_output=True)
    built = subprocess.run(["git", "-C", ROOT, "ls-files", "--others", "--ignored", "--exclude-standard", "python"],
                           check=True, capture_output=True, text=True).stdout.split()
    for path in built:
        if "__pycache__" not in path:
            shutil.copy(os.path.join(ROOT, path), os.path.join(into, path))
    with open(os.path.join(into, "python", "tile_mlir", "ptx.py"), "a") as ptx:
        ptx.write(EXTENSION_FIELDS)
    return into


def remove(tree):
    subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", tree], capture_output=True)


def measured(script, tree):
    """The JSON line that `script --measure` prints last, run with `tree`'s
    python/ on PYTHONPATH and a fresh cache."""
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "python"),
               TILE_MLIR_CACHE_DIR=tempfile.mkdtemp(prefix="bench-tree-"))
    done = subprocess.run([sys.executable, script, "--measure"], env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"measuring {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def against_baseline(script, rounds):
    """({name: (the baseline's best, this tree's best)} over `rounds`
    rounds in turn, the baseline's name): the baseline the tree of commit
    TILE_MLIR_BASELINE (default: HEAD); each measurement `script --measure`'s
    {name: a time}, the least of the rounds counting (one round's times
    move by up to 30% on the 2-core build machine)."""
    rev = os.environ.get("TILE_MLIR_BASELINE", "HEAD")
    with tempfile.TemporaryDirectory() as tmp:
        base = worktree(rev, os.path.join(tmp, "base"))
        try:
            results = [(measured(script, base), measured(script, ROOT)) for _ in range(rounds)]
        finally:
            remove(base)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", rev], capture_output=True, text=True)
    best = {name: tuple(min(r[i][name] for r in results) for i in (0, 1))
            for name in results[0][1] if name in results[0][0]}
    return best, f"{rev} ({commit.stdout.strip()})"


def machine():
    """The CPU the benchmarks ran on, as their reports name it."""
    return f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores"


# The baseline's Python runs on this tree's compiled extension, whose form
# records may carry fields added since (e.g. arch_only): its ptx._form
# keeps only the fields its own dataclasses have (nothing else of the
# baseline is changed; a tree with the same fields is unaffected).
EXTENSION_FIELDS = """

def _form(raw, _baseline_form=_form):  # appended by bench/trees.py
    import dataclasses
    known, known_operand = ({f.name for f in dataclasses.fields(c)} for c in (Form, Operand))
    raw = {k: v for k, v in raw.items() if k in known}
    raw["operands"] = [{k: v for k, v in op.items() if k in known_operand} for op in raw["operands"]]
    return _baseline_form(raw)
"""
