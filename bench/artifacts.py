"""Saves a benchmark's kernel variants as artifacts for its run.py, which
runs them on a GPU machine without MLIR."""

import os

import tile_mlir


def save_variants(variants, out_dir, target="sm_90", **options):
    """Compiles each `name: (make, kwargs)` of `variants` for `target` (and
    tile_mlir.compile's `options`) and saves it as `out_dir/name.json`."""
    os.makedirs(out_dir, exist_ok=True)
    for name, (make, kwargs) in variants.items():
        kernel = tile_mlir.compile(make(**kwargs), target=target, **options)
        kernel.save(os.path.join(out_dir, f"{name}.json"))
        print(name, "saved")
