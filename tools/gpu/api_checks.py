#!/usr/bin/env python3
"""The Python API features of issues #17 and #18 on a GPU: a grid chosen at
launch on a torch stream, a predicate tile, and T.ewise.

    python tools/gpu/api_checks.py build build/api              # here, with MLIR
    PYTHONPATH=python python3 tools/gpu/api_checks.py run build/api $OUT/api.json
"""

import json
import os
import sys

ROWS = 1 << 20


def kernels():
    from tile_mlir import script as T

    @T.function
    def double_grid_stride(A: T.Tensor((ROWS, 4), "float32"), Out: T.Tensor((ROWS, 4), "float32")):
        # The grid comes with each launch: rows t, t + T, ... for T threads.
        T.device_entry(launch=T.cuda.LaunchConfig(grid=None, block=256))
        for row in T.serial(T.block_id() * 256 + T.thread_id(), ROWS, T.grid_dim() * 256):
            r = T.alloc_local((1, 4), "float32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], r, A[row:row + 1])
            T.cuda.tile.apply(T.ptx["add.rn.f32"], r.reshape((4, 1)), r.reshape((4, 1)), r.reshape((4, 1)))
            T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[row:row + 1], r)

    @T.function
    def magnitude(A: T.Tensor((ROWS, 4), "int32"), Out: T.Tensor((ROWS, 4), "int32")):
        # |x| through a predicate tile: setp, then neg where it holds.
        T.device_entry(launch=T.cuda.LaunchConfig(grid=ROWS // 256, block=256))
        t = T.block_id() * 256 + T.thread_id()
        x = T.alloc_local((4, 1), "int32")
        p = T.alloc_local((4, 1), "bool")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x.reshape((1, 4)), A[t:t + 1])
        T.cuda.tile.apply(T.ptx["setp.lt.s32"], p, x, T.int32(0))
        T.cuda.tile.apply(T.ptx["neg.s32"], x, x, pred=p, preserve_dst=True)
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], x.reshape((1, 4)))

    @T.function
    def silu_mul(X: T.Tensor((ROWS, 4), "float32"), Y: T.Tensor((ROWS, 4), "float32"),
                 Out: T.Tensor((ROWS, 4), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=ROWS // 256, block=256))
        t = T.block_id() * 256 + T.thread_id()
        x, y, o = (T.alloc_local((1, 4), "float32") for _ in range(3))
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], x, X[t:t + 1])
        T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], y, Y[t:t + 1])
        T.ewise(lambda a, b: a * b / (1.0 + T.exp(-a)), o, x, y)
        T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[t:t + 1], o)

    @T.function
    def scale_n(A: T.Tensor((None, 4), "float32"), Out: T.Tensor((None, 4), "float32"), n: T.int32,
                k: T.float32):
        # One kernel for every n: runtime sizes, a grid chosen at launch.
        T.device_entry(launch=T.cuda.LaunchConfig(grid=None, block=256))
        for row in T.serial(T.block_id() * 256 + T.thread_id(), n, T.grid_dim() * 256):
            r = T.alloc_local((1, 4), "float32")
            T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], r, A[row:row + 1])
            T.cuda.tile.apply(T.ptx["mul.rn.f32"], r.reshape((4, 1)), r.reshape((4, 1)), k)
            T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[row:row + 1], r)

    return {"double_grid_stride": double_grid_stride, "magnitude": magnitude, "silu_mul": silu_mul,
            "scale_n": scale_n}


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    for name, kernel in kernels().items():
        tile_mlir.compile(kernel, target="sm_90", cache=False).save(os.path.join(out_dir, f"{name}.json"))
        print(name, "saved")


def run(artifacts, report_path):
    import torch
    from tile_mlir import runtime
    load = lambda name: runtime.load(os.path.join(artifacts, f"{name}.json"))  # noqa: E731
    gen = torch.Generator(device="cuda").manual_seed(0)
    report = {}

    double = load("double_grid_stride")
    a = torch.randn(ROWS, 4, device="cuda", generator=gen)
    stream = torch.cuda.Stream()
    runs = []
    for grid in (1, 7, 132 * 4):
        out = torch.full_like(a, float("nan"))
        with torch.cuda.stream(stream):
            double[grid](a, out, stream=stream, sync=False)
        stream.synchronize()
        runs.append({"grid": grid, "mismatches": int((out.view(torch.int32) != (a + a).view(torch.int32)).sum())})
    report["double_grid_stride"] = {"runs": runs, "stream": "torch.cuda.Stream"}

    scale = load("scale_n")
    runs = []
    for n, grid in ((1000, 3), (3 * 4096 + 5, 132), (ROWS, 132 * 8)):
        a = torch.randn(n, 4, device="cuda", generator=gen)
        out = torch.full_like(a, float("nan"))
        scale[grid](a, out, n, 1.5, stream=stream, sync=False)
        stream.synchronize()
        runs.append({"n": n, "grid": grid, "mismatches": int((out != a * 1.5).sum())})
    report["scale_n"] = {"runs": runs, "compiled_once": True, "stream": "torch.cuda.Stream"}

    magnitude = load("magnitude")
    x = torch.randint(-(1 << 31), (1 << 31) - 1, (ROWS, 4), device="cuda", dtype=torch.int32, generator=gen)
    out = torch.empty_like(x)
    magnitude(x, out)
    report["magnitude"] = {"mismatches": int((out != torch.where(x < 0, -x, x)).sum())}

    class DLPackOnly:  # torch tensors seen only through DLPack
        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack_device__(self):
            return self.tensor.__dlpack_device__()

        def __dlpack__(self, stream=None):
            return self.tensor.__dlpack__()

    out = torch.zeros_like(x)
    magnitude(DLPackOnly(x), DLPackOnly(out))
    report["magnitude_dlpack"] = {"mismatches": int((out != torch.where(x < 0, -x, x)).sum())}

    silu = load("silu_mul")
    xs = torch.randn(ROWS, 4, device="cuda", generator=gen) * 4
    ys = torch.randn(ROWS, 4, device="cuda", generator=gen)
    out = torch.empty_like(xs)
    silu(xs, ys, out)
    exact = xs.double() * ys.double() / (1 + torch.exp(-xs.double()))
    ulp = torch.exp2(torch.floor(torch.log2(exact.abs().clamp_min(2.0 ** -126))) - 23)
    report["silu_mul"] = {"max_f32_ulp": float(((out.double() - exact).abs() / ulp).max())}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
