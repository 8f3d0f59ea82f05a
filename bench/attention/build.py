#!/usr/bin/env python3
"""Compiles the attention kernels to artifacts for bench/attention/run.py.

    python bench/attention/build.py build/attention
    python bench/attention/build.py --specialized build/attention_ws
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import kernels  # noqa: E402
from artifacts import save_variants  # noqa: E402

if __name__ == "__main__":
    # The warp-specialized kernels, beside the best of the first ones at
    # S = 4096 for the same run.
    specialized = dict(kernels.SPECIALIZED, **{name: kernels.VARIANTS[name] for name in (
        "attention_d64_b4h16_s4096_n128", "attention_d128_b4h16_s4096")})
    variants = specialized if "--specialized" in sys.argv else kernels.VARIANTS
    out = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/attention")
    save_variants(variants, out, target="sm_90a")
