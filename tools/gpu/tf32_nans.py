#!/usr/bin/env python3
"""The bits each cvt to tf32 gives for NaNs, infinities and the largest
finite values on the GPU (issue #29: tf32 NaNs were not in the NaN study's
float formats, and the campaigns kept finding them): every tf32 form of
sm_90 on INPUTS, written out raw.

    python tools/gpu/tf32_nans.py build build/tf32            # here (MLIR)
    PYTHONPATH=python python tools/gpu/tf32_nans.py run build/tf32 report.json   # on the GPU

The report also says, per form, whether the reference
(reference._tf32_nans) gives every bit; test_nan_model.py holds it to the
committed report (results/tf32_nans.json)."""

import json
import os
import sys

import numpy as np

FORMS = ["cvt.rna.tf32.f32", "cvt.rna.satfinite.tf32.f32", "cvt.rn.tf32.f32", "cvt.rn.relu.tf32.f32",
         "cvt.rz.tf32.f32", "cvt.rz.relu.tf32.f32"]

# NaNs whose payload lies below, at and above the 13 bits tf32 drops,
# quiet and signalling, both signs; the infinities; the largest finite
# values, below and at tf32's largest; and ordinary numbers.
INPUTS = np.array([
    0x7F800001, 0x7F801FFF, 0x7F802000, 0x7F803FFF, 0x7FA00000, 0x7FBFFFFF, 0x7FC00000, 0x7FC00001,
    0x7FC01FFF, 0x7FFFE000, 0x7FFFFFFF, 0xFF800001, 0xFF802000, 0xFFA00001, 0xFFC00000, 0xFFFFFFFF,
    0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x7F7FE000, 0x7F7FEFFF, 0x7F7FF000, 0xFF7FFFFF, 0xFF7FF000,
    0x3F800000, 0xBF800FFF, 0x3F801000, 0x00000001, 0x80001FFF, 0x00800000, 0x3FFFF000, 0xC0000000,
], np.uint32)


def build(out_dir):
    import tile_mlir
    from tile_mlir import script as T

    @T.function
    def tf32_nans(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, len(FORMS), 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        a = T.alloc_local((1, 1), "uint32")
        d = T.alloc_local((len(FORMS), 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A[t:t + 1])
        for k, opcode in enumerate(FORMS):
            T.cuda.tile.apply(T.ptx[opcode], d[k:k + 1], a.view("float32"))
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t], d)

    os.makedirs(out_dir, exist_ok=True)
    tile_mlir.compile(tf32_nans, target="sm_90").save(os.path.join(out_dir, "tf32_nans.json"))


def run(artifacts, report_path):
    from run_artifacts import expected  # the conformance reference's bits
    from tile_mlir import runtime
    kernel = runtime.load(os.path.join(artifacts, "tf32_nans.json"))
    out = np.zeros((32, len(FORMS), 1), np.uint32)
    kernel(INPUTS.reshape(32, 1).copy(), out)
    report = {"device": runtime.local_arch(), "inputs": [hex(int(x)) for x in INPUTS],
              "results": {form: [hex(int(x)) for x in out[:, k, 0]] for k, form in enumerate(FORMS)},
              "reference_agrees": {form: bool((expected(form, [INPUTS], np.uint32) == out[:, k, 0]).all())
                                   for k, form in enumerate(FORMS)}}
    print(report["reference_agrees"])
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(build(sys.argv[2]) if sys.argv[1] == "build" else run(sys.argv[2], sys.argv[3]))
