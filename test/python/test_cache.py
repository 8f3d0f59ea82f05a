"""The on-disk compile cache (tile_mlir.cache)."""

import os
import subprocess
import sys

import pytest

import tile_mlir
from tile_mlir import cache

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "examples", "spec"))
import packed_add  # noqa: E402


@pytest.fixture()
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_MLIR_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_a_second_compile_comes_from_the_cache(fresh_cache):
    first = tile_mlir.compile(packed_add.packed_add, target="sm_90")
    second = tile_mlir.compile(packed_add.packed_add, target="sm_90")
    assert (first.from_cache, second.from_cache) == (False, True)
    assert (second.ptx, second.cubin, second.params, second.grid) == (first.ptx, first.cubin, first.params,
                                                                      first.grid)
    assert len(list(fresh_cache.glob("*.json"))) == 1


def test_the_key_holds_the_target_and_the_options(fresh_cache):
    tile_mlir.compile(packed_add.packed_add, target="sm_90")
    assert not tile_mlir.compile(packed_add.packed_add, target="sm_100a").from_cache
    assert not tile_mlir.compile(packed_add.packed_add, target="sm_90", opt_level=0).from_cache
    assert not tile_mlir.compile(packed_add.packed_add, target="sm_90", cubin=False).from_cache
    assert len(list(fresh_cache.glob("*.json"))) == 4


def test_the_cache_can_be_switched_off(fresh_cache, monkeypatch):
    assert not tile_mlir.compile(packed_add.packed_add, cache=False).from_cache
    monkeypatch.setenv("TILE_MLIR_CACHE", "0")
    assert not tile_mlir.compile(packed_add.packed_add).from_cache
    assert not tile_mlir.compile(packed_add.packed_add).from_cache
    assert list(fresh_cache.glob("*.json")) == []


def test_a_damaged_entry_is_compiled_again(fresh_cache):
    tile_mlir.compile(packed_add.packed_add)
    (entry,) = fresh_cache.glob("*.json")
    entry.write_text("{ not json")
    again = tile_mlir.compile(packed_add.packed_add)
    assert not again.from_cache and tile_mlir.compile(packed_add.packed_add).from_cache


def test_another_process_hits_the_cache(fresh_cache):
    script = ("import sys; sys.path.insert(0, %r); import packed_add, tile_mlir; "
              "print(tile_mlir.compile(packed_add.packed_add).from_cache)") % os.path.join(ROOT, "examples", "spec")
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=dict(os.environ, TILE_MLIR_CACHE_DIR=str(fresh_cache)))
            for _ in range(2)]
    assert [r.stdout.strip() for r in runs] == ["False", "True"], [r.stderr for r in runs]
