#!/usr/bin/env python3
"""ldmatrix / stmatrix conformance (issues #27 and #30): every lowered
m8n8 .b16 form of sm_90 on one warp, against the PTX ISA's definition
(9.7.14.5.15-16), written out here apart from the interpreter: row r of
matrix j is the 8 b16 values at lane 8j + r's address, and register j of
lane l holds elements 2(l % 4), 2(l % 4) + 1 of row l / 4 (the first in the
low half), or with .trans those rows' elements of column l / 4.

Each lane's address is its own row of a shared array (S[lane]); ldmatrix
reads the rows the lanes' addresses name, stmatrix writes them and each
lane reads its row back.

    python tools/gpu/matrix_check.py build build/matrix
    PYTHONPATH=python python tools/gpu/matrix_check.py run build/matrix report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90"


def forms():
    from tile_mlir import ptx
    out = []
    for family in ("ldmatrix", "stmatrix"):
        for spelling in ptx.forms(family):
            try:
                form = ptx.parse(spelling, target=TARGET)
            except ptx.PTXFormError:
                continue
            if all(not op.space.startswith("shared") for op in form.operands):
                continue  # a generic address: not from a shared tile here
            count = next(op.count for op in form.operands if op.space == "reg")
            out.append({"opcode": form.opcode, "family": family, "count": count,
                        "trans": "trans" in form.opcode.split(".")})
    return out


def ld_expected(rows, count, trans):
    """ldmatrix: rows (32, 8) uint16 (lane l's address holds row l % 8 of
    matrix l / 8) -> registers (32, count) uint32."""
    out = np.zeros((32, count), np.uint32)
    for lane in range(32):
        for j in range(count):
            word = 0
            for h in range(2):
                r, c = (2 * (lane % 4) + h, lane // 4) if trans else (lane // 4, 2 * (lane % 4) + h)
                word |= int(rows[8 * j + r, c]) << (16 * h)
            out[lane, j] = word
    return out


def st_expected(regs, count, trans):
    """stmatrix: registers (32, count) uint32 -> the rows (32, 8) uint16
    at the lanes' addresses (rows of lanes >= 8 count stay as they were:
    zero here)."""
    rows = np.zeros((32, 8), np.uint16)
    for j in range(count):
        for r in range(8):
            for c in range(8):
                lane, h = (4 * c + r // 2, r % 2) if trans else (4 * r + c // 2, c % 2)
                rows[8 * j + r, c] = (int(regs[lane, j]) >> (16 * h)) & 0xFFFF
    return rows


def kernel(entry):
    from tile_mlir import script as T
    opcode, count = entry["opcode"], entry["count"]

    @T.function
    def move(A: T.Tensor((32, 4), "uint32"), R: T.Tensor((32, 1, count), "uint32"),
             Out: T.Tensor((32, 4), "uint32"), OutR: T.Tensor((32, 1, count), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        S = T.alloc_shared((32, 4), "uint32")
        t = T.thread_id()
        row = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], row, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], S[t:t + 1], row)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        d = T.alloc_local((32, 1, count), "uint32", scope="warp")
        rows = S.view("uint16").reshape((32, 1, 8))
        if entry["family"] == "ldmatrix":
            T.cuda.tile.apply(T.ptx[opcode], d, rows, scope="warp")
        else:
            T.cuda.tile.apply(T.ptx["ld.global.b32"], d.reshape((32, count, 1)), R.reshape((32, count, 1)),
                              scope="warp")
            T.cuda.tile.apply(T.ptx[opcode], rows, d, scope="warp")
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], row, S[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], row)
        T.cuda.tile.apply(T.ptx["st.global.b32"], OutR.reshape((32, count, 1)), d.reshape((32, count, 1)),
                          scope="warp")

    return move


def case(entry, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**32, (32, 4), dtype=np.uint32)
    regs = rng.integers(0, 2**32, (32, 1, entry["count"]), dtype=np.uint32)
    if entry["family"] == "ldmatrix":
        return a, regs, a.copy(), ld_expected(a.view(np.uint16), entry["count"], entry["trans"])[:, None]
    rows = a.view(np.uint16).copy()
    written = st_expected(regs[:, 0], entry["count"], entry["trans"])
    rows[:8 * entry["count"]] = written[:8 * entry["count"]]
    return a, regs, rows.view(np.uint32), regs


def check(kernel_, entry, seed):
    """One case on the GPU: None when the rows and registers are the ISA's."""
    a, regs, want_rows, want_regs = case(entry, seed)
    out, out_r = np.zeros((32, 4), np.uint32), np.zeros_like(regs)
    kernel_(a, regs, out, out_r)
    return None if np.array_equal(out, want_rows) and np.array_equal(out_r, want_regs) else {}


def build(out_dir):
    form_check.build(out_dir, forms(), kernel, "matrix", TARGET, "ldmatrix/stmatrix")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "ldmatrix/stmatrix")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
