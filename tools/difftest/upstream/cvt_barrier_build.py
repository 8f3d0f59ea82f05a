"""Builds hand-written PTX kernels that probe which chain barrier stops
ptxas (CUDA 13.0) from fusing a float-to-integer cvt with a following
saturating integer narrowing (cvt_fusion_build.py found F2I.S64 + sat.s32
turned into one F2I.S32, wrong for NaN). Each kernel loads one float per
thread, converts it to the middle integer type (stored), passes the middle
value through a barrier, narrows it with .sat (stored); the run side
checks out == sat(mid) bit for bit and records the SASS.

    python tools/difftest/upstream/cvt_barrier_build.py build/barrier
    python tools/difftest/upstream/cvt_barrier_run.py build/barrier out.json   # on the GPU
"""
import json, os, sys

SOURCES = {"f16": ("b16", "h"), "bf16": ("b16", "h"), "f32": ("f32", "f"), "f64": ("f64", "fd")}
MIDS = {"s64": ["s32", "u32", "s16", "u16", "s8", "u8"], "u64": ["s32", "u32", "s16", "u16", "s8", "u8"],
        "s32": ["s16", "u16", "s8", "u8"], "u32": ["s16", "u16", "s8", "u8"]}


def barrier(kind, wide):
    """PTX that copies %m0 into %m1 through the barrier `kind`."""
    if kind == "none":
        return ["mov.b64 %m1, %m0;" if wide else "mov.b32 %m1, %m0;"]
    if kind == "split_join":
        return (["mov.b64 {%r20, %r21}, %m0;", "mov.b64 %m1, {%r20, %r21};"] if wide else
                ["mov.b32 {%h20, %h21}, %m0;", "mov.b32 %m1, {%h20, %h21};"])
    if kind == "addc":
        return (["mov.b64 {%r20, %r21}, %m0;", "add.cc.u32 %r22, %r20, 0;", "addc.u32 %r23, %r21, 0;",
                 "mov.b64 %m1, {%r22, %r23};"] if wide else ["add.cc.u32 %m1, %m0, 0;"])
    if kind == "volatile_global":
        t = "b64" if wide else "b32"
        return [f"st.volatile.global.{t} [%rd6], %m0;", f"ld.volatile.global.{t} %m1, [%rd6];"]
    if kind == "selp_nctaid":
        t = "b64" if wide else "b32"
        return ["mov.u32 %r24, %nctaid.x;", "setp.ne.u32 %p1, %r24, 0;", f"selp.{t} %m1, %m0, 0, %p1;"]
    if kind == "max_min":
        return (["max.s64 %m1, %m0, -9223372036854775808;"] if wide else ["max.s32 %m1, %m0, -2147483648;"])
    raise ValueError(kind)


BARRIERS = ["none", "split_join", "addc", "volatile_global", "selp_nctaid", "max_min"]


def second_cvt(second, mid):
    """The integer cvt reading %m1 into %r2 (a 32-bit result register) or
    %rd3 (64-bit, stored as the low word)."""
    if second.endswith("64"):
        return [f"  cvt.{second}.{mid} %m2, %m1;", "  cvt.u32.u64 %r2, %m2;"]
    return [f"  cvt.{second}.{mid} %r2, %m1;"]


def kernel(src, mid, narrow, kind, more=False):
    load_type, reg = SOURCES[src]
    wide = mid.endswith("64")
    m = "b64" if wide else "b32"
    body = [
        ".version 8.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 pin, .param .u64 pmid, .param .u64 pout) {",
        f"  .reg .b64 %rd<8>; .reg .b32 %r<30>; .reg .b16 %h<30>; .reg .f32 %f<2>; .reg .f64 %fd<2>;",
        f"  .reg .pred %p<2>; .reg .{m} %m<2>; .reg .b64 %m2;",
        "  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pmid]; ld.param.u64 %rd3, [pout];",
        "  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2; cvta.to.global.u64 %rd3, %rd3;",
        "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd4, %r1, 8;",
        "  add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;",
        f"  ld.global.{load_type} %{reg}1, [%rd5];",
        f"  cvt.rzi.{mid}.{src} %m0, %{reg}1;",
        *["  " + line for line in barrier(kind, wide)],
        *second_cvt(narrow if more else "sat." + narrow, mid),
        f"  st.global.{m} [%rd6], %m0;",
        "  st.global.b32 [%rd7], %r2;",
        "  ret;", "}"]
    return "\n".join(body) + "\n"


# Integer cvts beyond saturating narrowing (non-saturating narrowing, sign
# changes, widening), each only with no barrier and with the max barrier:
# whether ptxas fuses them too decides which integer cvts need the barrier.
MORE = {"s64": ["s32", "u32", "s16", "sat.u64", "u64"], "u64": ["s32", "sat.s64", "s64"],
        "s32": ["s16", "u16", "sat.u32", "u32", "s64", "u64"], "u32": ["s16", "sat.s32", "s32", "s64", "u64"]}


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = []
    for src in SOURCES:
        for mid, narrows in MIDS.items():
            for narrow in narrows:
                for kind in BARRIERS:
                    name = f"{src}_{mid}_{narrow}_{kind}"
                    open(os.path.join(out, name + ".ptx"), "w").write(kernel(src, mid, narrow, kind))
                    cases.append({"name": name, "src": src, "mid": mid, "second": "sat." + narrow, "barrier": kind})
    for src in SOURCES:
        for mid, seconds in MORE.items():
            for second in seconds:
                for kind in ("none", "max_min"):
                    name = f"{src}_{mid}_{second.replace('.', '_')}_{kind}_more"
                    open(os.path.join(out, name + ".ptx"), "w").write(kernel(src, mid, second, kind, more=True))
                    cases.append({"name": name, "src": src, "mid": mid, "second": second, "barrier": kind})
    json.dump(cases, open(os.path.join(out, "cases.json"), "w"), indent=0)
    print(len(cases), "kernels")


if __name__ == "__main__":
    main(sys.argv[1])
