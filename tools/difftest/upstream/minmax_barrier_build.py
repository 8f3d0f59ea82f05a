"""Builds the barrier study for the third fold of difftest campaign 7
(docs/difftest.md): ptxas (CUDA 13.0) -O3 drops min.f32 after cvt.sat.u32.s64
or cvt.sat.u32.s32, and the identity max of the lowering does not stop it
(ptxas removes the max too). Each kernel puts one candidate barrier between
the cvt and min.f32 / min.ftz.f32 with 30000.0; fold_probe_run.py judges
them. Not yet run on the GPU: the session's device time ran out.

    python tools/difftest/upstream/minmax_barrier_build.py build/minmax_barrier
    PYTHONPATH=python python3 tools/difftest/upstream/fold_probe_run.py build/minmax_barrier out_dir   # on the GPU
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fold_probe_build as probe  # noqa: E402

BARRIERS = {
    "none": "mov.b32 %x, %n;",
    "max": "max.s32 %x, %n, -2147483648;",
    "selp_nctaid": "{ .reg .pred %q; .reg .b32 %c; mov.u32 %c, %nctaid.x; setp.ne.u32 %q, %c, 0; "
                   "selp.b32 %x, %n, 0, %q; }",
    "prmt": "prmt.b32 %x, %n, 0, 0x3210;",
    "split_join": "{ .reg .b16 %l, %h; mov.b32 {%l, %h}, %n; mov.b32 %x, {%l, %h}; }",
    "xor_tid_hi": "{ .reg .b32 %c; shr.u32 %c, %r2, 31; xor.b32 %x, %n, %c; }",
    "brev2": "brev.b32 %x, %n; brev.b32 %x, %x;",
}


def main(out):
    os.makedirs(out, exist_ok=True)
    decl = ".reg .b32 %n, %x, %m; cvt.u32.u64 %x, %rd4; "
    count = 0
    for producer in ("cvtsatu32s64", "cvtsatu32s32"):
        for op in ("minf32", "minftzf32"):
            for barrier, text in BARRIERS.items():
                body = (decl + probe.RANGE_PRODUCERS[producer] + " " + text +
                        f" {probe.MINMAX[op]} %m, %x, 0f46EA6000; mov.b64 %rd5, {{%n, %m}};")
                probe.write_kernel(out, f"minmax_{producer}_{op}_{barrier}", body, 3)
                count += 1
    print(f"{count} kernels")


if __name__ == "__main__":
    main(sys.argv[1])
