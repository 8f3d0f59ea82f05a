"""A difftest class of Hopper pipelines (issue 53): random rings of TMA
loads, mbarriers, consumers (ld.shared or wgmma) and epilogues (st.global
or a TMA store), each kernel clean or with one mutation whose verdict the
generator knows by construction, judged by the interpreter.

One warpgroup (128 threads) runs a ring of `stages` shared slots over
`blocks` k blocks of A (64 x 16 bf16 each, a TMA box with the 32-byte
swizzle). Thread 0 is the producer: it fills the first slots, then, after
the consumers free slot s (every thread arrives on empty[s]) and it has
waited for that phase, refills it with the block `stages` ahead. Every
block is consumed after a wait on full[s] for its phase:

- "ld": each thread adds 4 words of the slot (row t / 2, words 4 (t % 2)
  on) into 4 u32 accumulators;
- "wgmma": wgmma.mma_async m64n8k16 f32 += slot (A, by descriptor) times
  B (8 x 16, staged once through st.shared and fence.proxy.async), then
  wgmma.wait_group 0 before the slot is freed.

Each thread's 4 words then pass one shfl.sync.idx to their own lane
(identity) and are stored: "st" by st.global.v4, "tma" through a shared
buffer, fence.proxy.async, bar.sync and a TMA store (thread 0, waited).

Mutations (one per kernel, at k block `at`), with the verdict they must
get (VERDICTS): a skipped wait on full (the slot is read before its bytes
land: "async"); a skipped wait on empty before a refill (the TMA write
races the consumers' reads: "race"; with the wgmma consumer the producer
thread saw the wgmma that read the slot retire: "clean"); a skipped release (the producer's
wait for it never completes: "hang"); a skipped fence.proxy.async before
the TMA store ("proxy"); a skipped wgmma.wait_group before the slot is
freed and refilled ("wgmma"); the upper half-warps passing another
membermask to the shfl ("collective"). A mutation whose slot is never
refilled changes nothing the rules forbid: the verdict is "clean".

    python tools/difftest/pipelines.py --count 5000 --seed 0 \\
        --out tools/difftest/results/pipelines.json
"""


import argparse
import collections
import json
import os
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gpu"))

THREADS = 128
ROWS, COLS = 64, 16  # one k block of A: a 64 x 16 bf16 box
N = 8  # wgmma's N
MUTATIONS = ("none", "skip_full_wait", "skip_empty_wait", "skip_release", "skip_fence", "skip_wgmma_wait",
             "membermask")
LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
STORE = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
WGMMA = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"


@dataclass(frozen=True)
class Pipeline:
    stages: int  # ring slots, 1 to 4
    blocks: int  # k blocks, 1 to 6
    consumer: str  # "ld" or "wgmma"
    epilogue: str  # "st" or "tma"
    mutation: str  # one of MUTATIONS
    at: int  # the k block the mutation hits

    def refilled(self, block: int) -> bool:
        """Whether the slot of `block` is filled again later."""
        return block + self.stages < self.blocks


def expected(p: Pipeline) -> str:
    """The verdict the PTX ISA's rules give the kernel (see the module's
    docstring): "clean", or the hazard (or hang) its mutation makes."""
    if p.mutation == "skip_full_wait":
        return "async"
    if p.mutation == "skip_empty_wait":
        # The wgmma's reads are the slot's only ones, and the producer
        # (thread 0, the wgmma's warpgroup's) waited for it to retire.
        return "race" if p.consumer == "ld" else "clean"
    if p.mutation == "skip_release":
        return "hang" if p.refilled(p.at) else "clean"
    if p.mutation == "skip_fence":
        return "proxy"
    if p.mutation == "skip_wgmma_wait":
        return "wgmma" if p.refilled(p.at) else "clean"
    if p.mutation == "membermask":
        return "collective"
    return "clean"


def random_pipeline(rng) -> Pipeline:
    """A kernel of the class, its mutation only where it applies: a skipped
    empty wait where there is one (a refill), a skipped fence with the TMA
    store, a skipped wgmma wait with the wgmma consumer."""
    stages, blocks = int(rng.integers(1, 5)), int(rng.integers(1, 7))
    consumer, epilogue = ("ld", "wgmma")[rng.integers(2)], ("st", "tma")[rng.integers(2)]
    mutation = MUTATIONS[rng.integers(len(MUTATIONS))]
    at = int(rng.integers(blocks))
    if mutation == "skip_empty_wait":
        if blocks <= stages:
            mutation = "none"
        else:
            at = int(rng.integers(stages, blocks))  # the refill of block `at`
    if mutation == "skip_fence" and epilogue != "tma" or mutation == "skip_wgmma_wait" and consumer != "wgmma":
        mutation = "none"
    return Pipeline(stages, blocks, consumer, epilogue, mutation, at)


def build(p: Pipeline, name: str = "pipeline"):
    """The @T.function of `p`, named `name` (the GPU's sanitizer reports
    kernels by name): A (blocks * 64 x 16 bf16 bits), B (8 x 16), Out
    (128 x 4 words)."""
    from tile_mlir import script as T

    def pipeline(A: T.Tensor((p.blocks * ROWS, COLS), "uint16", tma=T.TensorMap((ROWS, COLS), "32B")),
                 B: T.Tensor((N, COLS), "uint16"),
                 Out: T.Tensor((THREADS, 4), "uint32", tma=T.TensorMap((THREADS, 4)))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        slots = [T.alloc_shared((ROWS, COLS), "uint16", align=1024).swizzle("32B") for _ in range(p.stages)]
        full = T.alloc_shared((p.stages,), "uint64", align=8)
        empty = T.alloc_shared((p.stages,), "uint64", align=8)
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        acc = T.alloc_local((1, 1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)), T.uint32(0))
        for s in range(p.stages):
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], full[s:s + 1], T.uint32(1), pred=t == 0)
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], empty[s:s + 1], T.uint32(THREADS),
                              pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        b_desc = _stage_b(T, p, B, t) if p.consumer == "wgmma" else None
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))

        def fill(block):
            s = block % p.stages
            with T.if_(t == 0):
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, full[s:s + 1],
                                  T.uint32(ROWS * COLS * 2))
                T.cuda.tile.apply(T.ptx[LOAD], slots[s], A.tensor_map, (0, block * ROWS), full[s:s + 1])

        def wait(bar, phase):
            with T.until(done):
                T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(phase))

        for block in range(min(p.stages, p.blocks)):
            fill(block)
        for block in range(p.blocks):
            s, phase = block % p.stages, block // p.stages % 2
            if not (p.mutation == "skip_full_wait" and p.at == block):
                wait(full[s:s + 1], phase)
            _consume(T, p, slots[s], acc, b_desc, t, skip_wait=p.mutation == "skip_wgmma_wait" and p.at == block)
            if not (p.mutation == "skip_release" and p.at == block):
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[s:s + 1])
            if p.refilled(block):
                if not (p.mutation == "skip_empty_wait" and p.at == block + p.stages):
                    with T.if_(t == 0):
                        wait(empty[s:s + 1], phase)
                fill(block + p.stages)
        if p.consumer == "wgmma":
            T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        _shuffle(T, p, acc, t)
        _store(T, p, acc, Out, t)

    pipeline.__name__ = pipeline.__qualname__ = name
    return T.function(pipeline)


def _stage_b(T, p, B, t):
    """B (8 x 16) into a swizzled shared tile through the generic proxy,
    fenced for the wgmma; its descriptor."""
    sb = T.alloc_shared((N, COLS), "uint16", align=256).swizzle("32B")
    word = T.alloc_local((1, 1), "uint32")
    with T.if_(t < N * COLS // 2):
        row, col = t // (COLS // 2), t % (COLS // 2)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], word, B.view("uint32")[row:row + 1, col:col + 1])
        T.cuda.tile.apply(T.ptx["st.shared.b32"], sb.view("uint32")[row:row + 1, col:col + 1], word)
    T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
    return sb.matrix_descriptor()


def _consume(T, p, slot, acc, b_desc, t, skip_wait):
    if p.consumer == "ld":
        words = T.alloc_local((1, 4), "uint32")
        row, half = t // 2, t % 2
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], words, slot.view("uint32")[row:row + 1, 4 * half:4 * half + 4])
        T.cuda.tile.apply(T.ptx["add.u32"], acc.reshape((4, 1)), acc.reshape((4, 1)), words.reshape((4, 1)))
        return
    d = acc.view("float32")
    T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    # scale-d true: D accumulates (the accumulators start at zero).
    T.cuda.tile.apply(T.ptx[WGMMA], d, slot.matrix_descriptor(), b_desc, t < THREADS, T.int32(1), T.int32(1),
                      T.uint32(0), T.uint32(0))
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
    if not skip_wait:
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))


def _shuffle(T, p, acc, t):
    """Each word to its own lane (identity), the membermask of the upper
    half-warps changed by the "membermask" mutation."""
    mask = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["mov.b32"], mask, T.uint32(0xFFFFFFFF))
    if p.mutation == "membermask":
        with T.if_(t % 32 >= 16):
            T.cuda.tile.apply(T.ptx["mov.b32"], mask, T.uint32(0xFFFF0000))
    lane = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["mov.b32"], lane, T.uint32(0))
    T.cuda.tile.apply(T.ptx["add.u32"], lane, lane, T.uint32(t % 32))
    for r in range(4):
        word = acc.reshape((4, 1))[r:r + 1]
        T.cuda.tile.apply(T.ptx["shfl.sync.idx.b32"], word, word, lane, T.uint32(31), mask)


def _store(T, p, acc, Out, t):
    if p.epilogue == "st":
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], acc.reshape((1, 4)))
        return
    staged = T.alloc_shared((THREADS, 4), "uint32", align=128)
    T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], staged[t:t + 1], acc.reshape((1, 4)))
    if p.mutation != "skip_fence":
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    with T.if_(t == 0):
        T.cuda.tile.apply(T.ptx[STORE], Out.tensor_map, (0, 0), staged)
        T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))


def inputs(p: Pipeline, seed: int):
    """Integer-valued bf16 A and B (every product and sum exact in f32),
    as numbers and as the kernel's arrays."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (p.blocks * ROWS, COLS))
    b = rng.integers(-3, 4, (N, COLS))
    bits = [(x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16) for x in (a, b)]
    return (a, b), bits + [np.zeros((THREADS, 4), np.uint32)]


def reference(p: Pipeline, a, b, a_bits) -> np.ndarray:
    """Out as the clean kernel computes it."""
    out = np.zeros((THREADS, 4), np.uint32)
    if p.consumer == "ld":
        words = a_bits.view(np.uint32).reshape(p.blocks, ROWS, COLS // 2).astype(np.uint64)
        for t in range(THREADS):
            row, half = t // 2, t % 2
            out[t] = (words[:, row, 4 * half:4 * half + 4].sum(axis=0) & 0xFFFFFFFF).astype(np.uint32)
        return out
    import wgmma_check as W
    d = sum(a[ROWS * k:ROWS * (k + 1)] @ b.T for k in range(p.blocks)).astype(np.float32)
    for t in range(THREADS):
        for i in range(N // 2):
            row, col = W.d_place(i, t)
            out[t, i] = d[row, col].view(np.uint32)
    return out


KINDS = {"cp.async before its wait": "async", "async-proxy read without fence.proxy.async": "proxy",
         "wgmma before its wait": "wgmma", "warp collective": "collective"}


def judge(p: Pipeline, seed: int = 0) -> dict:
    """Runs the kernel in the interpreter: its verdict ("clean" only with
    the reference's Out; else each kind of hazard reported, joined by
    "+"), the hazards' kinds, and whether it agrees with `expected`: a
    clean kernel runs clean, a mutated one is reported with its hazard
    among those it causes (a read before the bytes land is also a race
    with the copy's write, say)."""
    import tile_mlir
    (a, b), arrays = inputs(p, seed)
    verdict, kinds, detail = "clean", [], ""
    try:
        tile_mlir.interpret(build(p), *arrays)
        if not np.array_equal(arrays[-1], reference(p, a, b, arrays[0])):
            verdict, detail = "wrong", "Out differs from the reference"
    except tile_mlir.HazardError as error:
        kinds = sorted({h.kind for h in error.hazards})
        found = {KINDS.get(kind, "race") for kind in kinds}
        verdict = found.pop() if len(found) == 1 else "+".join(sorted(found))
        detail = str(error).splitlines()[1].strip()
    except tile_mlir.InterpretError as error:
        verdict = "hang" if "never" in str(error) or "loop" in str(error) else "error"
        detail = str(error)
    want = expected(p)
    agrees = verdict == want if want in ("clean", "hang") else want in verdict.split("+")
    return {"kernel": asdict(p), "seed": seed, "expected": want, "verdict": verdict, "kinds": kinds,
            "agrees": agrees, "detail": detail[:300]}


def _judge_one(job):
    p, seed = job
    return judge(p, seed)


def campaign(count: int, seed: int, jobs: int = 1) -> dict:
    """`count` random kernels from `seed` (kernel i's data from seed i),
    judged in `jobs` processes: every verdict, the disagreements in
    full."""
    rng = np.random.default_rng(seed)
    work = [(random_pipeline(rng), index) for index in range(count)]
    start = time.time()
    if jobs > 1:
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_judge_one, work, chunksize=16)
    else:
        results = [_judge_one(job) for job in work]
    tally = collections.Counter((r["expected"], r["verdict"]) for r in results)
    return {"kernels": count, "seed": seed, "distinct kernels": len({p for p, _ in work}),
            "seconds": round(time.time() - start, 1),
            "verdicts": {f"{want} -> {got}": n for (want, got), n in sorted(tally.items())},
            "disagreements": [r for r in results if not r["agrees"]]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--out", help="the results file (JSON)")
    args = parser.parse_args(argv)
    report = campaign(args.count, args.seed, args.jobs)
    text = json.dumps(report, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "disagreements"}, indent=1))
    print(f"{len(report['disagreements'])} disagreements")
    return 1 if report["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
