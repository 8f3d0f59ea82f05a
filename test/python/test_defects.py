"""Regression tests for the defects found from outside (silent wrong code,
crashes, lost locations): each failed before its fix. The GPU halves of the
silent-wrong-code items are in tools/gpu (runtime_slice, odd_view, aliased)."""

import inspect
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import runtime
from tile_mlir import script as T

HERE = os.path.abspath(__file__)


def line_of(marker):
    """The line of this file holding `marker` (a comment at a call site)."""
    with open(HERE) as f:
        for number, text in enumerate(f, 1):
            if text.rstrip().endswith(marker):
                return number
    raise AssertionError(marker)


def located(marker):
    return re.escape(f"{HERE}:{line_of(marker)}: ")


# -- silent wrong code ----------------------------------------------------------

def test_runtime_indexed_register_slice_stays_in_local_memory():
    # The kernel tools/gpu runs bit-exact on the H200 (runtime_slice).
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "..", "tools", "gpu"))
    import build_artifacts

    k = tile_mlir.compile(build_artifacts.runtime_slice, target="sm_90", stages=True)
    expanded = k.stages["tile-expand"]
    # The tile keeps its memory: its 32 slots are stored, and the slice at
    # the thread's index is loaded, negated, stored and loaded for the store.
    assert "memref.alloca() : memref<32x1xf32, 5>" in expanded
    assert "llvm.mlir.undef" not in expanded
    assert expanded.count("tile.instr \"neg.f32\"") == 1
    assert len(re.findall(r"^\s*neg\.f32\s", k.ptx, re.M)) == 1


def test_widening_view_at_an_unprovable_offset_is_rejected():
    def build(even):
        @T.function
        def words(A: T.Tensor((64, 1), "uint16"), Out: T.Tensor((32, 1), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            t = T.thread_id()
            r = T.alloc_local((1, 1), "uint32")
            base = 2 * t if even else t
            T.cuda.tile.apply(T.ptx["ld.global.b32"], r,
                              A[base:base + 2].reshape((1, 2)).view("uint32"))  # odd view
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)
        return words

    with pytest.raises(T.TileError, match=located("# odd view") +
                       r".*a view to 32-bit elements needs an offset that is a multiple of 2 "
                       r"16-bit elements.*not provably one"):
        build(even=False)
    k = tile_mlir.compile(build(even=True), target="sm_90")
    assert "ld.global.b32" in k.ptx


def test_integer_scalar_for_a_float_register_is_rejected():
    with pytest.raises(T.TileError, match=located("# int scalar") +
                       re.escape("'tile.apply' op rhs: a scalar read as f32 must be f32, got 'i32'")):
        @T.function
        def k(A: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            r = T.alloc_local((4, 1), "float32")
            T.cuda.tile.apply(T.ptx["add.f32"], r, r, T.int32(1))  # int scalar


@pytest.mark.parametrize("condition", [lambda t: t < 16, lambda t: t == 3, lambda t: t,
                                       lambda t: T.block_id() * 4 + t >= 8])
def test_python_control_flow_on_runtime_values_raises(condition):
    with pytest.raises(T.TileError, match=located("# runtime if") + ".*no truth value while tracing"):
        @T.function
        def k(A: T.Tensor((32, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            if condition(T.thread_id()):  # runtime if
                pass
    with pytest.raises(T.TileError, match=located("# runtime and") + ".*no truth value while tracing"):
        @T.function
        def k2(A: T.Tensor((32, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            t = T.thread_id()
            T.cuda.tile.apply(T.ptx["st.global.f32"], A[t:t + 1], A[t:t + 1],
                              pred=(t < 4) and (t > 1))  # runtime and


def test_if_is_a_branch_the_kernel_takes():
    @T.function
    def half(A: T.Tensor((32, 1), "float32"), Out: T.Tensor((32, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        with T.if_((t < 16) & ~t.eq(3)):
            r = T.alloc_local((1, 1), "float32")
            T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[t:t + 1])
            T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], r)

    assert "scf.if" in str(half.module)
    k = tile_mlir.compile(half, target="sm_90")
    assert re.search(r"^\s*setp\.", k.ptx, re.M) and re.search(r"^\s*@%p\d+ bra", k.ptx, re.M)
    with pytest.raises(T.TileError, match="T.if_ takes a runtime condition"):
        @T.function
        def k2(A: T.Tensor((32, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            with T.if_(True):
                pass


@pytest.mark.parametrize("make,message", [
    (lambda: T.int32(2**40), r"T.int32 must be in \[-2147483648, 2147483647\], got 1099511627776"),
    (lambda: T.uint8(-1), r"T.uint8 must be in \[0, 255\], got -1"),
    (lambda: T.int32(2.9), r"T.int32 takes an integer, got 2.9; round explicitly"),
    (lambda: T.float16(1e10), r"T.float16\(10000000000.0\) does not fit float16"),
    (lambda: T.bfloat16(3.5e38), r"T.bfloat16\(3.5e\+38\) does not fit bfloat16"),
    (lambda: T.float32(10**400), r"does not fit float32"),
])
def test_scalars_that_do_not_fit_are_errors(make, message):
    with pytest.raises(T.TileError, match=message):
        make()


def test_scalars_at_the_edges_fit():
    assert T.float16(65504.0).python_value == 65504.0
    assert T.float32(float("inf")).python_value == float("inf")
    assert T.uint32(0xFFFFFFFF).python_value == 0xFFFFFFFF
    assert T.int8(-128).python_value == -128


def launch_kernel(shape=(1, 1), grid=1, block=1):
    @T.function
    def k(A: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=block))
        T.alloc_local(shape, "float32")
    return k


@pytest.mark.parametrize("kwargs,message", [
    (dict(shape=(2.7, 1)), "a tile shape's axis 0 must be an integer, got 2.7"),
    (dict(shape=(-1, 1)), r"a tile shape's axis 0 must be in \[0, 9223372036854775807\], got -1"),
    (dict(shape=(2**70, 1)), "a tile shape's axis 0 must be in"),
    (dict(grid=1.7), "the grid's x must be an integer, got 1.7"),
    (dict(grid=2**40), r"the grid's x must be in \[1, 2147483647\]"),
    (dict(block=2048), r"the block's x must be in \[1, 1024\], got 2048"),
    (dict(block=(32, 32, 2)), r"a block of \(32, 32, 2\) has 2048 threads; CUDA allows at most 1024"),
])
def test_coercions_are_errors(kwargs, message):
    with pytest.raises(T.TileError, match=message):
        launch_kernel(**kwargs)


# -- crashes --------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,message", [
    (dict(opt_level=7), "O=7 is not 0, 1, 2 or 3"),
    (dict(opt_level=-1), "opt_level=-1 is out of range"),
])
def test_bad_compile_options_raise(kwargs, message):
    with pytest.raises(tile_mlir.CompileError, match=message):
        tile_mlir.compile(launch_kernel(), target="sm_90", **kwargs)


def test_target_text_cannot_reach_the_pipeline():
    with pytest.raises(ValueError, match=r"unknown chip 'sm_90\}, canonicalize'"):
        tile_mlir.compile(launch_kernel(), target="sm_90}, canonicalize")


MODULE = """module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90">, #nvvm.target<chip = "sm_100a">] {
    gpu.func @f() kernel { gpu.return }
  }
}"""


@pytest.mark.parametrize("kwargs,message", [
    (dict(opt_level=99), "O=99 is not 0, 1, 2 or 3"),
    (dict(format="cubin"), "format=cubin is not isa, bin or fatbin"),
    (dict(format="garbage"), "format=garbage is not isa, bin or fatbin"),
    (dict(ptx=60), "ptx=60 is too old for sm_90"),
    (dict(ptx=999), "ptx=999 is not a PTX ISA version this toolchain emits"),
])
def test_compile_module_options_raise(kwargs, message):
    with pytest.raises(tile_mlir.CompileError, match=message):
        tile_mlir.compile_module(MODULE, **kwargs)


def test_every_target_of_a_module_gives_an_object():
    objects = tile_mlir.compile_module(MODULE)
    assert sorted(objects) == ["k:sm_100a", "k:sm_90"]
    assert b".target sm_90\n" in objects["k:sm_90"]
    assert b".target sm_100a\n" in objects["k:sm_100a"]


def test_kernel_name_that_ptx_cannot_spell_is_a_located_error():
    @T.function  # bad name
    def kérnel(A: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))

    with pytest.raises(tile_mlir.CompileError, match=located("# bad name") +
                       "the kernel name 'kérnel' is not a PTX identifier"):
        tile_mlir.compile(kérnel, target="sm_90")


def test_values_do_not_cross_kernels():
    leaked = {}

    @T.function
    def first(A: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        leaked["tile"] = T.alloc_local((4, 1), "float32")
        leaked["index"] = T.thread_id()

    with pytest.raises(T.TileError, match="this Buffer was made in another @T.function"):
        @T.function
        def second(A: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            T.cuda.tile.apply(T.ptx["ld.global.f32"], leaked["tile"], A)
    with pytest.raises(T.TileError, match="this Index was made in another @T.function"):
        @T.function
        def third(A: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            A[leaked["index"]:leaked["index"] + 1]


FATAL_ERROR_SCRIPT = """
import sys
import tile_mlir
from mlir import ir
from mlir.passmanager import PassManager
MODULE = sys.argv[1]
with ir.Context():
    module = ir.Module.parse(MODULE.replace("@f()", '@"my kernel"()'))
    try:
        PassManager.parse("builtin.module(gpu.module(convert-gpu-to-nvvm), "
                          "gpu-module-to-binary{format=isa})").run(module.operation)
    except RuntimeError as error:
        print("raised:", error)
try:
    tile_mlir.compile_module(MODULE)
    print("compiled again")
except tile_mlir.CompileError as error:
    print("refused:", error)
"""


def test_an_llvm_fatal_error_raises_and_the_process_compiles_no_more():
    # A pipeline without tile-attach-target skips the kernel-name check, so
    # NVPTX reaches its fatal error: the second line of defence. The unwound
    # LLVM frames ran no destructors (LLVM is built without exceptions);
    # compiling on in the same process once freed a stack address and
    # returned empty PTX, so the process refuses to compile again. In a
    # subprocess: the fatal error taints the process that raised it.
    run = subprocess.run([sys.executable, "-c", FATAL_ERROR_SCRIPT, MODULE], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    raised, refused = run.stdout.splitlines()
    assert raised == "raised: LLVM fatal error: Symbol name with unsupported characters"
    assert refused == ("refused: an earlier LLVM fatal error in this process (Symbol name with "
                       "unsupported characters) left LLVM's state undefined; compile in a new "
                       "process")


# -- a legal program that failed ----------------------------------------------

def test_runtime_slice_of_a_broadcast_input():
    # Found by tools/difftest: a slice at a runtime index of a zero-stride
    # axis has a static offset, which memref.subview infers; the front end
    # called it dynamic and the subview was rejected.
    @T.function
    def k(A: T.Tensor((4, 1), "float32"), Out: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        r = T.alloc_local((4, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A)
        b = r[1:2].broadcast((4, 1))
        for i in T.serial(0, 4):
            T.cuda.tile.apply(T.ptx["add.f32"], r[i:i + 1], r[i:i + 1], b[i:i + 1])
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out, r)

    assert "add.f32" in tile_mlir.compile(k, target="sm_90").ptx


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64", "int16"])
def test_unwritten_registers_of_any_integer_type_compile(dtype):
    bits = np.dtype(dtype).itemsize * 8
    op = f"st.global.b{bits}"

    @T.function
    def partly(A: T.Tensor((2, 1), dtype), Out: T.Tensor((2, 1), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((2, 1), dtype)
        T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], r[0:1], A[0:1])
        T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], r, A, pred=t < 4, preserve_dst=True)
        T.cuda.tile.apply(T.ptx[op], Out, r)

    k = tile_mlir.compile(partly, target="sm_90")
    assert len(re.findall(r"^\s*" + re.escape(op) + r"\s", k.ptx, re.M)) == 2


# -- diagnostics ----------------------------------------------------------------

def test_compile_time_rules_keep_the_python_line():
    @T.function
    def pairs(A: T.Tensor((2, 1), "uint64")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        r = T.alloc_local((2, 1), "uint64")
        T.cuda.tile.apply(T.ptx["add.rn.f32x2"], r, r, r)  # floor

    with pytest.raises(tile_mlir.CompileError, match=located("# floor") +
                       "'tile.apply' op add.rn.f32x2 requires sm_100"):
        tile_mlir.compile(pairs, target="sm_90")

    @T.function
    def short_block(A: T.Tensor((32, 1, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=16))
        r = T.alloc_local((32, 1, 1), "float32", scope="warp")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A, scope="warp")  # block size

    with pytest.raises(tile_mlir.CompileError, match=located("# block size") +
                       "'tile.apply' op scope warp needs a block of a multiple of 32 threads, got 16"):
        tile_mlir.compile(short_block, target="sm_90")


def apply_with(*operands, opcode="add.f32", **options):
    @T.function
    def k(A: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        r = T.alloc_local((4, 1), "float32")
        T.cuda.tile.apply(opcode, *[r if o is None else o for o in operands], **options)  # apply
    return k


@pytest.mark.parametrize("kwargs,message", [
    (dict(operands=(None, None, 1.0)), "add.f32: operand rhs: expected a tile, a tensor or a typed "
     r"scalar \(e.g. T.float32\(1.0\)\), got float 1.0; plain Python numbers have no PTX type"),
    (dict(operands=(None, None, None), foo=1), "add.f32: unknown option foo=; tile.apply takes scope=, "
     "pred=, preserve_dst="),
    (dict(operands=(None, None), opcode=5), r"an opcode is a string such as T.ptx\[\"add.f32\"\], got 5"),
    (dict(operands=(None, None, None), scope=None), "add.f32: scope is 'thread', 'warp', 'warpgroup' "
     "or 'cta', got None"),
    (dict(operands=(None, None), opcode="abs.f32é"), "the opcode 'abs.f32é' contains 'é', which no "
     "PTX instruction spelling has"),
])
def test_front_end_errors_name_opcode_role_and_line(kwargs, message):
    operands = kwargs.pop("operands")
    with pytest.raises(T.TileError, match=located("# apply") + message):
        apply_with(*operands, **kwargs)


def test_tracing_does_not_build_the_whole_stack(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("inspect.stack() is too slow to call per op")

    monkeypatch.setattr(inspect, "stack", refuse)
    k = apply_with(None, None, None)
    assert "tile.apply" in str(k.module)


# -- the runtime's arrays -------------------------------------------------------

class FakeDriver:
    """Stands in for the CUDA driver: device memory is a dict of byte arrays
    and the "kernel" copies parameter 1 into parameter 0 plus one."""

    def __init__(self):
        self.memory, self.next, self.copies_back = {}, 1, 0

    def load(self, image, name, module=None):
        return "function"

    def alloc(self, nbytes):
        pointer, self.next = self.next, self.next + 1
        self.memory[pointer] = np.zeros(nbytes, "uint8")
        return pointer

    def to_device(self, pointer, array):
        self.memory[pointer][:] = np.frombuffer(array.tobytes(), "uint8")

    def to_host(self, array, pointer):
        self.copies_back += 1
        array.reshape(-1).view("uint8")[:] = self.memory[pointer]

    def allow_dynamic_shared(self, function, nbytes, name):
        self.dynamic_shared = nbytes

    def launch(self, function, grid, block, arguments, sync=True, stream=None, shared_bytes=0):
        # The runtime passes ctypes values (c_uint64 pointers).
        out, a = (self.memory[getattr(p, "value", p)].view("float32") for p in arguments)
        out[:] = a + np.float32(1)

    def free(self, pointer):
        del self.memory[pointer]


def copy_kernel():
    params = [runtime.Param("Out", (4,), "float32", written=True),
              runtime.Param("A", (4,), "float32", written=False)]
    return runtime.Kernel("copy", "", None, "sm_90", params, (1, 1, 1), (1, 1, 1))


def test_the_same_array_twice_is_one_buffer(monkeypatch):
    fake = FakeDriver()
    monkeypatch.setattr(runtime, "driver", lambda: fake)
    y = np.arange(4, dtype="float32")
    copy_kernel()(y, y)
    # One buffer for both parameters, copied back once: before, the
    # unchanged input's copy-back overwrote the output.
    assert fake.next == 2 and fake.copies_back == 1
    assert y.tolist() == [1, 2, 3, 4]


def test_read_only_inputs_are_accepted_and_not_copied_back(monkeypatch):
    fake = FakeDriver()
    monkeypatch.setattr(runtime, "driver", lambda: fake)
    a = np.arange(4, dtype="float32")
    a.flags.writeable = False
    out = np.zeros(4, "float32")
    copy_kernel()(out, a)
    assert out.tolist() == [1, 2, 3, 4] and fake.copies_back == 1


def test_overlapping_different_arrays_are_refused(monkeypatch):
    monkeypatch.setattr(runtime, "driver", lambda: FakeDriver())
    base = np.zeros(5, "float32")
    with pytest.raises(runtime.ArgumentError, match="Out and A are different arrays over overlapping memory"):
        copy_kernel()(base[:4], base[1:])


# -- tile-ptx -------------------------------------------------------------------

def tile_ptx(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "tile_mlir.cli", *args], input=stdin,
                          capture_output=True, text=True)


def test_tile_ptx_names_the_input_file(tmp_path):
    path = tmp_path / "broken.mlir"
    path.write_text("module {\n  func.func @f() {\n    return 1\n  }\n}\n")
    result = tile_ptx(str(path))
    assert result.returncode == 1
    assert result.stderr.startswith(f"tile-ptx: error: {path}:3: ")


def test_tile_ptx_missing_file_is_an_error_not_a_traceback(tmp_path):
    result = tile_ptx(str(tmp_path / "absent.mlir"))
    assert result.returncode == 1
    assert result.stderr == f"tile-ptx: error: cannot read {tmp_path / 'absent.mlir'}: No such file or directory\n"


def test_tile_ptx_refuses_options_the_module_overrides(tmp_path):
    path = tmp_path / "targeted.mlir"
    path.write_text('module attributes {gpu.container_module} {\n'
                    '  gpu.module @k [#nvvm.target<chip = "sm_90">] {\n  }\n}\n')
    result = tile_ptx(str(path), "--chip", "sm_100a")
    assert result.stderr == ("tile-ptx: error: --chip sm_100a conflicts with the module's target sm_90; "
                             "drop --chip or the module's #nvvm.target\n")
    result = tile_ptx(str(path), "-O", "1")
    assert "-O applies to gpu.modules without a target" in result.stderr
    assert tile_ptx(str(path), "--chip", "sm_90").returncode == 0


def test_tile_ptx_writes_one_object(tmp_path):
    path = tmp_path / "two.mlir"
    path.write_text(MODULE)
    result = tile_ptx(str(path))
    assert result.returncode == 1
    assert "compiles to 2 objects (k:sm_90, k:sm_100a); pick one with --module" in result.stderr
    result = tile_ptx(str(path), "--module", "k:sm_100a")
    assert result.returncode == 0 and result.stdout.count(".version") == 1
    assert ".target sm_100a" in result.stdout
