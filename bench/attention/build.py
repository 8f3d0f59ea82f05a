#!/usr/bin/env python3
"""Compiles the attention kernels to artifacts for bench/attention/run.py.

    python bench/attention/build.py build/attention
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import kernels  # noqa: E402
from artifacts import save_variants  # noqa: E402

if __name__ == "__main__":
    save_variants(kernels.VARIANTS, sys.argv[1] if len(sys.argv) > 1 else "build/attention", target="sm_90a")
