"""Streaming kernels, one 16-byte vector of each input a thread:

- `swiglu`: silu(x) * y = x * y / (1 + 2^(-x log2 e)) over bf16 pairs. Each
  thread widens its eight values of x and of y to f32 (shl.b32 / and.b32:
  a bf16 is the top half of an f32), computes with ex2.approx.ftz.f32 and
  rcp.approx.ftz.f32, rounds once (cvt.rn.bf16x2.f32) and stores one
  vector;
- `add_f16`: a + b over packed halves (add.rn.f16x2); with `dependent`, a
  link of a chain of launches (programmatic dependent launch): it lets the
  next kernel start (griddepcontrol.launch_dependents), then waits for the
  one before (griddepcontrol.wait) before it reads;
- `narrow_f16`: float32 to packed halves (cvt.rn.f16x2.f32), two vectors
  of floats in, one out.

Arrays are passed as their 32-bit words, (vectors, 1, 4) int32 (float32
for narrow's input: (vectors, 2, 4)). Blocks of 1024 threads won on the
H200 against 256 and grid-stride loops (bench/README.md).
"""

from .. import script as T

MINUS_LOG2E = -1.4426950408889634
BLOCK = 1024


def _blocks(vectors, block):
    if vectors % block:
        raise ValueError(f"{vectors} vectors do not fill blocks of {block} threads")
    return vectors // block


def _widen_bf16(packed):
    """Four bf16x2 words (1, 4) as eight f32 (8, 1): values 0-3 the low
    halves, 4-7 the high ones."""
    wide = T.alloc_local((8, 1), "int32")
    T.cuda.tile.apply(T.ptx["shl.b32"], wide[0:4], packed.reshape((4, 1)), T.uint32(16))
    T.cuda.tile.apply(T.ptx["and.b32"], wide[4:8], packed.reshape((4, 1)), T.uint32(0xFFFF0000))
    return wide


def swiglu(elements: int, block: int = BLOCK):
    """silu(x) * y over `elements` bf16 values of each array (a multiple of
    8 x block): a T.function of (X, Y, Out)."""
    vectors = elements // 8
    grid = _blocks(vectors, block)

    @T.function
    def swiglu(X: T.Tensor((vectors, 1, 4), "int32"), Y: T.Tensor((vectors, 1, 4), "int32"),
               Out: T.Tensor((vectors, 1, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=block))
        t = T.block_id() * block + T.thread_id()
        words = {}
        for name, tensor in (("x", X), ("y", Y)):
            packed = T.alloc_local((1, 4), "int32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], packed, tensor[t])
            words[name] = _widen_bf16(packed)
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


def add_f16(halves: int, block: int = BLOCK, dependent: bool = False):
    """a + b over `halves` fp16 values of each array: a T.function of (A,
    B, Out); `dependent` launches it as a programmatic dependent of the
    kernel before it (sm_90)."""
    threads = halves // 8
    grid = _blocks(threads, block)

    @T.function
    def stream_add(A: T.Tensor((threads, 1, 4), "int32"), B: T.Tensor((threads, 1, 4), "int32"),
                   Out: T.Tensor((threads, 1, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=block, dependent=dependent))
        if dependent:
            T.cuda.tile.apply(T.ptx["griddepcontrol.launch_dependents"])
            T.cuda.tile.apply(T.ptx["griddepcontrol.wait"])  # A may be the kernel before's Out
        t = T.block_id() * block + T.thread_id()
        a = T.alloc_local((1, 4), "int32")
        b = T.alloc_local((1, 4), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], a, A[t])
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], b, B[t])
        words = (1, 4, 1)
        T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a.reshape(words), a.reshape(words), b.reshape(words))
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t], a)

    return stream_add


def narrow_f16(values: int, block: int = BLOCK):
    """float32 to fp16 over `values` values: a T.function of (A, Out); word
    k of Out packs float 2k (low half) and 2k + 1 (high half)."""
    threads = values // 8
    grid = _blocks(threads, block)

    @T.function
    def stream_narrow(A: T.Tensor((threads, 2, 4), "float32"), Out: T.Tensor((threads, 1, 4), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=block))
        t = T.block_id() * block + T.thread_id()
        a = T.alloc_local((2, 4), "float32")
        d = T.alloc_local((1, 4), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], a, A[t])
        flat = a.reshape((8,))
        T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], d.reshape((4, 1)), flat[1::2].reshape((4, 1)),
                          flat[0::2].reshape((4, 1)))
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t], d)

    return stream_narrow
