"""membar and fence (issue 26): through tile.apply with no operands, emitted
as written in program order, and in the interpreter a fence orders only
its own thread's accesses: a store, a fence and another thread's load
without a barrier are still a race."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T


@T.function
def publish(Data: T.Tensor((64, 2), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    t = T.thread_id()
    T.cuda.tile.apply(T.ptx["st.global.b32"], Data[t:t + 1, 0:1], T.int32(7))
    T.cuda.tile.apply(T.ptx["fence.acq_rel.gpu"])
    T.cuda.tile.apply(T.ptx["membar.cta"])
    T.cuda.tile.apply(T.ptx["st.global.b32"], Data[t:t + 1, 1:2], T.int32(1))


def test_fences_are_emitted_in_program_order_between_the_stores():
    ptx = tile_mlir.compile(publish).ptx
    lines = [line.strip() for line in ptx.splitlines()
             if re.match(r"\s*(st\.global|fence|membar)", line)]
    assert [line.split()[0].rstrip(";") for line in lines] == [
        "st.global.b32", "fence.acq_rel.gpu", "membar.cta", "st.global.b32"]


def test_a_fence_runs_as_nothing_in_the_interpreter():
    data = np.zeros((64, 2), np.int32)
    tile_mlir.interpret(publish, data)
    assert data.tolist() == [[7, 1]] * 64


def test_a_fence_does_not_order_another_threads_load(line_of):
    @T.function
    def racy(Data: T.Tensor((64, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "int32")
        T.cuda.tile.apply(T.ptx["st.global.b32"], Data[t:t + 1], T.int32(3))  # the store
        T.cuda.tile.apply(T.ptx["fence.sc.gpu"])
        n = (t + 1) % 64
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, Data[n:n + 1])  # the neighbour's
        T.cuda.tile.apply(T.ptx["st.global.b32"], Data[t:t + 1], r)

    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(racy, np.zeros((64, 1), np.int32))
    assert [h.first for h in caught.value.hazards][:1] == [line_of("# the store")]
    assert caught.value.hazards[0].second == line_of("# the neighbour's")


def test_fence_floors_and_rules_follow_ptxas():
    assert tile_mlir.ptx.parse("fence.proxy.async.shared::cta", target="sm_90").min_sm == 90
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"fence needs a scope: one of cta, cluster, gpu, sys"):
        tile_mlir.ptx.parse("fence.sc")
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"'proxy' must come right after the name"):
        tile_mlir.ptx.parse("fence.alias.proxy")
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"requires sm_90"):
        tile_mlir.ptx.parse("fence.sc.cluster", target="sm_80")


@T.function
def tensor_map_fences(Map: T.Tensor((128,), "uint8"), Data: T.Tensor((32,), "int32")):
    """The writer's release and the user's acquire of a 128-byte tensor map
    in global memory (tile_mlir's maps are parameters: nothing edits this
    one), around a store the interpreter runs."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    T.cuda.tile.apply(T.ptx["fence.proxy.tensormap::generic.release.gpu"])
    T.cuda.tile.apply(T.ptx["fence.proxy.tensormap::generic.acquire.gpu"], Map.generic(), T.uint32(128))
    T.cuda.tile.apply(T.ptx["st.global.b32"], Data[t:t + 1], T.int32(3))


def test_tensormap_proxy_fences_are_emitted_as_written():
    # fence.proxy.tensormap::generic (sm_90, PTX 8.3): .release with no
    # operand, .acquire at the map's generic address with its 128 bytes.
    compiled = tile_mlir.compile(tensor_map_fences, target="sm_90a")
    lines = [line.strip() for line in compiled.ptx.splitlines() if "tensormap::generic" in line]
    assert lines[0] == "fence.proxy.tensormap::generic.release.gpu;"
    assert re.fullmatch(r"fence\.proxy\.tensormap::generic\.acquire\.gpu\s+\[%rd\d+\], 128;", lines[1])
    data = np.zeros(32, np.int32)
    tile_mlir.interpret(tensor_map_fences, np.zeros(128, np.uint8), data)
    assert (data == 3).all()
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"'acq_rel' is not a qualifier of "
                                                         r"fence.proxy.tensormap::generic"):
        tile_mlir.ptx.parse("fence.proxy.tensormap::generic.acq_rel.gpu")


@T.function
def tensor_map_copy(Maps: T.Tensor((128,), "uint8")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    staged = T.alloc_shared((128,), "uint8", align=128)
    T.cuda.tile.apply(T.ptx["tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned"],
                      Maps, staged, T.uint32(128))


def test_a_tensor_map_copied_with_its_proxy_fence():
    # tensormap.cp_fenceproxy (sm_90, PTX 8.3): every qualifier required,
    # 128 bytes from shared to global memory; emitted as written, refused
    # by the interpreter (its tensor maps are parameters).
    form = tile_mlir.ptx.parse("tensormap.cp_fenceproxy.tensormap::generic.release.cta.sync.aligned.global.shared::cta")
    assert [(o.name, o.space, o.sized_by) for o in form.operands] == [
        ("dst", "global", "size"), ("src", "shared", "size"), ("size", "reg", "")]
    assert (form.min_sm, form.min_ptx) == (90, 83)
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"tensormap.cp_fenceproxy needs 'aligned'"):
        tile_mlir.ptx.parse("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync")
    compiled = tile_mlir.compile(tensor_map_copy, target="sm_90a")
    lines = [line.strip() for line in compiled.ptx.splitlines() if "cp_fenceproxy" in line]
    assert len(lines) == 1 and re.fullmatch(
        r"tensormap\.cp_fenceproxy\.global\.shared::cta\.tensormap::generic\.release\.gpu\.sync\.aligned\s+"
        r"\[%rd\d+\], \[%r(d)?\d+\], 128;", lines[0])
    with pytest.raises(tile_mlir.InterpretError, match=r"test_fences.py:\d+: the interpreter does not model "
                                                       r"tensormap.cp_fenceproxy.* \(its tensor maps are parameters"):
        tile_mlir.interpret(tensor_map_copy, np.zeros(128, np.uint8))
