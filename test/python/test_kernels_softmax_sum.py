"""tile_mlir.kernels.softmax (fp32 and bf16 rows of 4096) and
tile_mlir.kernels.reduce_sum (2^28 values) (issue 26). In the interpreter each equals numpy in its stated order
of operations, bit for bit (softmax's ex2.approx as its correctly rounded
result, as reference/softmax.py states it); ptxas -v shows no stack and no
spills; the SASS has the instructions the kernel names and no local
memory. Their speed is in bench/results (softmax.json, sum.json)."""

import os
import re
import sys
import warnings

import numpy as np
import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))
import sass  # noqa: E402


from tile_mlir.kernels.reduce_sum import SumConfig, reduce_sum  # noqa: E402
from tile_mlir.kernels.reference import reduce_sum as sum_reference  # noqa: E402
from tile_mlir.kernels.reference import softmax as softmax_reference  # noqa: E402
from tile_mlir.kernels.softmax import softmax  # noqa: E402


def interpret(fn, *arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tile_mlir.InterpretWarning)  # ex2.approx, stated
        tile_mlir.interpret(fn, *arrays)


@pytest.mark.parametrize("scale", [1.0, 30.0, 1e-30])
def test_softmax_f32_in_the_interpreter_is_numpys_in_the_stated_order(scale):
    x = (np.random.default_rng(1).standard_normal((3, 4096)) * scale).astype(np.float32)
    out = np.zeros_like(x)
    interpret(softmax(3), x, out)
    assert out.tobytes() == softmax_reference.softmax_f32(x).tobytes()
    plain = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    plain /= plain.sum(axis=1, keepdims=True)
    assert np.abs(out - plain).max() < 1e-6


def test_softmax_bf16_in_the_interpreter_is_numpys_in_the_stated_order():
    x = (np.random.default_rng(2).standard_normal((3, 4096)) * 8).astype(np.float32)
    bits = softmax_reference.to_bf16_bits(x)
    out = np.zeros_like(bits.view(np.int16))
    interpret(softmax(3, "bfloat16"), bits.view(np.int16), out)
    assert out.view(np.uint16).tobytes() == softmax_reference.softmax_bf16(bits).tobytes()


def test_the_sum_partials_are_numpys_in_the_stated_order_and_the_total_their_sum():
    blocks = 3
    n = sum_reference.UNROLL * 4 * 256 * blocks * 2
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    parts, total = np.zeros((blocks, 1), np.float32), np.zeros((1, 1), np.float32)
    interpret(reduce_sum(n, SumConfig(blocks)), x, parts, total)
    want = sum_reference.partials(x, blocks)
    assert parts.ravel().tobytes() == want.tobytes()
    # The interpreter applies atomics in ascending thread order: block 0 first.
    assert total[0, 0] == np.float32(np.float32(np.float32(0) + want[0] + want[1]) + want[2])


@pytest.fixture(scope="module")
def compiled():
    return {"softmax_f32": tile_mlir.compile(softmax(65536)),
            "softmax_bf16": tile_mlir.compile(softmax(65536, "bfloat16")),
            "sum": tile_mlir.compile(reduce_sum(1 << 28))}


@pytest.mark.parametrize("name", ["softmax_f32", "softmax_bf16", "sum"])
def test_no_stack_and_no_spills(compiled, name):
    report = sass.ptxas_resources(compiled[name].ptx)
    assert sass.NO_SPILLS.search(report), report


needs_sass = pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")


@needs_sass
@pytest.mark.parametrize("name,loads,stores", [("softmax_f32", 4, 4), ("softmax_bf16", 2, 2)])
def test_softmax_sass_is_the_instructions_written(compiled, name, loads, stores):
    cubin = compiled[name].cubin
    text = sass.listing(cubin)
    mnemonics = [i.mnemonic for i in sass.instructions(cubin)]
    assert len(re.findall(r"\bLDG\.E\.128\b", text)) == loads
    assert len(re.findall(r"\bSTG\.E\.128\b", text)) == stores
    # two butterflies, two exchanges through shared memory, two barriers
    assert len(re.findall(r"\bSHFL\.BFLY\b", text)) == 10
    assert mnemonics.count("STS") == 2 and len(re.findall(r"\bBAR\.SYNC", text)) == 2
    assert len(re.findall(r"\bLDS\.128\b", text)) == 4
    # 16 exponentials, one reciprocal (rcp.rn: MUFU.RCP and its refinement)
    assert len(re.findall(r"\bMUFU\.EX2\b", text)) == 16
    # The maximum as written: 15 + 5 + 7 FMNMX; (x - m) * log2 e as an FADD
    # and an FMUL each, never contracted into an FFMA, before the first EX2.
    before_exp = mnemonics[:mnemonics.index("MUFU")]
    assert before_exp.count("FMNMX") == 27 and "FFMA" not in before_exp
    assert mnemonics.count("FMUL") == 32  # 16 by log2 e, 16 by the reciprocal
    assert "LDL" not in mnemonics and "STL" not in mnemonics


@needs_sass
def test_sum_sass_inner_loop_is_eight_vector_loads_and_32_adds(compiled):
    mnemonics = [i.mnemonic for i in sass.instructions(compiled["sum"].cubin)]
    text = sass.listing(compiled["sum"].cubin)
    # The loop: from its first load to its back branch, the eight 16-byte
    # loads and the 32 accumulators' adds, nothing contracted.
    first = mnemonics.index("LDG")
    body = mnemonics[first:mnemonics.index("BRA", first) + 1]
    assert len(re.findall(r"\bLDG\.E\.128\b", text)) == 8 and body.count("LDG") == 8
    assert body.count("FADD") == 32 and "FFMA" not in mnemonics
    # then 31 + 5 + 7 adds, one shared exchange, one barrier, one atomic
    assert mnemonics.count("FADD") == 32 + 31 + 5 + 7
    assert len(re.findall(r"\bSHFL\.BFLY\b", text)) == 5 and len(re.findall(r"\bBAR\.SYNC", text)) == 1
    assert len(re.findall(r"\bREDG\.E\.ADD\.F32", text)) == 1
    assert "LDL" not in mnemonics and "STL" not in mnemonics


def test_softmax_takes_float32_bfloat16_or_float16_rows():
    with pytest.raises(ValueError, match=r"softmax takes float32, bfloat16 or float16 rows, not 'float64'"):
        softmax(4, "float64")
    with pytest.raises(ValueError, match=r"a row of 0 values"):
        softmax(4, "float32", width=0)


def test_softmax_with_l2_policies_is_the_same_bits_and_carries_them():
    # The policies hint the L2 cache only: the result is the plain kernel's;
    # the loads and stores take .L2::cache_hint with a createpolicy each.
    from tile_mlir.kernels.configs import SoftmaxConfig
    x = np.random.default_rng(7).standard_normal((2, 4096)).astype(np.float32)
    out = np.zeros_like(x)
    config = SoftmaxConfig(x_priority="evict_last", out_priority="evict_first")
    interpret(softmax(2, config=config), x, out)
    assert out.tobytes() == softmax_reference.softmax_f32(x).tobytes()
    ptx = tile_mlir.compile(softmax(2, config=config), target="sm_90", cubin=False).ptx
    assert len(re.findall(r"ld\.global\.L2::cache_hint\.v4\.f32", ptx)) == 4
    assert len(re.findall(r"st\.global\.L2::cache_hint\.v4\.f32", ptx)) == 4
    assert "createpolicy.fractional.L2::evict_last" in ptx and "createpolicy.fractional.L2::evict_first" in ptx
    with pytest.raises(ValueError, match="the 16-bit softmax takes no cache policy"):
        softmax(2, "bfloat16", config)


@pytest.mark.parametrize("dtype, width", [("float32", 1000), ("float16", 4096), ("float16", 200),
                                          ("bfloat16", 4104), ("float32", 8192),
                                          # off whole 16-byte vectors: a value a load
                                          ("float32", 1001), ("bfloat16", 300), ("float16", 77)])
def test_softmax_of_any_width_in_the_interpreter_is_numpys_in_the_stated_order(dtype, width):
    # The vectors past a row's end hold -inf (their e is 0) and store
    # nothing; fp16 widens by cvt.f32.f16 and rounds by cvt.rn.f16x2.f32.
    from tile_mlir.kernels.reference.rows import narrow
    x = (np.random.default_rng(4).standard_normal((3, width)) * 4).astype(np.float32)
    bits = x if dtype == "float32" else narrow(x, dtype)
    out = np.full(bits.shape, 7, bits.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tile_mlir.InterpretWarning)  # ex2.approx as its correctly rounded
        tile_mlir.interpret(softmax(3, dtype, width=width), bits.view(np.int16) if dtype != "float32" else bits,
                            out.view(np.int16) if dtype != "float32" else out)
    assert out.tobytes() == softmax_reference.reference(bits, dtype).tobytes()


def test_row_layouts_it_cannot_take_are_refused():
    from tile_mlir.kernels.reference.rows import RowLayout
    with pytest.raises(ValueError, match=r"96 threads: a multiple of 4 warps, at most 1024"):
        RowLayout(4096, 96)
    with pytest.raises(ValueError, match=r"rows are one of \['bfloat16', 'float16', 'float32'\], not 'int8'"):
        RowLayout(4096, 256, "int8")
