"""T.ewise (caller-defined scalar expressions through arith/math) and
predicate tiles in the script front end."""

import re

import pytest

import tile_mlir
from tile_mlir import script as T


def ptx_of(kernel):
    return tile_mlir.compile(kernel, target="sm_90", cubin=False).ptx


def instructions(ptx):
    return [line.split()[0] for line in ptx.splitlines()
            if line.startswith("\t") and not line.strip().startswith(("//", ".", "{", "}"))]


def test_ewise_silu_lowers_through_math_to_ptx():
    @T.function
    def silu_mul(X: T.Tensor((4, 1), "float32"), Y: T.Tensor((4, 1), "float32"),
                 Out: T.Tensor((4, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        x, y, o = (T.alloc_local((4, 1), "float32") for _ in range(3))
        T.cuda.tile.apply(T.ptx["ld.global.f32"], x, X)
        T.cuda.tile.apply(T.ptx["ld.global.f32"], y, Y)
        T.ewise(lambda a, b: a * b / (1.0 + T.exp(-a)), o, x, y)
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out, o)

    ops = instructions(ptx_of(silu_mul))
    # math.exp through libdevice (ex2 of x * log2 e), one division per register
    assert ops.count("ex2.approx.ftz.f32") == 4 and ops.count("div.rn.f32") == 4
    assert ops.count("st.global.f32") == 4 and "st.local" not in " ".join(ops)


def test_ewise_typed_scalars_casts_and_where():
    @T.function
    def mixed(X: T.Tensor((2, 1), "float16"), Out: T.Tensor((2, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        x = T.alloc_local((2, 1), "float16")
        o = T.alloc_local((2, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.b16"], x.view("int16"), X.view("int16"))
        T.ewise(lambda h, s: T.where(T.cast(h, "float32") > 0.0, T.cast(h, "float32") * s, 0.0),
                o, x, T.float32(2.5))
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out, o)

    ops = instructions(ptx_of(mixed))
    assert ops.count("cvt.f32.f16") == 2 and sum(op.startswith("selp.") for op in ops) == 2


@pytest.mark.parametrize("body, message", [
    (lambda x, o: T.ewise(lambda a: a + T.float16(1.0), o, x),
     r"the operands of \+ are float32 and float16; convert one explicitly with T.cast"),
    (lambda x, o: T.ewise(lambda a: T.cast(a, "float16"), o, x),
     r"the expression is float16, the destination float32; convert with T.cast"),
    (lambda x, o: T.ewise(lambda a: a, o, x[0:2]),
     r"input 0 has shape \(2, 1\), the destination \(4, 1\); they must match"),
    (lambda x, o: T.ewise(lambda a: a * "2", o, x),
     r"\* takes ewise values, typed scalars"),
    (lambda x, o: T.ewise(lambda a: a if a > 0 else -a, o, x),
     r"no truth value at trace time; use T.where"),
])
def test_ewise_rejects_ill_typed_expressions_at_the_user_line(body, message):
    with pytest.raises(T.TileError, match=message) as error:
        @T.function
        def bad(Out: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            x = T.alloc_local((4, 1), "float32")
            o = T.alloc_local((4, 1), "float32")
            body(x, o)
    assert re.match(r".*test_ewise\.py:\d+: ewise: ", str(error.value))


def test_ewise_needs_register_tiles():
    with pytest.raises(T.TileError, match="the destination: expected a register tile .*global and shared tensors need explicit ld/st"):
        @T.function
        def bad(Out: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            x = T.alloc_local((4, 1), "float32")
            T.ewise(lambda a: a, Out, x)


def test_predicate_tiles_select_per_repeat():
    @T.function
    def relu_count(X: T.Tensor((4, 1), "int32"), Out: T.Tensor((4, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        x = T.alloc_local((4, 1), "int32")
        p = T.alloc_local((4, 1), "bool")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], x, X)
        T.cuda.tile.apply(T.ptx["setp.lt.s32"], p, x, T.int32(0))
        T.cuda.tile.apply(T.ptx["neg.s32"], x, x, pred=p, preserve_dst=True)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out, x)

    ptx = ptx_of(relu_count)
    guarded = re.findall(r"@(%p\d+) neg\.s32", ptx)
    written = re.findall(r"setp\.lt\.s32 (%p\d+),", ptx)
    assert len(guarded) == 4 and guarded == written


def test_pred_must_be_a_predicate_tile():
    with pytest.raises(T.TileError, match=r"a predicate tile \(T.alloc_local\(\.\.\., \"bool\"\)\)"):
        @T.function
        def bad(X: T.Tensor((4, 1), "int32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            x = T.alloc_local((4, 1), "int32")
            T.cuda.tile.apply(T.ptx["neg.s32"], x, x, pred=x)
