"""The approximate forms and T.ewise's math functions in the interpreter
(issue 56, "it refuses what the table has"): each runs as its correctly
rounded result, with the InterpretWarning that says so. The special values
of the PTX ISA's tables (9.7.3, each form's "Results" table) are exact on
every chip: they are checked bit for bit here, for every approximate form
of the table on sm_90a."""

import math
import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T
from tile_mlir.interpreter import reference as R
from tile_mlir.interpreter.launch import InterpretWarning

INF, NAN = math.inf, math.nan
# (inputs, result) of each function, from the ISA's tables, and a value
# each whose result is exact.
SPECIAL = {
    "ex2": [((0.0,), 1.0), ((-INF,), 0.0), ((INF,), INF), ((NAN,), NAN), ((3.0,), 8.0), ((-1.0,), 0.5)],
    "rcp": [((0.0,), INF), ((-0.0,), -INF), ((INF,), 0.0), ((-INF,), -0.0), ((NAN,), NAN), ((2.0,), 0.5)],
    "sqrt": [((0.0,), 0.0), ((-0.0,), -0.0), ((-1.0,), NAN), ((INF,), INF), ((NAN,), NAN), ((4.0,), 2.0)],
    "lg2": [((0.0,), -INF), ((-1.0,), NAN), ((INF,), INF), ((NAN,), NAN), ((1.0,), 0.0), ((8.0,), 3.0)],
    "sin": [((0.0,), 0.0), ((-0.0,), -0.0), ((INF,), NAN), ((NAN,), NAN)],
    "cos": [((0.0,), 1.0), ((-0.0,), 1.0), ((INF,), NAN), ((NAN,), NAN)],
    "tanh": [((0.0,), 0.0), ((-0.0,), -0.0), ((INF,), 1.0), ((-INF,), -1.0), ((NAN,), NAN)],
    "div": [((1.0, 2.0), 0.5), ((6.0, 3.0), 2.0), ((1.0, 0.0), INF), ((0.0, 0.0), NAN), ((INF, INF), NAN),
            ((-1.0, INF), -0.0)],
}
LANE_KINDS = {"f16x2": "f16", "bf16x2": "bf16"}


def approximate_forms():
    spellings = []
    for family in SPECIAL:
        for spelling in ptx.forms(family):
            if not {"approx", "full"} & set(spelling.split(".")):
                continue
            try:
                ptx.overloads(spelling, target="sm_90a")
            except ptx.PTXFormError:
                continue
            spellings.append(spelling)
    return spellings


def one_instruction(opcode):
    form = ptx.overloads(opcode, target="sm_90a")[0]
    bits = form.operands[0].bits
    dtype = {16: "uint16", 32: "uint32", 64: "uint64"}[bits]
    sources = len(form.operands) - 1

    @T.function
    def apply(X: T.Tensor((8, 2), dtype), Y: T.Tensor((8, 1), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=8))
        t = T.thread_id()
        regs = [T.alloc_local((1, 1), dtype) for _ in range(sources + 1)]
        for i in range(sources):
            T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], regs[1 + i], X[t:t + 1, i:i + 1])
        T.cuda.tile.apply(T.ptx[opcode], *regs)
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits}"], Y[t:t + 1], regs[0])
    return apply, dtype


@pytest.mark.parametrize("opcode", approximate_forms())
def test_every_approximate_form_gives_the_isas_special_values(opcode):
    family, kind = opcode.split(".")[0], opcode.split(".")[-1]
    lane = LANE_KINDS.get(kind, kind)
    cases = SPECIAL[family]
    kernel, dtype = one_instruction(opcode)
    x = np.zeros((8, 2), dtype)
    for row, (inputs, _) in enumerate(cases):
        for col, value in enumerate(inputs):
            x[row, col] = R.encode(np.array([value]), lane)[0]
            if kind in LANE_KINDS:  # both halves of the register
                x[row, col] |= x[row, col] << 16
    y = np.zeros((8, 1), dtype)
    if opcode in R.MEASURED:  # tabulated on the GPU (sfu.py): nothing to warn of
        with warnings.catch_warnings():
            warnings.simplefilter("error", InterpretWarning)
            tile_mlir.interpret(kernel, x, y)
    else:
        with pytest.warns(InterpretWarning, match=rf"{opcode} ran as its correctly rounded result"):
            tile_mlir.interpret(kernel, x, y)
    for row, (inputs, want) in enumerate(cases):
        got = int(y[row, 0]) & 0xFFFF if kind in LANE_KINDS else int(y[row, 0])
        value = R.decode(np.array([got]), lane)[0]
        if math.isnan(want):
            assert math.isnan(value), (inputs, value)
        else:
            assert value == want and math.copysign(1, value) == math.copysign(1, want), (inputs, value)
        if kind in LANE_KINDS:
            assert int(y[row, 0]) >> 16 == got  # the high lane too


def test_the_table_has_an_approximate_form_of_every_function():
    families = {spelling.split(".")[0] for spelling in approximate_forms()}
    assert families == set(SPECIAL)


FUNCTIONS = {"exp": math.exp, "exp2": math.exp2, "log": math.log, "log2": math.log2, "sqrt": math.sqrt,
             "rsqrt": lambda v: 1 / math.sqrt(v), "tanh": math.tanh, "sin": math.sin, "cos": math.cos,
             "erf": math.erf}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_ewise_math_functions_run_as_their_correctly_rounded_result(name):
    @T.function
    def apply(X: T.Tensor((32, 1), "float32"), Y: T.Tensor((32, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        x = T.alloc_local((1, 1), "float32")
        y = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], x, X[t:t + 1])
        T.ewise(lambda v: getattr(T, name)(v), y, x)
        T.cuda.tile.apply(T.ptx["st.global.f32"], Y[t:t + 1], y)

    x = np.linspace(0.125, 7.5, 32, dtype=np.float32).reshape(32, 1)
    y = np.zeros_like(x)
    with pytest.warns(InterpretWarning, match=rf"math.{name} ran as its correctly rounded result"):
        tile_mlir.interpret(apply, x, y)
    want = np.array([FUNCTIONS[name](float(v)) for v in x.ravel()], np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(y.ravel(), R.decode(R.encode(R.round_to(want, 0.0, "f32", "rn"), "f32"), "f32"))


def test_ewise_float_arithmetic_is_the_ptx_forms_bit_for_bit():
    # add, sub, mul and div round to nearest (add.rn, div.rn), max, a
    # comparison (setp) and the casts (cvt.rzi, cvt.rn): numpy's float32
    # computes the same IEEE 754 operations; no warning (they are exact).
    @T.function
    def mixed(X: T.Tensor((32, 1), "float32"), Y: T.Tensor((32, 1), "float32"), Z: T.Tensor((32, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        x, y, z = (T.alloc_local((1, 1), "float32") for _ in range(3))
        T.cuda.tile.apply(T.ptx["ld.global.f32"], x, X[t:t + 1])
        T.cuda.tile.apply(T.ptx["ld.global.f32"], y, Y[t:t + 1])
        T.ewise(lambda a, b: T.where(a > b, a * 2.0 - b / 3.0, T.maximum(a, -b) + T.cast(T.cast(a, "int32"), "float32")),
                z, x, y)
        T.cuda.tile.apply(T.ptx["st.global.f32"], Z[t:t + 1], z)

    rng = np.random.default_rng(0)
    x, y = ((rng.standard_normal((32, 1)) * 10).astype(np.float32) for _ in range(2))
    z = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tile_mlir.interpret(mixed, x, y, z)
    want = np.where(x > y, x * np.float32(2) - y / np.float32(3), np.maximum(x, -y) + np.trunc(x))
    assert np.array_equal(z, want.astype(np.float32))


def int32_ewise(fn):
    """A kernel of 8 threads: Z[t] = fn(X[t]) through T.ewise on int32."""
    @T.function
    def apply(X: T.Tensor((8, 1), "int32"), Z: T.Tensor((8, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=8))
        t = T.thread_id()
        x, z = (T.alloc_local((1, 1), "int32") for _ in range(2))
        T.cuda.tile.apply(T.ptx["ld.global.b32"], x, X[t:t + 1])
        T.ewise(fn, z, x)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Z[t:t + 1], z)
    return apply


def test_ewise_integer_arithmetic_wraps_at_its_width():
    affine = int32_ewise(lambda a: T.maximum(a * 3 + 1, a - 7))
    x = np.array([[0], [5], [-5], [2**30], [-2**30], [2**31 - 1], [-2**31], [123456789]], np.int32)
    z = np.zeros_like(x)
    tile_mlir.interpret(affine, x, z)
    with np.errstate(over="ignore"):
        assert np.array_equal(z, np.maximum(x * np.int32(3) + np.int32(1), x - np.int32(7)))


def test_ewise_shifts_division_and_width_changes():
    # Shifts (shl, shr with the sign), floor division and its remainder,
    # and int32 -> int16 -> int32 (trunc, sign extension), as Python's
    # integers compute them.
    mixed = int32_ewise(lambda a: (a << 3) + (a >> 1) + (a // 3) * 7 + a % 5 + T.cast(T.cast(a, "int16"), "int32"))
    x = np.array([[0], [5], [-5], [1000], [-1000], [40000], [-40000], [123457]], np.int32)
    z = np.zeros_like(x)
    tile_mlir.interpret(mixed, x, z)
    want = [(v << 3) + (v >> 1) + (v // 3) * 7 + v % 5 + int(np.int32(v).astype(np.int16)) for v in x.ravel().tolist()]
    assert z.ravel().tolist() == want


def test_an_ewise_operand_nothing_wrote_is_a_located_refusal():
    # It was reported as a T.until predicate read before the loop's body
    # wrote it.
    @T.function
    def unwritten(A: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        r = T.alloc_local((4, 1), "float32")
        T.ewise(lambda x: x + 1.0, r, r)
        T.cuda.tile.apply(T.ptx["st.global.f32"], A, r)

    with pytest.raises(tile_mlir.InterpretError, match=r"test_interpreter_functions\.py:\d+: the interpreter does not "
                       r"model an element of a register no instruction wrote \(thread 0\) as an operand of T\.ewise"):
        tile_mlir.interpret(unwritten, np.zeros((4, 1), np.float32))
