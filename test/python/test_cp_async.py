"""cp.async (issue #27): the copy and its groups, lowered as written
(LDGSTS, LDGDEPBAR and DEPBAR in SASS) and run by the interpreter with its
asynchrony: the bytes land at cp.async.wait_group, and a read of them
before is a reported hazard, from the PTX ISA (9.7.9.25)."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T

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
