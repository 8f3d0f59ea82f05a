"""The prepared launchers' calls of the driver (tile_mlir/launcher.py), on
the CPU: cuLaunchKernelEx replaced by a recorder of what it is given (the
configuration struct, the function, each parameter's words), so each test
proves what a launch on a GPU would be handed: the grid, the block, the
dynamic shared memory and the stream of each call, and the addresses and
memref descriptors in the parameter array."""

import ctypes
import re
import types

import pytest

import tile_mlir
from tile_mlir import launcher, runtime
from tile_mlir import script as T
from tile_mlir.kernels.configs import HopperGemmConfig, SplitKFinish
from tile_mlir.kernels.gemm_hopper import hopper_gemm

FUNCTION = 0x1234


class Recorder:
    """cuLaunchKernelEx's stand-in: each call's (grid, block, shared bytes,
    stream, function, the first `words` words of the parameters)."""

    def __init__(self, words):
        self.words, self.calls = words, []

    def __call__(self, config_address, function, params, extra):
        config = config_address._obj
        slots = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        self.calls.append(((config.gridDimX, config.gridDimY, config.gridDimZ),
                           (config.blockDimX, config.blockDimY, config.blockDimZ), config.sharedMemBytes,
                           config.hStream, function.value,
                           [ctypes.c_uint64.from_address(slots[i]).value for i in range(self.words)],
                           extra, config.numAttrs))
        return 0


def copy_kernel(rows):
    """Each thread copies one row of four words (`rows` None: a runtime
    extent, the grid given at launch)."""
    @T.function
    def copy(A: T.Tensor((rows, 4), "uint32"), Out: T.Tensor((rows, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=None if rows is None else rows // 32, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], r)
    kernel = tile_mlir.compile(copy, target="sm_90")
    kernel.function = lambda: ctypes.c_void_p(FUNCTION)
    return kernel


@pytest.fixture
def recorder(monkeypatch):
    def make(words):
        record = Recorder(words)
        monkeypatch.setattr(runtime, "driver", lambda: types.SimpleNamespace(lib=None))
        monkeypatch.setattr(launcher, "unconverted_entry", lambda name: record if name == "cuLaunchKernelEx" else None)
        return record
    return make


def test_a_prepared_launch_hands_the_driver_its_configuration_the_stream_and_the_addresses(recorder):
    record = recorder(2)
    launch = launcher.prepared(copy_kernel(64))
    launch(0x1000, 0x2000, stream=7)
    launch(0x3000, 0x4000, stream=7)
    launch(0x5000, 0x6000, stream=None)
    assert record.calls == [((2, 1, 1), (32, 1, 1), 0, stream, FUNCTION, pointers, None, 0)
                            for stream, pointers in ((7, [0x1000, 0x2000]), (7, [0x3000, 0x4000]),
                                                     (None, [0x5000, 0x6000]))]


def test_an_extent_launch_writes_each_memref_descriptor_and_the_grid(recorder):
    # The descriptor convention: each tensor's (allocated, aligned, offset,
    # sizes, strides), the rows a runtime extent; bound to 96 rows, or
    # given each call.
    record = recorder(14)
    extent = launcher.prepared(copy_kernel(None))
    bound = extent.bind((96, 96), (3, 1, 1))
    bound(0x1000, 0x2000, stream=5)
    extent(0x3000, 0x4000, extents=(32, 32), grid=(1, 1, 1), stream=6)
    def descriptors(rows, *addresses):
        return [word for a in addresses for word in (a, a, 0, rows, 4, 4, 1)]
    assert [call[:4] for call in record.calls] == [((3, 1, 1), (32, 1, 1), 0, 5), ((1, 1, 1), (32, 1, 1), 0, 6)]
    assert [call[5] for call in record.calls] == [descriptors(96, 0x1000, 0x2000), descriptors(32, 0x3000, 0x4000)]


def test_an_extent_launch_encodes_each_tensor_map_for_its_address_and_runtime_sizes(recorder, monkeypatch):
    # A runtime-extent tensor with a tensor map (the GEMM of a runtime M):
    # the map follows the tensor's descriptor in the parameters, encoded
    # for the call's address and sizes; bound, again only for an address
    # it does not hold.
    @T.function
    def rows(A: T.Tensor((None, 64), "uint16", tma=T.TensorMap((64, 64), "128B")),
             Out: T.Tensor((None, 64), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=None, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint16")
        T.cuda.tile.apply(T.ptx["ld.global.b16"], r, A[t:t + 1, 0:1])
        T.cuda.tile.apply(T.ptx["st.global.b16"], Out[t:t + 1, 0:1], r)
    kernel = tile_mlir.compile(rows, target="sm_90a")
    kernel.function = lambda: ctypes.c_void_p(FUNCTION)
    encoded = []

    def encode(lib, name, address, shape, dtype, box, swizzle):
        encoded.append((name, address, tuple(shape), box))
        held = tile_mlir.tensor_maps.TensorMapBytes()
        ctypes.c_uint64.from_address(held.address).value = 0xA000 + len(encoded)  # which encoding it is
        return held
    monkeypatch.setattr(tile_mlir.tensor_maps, "encode", encode)
    record = recorder(15)
    extent = launcher.prepared(kernel)
    assert extent.extents_of([(96, 64), (96, 64)]) == (96, 96)
    extent(0x1000, 0x2000, extents=(32, 32), grid=(1, 1, 1))
    bound = extent.bind_shapes([(96, 64), (96, 64)], (3, 1, 1))
    bound(0x1000, 0x2000)
    bound(0x1000, 0x3000)  # A's address held: no encoding
    bound(0x4000, 0x3000)
    assert encoded == [("A", 0x1000, (32, 64), (64, 64)), ("A", 0x1000, (96, 64), (64, 64)),
                       ("A", 0x4000, (96, 64), (64, 64))]

    def words(rows, a, out, encoding):
        return [a, a, 0, rows, 64, 64, 1, 0xA000 + encoding, out, out, 0, rows, 64, 64, 1]
    assert [call[5] for call in record.calls] == [words(32, 0x1000, 0x2000, 1), words(96, 0x1000, 0x2000, 2),
                                                  words(96, 0x1000, 0x3000, 2), words(96, 0x4000, 0x3000, 3)]
    assert [call[0] for call in record.calls] == [(1, 1, 1)] + [(3, 1, 1)] * 3


@pytest.mark.parametrize("make", [
    lambda: hopper_gemm(None, 256, 128, "bfloat16"),
    # swap-AB in one launch, rowwise scales: a runtime N, counters, five tensors
    lambda: hopper_gemm(256, None, 256, "e4m3", HopperGemmConfig(consumers=1, bn=64, stages=4, split_k=2, blocks=132),
                        finish=SplitKFinish("bfloat16", "row", True))])
def test_an_extent_launchs_parameters_are_the_ptx_entrys(recorder, make):
    # The parameter array against the kernel's own PTX signature, parsed
    # from the .entry: one slot a parameter, in order, an 8-byte word for
    # each descriptor field and a 128-byte tensor map where the entry takes
    # `.param .align 64 .b8 [128]`.
    recorder(0)
    kernel = tile_mlir.compile(make(), target="sm_90a")
    params = re.search(r"\.entry\s+\w+\((.*?)\)", kernel.ptx, re.S).group(1).split(",")
    assert all(re.search(r"\.param \.u64 |\.param \.align 64 \.b8 \w+\[128\]", p) for p in params), params
    sizes = [128 if "[128]" in p else 8 for p in params]
    kernel.function = lambda: ctypes.c_void_p(FUNCTION)
    shapes = [[7 if d is None else d for d in p.shape] for p in kernel.params]
    launch = launcher.prepared(kernel).bind_shapes(shapes, (1, 1, 1))
    first, held = ctypes.addressof(launch.words), ctypes.addressof(launch.pointers)
    words, pointers = range(first, first + 8 * len(launch.words), 8), range(held, held + 8 * len(launch.pointers), 8)
    slots = [launch.params[i] for i in range(len(launch.params))]
    assert [8 if s in words or s in pointers else 128 for s in slots] == sizes
    # Each tensor's descriptor: its address twice (allocated, aligned: the
    # tensor's one pointer), then its own words in order.
    starts = [i for i, s in enumerate(slots) if s in pointers][::2]
    assert [slots[i] for i in starts] == list(pointers) and all(slots[i + 1] == slots[i] for i in starts)
    used = [s for s in slots if s in words]
    assert used == sorted(set(used)) and len(used) == len(words) - 2 * len(pointers)
