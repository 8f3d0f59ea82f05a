"""Builds the study of finding 6 of docs/difftest.md: ptxas (CUDA 13.0) -O3
dropped min.f32 after cvt.sat.u32.s64 as if the integer saturation were the
float .sat (a result in [0, 1]), and removed the identity max of the
lowering with it. The study maps which integer .sat producers and which
consumers that could use a [0, 1] range are affected, bare (at -O0 and
-O3) and behind each candidate barrier (-O3), so that the lowering's
barrier (Operand::saturationBarrier) was chosen from measurements. For
32-bit producers Out[t] holds {producer, consumer}; for 64-bit ones, the
consumer. fold_probe_run.py judges the consumer against the ISA.
Results: tools/difftest/results/sat_range.json and sat_range_64.json.

    python tools/difftest/upstream/sat_range_build.py build/sat_range
    PYTHONPATH=python python3 tools/difftest/upstream/fold_probe_run.py build/sat_range out_dir   # on the GPU
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fold_probe_build as probe  # noqa: E402

# %n from A[t] (%rd4, 64 bits), B[t] (%r1) and %x, the low half of A[t].
PRODUCERS = {
    "cvtsatu32s64": "cvt.sat.u32.s64 %n, %rd4;", "cvtsatu32s32": "cvt.sat.u32.s32 %n, %r1;",
    "cvtsats32s64": "cvt.sat.s32.s64 %n, %rd4;", "cvtsats32u32": "cvt.sat.s32.u32 %n, %r1;",
    "addsats32": "add.sat.s32 %n, %r1, %x;", "subsats32": "sub.sat.s32 %n, %r1, %x;",
    "madhisats32": "mad.hi.sat.s32 %n, %r1, %x, %r1;", "cvtrzisats32f32": "cvt.rzi.sat.s32.f32 %n, %r1;",
    "cvtu32u64": "cvt.u32.u64 %n, %rd4;", "maxs32": "max.s32 %n, %r1, 0;",
}
# %m from %y, the producer's bits behind the barrier. 30000.0 is 0f46EA6000.
CONSUMERS = {
    "minf32": "min.f32 %m, %y, 0f46EA6000;", "minftzf32": "min.ftz.f32 %m, %y, 0f46EA6000;",
    "maxf32": "max.f32 %m, %y, 0f46EA6000;", "maxf32neg": "max.f32 %m, %y, 0fBF800000;",
    "absf32": "abs.f32 %m, %y;", "setpgtf32": "{ .reg .pred %p; setp.gt.f32 %p, %y, 0f3F800000; selp.b32 %m, 1, 0, %p; }",
    "cvtsatf32": "cvt.sat.f32.f32 %m, %y;", "addsatf32": "add.sat.f32 %m, %y, 0f00000000;",
}
BARRIERS = {
    "none": "mov.b32 %y, %n;",
    "max": "max.s32 %y, %n, -2147483648;",
    "selpnctaid": "{ .reg .pred %q; .reg .b32 %c; mov.u32 %c, %nctaid.x; setp.ne.u32 %q, %c, 0; "
                  "selp.b32 %y, %n, 0, %q; }",
    "selpdynsmem": "{ .reg .pred %q; .reg .b32 %c; mov.u32 %c, %dynamic_smem_size; setp.ne.u32 %q, %c, -1; "
                   "selp.b32 %y, %n, 0, %q; }",
    "prmt": "prmt.b32 %y, %n, 0, 0x3210;",
    "splitjoin": "{ .reg .b16 %l, %h; mov.b32 {%l, %h}, %n; mov.b32 %y, {%l, %h}; }",
    "xortidhi": "{ .reg .b32 %c; shr.u32 %c, %r2, 31; xor.b32 %y, %n, %c; }",
    "brev2": "brev.b32 %y, %n; brev.b32 %y, %y;",
}


# 64-bit results: the split into 32-bit halves that was tried first did not
# stop ptxas from dropping min.f64 after cvt.sat.s64.u64 (a tools/gpu range
# chain, not bit-exact with it).
PRODUCERS_64 = {"cvtsats64u64": "cvt.sat.s64.u64 %n, %rd4;", "cvtsatu64s64": "cvt.sat.u64.s64 %n, %rd4;"}
CONSUMERS_64 = {"minf64": "min.f64 %rd5, %y, 0d40DD4C0000000000;",
                "maxf64neg": "max.f64 %rd5, %y, 0dBFF0000000000000;"}
BARRIERS_64 = {
    "none": "mov.b64 %y, %n;",
    "max": "max.s64 %y, %n, -9223372036854775808;",
    "split32": "{ .reg .b32 %l, %h; mov.b64 {%l, %h}, %n; mov.b64 %y, {%l, %h}; }",
    "split16": "{ .reg .b16 %a, %b, %c, %d; mov.b64 {%a, %b, %c, %d}, %n; mov.b64 %y, {%a, %b, %c, %d}; }",
    "split32hi16": "{ .reg .b32 %l, %h, %g; .reg .b16 %p, %q; mov.b64 {%l, %h}, %n; mov.b32 {%p, %q}, %h; "
                   "mov.b32 %g, {%p, %q}; mov.b64 %y, {%l, %g}; }",
    "split32both16": "{ .reg .b32 %l, %h, %f, %g; .reg .b16 %o, %p, %q, %r; mov.b64 {%l, %h}, %n; "
                     "mov.b32 {%o, %p}, %l; mov.b32 %f, {%o, %p}; mov.b32 {%q, %r}, %h; mov.b32 %g, {%q, %r}; "
                     "mov.b64 %y, {%f, %g}; }",
    "prmt": "{ .reg .b32 %l, %h; mov.b64 {%l, %h}, %n; prmt.b32 %l, %l, 0, 0x3210; prmt.b32 %h, %h, 0, 0x3210; "
            "mov.b64 %y, {%l, %h}; }",
}


def write_study(out, prefix, producers, consumers, barriers, body):
    """Every producer, consumer and barrier at -O3, and bare at -O0 too;
    `body` joins the three texts. Returns the number of kernels."""
    count = 0
    for producer, made in producers.items():
        for consumer, used in consumers.items():
            for barrier, text in barriers.items():
                for opt in ((0, 3) if barrier == "none" else (3,)):
                    probe.write_kernel(out, f"{prefix}_{producer}_{consumer}_{barrier}", body(made, text, used), opt)
                    count += 1
    return count


def main(out):
    os.makedirs(out, exist_ok=True)
    decl = ".reg .b32 %n, %x, %y, %m; cvt.u32.u64 %x, %rd4; "
    count = write_study(out, "sat", PRODUCERS, CONSUMERS, BARRIERS,
                        lambda made, text, used: f"{decl}{made} {text} {used} mov.b64 %rd5, {{%n, %m}};")
    count += write_study(out, "sat64", PRODUCERS_64, CONSUMERS_64, BARRIERS_64,
                         lambda made, text, used: f".reg .b64 %n, %y; {made} {text} {used}")
    print(f"{count} kernels")


if __name__ == "__main__":
    main(sys.argv[1])
