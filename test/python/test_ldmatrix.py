"""ldmatrix and stmatrix .m8n8 .b16: the interpreter against the PTX ISA's
definition (tools/gpu/matrix_check.py writes it out apart from the
interpreter), every sm_90 form, and the committed H200 run."""

import json
import os
import sys

import numpy as np
import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
import matrix_check  # noqa: E402

FORMS = matrix_check.forms()


def test_every_count_transposition_and_space_is_checked():
    assert len(FORMS) == 24
    assert {(f["family"], f["count"], f["trans"]) for f in FORMS} == {
        (fam, n, t) for fam in ("ldmatrix", "stmatrix") for n in (1, 2, 4) for t in (False, True)}


@pytest.mark.parametrize("entry", FORMS, ids=lambda e: e["opcode"])
def test_interpreter_follows_the_isa(entry):
    a, regs, want_rows, want_regs = matrix_check.case(entry, 3)
    out, out_r = np.zeros((32, 4), np.uint32), np.zeros_like(regs)
    tile_mlir.interpret(matrix_check.kernel(entry), a, regs, out, out_r)
    assert np.array_equal(out, want_rows) and np.array_equal(out_r, want_regs)


def test_ldmatrix_emits_the_lanes_row_addresses():
    entry = next(f for f in FORMS if f["opcode"] == "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16")
    ptx = tile_mlir.compile(matrix_check.kernel(entry), target="sm_90").ptx
    stores = [l.split("[")[1].split("]")[0] for l in ptx.split("\n") if "st.shared.v4.b32" in l]
    loads = [l.strip() for l in ptx.split("\n") if "ldmatrix" in l]
    # Each lane's address is the row it stored (S[lane]), in braces even x4.
    assert loads == [f"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{loads[0].split('{')[1].split('}')[0]}}}, "
                     f"[{stores[0]}];"]


def test_committed_h200_run_has_no_mismatch():
    with open(os.path.join(ROOT, "tools", "gpu", "results", "matrix.json")) as f:
        report = json.load(f)
    assert report["forms"] == 24 and report["cases"] == 96 and not report["mismatched"]


def test_the_sm_100a_b8_shapes_are_not_interpreted():
    # Checked by ptxas only (test/PTX/ldmatrix_b8.mlir): the interpreter
    # refuses them rather than run them as m8n8.
    from tile_mlir import script as T

    @T.function
    def b8(A: T.Tensor((32, 16), "int8"), Out: T.Tensor((32, 2), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        S = T.alloc_shared((32, 16), "int8")
        d = T.alloc_local((1, 2), "uint32")
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8"], d, S[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.v2.b32"], Out[t:t + 1], d)

    with pytest.raises(tile_mlir.InterpretError, match=r"does not model ldmatrix\.sync\.aligned\.m16n16\.x1\.trans"
                                                       r"\.shared\.b8: the sm_100a \.b8 shapes"):
        tile_mlir.interpret(b8, np.zeros((32, 16), np.int8), np.zeros((32, 2), np.uint32), target="sm_100a")
