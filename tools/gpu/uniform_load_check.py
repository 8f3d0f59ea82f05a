#!/usr/bin/env python3
"""ldu on the GPU (issue 58): every form of the table with 16-, 32- and
64-bit elements (8-bit values and .b128 aside: the interpreter takes
neither in registers), .global and generic, one to four elements. Four
warps each load their row of A (one address in every thread of the warp)
and store it; each thread's words against the row, written out here from
the ISA's meaning (a load moves the bits), apart from the interpreter.

    python tools/gpu/uniform_load_check.py build build/ldu
    PYTHONPATH=python python tools/gpu/uniform_load_check.py run build/ldu report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90"
WARPS = 4
# Each element type's numpy type: its bits as they travel.
NUMPY = {"b16": "uint16", "u16": "uint16", "s16": "int16", "b32": "uint32", "u32": "uint32", "s32": "int32",
         "f32": "float32", "b64": "uint64", "u64": "uint64", "s64": "int64", "f64": "float64"}


def entries():
    """The table's ldu forms this check takes: {opcode, type, count}."""
    from tile_mlir import ptx
    found = []
    for opcode in ptx.forms("ldu"):
        tokens = opcode.split(".")
        if tokens[-1] in NUMPY:
            count = 4 if "v4" in tokens else 2 if "v2" in tokens else 1
            found.append({"opcode": opcode, "type": tokens[-1], "count": count})
    return found


def kernel(entry):
    from tile_mlir import script as T
    dtype, count = NUMPY[entry["type"]], entry["count"]

    @T.function
    def rows(A: T.Tensor((WARPS, count), dtype), D: T.Tensor((32 * WARPS, count), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32 * WARPS))
        t = T.thread_id()
        r = T.alloc_local((1, count), dtype)
        source = A if ".global." in entry["opcode"] else A.generic()
        T.cuda.tile.apply(T.ptx[entry["opcode"]], r, source[t // 32:t // 32 + 1, 0:count])
        T.cuda.tile.apply(T.ptx[f"st.global{'.v%d' % count if count > 1 else ''}.b{np.dtype(dtype).itemsize * 8}"],
                          D.view(f"uint{np.dtype(dtype).itemsize * 8}")[t:t + 1, 0:count],
                          r.view(f"uint{np.dtype(dtype).itemsize * 8}"))

    return rows


def case(entry, seed):
    """(A's rows as random bits, each thread's row: what D must hold)."""
    dtype = np.dtype(NUMPY[entry["type"]])
    bits = np.random.default_rng(seed).integers(0, 1 << 63, (WARPS, entry["count"]), dtype=np.uint64)
    given = bits.astype(f"uint{dtype.itemsize * 8}").view(dtype)
    return given, given[np.arange(32 * WARPS) // 32]


def check(kernel_, entry, seed):
    given, want = case(entry, seed)
    out = np.zeros_like(want)
    kernel_(given, out)
    return form_check.bits_differ(out, want)


def build(out_dir):
    form_check.build(out_dir, entries(), kernel, "ldu", TARGET, "ldu")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "ldu")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
