"""Fold barriers by data flow, checked in SASS (tools/sass on the PyPI
cuobjdump and nvdisasm wheels of the test extra).

A barrier against a measured ptxas fold (docs/difftest.md, findings 2, 4, 5,
6, 9 and 14) goes on an operand only where a producer and a consumer of its class
meet. So the spec's examples and every barrier family fed by loads compile
to exactly the instructions written, and each finding's reproducer
(tools/gpu/chain_specs.py) keeps its barrier, without which its SASS shows
the fold."""

import os
import re
import sys
import warnings

import pytest

import tile_mlir
from tile_mlir import script as T

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))
sys.path.insert(0, os.path.join(ROOT, "examples", "spec"))

import sass  # noqa: E402

needs_sass = pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")

# What a barrier assembles to: the identity max is a VIMNMX (VIMNMX.S16x2
# for a 16-bit register) or IMNMX; the split and join of a 16-bit result
# is PRMTs.
BARRIER_SASS = ("VIMNMX", "IMNMX", "PRMT")


def compiled(fn, mode="auto"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tile_mlir.TileWarning)
        return tile_mlir.compile(fn, target="sm_90", cache=False, fold_barriers=mode)


def barrier_ptx(ptx):
    """The barrier instructions of a PTX text: identity maxes, the scoped
    registers of the split and join, and the opaque zeros' %laneid reads."""
    return re.findall(r"max\.s(?:16|32|64) %tile_f|%tile_s\d+_\d+p\d|mov\.u32 %tile_z\d+_\d+, %laneid", ptx)


def mnemonics(cubin):
    return [i.mnemonic for i in sass.instructions(cubin)]


@needs_sass
@pytest.mark.parametrize("module", ["packed_add", "abs_neg", "narrow_pairs"])
def test_spec_examples_run_only_what_they_wrote(module):
    fn = {"packed_add": "packed_add", "abs_neg": "negative_magnitude", "narrow_pairs": "narrow_pairs"}[module]
    kernel = compiled(getattr(__import__(module), fn))
    assert barrier_ptx(kernel.ptx) == []
    found = [m for m in mnemonics(kernel.cubin) if m in BARRIER_SASS]
    assert found == []


def test_the_spec_cvt_example_is_four_conversions():
    import narrow_pairs

    ptx = compiled(narrow_pairs.narrow_pairs).ptx
    assert len(re.findall(r"^\s*cvt\.rn\.f16x2\.f32 ", ptx, re.M)) == 4
    assert "max." not in ptx


def load_fed(opcode, dst, sources):
    """Thread t loads each source from its own tensor, applies `opcode` once
    and stores the result: nothing ptxas could fold reaches it."""
    bits = {"int32": 32, "uint32": 32, "float32": 32, "int64": 64, "uint64": 64, "uint16": 16}
    names = [f"S{i}" for i in range(len(sources))]
    annotations = {name: T.Tensor((32, 1), dtype) for name, dtype in zip(names, sources)}
    annotations["Out"] = T.Tensor((32, 1), dst)

    def body(*tensors):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        tiles = []
        for tensor, dtype in zip(tensors[:-1], sources):
            tile = T.alloc_local((1, 1), dtype)
            load = "ld.global.f32" if dtype == "float32" else f"ld.global.b{bits[dtype]}"
            T.cuda.tile.apply(T.ptx[load], tile, tensor[t:t + 1])
            tiles.append(tile)
        d = T.alloc_local((1, 1), dst)
        T.cuda.tile.apply(T.ptx[opcode], d, *tiles)
        store = "st.global.f32" if dst == "float32" else f"st.global.b{bits[dst]}"
        T.cuda.tile.apply(T.ptx[store], tensors[-1][t:t + 1], d)

    params = ", ".join(names + ["Out"])
    namespace = {"body": body}
    exec(f"def load_fed_kernel({params}):\n    body({params})\n", namespace)
    kernel = namespace["load_fed_kernel"]
    kernel.__annotations__ = annotations
    return T.function(kernel)


# One load-fed form of every family a fold class marks, and the integer
# .sat results, whose value goes to a store.
LOAD_FED = [
    ("cvt.rzi.s32.f32", "int32", ["float32"]),
    ("cvt.s32.s64", "int32", ["int64"]),
    ("cvt.f32.f16", "float32", ["uint16"]),
    ("cvt.rn.f16x2.f32", "uint32", ["float32", "float32"]),
    ("cvt.sat.u32.s64", "uint32", ["int64"]),
    ("add.sat.s32", "int32", ["int32", "int32"]),
    ("mad.hi.sat.s32", "int32", ["int32", "int32", "int32"]),
    ("abs.f16x2", "uint32", ["uint32"]),
    ("abs.bf16x2", "uint32", ["uint32"]),
    ("shr.b64", "uint64", ["uint64", "uint32"]),
    ("shl.b64", "uint64", ["uint64", "uint32"]),
    ("bfe.s32", "int32", ["int32", "uint32", "uint32"]),
    ("max.NaN.xorsign.abs.f16x2", "uint32", ["uint32", "uint32"]),
]


@needs_sass
@pytest.mark.parametrize("opcode,dst,sources", LOAD_FED, ids=[f[0] for f in LOAD_FED])
def test_a_load_fed_form_is_exact(opcode, dst, sources):
    kernel = compiled(load_fed(opcode, dst, sources))
    assert barrier_ptx(kernel.ptx) == []
    # Exactly what fold_barriers="off" emits, which is what was written.
    assert kernel.ptx == compiled(load_fed(opcode, dst, sources), "off").ptx
    assert [m for m in mnemonics(kernel.cubin) if m in ("VIMNMX", "IMNMX")] == []


def test_a_load_fed_form_is_guarded_with_always():
    # The switch that keeps every barrier: the same kernel gets its max.
    kernel = compiled(load_fed("cvt.rzi.s32.f32", "int32", ["float32"]), "always")
    assert len(barrier_ptx(kernel.ptx)) == 1


def has_opcode(name):
    return lambda found: any(i.opcode == name for i in found)


def has_mnemonic_prefix(*prefixes):
    return lambda found: any(i.opcode.startswith(prefixes) for i in found)


def has_absolute_operand(found):
    return any("|R" in i.operands for i in found)


# Per reproducer, how its SASS shows the fold (measured here with ptxas
# 13.0 on fold_barriers="off"), and whether the barrier's SASS shows it
# did not happen: the folded conversion opcode is there, the converted
# shift amount (an F2I) is there, the abs of the halves (a |R| operand) is
# gone, the min or max is gone.
FOLDED = {
    "chain_u32_s16": (has_opcode("F2I.S16.TRUNC.NTZ"), False),
    "chain_s64_s32": (has_opcode("F2I.BF16.TRUNC.NTZ"), False),
    "chain_f16_s32": (has_opcode("F2I.F16.NTZ"), False),
    "chain_neg_s8": (has_opcode("F2I.FTZ.S8.F16.NTZ"), False),
    "amount_neg_shr": (has_mnemonic_prefix("F2I"), False),
    "amount_abs_shl": (has_mnemonic_prefix("F2I"), False),
    "amount_neg_shr_s64": (has_mnemonic_prefix("F2I"), False),
    "sign_sat_abs_f16x2": (has_absolute_operand, True),
    "sign_sat_abs_bf16x2": (has_absolute_operand, True),
    "range_cvt_sat_min": (has_mnemonic_prefix("FMNMX"), True),
    "range_add_sat_min_ftz": (has_mnemonic_prefix("FMNMX"), True),
    "range_mad_sat_max": (has_mnemonic_prefix("FMNMX"), True),
    "range_cvt_sat_s16_min": (has_mnemonic_prefix("HMNMX2"), True),
    "range_cvt_sat_s64_min": (has_mnemonic_prefix("DSETP.MIN"), True),
    # The sign fill of bfe.s32 past the width: SGXT, where the fold is a
    # constant -1.
    "bfe_constant_position": (has_opcode("SGXT"), True),
    # The max itself (HMNMX2 with XORSIGN), where the fold is an FMA with
    # .relu and no max.
    "relu_mul_max_f16": (has_mnemonic_prefix("HMNMX2"), True),
    "relu_add_max_bf16": (has_mnemonic_prefix("HMNMX2"), True),
    "relu_mul_max_f16x2": (has_mnemonic_prefix("HMNMX2"), True),
    "relu_fma_max_bf16x2": (has_mnemonic_prefix("HMNMX2"), True),
}


@needs_sass
@pytest.mark.parametrize("name", sorted(FOLDED))
def test_a_finding_reproducer_keeps_its_barrier(name):
    from build_artifacts import KERNELS

    probe, present_when_right = FOLDED[name]
    guarded = compiled(KERNELS[name])
    assert barrier_ptx(guarded.ptx) != []
    assert probe(sass.instructions(guarded.cubin)) == present_when_right
    # Without the barrier the same kernel's SASS shows the fold: the probe
    # tells the two apart.
    bare = compiled(KERNELS[name], "off")
    assert barrier_ptx(bare.ptx) == []
    assert probe(sass.instructions(bare.cubin)) != present_when_right


@T.function
def neg_then_convert(A: T.Tensor((32, 1), "float32"), Out: T.Tensor((32, 1), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    a = T.alloc_local((1, 1), "float32")
    d = T.alloc_local((1, 1), "int32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], a, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["neg.f32"], a, a)
    T.cuda.tile.apply(T.ptx["cvt.rzi.s32.f32"], d, a)  # the exposed line
    T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], d)


def exposed_line():
    import inspect

    lines, start = inspect.getsourcelines(neg_then_convert)
    return start + next(i for i, line in enumerate(lines) if "the exposed line" in line)


def test_off_compiles_what_was_written_and_warns_at_the_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bare = tile_mlir.compile(neg_then_convert, target="sm_90", cache=False, fold_barriers="off")
    found = [w for w in caught if issubclass(w.category, tile_mlir.TileWarning)]
    assert len(found) == 1
    assert found[0].filename == __file__ and found[0].lineno == exposed_line()
    assert str(found[0].message) == (
        "fold-barriers=off leaves cvt.rzi.s32.f32 exposed to the cvt-source fold: ptxas -O3 folds the "
        "instruction that produced a cvt source into the conversion, with a wrong result "
        "(docs/difftest.md, finding 2)")
    assert barrier_ptx(bare.ptx) == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        guarded = tile_mlir.compile(neg_then_convert, target="sm_90", cache=False)
    assert [w for w in caught if issubclass(w.category, tile_mlir.TileWarning)] == []
    assert len(barrier_ptx(guarded.ptx)) == 1


def test_the_cache_keeps_modes_apart():
    guarded = tile_mlir.compile(neg_then_convert, target="sm_90")
    again = tile_mlir.compile(neg_then_convert, target="sm_90")
    assert again.from_cache and again.ptx == guarded.ptx
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tile_mlir.TileWarning)
        always = tile_mlir.compile(neg_then_convert, target="sm_90", fold_barriers="always")
    assert not always.from_cache
    assert always.ptx == guarded.ptx  # the one barrier auto chose is every one
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tile_mlir.TileWarning)
        bare = tile_mlir.compile(neg_then_convert, target="sm_90", fold_barriers="off")
    assert not bare.from_cache and bare.ptx != guarded.ptx


def test_an_unknown_mode_is_refused():
    with pytest.raises(tile_mlir.CompileError, match="fold-barriers=sometimes is not auto, always or off"):
        tile_mlir.compile(neg_then_convert, target="sm_90", cache=False, fold_barriers="sometimes")
    with pytest.raises(tile_mlir.CompileError, match="fold_barriers must be a string"):
        tile_mlir.pipeline(fold_barriers=1)


def test_a_long_chain_is_followed_without_recursion(tmp_path):
    # 100,000 dependent instructions between an integer .sat result and a
    # float read: the analysis walks them with explicit stacks (a recursive
    # walk overflowed the native stack on such chains) and finds the read.
    import subprocess

    n = 100_000
    lines = ['%s0 = tile.instr "add.sat.s32"(%a, %a) : (i32, i32) -> i32']
    lines += [f'%s{i} = tile.instr "add.s32"(%s{i - 1}, %a) : (i32, i32) -> i32' for i in range(1, n)]
    lines += [f"%f = arith.bitcast %s{n - 1} : i32 to f32",
              '%m = tile.instr "min.f32"(%f, %f) : (f32, f32) -> f32',
              '%c0 = arith.constant 0 : index',
              'tile.instr "st.global.f32"(%m) [%o[%c0] : memref<1xf32, 1>] : (f32) -> ()']
    body = "\n      ".join(lines)
    path = tmp_path / "chain.mlir"
    path.write_text("module attributes {gpu.container_module} {\n  gpu.module @k {\n"
                    "    gpu.func @chain(%a: i32, %o: memref<1xf32, 1>) kernel {\n      "
                    + body + "\n      gpu.return\n    }\n  }\n}\n")
    # The project's tile-opt, next to the Python that runs the tests: the
    # README's command runs pytest without the environment on PATH.
    tile_opt = os.path.join(os.path.dirname(sys.executable), "tile-opt")
    result = subprocess.run([tile_opt, "--convert-tile-to-nvvm", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    # One split and join: the declaration, the split and the join name the piece.
    assert result.stdout.count("%tile_s0_0p0") == 3


MMA = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"


@T.function
def mma_then_round(A: T.Tensor((32, 4), "uint32"), B: T.Tensor((32, 2), "uint32"), D: T.Tensor((32, 2), "uint32")):
    """One warp's D = A B (each lane's fragments loaded as they stand),
    accumulators from zero, each pair of D rounded to bf16x2."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.lane_id()
    a = T.alloc_local((1, 4), "uint32")
    b = T.alloc_local((1, 2), "uint32")
    acc = T.alloc_local((1, 1, 4), "float32")
    packed = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)).view("uint32"), T.uint32(0))
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], a, A[lane:lane + 1, 0:4])
    T.cuda.tile.apply(T.ptx["ld.global.v2.b32"], b, B[lane:lane + 1, 0:2])
    T.cuda.tile.apply(T.ptx[MMA], acc, a.reshape((1, 1, 4)), b.reshape((1, 1, 2)))
    for pair in range(2):
        T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], packed, acc[0, 0:1, 2 * pair + 1:2 * pair + 2],
                          acc[0, 0:1, 2 * pair:2 * pair + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], D[lane:lane + 1, pair:pair + 1], packed)


@needs_sass
def test_a_conversion_of_tensor_core_results_is_emitted_as_written():
    # The accumulators are a tile of registers holding zeros and the mma's
    # results; no conversion folds an HMMA, so auto adds nothing. With
    # barriers on every source (always), ptxas makes the same instructions
    # and the barriers: it folds nothing into the F2FP.
    auto, always = compiled(mma_then_round), compiled(mma_then_round, "always")
    assert barrier_ptx(auto.ptx) == []
    assert mnemonics(auto.cubin) == mnemonics(compiled(mma_then_round, "off").cubin)
    # (NOPs pad the code's end to an alignment.)
    plain = [m for m in mnemonics(auto.cubin) if m not in BARRIER_SASS + ("NOP",)]
    assert plain.count("HMMA") == 1 and plain.count("F2FP") == 2
    assert [m for m in mnemonics(always.cubin) if m not in BARRIER_SASS + ("NOP",)] == plain
    assert sum(m in BARRIER_SASS for m in mnemonics(always.cubin)) == 4


@needs_sass
def test_the_hopper_gemm_epilogue_is_emitted_as_written():
    # The cvt.rn.bf16x2.f32 of its wgmma accumulators (kept in a tile, in
    # a loop) take no barrier: the SASS is what fold_barriers="off" makes.
    from tile_mlir.kernels.gemm_hopper import hopper_gemm
    make = lambda mode: tile_mlir.compile(hopper_gemm(4096, 4096, 4096), target="sm_90a", cache=False,  # noqa: E731
                                          fold_barriers=mode)
    auto = make("auto")
    assert barrier_ptx(auto.ptx) == [] and "VIMNMX" not in mnemonics(auto.cubin)
    assert mnemonics(auto.cubin) == mnemonics(make("off").cubin)


@needs_sass
def test_where_the_lowering_leaves_a_cvt_source_unguarded_ptxas_folds_nothing(tmp_path):
    # tools/forms/cvt_source_folds.py over a spread of every family's forms
    # and the cvts of their result's type: built with the barrier written
    # out and without it, and as the lowering builds it. The lowering leaves
    # the scalar results of the families measured never to fold unguarded
    # (ex2 among them, attention's P), and none of those pairs assembles
    # differently without the barrier; the probe does see folds (neg's,
    # finding 2's producers).
    sys.path.insert(0, os.path.join(ROOT, "tools", "forms"))
    import cvt_source_folds
    report = cvt_source_folds.main(str(tmp_path / "folds.json"))
    assert report["folded_where_the_lowering_puts_no_barrier"] == []
    assert report["families"]["ex2"].get("unguarded_by_the_lowering", 0) > 0
    assert report["families"]["neg"]["folded"] and report["families"]["neg"].get("unguarded_by_the_lowering", 0) == 0
