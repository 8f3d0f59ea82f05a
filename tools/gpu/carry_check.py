#!/usr/bin/env python3
"""The carry chain on the GPU (issue 58): every reader of the carry flag of
sm_90 (addc, subc, madc, with and without .cc, every type and mode) after a
writer of its width (add.cc, sub.cc, mad.lo.cc, mad.hi.cc, signed and
unsigned in turn), then `addc` of two zeros to read the flag out. The GPU
judges the interpreter: build runs each kernel here in tile_mlir.interpret
and keeps its results; run launches the same kernel and compares every
register, the carry read out included.

Thread t computes w = W(x, y[, z]), d = R(a, b[, c]) and f = addc(0, 0)
from row t of its inputs (edges near 0 and 2^n - 1 so that carries and
borrows happen both ways, and random words).

    python tools/gpu/carry_check.py build build/carry
    PYTHONPATH=python python tools/gpu/carry_check.py run build/carry report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90"
GRID, BLOCK = 4, 128
THREADS = GRID * BLOCK
SEEDS = 4


def forms():
    """(reader, writer) pairs: each reader of the flag with a writer of its
    width, the writers taken in turn."""
    from tile_mlir import ptx
    readers = [s for family in ("addc", "subc", "madc") for s in ptx.forms(family)]
    writers = {bits: [f"{op}.{ty}" for ty in (f"u{bits}", f"s{bits}")
                      for op in ("add.cc", "sub.cc", "mad.lo.cc", "mad.hi.cc")] for bits in (32, 64)}
    out = []
    for i, reader in enumerate(readers):
        bits = int(reader.rsplit(".", 1)[1][1:])
        out.append({"opcode": reader, "writer": writers[bits][i % len(writers[bits])], "bits": bits})
    return out


def inputs(entry, seed):
    """Six columns (x, y, z, a, b, c) of THREADS values of the entry's width."""
    bits = entry["bits"]
    rng = np.random.default_rng(seed)
    dtype = np.uint32 if bits == 32 else np.uint64
    top = (1 << bits) - 1
    edges = np.array([0, 1, 2, top, top - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1], dtype=np.uint64)
    words = rng.integers(0, 1 << 63, (THREADS, 6), dtype=np.uint64) * np.uint64(2) + \
        rng.integers(0, 2, (THREADS, 6), dtype=np.uint64)
    pick = rng.random((THREADS, 6))
    words = np.where(pick < 0.4, edges[rng.integers(0, len(edges), (THREADS, 6))], words)
    return np.ascontiguousarray((words & np.uint64(top)).astype(dtype).T).reshape(6, THREADS, 1, 1)


def kernel(entry):
    from tile_mlir import script as T
    bits, reader, writer = entry["bits"], entry["opcode"], entry["writer"]
    ty = f"uint{bits}"
    shape = (THREADS, 1, 1)
    read_out = f"addc.u{bits}"
    zero = T.uint32(0) if bits == 32 else T.uint64(0)

    @T.function
    def chain(X: T.Tensor(shape, ty), Y: T.Tensor(shape, ty), Z: T.Tensor(shape, ty), A: T.Tensor(shape, ty),
              B: T.Tensor(shape, ty), C: T.Tensor(shape, ty), Out: T.Tensor((3, THREADS, 1, 1), ty)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=GRID, block=BLOCK))
        t = T.block_id() * BLOCK + T.thread_id()
        regs = [T.alloc_local((1, 1), ty) for _ in range(9)]
        for reg, source in zip(regs, (X, Y, Z, A, B, C)):
            T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], reg, source[t])
        x, y, z, a, b, c, w, d, f = regs
        T.cuda.tile.apply(T.ptx[writer], w, x, y, *([z] if writer.startswith("mad") else []))
        T.cuda.tile.apply(T.ptx[reader], d, a, b, *([c] if reader.startswith("madc") else []))
        T.cuda.tile.apply(T.ptx[read_out], f, zero, zero)
        for row, reg in enumerate((w, d, f)):
            T.cuda.tile.apply(T.ptx[f"st.global.b{bits}"], Out[row, t], reg)

    return chain


def interpreted(entry):
    """The interpreter's three result rows for each seed."""
    import tile_mlir
    fn = kernel(entry)
    rows = []
    for seed in range(SEEDS):
        out = np.zeros((3, THREADS, 1, 1), np.uint32 if entry["bits"] == 32 else np.uint64)
        tile_mlir.interpret(fn, *inputs(entry, seed), out)
        rows.append([[int(v) for v in row.ravel()] for row in out])
    return rows


def check(kernel_, entry, seed):
    out = np.zeros((3, THREADS, 1, 1), np.uint32 if entry["bits"] == 32 else np.uint64)
    kernel_(*inputs(entry, seed), out)
    want = np.array(entry["expected"][seed], dtype=np.uint64)
    bad = out.reshape(3, THREADS).astype(np.uint64) != want
    if not bad.any():
        return None
    row, thread = (int(i[0]) for i in np.nonzero(bad))
    return {"rows": [int(n) for n in bad.sum(axis=1)], "first": {"row": row, "thread": thread,
            "got": int(out.reshape(3, THREADS)[row, thread]), "want": int(want[row, thread]),
            "inputs": [int(v) for v in inputs(entry, seed)[:, thread].ravel()]}}


def build(out_dir):
    entries = forms()
    for entry in entries:
        entry["expected"] = interpreted(entry)
    form_check.build(out_dir, entries, kernel, "carry", TARGET, "carry-chain")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "carry-chain", seeds=SEEDS)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
