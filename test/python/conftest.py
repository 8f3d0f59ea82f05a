"""Every test session compiles into a cache of its own, so no test depends
on what an earlier run or another user left in ~/.cache/tile-mlir."""

import os
import tempfile

_CACHE = tempfile.mkdtemp(prefix="tile-mlir-cache-")
os.environ["TILE_MLIR_CACHE_DIR"] = _CACHE


import pytest  # noqa: E402


@pytest.fixture
def line_of(request):
    """`file.py:line` of the one line of the calling test's file that holds
    `text` (a marker comment at a call site), as diagnostics and hazards
    name the user's lines."""
    path = str(request.path)

    def find(text):
        with open(path) as f:
            lines = [i for i, line in enumerate(f, 1) if text in line and "line_of(" not in line]
        assert len(lines) == 1, text
        return f"{path}:{lines[0]}"
    return find
