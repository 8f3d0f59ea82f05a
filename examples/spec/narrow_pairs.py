# The spec's cvt example (cvt.txt), unchanged but for the imports.
from tile_mlir.compat.tvm.script import tirx as T


@T.function
def narrow_pairs(A: T.Tensor((4, 2), "float32"), Out: T.Tensor((4, 1), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    a = T.alloc_local((4, 2), "float32", layout="default")
    d = T.alloc_local((4, 1), "uint32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], a, A)
    T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], d, a[:, 1:2], a[:, 0:1])
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out, d)


if __name__ == "__main__":
    import numpy as np
    from tile_mlir.compat import tvm

    x = np.linspace(-2, 2, 8, dtype="float32").reshape(4, 2)
    compiled = tvm.tirx.compile(narrow_pairs, target="cuda", pipeline="tirx")
    out = tvm.runtime.tensor(np.zeros((4, 1), dtype="uint32"), tvm.cuda())
    compiled(tvm.runtime.tensor(x, tvm.cuda()), out)
    np.testing.assert_array_equal(out.numpy().view("float16"), x.astype("float16"))
    print("narrow_pairs: ok")
