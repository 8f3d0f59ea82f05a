"""How the GPU benchmarks time a launch: CUDA events around each launch,
the queue never drained in between (as triton's do_bench), and rounds that
interleave every kernel with its peers so that clock changes reach them
alike. Needs torch and a GPU."""

import numpy as np
import torch

REPEATS = 30
QUEUE_AHEAD_CYCLES = 20_000_000


def median_ms(fn, repeats=REPEATS, synced=False):
    """The median time of one launch in ms. The launches queue behind a busy
    kernel of about 10 ms, so the GPU reaches the first one only once the
    host has submitted most of them: a launch shorter than its submission
    is timed by the GPU, not by the host. With `synced`, the queue drains
    after every launch, so each time includes the host's launch cost."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(repeats)]
    if not synced:
        torch.cuda._sleep(QUEUE_AHEAD_CYCLES)
    for start, end in events:
        start.record()
        fn()
        end.record()
        if synced:
            end.synchronize()
    torch.cuda.synchronize()
    return float(np.median([start.elapsed_time(end) for start, end in events]))


def timed_rounds(entry, runs, rounds, repeats, baseline=None):
    """Times each of `runs` ({name: launch}) in `rounds` rounds, each round
    timing every run once, into entry["rounds"], and their medians into
    entry["ms"]. `baseline` (launch, name): the kernel that runs["tile_mlir"]
    replaced, timed right after it in each round; the entry names it and
    gets ratio_vs_baseline."""
    if baseline is not None:
        launch, entry["baseline"] = baseline
        runs = {"tile_mlir": runs["tile_mlir"], "baseline": launch,
                **{key: fn for key, fn in runs.items() if key != "tile_mlir"}}
    entry["rounds"] = {key: [] for key in runs}
    for _ in range(rounds):
        for key, fn in runs.items():
            entry["rounds"][key].append(median_ms(fn, repeats=repeats))
    entry["ms"] = {key: float(np.median(v)) for key, v in entry["rounds"].items()}
    if baseline is not None:
        entry["ratio_vs_baseline"] = entry["ms"]["baseline"] / entry["ms"]["tile_mlir"]


def summarize(entry):
    """A bandwidth entry's medians over its rounds, in place: each peer's and
    variant's ms and GB/s (of entry["bytes_moved"]), and each variant's
    ratios (ratio_vs_best_torch, ratio_vs_copy_bandwidth) with their
    ranges."""
    nbytes = entry["bytes_moved"]
    for peer in entry["peers"].values():
        peer["ms"] = float(np.median(peer["rounds"]))
        peer["GBps"] = nbytes / peer["ms"] / 1e6
    for v in entry["variants"].values():
        v["GBps"] = nbytes / medians_with_ranges(v, ("ratio_vs_best_torch", "ratio_vs_copy_bandwidth")) / 1e6


def medians_with_ranges(variant, ratios):
    """A variant's medians over its rounds, in place: its ms, and each of
    `ratios` with its range (key + "_range"); returns the ms."""
    variant["ms"] = float(np.median([r["ms"] for r in variant["rounds"]]))
    for key in ratios:
        values = [r[key] for r in variant["rounds"]]
        variant[key] = float(np.median(values))
        variant[key + "_range"] = [float(min(values)), float(max(values))]
    return variant["ms"]


def bandwidth_entry(nbytes, peers, exact):
    """A bandwidth benchmark's entry of one dtype: its bytes, and each peer
    of `peers` ({name: fn}: "eager", "compile", "copy") with its largest
    error against `exact` (not the copy's) and its rounds to come."""
    entry = {"bytes_moved": nbytes, "peers": {}, "variants": {}}
    for name in ("eager", "compile"):
        entry["peers"][name] = {"max_abs_error_vs_float64": float((peers[name]().double() - exact).abs().max()),
                                "rounds": []}
    entry["peers"]["copy"] = {"rounds": []}
    return entry


def bandwidth_rounds(entry, peers, launches, rounds):
    """`rounds` rounds timing every peer ({name: fn}: "eager", "compile",
    "copy") and every variant ({name: its launch}), each variant's ratio
    to the round's best torch and to the copy; then the medians
    (summarize)."""
    for _ in range(rounds):
        peer_ms = {name: median_ms(fn) for name, fn in peers.items()}
        for name, ms in peer_ms.items():
            entry["peers"][name]["rounds"].append(ms)
        best = min(peer_ms["eager"], peer_ms["compile"])
        for name, launch in launches.items():
            ms = median_ms(launch)
            entry["variants"][name]["rounds"].append({"ms": ms, "ratio_vs_best_torch": best / ms,
                                                      "ratio_vs_copy_bandwidth": peer_ms["copy"] / ms})
    summarize(entry)


def print_bandwidth(report, describe):
    """A line per peer and per variant of each dtype of `report`;
    `describe(variant)` adds the variant's correctness."""
    for dtype, entry in report["dtypes"].items():
        for name, peer in entry["peers"].items():
            print(f"{dtype} torch {name:8s} {peer['GBps']:.0f} GB/s")
        for name, v in entry["variants"].items():
            print(f"{name} {v['GBps']:.0f} GB/s  x{v['ratio_vs_best_torch']:.3f} best torch "
                  f"{v['ratio_vs_best_torch_range']}  {v['ratio_vs_copy_bandwidth']:.3f} of copy  {describe(v)}  "
                  f"max error vs float64 {v['max_abs_error_vs_float64']:.3g}")
