"""tile_mlir.kernels.rmsnorm (issue 26): RMSNorm over rows of 4096 fp32 and
bf16 values. The interpreter's result equals numpy's in
the kernel's stated order of operations, bit for bit; ptxas -v shows no
stack and no spills; the SASS has the instructions the kernel names and no
local memory."""

import os
import re
import sys

import numpy as np
import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))

import sass  # noqa: E402

from tile_mlir.kernels.reference import rmsnorm as rmsnorm_reference  # noqa: E402
from tile_mlir.kernels.rmsnorm import RmsNormConfig, rmsnorm  # noqa: E402

PLAIN = RmsNormConfig()  # 256 threads, no cache policy


@pytest.fixture(scope="module")
def compiled():
    return tile_mlir.compile(rmsnorm(65536, config=PLAIN))


# 1e15: the squares' sum stays finite (at 1e18 it overflows to inf, and the
# stated order gives zeros, as numpy's does).
@pytest.mark.parametrize("scale", [1.0, 1e-20, 1e15])
def test_rmsnorm_in_the_interpreter_is_numpys_in_the_stated_order(scale):
    rng = np.random.default_rng(int(np.log10(scale) + 40))
    x = (rng.standard_normal((3, 4096)) * scale).astype(np.float32)
    w = rng.standard_normal(4096).astype(np.float32)
    out = np.zeros_like(x)
    tile_mlir.interpret(rmsnorm(3, config=PLAIN), x, w, out)
    want = rmsnorm_reference.reference(x, w)
    assert out.tobytes() == want.tobytes()
    # and the order matters: a plain float64 RMSNorm is close, not equal
    plain = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + rmsnorm_reference.EPS) * w
    assert np.allclose(out, plain, rtol=1e-5, atol=1e-30)


@pytest.mark.parametrize("threads", [128, 512, 1024])
def test_rmsnorm_layouts_are_numpys_in_their_order(threads):
    # Other block sizes hold other values per thread (and sum them in another
    # order).
    rng = np.random.default_rng(threads)
    x = rng.standard_normal((2, 4096)).astype(np.float32)
    w = rng.standard_normal(4096).astype(np.float32)
    out = np.zeros_like(x)
    tile_mlir.interpret(rmsnorm(2, config=RmsNormConfig(threads=threads)), x, w, out)
    assert out.tobytes() == rmsnorm_reference.reference(x, w, threads=threads).tobytes()


def test_rmsnorm_with_l2_policies_is_the_same_bits():
    # The policies hint the L2 cache only: the result is the plain kernel's.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4096)).astype(np.float32)
    w = rng.standard_normal(4096).astype(np.float32)
    out = np.zeros_like(x)
    kernel = rmsnorm(2)  # the best: 512 threads, evict_last on x, evict_first on Out
    assert RmsNormConfig.best("float32") == RmsNormConfig(512, "evict_last", "evict_first")
    tile_mlir.interpret(kernel, x, w, out)
    assert out.tobytes() == rmsnorm_reference.reference(x, w, threads=512).tobytes()


def test_rmsnorm_needs_no_stack_and_spills_nothing(compiled):
    resources = sass.ptxas_resources(compiled.ptx)
    assert sass.NO_SPILLS.search(resources), resources
    registers = int(re.search(r"Used (\d+) registers", resources).group(1))
    assert registers <= 64  # at least four blocks of 256 threads share an SM


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_rmsnorm_l2_policies_cost_only_uniform_moves():
    # createpolicy.fractional of a constant fraction becomes a memory
    # descriptor computed on the uniform datapath (UMOV, USHF, ULOP3); the
    # loads of x and the stores carry it instead of the default one
    # (c[0x0][0x208]); no other instruction changes (but the NOPs that pad
    # the end of the code).
    plain = tile_mlir.compile(rmsnorm(64, config=RmsNormConfig(threads=512)))
    hinted = tile_mlir.compile(rmsnorm(64, config=RmsNormConfig(512, "evict_last", "evict_first")))

    def per_thread(cubin):
        return sorted(i.opcode for i in sass.instructions(cubin)
                      if not i.opcode.startswith("U") and i.mnemonic != "NOP")
    assert per_thread(hinted.cubin) == per_thread(plain.cubin)
    # Which descriptor each access takes: the last write of its register
    # before it, in this straight-line code.
    written, taken = {}, []
    for i in sass.instructions(hinted.cubin):
        target = re.match(r"(UR\d+)", i.operands)
        if i.mnemonic in ("ULDC", "UMOV") and target:
            default = i.opcode == "ULDC.64" and "c[0x0][0x208]" in i.operands
            written[target.group(1)] = "default" if default else "policy"
        if i.mnemonic in ("LDG", "STG"):
            taken.append((i.mnemonic, written[re.search(r"desc\[(UR\d+)\]", i.operands).group(1)]))
    # w's 2 loads take the default descriptor, x's 2 loads and the 2 stores a policy
    assert sorted(taken) == [("LDG", "default")] * 2 + [("LDG", "policy")] * 2 + [("STG", "policy")] * 2


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_rmsnorm_sass_is_the_instructions_written(compiled):
    text = sass.listing(compiled.cubin)
    mnemonics = [i.mnemonic for i in sass.instructions(compiled.cubin)]
    # 4 vectors of x and 4 of w, 16 bytes each; 4 stores of 16 bytes
    assert len(re.findall(r"\bLDG\.E\.128\b", text)) == 8
    assert len(re.findall(r"\bSTG\.E\.128\b", text)) == 4
    # the butterfly, one exchange through shared memory, one barrier
    assert len(re.findall(r"\bSHFL\.BFLY\b", text)) == 5
    assert mnemonics.count("STS") == 1 and len(re.findall(r"\bBAR\.SYNC", text)) == 1
    assert len(re.findall(r"\bLDS\.128\b", text)) == 2
    # Up to sqrt.rn (its MUFU.RSQ), the reduction as written: 16 squares and
    # the mean's multiply, 15 + 5 + 7 sums and + eps, none contracted into an
    # FFMA (the FFMAs that follow are sqrt.rn's and rcp.rn's IEEE expansions).
    reduction = mnemonics[:mnemonics.index("MUFU")]
    assert (reduction.count("FMUL"), reduction.count("FADD"), reduction.count("FFMA")) == (17, 28, 0)
    assert "LDL" not in mnemonics and "STL" not in mnemonics


def test_rmsnorm_bf16_in_the_interpreter_is_numpys_in_the_stated_order():
    rng = np.random.default_rng(4)
    x = rmsnorm_reference.to_bf16_bits(rng.standard_normal((3, 4096)).astype(np.float32))
    w = rmsnorm_reference.to_bf16_bits(rng.standard_normal(4096).astype(np.float32))
    out = np.zeros((3, 4096), np.int16)
    tile_mlir.interpret(rmsnorm(3, "bfloat16"), x.view(np.int16), w.view(np.int16), out)
    assert out.view(np.uint16).tobytes() == rmsnorm_reference.reference_bf16(x, w).tobytes()


@pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")
def test_rmsnorm_bf16_spills_nothing_and_moves_16_byte_vectors():
    compiled = tile_mlir.compile(rmsnorm(65536, "bfloat16"))
    resources = sass.ptxas_resources(compiled.ptx)
    assert sass.NO_SPILLS.search(resources), resources
    text = sass.listing(compiled.cubin)
    # two vectors of w, two of x, two stores; the butterfly and one barrier
    assert len(re.findall(r"\bLDG\.E\.128\b", text)) == 4 and len(re.findall(r"\bSTG\.E\.128\b", text)) == 2
    assert len(re.findall(r"\bSHFL\.BFLY\b", text)) == 5 and len(re.findall(r"\bBAR\.SYNC", text)) == 1
    assert len(re.findall(r"\bF2FP\.BF16\.F32\.PACK_AB\b", text)) == 8


def test_configurations_it_cannot_take_are_refused():
    with pytest.raises(ValueError, match=r"bfloat16 rows of 4096 take 256 threads \(rows.threads_for\); "
                       r"config.threads 512 applies to float32 rows of 4096"):
        rmsnorm(4, "bfloat16", RmsNormConfig(threads=512))
    with pytest.raises(ValueError, match=r"the 16-bit RMSNorm takes no cache policy"):
        rmsnorm(4, "float16", RmsNormConfig(x_priority="evict_last"))
    with pytest.raises(ValueError, match=r"a row of 0 values"):
        rmsnorm(4, "bfloat16", width=0)
    with pytest.raises(ValueError, match=r"384 threads do not hold whole 16-byte vectors"):
        rmsnorm(4, config=RmsNormConfig(threads=384))
    with pytest.raises(ValueError, match=r"rmsnorm takes float32, bfloat16 or float16 rows, not 'float64'"):
        rmsnorm(4, "float64")


def _rows(dtype, shape, seed):
    """Random normal rows as the kernels take them: float32, or 16-bit
    bits (as int16) of values rounded to the type."""
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    if dtype == "float32":
        return values
    from tile_mlir.kernels.reference.rows import narrow
    return narrow(values, dtype).view(np.int16)


@pytest.mark.parametrize("dtype, width", [("float32", 1000), ("float16", 4096), ("float16", 200),
                                          ("bfloat16", 4104), ("float32", 8192),
                                          # off whole 16-byte vectors: a value a load
                                          ("float32", 1001), ("bfloat16", 300), ("float16", 77)])
def test_rmsnorm_of_any_width_in_the_interpreter_is_numpys_in_the_stated_order(dtype, width):
    # Rows that are not whole vectors of every thread (1000 float32 over
    # 128 threads: the second vector of threads 122 up lies past the row;
    # 200 fp16: 25 of 128 threads hold one; 4104 bf16 over 384 threads)
    # hold zeros there and store nothing; fp16 widens by cvt.f32.f16.
    x, w = _rows(dtype, (3, width), 5), _rows(dtype, (width,), 6)
    out = np.full_like(x, 7)
    tile_mlir.interpret(rmsnorm(3, dtype, width=width), x, w, out)
    if dtype == "float32":
        want = rmsnorm_reference.reference_rows(x, w, dtype)
        assert out.tobytes() == want.tobytes()
    else:
        want = rmsnorm_reference.reference_rows(x.view(np.uint16), w.view(np.uint16), dtype)
        assert out.view(np.uint16).tobytes() == want.tobytes()
    # And within float32's rounding of float64's RMSNorm.
    wide = (lambda a: a) if dtype == "float32" else (
        lambda a: np.float32(1) * __import__("tile_mlir.kernels.reference.rows", fromlist=["widen"]).widen(
            a.view(np.uint16), dtype))
    plain = wide(x) / np.sqrt((wide(x).astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-6) * wide(w)
    got = wide(out)
    assert np.abs(got - plain).max() <= (2e-6 if dtype == "float32" else 2e-2) * np.abs(plain).max()


@pytest.mark.parametrize("dtype, width", [("float16", 5120), ("bfloat16", 4104), ("float32", 1001),
                                          ("float16", 77)])
def test_rows_of_any_width_assemble_with_no_stack(dtype, width):
    # The vector path with a partial last vector and the value path,
    # through ptxas: no stack frame, no spills, for both row kernels, with
    # 4 rows and with the rows a runtime extent (tile_mlir.ops' kernels).
    from tile_mlir.kernels.softmax import softmax
    for kernel in (make(rows, dtype, width=width) for make in (rmsnorm, softmax) for rows in (4, None)):
        resources = sass.ptxas_resources(tile_mlir.compile(kernel, target="sm_90a").ptx, arch="sm_90a")
        assert sass.NO_SPILLS.search(resources), resources
