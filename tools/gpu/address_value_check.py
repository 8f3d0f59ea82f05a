#!/usr/bin/env python3
"""isspacep and getctarank on the GPU (issue 58): every form of the table.
Two clusters of two blocks, 64 threads each. isspacep asks of two
generic addresses, an element of a tensor (global memory) and one of the
block's shared buffer; getctarank of the peer block's buffer (tile.mapa,
.shared::cluster) or of the block's own (generic). What each must give is
written here from the ISA's meaning (PTX ISA 9.0, 9.7.9.20 and 9.7.9.23),
apart from the interpreter: a tensor is in the .global window, the
block's shared buffer in the .shared, .shared::cta and .shared::cluster
ones, neither in .const, .local or .param; the rank is the block's in
its cluster.

    python tools/gpu/address_value_check.py build build/address_values
    PYTHONPATH=python python tools/gpu/address_value_check.py run build/address_values report.json
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
import form_check  # noqa: E402

TARGET = "sm_90a"
BLOCKS, THREADS = 4, 64


def entries():
    """Every isspacep and getctarank form: {opcode}."""
    from tile_mlir import ptx
    return [{"opcode": opcode} for family in ("isspacep", "getctarank") for opcode in ptx.forms(family)]


def kernel(entry):
    """Out[0] and Out[1]: isspacep of a tensor's and of the shared
    buffer's element, or getctarank of an element of the buffer (the
    peer's, through tile.mapa, for .shared::cluster; else the block's
    own), for each thread of each block."""
    from tile_mlir import script as T
    opcode = entry["opcode"]

    @T.function
    def asked(A: T.Tensor((THREADS,), "uint32"), Out: T.Tensor((2, BLOCKS * THREADS), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=BLOCKS, block=THREADS, cluster=2))
        t, b, rank = T.thread_id(), T.block_id(), T.cluster_ctarank()
        buf = T.alloc_shared((THREADS,), "uint32", align=16)
        flag = T.alloc_local((1,), "bool")
        word = T.alloc_local((1,), "uint32")
        mine = Out[:, THREADS * b + t:THREADS * b + t + 1]
        element = buf.view("uint8")[4 * t:4 * t + 1]
        if opcode.startswith("isspacep"):
            for row, address in enumerate((A.view("uint8")[4 * t:4 * t + 1].generic(), element.generic())):
                T.cuda.tile.apply(T.ptx[opcode], flag, address)
                T.cuda.tile.apply(T.ptx["selp.b32"], word, T.uint32(1), T.uint32(0), flag)
                T.cuda.tile.apply(T.ptx["st.global.b32"], mine[row], word)
        else:
            peer = "shared::cluster" in opcode
            address = buf.of_block(rank ^ 1).view("uint8")[4 * t:4 * t + 1] if peer else element.generic()
            T.cuda.tile.apply(T.ptx[opcode], word, address)
            T.cuda.tile.apply(T.ptx["st.global.b32"], mine[0], word)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    return asked


def expected(entry):
    """Out as the ISA defines it (module docstring); getctarank's second
    row is left as it was given (zero)."""
    opcode = entry["opcode"]
    rank = np.repeat(np.arange(BLOCKS) % 2, THREADS).astype(np.uint32)
    if opcode.startswith("getctarank"):
        return np.stack([rank ^ 1 if "shared::cluster" in opcode else rank, np.zeros_like(rank)])
    space = opcode.split(".")[1]
    return np.stack([np.full_like(rank, space == "global"),
                     np.full_like(rank, space in ("shared", "shared::cta", "shared::cluster"))])


def check(kernel_, entry, seed):
    out = np.zeros((2, BLOCKS * THREADS), np.uint32)
    kernel_(np.random.default_rng(seed).integers(0, 1 << 32, THREADS, dtype=np.uint64).astype(np.uint32), out)
    return form_check.bits_differ(out, expected(entry))


def build(out_dir):
    form_check.build(out_dir, entries(), kernel, "address", TARGET, "isspacep/getctarank")


def run(out_dir, report_path):
    form_check.run(out_dir, report_path, check, TARGET, "isspacep/getctarank")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
