#!/usr/bin/env python3
"""red.async on the GPU (issue 58): every form of the table into
.shared::cluster (each operation and type). Two clusters of two blocks;
each block starts WORDS words of its buffer, then every thread reduces its
operand into word t % WORDS of the other block of its cluster (tile.mapa),
completing that block's mbarrier, which expects every thread's bytes; each
block waits for its phase and copies its words to its row of D. D against
the ISA's reductions written out here, apart from the interpreter, with
operands for which the order of the reductions does not matter (inc and
dec never wrap).

    python tools/gpu/async_reduce_check.py build build/red_async
    PYTHONPATH=python python tools/gpu/async_reduce_check.py run build/red_async report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90"
BLOCKS, THREADS, WORDS = 4, 64, 4
NUMPY = {"b32": np.uint32, "u32": np.uint32, "s32": np.int32, "u64": np.uint64}


def entries():
    """The table's red.async forms into .shared::cluster: {opcode, type, operation}."""
    from tile_mlir import ptx
    found = []
    for opcode in ptx.forms("red.async"):
        tokens = opcode.split(".")
        if "shared::cluster" in tokens:
            operation = next(t for t in tokens if t in ("add", "min", "max", "and", "or", "xor", "inc", "dec"))
            found.append({"opcode": opcode, "type": tokens[-1], "operation": operation})
    return found


def kernel(entry, wait=True):
    """The module docstring's kernel (without `wait`, each block reads its
    words without waiting for the phase)."""
    from tile_mlir import script as T
    dtype = np.dtype(NUMPY[entry["type"]])
    name, size = dtype.name, dtype.itemsize

    @T.function
    def peer_reduce(Start: T.Tensor((BLOCKS, WORDS), name), B: T.Tensor((BLOCKS * THREADS,), name),
                    D: T.Tensor((BLOCKS, WORDS), name)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=THREADS, cluster=2))
        t, b, rank = T.thread_id(), T.block_id(), T.cluster_ctarank()
        words = T.alloc_shared((WORDS,), name, align=16)
        bar = T.alloc_shared((1,), "uint64", align=8)
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        held = T.alloc_local((1,), name)
        with T.if_(t < WORDS):
            T.cuda.tile.apply(T.ptx[f"ld.global.b{size * 8}"], held, Start[b, t:t + 1])
            T.cuda.tile.apply(T.ptx[f"st.shared.b{size * 8}"], words[t:t + 1], held)
        T.cuda.tile.apply(T.ptx[f"ld.global.b{size * 8}"], held, B[b * THREADS + t:b * THREADS + t + 1])
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, bar,
                          T.uint32(THREADS * size), pred=t == 0)
        T.cuda.tile.apply(T.ptx[entry["opcode"]], words.of_block(rank ^ 1)[t % WORDS:t % WORDS + 1], held,
                          bar.of_block(rank ^ 1))
        if wait:
            with T.until(done):
                T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        with T.if_(t < WORDS):
            T.cuda.tile.apply(T.ptx[f"ld.shared.b{size * 8}"], held, words[t:t + 1])
            T.cuda.tile.apply(T.ptx[f"st.global.b{size * 8}"], D[b, t:t + 1], held)
        # No block leaves while its peer may still reduce into it.
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    return peer_reduce


def case(entry, seed):
    """(start words, operands, what D must hold): block b's words reduced
    with the operands of the other block of its cluster, from the ISA:
    add wraps, min and max compare as the type's signedness says, inc and
    dec count (their operand, the largest value, is never reached)."""
    dtype, operation = NUMPY[entry["type"]], entry["operation"]
    rng = np.random.default_rng(seed)
    bits = 8 * np.dtype(dtype).itemsize
    start = rng.integers(0, 1 << 62, (BLOCKS, WORDS), dtype=np.uint64).astype(f"uint{bits}").view(dtype)
    operands = rng.integers(0, 1 << 62, BLOCKS * THREADS, dtype=np.uint64).astype(f"uint{bits}").view(dtype)
    if operation in ("inc", "dec"):
        start = (start % 1000 + THREADS).astype(dtype)  # dec never reaches 0
        operands[:] = np.iinfo(dtype).max
    want = start.copy()
    peers = operands.reshape(BLOCKS // 2, 2, THREADS)[:, ::-1].reshape(BLOCKS, THREADS)
    for b in range(BLOCKS):
        for t in range(THREADS):
            want[b, t % WORDS] = _reduce(operation, want[b, t % WORDS], peers[b, t], dtype)
    return start, operands, want


def _reduce(operation, old, b, dtype):
    with np.errstate(over="ignore"):
        if operation == "add":
            return dtype(old + b)
        if operation in ("min", "max"):
            return min(old, b) if operation == "min" else max(old, b)
        if operation in ("and", "or", "xor"):
            return {"and": old & b, "or": old | b, "xor": old ^ b}[operation]
        if operation == "inc":
            return dtype(0) if old >= b else dtype(old + 1)
        return b if old == 0 or old > b else dtype(old - 1)


def check(kernel_, entry, seed):
    start, operands, want = case(entry, seed)
    out = np.zeros_like(want)
    kernel_(start, operands, out)
    return form_check.bits_differ(out, want)


def build(out_dir):
    form_check.build(out_dir, entries(), kernel, "red_async", TARGET, "red.async")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "red.async")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
