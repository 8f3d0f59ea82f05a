"""Register tiles stay in registers unless indexed at run time: the docs'
recipes and the benchmark kernels compile with no local memory in the PTX
and 0 bytes of stack in ptxas -v, and a dtype view of registers is a split
or join of SSA values (no barrier, no byte permute) in the SASS."""

import os
import re
import shutil
import sys

import pytest

import tile_mlir
from tile_mlir import script as T

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))

import sass  # noqa: E402

needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")


def unpack_halves_gemm(tiles_in_loop):
    """cvt.md's recipe in an fp32-FMA product: each word of A holds two
    halves, widened with two cvt.f32.f16 through a uint16 view inside
    T.serial, beside a loop-carried accumulator."""

    @T.function
    def fma_gemm(A: T.Tensor((64, 4, 1), "uint32"), B: T.Tensor((64, 8, 1), "float32"),
                 Out: T.Tensor((8, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        acc = T.alloc_local((8, 1), "float32")
        T.cuda.tile.apply(T.ptx["mov.f32"], acc, T.float32(0.0))
        outside = [T.alloc_local(shape, dtype) for shape, dtype in
                   (((4, 1), "uint32"), ((8, 1), "float32"), ((8, 1), "float32"))]
        for k in T.serial(0, 64):
            w, a, b = ([T.alloc_local(shape, dtype) for shape, dtype in
                        (((4, 1), "uint32"), ((8, 1), "float32"), ((8, 1), "float32"))]
                       if tiles_in_loop else outside)
            T.cuda.tile.apply(T.ptx["ld.global.b32"], w, A[k])
            halves = w.view("uint16")
            T.cuda.tile.apply(T.ptx["cvt.f32.f16"], a[0:4], halves[:, 0:1])
            T.cuda.tile.apply(T.ptx["cvt.f32.f16"], a[4:8], halves[:, 1:2])
            T.cuda.tile.apply(T.ptx["ld.global.f32"], b, B[k])
            T.cuda.tile.apply(T.ptx["fma.rn.f32"], acc, a, b, acc)
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out, acc)

    return fma_gemm


@T.function
def pack_and_unpack(A: T.Tensor((32, 2), "float32"), Out: T.Tensor((32, 2), "float32")):
    """narrow_pairs then its inverse through a view, in one block."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    a = T.alloc_local((1, 2), "float32")
    d = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], a, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], d, a[:, 1:2], a[:, 0:1])
    h = d.view("uint16")
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], a[:, 0:1], h[:, 0:1])
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], a[:, 1:2], h[:, 1:2])
    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Out[t:t + 1], a)


def kernels():
    from tile_mlir.kernels.elementwise import add_f16, narrow_f16, swiglu
    import abs_neg
    import narrow_pairs
    import packed_add

    return {
        "recipe_tiles_in_loop": unpack_halves_gemm(True),
        "recipe_tiles_outside_loop": unpack_halves_gemm(False),
        "pack_and_unpack": pack_and_unpack,
        "stream_add": add_f16(1 << 29),
        "stream_narrow": narrow_f16(1 << 29),
        "swiglu": swiglu(1 << 28),
        "packed_add": packed_add.packed_add,
        "negative_magnitude": abs_neg.negative_magnitude,
        "narrow_pairs": narrow_pairs.narrow_pairs,
    }


sys.path.insert(0, os.path.join(ROOT, "examples", "spec"))
NAMES = ["recipe_tiles_in_loop", "recipe_tiles_outside_loop", "pack_and_unpack", "stream_add",
         "stream_narrow", "swiglu", "packed_add",
         "negative_magnitude", "narrow_pairs"]


def stack_bytes(ptx_text):
    return [int(n) for n in re.findall(r"(\d+) bytes stack frame", sass.ptxas_resources(ptx_text))]


@needs_ptxas
@pytest.mark.parametrize("name", NAMES)
def test_no_local_memory(name):
    kernel = tile_mlir.compile(kernels()[name], target="sm_90", cache=False)
    assert "__local_depot" not in kernel.ptx
    assert not re.search(r"\b(ld|st)\.local\b", kernel.ptx)
    assert stack_bytes(kernel.ptx) == [0]


@needs_ptxas
@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_a_view_of_registers_is_free():
    # The halves of a word that a view reads come straight from the load:
    # no fold barrier (VIMNMX) and no byte permute (PRMT) in the SASS.
    kernel = tile_mlir.compile(unpack_halves_gemm(True), target="sm_90", cache=False)
    counts = sass.counts(kernel.cubin)
    assert counts.get("VIMNMX", 0) == 0 and counts.get("PRMT", 0) == 0
    assert counts["FFMA"] >= 8 and counts["HADD2"] >= 8  # HADD2: the f16 to f32 widening
    # Through the view the analysis still sees a cvt's result reach a cvt,
    # a measured fold (docs/difftest.md, finding 2): both halves keep their
    # barrier.
    kernel = tile_mlir.compile(pack_and_unpack, target="sm_90", cache=False)
    assert len(re.findall(r"max\.s16 %tile_f1_0", kernel.ptx)) == 2
