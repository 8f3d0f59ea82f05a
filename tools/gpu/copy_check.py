#!/usr/bin/env python3
"""cp.async conformance (issues #27 and #30): every lowered copy form of
sm_90 (.ca/.cg, .shared/.shared::cta, each L2 prefetch size, every
cp-size), without and with a src-size register, against the PTX ISA's
definition (9.7.9.25.3.1), written out here apart from the interpreter:
the cp-size bytes at dst become the first src-size bytes at src (all of
them without src-size) followed by zeros; the bytes of dst past cp-size
keep what they held. The copy lands at cp.async.wait_group 0 (or
wait_all).

Thread t of a block of 64 fills its row of a shared array with B[t], copies
from A[t] into it (src-size from Sizes[t]: 0 to cp-size, odd ones too),
waits, and stores the row to Out[t].

    python tools/gpu/copy_check.py build build/copy
    PYTHONPATH=python python tools/gpu/copy_check.py run build/copy report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90"
THREADS = 64


def forms():
    from tile_mlir import ptx
    out = []
    for spelling in ptx.forms("cp.async"):
        if any(t in spelling.split(".") for t in ("commit_group", "wait_group", "wait_all", "mbarrier")):
            continue
        form = ptx.parse(spelling, target=TARGET)
        size_operand = next(op for op in form.operands if op.name == "cp-size")
        for size in size_operand.immediates:
            for zero_fill in (False, True):
                out.append({"opcode": form.opcode, "size": size, "src_size": zero_fill,
                            "wait": "wait_all" if len(out) % 2 else "wait_group"})
    return out


def expected(a, b, sizes, entry):
    """The rows after the copy, bytes (THREADS, 16)."""
    rows = b.view(np.uint8).reshape(THREADS, 16).copy()
    src = a.view(np.uint8).reshape(THREADS, 16)
    for t in range(THREADS):
        n = int(sizes[t]) if entry["src_size"] else entry["size"]
        rows[t, :n] = src[t, :n]
        rows[t, n:entry["size"]] = 0
    return rows.view(np.uint32).reshape(THREADS, 4)


def kernel(entry):
    from tile_mlir import script as T
    opcode, words = entry["opcode"], entry["size"] // 4

    @T.function
    def copy(A: T.Tensor((THREADS, 4), "uint32"), B: T.Tensor((THREADS, 4), "uint32"),
             Sizes: T.Tensor((THREADS, 1), "uint32"), Out: T.Tensor((THREADS, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        S = T.alloc_shared((THREADS, 4), "uint32")
        t = T.thread_id()
        row = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], row, B[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], S[t:t + 1], row)
        size = []
        if entry["src_size"]:
            size = [T.alloc_local((1, 1), "uint32")]
            T.cuda.tile.apply(T.ptx["ld.global.b32"], size[0], Sizes[t:t + 1])
        policy = []
        if "L2::cache_hint" in opcode.split("."):
            # an evict_last policy: it hints L2 and moves no other byte
            policy = [T.alloc_local((1, 1), "uint64")]
            T.cuda.tile.apply(T.ptx["createpolicy.fractional.L2::evict_last.b64"], policy[0])
        T.cuda.tile.apply(T.ptx[opcode], S[t:t + 1, 0:words], A[t:t + 1, 0:words], T.uint32(entry["size"]), *size,
                          *policy)
        T.cuda.tile.apply(T.ptx["cp.async.commit_group"])
        if entry["wait"] == "wait_all":
            T.cuda.tile.apply(T.ptx["cp.async.wait_all"])
        else:
            T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], row, S[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], row)

    return copy


def case(entry, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**32, (THREADS, 4), dtype=np.uint32)
    b = rng.integers(0, 2**32, (THREADS, 4), dtype=np.uint32)
    # Every size from 0 to cp-size, then random ones.
    sizes = np.array([t % (entry["size"] + 1) if t <= entry["size"] else rng.integers(0, entry["size"] + 1)
                      for t in range(THREADS)], np.uint32).reshape(THREADS, 1)
    return a, b, sizes, expected(a, b, sizes[:, 0], entry)


def check(kernel_, entry, seed):
    """One case on the GPU: None when the rows are the ISA's."""
    a, b, sizes, want = case(entry, seed)
    out = np.zeros((THREADS, 4), np.uint32)
    kernel_(a, b, sizes, out)
    return None if np.array_equal(out, want) else {"rows": int((out != want).any(axis=1).sum())}


def build(out_dir):
    form_check.build(out_dir, forms(), kernel, "copy", TARGET, "cp.async")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "cp.async")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
