#!/usr/bin/env python3
"""st.async on the GPU (issue 58): every form of the table into
.shared::cluster (each type, one, two or four elements, .weak, .cluster
or neither). Two clusters of two blocks; each thread stores its elements
of its block's rows of A into the other block of its cluster (tile.mapa),
completing that block's mbarrier, which expects every thread's bytes;
each block waits for its phase and copies what arrived to its rows of D.
D against A with each cluster's two blocks swapped, written out here from
the ISA's meaning (a store moves the bits), apart from the interpreter.

    python tools/gpu/async_store_check.py build build/st_async
    PYTHONPATH=python python tools/gpu/async_store_check.py run build/st_async report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90"
BLOCKS, THREADS = 4, 64
# Each element type's numpy type: its bits as they travel.
NUMPY = {"b32": "uint32", "u32": "uint32", "s32": "int32", "f32": "float32", "b64": "uint64", "u64": "uint64",
         "s64": "int64", "f64": "float64"}


def entries():
    """The table's st.async forms into .shared::cluster: {opcode, type, count}."""
    from tile_mlir import ptx
    found = []
    for opcode in ptx.forms("st.async"):
        tokens = opcode.split(".")
        if "shared::cluster" in tokens:
            count = 4 if "v4" in tokens else 2 if "v2" in tokens else 1
            found.append({"opcode": opcode, "type": tokens[-1], "count": count})
    return found


def kernel(entry, expected_bytes=None, wait=True, misuse=""):
    """The module docstring's kernel. `expected_bytes`: what each mbarrier
    expects (every thread's, by default); without `wait`, the block reads
    its buffer without waiting for the phase; `misuse`: "misaligned" (the
    second block of each cluster stores one element past its place, an
    offset the verifier cannot see), "other_mbarrier" (the issuer's own
    mbarrier, not the destination block's), "generic" (the issuer's own
    buffer and mbarrier by generic addresses: D then holds A unswapped),
    "global" (a generic address into D, not shared memory), "past" (the
    second block of each cluster stores past the buffer, at an offset the
    verifier cannot see)."""
    from tile_mlir import script as T
    dtype, count, opcode = NUMPY[entry["type"]], entry["count"], entry["opcode"]
    words = THREADS * count
    size = np.dtype(dtype).itemsize
    expected = THREADS * count * size if expected_bytes is None else expected_bytes
    bits = f"uint{size * 8}"

    @T.function
    def peer_store(A: T.Tensor((BLOCKS * words,), dtype), D: T.Tensor((BLOCKS * words,), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=THREADS, cluster=2))
        t, b, rank = T.thread_id(), T.block_id(), T.cluster_ctarank()
        buf = T.alloc_shared((words + count,), dtype, align=16)
        bar = T.alloc_shared((1,), "uint64", align=8)
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        held = T.alloc_local((1, count), dtype)
        mine = b * words + count * t
        vec = f".v{count}" if count > 1 else ""
        T.cuda.tile.apply(T.ptx[f"ld.global{vec}.b{size * 8}"], held.view(bits),
                          A.view(bits)[mine:mine + count].reshape((1, count)))
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, bar, T.uint32(expected),
                          pred=t == 0)
        place = count * t + {"misaligned": rank, "past": rank * 16 * words}.get(misuse, 0)
        into, barrier = buf.of_block(rank ^ 1), bar.of_block(rank ^ 1)
        if misuse == "other_mbarrier":
            barrier = bar
        elif misuse == "generic":
            into, barrier = buf.generic(), bar.generic()
        elif misuse == "global":
            into, barrier = D.generic()[b * words:(b + 1) * words + count], bar.generic()
        T.cuda.tile.apply(T.ptx[opcode], into[place:place + count].reshape((1, count)), held, barrier.reshape((1, 1)))
        if wait:
            with T.until(done):
                T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        T.cuda.tile.apply(T.ptx[f"ld.shared{vec}.b{size * 8}"], held.view(bits),
                          buf.view(bits)[count * t:count * t + count].reshape((1, count)))
        T.cuda.tile.apply(T.ptx[f"st.global{vec}.b{size * 8}"], D.view(bits)[mine:mine + count].reshape((1, count)),
                          held.view(bits))
        # No block leaves while its peer may still store into it.
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    return peer_store


def case(entry, seed):
    """(A as random bits, what D must hold: each cluster's blocks' rows
    swapped)."""
    dtype = np.dtype(NUMPY[entry["type"]])
    words = THREADS * entry["count"]
    bits = np.random.default_rng(seed).integers(0, 1 << 63, BLOCKS * words, dtype=np.uint64)
    given = bits.astype(f"uint{dtype.itemsize * 8}").view(dtype)
    return given, given.reshape(BLOCKS // 2, 2, words)[:, ::-1].reshape(-1)


def check(kernel_, entry, seed):
    given, want = case(entry, seed)
    out = np.zeros_like(want)
    kernel_(given, out)
    return form_check.bits_differ(out, want)


def build(out_dir):
    form_check.build(out_dir, entries(), kernel, "st_async", TARGET, "st.async")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "st.async")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
