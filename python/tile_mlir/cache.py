"""The on-disk compile cache: a kernel compiled once is loaded, not
compiled, by every later process that compiles the same kernel.

The key is a hash of the kernel's IR, the target, the options, the
tile-mlir build (the compiled extension's path, size and time: every
version and every rebuild is a new one) and the ptxas that assembled the
cubin. Entries are artifacts (``Kernel.save``) written atomically, with
their key and a digest of their code inside: an entry is used only if it is
a regular file of bounded size, names the key it is looked up by, and its
PTX and cubin still match the digest. Anything else (a damaged entry,
another kernel's artifact, a directory, a FIFO, a link) is a miss, and
the kernel is compiled again.

The cache is best effort: a directory that cannot be read or written is
skipped with a ``CacheWarning``, never an error of the compile.
``TILE_MLIR_CACHE_DIR`` moves the cache (default ``~/.cache/tile-mlir``);
``TILE_MLIR_CACHE=0`` or ``compile(..., cache=False)`` switches it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import warnings
from functools import lru_cache
from typing import Optional

from . import runtime

# Far above any kernel's artifact (PTX and a base64 cubin); an entry past it
# is not read.
MAX_ENTRY_BYTES = 256 << 20


class CacheWarning(UserWarning):
    """The compile cache could not be used; the kernel was compiled (or
    left unstored) without it."""


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
    info = os.stat(_tile.__file__)
    parts = [_tile.__file__, str(info.st_size), str(info.st_mtime_ns)]
    # ptxas by its file, not by running it: a process that hits the cache
    # starts no other process.
    ptxas = shutil.which("ptxas")
    if ptxas:
        real = os.path.realpath(ptxas)
        info = os.stat(real)
        parts += [real, str(info.st_size), str(info.st_mtime_ns)]
    return "\n".join(parts)


def key(ir_text: str, target: str, opt_level: int, cubin: bool, fold_barriers: str = "auto") -> str:
    digest = hashlib.sha256()
    for part in (_toolchain(), ir_text, target, str(opt_level), str(cubin), fold_barriers):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def code_digest(entry: str, kernel: runtime.Kernel) -> str:
    """A digest of what an entry hands out (its name, PTX and cubin) bound
    to its key: an artifact copied under another key, or edited, fails it."""
    digest = hashlib.sha256()
    for part in (entry.encode(), kernel.name.encode(), kernel.ptx.encode(), kernel.cubin or b""):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _path(entry: str) -> str:
    return os.path.join(directory(), entry + ".json")


def lookup(entry: str) -> Optional[runtime.Kernel]:
    """The kernel stored under `entry`, or None: no entry, or one that is
    not a regular file of bounded size holding this key's artifact."""
    path = _path(entry)
    try:
        info = os.lstat(path)  # a link is not followed: /dev/zero, a FIFO
    except FileNotFoundError:
        return None
    except OSError as error:
        warnings.warn(f"tile-mlir cache: cannot read {path} ({error.strerror or error}); "
                      "compiling without it", CacheWarning, stacklevel=3)
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
        return None
    try:
        with open(path, "rb") as f:
            fields = json.loads(f.read(MAX_ENTRY_BYTES + 1))
        kernel = runtime.load(path)
    except (OSError, ValueError):
        return None  # damaged, or replaced while read: compiled again
    if not isinstance(fields, dict) or fields.get("cache_key") != entry \
            or fields.get("code_digest") != code_digest(entry, kernel):
        return None  # another kernel's artifact, or changed code
    return kernel


def store(entry: str, kernel: runtime.Kernel) -> None:
    """Writes `kernel` under `entry` atomically; a directory that cannot
    take it is skipped with a CacheWarning."""
    temp = None
    try:
        os.makedirs(directory(), exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=directory(), suffix=".tmp")
        artifact = kernel.artifact()
        artifact["cache_key"], artifact["code_digest"] = entry, code_digest(entry, kernel)
        with os.fdopen(fd, "w") as f:
            json.dump(artifact, f, indent=1)
        os.replace(temp, _path(entry))
    except OSError as error:
        warnings.warn(f"tile-mlir cache: cannot store in {directory()} ({error.strerror or error}); "
                      "the kernel is compiled but not cached", CacheWarning, stacklevel=3)
    finally:
        if temp is not None and os.path.exists(temp):
            try:
                os.remove(temp)
            except OSError:
                pass
