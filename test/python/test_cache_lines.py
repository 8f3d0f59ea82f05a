"""discard.L2 and applypriority.L2::evict_normal (PTX ISA 9.0, 9.7.9.16-17):
one 128-byte line of global memory, aligned to 128. discard is a weak
write of unstable indeterminate values (the interpreter's bytes become
undefined, and a read that races with it is reported); applypriority
changes nothing a thread can see. Both are lowered as written and
assembled by ptxas."""

import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T


def line_kernel(opcode, first_byte):
    @T.function
    def lined(A: T.Tensor((256,), "uint8"), Out: T.Tensor((64, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        t = T.thread_id()
        T.cuda.tile.apply(T.ptx[opcode], A[first_byte:first_byte + 128], T.uint32(128), pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        word = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], word, A.view("uint32")[t:t + 1].reshape((1, 1)))
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1, :], word)
    return lined


def run(kernel):
    data = np.arange(256, dtype=np.uint8)
    out = np.zeros((64, 1), np.uint32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tile_mlir.interpret(kernel, data, out)
    return data, out, [str(w.message) for w in caught]


def test_applypriority_changes_nothing():
    data, out, caught = run(line_kernel("applypriority.global.L2::evict_normal", 128))
    assert (out[:, 0] == np.arange(256, dtype=np.uint8).view(np.uint32)).all()
    assert not any("undefined" in text for text in caught)


def test_discard_leaves_its_line_undefined():
    # Thread 0 discards bytes 128-255 (words 32-63); after the barrier the
    # words of the line are undefined, the others as they were.
    _, out, caught = run(line_kernel("discard.global.L2", 128))
    assert (out[:32, 0] == np.arange(128, dtype=np.uint8).view(np.uint32)).all()
    assert [text.split(" were stored")[0] for text in caught if "undefined" in text] == [
        "lined: 128 of 256 elements of A", "lined: 32 of 64 elements of Out"]


def test_a_line_not_aligned_to_128_bytes_is_refused_at_its_line():
    with pytest.raises(T.TileError, match=r"test_cache_lines\.py:\d+: 'tile.apply' op a: a \.v128 access of "
                                                  r"8-bit elements must be aligned to 128 bytes"):
        run(line_kernel("discard.global.L2", 64))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_lowered_as_written_and_assembled(tmp_path):
    text = tile_mlir.compile(line_kernel("discard.global.L2", 128), target="sm_80").ptx
    lines = [line.strip() for line in text.splitlines() if "discard" in line]
    assert len(lines) == 1 and re.fullmatch(r"@%p\d+ discard\.global\.L2 \[%rd\d+\+128\], 128;", lines[0])
    path = tmp_path / "k.ptx"
    path.write_text(text)
    subprocess.run(["ptxas", "-arch=sm_80", str(path), "-o", str(tmp_path / "k.cubin")], check=True)


def test_prefetch_lowered_and_changes_nothing(tmp_path):
    # prefetch{.space}.level and prefetchu.L1 (PTX ISA 9.7.9.15): a line
    # into a cache, lowered as written; the interpreter sees no change.
    @T.function
    def fetched(A: T.Tensor((64,), "uint32"), Out: T.Tensor((64,), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
        t = T.thread_id()
        T.cuda.tile.apply(T.ptx["prefetch.global.L2::evict_last"], A.view("uint8")[4 * t:4 * t + 1])
        T.cuda.tile.apply(T.ptx["prefetchu.L1"], A.view("uint8")[4 * t:4 * t + 1].generic())
        word = T.alloc_local((1,), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], word, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], word)

    data, out = np.arange(64, dtype=np.uint32) * 7, np.zeros(64, np.uint32)
    tile_mlir.interpret(fetched, data, out, target="sm_80")
    assert (out == data).all()
    text = tile_mlir.compile(fetched, target="sm_80").ptx
    assert re.search(r"^\s*prefetch\.global\.L2::evict_last \[%rd\d+\];$", text, re.M)
    assert re.search(r"^\s*prefetchu\.L1 \[%rd\d+\];$", text, re.M)
