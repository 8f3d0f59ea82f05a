"""tile_mlir.interpret's speed on this machine's CPUs: seconds per kernel
at the sizes issue 56's newcomer ran (softmax over 4096 x 1024,
RMSNorm over 1024 x 4096 (the package's LayerNorm-class row kernel), a
4096^2 float32 transpose through swizzled shared memory (tutorial 3's
kernel, a block a 32 x 32 tile), the mma.sync GEMM at 256^3), and two
kernels on the Hopper paths (the one-launch split-K GEMM, attention
through tile_mlir.ops): this tree against the tree of commit
TILE_MLIR_BASELINE (default: HEAD), each measured in a process of its
own (its python/ on PYTHONPATH), in turn, ROUNDS times; the best round
counts. Building a kernel and its data is not timed, nor its first run
(this machine's first touches of fresh memory are slow and vary)."""

import json
import os
import sys
import time

KIND = "cpu"
ENTRIES = {}
ROUNDS = 3  # the best of each counts: one round's times moved by up to 30% on this 2-core VM


def transpose(n):
    """out = a^T for (n, n) float32: tutorial 3's kernel, one 32-thread
    block a 32 x 32 tile, through a swizzled shared tile."""
    from tile_mlir import script as T
    tiles = n // 32

    @T.function
    def transpose_tiles(A: T.Tensor((n, n), "float32"), Out: T.Tensor((n, n), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=tiles * tiles, block=32))
        lane, tile_id = T.thread_id(), T.block_id()
        row, col = tile_id // tiles * 32, tile_id % tiles * 32
        tile = T.alloc_shared((32, 32), "float32", align=128).swizzle(bits=5, base=2, shift=5)
        word = T.alloc_local((1, 1), "float32")
        for r in range(32):
            T.cuda.tile.apply(T.ptx["ld.global.f32"], word, A[row + r:row + r + 1, col + lane:col + lane + 1])
            T.cuda.tile.apply(T.ptx["st.shared.f32"], tile[r:r + 1, lane:lane + 1], word)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        for r in range(32):
            T.cuda.tile.apply(T.ptx["ld.shared.f32"], word, tile[lane:lane + 1, r:r + 1])
            T.cuda.tile.apply(T.ptx["st.global.f32"], Out[col + r:col + r + 1, row + lane:row + lane + 1], word)
    return transpose_tiles


def _kernels():
    """name: a function that builds the kernel and its data and returns
    the run (one interpretation) to time."""
    import numpy as np
    import tile_mlir
    from tile_mlir.kernels.configs import HopperGemmConfig, MmaGemmConfig
    from tile_mlir.kernels.gemm_hopper import hopper_gemm
    from tile_mlir.kernels.gemm_mma import gemm_mma
    from tile_mlir.kernels.rmsnorm import rmsnorm
    from tile_mlir.kernels.softmax import softmax
    rng = np.random.default_rng(0)

    def interpret(kernel, *arrays):
        return lambda: tile_mlir.interpret(kernel, *arrays)

    def softmax_case():
        x = rng.standard_normal((4096, 1024)).astype(np.float32)
        return interpret(softmax(4096, width=1024), x, np.zeros_like(x))

    def rmsnorm_case():
        x = rng.standard_normal((1024, 4096)).astype(np.float32)
        w = rng.standard_normal((4096,)).astype(np.float32)
        return interpret(rmsnorm(1024), x, w, np.zeros_like(x))

    def transpose_case():
        a = rng.standard_normal((4096, 4096)).astype(np.float32)
        return interpret(transpose(4096), a, np.zeros_like(a))

    def gemm_mma_case():
        a, b = (rng.integers(-2, 3, (256, 256)).astype(np.float16).view(np.uint16) for _ in range(2))
        config = MmaGemmConfig(group_m=1)
        return interpret(gemm_mma(256, 256, 256, "float16", config), a, b, np.zeros((256, 256), np.float32))

    def split_k_case():
        config = HopperGemmConfig(bn=64, stages=3, blocks=3, group_m=1, consumers=1, split_k=4)
        a = rng.integers(-2, 3, (20, 512)).astype(np.float16).view(np.uint16)
        bt = rng.integers(-2, 3, (72, 512)).astype(np.float16).view(np.uint16)
        return interpret(hopper_gemm(20, 72, 512, "float16", config, partial=True), a, bt,
                         np.zeros((4, 20, 72), np.float32))

    def attention_case():
        import torch
        import tile_mlir.ops as ops
        q, k, v = (torch.randn(1, 1, 128, 64).to(torch.bfloat16) for _ in range(3))
        ops.attention(q, k, v)  # builds the kernel (the ops cache)
        return lambda: ops.attention(q, k, v)

    return {"softmax_4096x1024": softmax_case, "rmsnorm_1024x4096": rmsnorm_case,
            "transpose_4096^2": transpose_case, "gemm_mma_256^3": gemm_mma_case,
            "hopper_split_k_20x72x512": split_k_case, "attention_128x128_d64": attention_case}


def measure():
    """In this process (the tree on PYTHONPATH): each kernel's seconds
    (`TILE_MLIR_BENCH_ONLY`: only the names containing it)."""
    import warnings
    warnings.simplefilter("ignore")
    only = os.environ.get("TILE_MLIR_BENCH_ONLY", "")
    seconds = {}
    for name, prepare in _kernels().items():
        if only not in name:
            continue
        run = prepare()
        run()  # once untimed: a fresh process's first touches of memory cost more than the work
        start = time.perf_counter()
        run()
        seconds[name] = time.perf_counter() - start
    print(json.dumps(seconds))


def run(report_path):
    from . import trees  # here: the measuring process runs this file as a script
    best, baseline = trees.against_baseline(os.path.abspath(__file__), ROUNDS)
    kernels = {name: {"seconds": {"baseline": round(before, 3), "this_tree": round(after, 3)},
                      "ratio_vs_baseline": round(before / after, 3)} for name, (before, after) in best.items()}
    report = {"device": trees.machine(), "baseline": baseline, "rounds": ROUNDS, "kernels": kernels}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__" and sys.argv[1:] == ["--measure"]:
    measure()
