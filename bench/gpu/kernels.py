"""Streaming kernels for the H200 bandwidth benchmark, written with the
tile_mlir script front end.

add: each thread loads V x 16 bytes of A and of B (ld.global[.nc].v4.b32),
adjacent or a grid apart,
applies 4V add.rn.f16x2, and stores V x 16 bytes (st.global[.cs].v4.b32).
narrow: each thread loads 2V x 16 bytes of float32, applies 4V
cvt.rn.f16x2.f32 and stores V x 16 bytes of packed halves.
"""

from tile_mlir import script as T

HALVES = 1 << 29           # elements of each fp16 array
WORDS = HALVES // 2        # 32-bit words of packed halves


def add_kernel(vectors=2, block=256, load="ld.global.v4.b32", store="st.global.v4.b32",
               strided=False):
    """With `strided`, each thread's vectors lie a whole grid apart, so every
    load instruction of a warp reads 512 contiguous bytes; otherwise a
    thread's vectors are adjacent."""
    threads = WORDS // (4 * vectors)
    shape = (vectors, threads, 4) if strided else (threads, vectors, 4)

    @T.function
    def stream_add(A: T.Tensor(shape, "int32"), B: T.Tensor(shape, "int32"),
                   Out: T.Tensor(shape, "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=threads // block, block=block))
        t = T.block_id() * block + T.thread_id()

        def mine(tensor):
            return tensor[:, t] if strided else tensor[t]

        a = T.alloc_local((vectors, 4), "int32")
        b = T.alloc_local((vectors, 4), "int32")
        T.cuda.tile.apply(T.ptx[load], a, mine(A))
        T.cuda.tile.apply(T.ptx[load], b, mine(B))
        words = (vectors, 4, 1)
        T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a.reshape(words), a.reshape(words), b.reshape(words))
        T.cuda.tile.apply(T.ptx[store], mine(Out), a)

    return stream_add


def narrow_kernel(vectors=1, block=256, load="ld.global.v4.f32", store="st.global.v4.b32"):
    threads = WORDS // (4 * vectors)

    @T.function
    def stream_narrow(A: T.Tensor((threads, 2 * vectors, 4), "float32"),
                      Out: T.Tensor((threads, vectors, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=threads // block, block=block))
        t = T.block_id() * block + T.thread_id()
        a = T.alloc_local((2 * vectors, 4), "float32")
        d = T.alloc_local((vectors, 4), "int32")
        T.cuda.tile.apply(T.ptx[load], a, A[t])
        # word k packs float 2k (low half) and float 2k + 1 (high half)
        pairs = (4 * vectors, 1)
        flat = a.reshape((8 * vectors,))
        T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], d.reshape(pairs),
                          flat[1::2].reshape(pairs), flat[0::2].reshape(pairs))
        T.cuda.tile.apply(T.ptx[store], Out[t], d)

    return stream_narrow


# name -> (factory, keyword arguments); the run reports every variant.
# Sweep 1 (gpu-sweep1.json) showed fewer vectors per thread win; sweep 2
# (gpu-sweep2.json) refined block sizes; sweep 3 tries grid-strided vectors.
VARIANTS = {
    "add_v1_b1024": (add_kernel, dict(vectors=1, block=1024)),
    "add_v1_b128": (add_kernel, dict(vectors=1, block=128)),
    "add_s2_b256": (add_kernel, dict(vectors=2, block=256, strided=True)),
    "add_s2_b512": (add_kernel, dict(vectors=2, block=512, strided=True)),
    "add_s2_b1024": (add_kernel, dict(vectors=2, block=1024, strided=True)),
    "add_s4_b256": (add_kernel, dict(vectors=4, block=256, strided=True)),
    "add_s4_b1024": (add_kernel, dict(vectors=4, block=1024, strided=True)),
    "narrow_v1_b1024": (narrow_kernel, dict(vectors=1, block=1024)),
}
