"""Builds, with the compiler of commit 0e6c9a4 (before the defects issue's
fixes), two kernels that the fixed compiler compiles differently or
rejects, so that run_before.py can show on the GPU what they computed:

    git worktree add /tmp/before 0e6c9a4   # build and install it, then
    python tools/gpu/before_fix/build_before.py build/gpu_before
    cp /tmp/before/python/tile_mlir/runtime.py build/gpu_before/runtime_before.py

The result is tools/gpu/results/before_fix.json. runtime_slice repeats
tools/gpu/build_artifacts.py's kernel on purpose: that module cannot be
imported by the pre-fix front end (it traces kernels that use T.if_).
"""
import os
import sys

import tile_mlir
from tile_mlir import script as T

@T.function
def runtime_slice(A: T.Tensor((32, 1), "float32"), Out: T.Tensor((32, 1), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    r = T.alloc_local((32, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A)
    T.cuda.tile.apply(T.ptx["neg.f32"], r[t:t + 1], r[t:t + 1])
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], r[t:t + 1])

@T.function
def odd_view(A: T.Tensor((64, 1), "uint16"), Out: T.Tensor((32, 1), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=31))
    t = T.thread_id()
    r = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 2].reshape((1, 2)).view("uint32"))
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, fn in [("runtime_slice", runtime_slice), ("odd_view", odd_view)]:
    tile_mlir.compile(fn, target="sm_90").save(os.path.join(out, name + ".json"))
    print(name, "built")
