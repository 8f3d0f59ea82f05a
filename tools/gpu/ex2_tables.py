#!/usr/bin/env python3
"""ex2.approx.ftz.f32 tabulated on the GPU (interpreter/sfu.py's tables):
MUFU.EX2's result for every 23-bit fraction, x = k / 2^23 and x = -k / 2^23
(k < 2^23), stored as each table's first bits and int8 steps; its outputs
for special inputs; and the check of the decomposition the interpreter
uses (2^x = table[fraction of |x| cut to 23 bits] times 2^+-n) on 1M
random inputs in each of several ranges.

    python tools/gpu/ex2_tables.py OUT_DIR     # on the GPU (cupy): OUT_DIR/ex2_approx_ftz_f32.npz

The file goes to python/tile_mlir/interpreter/; the printed counts are
each range's inputs and how many the decomposition gives bit for bit.
"""

import json
import os
import sys

import numpy as np

K = 1 << 23
SOURCE = r'''
extern "C" __global__ void ex2(const float* x, float* y, long n) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x[i])); y[i] = r; }
}'''


def gpu_ex2(values):
    import cupy as cp
    kernel = cp.RawKernel(SOURCE, "ex2")
    x = cp.asarray(np.asarray(values).astype(np.float32))
    y = cp.empty_like(x)
    kernel(((x.size + 255) // 256,), (256,), (x, y, np.int64(x.size)))
    return cp.asnumpy(y)


def decomposed(x, positive, negative):
    """The interpreter's model (sfu.py) on tables just measured."""
    magnitude = np.abs(x)
    whole = np.floor(magnitude)
    index = np.floor((magnitude - whole) * K).astype(np.int64)
    value = np.where(x >= 0, np.ldexp(positive[index].astype(np.float64), whole.astype(np.int64)),
                     np.ldexp(negative[index].astype(np.float64), -whole.astype(np.int64)))
    return np.where(value < 2.0 ** -126, 0.0, value).astype(np.float32)


def main(out_dir):
    fractions = np.arange(K, dtype=np.float64) / K
    out, tables = {}, []
    for sign, x in (("positive", fractions), ("negative", -fractions)):
        table = gpu_ex2(x)
        bits = table.view(np.int32).astype(np.int64)
        steps = np.diff(bits)
        assert -128 < steps.min() and steps.max() < 128
        out[f"{sign}_first"], out[f"{sign}_steps"] = bits[:1], steps.astype(np.int8)
        tables.append(table)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 127.99999, 128.0, -126.0, -126.5, -149.0,
                         -150.0, 200.0, -200.0])
    out["special_inputs"], out["special_outputs"] = specials.astype(np.float32), gpu_ex2(specials).view(np.int32)
    rng = np.random.default_rng(0)
    draws = {"fractions": rng.random(1 << 20) * 2 - 1, "offsets": rng.integers(-125, 126, 1 << 20) + rng.random(1 << 20),
             "wide_negative": -rng.random(1 << 20) * 126, "tiny": rng.integers(-K, K, 1 << 20) * 2.0 ** -30}
    checks = {}
    for name, x in draws.items():
        x = x.astype(np.float32).astype(np.float64)
        got = gpu_ex2(x).view(np.int32)
        checks[name] = {"inputs": int(x.size), "same": int((decomposed(x, *tables).view(np.int32) == got).sum())}
    print(json.dumps(checks, indent=1))
    np.savez_compressed(os.path.join(out_dir, "ex2_approx_ftz_f32.npz"), **out)


if __name__ == "__main__":
    main(sys.argv[1])
