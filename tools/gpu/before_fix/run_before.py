"""On the GPU: what the pre-fix compiler's kernels (build_before.py) and the
pre-fix runtime (aliased arguments, with build/gpu/add_one.json) computed.

    PYTHONPATH=python python tools/gpu/before_fix/run_before.py before_fix.json
"""
import importlib.util
import json
import sys

import numpy as np
sys.path.insert(0, "python")
from tile_mlir import runtime
rng = np.random.default_rng(0)
report = {}
k = runtime.load("build/gpu_before/runtime_slice.json")
a = rng.standard_normal((32, 1)).astype("float32")
out = np.full((32, 1), np.nan, dtype="float32")
k(a, out)
report["runtime_slice"] = {"mismatched_elements": int(np.sum(out.view("uint32") != (-a).view("uint32"))), "elements": 32}
k = runtime.load("build/gpu_before/odd_view.json")
h = np.arange(64, dtype="uint16").reshape(64, 1)
out = np.zeros((32, 1), dtype="uint32")
k(h, out)
want = np.array([int(h[t, 0]) | (int(h[t + 1, 0]) << 16) for t in range(31)], dtype="uint32")
report["odd_view"] = {"mismatched_elements": int(np.sum(out[:31, 0] != want)), "elements": 31,
                      "read_for_odd_t": [hex(int(x)) for x in out[1:6:2, 0]]}
spec = importlib.util.spec_from_file_location("runtime_before", "build/gpu_before/runtime_before.py")
old = importlib.util.module_from_spec(spec); sys.modules["runtime_before"] = old; spec.loader.exec_module(old)
k = old.load("build/gpu/add_one.json")
y = rng.standard_normal((64, 1)).astype("float32")
want = y + np.float32(1)
k(y, y)
report["add_one_aliased"] = {"mismatched_elements": int(np.sum(y.view("uint32") != want.view("uint32"))), "elements": 64}
print(json.dumps(report, indent=1))
json.dump(report, open(sys.argv[1], "w"), indent=1)
