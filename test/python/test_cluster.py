"""Thread block clusters through the Python API: the launch's cluster, its
special registers and barrier.cluster in the interpreter (against values
written from the registers' definitions), the races it reports, the
checks of a cluster launch, and the committed H200 runs."""

import json
import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import runtime
from tile_mlir import script as T

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
import cluster_check as C  # noqa: E402


def test_interpreter_equals_the_registers_definitions():
    a, out = C.data(), np.zeros((C.ROWS, 6), np.uint32)
    tile_mlir.interpret(C.exchange(), a, out)
    np.testing.assert_array_equal(out, C.expected(a))


@pytest.mark.parametrize("options", [{"barrier": False}, {"relaxed": True}], ids=["no_barrier", "relaxed"])
def test_an_unordered_exchange_is_a_race(options):
    # .relaxed arrivals order no memory (PTX ISA 9.7.13.2).
    with pytest.raises(tile_mlir.HazardError, match=r"read-after-write race on Out byte \d+: thread 0 here, "
                                                    r"thread 32 at .*cluster_check.py:\d+"):
        tile_mlir.interpret(C.exchange(**options), C.data(), np.zeros((C.ROWS, 6), np.uint32))


def test_the_ptx_and_the_artifact_carry_the_cluster(tmp_path):
    kernel = tile_mlir.compile(C.exchange(), target="sm_90")
    assert ".explicitcluster\n.reqnctapercluster 2, 1, 1" in kernel.ptx
    assert "barrier.cluster.arrive.aligned;" in kernel.ptx and "barrier.cluster.wait.aligned;" in kernel.ptx
    kernel.save(str(tmp_path / "k.json"))
    assert runtime.load(str(tmp_path / "k.json")).cluster == (2, 1, 1)
    with pytest.raises(tile_mlir.CompileError, match=r"runs in clusters of \(2, 1, 1\) blocks, which need "
                                                     "sm_90 or newer; the target is sm_80"):
        tile_mlir.compile(C.exchange(), target="sm_80")


@pytest.mark.parametrize("launch, message", [
    (dict(grid=4, cluster=3), r"the grid \(4, 1, 1\) does not hold whole clusters of \(3, 1, 1\)"),
    (dict(grid=16, cluster=16), r"test_cluster.py:\d+: the cluster's x must be in \[1, 8\], got 16"),
    (dict(grid=(4, 4), cluster=(4, 4)), r"a cluster of \(4, 4, 1\) has 16 blocks; CUDA guarantees at most 8"),
    (dict(grid=None, cluster=2), r"a kernel with a cluster needs a fixed grid"),
])
def test_a_cluster_launch_is_checked(launch, message):
    with pytest.raises(T.TileError, match=message):
        @T.function
        def k(A: T.Tensor((1,), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(block=32, **launch))


def _barriers(arrivals, waits):
    @T.function
    def twice(A: T.Tensor((1, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
        for _ in range(arrivals):
            T.cuda.tile.apply(T.ptx["barrier.cluster.arrive"])
        for _ in range(waits):
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait"])
    return twice


def test_what_the_isa_leaves_undefined_is_an_error():
    with pytest.raises(tile_mlir.InterpretError, match="arrives again before its barrier.cluster.wait"):
        tile_mlir.interpret(_barriers(2, 1), np.zeros((1, 1), np.uint32))
    with pytest.raises(tile_mlir.InterpretError, match="thread 0 waits without arriving first"):
        tile_mlir.interpret(_barriers(0, 1), np.zeros((1, 1), np.uint32))


def test_committed_h200_runs():
    """The exchange and the ring through distributed shared memory are
    bit-exact; without a barrier all 256 reads of the partner's values, and
    all 512 of the ring's (its own tile and its sums), came back wrong."""
    results = os.path.join(ROOT, "tools", "gpu", "results")
    with open(os.path.join(results, "cluster.json")) as f:
        report = json.load(f)
    assert report["passed"] == ["exchange", "shared_ring"] and not report["mismatched"]
    with open(os.path.join(results, "cluster_hazards.json")) as f:
        hazards = json.load(f)
    assert {m["name"]: m["count"] for m in hazards["mismatched"]} == {"exchange_no_barrier": 256,
                                                                      "shared_ring_no_barrier": 512}


def test_the_cluster_sizes():
    @T.function
    def sizes(Out: T.Tensor((12, 3), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=(4, 3), block=1, cluster=(2, 1)))
        b = T.block_id("x") + 4 * T.block_id("y")
        v = T.alloc_local((1, 1), "uint32")
        for column, register in ((0, T.cluster_nctarank()), (1, T.cluster_count("x")), (2, T.cluster_count("y"))):
            T.cuda.tile.apply(T.ptx["mov.b32"], v, T.uint32(register))
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[b:b + 1, column:column + 1], v)

    out = np.zeros((12, 3), np.uint32)
    tile_mlir.interpret(sizes, out)
    assert (out == [2, 2, 3]).all()
    ptx = tile_mlir.compile(sizes, target="sm_90", cubin=False).ptx
    assert "%cluster_nctarank" in ptx and "%nclusterid.x" in ptx and "%nclusterid.y" in ptx



def _read_then_overwrite(second_barrier):
    """Each block reads its partner's published value after a cluster
    barrier, then overwrites its own: the partner's read must be ordered
    before the overwrite, by a second barrier."""
    @T.function
    def k(A: T.Tensor((64, 1), "uint32"), Out: T.Tensor((64, 2), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
        t, block = T.thread_id(), T.block_id()
        row, partner = block * 32 + t, (block ^ 1) * 32 + t
        v = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], v, A[row:row + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 1:2], v)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait"])
        T.cuda.tile.apply(T.ptx["ld.global.b32"], v, Out[partner:partner + 1, 1:2])  # the partner's read
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 0:1], v)
        if second_barrier:
            T.cuda.tile.apply(T.ptx["barrier.cluster.arrive"])
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait"])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1, 1:2], v)  # the overwrite
    return k


def test_a_read_is_ordered_before_a_later_phase_s_write(line_of):
    a = np.arange(64, dtype=np.uint32).reshape(64, 1)
    out = np.zeros((64, 2), np.uint32)
    tile_mlir.interpret(_read_then_overwrite(True), a, out)
    assert (out[:, 0] == np.r_[np.arange(32, 64), np.arange(32)]).all()
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(_read_then_overwrite(False), a, np.zeros((64, 2), np.uint32))
    kinds = {(h.kind, h.first, h.second) for h in caught.value.hazards}
    assert ("write-after-read", line_of("# the partner's read"), line_of("# the overwrite")) in kinds


def test_distributed_shared_memory_equals_the_isa():
    """tile.mapa's blocks (rank + 1, + 2, - 1 of the cluster), through
    st/red/ld.shared::cluster, against values written from the ISA."""
    a, out = C.data(), np.zeros((C.ROWS, 3), np.uint32)
    tile_mlir.interpret(C.shared_ring(), a, out)
    np.testing.assert_array_equal(out, C.ring_expected(a))
    ptx = tile_mlir.compile(C.shared_ring(), target="sm_90", cubin=False).ptx
    assert ptx.count("mapa.shared::cluster.u64") == 3
    for instruction in ("st.shared::cluster.b32", "red.relaxed.cluster.shared::cluster.add.u32",
                        "ld.shared::cluster.b32", "ld.shared::cta.b32"):
        assert instruction in ptx


def test_another_block_s_shared_memory_races_without_a_cluster_barrier(line_of):
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(C.shared_ring(barrier=False), C.data(), np.zeros((C.ROWS, 3), np.uint32))
    kinds = {h.kind for h in caught.value.hazards}
    assert kinds == {"read-after-write"}
    # Thread 0 reads its own tile, which thread 96 (rank 3, the block
    # before it in the ring of 4) stored through tile.mapa.
    assert any(h.threads == (96, 0) for h in caught.value.hazards)


def test_a_block_must_not_exit_while_another_reads_its_shared_memory():
    """Shared memory ends with its block (PTX ISA 9.0, distributed shared memory): the ring's
    last barrier.cluster keeps each block alive until the next one has read
    its tile."""
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(C.shared_ring(exit_barrier=False), C.data(), np.zeros((C.ROWS, 3), np.uint32))
    (hazard,) = caught.value.hazards
    assert hazard.kind == "access-before-exit" and hazard.second == "the kernel's end"
    assert hazard.threads == (32, 0)  # block 1 reads block 0's tile
    assert "cluster_check.py:" in hazard.first and "shared buffer of" in hazard.buffer


def _map_rank(rank, space="shared"):
    @T.function
    def k(Out: T.Tensor((64, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
        t = T.thread_id()
        tile = T.alloc_shared((32, 1), "uint32") if space == "shared" else T.alloc_local((32, 1), "uint32")
        v = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], v, T.uint32(t))
        T.cuda.tile.apply(T.ptx["st.shared::cluster.b32"], tile.of_block(rank(T.cluster_ctarank()))[t:t + 1], v)
    return k


def test_a_rank_outside_the_cluster_is_a_fault():
    with pytest.raises(tile_mlir.InterpretError, match=r"test_cluster.py:\d+: mapa.shared::cluster: thread 0 "
                                                       r"maps rank 2, but its cluster has 2 blocks \(ranks 0 to "
                                                       r"1\); PTX leaves the address undefined"):
        tile_mlir.interpret(_map_rank(lambda rank: rank + 2), np.zeros((64, 1), np.uint32))


def test_only_shared_tiles_are_mapped():
    with pytest.raises(T.TileError, match=r"test_cluster.py:\d+: of_block maps a shared tile "
                                          r"\(T.alloc_shared\), not this tile"):
        _map_rank(lambda rank: 0, space="registers")
