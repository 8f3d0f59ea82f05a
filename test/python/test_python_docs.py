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
    (snippet,) = [block for block in python_blocks("README.md") if "T.function" in block]
    if runtime.local_arch() is None:
        with pytest.raises(runtime.CudaError):
            exec(compile(snippet, "README.md", "exec"), {})
        assert os.path.exists("k.json")  # saved before the launch
    else:
        exec(compile(snippet, "README.md", "exec"), {})


def test_no_doc_says_a_name_that_exists_is_missing():
    # "There is no `alloc_shared` yet" stood above alloc_shared's section,
    # and bar.md said dynamic shared memory was "not there yet" long after
    # T.alloc_dynamic_shared (issue 53). A claim that a name is missing is
    # checked against the package; "not there yet" is not written at all.
    import glob
    import re

    from tile_mlir import script as T

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    paths = [os.path.join(root, "README.md")] + glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)
    missing = re.compile(r"\b[Tt]here is no `(?:T\.)?(\w+)`(?: yet)?|\bno `(?:T\.)?(\w+)` yet|"
                         r"`(?:T\.)?(\w+)` is not (?:there|available|supported) yet")
    stale = []
    for path in paths:
        text = " ".join(open(path).read().split())
        if "not there yet" in text:
            stale.append(f"{os.path.relpath(path, root)}: 'not there yet'")
        for match in missing.finditer(text):
            name = next(g for g in match.groups() if g)
            if hasattr(T, name):
                stale.append(f"{os.path.relpath(path, root)}: {match.group(0)!r}, but T.{name} exists")
    assert stale == []


def test_the_readmes_pytorch_example_chains_on_meta_tensors():
    # Run on meta tensors (the ops' fake implementations): every argument
    # the example passes is one the ops take, and the shapes chain.
    pytest.importorskip("torch")
    (example,) = [block for block in python_blocks("README.md") if "tile_mlir.ops" in block]
    assert example.count('device="cuda"') == 3
    namespace = {}
    exec(compile(example.replace('device="cuda"', 'device="meta"'), "README.md", "exec"), namespace)
    assert namespace["o"].shape == (4, 16, 4096, 128) and namespace["y"].shape == (4 * 16 * 4096, 4096)


def test_the_ops_pages_examples_run(tmp_path, monkeypatch):
    # The first on meta tensors (the ops' fake implementations: the
    # arguments are ones the ops take, the shapes chain); the second fills
    # a cache of this test's own.
    pytest.importorskip("torch")
    monkeypatch.setenv("TILE_MLIR_CACHE_DIR", str(tmp_path))
    example, precompiling = python_blocks("docs/ops.md")
    namespace = {}
    exec(compile(example.replace('device="cuda"', 'device="meta"'), "docs/ops.md", "exec"), namespace)
    assert namespace["o"].shape == (1, 32, 256, 128)
    exec(compile(precompiling, "docs/ops.md", "exec"), {})
    # matmul's candidates at M 16 x N 4096: four of one kernel, two split
    # along K and two swap-AB of two kernels each (the partial GEMM and its
    # reduction), and those four in one launch (one kernel each).
    assert len(os.listdir(tmp_path / "ops")) == 4 + 2 * 2 + 2 * 2 + 4
