"""cp.async (issue #27): the copy and its groups, lowered as written
(LDGSTS, LDGDEPBAR and DEPBAR in SASS) and run by the interpreter with its
asynchrony: the bytes land at cp.async.wait_group, and a read of them
before is a reported hazard, from the PTX ISA (9.7.9.25)."""

import os
import re
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "sass"))
import sass  # noqa: E402

def pipeline(depth, wait, stages=4):
    """Each thread copies `stages` 16-byte rows of A into shared memory one
    group per row, waiting with `wait_group wait` before reading row i,
    which keeps `depth` groups in flight: right where wait <= the groups
    issued after row i."""

    @T.function
    def staged(A: T.Tensor((stages, 64, 4), "uint32"), Out: T.Tensor((stages, 64, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        S = T.alloc_shared((stages, 64, 4), "uint32")
        t = T.thread_id()
        r = T.alloc_local((1, 4), "uint32")
        for i in range(depth):
            T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[i, t:t + 1], A[i, t:t + 1], T.uint32(16))
            T.cuda.tile.apply(T.ptx["cp.async.commit_group"])
        for i in range(stages):
            if i + depth < stages:
                j = i + depth
                T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[j, t:t + 1], A[j, t:t + 1], T.uint32(16))
                T.cuda.tile.apply(T.ptx["cp.async.commit_group"])
            in_flight_after = min(depth, stages - 1 - i)
            T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(min(wait, in_flight_after) if wait >= 0
                                                                       else in_flight_after + 1))
            T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], r, S[i, t:t + 1])
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[i, t:t + 1], r)

    return staged


def test_a_pipeline_that_waits_right_reads_every_row():
    A = np.arange(4 * 64 * 4, dtype=np.uint32).reshape(4, 64, 4)
    out = np.zeros_like(A)
    tile_mlir.interpret(pipeline(depth=2, wait=2), A, out)
    assert np.array_equal(out, A)


def test_a_wait_one_group_short_is_a_hazard():
    # wait_group N+1 where N groups were issued after the row read: the
    # row's own group may still be in flight.
    A = np.arange(4 * 64 * 4, dtype=np.uint32).reshape(4, 64, 4)
    with pytest.raises(tile_mlir.HazardError, match=r"ld\.shared\.v4\.b32 touches .* which the cp\.async at "
                                                    r".* has not delivered: no cp\.async\.wait_group covers"):
        tile_mlir.interpret(pipeline(depth=2, wait=-1), A, np.zeros_like(A))


def refill_after_neighbours_read(barrier_before_copy):
    """Thread t reads row t + 1 of a shared tile, then copies A's row t over
    its own row: thread t - 1's read of it must be ordered before the copy
    is issued (the copy may land at once), not only before its wait."""

    @T.function
    def refill(A: T.Tensor((32, 4), "uint32"), Out: T.Tensor((32, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        S = T.alloc_shared((32, 4), "uint32")
        t = T.thread_id()
        r = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], S[t:t + 1], r)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        n = (t + 1) % 32
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], r, S[n:n + 1])  # the neighbour's row
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], r)
        if barrier_before_copy:
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[t:t + 1], A[t:t + 1], T.uint32(16))  # refill
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["cp.async.wait_all"])

    return refill


def test_a_copy_over_bytes_another_thread_may_still_read_is_a_race(line_of):
    a = np.arange(128, dtype=np.uint32).reshape(32, 4)
    out = np.zeros_like(a)
    tile_mlir.interpret(refill_after_neighbours_read(True), a, out)
    assert np.array_equal(out, np.roll(a, -1, axis=0))
    # Without the barrier the copy races with the read even though a
    # barrier orders the read before the wait that delivers the copy.
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(refill_after_neighbours_read(False), a, out)
    assert {(h.kind, h.first, h.second) for h in caught.value.hazards} == {
        ("write-after-read", line_of("# the neighbour's row"), line_of("# refill"))}


# Reduced from bench/gemm's pipeline with l2_priority by ddmin over its PTX
# lines: a shared address that is a uniform value (here the sum of two
# parameters) plus a register, and a policy.
POLICY_COPY = """.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 dst, .param .u64 off, .param .u64 src)
{
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [dst];
	ld.param.u64 %rd2, [off];
	ld.param.u64 %rd3, [src];
	createpolicy.fractional.L2::evict_last.b64 %rd5;
	add.s64 %rd4, %rd1, %rd2;
	cp.async.cg.shared.global.L2::cache_hint [%rd4], [%rd3], 16, %rd5;
	cp.async.wait_all;
	ret;
}
"""


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_ptxas_encodes_a_policy_copy_with_uniform_registers_nothing_writes():
    # The caveat of cp.async with .L2::cache_hint: at -O3 the LDGSTS takes
    # [R+UR0] and desc[UR1], written nowhere (the H200 stops such a kernel:
    # tools/gpu/results/cp_async_policy.json); at -O0 it names the policy's.
    optimized = sass.unwritten_uniform_reads(sass.assemble(POLICY_COPY, 3), "LDGSTS")
    assert [i.operands for i in optimized] == ["[R5+UR0], desc[UR1][R2.64]"]
    assert sass.unwritten_uniform_reads(sass.assemble(POLICY_COPY, 0), "LDGSTS") == []
    assert "cp.async with .L2::cache_hint into an LDGSTS" in ptx.parse(
        "cp.async.cg.shared.global.L2::cache_hint").caveat
    assert ptx.parse("cp.async.cg.shared.global.L2::256B").caveat == ""


def test_emitted_as_written():
    ptx = tile_mlir.compile(pipeline(depth=2, wait=2), target="sm_90").ptx
    copies = re.findall(r"cp\.async\.cg\.shared\.global \[%rd\d+\], \[%rd\d+\], 16;", ptx)
    assert len(copies) == 4
    # rows 2 and 3 are issued before rows 0 and 1 are read: 2 groups stay
    # in flight, then 1, then none.
    assert re.findall(r"cp\.async\.wait_group (\d+);", ptx) == ["2", "2", "1", "0"]
    assert ptx.count("cp.async.commit_group;") == 4


def test_sass_is_the_asynchronous_copy():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "sass"))
    import sass
    if not sass.available():
        pytest.skip("needs cuobjdump and nvdisasm (the test extra)")
    text = sass.listing(tile_mlir.compile(pipeline(depth=2, wait=2), target="sm_90").cubin)
    # Four 16-byte global-to-shared copies, a dependency barrier per commit,
    # and waits on it before the reads.
    assert len(re.findall(r"\bLDGSTS\.E\.BYPASS\.128\b", text)) == 4
    assert len(re.findall(r"\bLDGDEPBAR\b", text)) == 4
    assert re.findall(r"\bDEPBAR\.LE SB0, 0x(\d)", text) == ["2", "2", "1", "0"]


def zero_fill():
    """Thread t copies row t of A (16 bytes) with src-size 4 (t % 5): 0, 4,
    8, 12 or 16 bytes from A, the rest of the 16 zeros."""

    @T.function
    def fill(A: T.Tensor((64, 4), "uint32"), Out: T.Tensor((64, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        S = T.alloc_shared((64, 4), "uint32")
        t = T.thread_id()
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[t:t + 1], A[t:t + 1], T.uint32(16),
                          T.uint32(4 * (t % 5)))
        T.cuda.tile.apply(T.ptx["cp.async.wait_all"])
        r = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], r, S[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], r)

    return fill


def test_src_size_zero_fills_the_rest():
    # PTX ISA 9.7.9.25.3.1: src-size bytes come from src, the remaining
    # cp-size - src-size bytes of dst are zeros.
    a = np.arange(1, 64 * 4 + 1, dtype=np.uint32).reshape(64, 4)
    out = np.full_like(a, 0xDEADBEEF)
    tile_mlir.interpret(zero_fill(), a, out)
    want = np.array([[a[t, w] if w < t % 5 else 0 for w in range(4)] for t in range(64)], np.uint32)
    assert np.array_equal(out, want)


def test_src_size_is_emitted_and_assembled():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "sass"))
    import sass
    kernel = tile_mlir.compile(zero_fill(), target="sm_90")
    assert re.search(r"cp\.async\.cg\.shared\.global \[%rd\d+\], \[%rd\d+\], 16, %r\d+;", kernel.ptx)
    if not sass.available():
        pytest.skip("needs cuobjdump and nvdisasm (the test extra)")
    # The size register makes it a zero-filling copy.
    assert len(re.findall(r"\bLDGSTS\.E\.BYPASS\.128\.ZFILL\b",
                          sass.listing(kernel.cubin))) == 1


def test_a_copy_moves_bytes_whatever_the_element_widths():
    # 16 int8 elements of A into 4 uint32 words of shared memory: cp.async
    # moves cp-size bytes; each side's elements only name them (an
    # interpreter that copied element for element moved 4 of the 16).
    @T.function
    def widths(A: T.Tensor((64, 16), "int8"), Out: T.Tensor((64, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        S = T.alloc_shared((64, 4), "uint32")
        t = T.thread_id()
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[t:t + 1], A[t:t + 1], T.uint32(16),
                          T.uint32(t % 17))
        T.cuda.tile.apply(T.ptx["cp.async.wait_all"])
        r = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], r, S[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], r)

    a = np.random.default_rng(4).integers(-128, 128, (64, 16), dtype=np.int8)
    out = np.zeros((64, 4), np.uint32)
    tile_mlir.interpret(widths, a, out)
    want = np.array([[b if i < t % 17 else 0 for i, b in enumerate(a[t].view(np.uint8))] for t in range(64)],
                    np.uint8).view(np.uint32)
    assert np.array_equal(out, want)


def test_every_copy_form_follows_the_isa_in_the_interpreter():
    # tools/gpu/copy_check.py's cases (the H200 runs the same): every
    # lowered copy form and cp-size, without and with src-size (0 to
    # cp-size, odd sizes too), against the ISA written out there.
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
    import copy_check
    entries = copy_check.forms()
    # .ca: 4, 8, 16 bytes; .cg: 16; with and without .L2::cache_hint (its
    # policy last, after src-size)
    assert len(entries) == 2 * 2 * (8 * 3 + 8 * 1)
    for entry in entries:
        a, b, sizes, want = copy_check.case(entry, 7)
        out = np.zeros_like(a)
        tile_mlir.interpret(copy_check.kernel(entry), a, b, sizes, out)
        assert np.array_equal(out, want), entry
