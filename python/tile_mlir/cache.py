"""The on-disk compile cache: a kernel compiled once is loaded, not
compiled, by every later process that compiles the same kernel.

The key is a hash of the kernel's IR, the target, the options, the
tile-mlir build (the compiled extension's path, size and time: every
version and every rebuild is a new one) and the ptxas that assembled the
cubin. Entries are artifacts (``Kernel.save``)
written atomically. ``TILE_MLIR_CACHE_DIR`` moves the cache (default
``~/.cache/tile-mlir``); ``TILE_MLIR_CACHE=0`` or ``compile(...,
cache=False)`` switches it off.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from functools import lru_cache
from typing import Optional

from . import runtime


def enabled() -> bool:
    return os.environ.get("TILE_MLIR_CACHE", "1") not in ("0", "off", "false", "no")


def directory() -> str:
    return os.environ.get("TILE_MLIR_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "tile-mlir")


@lru_cache(maxsize=None)
def _toolchain() -> str:
    """What besides the IR decides the output: this build of tile-mlir and
    the ptxas on PATH."""
    from . import _tile
    stat = os.stat(_tile.__file__)
    parts = [_tile.__file__, str(stat.st_size), str(stat.st_mtime_ns)]
    # ptxas by its file, not by running it: a process that hits the cache
    # starts no other process.
    ptxas = shutil.which("ptxas")
    if ptxas:
        real = os.path.realpath(ptxas)
        stat = os.stat(real)
        parts += [real, str(stat.st_size), str(stat.st_mtime_ns)]
    return "\n".join(parts)


def key(ir_text: str, target: str, opt_level: int, cubin: bool, fold_barriers: str = "auto") -> str:
    digest = hashlib.sha256()
    for part in (_toolchain(), ir_text, target, str(opt_level), str(cubin), fold_barriers):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def lookup(entry: str) -> Optional[runtime.Kernel]:
    path = os.path.join(directory(), entry + ".json")
    if not os.path.exists(path):
        return None
    try:
        return runtime.load(path)
    except runtime.ArtifactError:
        return None  # a damaged entry is compiled again and replaced


def store(entry: str, kernel: runtime.Kernel) -> None:
    import tempfile
    os.makedirs(directory(), exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=directory(), suffix=".tmp")
    os.close(fd)
    try:
        kernel.save(temp)
        os.replace(temp, os.path.join(directory(), entry + ".json"))
    finally:
        if os.path.exists(temp):
            os.remove(temp)
