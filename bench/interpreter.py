"""tile_mlir.interpret's speed on this machine's CPUs: seconds per kernel
(the newcomer kernels of issue 56: softmax, RMSNorm, the mma.sync GEMM
at 256^3, the Hopper GEMM's one-launch split-K, attention through
tile_mlir.ops), this tree against the tree of commit
TILE_MLIR_BASELINE (default: HEAD), each measured in a process of its
own (its python/ on PYTHONPATH), in turn, ROUNDS times; the best round
counts."""

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

KIND = "cpu"
ENTRIES = {}
ROUNDS = 2
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _kernels():
    """name: a function that runs the kernel once in the interpreter."""
    import numpy as np
    import tile_mlir
    from tile_mlir.kernels.configs import HopperGemmConfig, MmaGemmConfig
    from tile_mlir.kernels.gemm_hopper import hopper_gemm
    from tile_mlir.kernels.gemm_mma import gemm_mma
    from tile_mlir.kernels.rmsnorm import rmsnorm
    from tile_mlir.kernels.softmax import softmax
    rng = np.random.default_rng(0)

    def run_softmax():
        x = rng.standard_normal((64, 4096)).astype(np.float32)
        tile_mlir.interpret(softmax(64), x, np.zeros_like(x))

    def run_rmsnorm():
        x = rng.standard_normal((32, 4096)).astype(np.float32)
        w = rng.standard_normal((4096,)).astype(np.float32)
        tile_mlir.interpret(rmsnorm(32), x, w, np.zeros_like(x))

    def run_gemm_mma():
        a, b = (rng.integers(-2, 3, (256, 256)).astype(np.float16).view(np.uint16) for _ in range(2))
        config = MmaGemmConfig(group_m=1)
        tile_mlir.interpret(gemm_mma(256, 256, 256, "float16", config), a, b, np.zeros((256, 256), np.float32))

    def run_split_k():
        config = HopperGemmConfig(bn=64, stages=3, blocks=3, group_m=1, consumers=1, split_k=4)
        a = rng.integers(-2, 3, (20, 512)).astype(np.float16).view(np.uint16)
        bt = rng.integers(-2, 3, (72, 512)).astype(np.float16).view(np.uint16)
        w = np.zeros((4, 20, 72), np.float32)
        tile_mlir.interpret(hopper_gemm(20, 72, 512, "float16", config, partial=True), a, bt, w)

    def run_attention():
        import torch
        import tile_mlir.ops as ops
        q, k, v = (torch.randn(1, 1, 128, 64).to(torch.bfloat16) for _ in range(3))
        ops.attention(q, k, v)

    return {"softmax_64x4096": run_softmax, "rmsnorm_32x4096": run_rmsnorm, "gemm_mma_256^3": run_gemm_mma,
            "hopper_split_k_20x72x512": run_split_k, "attention_128x128_d64": run_attention}


def measure():
    """In this process (the tree on PYTHONPATH): each kernel's seconds,
    the first run (compiling the kernel) set apart."""
    import warnings
    warnings.simplefilter("ignore")
    seconds = {}
    for name, run in _kernels().items():
        run()  # builds the kernel (and fills the caches)
        start = time.perf_counter()
        run()
        seconds[name] = time.perf_counter() - start
    print(json.dumps(seconds))


def _tree(rev, into):
    """A worktree of `rev` with this tree's build outputs in python/ (the
    compiled extension, the generated dialect module: git ignores them)."""
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", into, rev], check=True, capture_output=True)
    built = subprocess.run(["git", "-C", ROOT, "ls-files", "--others", "--ignored", "--exclude-standard", "python"],
                           check=True, capture_output=True, text=True).stdout.split()
    for path in built:
        if "__pycache__" not in path:
            shutil.copy(os.path.join(ROOT, path), os.path.join(into, path))
    return into


def _measured(tree):
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "python"),
               TILE_MLIR_CACHE_DIR=tempfile.mkdtemp(prefix="interp-bench-"))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--measure"], env=env, capture_output=True,
                          text=True)
    if done.returncode:
        raise RuntimeError(f"measuring {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(report_path):
    rev = os.environ.get("TILE_MLIR_BASELINE", "HEAD")
    with tempfile.TemporaryDirectory() as tmp:
        base = _tree(rev, os.path.join(tmp, "base"))
        try:
            rounds = [(_measured(base), _measured(ROOT)) for _ in range(ROUNDS)]
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base], capture_output=True)
    kernels = {}
    for name in rounds[0][0]:
        before, after = (min(r[i][name] for r in rounds) for i in (0, 1))
        kernels[name] = {"seconds": {"baseline": round(before, 3), "this_tree": round(after, 3)},
                         "ratio_vs_baseline": round(before / after, 3)}
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", rev], capture_output=True, text=True)
    report = {"device": f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores",
              "baseline": f"{rev} ({commit.stdout.strip()})", "rounds": ROUNDS, "kernels": kernels}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__" and sys.argv[1:] == ["--measure"]:
    measure()
