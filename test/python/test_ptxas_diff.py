"""A fast sample of the differential test of the PTX form table against
ptxas (the full run is tools/ptxas_diff/ptxas_diff.py; its result is
tools/ptxas_diff/results.json)."""

import json
import os
import random
import shutil
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "ptxas_diff"))
import ptxas_diff  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")


def test_sample_agrees_with_ptxas():
    spellings = list(ptxas_diff.spellings())
    assert len(spellings) >= 3000
    sample = random.Random(2).sample(spellings, 600)
    report = ptxas_diff.run(sample)
    # Each operand shape of an mbarrier operation is a case of its own.
    assert report["spellings"] == 600 and report["checks"] == report["cases"] * 3 >= 600 * 3
    assert report["disagreements"] == []


def test_committed_full_run_has_no_disagreement():
    with open(os.path.join(ROOT, "tools", "ptxas_diff", "results.json")) as f:
        report = json.load(f)
    assert report["spellings"] == len(list(ptxas_diff.spellings()))
    assert report["table_accepts_ptxas_rejects"] == 0
    assert report["disagreements"] == []


def test_committed_sm90a_run_has_no_disagreement():
    # wgmma and setmaxnreg exist on sm_90a alone or from it: judged there.
    with open(os.path.join(ROOT, "tools", "ptxas_diff", "results_sm90a.json")) as f:
        report = json.load(f)
    assert report["targets"] == ["sm_90a"]
    assert report["spellings"] == len(list(ptxas_diff.sm90a_spellings()))
    assert report["table_accepts_ptxas_rejects"] == 0
    assert report["disagreements"] == []


def test_wgmma_sample_agrees_with_ptxas_on_sm_90a():
    # A sample of the wgmma.mma_async spellings, judged again by ptxas: the
    # table's forms (A in registers or through a descriptor, every D count)
    # assemble, and what it rejects does not.
    spellings = random.Random(5).sample(sorted(set(ptxas_diff.wgmma_spellings())), 200)
    report = ptxas_diff.run(spellings, targets=("sm_90a",))
    assert report["table_legal"] > 40
    assert report["disagreements"] == [], report["disagreements"][:3]


def test_forms_doc_is_generated_from_the_table():
    import subprocess
    generated = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_ptx_forms_doc.py")],
                               capture_output=True, text=True, check=True).stdout
    with open(os.path.join(ROOT, "docs", "ptx-forms.md")) as f:
        assert f.read() == generated, "docs/ptx-forms.md is stale: run tools/gen_ptx_forms_doc.py"


def test_orders_and_edits_sample_agrees_with_ptxas():
    # Permutations and single-token edits of legal spellings, judged by
    # ptxas (tools/ptxas_diff/orders.py): the table and ptxas agree.
    import orders
    rng = random.Random(3)
    forms = rng.sample(ptxas_diff.legal_forms(one_per_qualifier_set=True), 60)
    report = orders.run(forms, rng)
    assert report["disagreements"] == [], report["disagreements"][:5]


def test_committed_orders_run_agrees_with_ptxas():
    with open(os.path.join(ROOT, "tools", "ptxas_diff", "orders.json")) as f:
        report = json.load(f)
    assert report["spellings"] > 90000 and report["disagreements"] == []


def test_hopper_groups_agree_with_ptxas_on_sm_90a():
    # wgmma's group instructions exist on sm_90a alone, setmaxnreg on the
    # arch-specific targets from it: the default targets refuse them, so
    # sm_90a judges the table's legal forms (ptxas's extra .sync-only and
    # .s32 spellings are explained).
    spellings = list(ptxas_diff.hopper_group_spellings())
    report = ptxas_diff.run(spellings, targets=("sm_90a",))
    assert report["disagreements"] == [] and report["table_legal"] == 10
    assert len(report["explained"]) == 7


def test_committed_sm100_runs_have_no_disagreement():
    # tcgen05 (tools/ptxas_diff/tcgen05.py): judged on sm_100a, sm_100f and
    # sm_103a, which have it, and on sm_90a and sm_120a, which do not; its
    # forms' qualifier orders and single-token edits too (orders.py --sm100).
    import tcgen05
    with open(os.path.join(ROOT, "tools", "ptxas_diff", "results_sm100.json")) as f:
        report = json.load(f)
    assert report["targets"] == list(tcgen05.TARGETS)
    assert report["spellings"] == len(list(tcgen05.spellings()))
    assert report["table_legal"] > 600 and report["disagreements"] == []
    with open(os.path.join(ROOT, "tools", "ptxas_diff", "orders_sm100.json")) as f:
        orders = json.load(f)
    assert orders["targets"] == list(tcgen05.TARGETS)
    assert orders["spellings"] > 10000 and orders["disagreements"] == []


def test_tcgen05_sample_agrees_with_ptxas():
    import tcgen05
    spellings = random.Random(7).sample(list(tcgen05.spellings()), 200)
    report = ptxas_diff.run(spellings, targets=("sm_100a", "sm_90a"))
    assert report["table_legal"] > 20
    assert report["disagreements"] == [], report["disagreements"][:3]
