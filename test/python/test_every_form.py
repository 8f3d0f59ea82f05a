"""Every form the table marks legal on sm_90 and on sm_100a lowers through
tile-mlir, appears exactly once per repeat in the PTX, and ptxas accepts the
PTX for that target."""

import os
import shutil
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "forms"))
import every_form  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")


@pytest.mark.parametrize("target", ["sm_90", "sm_100a"])
def test_every_legal_form_lowers_and_assembles(target):
    count, problems = every_form.run(target)
    assert count > 3000
    assert problems == []


def test_every_wgmma_form_lowers_and_assembles_on_sm_90a():
    # wgmma exists on sm_90a alone: each of its forms (A through a
    # descriptor or in registers, every N) is one instruction in the PTX
    # that ptxas accepts.
    import selection
    forms = [f for f in selection.selected_forms("sm_90a") if f.family == "wgmma"]
    count, problems = every_form.run("sm_90a", forms)
    assert count > 1000
    assert problems == []
