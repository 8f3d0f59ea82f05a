"""The compile-speed kernels, in the spec's script spelling. `T` is the
script namespace of the implementation under test (tile_mlir.script, or
apache-tvm-tirx's tvm_tirx.script.tirx), so both build the same kernels."""


def packed_add(T, R):
    @T.function
    def packed_add(A: T.Tensor((R, 1), "uint32"), B: T.Tensor((R, 1), "uint32"),
                   Out: T.Tensor((R, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        a = T.alloc_local((R, 1), "uint32", layout="default")
        b = T.alloc_local((R, 1), "uint32", layout="default")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B)
        T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a, a, b)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out, a)
    return packed_add


def mixed(T, R):
    """Loads, f16x2 arithmetic, cvt, abs/neg and stores: 10 instructions per repeat."""
    @T.function
    def mixed(A: T.Tensor((R, 2), "float32"), B: T.Tensor((R, 1), "uint32"),
              Out: T.Tensor((R, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        a = T.alloc_local((R, 2), "float32", layout="default")
        b = T.alloc_local((R, 1), "uint32", layout="default")
        d = T.alloc_local((R, 1), "uint32", layout="default")
        T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], a, A)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B)
        T.cuda.tile.apply(T.ptx["abs.f32"], a[:, 0:1], a[:, 0:1])
        T.cuda.tile.apply(T.ptx["neg.f32"], a[:, 1:2], a[:, 1:2])
        T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], d, a[:, 1:2], a[:, 0:1])
        T.cuda.tile.apply(T.ptx["mul.rn.f16x2"], d, d, b)
        T.cuda.tile.apply(T.ptx["add.rn.f16x2"], d, d, b)
        T.cuda.tile.apply(T.ptx["neg.f16x2"], d, d)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out, d)
    return mixed
