"""The pipeline difftest class (tools/difftest/pipelines.py, issue 53):
rings of TMA loads, mbarriers, ld.shared or wgmma consumers and st.global
or TMA-store epilogues, clean or with one mutation whose verdict follows
from the PTX ISA's rules. The committed campaign (results/pipelines.json)
ran 5,000 of them; here one kernel of every verdict, and a small random
campaign, must agree."""

import json
import os
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "difftest"))
import pipelines as P  # noqa: E402

CASES = [
    (P.Pipeline(2, 4, "ld", "st", "none", 0), "clean"),
    (P.Pipeline(3, 5, "wgmma", "tma", "none", 0), "clean"),
    (P.Pipeline(2, 4, "ld", "tma", "skip_full_wait", 1), "async"),
    (P.Pipeline(2, 4, "ld", "st", "skip_empty_wait", 3), "race"),
    (P.Pipeline(1, 3, "wgmma", "st", "skip_empty_wait", 2), "clean"),
    (P.Pipeline(2, 4, "ld", "st", "skip_release", 1), "hang"),
    (P.Pipeline(2, 4, "ld", "st", "skip_release", 3), "clean"),
    (P.Pipeline(2, 3, "wgmma", "tma", "skip_fence", 0), "proxy"),
    (P.Pipeline(2, 4, "wgmma", "st", "skip_wgmma_wait", 1), "wgmma"),
    (P.Pipeline(2, 4, "wgmma", "st", "skip_wgmma_wait", 3), "clean"),
    (P.Pipeline(4, 6, "ld", "st", "membermask", 0), "collective"),
]


@pytest.mark.parametrize("pipeline,verdict", CASES, ids=[f"{p.mutation}-{p.consumer}-{v}" for p, v in CASES])
def test_every_verdict_is_reached(pipeline, verdict):
    assert P.expected(pipeline) == verdict
    result = P.judge(pipeline)
    assert result["agrees"], result


def test_a_small_campaign_agrees():
    report = P.campaign(16, seed=53)
    assert report["disagreements"] == []


def test_the_committed_campaign_ran_5000_kernels_with_no_disagreement():
    with open(os.path.join(ROOT, "tools", "difftest", "results", "pipelines.json")) as f:
        report = json.load(f)
    assert report["kernels"] >= 5000 and report["disagreements"] == []
    # Every verdict the class has was reached.
    reached = {key.split(" -> ")[0] for key in report["verdicts"]}
    assert reached == {"clean", "async", "race", "hang", "proxy", "wgmma", "collective"}
