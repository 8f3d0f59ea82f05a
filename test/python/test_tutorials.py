"""The tutorials of examples/tutorials (issue 55), in the order a new user
learns: each runs in the interpreter and checks its own result, and what
each says the interpreter reports of a mistake is reported."""

import os

import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FOLDER = os.path.join(ROOT, "examples", "tutorials")
TUTORIALS = sorted(f[:-3] for f in os.listdir(FOLDER) if f.startswith("t") and f.endswith(".py"))


def load(name, replace=None):
    """Tutorial `name` as a module; `replace` (old, new): a mutant of it."""
    path = os.path.join(FOLDER, f"{name}.py")
    source = open(path).read()
    if replace:
        assert source.count(replace[0]) == 1, replace[0]
        source = source.replace(*replace)
    module = type(os)(f"tutorial_{name}")
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def test_the_tutorials_are_in_order():
    assert TUTORIALS == ["t01_vector_add", "t02_softmax", "t03_transpose", "t04_gemm_mma", "t05_pipeline",
                         "t06_histogram", "t07_layernorm"]


@pytest.mark.parametrize("name", TUTORIALS)
def test_each_tutorial_runs_and_checks_itself(name):
    load(name).main()


def test_a_fragment_loaded_against_the_table_is_a_wrong_product():
    # Tutorial 4 with A's fragment loaded transposed (row and column
    # swapped): the interpreter multiplies by the tables, so its own check
    # fails.
    mutant = load("t04_gemm_mma", ('r, c = T.mma_coordinates(MMA, "a", i)', 'c, r = T.mma_coordinates(MMA, "a", i)'))
    with pytest.raises(AssertionError):
        mutant.main()


def test_a_consumer_without_its_wait_is_reported():
    mutant = load("t05_pipeline", ("            ring.wait(get)\n", ""))
    with pytest.raises(tile_mlir.InterpretError, match=r"t05_pipeline.py:\d+: "):
        mutant.main()


def test_a_consumer_without_its_release_leaves_the_producer_waiting():
    mutant = load("t05_pipeline", ("            ring.release(get)\n", ""))
    with pytest.raises(tile_mlir.InterpretError, match="never ends"):
        mutant.main()


def test_a_value_outside_the_bins_is_named():
    import numpy as np
    module = load("t06_histogram")
    values = np.zeros((module.N, 1), np.uint32)
    values[77, 0] = 300
    with pytest.raises(tile_mlir.InterpretError, match=r"t06_histogram.py:\d+: thread \(77\) of block \(0\) reads the "
                       r"value 300 as an index of an axis of 256"):
        module.main(values)


def test_one_buffer_for_both_reductions_is_a_race_the_interpreter_names():
    module = load("t07_layernorm")
    with pytest.raises(tile_mlir.HazardError, match=r"t07_layernorm.py:\d+: write-after-read race on the shared "
                       r"buffer of .*t07_layernorm.py:\d+ byte 0"):
        module.main(shared_partials=True)
