#!/usr/bin/env python3
"""movmatrix on the GPU (issue 58): a warp's 8 x 8 matrix of b16, in the
PTX ISA's m8n8 fragment, transposed in registers; each lane's register
against the fragment of the transposed matrix, written out here from the
ISA's layout (lane l holds elements 2(l % 4) and 2(l % 4) + 1 of row
l / 4), apart from the interpreter. Two warps, each its own matrix.

    python tools/gpu/movmatrix_check.py build build/movmatrix
    PYTHONPATH=python python tools/gpu/movmatrix_check.py run build/movmatrix report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90"
WARPS = 2
OPCODE = "movmatrix.sync.aligned.m8n8.trans.b16"


def fragment(matrix):
    """The m8n8 b16 fragment of `matrix` (8 x 8 uint16): one uint32 a lane."""
    lanes = np.arange(32)
    low = matrix[lanes // 4, 2 * (lanes % 4)].astype(np.uint32)
    high = matrix[lanes // 4, 2 * (lanes % 4) + 1].astype(np.uint32)
    return low | high << 16


def kernel(entry):
    from tile_mlir import script as T

    @T.function
    def transpose(A: T.Tensor((32 * WARPS, 1), "uint32"), D: T.Tensor((32 * WARPS, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32 * WARPS))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[entry["opcode"]], r, r)
        T.cuda.tile.apply(T.ptx["st.global.b32"], D[t:t + 1], r)

    return transpose


def case(seed):
    """(the registers in, the registers the ISA says come out)."""
    matrices = np.random.default_rng(seed).integers(0, 1 << 16, (WARPS, 8, 8)).astype(np.uint16)
    given = np.concatenate([fragment(m) for m in matrices]).reshape(-1, 1)
    want = np.concatenate([fragment(m.T) for m in matrices]).reshape(-1, 1)
    return given, want


def check(kernel_, entry, seed):
    given, want = case(seed)
    out = np.zeros_like(want)
    kernel_(given, out)
    return None if np.array_equal(out, want) else {"lanes": int((out != want).sum())}


def build(out_dir):
    form_check.build(out_dir, [{"opcode": OPCODE}], kernel, "movmatrix", TARGET, "movmatrix")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "movmatrix")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
