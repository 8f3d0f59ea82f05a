#!/usr/bin/env python3
"""Compiles the attention kernels to artifacts for bench/attention/run.py.

    python bench/attention/build.py build/attention
    python bench/attention/build.py --specialized build/attention_ws
    python bench/attention/build.py --pipelined build/attention_fa3
    python bench/attention/build.py --persistent build/attention_persistent
    python bench/attention/build.py --persistent --halves-pv build/attention_ab

(`--halves-pv` adds the d 128 kernels with P V in halves of 64 columns,
kernels.HALVES_PV, beside the kernels built; `--tma` the persistent
kernels with the TMA epilogue, kernels.PERSISTENT_TMA, and the causal fa3bf
ones; `--in-k` the persistent kernels with the TMA epilogue through K,
kernels.PERSISTENT_TMA_IN_K; `--best` the best of each shape,
kernels.BEST (`--best-one-q` the best with one buffer of Q,
kernels.BEST_ONE_Q); `--double-q` the kernels through K with two buffers
of Q, kernels.DOUBLE_Q; `--two-stages` the d 128 kernels with 2
stages, kernels.PERSISTENT_2_STAGES.)
"""

import os
import sys
import warnings

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
    if "--persistent" in sys.argv:
        variants = dict(kernels.PERSISTENT, **{name.replace("fa3pp", "fa3bf"): kernels.PIPELINED[name.replace(
            "fa3pp", "fa3bf")] for name in kernels.PIPELINED if name.startswith("attention_fa3pp")
            and name.endswith("_s3") and "causal" not in name})
    elif "--pipelined" in sys.argv:
        # Against the first kernels and the warp-specialized ones of the
        # same shapes, in the same run.
        variants = dict(kernels.PIPELINED, **{name: kernels.VARIANTS[name] for name in (
            "attention_d64_b4h16_s4096_n128", "attention_d128_b4h16_s4096", "attention_d64_b4h16_s1024_n128",
            "attention_d128_b4h16_s1024")}, **{name: kernels.SPECIALIZED[name] for name in (
                "attention_ws_d64_b4h16_s4096_n128", "attention_ws_d128_b4h16_s4096")})
    if "--tma" in sys.argv:
        # Beside the causal fa3bf kernels, the best before.
        variants = dict(variants, **kernels.PERSISTENT_TMA, **{
            name: kernels.PIPELINED[name] for name in kernels.PIPELINED
            if name.startswith("attention_fa3bf") and "causal" in name})
    if "--best" in sys.argv:
        variants = dict(variants, **kernels.BEST)
    if "--best-one-q" in sys.argv:
        variants = dict(variants, **kernels.BEST_ONE_Q)
    if "--in-k" in sys.argv:
        variants = dict(variants, **kernels.PERSISTENT_TMA_IN_K)
    if "--double-q" in sys.argv:
        variants = dict(variants, **kernels.DOUBLE_Q)
    if "--two-stages" in sys.argv:
        variants = dict(variants, **kernels.PERSISTENT_2_STAGES)
    if "--halves-pv" in sys.argv:
        variants = dict(variants, **{name: v for name, v in kernels.HALVES_PV.items()
                                     if name[:-len("_halves_pv")] in variants})
    # --only=A,B: the variants whose names contain A or B.
    only = next((a[len("--only="):].split(",") for a in sys.argv[1:] if a.startswith("--only=")), None)
    if only:
        variants = {name: v for name, v in variants.items() if any(part in name for part in only)}
    out = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/attention")
    options = {}
    if "--pipelined" in sys.argv or "--persistent" in sys.argv:
        # Their only guarded instructions are cvt.rn.bf16x2.f32 of ex2 and
        # mul results, into which ptxas folds nothing (the SASS without the
        # barriers is the SASS with them less the barriers:
        # test_attention.py; the outputs equal byte for byte on the H200:
        # fold_check.py), so they are built exactly as written.
        options["fold_barriers"] = "off"
        warnings.simplefilter("ignore")  # "off" warns at each guarded cvt
    save_variants(variants, out, target="sm_90a", **options)
