"""Streaming kernels for the H200 bandwidth benchmark, written with the
tile_mlir script front end.

The *_gs kernels walk the tensor with a grid-stride loop (T.serial), as
torch's elementwise kernels do: a grid that fills the GPU once (SMS blocks
times the blocks an SM holds), each thread taking 16-byte rows t, t + T,
t + 2T, ... with T the threads of the grid.

add: each thread loads V x 16 bytes of A and of B (ld.global[.nc].v4.b32),
adjacent or a grid apart,
applies 4V add.rn.f16x2, and stores V x 16 bytes (st.global[.cs].v4.b32).
narrow: each thread loads 2V x 16 bytes of float32, applies 4V
cvt.rn.f16x2.f32 and stores V x 16 bytes of packed halves.
"""

from tile_mlir import script as T

HALVES = 1 << 29           # elements of each fp16 array
WORDS = HALVES // 2        # 32-bit words of packed halves
ROWS = WORDS // 4          # 16-byte rows of packed halves
SMS = 132                  # streaming multiprocessors of the H200


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


def grid_stride_add_kernel(block=256, blocks=SMS * 8):
    threads = block * blocks

    @T.function
    def stream_add_gs(A: T.Tensor((ROWS, 1, 4), "int32"), B: T.Tensor((ROWS, 1, 4), "int32"),
                      Out: T.Tensor((ROWS, 1, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=block))
        t = T.block_id() * block + T.thread_id()
        for row in T.serial(t, ROWS, threads):
            a = T.alloc_local((1, 4), "int32")
            b = T.alloc_local((1, 4), "int32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], a, A[row])
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], b, B[row])
            words = (1, 4, 1)
            T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a.reshape(words), a.reshape(words), b.reshape(words))
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[row], a)

    return stream_add_gs


def grid_stride_narrow_kernel(block=256, blocks=SMS * 8):
    threads = block * blocks

    @T.function
    def stream_narrow_gs(A: T.Tensor((ROWS, 2, 4), "float32"), Out: T.Tensor((ROWS, 1, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=block))
        t = T.block_id() * block + T.thread_id()
        for row in T.serial(t, ROWS, threads):
            a = T.alloc_local((2, 4), "float32")
            d = T.alloc_local((1, 4), "int32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], a, A[row])
            flat = a.reshape((8,))
            T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], d.reshape((4, 1)),
                              flat[1::2].reshape((4, 1)), flat[0::2].reshape((4, 1)))
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[row], d)

    return stream_narrow_gs


# name -> (factory, keyword arguments); the run reports every variant.
# Sweep 1 (gpu-sweep1.json) showed fewer vectors per thread win; sweep 2
# (gpu-sweep2.json) refined block sizes; sweep 3 tried grid-strided vectors;
# sweep 4 the grid-stride loop, beside the best of the earlier sweeps.
VARIANTS = {
    "add_v1_b1024": (add_kernel, dict(vectors=1, block=1024)),
    "add_s2_b256": (add_kernel, dict(vectors=2, block=256, strided=True)),
    "add_gs_b256_x8": (grid_stride_add_kernel, dict(block=256, blocks=SMS * 8)),
    "add_gs_b512_x4": (grid_stride_add_kernel, dict(block=512, blocks=SMS * 4)),
    "add_gs_b1024_x2": (grid_stride_add_kernel, dict(block=1024, blocks=SMS * 2)),
    "add_gs_b256_x16": (grid_stride_add_kernel, dict(block=256, blocks=SMS * 16)),
    "narrow_v1_b1024": (narrow_kernel, dict(vectors=1, block=1024)),
    "narrow_gs_b256_x8": (grid_stride_narrow_kernel, dict(block=256, blocks=SMS * 8)),
    "narrow_gs_b512_x4": (grid_stride_narrow_kernel, dict(block=512, blocks=SMS * 4)),
    "narrow_gs_b1024_x2": (grid_stride_narrow_kernel, dict(block=1024, blocks=SMS * 2)),
}
