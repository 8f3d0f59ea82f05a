"""ldu (PTX ISA 9.0, 9.7.9.10): a load of data that is read-only during the
kernel, from an address common to the threads of the warp; .global or a
generic address, .v2/.v4 of at most 128 bits (the table's record, judged
by tools/ptxas_diff). Emitted as written; in the interpreter a weak load,
and a located error where the ISA leaves the result undefined."""

import re
import shutil

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T


def per_warp(opcode="ldu.global.v2.f32", spread=False, also_write=False, where=None):
    """Each warp loads its row of A (the same address in each thread, or
    each thread its own with `spread`), and each thread stores what it
    loaded to Out; `also_write`: thread 0 also stores to A afterwards;
    `where`: the threads that load and store (a predicate of t)."""
    @T.function
    def kernel(A: T.Tensor((4, 2), "float32"), Out: T.Tensor((128, 2), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        r = T.alloc_local((1, 2), "float32")
        row = t % 4 if spread else t // 32
        source = A if ".global." in opcode else A.generic()
        T.cuda.tile.apply(T.ptx[opcode], r, source[row:row + 1, 0:2], **({"pred": where(t)} if where else {}))  # ldu
        T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Out[t:t + 1, 0:2], r, **({"pred": where(t)} if where else {}))
        if also_write:
            T.cuda.tile.apply(T.ptx["st.global.v2.f32"], A[0:1, 0:2], r, pred=(t == 0))
    return kernel


def test_each_warp_loads_its_row_bit_for_bit():
    a = np.random.default_rng(1).standard_normal((4, 2)).astype(np.float32)
    for opcode in ("ldu.global.v2.f32", "ldu.v2.f32"):
        out = np.zeros((128, 2), np.float32)
        tile_mlir.interpret(per_warp(opcode), a, out)
        assert np.array_equal(out.view(np.uint32), a[np.arange(128) // 32].view(np.uint32)), opcode


def test_threads_of_a_warp_at_different_addresses_are_refused_at_the_line(line_of):
    a = np.zeros((4, 2), np.float32)
    with pytest.raises(tile_mlir.InterpretError, match=re.escape(line_of("# ldu")) + r": ldu.global.v2.f32: thread 1: "
                       r"ldu loads byte 8 of A, but thread 0 of its warp loads byte 0: ldu's address must be the "
                       r"same in every thread of the warp"):
        tile_mlir.interpret(per_warp(spread=True), a, np.zeros((128, 2), np.float32))


def test_threads_that_do_not_load_may_point_elsewhere():
    # Only thread 0 of each warp loads (the others' addresses differ).
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    out = np.full((128, 2), -1, np.float32)
    tile_mlir.interpret(per_warp(spread=True, where=lambda t: t % 32 == 0), a, out)
    for t in range(128):
        assert out[t].tolist() == (a[t % 4].tolist() if t % 32 == 0 else [-1, -1]), t


def test_a_tensor_the_kernel_also_writes_is_refused(line_of):
    a = np.zeros((4, 2), np.float32)
    with pytest.raises(tile_mlir.InterpretError, match=re.escape(line_of("# ldu")) + r": ldu.global.v2.f32: thread 0: "
                       r"ldu loads data that is read-only during the kernel, but this kernel may also write A"):
        tile_mlir.interpret(per_warp(also_write=True), a, np.zeros((128, 2), np.float32))


def test_shared_memory_through_a_generic_ldu_is_refused(line_of):
    @T.function
    def kernel(Out: T.Tensor((32, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        tile = T.alloc_shared((1, 1), "float32")
        r = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ldu.f32"], r, tile.generic()[0:1, 0:1])  # generic ldu
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1, 0:1], r)
    with pytest.raises(tile_mlir.InterpretError, match=re.escape(line_of("# generic ldu")) + r": ldu.f32: thread 0: "
                       r"ldu loads global memory; the shared buffer of .* is shared memory"):
        tile_mlir.interpret(kernel, np.zeros((32, 1), np.float32))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_emitted_as_written_and_assembled():
    compiled = tile_mlir.compile(per_warp("ldu.global.v2.f32"), target="sm_90")
    assert re.findall(r"^\s*(ldu\.\S+)", compiled.ptx, re.M) == ["ldu.global.v2.f32"]
    assert compiled.cubin


def test_the_table_refuses_what_ptxas_does():
    from tile_mlir import ptx
    for spelling, why in (("ldu.global.v4.f64", "an ldu vector moves at most 128 bits"),
                          ("ldu.shared.b32", "'shared' is not a qualifier of ldu.b32"),
                          ("ldu.global.nc.b32", "'nc' is not a qualifier of ldu.b32"),
                          ("ldu.global.v2.b128", "b128 is not vectorized")):
        with pytest.raises(ptx.PTXFormError, match=re.escape(why)):
            ptx.parse(spelling)


def test_the_gpu_checks_kernels_give_each_warp_its_row_in_the_interpreter():
    # tools/gpu/uniform_load_check.py's forms (16- to 64-bit elements,
    # .global and generic, one to four) and cases, in the interpreter: the
    # rows it expects of the GPU, bit for bit.
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
    import uniform_load_check as U
    entries = U.entries()
    assert len(entries) == 58
    for entry in entries:
        given, want = U.case(entry, seed=3)
        out = np.zeros_like(want)
        tile_mlir.interpret(U.kernel(entry), given, out)
        assert np.array_equal(out.view(f"uint{out.itemsize * 8}"), want.view(f"uint{want.itemsize * 8}")), entry


def test_the_committed_gpu_run_passed_every_form():
    import json
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu", "results", "uniform_load.json")
    with open(path) as f:
        report = json.load(f)
    assert report["device"].startswith("NVIDIA H") and report["mismatched"] == []
    assert report["forms"] == 58 and report["cases"] == 58 * 4
