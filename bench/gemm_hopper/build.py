#!/usr/bin/env python3
"""Compiles the Hopper GEMM kernels to artifacts for bench/gemm_hopper/run.py.

    python bench/gemm_hopper/build.py build/gemm_hopper
    python bench/gemm_hopper/build.py --sweep build/gemm_hopper_sweep
    python bench/gemm_hopper/build.py --tma build/gemm_hopper_tma
    python bench/gemm_hopper/build.py --tma-sweep build/gemm_hopper_tma_sweep
    python bench/gemm_hopper/build.py --cluster build/gemm_hopper_cluster
    python bench/gemm_hopper/build.py --l2 build/gemm_hopper_l2
    python bench/gemm_hopper/build.py --pingpong build/gemm_hopper_pingpong
    python bench/gemm_hopper/build.py --queued build/gemm_hopper_queued
    python bench/gemm_hopper/build.py --deferred build/gemm_hopper_deferred
    python bench/gemm_hopper/build.py --deferred-fresh build/gemm_hopper_deferred_fresh
    python bench/gemm_hopper/build.py --shapes build/gemm_hopper_shapes
    python bench/gemm_hopper/build.py --stream-k build/gemm_hopper_stream_k
    python bench/gemm_hopper/build.py --power build/gemm_hopper_power
    python bench/gemm_hopper/build.py --deferred-tma build/gemm_hopper_deferred_tma
    python bench/gemm_hopper/build.py --final build/gemm_hopper_final
"""

import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import kernels  # noqa: E402
from artifacts import save_variants  # noqa: E402

if __name__ == "__main__":
    variants = (kernels.SWEEP if "--sweep" in sys.argv else kernels.TMA if "--tma" in sys.argv
                else kernels.TMA_SWEEP if "--tma-sweep" in sys.argv
                else kernels.CLUSTER if "--cluster" in sys.argv
                else kernels.L2 if "--l2" in sys.argv
                else kernels.PINGPONG if "--pingpong" in sys.argv
                else kernels.DEFERRED if "--deferred" in sys.argv
                else kernels.DEFERRED_FRESH if "--deferred-fresh" in sys.argv
                else kernels.SHAPES if "--shapes" in sys.argv
                else kernels.STREAM_K if "--stream-k" in sys.argv
                else kernels.POWER if "--power" in sys.argv
                else kernels.DEFERRED_TMA if "--deferred-tma" in sys.argv
                else kernels.FINAL if "--final" in sys.argv
                else kernels.QUEUED if "--queued" in sys.argv else kernels.VARIANTS)
    out = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/gemm_hopper")
    # The "_as_written" ones with fold_barriers="off": measured before the
    # barriers left a cvt of wgmma accumulators alone (commit 337746a);
    # since then the default build is the same.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for written in (False, True):
            save_variants({name: v for name, v in variants.items() if name.endswith("_as_written") == written},
                          out, target="sm_90a", **({"fold_barriers": "off"} if written else {}))
