"""sm_90's tensor-core accumulation in the interpreter (issue 56): the
model (interpreter/accumulation.py) against what the GPU gave
(tools/gpu/accumulation_check.py, results in tools/gpu/results): measured
elements of every floating mma.sync form where D is not the exact sum
rounded to nearest, and tile_mlir.ops' wgmma GEMM on random normal data,
run in the interpreter and compared bit for bit with the GPU's C."""

import base64
import json
import os
import sys
import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T
from tile_mlir.interpreter import accumulation
from tile_mlir.interpreter import reference as R

RESULTS = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu", "results")


def measured(name):
    with open(os.path.join(RESULTS, name)) as f:
        return json.load(f)


CASES = measured("accumulation_cases.json")["cases"]


@pytest.mark.parametrize("opcode", sorted({case["opcode"] for case in CASES}))
def test_every_measured_element_is_the_models(opcode):
    # Two elements a draw (normal, spread, cancelling, small, infinities
    # and NaNs) where the H100's D is not the exact sum rounded to nearest.
    d_kind, a_kind, b_kind, c_kind = opcode.split(".")[-4:]
    cases = [case for case in CASES if case["opcode"] == opcode]
    k = len(cases[0]["a"])
    model = accumulation.sm90("mma", d_kind, a_kind, b_kind, k)
    for case in cases:
        a = np.array([case["a"]], np.uint64)
        b = np.array(case["b"], np.uint64)[:, None]
        got, defined = accumulation.mma(model, d_kind, a_kind, b_kind, c_kind, a, b, np.array([[case["c"]]]))
        assert defined.all() and int(got[0, 0]) == case["d"], (case["draw"], hex(int(got[0, 0])), hex(case["d"]))


def test_each_form_has_measured_cases_and_a_model():
    forms = {case["opcode"] for case in CASES}
    assert len(forms) == 24  # every floating mma.sync form of sm_90
    assert all(accumulation.sm90("mma", *f.split(".")[-4:-1], 8) is not None for f in forms)


def test_every_floating_type_group_has_its_model():
    # f64 and the integer forms keep reference.mma's exact model.
    assert accumulation.sm90("mma", "f64", "f64", "f64", 4) is None
    assert accumulation.sm90("wgmma", "s32", "s8", "s8", 32) is None
    assert accumulation.sm90("wgmma", "f32", "tf32", "tf32", 8) == accumulation.BlockSum(8, 25, "rz")
    assert accumulation.sm90("wgmma", "f16", "f16", "f16", 16) == accumulation.BlockSum(16, 25, "rn")
    assert accumulation.sm90("wgmma", "f16", "e5m2", "e4m3", 32) == accumulation.BlockSum(32, 13, "rn")
    assert accumulation.sm90("wgmma", "f32", "e4m3", "e5m2", 32) == accumulation.BlockSum(32, 13, "rz", 14)
    assert accumulation.sm90("mma", "f16", "e4m3", "e4m3", 32) == \
        accumulation.ConvertedToF16(accumulation.BlockSum(16, 25, "rn"))


def unpacked(array):
    return np.frombuffer(base64.b64decode(array["base64"]), array["dtype"]).reshape(array["shape"]).copy()


@pytest.mark.parametrize("name", sorted(measured("accumulation_wgmma.json")["kernels"]))
def test_wgmma_kernels_on_random_data_store_the_gpus_words(name):
    # wgmma_check.py's kernels of the type groups the ops' GEMM does not
    # reach (tf32, f16 accumulators, fp8 into f16, mixed fp8 pairs), on
    # random data, in the interpreter: every word the GPU stored.
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
    import accumulation_check
    import wgmma_check
    case = measured("accumulation_wgmma.json")["kernels"][name]
    arrays = [unpacked(x) for x in case["inputs"]]
    want = unpacked(case["out"])
    out = np.zeros(want.shape, np.float32 if arrays[2].dtype == np.float32 else np.uint32)
    tile_mlir.interpret(wgmma_check.wgmma_tile(**accumulation_check.wgmma_cases()[name]), *arrays, out)
    assert np.array_equal(out.view(np.uint32), want)


@pytest.mark.parametrize("name", sorted(measured("accumulation_gemm.json")["gemms"]))
def test_the_ops_gemm_on_random_data_is_the_gpus_bit_for_bit(name):
    # tile_mlir.ops on CPU tensors runs the same kernel in the interpreter
    # (the default configuration, as the GPU ran with TILE_MLIR_AUTOTUNE=0):
    # its float32 C (the accumulators) equals the GPU's, element for element.
    torch = pytest.importorskip("torch")
    import tile_mlir.ops as ops
    gemm = measured("accumulation_gemm.json")["gemms"][name]
    op, kind, _ = name.split()
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "e4m3": torch.float8_e4m3fn}[kind]
    a, w = (torch.tensor(np.array(gemm[x], np.int64)).to(torch.uint8 if kind == "e4m3" else torch.int16)
            .view(dtype) for x in ("a", "w"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no element undefined
        if op == "matmul":
            c = ops.matmul(a, w.t(), out_dtype=torch.float32)
        else:
            one = torch.ones((), dtype=torch.float32)
            c = ops.scaled_matmul(a, w.t(), one, one, out_dtype=torch.float32)
    assert np.array_equal(c.numpy().view(np.uint32), np.array(gemm["c"], np.uint32))


def mma_kernel(op):
    @T.function
    def product(A: T.Tensor((16, 16), "uint16"), B: T.Tensor((16, 8), "uint16"), D: T.Tensor((16, 8), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        a = T.alloc_local((1, 1, 8), "uint16")
        b = T.alloc_local((1, 1, 4), "uint16")
        acc = T.alloc_local((1, 1, 4), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)).view("uint32"), T.uint32(0))
        for i in range(8):
            r, c = T.mma_coordinates(op, "a", i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], a.reshape((8, 1))[i:i + 1], A[r:r + 1, c:c + 1])
        for i in range(4):
            r, c = T.mma_coordinates(op, "b", i)
            T.cuda.tile.apply(T.ptx["ld.global.b16"], b.reshape((4, 1))[i:i + 1], B[r:r + 1, c:c + 1])
        T.cuda.tile.apply(T.ptx[op], acc, a.view("uint32"), b.view("uint32"))
        for i in range(4):
            r, c = T.mma_coordinates(op, "d", i)
            T.cuda.tile.apply(T.ptx["st.global.f32"], D[r:r + 1, c:c + 1], acc.reshape((4, 1))[i:i + 1])
    return product


def test_the_exact_model_stays_an_option():
    # Random normal bf16: sm_90's model defines every element (the model's
    # sum of each row and column); "exact" leaves those whose partial sums
    # are not exact undefined, as before.
    op = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    rng = np.random.default_rng(5)
    a_bits, b_bits = (R.encode(R.round_to(rng.standard_normal(s), 0.0, "bf16", "rn"), "bf16").astype(np.uint16)
                      for s in ((16, 16), (16, 8)))
    kernel = mma_kernel(op)
    d = np.zeros((16, 8), np.float32)
    tile_mlir.interpret(kernel, a_bits, b_bits, d)
    want, _ = accumulation.mma(accumulation.BlockSum(16, 25, "rz"), "f32", "bf16", "bf16", "f32", a_bits, b_bits,
                               np.zeros((16, 8), np.uint32))
    assert np.array_equal(d.view(np.uint32), want)
    exact = np.full((16, 8), np.nan, np.float32)
    with pytest.warns(tile_mlir.interpreter.launch.InterpretWarning, match="stored undefined"):
        tile_mlir.interpret(kernel, a_bits, b_bits, exact, accumulation="exact")
    with pytest.raises(ValueError, match="accumulation is one of sm_90, exact, got 'h100'"):
        tile_mlir.interpret(kernel, a_bits, b_bits, d, accumulation="h100")


ATTENTION = measured("attention_bits.json")


@pytest.mark.parametrize("name", sorted(ATTENTION["cases"]))
def test_the_ops_attention_on_random_data_is_the_gpus_bit_for_bit(name):
    # tile_mlir.ops.attention on CPU tensors runs its kernel in the
    # interpreter (the default configuration, as the GPU ran with
    # TILE_MLIR_AUTOTUNE=0): S and P V through sm_90's accumulation,
    # ex2.approx.ftz.f32 from the GPU's tables. Its output equals the
    # H100's, every element (inputs drawn from the seed here, checked
    # against the GPU's by their digest).
    torch = pytest.importorskip("torch")
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
    import attention_check
    case = ATTENTION["cases"][name]
    out, inputs_digest = attention_check.attention(name, "cpu")
    assert inputs_digest == case["inputs"]
    got = out.view(torch.int16).numpy().view(np.uint16)
    assert np.array_equal(got, attention_check.decoded(case["out"], case["shape"]))


def test_the_gpu_runs_cover_every_floating_type_group_with_ten_million_products():
    # Issue 60's measure of the model (tools/gpu/results/accumulation.json):
    # at least 10 million random products of every floating mma.sync and
    # wgmma type group (inputs by outputs), each element the GPU stored
    # equal to the model's, counted from the runs' own records.
    import re
    with open(os.path.join(RESULTS, "accumulation.json")) as f:
        report = json.load(f)
    mma = {}
    for form in report["verify"]["forms"]:
        d, a, b = form["opcode"].split(".")[-4:-1]
        k = int(re.search(r"k(\d+)", form["opcode"]).group(1))
        mma.setdefault((a, b, d), []).append((form["elements"] * k, sum(form["mismatched"].values())))
    wgmma = report["wgmma_sweep"]["type_groups"]
    assert len(mma) == 12 and len(wgmma) == 10
    for group, runs in mma.items():
        assert sum(p for p, _ in runs) >= 10_000_000 and all(bad == 0 for _, bad in runs), group
    for group, run in wgmma.items():
        assert run["products"] >= 10_000_000 and run["mismatched"] == 0, group
    assert sum(row["products"] for row in report["wgmma_sweep"]["kernels"]) == sum(
        run["products"] for run in wgmma.values())
