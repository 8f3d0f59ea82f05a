"""The runtime's checks, on the CPU: artifacts are validated field by field
before anything reaches the driver, launches choose their grid and stream,
and CUDA arrays are checked like numpy ones."""

import json
import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import runtime
from tile_mlir import script as T

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "examples", "spec"))
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
import api_checks  # noqa: E402
import narrow_pairs  # noqa: E402


@pytest.fixture(scope="module")
def artifact(tmp_path_factory):
    path = tmp_path_factory.mktemp("artifact") / "narrow_pairs.json"
    tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90", cubin=False).save(str(path))
    return json.load(open(path))


@pytest.mark.parametrize("edit, message", [
    (lambda a: a.update(name="not a name"), r"name: 'not a name' is not a kernel name"),
    (lambda a: a.update(target="gfx90a"), r"target: expected sm_XX, sm_XXa or sm_XXf, got 'gfx90a'"),
    (lambda a: a.update(grid=[0, 1, 1]), r"grid: grid x is 0, outside 1..2147483647"),
    (lambda a: a.update(grid="8"), r"grid: grid is 1 to 3 positive integers, got '8'"),
    (lambda a: a.update(block=[1024, 2, 1]), r"block: \(1024, 2, 1\) has more than 1024 threads"),
    (lambda a: a.update(block=[1, 1, 65]), r"block: block z is 65, outside 1..64"),
    (lambda a: a.update(params={}), r"params: expected a list"),
    (lambda a: a["params"][0].update(shape=[4, -2]), r"params\[0\].shape: expected a list of non-negative"),
    (lambda a: a["params"][1].update(dtype="complex64"), r"params\[1\].dtype: expected one of bool, "),
    (lambda a: a["params"][1].update(written="yes"), r"params\[1\].written: expected true or false"),
    (lambda a: a.update(ptx=""), r"ptx: expected a non-empty string"),
    (lambda a: a.update(cubin="not base64!"), r"cubin: not base64"),
])
def test_load_names_the_file_and_the_field(tmp_path, artifact, edit, message):
    broken = json.loads(json.dumps(artifact))
    edit(broken)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(runtime.ArtifactError, match=f"broken.json: {message}"):
        runtime.load(str(path))


def test_load_rejects_what_is_not_json(tmp_path):
    path = tmp_path / "garbage.json"
    path.write_bytes(b"\x00\xff not json")
    with pytest.raises(runtime.ArtifactError, match="garbage.json: not readable as JSON"):
        runtime.load(str(path))


def grid_at_launch():
    @T.function
    def scale(A: T.Tensor((1024, 1), "float32"), Out: T.Tensor((1024, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=None, block=128))
        stride = T.grid_dim() * 128
        for row in T.serial(T.block_id() * 128 + T.thread_id(), 1024, stride):
            r = T.alloc_local((1, 1), "float32")
            T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[row:row + 1])
            T.cuda.tile.apply(T.ptx["add.f32"], r, r, r)
            T.cuda.tile.apply(T.ptx["st.global.f32"], Out[row:row + 1], r)
    return scale


def test_a_grid_chosen_at_launch_is_not_compiled_in(tmp_path):
    kernel = tile_mlir.compile(grid_at_launch(), target="sm_90", cubin=False)
    assert kernel.grid is None and "known_grid_size" not in kernel.mlir
    assert "%nctaid.x" in kernel.ptx
    assert kernel.launch_grid(8) == (8, 1, 1) and kernel.launch_grid((3, 1)) == (3, 1, 1)
    with pytest.raises(runtime.ArgumentError, match=r"compiled with LaunchConfig\(grid=None\): choose"):
        kernel.launch_grid(None)
    with pytest.raises(runtime.ArgumentError, match=r"the grid's x is 0, outside"):
        kernel.launch_grid(0)
    path = tmp_path / "scale.json"
    kernel.save(str(path))
    assert runtime.load(str(path)).grid is None
    assert "grid chosen at launch" in repr(kernel)


def test_a_compiled_grid_is_kept():
    kernel = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90", cubin=False)
    assert kernel.launch_grid(None) == (1, 1, 1) == kernel.launch_grid(1)
    with pytest.raises(runtime.ArgumentError, match=r"compiled for grid \(1, 1, 1\), which the lowering "
                                                     r"may assume; got \(2, 1, 1\)"):
        kernel.launch_grid(2)
    assert repr(kernel) == ("<tile-mlir kernel narrow_pairs for sm_90, grid (1, 1, 1), block (1, 1, 1), "
                            "(A: float32[4, 2], Out: uint32[4, 1])>")


class FakeStream:
    def __init__(self, **handle):
        self.__dict__.update(handle)


def test_streams_are_handles_or_carry_one():
    assert runtime.stream_handle(None) is None
    assert runtime.stream_handle(0x1234) == 0x1234
    assert runtime.stream_handle(FakeStream(cuda_stream=77)) == 77   # torch.cuda.Stream
    assert runtime.stream_handle(FakeStream(ptr=99)) == 99           # cupy.cuda.Stream
    with pytest.raises(runtime.ArgumentError, match="stream is a CUDA stream handle"):
        runtime.stream_handle("default")
    with pytest.raises(runtime.ArgumentError, match="stream is a CUDA stream handle"):
        runtime.stream_handle(-1)


class FakeCudaArray:
    def __init__(self, shape, typestr, pointer, read_only=False):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (pointer, read_only),
                                         "version": 3, "strides": None}


def test_cuda_arrays_are_checked_like_numpy_ones():
    kernel = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90", cubin=False)
    source = FakeCudaArray((4, 2), "<f4", 0x7000_0000)
    kernel.check_arguments([source, FakeCudaArray((4, 1), "<u4", 0x7000_1000)])
    with pytest.raises(runtime.ArgumentError, match=r"Out: the CUDA array is read-only"):
        kernel.check_arguments([source, FakeCudaArray((4, 1), "<u4", 0x7000_1000, read_only=True)])
    kernel.check_arguments([FakeCudaArray((4, 2), "<f4", 0x7000_0000, read_only=True),
                            FakeCudaArray((4, 1), "<u4", 0x7000_1000)])  # A is only read
    with pytest.raises(runtime.ArgumentError, match=r"Out: the CUDA array's pointer is 0, not a device"):
        kernel.check_arguments([source, FakeCudaArray((4, 1), "<u4", 0)])
    with pytest.raises(runtime.ArgumentError, match=r"A: the CUDA array's pointer is -8"):
        kernel.check_arguments([FakeCudaArray((4, 2), "<f4", -8), FakeCudaArray((4, 1), "<u4", 64)])


def test_a_runtime_loop_step_must_be_positive_when_it_runs():
    with pytest.raises(T.TileError, match="T.serial takes a positive constant step, or a positive multiple"):
        @T.function
        def bad(A: T.Tensor((8, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=None, block=8))
            for _ in T.serial(0, 8, T.thread_id()):  # 0 in thread 0
                pass


def test_committed_h200_run_of_the_api_checks():
    # tools/gpu/api_checks.py on the H200: a grid chosen at launch, on a
    # torch stream, for three grids; a predicate tile; T.ewise's silu.
    with open(os.path.join(ROOT, "tools", "gpu", "results", "api_checks.json")) as f:
        report = json.load(f)
    runs = report["double_grid_stride"]["runs"]
    assert [r["grid"] for r in runs] == [1, 7, 528] and all(r["mismatches"] == 0 for r in runs)
    assert report["magnitude"]["mismatches"] == 0 and report["magnitude_dlpack"]["mismatches"] == 0
    assert report["silu_mul"]["max_f32_ulp"] < 8
    # One kernel over a runtime n, for three sizes, each with its grid.
    sized = report["scale_n"]["runs"]
    assert [r["n"] for r in sized] == [1000, 12293, 1 << 20] and all(r["mismatches"] == 0 for r in sized)


def runtime_sized():
    """The runtime-n kernel that tools/gpu/api_checks.py runs on the H200."""
    return api_checks.kernels()["scale_n"]


def test_runtime_sizes_and_scalars_pass_descriptors(tmp_path):
    kernel = tile_mlir.compile(runtime_sized(), target="sm_90", cache=False)
    assert kernel.convention == "descriptor"
    assert "memref<?x4xf32, 1>" in kernel.mlir
    # Each rank-2 tensor is 7 parameters (2 pointers, offset, 2 sizes, 2
    # strides), then n and k by value.
    entry = kernel.ptx[kernel.ptx.find(".entry"):kernel.ptx.find(")")]
    assert entry.count(".param .u64") == 14 and ".param .u32" in entry and ".param .f32" in entry
    assert [(p.name, p.kind, p.shape) for p in kernel.params] == [
        ("A", "tensor", (None, 4)), ("Out", "tensor", (None, 4)), ("n", "scalar", ()), ("k", "scalar", ())]
    arrays = [FakeCudaArray((n, 4), "<f4", 0x7000_0000 + i) for i, n in enumerate((1000, 1000))]
    kernel.check_arguments(arrays + [1000, 1.5])
    with pytest.raises(runtime.ArgumentError, match=r"A: expected shape \(\?, 4\), got \(1000, 3\)"):
        kernel.check_arguments([FakeCudaArray((1000, 3), "<f4", 64), arrays[1], 1000, 1.5])
    with pytest.raises(runtime.ArgumentError, match=r"n: expected an integer \(int32\), got float"):
        kernel.check_arguments(arrays + [1000.0, 1.5])
    with pytest.raises(runtime.ArgumentError, match=r"n: 4294967296 does not fit int32"):
        kernel.check_arguments(arrays + [1 << 32, 1.5])
    path = tmp_path / "scale_n.json"
    kernel.save(str(path))
    loaded = runtime.load(str(path))
    assert (loaded.convention, loaded.params) == ("descriptor", kernel.params)
    assert "n: int32" in repr(loaded) and "A: float32[?, 4]" in repr(loaded)


def test_a_runtime_extent_is_the_kernels_to_bound():
    with pytest.raises(T.TileError, match=r"axis 0 has a runtime extent: give the slice's stop"):
        @T.function
        def open_slice(A: T.Tensor((None, 4), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            r = T.alloc_local((1, 4), "float32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], r, A[3:])
    with pytest.raises(T.TileError, match=r"cannot reshape a tensor with a runtime extent \(A\)"):
        @T.function
        def reshaped(A: T.Tensor((None, 4), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            A.reshape((4, 1))
    with pytest.raises(T.TileError, match=r"a scalar parameter is one of T.int32, T.int64, T.float32, "
                                           r"T.float64, got T.uint8"):
        @T.function
        def small(A: T.Tensor((4, 1), "float32"), n: T.uint8):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))


class DLPackOnly:
    """An array seen only through DLPack, on a chosen device; its capsule
    is numpy's, which is enough to check shapes and dtypes on a CPU."""

    def __init__(self, array, device=(2, 0)):
        self.array, self.device = array, device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()


def test_dlpack_arrays_are_read_through_their_capsule():
    kernel = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90", cubin=False)
    a, out = np.zeros((4, 2), "float32"), np.zeros((4, 1), "uint32")
    kernel.check_arguments([DLPackOnly(a), DLPackOnly(out)])
    with pytest.raises(runtime.ArgumentError, match=r"A: expected shape \(4, 2\), got \(2, 4\)"):
        kernel.check_arguments([DLPackOnly(np.zeros((2, 4), "float32")), DLPackOnly(out)])
    with pytest.raises(runtime.ArgumentError, match="A: expected dtype float32, got float64"):
        kernel.check_arguments([DLPackOnly(np.zeros((4, 2), "float64")), DLPackOnly(out)])
    with pytest.raises(runtime.ArgumentError, match="the array lives on CUDA device 1, but tile-mlir launches"):
        kernel.check_arguments([DLPackOnly(a, (2, 1)), DLPackOnly(out)])
    with pytest.raises(runtime.ArgumentError, match="a DLPack array in host memory: pass a numpy array"):
        kernel.check_arguments([DLPackOnly(a, (1, 0)), DLPackOnly(out)])
    view = runtime._as_cuda_array(DLPackOnly(a))
    assert view.__cuda_array_interface__["data"][0] == a.ctypes.data


def test_numpy_arrays_are_not_taken_for_dlpack_ones():
    # numpy arrays have __dlpack__ too (in host memory): they stay numpy.
    kernel = tile_mlir.compile(narrow_pairs.narrow_pairs, target="sm_90", cubin=False)
    kernel.check_arguments([np.zeros((4, 2), "float32"), np.zeros((4, 1), "uint32")])
