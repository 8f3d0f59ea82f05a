"""SwiGLU, silu(x) * y = x * y / (1 + 2^(-x log2 e)), over bf16 pairs, written
with the tile_mlir script front end and the instructions of issue #17.

Each thread loads one 16-byte vector of x and of y (four bf16x2 words, eight
values), widens each half to f32 with shl.b32 / and.b32 (a bf16 is the top
half of an f32), computes in f32 with ex2.approx.ftz.f32 and
rcp.approx.ftz.f32, rounds once to bf16x2 (cvt.rn.bf16x2.f32) and stores one
16-byte vector.
"""

from tile_mlir import script as T

ELEMENTS = 1 << 28           # bf16 values of each array
WORDS = ELEMENTS // 2        # bf16x2 words
VECTORS = WORDS // 4         # 16-byte vectors, one per thread
MINUS_LOG2E = -1.4426950408889634


def swiglu_kernel(block=1024):
    @T.function
    def swiglu(X: T.Tensor((VECTORS, 1, 4), "int32"), Y: T.Tensor((VECTORS, 1, 4), "int32"),
               Out: T.Tensor((VECTORS, 1, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=VECTORS // block, block=block))
        t = T.block_id() * block + T.thread_id()
        words = {}
        for name, tensor in (("x", X), ("y", Y)):
            packed = T.alloc_local((1, 4), "int32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], packed, tensor[t])
            # values 0-3: the low halves of the four words, 4-7: the high ones
            wide = T.alloc_local((8, 1), "int32")
            T.cuda.tile.apply(T.ptx["shl.b32"], wide[0:4], packed.reshape((4, 1)), T.uint32(16))
            T.cuda.tile.apply(T.ptx["and.b32"], wide[4:8], packed.reshape((4, 1)), T.uint32(0xFFFF0000))
            words[name] = wide
        x, y = words["x"], words["y"]
        s = T.alloc_local((8, 1), "int32")
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], s, x, T.float32(MINUS_LOG2E))
        T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], s, s)            # e^-x
        T.cuda.tile.apply(T.ptx["add.rn.f32"], s, s, T.float32(1.0))
        T.cuda.tile.apply(T.ptx["rcp.approx.ftz.f32"], s, s)            # sigmoid(x)
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], s, s, x)                 # silu(x)
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], s, s, y)
        out = T.alloc_local((1, 4), "int32")
        # the first source is the high half
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], out.reshape((4, 1)), s[4:8], s[0:4])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t], out)

    return swiglu


VARIANTS = {"swiglu_b1024": (swiglu_kernel, dict(block=1024)),
            "swiglu_b256": (swiglu_kernel, dict(block=256))}
