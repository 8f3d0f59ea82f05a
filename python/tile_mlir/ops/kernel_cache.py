"""The ops' compiled kernels, by what decides them: the op, the kernel's
arguments (shape, dtype, configuration) and target, and the source of the
kernels and their parts. Held in this process, and on disk beside the
compile cache (TILE_MLIR_CACHE_DIR/ops), so a second process loads the
artifact without compiling (and without MLIR: a machine with only the
CUDA driver runs the kernels a build machine compiled into the directory).
"""

import hashlib
import json
import os
import threading
from functools import lru_cache
from typing import Callable, Dict

from .. import cache, runtime

_LOCK = threading.Lock()
_LOADED: Dict[str, runtime.Kernel] = {}
_BY_SPEC: Dict[tuple, runtime.Kernel] = {}


@lru_cache(maxsize=None)
def source_fingerprint() -> str:
    """A hash of the kernels' and the parts' Python source: an edit to
    either makes new keys."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha256()
    for folder in ("kernels", "pipelining"):
        for dirpath, _, files in sorted(os.walk(os.path.join(root, folder))):
            for name in sorted(f for f in files if f.endswith(".py")):
                with open(os.path.join(dirpath, name), "rb") as f:
                    digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()[:16]


def directory() -> str:
    return os.path.join(cache.directory(), "ops")


def key(spec: dict) -> str:
    text = json.dumps({**spec, "source": source_fingerprint()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def hashable(value):
    if isinstance(value, dict):
        return tuple(sorted((k, hashable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(hashable(v) for v in value)
    return value


def kernel(spec: dict, build: Callable, target: str = "sm_90a") -> runtime.Kernel:
    """The kernel of `spec` (a JSON-able description): from this process
    (a dictionary lookup: no hashing of text on a call after the first),
    from the disk, or compiled from `build()` (a T.function) and stored."""
    fast = (hashable(spec), target)
    loaded = _BY_SPEC.get(fast)
    if loaded is not None:
        return loaded
    name = key(dict(spec, target=target))
    with _LOCK:
        if name in _LOADED:
            _BY_SPEC[fast] = _LOADED[name]
            return _LOADED[name]
        path = os.path.join(directory(), f"{name}.json")
        if os.path.exists(path):
            loaded = runtime.load(path)
        else:
            from ..compiler import compile as compile_kernel
            loaded = compile_kernel(build(), target=target)
            os.makedirs(directory(), exist_ok=True)
            partial = f"{path}.{os.getpid()}.tmp"
            loaded.save(partial)
            os.replace(partial, path)  # another process sees all of it or nothing
        _LOADED[name] = _BY_SPEC[fast] = loaded
        return loaded


def launcher(spec: dict, build: Callable, target: str = "sm_90a"):
    """The prepared launcher of the kernel of `spec` (launcher.prepared),
    made once a process."""
    fast = (hashable(spec), target)
    launcher_ = _LAUNCHERS.get(fast)
    if launcher_ is None:
        from ..launcher import prepared
        launcher_ = _LAUNCHERS[fast] = prepared(kernel(spec, build, target))
    return launcher_


def built(spec: dict, build: Callable):
    """The T.function of `spec`, for the interpreter (CPU tensors): built
    once a process."""
    name = key(dict(spec, target="interpret"))
    with _LOCK:
        if name not in _FUNCTIONS:
            _FUNCTIONS[name] = build()
        return _FUNCTIONS[name]


_FUNCTIONS: Dict[str, object] = {}
_LAUNCHERS: Dict[tuple, object] = {}
