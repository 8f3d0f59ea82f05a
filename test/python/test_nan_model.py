"""The reference's NaN results (reference.hardware_nans) against every NaN
lane the H200 produced in tools/conformance/nan_study.py's run over the
float forms of the conformance bundle (nan_study_h200.json): the same bits,
lane by lane, for every sample of every form."""

import json
import os
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tile_mlir import ptx

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "conformance"))
import nan_study  # noqa: E402
import reference as R  # noqa: E402

with open(os.path.join(ROOT, "tools", "conformance", "nan_study_h200.json")) as f:
    STUDY = json.load(f)


def form_of(record):
    """The overload the study ran: its operand names and roles."""
    want = [(name, role) for name, role, _ in record["operands"]]
    for form in ptx.overloads(record["opcode"]):
        if [(op.name, op.role) for op in form.operands] == want:
            return form
    raise AssertionError(f"no overload of {record['opcode']} has operands {want}")


def model_lane(record, sample):
    form = form_of(record)
    entry = {"opcode": record["opcode"], "family": record["family"],
             "operands": [{"type": op.type, "bits": op.bits} for op in form.operands]}
    reads = [i for _, i in sorted((op.read_at if op.role == "rw" else i, i)
                                  for i, op in enumerate(form.operands) if op.role in ("src", "rw"))]
    srcs = []
    for i, bits in zip(reads, sample[2]):
        op = form.operands[i]
        value = np.array([int(bits, 16)], dtype=np.uint64).astype(R.UINT[max(op.bits, 8)])
        srcs.append(value != 0 if op.type == "pred" else value)
    got = R.reference(SimpleNamespace(opcode=record["opcode"], family=record["family"],
                                      operands=form.operands,
                                      immediates={int(k): v for k, v in record["immediates"].items()}), srcs)
    if isinstance(got, R.Partial):
        if not got.defined.all():
            return None  # several NaN inputs of an f64 form: which wins is ptxas's operand order
        got = got.values
    dst, lane = (int(x) for x in sample[0][1:].split("."))
    kind, lanes = nan_study.dst_kind(entry, dst)
    width = np.asarray(got).dtype.itemsize * 8
    bits = int(np.asarray(got).reshape(-1)[0])
    if lanes > 1:
        lane_bits = width // lanes
        bits = (bits >> (lane * lane_bits)) & ((1 << lane_bits) - 1)
    return bits


RECORDS = sorted((name, r) for name, r in STUDY["forms"].items() if r["samples"])


def test_study_covers_the_float_families():
    families = {r["family"] for _, r in RECORDS}
    assert {"add", "sub", "mul", "fma", "mad", "div", "sqrt", "rcp", "abs", "neg", "min", "max",
            "cvt"} <= families
    assert sum(len(r["samples"]) for _, r in RECORDS) > 20000


@pytest.mark.parametrize("family", sorted({r["family"] for _, r in RECORDS}))
def test_reference_nans_are_the_h200s(family):
    wrong = []
    for name, record in RECORDS:
        if record["family"] != family:
            continue
        for sample in record["samples"]:
            want = int(sample[1], 16)
            got = model_lane(record, sample)
            if got is not None and got != want:
                wrong.append((record["opcode"], sample, hex(got)))
    assert not wrong, f"{len(wrong)} lanes differ, e.g. {wrong[:3]}"


def test_bits_of_a_made_nan_are_unknown_through_atomics_shuffles_and_matches():
    """mul.rn.f32 of a NaN makes a NaN (the canonical one on the H200). A
    shuffle moves it as a NaN; an xor of the moved bits, a red.xor of them
    into shared memory and a match.any over them are computed from a NaN's
    bits, which other forms leave to ptxas (neg.f32's: -O3 kept the input's
    payload, -O0 gave 7fffffff, difftest kernel 22003300), so each is
    unknown: stored undefined, never compared."""
    import tile_mlir
    from tile_mlir import script as T
    from tile_mlir.interpreter.launch import InterpretWarning

    @T.function
    def k(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        cell = T.alloc_shared((1, 1), "uint32")
        r = T.alloc_local((5, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r[0:1], A[t:t + 1])
        T.cuda.tile.apply(T.ptx["mul.rn.f32"], r[0:1].view("float32"), r[0:1].view("float32"), T.float32(2.0))
        T.cuda.tile.apply(T.ptx["st.shared.b32"], cell[0:1], T.uint32(0), pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["red.shared.xor.b32"], cell[0:1], r[0:1])
        T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], r[1:2], r[0:1], T.uint32(1), T.uint32(31),
                          T.uint32(0xFFFFFFFF))
        T.cuda.tile.apply(T.ptx["xor.b32"], r[2:3], r[1:2], T.uint32(1))
        T.cuda.tile.apply(T.ptx["match.any.sync.b32"], r[3:4], r[0:1], T.uint32(0xFFFFFFFF))
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], r[4:5], cell[0:1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1, :].reshape((4, 1)), r[1:5])

    a = np.full((32, 1), 0xFFFFFFFD, np.uint32)
    a[5] = 0x3F800000  # 1.0: not every lane's value is a NaN
    out = np.full((32, 4), 0xDEADBEEF, np.uint32)
    with pytest.warns(InterpretWarning, match="95 of 128 elements of Out were stored undefined"):
        tile_mlir.interpret(k, a, out)
    # The shuffled NaN is stored (and compared: the canonical NaN); lane 4 got lane 5's 1.0, doubled.
    shuffled = out[:, 0]
    assert shuffled[4] == 0x40000000
    assert all(R.decode(np.array([x]), "f32")[0] != R.decode(np.array([x]), "f32")[0]
               for i, x in enumerate(shuffled) if i != 4)
    # xor of a shuffled NaN (all but lane 4), match.any (every lane: a NaN is
    # among the members), the xor-reduced cell (every lane): unknown.
    assert out[4, 1] == 0x40000001
    assert (np.delete(out[:, 1], 4) == 0xDEADBEEF).all()
    assert (out[:, 2:] == 0xDEADBEEF).all()


def test_a_nan_through_an_identity_ptxas_moves_is_either_nan():
    """ptxas -O3 assembles mul.f16 by the constant 1.0 and min.f32 of one
    register with itself as moves (no instruction in SASS; difftest seeds
    10000653 and 10001318 kept the input's payload on the H200), so their
    NaN results are stored undefined: the canonical NaN or the source's.
    mul.rn.f16 by 1.0 and min.f32 of two registers stay instructions and
    give the canonical NaN; numbers are the source either way."""
    import tile_mlir
    from tile_mlir import script as T
    from tile_mlir.interpreter.launch import InterpretWarning

    @T.function
    def k(H: T.Tensor((32, 1), "uint16"), F: T.Tensor((32, 2), "uint32"),
          OutH: T.Tensor((32, 2), "uint16"), OutF: T.Tensor((32, 2), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        h = T.alloc_local((3, 1), "uint16")
        f = T.alloc_local((4, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b16"], h[0:1], H[t:t + 1])
        T.cuda.tile.apply(T.ptx["ld.global.b32"], f[0:2], F[t:t + 1, :].reshape((2, 1)))
        T.cuda.tile.apply(T.ptx["mul.f16"], h[1:2].view("float16"), h[0:1].view("float16"), T.float16(1.0))
        T.cuda.tile.apply(T.ptx["mul.rn.f16"], h[2:3].view("float16"), h[0:1].view("float16"), T.float16(1.0))
        T.cuda.tile.apply(T.ptx["min.f32"], f[2:3].view("float32"), f[0:1].view("float32"), f[0:1].view("float32"))
        T.cuda.tile.apply(T.ptx["min.f32"], f[3:4].view("float32"), f[0:1].view("float32"), f[1:2].view("float32"))
        T.cuda.tile.apply(T.ptx["st.global.b16"], OutH[t:t + 1, :].reshape((2, 1)), h[1:3])
        T.cuda.tile.apply(T.ptx["st.global.b32"], OutF[t:t + 1, :].reshape((2, 1)), f[2:4])

    h = np.full((32, 1), 0x7C01, np.uint16)   # a signalling f16 NaN
    h[::2] = 0x3C00                           # 1.0
    f = np.full((32, 2), 0xFF800001, np.uint32)
    f[::2] = 0x40000000                       # 2.0
    out_h, out_f = np.full((32, 2), 0xBEEF, np.uint16), np.full((32, 2), 0xDEADBEEF, np.uint32)
    with pytest.warns(InterpretWarning, match="stored undefined"):
        tile_mlir.interpret(k, h, f, out_h, out_f)
    assert (out_h[::2] == 0x3C00).all() and (out_f[::2] == 0x40000000).all()
    assert (out_h[1::2, 0] == 0xBEEF).all() and (out_h[1::2, 1] == 0x7FFF).all()
    assert (out_f[1::2, 0] == 0xDEADBEEF).all() and (out_f[1::2, 1] == 0x7FFFFFFF).all()


@pytest.mark.parametrize("opcode,nan", [("cvt.f32.f32", 0xFFFFFFFD), ("abs.f32", 0xFFFFFFFC),
                                        ("neg.f32", 0x7FFFFFFE), ("cvt.f64.f64", 0x7FF0000000000001)])
def test_a_nan_ptxas_assembles_two_ways_is_any_nan(opcode, nan):
    """Measured on the H200 and in SASS: a plain cvt.f32.f32 is a move at
    -O3 and an FADD at -O0 (difftest seeds 10002047, 10002092, 10002195 and
    10005119 gave 0x7fffffff at -O0 where -O3 kept the input); abs.f32 and
    neg.f32 are an FADD alone and a bit operation beside other instructions
    (seeds 10001978, 10002000 and 22003300 kept the payload). The NaN's
    bits are undefined; a number's are not."""
    dtype = np.uint64 if "f64" in opcode else np.uint32
    one = 0x3FF0000000000000 if "f64" in opcode else 0x3F800000
    srcs = [np.array([nan, one], dtype)]
    got = R.reference(SimpleNamespace(opcode=opcode, family=opcode.split(".")[0], operands=[]), srcs)
    assert isinstance(got, R.Partial)
    assert got.defined.tolist() == [False, True]
    assert int(got.values[1]) == (0xBF800000 if opcode == "neg.f32" else one)


def test_tf32_conversions_give_the_h200s_bits_on_nans_infinities_and_the_largest_values():
    """tools/gpu/tf32_nans.py's committed H200 run (results/tf32_nans.json):
    every tf32 form on NaNs of every payload, infinities, the largest finite
    values and ordinary numbers, bit for bit."""
    with open(os.path.join(ROOT, "tools", "gpu", "results", "tf32_nans.json")) as f:
        run = json.load(f)
    inputs = np.array([int(x, 16) for x in run["inputs"]], np.uint32)
    assert len(run["results"]) == 6
    for opcode, results in run["results"].items():
        got = R.reference(SimpleNamespace(opcode=opcode, family="cvt", operands=[]), [inputs])
        assert [hex(int(x)) for x in np.asarray(got)] == results, opcode
