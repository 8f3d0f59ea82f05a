# The spec's abs/neg example (abs-neg.txt), unchanged but for the imports.
from tile_mlir.compat.tvm.script import tirx as T


@T.function
def negative_magnitude(A: T.Tensor((4, 1), "float32"), Out: T.Tensor((4, 1), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    r = T.alloc_local((4, 1), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A)
    T.cuda.tile.apply(T.ptx["abs.f32"], r, r)
    T.cuda.tile.apply(T.ptx["neg.f32"], r, r)
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out, r)


if __name__ == "__main__":
    import numpy as np
    from tile_mlir.compat import tvm

    x = np.array([[1.5], [-2.0], [3.25], [-0.5]], dtype="float32")
    compiled = tvm.tirx.compile(negative_magnitude, target="cuda", pipeline="tirx")
    out = tvm.runtime.tensor(np.zeros((4, 1), dtype="float32"), tvm.cuda())
    compiled(tvm.runtime.tensor(x, tvm.cuda()), out)
    np.testing.assert_array_equal(out.numpy(), -np.abs(x))
    print("negative_magnitude: ok")
