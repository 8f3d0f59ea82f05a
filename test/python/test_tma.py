"""TMA (cp.async.bulk.tensor) through the Python API: the interpreter's
result against numpy (the box, zeros past the tensor, the swizzle modes as
the PTX ISA describes them, a store partly outside its tensor), its
asynchrony hazards, the runtime's checks of a tensor map, and the SASS the
kernel becomes."""

import collections
import json
import os
import re
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import runtime, tensor_maps
from tile_mlir import script as T

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path[:0] = [os.path.join(ROOT, "tools", "gpu"), os.path.join(ROOT, "tools", "sass")]
import bulk_check as B  # noqa: E402
import sass  # noqa: E402
import tma_check as C  # noqa: E402

SPAN = {"none": 0, "32B": 32, "64B": 64, "128B": 128}


def swizzle_bytes(raw, span):
    """The bytes of a box as a swizzled TMA places them (PTX ISA 9.0,
    5.5.7, "Tensor Swizzling Modes"): the 16-byte chunk at bits 4 and up
    of an offset trades places with the chunk its bits 7 and up select,
    within a pattern that repeats every 8 spans: 128B swaps 3 bits, 64B 2,
    32B 1."""
    if not span:
        return raw.copy()
    bits = {32: 1, 64: 2, 128: 3}[span]
    offsets = np.arange(raw.size)
    chunk = (offsets >> 4) & ((1 << bits) - 1)
    row = (offsets >> 7) & ((1 << bits) - 1)
    placed = (offsets & ~(((1 << bits) - 1) << 4)) | ((chunk ^ row) << 4)
    out = np.empty_like(raw)
    out[placed] = raw
    return out


def expected(rows, cols, box, swizzle, shift, a, load_shift=(0, 0)):
    """Out of tma_box: each block's box of A from its origin plus
    `load_shift` (zeros outside A), as read (plane 0), as its swizzled bytes
    (plane 1) and stored at the origin plus `shift` (plane 2)."""
    shape, (gy, gx) = C.out_shape(rows, cols, box)
    out = np.zeros(shape, np.uint16)
    margin = 256
    padded = np.zeros((shape[1] + 2 * margin, shape[2] + 2 * margin), np.uint16)
    padded[margin:margin + rows, margin:margin + cols] = a
    for by in range(gy):
        for bx in range(gx):
            r0, c0 = by * box[0], bx * box[1]
            r1, c1 = margin + r0 + load_shift[0], margin + c0 + load_shift[1]
            piece = padded[r1:r1 + box[0], c1:c1 + box[1]]
            out[0, r0:r0 + box[0], c0:c0 + box[1]] = piece
            raw = swizzle_bytes(piece.reshape(-1).view(np.uint8), SPAN[swizzle])
            out[1, r0:r0 + box[0], c0:c0 + box[1]] = raw.view(np.uint16).reshape(box)
            # The store at the shifted origin writes what lies inside Out.
            for r in range(box[0]):
                for c in range(box[1]):
                    y, x = r0 + r + shift[0], c0 + c + shift[1]
                    if 0 <= y < shape[1] and 0 <= x < shape[2]:
                        out[2, y, x] = piece[r, c]
    return out


@pytest.mark.parametrize("case", C.CASES, ids=[c[0] for c in C.CASES])
def test_interpreter_equals_numpy(case):
    name, rows, cols, box, swizzle, shift, *load_shift = case
    _, a, out = C.interpreted(*case)
    np.testing.assert_array_equal(out, expected(rows, cols, box, swizzle, shift, a, *load_shift))


@pytest.mark.parametrize("fault", C.FAULTS, ids=[f[0] for f in C.FAULTS])
def test_what_the_h200_faults_on_is_an_error(fault):
    name, box, swizzle, shift, load_shift = fault
    kernel = C.tma_box(100, 192, box, swizzle, shift, load_shift=load_shift)
    what = "stores at coordinates" if name.startswith("store_row") or "column_minus" in name else \
        "bytes from the tensor's start, not a multiple of 16"
    with pytest.raises(tile_mlir.InterpretError, match=what):
        tile_mlir.interpret(kernel, C.data(100, 192), np.zeros(C.out_shape(100, 192, box)[0], np.uint16))


def test_reading_the_box_before_the_wait_is_a_hazard():
    kernel = C.tma_box(40, 48, (16, 16), "32B", read_early=True)
    with pytest.raises(tile_mlir.HazardError, match=r"ld.shared.b16 touches the shared buffer of .*, which the "
                                                    r"cp.async.bulk at .*tma_check.py:\d+ has not "
                                                    "delivered: no mbarrier wait has seen the phase it completes"):
        tile_mlir.interpret(kernel, C.data(40, 48), np.zeros(C.out_shape(40, 48, (16, 16))[0], np.uint16))


def test_expecting_bytes_no_copy_supplies_never_completes():
    kernel = C.tma_box(16, 16, (16, 16), "32B", expect=16 * 16 * 2 + 16)
    with pytest.raises(tile_mlir.InterpretError, match=r"this loop never ends.*\(an mbarrier with every "
                                                       r"arrival made still expects 16 bytes\)"):
        tile_mlir.interpret(kernel, C.data(16, 16), np.zeros(C.out_shape(16, 16, (16, 16))[0], np.uint16))


def test_supplying_more_bytes_than_expected_never_completes():
    # The H200 hangs there (tools/gpu/results/tma_hazards.json, expect_half).
    kernel = C.tma_box(16, 16, (16, 16), "32B", expect=256)
    with pytest.raises(tile_mlir.InterpretError, match=r"this loop never ends.*got 256 bytes more than it "
                                                       r"expected \(its transaction count passed zero\)"):
        tile_mlir.interpret(kernel, C.data(16, 16), np.zeros(C.out_shape(16, 16, (16, 16))[0], np.uint16))


def test_committed_h200_runs():
    """tools/gpu/results: every case bit-exact with the interpreter; a read
    before the wait differs; bytes past the expected count hang; each
    FAULTS coordinate faults where the interpreter raises TmaFault."""
    import json
    results = os.path.join(ROOT, "tools", "gpu", "results")
    with open(os.path.join(results, "tma.json")) as f:
        report = json.load(f)
    assert sorted(report["passed"]) == sorted([c[0] for c in C.CASES] + ["multicast"])
    assert not report["mismatched"]
    with open(os.path.join(results, "tma_hazards.json")) as f:
        hazards = json.load(f)
    assert hazards["read_before_wait"]["differ"] > 0 and "hung" in hazards["expect_half"]
    with open(os.path.join(results, "tma_faults.json")) as f:
        faults = json.load(f)
    assert sorted(faults) == sorted(f[0] for f in C.FAULTS)
    for name, entry in faults.items():
        assert entry["gpu"] == "CUDA_ERROR_ILLEGAL_INSTRUCTION", name
        assert "the H200 faults" in entry["interpreter"] or "faults on the H200" in entry["interpreter"], name


def test_a_multicast_lands_in_every_block_its_mask_names():
    a = C.data(64, 64)
    out = np.zeros((2, 32, 64), np.uint16)
    tile_mlir.interpret(C.multicast_box(), a, out)
    np.testing.assert_array_equal(out, np.stack([a[:32], a[:32]]))
    # Only rank 1: block 0's phase never gets its bytes.
    with pytest.raises(tile_mlir.InterpretError, match="still expects 4096 bytes"):
        tile_mlir.interpret(C.multicast_box(mask=0b10), a, np.zeros((2, 32, 64), np.uint16))
    with pytest.raises(tile_mlir.InterpretError, match=r"ctaMask 0x0004 names no block, or ranks past its "
                                                       "cluster of 2 blocks"):
        tile_mlir.interpret(C.multicast_box(mask=0b100), a, np.zeros((2, 32, 64), np.uint16))


def _store_then_overwrite(waited):
    """Thread 0 stores a shared box by TMA; after a barrier, 16 threads
    write its first row, with or without cp.async.bulk.wait_group.read
    between (the store's read of its source)."""
    @T.function
    def k(Out: T.Tensor((16, 16), "uint16", tma=T.TensorMap((16, 16), "32B"))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        box = T.alloc_shared((16, 16), "uint16", align=256).swizzle("32B")
        t = T.thread_id()
        v = T.alloc_local((1, 1), "uint16")
        T.cuda.tile.apply(T.ptx["mov.b16"], v, T.uint16(7))
        with T.if_(t < 16):
            for r in range(16):
                T.cuda.tile.apply(T.ptx["st.shared.b16"], box[r:r + 1, t:t + 1], v)
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"], Out.tensor_map,
                              (0, 0), box)
            T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
            if waited:
                T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t < 16):
            T.cuda.tile.apply(T.ptx["st.shared.b16"], box[0:1, t:t + 1], v)  # the overwrite
    return k


def test_overwriting_a_store_source_before_its_wait_is_a_hazard(line_of):
    out = np.zeros((16, 16), np.uint16)
    tile_mlir.interpret(_store_then_overwrite(True), out)
    assert (out == 7).all()
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(_store_then_overwrite(False), np.zeros((16, 16), np.uint16))
    (hazard,) = caught.value.hazards
    assert str(hazard).startswith(f"{line_of('# the overwrite')}: st.shared.b16 writes the shared buffer of ")
    assert "which the cp.async.bulk.tensor store at" in str(hazard)
    assert str(hazard).endswith("may still read: no cp.async.bulk.wait_group.read covers its bulk group")


def test_the_runtime_refuses_what_the_driver_would():
    with pytest.raises(tensor_maps.TensorMapError, match="aligned to 16 bytes, got 0x1008"):
        tensor_maps.check("A", 0x1008, (64, 64), "uint16", (64, 64), 128)
    with pytest.raises(tensor_maps.TensorMapError, match="the stride along axis 0 is 104 bytes"):
        tensor_maps.check("A", 0x1000, (64, 52), "uint16", (8, 8), 0)
    with pytest.raises(tensor_maps.TensorMapError, match="extent 0 of axis 1 is not 1 to 2"):
        tensor_maps.check("A", 0x1000, (64, 0), "uint16", (8, 8), 0)
    tensor_maps.check("A", 0x1000, (3, 100, 192), "uint16", (1, 64, 64), 128)


def test_artifacts_keep_the_tensor_maps(tmp_path):
    kernel = tile_mlir.compile(C.tma_box(40, 48, (16, 16), "32B"), target="sm_90a")
    assert [p.tensor_maps for p in kernel.params] == [(((16, 16), 32),), (((1, 16, 16), 32),)]
    path = str(tmp_path / "k.json")
    kernel.save(path)
    assert runtime.load(path).params == kernel.params


def test_front_end_errors_are_located():
    with pytest.raises(T.TileError, match="swizzle is one of 'none', '32B', '64B', '128B', got '16B'"):
        T.TensorMap((8, 8), "16B")

    @T.function
    def wrong_coordinates(A: T.Tensor((64, 64), "uint16", tma=T.TensorMap((8, 8))),
                          B: T.Tensor((64, 64), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        with pytest.raises(T.TileError, match="a tuple stands for the registers of an integer source; "
                                              "this operand takes 2 registers of s32, got 3 values"):
            T.cuda.tile.apply(T.ptx[C.STORE.replace("3d", "2d")], A.tensor_map, (0, 0, 0),
                              T.alloc_shared((8, 8), "uint16", align=128))
        with pytest.raises(T.TileError, match="B has 0 tensor maps: give its T.Tensor tma="):
            B.tensor_map


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_sass_is_the_copies_written():
    compiled = tile_mlir.compile(C.tma_box(100, 192, (64, 64), "128B"), target="sm_90a")
    assert sass.NO_SPILLS.search(sass.ptxas_resources(compiled.ptx, arch="sm_90a"))
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert counts["UTMALDG"] == 1 and counts["UTMASTG"] == 1, counts
    text = sass.listing(compiled.cubin)
    assert len(re.findall(r"UTMALDG\.2D \[", text)) == 1 and len(re.findall(r"UTMASTG\.3D \[", text)) == 1
    # mbarrier.arrive.expect_tx, and the store's commit and wait.
    assert len(re.findall(r"SYNCS\.ARRIVE\.TRANS64 ", text)) == 1
    assert counts["UTMACMDFLUSH"] == 1 and counts["DEPBAR"] == 1, counts


def test_encode_passes_the_driver_the_axes_innermost_first():
    """cuTensorMapEncodeTiled's arguments for a (3, 100, 192) bf16 tensor and
    a (1, 64, 64) box swizzled 128B (cuda.h: dims and box innermost first,
    byte strides of the outer axes, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9)."""
    seen = {}

    class Lib:
        @staticmethod
        def cuTensorMapEncodeTiled(out, data_type, rank, address, dims, strides, box, element_strides, *modes):
            seen.update(data_type=data_type, rank=rank, address=address.value, dims=list(dims),
                        strides=list(strides), box=list(box), element_strides=list(element_strides),
                        modes=modes)
            return 0

    result = tensor_maps.encode(Lib, "Out", 0x10000, (3, 100, 192), "bfloat16", (1, 64, 64), 128)
    assert result.address % 64 == 0
    assert seen == {"data_type": 9, "rank": 3, "address": 0x10000, "dims": [192, 100, 3],
                    "strides": [384, 38400], "box": [64, 64, 1], "element_strides": [1, 1, 1],
                    "modes": (0, 3, 2, 0)}
    with pytest.raises(tensor_maps.TensorMapError, match=r"cuTensorMapEncodeTiled refused the tensor map "
                                                         r"\(CUresult 1\)"):
        Lib.cuTensorMapEncodeTiled = staticmethod(lambda *args: 1)
        tensor_maps.encode(Lib, "Out", 0x10000, (3, 100, 192), "bfloat16", (1, 64, 64), 128)


@pytest.mark.parametrize("multicast", [False, True], ids=["one_block", "multicast"])
def test_bulk_copies_equal_the_isa(multicast):
    """cp.async.bulk, not a tensor's: 256 bytes into shared memory through
    an mbarrier (and multicast into both blocks of a cluster), back by a
    bulk-group store; against values written from the ISA."""
    a, out = B.data(), np.zeros(B.BLOCKS * 2 * B.WORDS, np.uint32)
    tile_mlir.interpret(B.bulk_copy(multicast), a, out)
    want = B.expected(a, multicast)
    if not multicast:  # the second buffer is not stored
        out, want = out.reshape(B.BLOCKS, 2, -1)[:, 0], want.reshape(B.BLOCKS, 2, -1)[:, 0]
    np.testing.assert_array_equal(out, want)


def test_a_bulk_copy_into_another_block_equals_the_isa():
    """cp.async.bulk.shared::cluster.shared::cta into the other block of the
    cluster, completing its mbarrier (tile.mapa for both)."""
    a = B.peer_data()
    out = np.zeros_like(a)
    tile_mlir.interpret(B.peer_copy(), a, out)
    np.testing.assert_array_equal(out, B.peer_expected(a))
    ptx = tile_mlir.compile(B.peer_copy(), target="sm_90a", cubin=False).ptx
    assert "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes" in ptx
    assert ptx.count("mapa.shared::cluster.u64") == 2


def test_reading_a_bulk_load_before_its_wait_is_a_hazard():
    with pytest.raises(tile_mlir.HazardError, match=r"ld.shared.v2.b32 touches the shared buffer of .*, which the "
                                                    r"cp.async.bulk at .*bulk_check.py:\d+ has not delivered"):
        tile_mlir.interpret(B.bulk_copy(True, early=True), B.data(), np.zeros(B.BLOCKS * 2 * B.WORDS, np.uint32))


def test_a_misaligned_bulk_copy_is_a_fault():
    # A runtime offset the verifier cannot see: 8 bytes into the tensor.
    @T.function
    def k(A: T.Tensor((64,), "uint32"), Out: T.Tensor((64,), "uint32"), shift: T.int32):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        buf = T.alloc_shared((32,), "uint32", align=16)
        T.cuda.tile.apply(T.ptx["cp.async.bulk.global.shared::cta.bulk_group"], Out[shift:shift + 32], buf,
                          T.uint32(128), pred=T.thread_id() == 0)
    with pytest.raises(tile_mlir.InterpretError, match=r"test_tma.py:\d+: cp.async.bulk.global.shared::cta.bulk_group: "
                                                       r"thread 0's dstMem is 8 bytes into Out, not a multiple of 16"):
        tile_mlir.interpret(k, np.zeros(64, np.uint32), np.zeros(64, np.uint32), 2)


@pytest.mark.parametrize("op, dtype, subnormal", B.REDUCE,
                         ids=[f"{op}_{dtype}" + ("_subnormal" if s else "") for op, dtype, s in B.REDUCE])
def test_tma_reductions_equal_the_isa(op, dtype, subnormal):
    """cp.reduce.async.bulk.tensor from 4 blocks into one box: each element
    reduced atomically (no race between the blocks), in the tensor's type;
    f32 sums keep subnormals, as the H200 does."""
    a, out = B.reduce_data(dtype, subnormal)
    want = B.reduce_expected(op, a, out.copy())
    tile_mlir.interpret(B.tma_reduce(op, dtype), a, out)
    np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))


def test_a_reduction_the_interpreter_does_not_model_says_so():
    @T.function
    def k(Out: T.Tensor((32, 32), "float32", tma=T.TensorMap((32, 32), "none"))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        box = T.alloc_shared((32, 32), "float32", align=128)
        T.cuda.tile.apply(T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.xor.tile.bulk_group"],
                          Out.tensor_map, (0, 0), box, pred=T.thread_id() == 0)
    with pytest.raises(tile_mlir.InterpretError, match=r"test_tma\.py:\d+: the interpreter does not model cp.reduce.async.bulk"
                                                       r".tensor.2d.global.shared::cta.xor.tile.bulk_group on f32 "
                                                       "elements"):
        tile_mlir.interpret(k, np.zeros((32, 32), np.float32))


def test_committed_h200_bulk_runs():
    """The bulk copies (multicast included) and the TMA reductions, the
    subnormal f32 sums too, equal the interpreter bit for bit."""
    with open(os.path.join(ROOT, "tools", "gpu", "results", "bulk.json")) as f:
        report = json.load(f)
    assert report["kernels"] == 7 and not report["mismatched"]
    assert {"reduce_add_float32_subnormal", "bulk_multicast", "peer_copy"} <= set(report["passed"])


def _prefetch_then_copy(dims):
    """Thread 0 prefetches A's box at (8, 0) into L2 (a box partly past
    A's 24 rows), then every thread copies its row of A to Out by ld/st."""
    @T.function
    def k(A: T.Tensor((24, 16), "uint16", tma=T.TensorMap((16, 16), "none")), Out: T.Tensor((24, 16), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=24))
        t = T.thread_id()
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[f"cp.async.bulk.prefetch.tensor.{dims}.L2.global.tile"], A.tensor_map, (0, 8))
        row = T.alloc_local((1, 8), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], row[:, 0:4], A.view("uint32")[t:t + 1, 0:4])
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], row[:, 4:8], A.view("uint32")[t:t + 1, 4:8])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out.view("uint32")[t:t + 1, 0:4], row[:, 0:4])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out.view("uint32")[t:t + 1, 4:8], row[:, 4:8])
    return k


def test_an_l2_prefetch_of_a_box_is_emitted_as_written_and_changes_no_memory():
    # cp.async.bulk.prefetch.tensor (PTX ISA 9.0, 9.7.9.27): a box into L2
    # only, no shared memory, nothing to wait for; a box past the tensor is
    # no fault. ptxas makes it one UTMAPF.
    kernel = _prefetch_then_copy("2d")
    a = np.arange(24 * 16, dtype=np.uint16).reshape(24, 16)
    out = np.zeros_like(a)
    tile_mlir.interpret(kernel, a, out)
    assert np.array_equal(out, a)
    compiled = tile_mlir.compile(kernel, target="sm_90a")
    assert re.findall(r"cp\.async\.bulk\.prefetch\.tensor\.\S+", compiled.ptx) == \
        ["cp.async.bulk.prefetch.tensor.2d.L2.global.tile"]
    counts = collections.Counter(i.mnemonic for i in sass.instructions(compiled.cubin))
    assert counts["UTMAPF"] == 1, counts


def test_an_l2_prefetch_takes_as_many_coordinates_as_its_dimensions():
    with pytest.raises(T.TileError, match=r"test_tma.py:\d+: cp\.async\.bulk\.prefetch\.tensor\.3d\.L2\.global\.tile: "
                                          r"operand tensorCoords: .* takes 3 registers of s32, got 2 values"):
        _prefetch_then_copy("3d")


@T.function
def warm_then_read(W: T.Tensor((1024,), "uint32"), Out: T.Tensor((32, 1), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    T.cuda.tile.apply(T.ptx["cp.async.bulk.prefetch.L2.global"], W[0:1024], T.uint32(4096), pred=t == 0)
    v = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], v, W[t:t + 1].reshape((1, 1)))
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], v)


def test_a_bulk_prefetch_into_l2_is_emitted_and_changes_nothing():
    # cp.async.bulk.prefetch.L2 (issue 58): one instruction as written; it
    # reads W (a read-only W is accepted: it is not written) and nothing
    # the kernel can see changes.
    kernel = tile_mlir.compile(warm_then_read, cache=False)
    assert re.findall(r"cp\.async\.bulk\.prefetch\.L2\.global \[%rd\d+\], 4096;", kernel.ptx) and kernel.cubin
    assert warm_then_read.written == ("Out",)
    w, out = np.arange(1024, dtype=np.uint32), np.zeros((32, 1), np.uint32)
    tile_mlir.interpret(warm_then_read, w, out)
    assert (out[:, 0] == np.arange(32)).all()
    with pytest.raises(T.TileError, match=r"size: immediate 24 is not legal for cp.async.bulk.prefetch.L2.global"):
        @T.function
        def odd(W: T.Tensor((1024,), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            T.cuda.tile.apply(T.ptx["cp.async.bulk.prefetch.L2.global"], W[0:6], T.uint32(24))
