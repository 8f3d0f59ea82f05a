"""Choosing a kernel's configuration for an op's shape: each candidate
timed on the device on first use of a shape bucket (one line of progress
on stderr), the fastest kept on disk beside the compile cache
(TILE_MLIR_CACHE_DIR/ops/autotune.json), keyed by the device's name, the
op, the bucket, the dtypes and tile-mlir's version, so a second process
reuses the choice without timing. TILE_MLIR_AUTOTUNE=0 takes the first
candidate (the kernel's `best()` configuration) without timing anything;
TILE_MLIR_AUTOTUNE_LOG=path appends each tuning's times there.
"""

import json
import os
import sys
import threading
from dataclasses import asdict
from typing import Callable, Dict, Sequence

from . import kernel_cache

_LOCK = threading.Lock()
_CHOSEN: Dict[str, dict] = {}
_FAST: Dict[tuple, object] = {}


def enabled() -> bool:
    return os.environ.get("TILE_MLIR_AUTOTUNE", "1") not in ("0", "off", "false", "no")


def bucket(extent: int) -> int:
    """A runtime extent's bucket: the next power of two (1, 2, 4, ...), so
    that decode's M 1-64 and the long tails share a handful of choices."""
    return 1 << max(0, (int(extent) - 1).bit_length())


def path() -> str:
    return os.path.join(kernel_cache.directory(), "autotune.json")


def _load() -> dict:
    try:
        with open(path()) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _store(key: str, choice: dict) -> None:
    os.makedirs(os.path.dirname(path()), exist_ok=True)
    table = _load()
    table[key] = choice
    partial = f"{path()}.{os.getpid()}.tmp"
    with open(partial, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    os.replace(partial, path())


def _log(key_fields: dict, timed: list) -> None:
    """With TILE_MLIR_AUTOTUNE_LOG set to a path: one JSON line a tuning,
    every candidate with its time (ms), to see what a choice beat."""
    log = os.environ.get("TILE_MLIR_AUTOTUNE_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps({**key_fields, "timed": timed}) + "\n")


def choose(key_fields: dict, candidates: Sequence, measure: Callable[[object], float]):
    """The candidate (a config dataclass) to use for `key_fields` (device,
    op, bucket, dtypes): the first one when autotuning is off; else the
    one chosen before (this process, then the disk); else each timed by
    `measure(candidate)` (milliseconds) and the fastest stored."""
    if not enabled():
        return candidates[0]
    fast = (kernel_cache.hashable(key_fields), tuple(candidates))
    chosen = _FAST.get(fast)
    if chosen is not None:  # a call after the first: one dictionary lookup
        return chosen
    key = json.dumps({**key_fields, "version": kernel_cache.source_fingerprint()}, sort_keys=True)
    by_fields = {json.dumps(asdict(c), sort_keys=True): c for c in candidates}
    with _LOCK:
        choice = _CHOSEN.get(key) or _load().get(key)
        if choice is not None and json.dumps(choice, sort_keys=True) in by_fields:
            _CHOSEN[key] = choice
            _FAST[fast] = by_fields[json.dumps(choice, sort_keys=True)]
            return _FAST[fast]
        print(f"tile_mlir.ops: tuning {key_fields.get('op')} for {key_fields.get('bucket')} over "
              f"{len(candidates)} configurations", file=sys.stderr, flush=True)
        times = [(measure(candidate), i) for i, candidate in enumerate(candidates)]
        best = candidates[min(times)[1]]
        _log(key_fields, [(asdict(candidates[i]), ms) for ms, i in times])
        _CHOSEN[key] = asdict(best)
        _FAST[fast] = best
        _store(key, asdict(best))
        return best
