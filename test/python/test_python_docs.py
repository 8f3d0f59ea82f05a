"""The examples of docs/python.md, in order, in one namespace, and the
README's Python snippet, which runs as written up to the launch: without a
GPU that raises the documented CudaError."""

import os
import re

import pytest

from tile_mlir import runtime

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def python_blocks(path):
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    return [re.sub(r"^  ", "", block, flags=re.M) for block in re.findall(r"```python\n(.*?)```", text, re.S)]


def test_every_example_of_the_python_reference_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks("docs/python.md")
    assert len(blocks) >= 10
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)


def test_the_readme_snippet_runs_up_to_the_launch(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (snippet,) = python_blocks("README.md")
    if runtime.local_arch() is None:
        with pytest.raises(runtime.CudaError):
            exec(compile(snippet, "README.md", "exec"), {})
        assert os.path.exists("k.json")  # saved before the launch
    else:
        exec(compile(snippet, "README.md", "exec"), {})
