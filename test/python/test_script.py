"""The script front end, the compiler entry point, the artifact format and
the runtime's checks, on the CPU. Runs on a GPU are marked and skip without
one (the H200 run's output is tools/gpu/results/report.json)."""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir import runtime
from tile_mlir import script as T

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "examples", "spec"))

import abs_neg  # noqa: E402
import narrow_pairs  # noqa: E402
import packed_add  # noqa: E402

HAS_GPU = runtime.local_arch() is not None
gpu = pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU")


def asm_lines(ptx, opcode):
    return re.findall(r"^\s*" + re.escape(opcode) + r"\s", ptx, re.M)


def test_spec_examples_compile_to_the_promised_instructions():
    k = tile_mlir.compile(packed_add.packed_add, target="sm_90")
    assert len(asm_lines(k.ptx, "ld.global.b32")) == 16
    assert len(asm_lines(k.ptx, "add.rn.f16x2")) == 8
    assert len(asm_lines(k.ptx, "st.global.b32")) == 8
    k = tile_mlir.compile(abs_neg.negative_magnitude, target="sm_90")
    ops = re.findall(r"^\s*(abs|neg)\.f32\s", k.ptx, re.M)
    assert ops == ["abs"] * 4 + ["neg"] * 4
    k = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90")
    pairs = re.findall(r"ld\.global\.v2\.f32 \{(%r\d+), (%r\d+)\}", k.ptx)
    # The loaded sources are read as written: no fold barrier.
    cvts = re.findall(r"^\s*cvt\.rn\.f16x2\.f32 %r\d+, (%r\d+), (%r\d+);", k.ptx, re.M)
    assert cvts == [(hi, lo) for lo, hi in pairs]
    assert "max." not in k.ptx


def test_module_is_an_mlir_module_with_the_kernel():
    text = str(packed_add.packed_add.module)
    assert "gpu.func @packed_add(%arg0: memref<8x1xui32, 1>" in text
    assert text.count("tile.apply") == 4


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_cubin_and_stages():
    k = tile_mlir.compile(packed_add.packed_add, target="sm_90", stages=True)
    assert k.cubin[:4] == b"\x7fELF"
    assert list(k.stages)[1:3] == ["tile-expand", "convert-tile-to-nvvm"]
    assert k.stages["tile-expand"].count("tile.instr") == 32
    # The register tiles are forwarded: no slot loads or stores remain.
    assert "memref.alloca" not in k.stages["tile-expand"]
    assert "llvm.inline_asm" in k.stages["convert-tile-to-nvvm"]


def test_targets():
    assert tile_mlir.compiler.resolve_target("sm_100a") == "sm_100a"
    assert tile_mlir.compiler.resolve_target({"kind": "cuda", "arch": "sm_80"}) == "sm_80"
    assert tile_mlir.compiler.resolve_target("cuda") == (runtime.local_arch() or "sm_90")
    with pytest.raises(ValueError, match="unknown target 'llvm'"):
        tile_mlir.compiler.resolve_target("llvm")


def test_compile_for_a_gpu_that_is_not_here():
    @T.function
    def pairs(A: T.Tensor((2, 1), "uint64"), Out: T.Tensor((2, 1), "uint64")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        r = T.alloc_local((2, 1), "uint64")
        T.cuda.tile.apply(T.ptx["ld.global.b64"], r, A)
        T.cuda.tile.apply(T.ptx["add.rn.f32x2"], r, r, r)
        T.cuda.tile.apply(T.ptx["st.global.b64"], Out, r)

    k = tile_mlir.compile(pairs, target="sm_100a")
    assert ".target sm_100a" in k.ptx and len(asm_lines(k.ptx, "add.rn.f32x2")) == 2
    with pytest.raises(tile_mlir.CompileError, match="add.rn.f32x2 requires sm_100"):
        tile_mlir.compile(pairs, target="sm_90")


def test_errors_point_at_the_python_line():
    with pytest.raises(T.TileError) as error:
        @T.function
        def bad(A: T.Tensor((8, 1), "float16")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            a = T.alloc_local((8, 1), "float16")
            T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a, a, a)  # the offending line
    line = next(i for i, text in enumerate(open(__file__), 1) if "# the offending line" in text)
    assert str(error.value).startswith(f"{__file__}:{line}: ")
    assert "'tile.apply' op dst: expected a 32-bit carrier for f16x2 (i32, ui32 or si32), got f16" in str(error.value)


def test_a_caveat_warns_at_the_python_line_on_every_compile():
    @T.function
    def narrow(A: T.Tensor((1, 1), "float32"), Out: T.Tensor((1, 1), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        a = T.alloc_local((1, 1), "float32")
        h = T.alloc_local((1, 1), "uint16")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], a, A)
        T.cuda.tile.apply(T.ptx["cvt.rm.ftz.f16.f32"], h, a)  # the caveat
        T.cuda.tile.apply(T.ptx["st.global.b16"], Out, h)

    line = next(i for i, text in enumerate(open(__file__), 1) if "# the caveat" in text)
    # Twice through the cache: a kernel that warned is not kept, so the
    # second compile warns as well.
    for _ in range(2):
        with pytest.warns(tile_mlir.TileWarning) as caught:
            assert not tile_mlir.compile(narrow, target="sm_90").from_cache
        assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]
        assert str(caught[0].message) == (
            "ptxas (CUDA 13.0) assembles cvt.f16.f32 with rm or rp without its .ftz (F2F.F16.F32, measured "
            "on an H200): a subnormal f32 input is rounded as it is, not flushed to zero")


def test_a_saturated_min_compiles_without_a_warning():
    # ptxas -O3 dropped this min (finding 6 of docs/difftest.md); the
    # saturated result now leaves its cvt through a split and join. The
    # kernel is the tools/gpu chain the H200 runs: cvt.sat.u32.s64, then
    # min.f32 with 30000.0.
    sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
    import build_artifacts
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptx = tile_mlir.compile(build_artifacts.KERNELS["range_cvt_sat_min"], target="sm_90", cache=False).ptx
    assert "mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0;" in ptx


def test_a_predicate_tile_at_a_runtime_index_compiles():
    # It keeps its memory, as bytes; the process aborted before (an upstream
    # assertion on a store of i1 in MemRefToLLVM). The kernel is the
    # tools/gpu one the H200 runs.
    sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
    import build_artifacts
    kernel = tile_mlir.compile(build_artifacts.serial_predicates, target="sm_90", cache=False)
    assert kernel.cubin and kernel.ptx.count("selp.b32") == 4 and kernel.ptx.count("neg.s32") == 4


def test_bad_opcode_raises_at_the_subscript():
    with pytest.raises(T.TileError, match="'rz' cannot follow 'rn' in add.f32"):
        @T.function
        def bad(A: T.Tensor((1, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            T.ptx["add.rn.rz.f32"]


def test_other_definition_errors():
    with pytest.raises(T.TileError, match="needs a T.Tensor"):
        T.function(lambda A: None)
    with pytest.raises(T.TileError, match="must call T.device_entry"):
        @T.function
        def no_launch(A: T.Tensor((1, 1), "float32")):
            pass
    with pytest.raises(T.TileError, match="plain Python numbers have no PTX type"):
        @T.function
        def untyped(A: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            r = T.alloc_local((4, 1), "float32")
            T.cuda.tile.apply(T.ptx["add.f32"], r, r, 2.0)
    with pytest.raises(T.TileError, match="the slice extent must be static"):
        @T.function
        def dynamic_extent(A: T.Tensor((64, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=8))
            t = T.thread_id()
            A[t:t * 2]
    with pytest.raises(T.TileError, match="out of range"):
        @T.function
        def out_of_range(A: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            A[2:6]
    with pytest.raises(T.TileError, match="only valid inside a @T.function"):
        T.alloc_local((1, 1), "float32")


def test_typed_scalars_views_and_per_thread_slices():
    @T.function
    def scaled(A: T.Tensor((32, 2), "uint32"), Out: T.Tensor((32, 2), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=4))
        base = (T.block_id() * 4 + T.thread_id()) * 4
        w = T.alloc_local((4, 2), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v2.b32"], w, A[base:base + 4, :])
        # two halves 2.0 = 0x4000 each: the scalar is the whole carrier
        for col in range(2):
            T.cuda.tile.apply(T.ptx["mul.rn.f16x2"], w[:, col:col + 1], w[:, col:col + 1],
                              T.uint32(0x40004000))
        h = w[:, 0:1].view("uint16")
        T.cuda.tile.apply(T.ptx["neg.f16"], h[:, 0:1], h[:, 0:1])
        T.cuda.tile.apply(T.ptx["st.global.v2.b32"], Out[base:base + 4, :], w)

    k = tile_mlir.compile(scaled, target="sm_90")
    assert len(asm_lines(k.ptx, "mul.rn.f16x2")) == 8
    assert len(asm_lines(k.ptx, "neg.f16")) == 4
    assert "1073758208" in str(scaled.module) or "0x40004000" in str(scaled.module)


def test_artifact_round_trip(tmp_path):
    k = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90")
    path = tmp_path / "narrow_pairs.json"
    k.save(str(path))
    loaded = runtime.load(str(path))
    assert (loaded.name, loaded.ptx, loaded.cubin, loaded.target) == (k.name, k.ptx, k.cubin, "sm_90")
    # Only Out is stored to, so only Out is copied back after a launch.
    assert loaded.params == [runtime.Param("A", (4, 2), "float32", written=False),
                             runtime.Param("Out", (4, 1), "uint32", written=True)]
    assert (loaded.grid, loaded.block) == ((1, 1, 1), (1, 1, 1))
    assert json.load(open(path))["format"] == "tile-mlir-kernel/1"
    with open(tmp_path / "other.json", "w") as f:
        json.dump({"format": "something-else"}, f)
    with pytest.raises(runtime.ArtifactError, match="other.json: format: expected 'tile-mlir-kernel/1'"):
        runtime.load(str(tmp_path / "other.json"))


@pytest.mark.parametrize("args,message", [
    ((np.zeros((4, 2), "float32"),), r"narrow_pairs takes 2 arrays \(A, Out\), got 1"),
    ((np.zeros((4, 3), "float32"), np.zeros((4, 1), "uint32")), r"A: expected shape \(4, 2\), got \(4, 3\)"),
    ((np.zeros((4, 2), "float64"), np.zeros((4, 1), "uint32")), "A: expected dtype float32, got float64"),
    ((np.zeros((2, 4), "float32").T, np.zeros((4, 1), "uint32")), "A: expected a C-contiguous array"),
    ((np.zeros((4, 2), "float32"), [[0]] * 4), "Out: expected a numpy array or a CUDA array, got list"),
])
def test_arguments_are_checked_before_launch(args, message):
    k = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90")
    with pytest.raises(runtime.ArgumentError, match=message):
        k(*args)


def test_read_only_output_is_rejected():
    k = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90")
    out = np.zeros((4, 1), "uint32")
    out.flags.writeable = False
    with pytest.raises(runtime.ArgumentError, match="Out: the array is read-only"):
        k(np.zeros((4, 2), "float32"), out)


@pytest.mark.skipif(HAS_GPU, reason="checks the error without a GPU")
def test_no_gpu_is_an_error_at_call_time_not_import():
    k = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90")
    with pytest.raises(runtime.CudaError, match="no CUDA"):
        k(np.zeros((4, 2), "float32"), np.zeros((4, 1), "uint32"))


def test_runtime_imports_without_mlir_and_extension():
    code = ("import sys; sys.modules['mlir'] = None; sys.modules['tile_mlir._tile'] = None; "
            "import tile_mlir.runtime, tile_mlir.compat.tvm as tvm; "
            "print(hasattr(tile_mlir, 'compile'), tile_mlir.runtime.ARTIFACT_FORMAT)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "tile-mlir-kernel/1"]


@gpu
@pytest.mark.parametrize("module", [packed_add, abs_neg, narrow_pairs])
def test_spec_examples_run_unchanged(module):
    subprocess.run([sys.executable, module.__file__], check=True)


def test_warp_scope_from_python():
    @T.function
    def warp(A: T.Tensor((32, 4, 1), "float32"), Out: T.Tensor((32, 4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        r = T.alloc_local((32, 4, 1), "float32", scope="warp")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A, scope="warp")
        T.cuda.tile.apply(T.ptx["abs.f32"], r, r, scope="warp")
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out, r, scope="warp")

    k = tile_mlir.compile(warp, target="sm_90")
    assert len(asm_lines(k.ptx, "abs.f32")) == 4
    assert "%tid.x" in k.ptx and "shfl" not in k.ptx and "local" not in k.ptx
    with pytest.raises(T.TileError, match="owned by scope warp, but the apply runs at scope thread"):
        @T.function
        def mixed_scopes(A: T.Tensor((32, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            r = T.alloc_local((32, 1), "float32", scope="warp")
            T.cuda.tile.apply(T.ptx["abs.f32"], r, r)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_serial_is_a_runtime_loop():
    rows, threads = 64, 16

    @T.function
    def grid_stride(A: T.Tensor((rows, 1, 4), "int32"), Out: T.Tensor((rows, 1, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=8))
        t = T.block_id() * 8 + T.thread_id()
        for row in T.serial(t, rows, threads):
            a = T.alloc_local((1, 4), "int32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], a, A[row])
            T.cuda.tile.apply(T.ptx["neg.s32"], a.reshape((4, 1)), a.reshape((4, 1)))
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[row], a)

    text = str(grid_stride.module)
    assert text.count("scf.for") == 1 and text.count("tile.apply") == 3
    k = tile_mlir.compile(grid_stride, target="sm_90")
    # The body is traced once: one vector load, four negations and one
    # vector store in the loop, which LLVM may unroll but not drop.
    loads = len(asm_lines(k.ptx, "ld.global.v4.b32"))
    assert loads >= 1
    assert len(asm_lines(k.ptx, "neg.s32")) == 4 * loads
    assert len(asm_lines(k.ptx, "st.global.v4.b32")) == loads
    assert "bra" in k.ptx
    assert ".local" not in k.ptx


def test_serial_needs_a_positive_constant_step():
    with pytest.raises(T.TileError, match="T.serial takes a positive constant step"):
        @T.function
        def bad(A: T.Tensor((4, 1), "int32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            for _ in T.serial(0, 4, 0):
                pass


def test_every_public_name_of_the_front_end_has_a_docstring():
    import inspect

    missing = []
    names = [(name, getattr(T, name)) for name in T.__all__]
    names += [("cuda.tile.apply", T.cuda.tile.apply), ("cuda.LaunchConfig", T.cuda.LaunchConfig)]
    for name, obj in names:
        if callable(obj) and not inspect.getdoc(obj):
            missing.append(name)
        if inspect.isclass(obj):
            missing += [f"{name}.{m}" for m, f in vars(obj).items()
                        if not m.startswith("_") and callable(f) and not f.__doc__]
    assert missing == []


def loop_kernel(stop_dtype="int32", grid=4, start_at_thread=True):
    annotations = {"A": T.Tensor((4096, 1), "float32"), "Out": T.Tensor((4096, 1), "float32"),
                   "n": getattr(T, stop_dtype)}

    def body(A, Out, n):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=128))
        start = T.block_id() * 128 + T.thread_id() if start_at_thread else 0
        step = T.grid_dim() * 128 if start_at_thread else 1
        for i in T.serial(start, n, step):
            a = T.alloc_local((1, 1), "float32")
            T.cuda.tile.apply(T.ptx["ld.global.f32"], a, A[i:i + 1])
            T.cuda.tile.apply(T.ptx["st.global.f32"], Out[i:i + 1], a)

    def grid_stride(A, Out, n):
        body(A, Out, n)

    grid_stride.__annotations__ = annotations
    return T.function(grid_stride)


def loop_counters(fn):
    return re.findall(r"scf\.for (unsigned )?%\S+ = .*?(: i32)? \{", str(fn.module))


def test_a_loop_counts_in_32_bits_where_its_bounds_fit():
    # A grid-stride loop over an int32 n with a compiled-in grid: the start
    # is below 4 * 128, the stop an int32 (clamped at 0), the step 512.
    fn = loop_kernel()
    assert loop_counters(fn) == [("unsigned ", ": i32")]
    ptx = tile_mlir.compile(fn, target="sm_90", cache=False).ptx
    assert re.findall(r"setp\.\w+\.(\w+)", ptx) == ["s32", "u32"]  # the entry test, the back edge
    assert re.findall(r"^\s*max\.s32 ", ptx, re.M)  # the clamp of n at 0
    assert not re.search(r"setp\.\w+\.[bsu]64", ptx)
    # Constant bounds need no clamp.
    fn = loop_kernel(start_at_thread=False)
    assert loop_counters(fn) == [("unsigned ", ": i32")]


def test_a_loop_counts_in_64_bits_where_its_bounds_may_not_fit():
    # A grid chosen at launch may reach 2^31 - 1 blocks: t times 128 may not
    # fit; nor may an int64 stop. The start is still >= 0, so the 64-bit
    # counter compares unsigned: stop + step cannot wrap.
    assert loop_counters(loop_kernel(grid=None)) == [("unsigned ", "")]
    assert loop_counters(loop_kernel(stop_dtype="int64")) == [("unsigned ", "")]


def test_comparing_runtime_conditions_builds_the_comparison():
    # (t < 3) == (t < 4) was Python's object comparison: the constant False,
    # so the store never ran (mov.pred %p, 0).
    @T.function
    def compared(A: T.Tensor((32, 1), "float32"), Out: T.Tensor((32, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], a, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], a, pred=(t < 3) == (t < 4))
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], a, pred=(t < 3) != (t < 4))

    text = str(compared.module)
    assert "arith.cmpi eq" in text and "arith.xori" in text
    assert "constant false" not in text
    with pytest.raises(T.TileError, match="combines with another runtime condition"):
        @T.function
        def mixed(A: T.Tensor((32, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            (T.thread_id() < 3) == True  # noqa: E712


def test_index_minimum_maximum_and_where():
    # T.minimum / T.maximum of index expressions and T.where of a runtime
    # condition are index expressions (a clamped row, a copy's size); their
    # ranges bound a typed scalar made of them.
    @T.function
    def clamp(Out: T.Tensor((64, 3), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        t = T.thread_id()
        r = T.alloc_local((3, 1), "uint32")
        for i, value in enumerate((T.minimum(t, 40), T.maximum(t - 10, 5), T.where((t < 20) | (t > 50), 16, t))):
            T.cuda.tile.apply(T.ptx["mov.b32"], r[i:i + 1], T.uint32(value))
        for i in range(3):
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1, i:i + 1], r[i:i + 1])

    out = np.zeros((64, 3), np.uint32)
    tile_mlir.interpret(clamp, out)
    t = np.arange(64)
    assert np.array_equal(out, np.stack([np.minimum(t, 40), np.maximum(t - 10, 5),
                                         np.where((t < 20) | (t > 50), 16, t)], axis=1))
    assert "arith.minsi" in str(clamp.module) and "arith.select" in str(clamp.module)

    with pytest.raises(T.TileError, match=r"T\.uint8 of an index expression needs every value it takes to fit "
                                          r"\[0, 255\]; this one has \[250, 313\]"):
        @T.function
        def wide(Out: T.Tensor((64, 1), "uint8")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
            T.uint8(T.maximum(T.thread_id() + 250, 0))

    def mixed(expression, message):
        with pytest.raises(T.TileError, match=message):
            @T.function
            def k(Out: T.Tensor((64, 1), "uint8")):
                T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
                expression(T.thread_id())

    mixed(lambda t: T.minimum(t, 2.5), r"T\.minimum of an index expression takes index expressions and ints, "
                                       r"got float 2\.5")
    mixed(lambda t: T.where(t < 3, t, 2.5), r"T\.where of a runtime condition selects index expressions and ints, "
                                            r"got Index and float")
