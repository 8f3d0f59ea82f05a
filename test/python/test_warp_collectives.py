"""vote, match, redux, elect and activemask (issue 26): through tile.apply,
lowered as written, and run by the interpreter. The kernels are tools/gpu's
(the H200 runs the same ones) and the expected values
tools/gpu/collective_specs.py's, computed from the PTX ISA's definitions
(9.7.13.8-12), per warp, over the lanes of the membermask."""

import os
import re
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
import build_artifacts  # noqa: E402
import collective_specs as specs  # noqa: E402

FULL = specs.FULL


@pytest.mark.parametrize("name", sorted(specs.CONFIGS))
def test_each_collective_follows_the_isa_over_its_mask(name):
    rng = np.random.default_rng(len(name))
    a = rng.choice(specs.VALUES, (specs.THREADS, 1))
    out = np.zeros((specs.THREADS, len(specs.COLUMNS)), np.int32)
    tile_mlir.interpret(build_artifacts.KERNELS[name], a, out)
    want = specs.expected(a.ravel(), *specs.CONFIGS[name])
    for column, what in enumerate(specs.COLUMNS):
        assert out[:, column].tolist() == want[:, column].tolist(), what


def test_collectives_are_emitted_as_written():
    ptx = tile_mlir.compile(build_artifacts.KERNELS["warp_collectives_full"]).ptx
    lines = [" ".join(line.split()) for line in ptx.splitlines()]
    ops = [line.split()[0] for line in lines
           if re.match(r"(vote|match|redux|elect|activemask)\.", line)]
    assert ops == ["vote.sync.all.pred", "vote.sync.any.pred", "vote.sync.uni.pred",
                   "vote.sync.ballot.b32", "match.any.sync.b32", "match.all.sync.b32",
                   "redux.sync.add.u32", "redux.sync.min.s32", "redux.sync.max.u32",
                   "redux.sync.xor.b32", "elect.sync", "activemask.b32"]
    assert any(re.fullmatch(r"elect\.sync %r\d+\|%p\d+, %r\d+;", line) for line in lines)
    assert any(re.fullmatch(r"match\.all\.sync\.b32 %r\d+\|%p\d+, %r\d+, %r\d+;", line)
               for line in lines)


def test_match_all_without_its_predicate_runs():
    # match.all.sync.b32 d, a, membermask (the predicate is optional): d is
    # the mask where every lane of it holds the same value, else 0. The
    # interpreter wrote the predicate it had not been given (a KeyError).
    @T.function
    def k(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["match.all.sync.b32"], r, r, T.uint32(FULL))
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)

    out = np.zeros((32, 1), np.uint32)
    tile_mlir.interpret(k, np.full((32, 1), 7, np.uint32), out)
    assert (out == FULL).all()
    tile_mlir.interpret(k, np.arange(32, dtype=np.uint32).reshape(32, 1), out)
    assert (out == 0).all()


def test_the_shuffle_predicate_says_whether_the_source_lane_was_in_range():
    @T.function
    def k(A: T.Tensor((32, 1), "int32"), Out: T.Tensor((32, 2), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((2, 1), "int32")
        p = T.alloc_local((1, 1), "bool")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r[0:1], A[t:t + 1])
        T.cuda.tile.apply(T.ptx["shfl.sync.down.b32"], r[0:1], p, r[0:1],
                          T.uint32(3), T.uint32(31), T.uint32(FULL))
        T.cuda.tile.apply(T.ptx["selp.b32"], r[1:2], T.int32(1), T.int32(0), p)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1, :].reshape((2, 1)), r)

    a = (np.arange(32, dtype=np.int32) * 11 - 50).reshape(32, 1)
    out = np.zeros((32, 2), np.int32)
    tile_mlir.interpret(k, a, out)
    lane = np.arange(32)
    inside = lane + 3 <= 31
    assert out[:, 0].tolist() == np.where(inside, a.ravel()[np.minimum(lane + 3, 31)], a.ravel()).tolist()
    assert out[:, 1].tolist() == inside.astype(int).tolist()
    text = " ".join(tile_mlir.compile(k).ptx.split())
    assert re.search(r"shfl\.sync\.down\.b32 %r\d+\|%p\d+, %r\d+, 3, 31, -1;", text)


def test_a_vote_that_half_its_mask_never_reaches_is_a_hazard(line_of):
    @T.function
    def k(A: T.Tensor((32, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "int32")
        p = T.alloc_local((1, 1), "bool")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["setp.ne.s32"], p, r, T.int32(0))
        with T.if_(t >= 8):
            T.cuda.tile.apply(T.ptx["vote.sync.ballot.b32"], r, p, T.uint32(FULL))  # the ballot
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], r)

    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(k, np.zeros((32, 1), "int32"))
    assert [str(h) for h in caught.value.hazards] == [
        f"{line_of('# the ballot')}: vote.sync.ballot.b32 in thread 8 (lane 8) waits for lane 0 "
        "of its membermask, which does not execute it"]


def test_a_thread_outside_its_own_mask_is_a_hazard(line_of):
    @T.function
    def k(A: T.Tensor((32, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["redux.sync.add.s32"], r, r, T.uint32(0xFFFF))  # half a mask
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], r)

    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(k, np.zeros((32, 1), "int32"))
    assert [str(h) for h in caught.value.hazards] == [
        f"{line_of('# half a mask')}: redux.sync.add.s32 in thread 16 (lane 16) is not in its own "
        "membermask"]


def test_floors_are_checked_against_the_target():
    with pytest.raises(tile_mlir.ptx.PTXFormError, match=r"elect\.sync requires sm_90"):
        tile_mlir.ptx.parse("elect.sync", target="sm_80")
    with pytest.raises(tile_mlir.ptx.PTXFormError,
                       match=r"requires sm_100a/f to sm_103a/f \(arch- or family-specific targets\)"):
        tile_mlir.ptx.parse("redux.sync.min.f32", target="sm_90a")
    assert tile_mlir.ptx.parse("redux.sync.max.abs.NaN.f32", target="sm_103f").min_sm == 100


# -- movmatrix (issue 58) -------------------------------------------------------------

def test_movmatrix_transposes_each_warps_matrix():
    # The GPU check's kernel and cases (tools/gpu/movmatrix_check.py: two
    # warps, the ISA's fragment written out there) in the interpreter.
    import movmatrix_check
    kernel = movmatrix_check.kernel({"opcode": movmatrix_check.OPCODE})
    for seed in range(3):
        given, want = movmatrix_check.case(seed)
        out = np.zeros_like(want)
        tile_mlir.interpret(kernel, given, out)
        assert (out == want).all()
    ptx_text = tile_mlir.compile(kernel, cache=False).ptx
    assert len(re.findall(r"movmatrix\.sync\.aligned\.m8n8\.trans\.b16 %r\d+, %r\d+;", ptx_text)) == 1


def test_movmatrix_with_lanes_missing_is_a_hazard(line_of):
    @T.function
    def k(A: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        with T.if_(t < 16):
            T.cuda.tile.apply(T.ptx["movmatrix.sync.aligned.m8n8.trans.b16"], r, r)  # half the warp
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], r)

    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(k, np.zeros((32, 1), "uint32"))
    assert [str(h) for h in caught.value.hazards] == [
        f"{line_of('# half the warp')}: movmatrix.sync.aligned.m8n8.trans.b16 in thread 16 (lane 16) leaves "
        "lanes of its warp out (movmatrix needs all 32)"]


def test_committed_gpu_run_of_movmatrix_matches_the_isa():
    import json
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu", "results", "movmatrix.json")) as f:
        report = json.load(f)
    assert report["device"].startswith("NVIDIA") and report["cases"] == 4 and report["mismatched"] == []
