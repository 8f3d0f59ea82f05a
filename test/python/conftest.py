"""Every test session compiles into a cache of its own, so no test depends
on what an earlier run or another user left in ~/.cache/tile-mlir."""

import os
import tempfile

_CACHE = tempfile.mkdtemp(prefix="tile-mlir-cache-")
os.environ["TILE_MLIR_CACHE_DIR"] = _CACHE
