"""Programmatic dependent launch (issue 58): griddepcontrol in the table
and LaunchConfig(dependent=True) from the front end to the artifact and
the launch (bench/dependent_launch.py times it on the GPU)."""

import json
import os
import re
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import launcher, ptx, runtime
from tile_mlir import script as T
from tile_mlir.kernels import elementwise

HALVES = 8 * 1024


def test_forms_order_memory_from_sm_90():
    for spelling in ("griddepcontrol.wait", "griddepcontrol.launch_dependents"):
        form = ptx.parse(spelling, target="sm_90")
        assert form.orders_memory and form.operands == () and (form.min_sm, form.min_ptx) == (90, 78)
    with pytest.raises(ptx.PTXFormError, match=r"griddepcontrol.wait requires sm_90"):
        ptx.parse("griddepcontrol.wait", target="sm_80")
    with pytest.raises(ptx.PTXFormError) as error:
        ptx.parse("griddepcontrol")
    assert str(error.value) == "griddepcontrol needs a control: one of wait, launch_dependents"


def test_a_dependent_kernel_waits_before_its_first_load():
    kernel = tile_mlir.compile(elementwise.add_f16(HALVES, dependent=True), cache=False)
    assert kernel.dependent
    body = [line.strip() for line in kernel.ptx.splitlines()
            if re.match(r"\s*(griddepcontrol|ld\.global|st\.global)", line)]
    assert body[:2] == ["griddepcontrol.launch_dependents;", "griddepcontrol.wait;"]
    assert [b.split()[0] for b in body[2:]] == ["ld.global.v4.b32", "ld.global.v4.b32", "st.global.v4.b32"]
    plain = tile_mlir.compile(elementwise.add_f16(HALVES), cache=False)
    assert not plain.dependent and "griddepcontrol" not in plain.ptx


def test_the_artifact_keeps_the_launch_and_checks_it(tmp_path):
    kernel = tile_mlir.compile(elementwise.add_f16(HALVES, dependent=True), cache=False)
    path = tmp_path / "k.json"
    kernel.save(str(path))
    assert runtime.load(str(path)).dependent
    artifact = json.loads(path.read_text())
    artifact["dependent"] = "yes"
    path.write_text(json.dumps(artifact))
    with pytest.raises(runtime.ArtifactError, match=r"dependent: expected true or false, got 'yes'"):
        runtime.load(str(path))
    with pytest.raises(ValueError, match="no dependent launch"):
        launcher.prepared(kernel)


def test_a_dependent_kernel_without_a_wait_is_refused():
    with pytest.raises(T.TileError, match=r"unwaited: LaunchConfig\(dependent=True\) lets it start while the "
                                          r"kernel before it still runs; it reads what that kernel wrote only "
                                          r"after griddepcontrol.wait, and it has none"):
        @T.function
        def unwaited(A: T.Tensor((32, 1), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32, dependent=True))
            t = T.thread_id()
            r = T.alloc_local((1, 1), "uint32")
            T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
            T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], r)


def test_a_dependent_launch_needs_sm_90():
    with pytest.raises(tile_mlir.CompileError, match=r"stream_add is launched as a programmatic dependent, which "
                                                     r"needs sm_90 or newer; the target is sm_80"):
        tile_mlir.compile(elementwise.add_f16(HALVES, dependent=True), target="sm_80", cache=False)


def test_the_interpreter_runs_it_as_the_plain_kernel():
    # One interpreted launch has no grid before or after it: the wait and
    # the launch of dependents change nothing.
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(HALVES).astype(np.float16) for _ in range(2))
    outs = []
    for dependent in (False, True):
        out = np.zeros(HALVES, np.float16)
        words = (HALVES // 8, 1, 4)
        tile_mlir.interpret(elementwise.add_f16(HALVES, dependent=dependent), a.view(np.int32).reshape(words),
                            b.view(np.int32).reshape(words), out.view(np.int32).reshape(words))
        outs.append(out)
    assert np.array_equal(outs[0].view(np.uint16), (a + b).view(np.uint16))
    assert np.array_equal(outs[1].view(np.uint16), outs[0].view(np.uint16))


def test_committed_bench_run_gains_and_is_exact():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "results", "dependent_launch.json")
    with open(path) as f:
        report = json.load(f)
    assert report["device"].startswith("NVIDIA") and report["chain"] == 32
    for entry in report["sizes"].values():
        assert entry["exact"] == {"plain": True, "dependent": True}
        assert entry["ratio_vs_plain"] > 1.0


@T.function
def backoff(A: T.Tensor((32, 1), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    v = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], v, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["nanosleep.u32"], v)
    T.cuda.tile.apply(T.ptx["add.u32"], v, v, T.uint32(1))
    T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], v)


def test_nanosleep_is_kept_in_order_and_changes_no_value():
    # No result: only its side effects keep it in the PTX, between the load
    # and the add as written (sm_70, PTX 6.3; .u32 alone).
    ptx_text = tile_mlir.compile(backoff, cache=False).ptx
    order = re.findall(r"^\s*(ld\.global\.b32|nanosleep\.u32 %r\d+|add\.u32)", ptx_text, re.M)
    assert [o.split()[0] for o in order] == ["ld.global.b32", "nanosleep.u32", "add.u32"]
    assert (ptx.parse("nanosleep.u32").min_sm, ptx.parse("nanosleep.u32").min_ptx) == (70, 63)
    a = np.arange(32, dtype=np.uint32).reshape(32, 1)
    tile_mlir.interpret(backoff, a)
    assert (a[:, 0] == np.arange(1, 33)).all()


def test_trap_stops_the_launch_where_a_thread_executes_it():
    # trap (issue 58): emitted as written, guarded (thread 5 of 32: the GPU
    # check's kernel, tools/gpu/trap_check.py); in the interpreter the
    # launch stops with an error at the trap's line, naming the thread.
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
    import trap_check
    checked = trap_check.kernel()
    ptx_text = tile_mlir.compile(checked, cache=False).ptx
    assert len(re.findall(r"^\s*@%p\d+ trap;$", ptx_text, re.M)) == 1
    with pytest.raises(tile_mlir.InterpretError, match=r"checked: .*trap_check.py:\d+: thread 5 executed trap: the "
                                                       r"launch stops with an error"):
        tile_mlir.interpret(checked, np.zeros((32, 1), np.uint32))
    a = np.arange(32, dtype=np.uint32).reshape(32, 1)
    b = a.copy()
    with pytest.raises(tile_mlir.InterpretError):
        tile_mlir.interpret(checked, b)
    assert (b == a).all()  # nothing is copied back from a launch that failed


@T.function
def tail_exit(A: T.Tensor((64, 1), "uint32"), Out: T.Tensor((64, 1), "uint32")):
    # Threads past 40 exit; the others pass a barrier of the whole block
    # (it waits for the threads that have not exited) and read a neighbour.
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    t = T.thread_id()
    S = T.alloc_shared((64, 1), "uint32")
    v = T.alloc_local((1, 1), "uint32")
    with T.if_(t >= 40):
        T.cuda.tile.apply(T.ptx["exit"])
    T.cuda.tile.apply(T.ptx["ld.global.b32"], v, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["st.shared.b32"], S[t:t + 1], v)
    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
    T.cuda.tile.apply(T.ptx["ld.shared.b32"], v, S[(t + 1) % 40:(t + 1) % 40 + 1])
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], v)


def test_exit_ends_threads_and_the_barrier_waits_for_the_others():
    # PTX ISA 9.0: an exited thread runs nothing more, also after its
    # branch rejoins; bar.sync without a count waits for the threads that
    # have not exited. The PTX is the guarded exit as written.
    ptx_text = tile_mlir.compile(tail_exit, cache=False).ptx
    assert len(re.findall(r"^\s*exit;$", ptx_text, re.M)) == 1
    a = np.arange(64, dtype=np.uint32).reshape(64, 1) + 100
    out = np.full((64, 1), 7, np.uint32)
    tile_mlir.interpret(tail_exit, a, out)
    assert (out[:40, 0] == 100 + (np.arange(40) + 1) % 40).all()
    assert (out[40:, 0] == 7).all()  # never stored
