#!/usr/bin/env python3
"""trap on the GPU (issue 58): one thread of 32 executes it; the launch
must fail, and the report keeps the driver's error, which the interpreter's
message and docs/families/griddepcontrol.md quote.

    python tools/gpu/trap_check.py build build/trap
    PYTHONPATH=python python tools/gpu/trap_check.py run build/trap report.json
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]


def kernel():
    from tile_mlir import script as T

    @T.function
    def checked(A: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        v = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], v, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["trap"], pred=t == 5)
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[t:t + 1], v)

    return checked


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    tile_mlir.compile(kernel(), target="sm_90").save(os.path.join(out_dir, "trap.json"))


def run(out_dir, report_path):
    from tile_mlir import runtime
    loaded = runtime.load(os.path.join(out_dir, "trap.json"))
    report = {"device": runtime.driver().device_name(), "failed": False, "error": None}
    try:
        loaded(np.zeros((32, 1), np.uint32))
    except runtime.CudaError as error:
        report.update(failed=True, error=str(error))
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(report)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
