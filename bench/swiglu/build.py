#!/usr/bin/env python3
"""Compiles the SwiGLU kernels to artifacts for bench/swiglu/run.py.

    python bench/swiglu/build.py build/swiglu
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kernels  # noqa: E402
import tile_mlir  # noqa: E402


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, (make, kwargs) in kernels.VARIANTS.items():
        kernel = tile_mlir.compile(make(**kwargs), target="sm_90")
        kernel.save(os.path.join(out_dir, f"{name}.json"))
        print(name, "saved")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/swiglu")
