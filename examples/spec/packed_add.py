# The spec's packed-add example (add-sub-mul.txt), unchanged but for the two
# import lines. Compiling works anywhere; running needs a CUDA GPU.
from tile_mlir.compat.tvm.script import tirx as T


@T.function
def packed_add(
    A: T.Tensor((8, 1), "uint32"), B: T.Tensor((8, 1), "uint32"), Out: T.Tensor((8, 1), "uint32")
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    a = T.alloc_local((8, 1), "uint32", layout="default")
    b = T.alloc_local((8, 1), "uint32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A)
    T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B)
    T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a, a, b)
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out, a)


if __name__ == "__main__":
    import numpy as np
    from tile_mlir.compat import tvm

    x = np.arange(16, dtype="float16").reshape(8, 2)
    y = np.full((8, 2), 2, dtype="float16")
    compiled = tvm.tirx.compile(packed_add, target="cuda", pipeline="tirx")
    out = tvm.runtime.tensor(np.zeros((8, 1), dtype="uint32"), tvm.cuda())
    compiled(
        tvm.runtime.tensor(x.view("uint32"), tvm.cuda()),
        tvm.runtime.tensor(y.view("uint32"), tvm.cuda()),
        out,
    )
    np.testing.assert_array_equal(out.numpy().view("float16"), x + y)
    print("packed_add: ok")
