"""Tutorial 3: transpose a 32 x 32 float32 tile through shared memory.

The one new idea: shared memory has 32 banks of 4 bytes, and a warp's
access to 32 words in one bank takes 32 turns (wavefronts). Writing rows
is conflict-free; reading a column of a row-major tile puts all 32 words
in one bank. A swizzle places each row's words at other banks (word c of
row r at c ^ r: CuTe's Swizzle<5, 2, 5> over byte offsets), so a column
read touches 32 banks, one turn. The kernel's indices stay those of the
row-major tile: `tile.swizzle(bits=5, base=2, shift=5)` moves the bytes.
The interpreter counts each access's wavefronts (`shared_banks={}`).
"""

import numpy as np

import tile_mlir
from tile_mlir import script as T


def transpose(swizzled: bool):
    @T.function
    def transpose(A: T.Tensor((32, 32), "float32"), Out: T.Tensor((32, 32), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        lane = T.thread_id()
        tile = T.alloc_shared((32, 32), "float32", align=128)
        if swizzled:
            tile = tile.swizzle(bits=5, base=2, shift=5)
        word = T.alloc_local((1, 1), "float32")
        for r in range(32):                               # lane l copies column l of each row
            T.cuda.tile.apply(T.ptx["ld.global.f32"], word, A[r:r + 1, lane:lane + 1])
            T.cuda.tile.apply(T.ptx["st.shared.f32"], tile[r:r + 1, lane:lane + 1], word)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        for r in range(32):                               # lane l reads row l of each column
            T.cuda.tile.apply(T.ptx["ld.shared.f32"], word, tile[lane:lane + 1, r:r + 1])
            T.cuda.tile.apply(T.ptx["st.global.f32"], Out[r:r + 1, lane:lane + 1], word)
    return transpose


def wavefronts(swizzled: bool):
    """(the transpose is right, {instruction: wavefronts over all its
    executions})."""
    a = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    out = np.zeros_like(a)
    banks = {}
    tile_mlir.interpret(transpose(swizzled), a, out, shared_banks=banks)
    totals = {}
    for (_, opcode), entry in banks.items():
        totals[opcode] = totals.get(opcode, 0) + entry["wavefronts"]
    return np.array_equal(out, a.T), totals


def main():
    plain_ok, plain = wavefronts(False)
    swizzled_ok, swizzled = wavefronts(True)
    assert plain_ok and swizzled_ok
    # 32 row writes of one wavefront each either way; the 32 column reads
    # take 32 wavefronts each unswizzled, one swizzled.
    assert plain == {"st.shared.f32": 32, "ld.shared.f32": 32 * 32}
    assert swizzled == {"st.shared.f32": 32, "ld.shared.f32": 32}
    return plain, swizzled


if __name__ == "__main__":
    print(main())
