"""tile_mlir.ops.autotune (issue 55): the first use of a shape bucket times
each candidate configuration (one line of progress), the fastest is kept on
disk and reused by a second process without timing; TILE_MLIR_AUTOTUNE=0
takes the default (first) candidate. Every candidate of matmul computes
the same product (the interpreter, exact data)."""

import json
import os
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from tile_mlir.ops import autotune


@dataclass(frozen=True)
class Config:
    tiles: int = 1


FIELDS = {"device": "NVIDIA H100 80GB HBM3", "op": "matmul", "bucket": [16, 4096, 4096], "dtypes": ["bfloat16"]}
CANDIDATES = [Config(1), Config(2), Config(3)]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_MLIR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(autotune, "_CHOSEN", {})
    monkeypatch.setattr(autotune, "_FAST", {})
    return tmp_path


def test_the_fastest_is_chosen_stored_and_reused(fresh, capsys):
    times = {1: 3.0, 2: 1.0, 3: 2.0}
    timed = []

    def measure(config):
        timed.append(config.tiles)
        return times[config.tiles]
    assert autotune.choose(FIELDS, CANDIDATES, measure) == Config(2)
    assert timed == [1, 2, 3]
    assert capsys.readouterr().err == "tile_mlir.ops: tuning matmul for [16, 4096, 4096] over 3 configurations\n"
    # Again in this process: no timing.
    assert autotune.choose(FIELDS, CANDIDATES, lambda c: pytest.fail("timed again")) == Config(2)
    (stored,) = json.load(open(fresh / "ops" / "autotune.json")).values()
    assert stored == {"tiles": 2}


def test_the_log_holds_each_tunings_times(fresh, monkeypatch):
    log = fresh / "tuning.jsonl"
    monkeypatch.setenv("TILE_MLIR_AUTOTUNE_LOG", str(log))
    autotune.choose(FIELDS, CANDIDATES, lambda c: {1: 3.0, 2: 1.0, 3: 2.0}[c.tiles])
    autotune.choose(FIELDS, CANDIDATES, lambda c: pytest.fail("timed again"))  # chosen: nothing logged
    (line,) = log.read_text().splitlines()
    assert json.loads(line) == {**FIELDS, "timed": [[{"tiles": 1}, 3.0], [{"tiles": 2}, 1.0], [{"tiles": 3}, 2.0]]}


def test_a_second_process_reuses_the_choice(fresh):
    autotune.choose(FIELDS, CANDIDATES, lambda c: {1: 3.0, 2: 2.0, 3: 1.0}[c.tiles])
    code = ("from dataclasses import dataclass\n"
            "from tile_mlir.ops import autotune\n"
            "@dataclass(frozen=True)\n"
            "class Config:\n"
            "    tiles: int = 1\n"
            f"print(autotune.choose({FIELDS!r}, [Config(1), Config(2), Config(3)], lambda c: 1 / 0))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, TILE_MLIR_CACHE_DIR=str(fresh)))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "Config(tiles=3)" and run.stderr == ""


def test_off_takes_the_default_and_times_nothing(fresh, monkeypatch):
    monkeypatch.setenv("TILE_MLIR_AUTOTUNE", "0")
    assert autotune.choose(FIELDS, CANDIDATES, lambda c: pytest.fail("timed")) == Config(1)
    assert not (fresh / "ops" / "autotune.json").exists()


def test_a_stored_choice_no_longer_offered_is_timed_again(fresh):
    autotune.choose(FIELDS, CANDIDATES, lambda c: {1: 3.0, 2: 2.0, 3: 1.0}[c.tiles])
    autotune._CHOSEN.clear()
    autotune._FAST.clear()
    assert autotune.choose(FIELDS, CANDIDATES[:2], lambda c: {1: 1.0, 2: 2.0}[c.tiles]) == Config(1)


def test_buckets_are_powers_of_two():
    assert [autotune.bucket(m) for m in (1, 2, 3, 16, 17, 1000, 4096)] == [1, 2, 4, 16, 32, 1024, 4096]


def test_every_matmul_candidate_computes_the_product():
    # Each configuration the autotuner may choose, at a shape with tails,
    # in the interpreter on exact data: they differ in speed only.
    import tile_mlir
    from tile_mlir.kernels.gemm_hopper import hopper_gemm
    from tile_mlir.kernels.reference import gemm as gemm_reference
    from tile_mlir.ops.matmul import candidates

    m, n, k = 72, 136, 136
    rng = np.random.default_rng(9)
    a, b = [rng.integers(-3, 4, s).astype(np.float32) for s in ((m, k), (k, n))]
    want = gemm_reference.bits(gemm_reference.expected(a, b), "bfloat16")  # small integers: exact in bf16
    for plan in candidates("bfloat16")[2:]:  # the first two differ only in the blocks' count and order
        c = np.zeros((m, n), np.uint16)
        tile_mlir.interpret(hopper_gemm(m, n, k, "bfloat16", plan.config), gemm_reference.bits(a, "bfloat16"),
                            np.ascontiguousarray(gemm_reference.bits(b, "bfloat16").T), c)
        assert np.array_equal(c, want), config
