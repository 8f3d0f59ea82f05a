"""The README's test command is what CI runs, and it passes as written: no
test reaches a project tool through PATH, which the command does not set
(issue 53: a fresh clone failed where CI, exporting PATH, passed)."""

import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, ".ci"))
from readme_command import readme_test_command  # noqa: E402

PROJECT_TOOLS = ("tile-opt", "tile-ptx", "lit", "filecheck", "FileCheck")


def test_ci_runs_the_readme_command_and_nothing_else():
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        ci = f.read()
    code = [line for line in ci.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    # No PATH export, no second test invocation beside the README's line.
    assert not any("PATH" in line for line in code), code
    assert not any(re.search(r"\b(lit|pytest|fuzz\.py)\b", line) for line in code), code
    with open(os.path.join(ROOT, "README.md")) as f:
        command = readme_test_command(f.read())
    printed = subprocess.run([sys.executable, os.path.join(ROOT, ".ci", "readme_command.py"),
                              os.path.join(ROOT, "README.md")], capture_output=True, text=True, check=True)
    assert printed.stdout.strip() == command
    for step in ("pip install '.[test]'", "lit -sv test", "TILE_FILECHECK=filecheck", "TILE_ROUNDTRIP=1",
                 "fuzz.py", "pytest -q -n 2 test/python"):
        assert step in command


def test_the_command_extractor_refuses_a_readme_without_it():
    import pytest
    with pytest.raises(SystemExit, match="no paragraph"):
        readme_test_command("# tile-mlir\n")
    with pytest.raises(SystemExit, match="2 lines"):
        readme_test_command("Install and run all tests:\n\n```sh\na\nb\n```\n")


def test_no_test_starts_a_project_tool_by_bare_name():
    # subprocess.run([<a tool's bare name>, ...]) finds it only through PATH.
    here = os.path.dirname(os.path.abspath(__file__))
    bare = re.compile(r"""\[\s*["'](%s)["']""" % "|".join(map(re.escape, PROJECT_TOOLS)))
    offenders = []
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            with open(os.path.join(here, name)) as f:
                offenders += [f"{name}:{i}" for i, line in enumerate(f, 1) if bare.search(line)]
    assert offenders == []


def test_the_tools_stand_next_to_the_python_that_runs_the_tests():
    for tool in ("tile-opt", "tile-ptx"):
        assert os.access(os.path.join(os.path.dirname(sys.executable), tool), os.X_OK), tool
