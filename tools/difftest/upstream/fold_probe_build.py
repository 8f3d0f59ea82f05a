"""Builds hand-written PTX kernels that probe two ptxas (CUDA 13.0) folds
found by difftest campaign 6, each bare and behind the identity-max barrier
of the lowering (Operand::fusionBarrier):

- amount probes: a float (or integer) op of a 32-bit value B[t] feeds a
  32-bit operand of a consumer (a 64-bit shift's amount, mul.wide, a 64-bit
  bit field's position or length, 32- and 16-bit shifts, plain integer
  ops); Out[t] is the consumer's result (seeds 7003105 and 7003385:
  neg.f32 then shr.b64);
- abs probes: an op whose 32-bit sign bit is zero (a saturated float, a
  masked or shifted integer) feeds abs of packed halves; Out[t] holds
  {producer, abs} (seed 7001561: mul.rp.sat.f32 then abs.ftz.f16x2 kept the
  low half's sign at -O3);
- minmax probes: an integer result (a saturating cvt, a shift) feeds
  min/max.f32 with a constant; Out[t] holds {producer, result} (seed
  8003086: cvt.sat.u32.s64 then min.f32 gave a NaN at -O3).

Every kernel is assembled here at -O0 and -O3; fold_probe_run.py runs them
on the GPU and compares bit for bit.

    python tools/difftest/upstream/fold_probe_build.py build/fold_probe
    python tools/difftest/upstream/fold_probe_run.py build/fold_probe out_dir   # on the GPU
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

TEMPLATE = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<12>;
\tld.param.u64 %rd7, [k_param_0];
\tld.param.u64 %rd8, [k_param_1];
\tld.param.u64 %rd9, [k_param_2];
\tmov.u32 %r2, %tid.x;
\tmul.wide.u32 %rd10, %r2, 8;
\tadd.s64 %rd1, %rd7, %rd10;
\tld.global.b64 %rd4, [%rd1];
\tld.global.b64 %rd3, [%rd1];
\tmul.wide.u32 %rd11, %r2, 4;
\tadd.s64 %rd2, %rd8, %rd11;
\tld.global.b32 %r1, [%rd2];
\t{ BODY }
\tadd.s64 %rd6, %rd9, %rd10;
\tst.global.b64 [%rd6], %rd5;
\tret;
}
"""
PARAMS = [{"name": "A", "kind": "tensor", "shape": [256, 1], "dtype": "uint64", "written": False},
          {"name": "B", "kind": "tensor", "shape": [256, 1], "dtype": "uint32", "written": False},
          {"name": "Out", "kind": "tensor", "shape": [256, 1], "dtype": "uint64", "written": True}]

# Producer of %n from %r1 (B[t]); x is the low half of %rd4 (A[t]).
PRODUCERS = {
    "negf32": "neg.f32 %n, %r1;", "absf32": "abs.f32 %n, %r1;",
    "negftzf32": "neg.ftz.f32 %n, %r1;", "absftzf32": "abs.ftz.f32 %n, %r1;",
    "addf32": "add.f32 %n, %r1, 0f80000000;", "mulf32": "mul.f32 %n, %r1, 0f3F800000;",
    "minf32": "min.f32 %n, %r1, 0f7F800000;", "cvtf32s32": "cvt.rn.f32.s32 %n, %r1;",
    "cvtrzif32": "cvt.rzi.f32.f32 %n, %r1;", "negf16x2": "neg.f16x2 %n, %r1;",
    "negbf16x2": "neg.bf16x2 %n, %r1;", "negs32": "neg.s32 %n, %r1;",
}
# Consumer of %n (the amount) writing %rd5.
CONSUMERS = {
    "shr64": "shr.b64 %rd5, %rd4, %n;", "shl64": "shl.b64 %rd5, %rd4, %n;",
    "shrs64": "shr.s64 %rd5, %rd4, %n;", "shru64": "shr.u64 %rd5, %rd4, %n;",
    "shr32": "shr.b32 %x, %x, %n; cvt.u64.u32 %rd5, %x;", "shl32": "shl.b32 %x, %x, %n; cvt.u64.u32 %rd5, %x;",
    "shr16": "cvt.u16.u32 %h, %x; shr.b16 %h, %h, %n; cvt.u64.u16 %rd5, %h;",
    "add32": "add.u32 %x, %x, %n; cvt.u64.u32 %rd5, %x;", "mul32": "mul.lo.u32 %x, %x, %n; cvt.u64.u32 %rd5, %x;",
    "bfe32": "bfe.u32 %x, %x, %n, 8; cvt.u64.u32 %rd5, %x;", "mov64": "cvt.u64.u32 %rd5, %n;",
    "mulwideu32": "mul.wide.u32 %rd5, %n, %x;", "mulwides32": "mul.wide.s32 %rd5, %n, %x;",
    "madwideu32": "mad.wide.u32 %rd5, %n, %x, %rd3;",
    "bfeu64pos": "bfe.u64 %rd5, %rd4, %n, 8;", "bfeu64len": "bfe.u64 %rd5, %rd4, 3, %n;",
    "bfib64pos": "bfi.b64 %rd5, %rd4, %rd3, %n, 8;", "bfib64len": "bfi.b64 %rd5, %rd4, %rd3, 5, %n;",
}
AMOUNT_PROBES = [(p, c) for c in CONSUMERS for p in ("negf32", "absftzf32")] + [
    (p, "shr64") for p in PRODUCERS if p not in ("negf32", "absftzf32")]

SIGN_PRODUCERS = {
    "sat": "mul.rp.sat.f32 %n, %r1, 0f3F800000;", "addsat": "add.sat.f32 %n, %r1, 0f00000000;",
    "and7f": "and.b32 %n, %r1, 2147483647;", "shr1": "shr.u32 %n, %r1, 1;",
    "absf32": "abs.f32 %n, %r1;", "minu": "min.u32 %n, %r1, 2147483647;", "plain": "mov.b32 %n, %r1;",
}
ABS = {"absf16x2": "abs.f16x2", "absftzf16x2": "abs.ftz.f16x2", "absbf16x2": "abs.bf16x2"}
# min/max of an f32 constant and integer bits (seed 8003086: cvt.sat.u32.s64
# then min.f32 with 30000.0 gave the NaN 0xffffffff at -O3). Out[t] holds
# {producer, result}.
RANGE_PRODUCERS = {
    "cvtsatu32s64": "cvt.sat.u32.s64 %n, %rd4;", "cvtu32u64": "cvt.u32.u64 %n, %rd4;",
    "cvtsatu32s32": "cvt.sat.u32.s32 %n, %r1;", "cvtrziu32f32": "cvt.rzi.u32.f32 %n, %r1;",
    "shr1": "shr.u32 %n, %r1, 1;", "plain": "mov.b32 %n, %r1;",
}
MINMAX = {"minf32": "min.f32", "maxf32": "max.f32", "minftzf32": "min.ftz.f32"}
BARRIER = "max.s32 %n, %n, -2147483648; "


def bodies():
    decl = ".reg .b32 %n, %x, %m; .reg .b16 %h; cvt.u32.u64 %x, %rd4; "
    for producer, consumer in AMOUNT_PROBES:
        for barrier in ("", BARRIER):
            name = f"amount_{producer}_{consumer}" + ("_barrier" if barrier else "")
            yield name, decl + PRODUCERS[producer] + " " + barrier + CONSUMERS[consumer]
    for producer, text in SIGN_PRODUCERS.items():
        for op, spelled in ABS.items():
            for barrier in ("", "max.s32 %x, %n, -2147483648; "):
                source = "%x" if barrier else "%n"
                name = f"abs_{producer}_{op}" + ("_barrier" if barrier else "")
                yield name, (decl + text + " " + barrier + f"{spelled} %m, {source}; mov.b64 %rd5, {{%n, %m}};")
    for producer, text in RANGE_PRODUCERS.items():
        for op, spelled in MINMAX.items():
            for barrier in ("", "max.s32 %x, %n, -2147483648; "):
                source = "%x" if barrier else "%n"
                name = f"minmax_{producer}_{op}" + ("_barrier" if barrier else "")
                yield name, (decl + text + " " + barrier + f"{spelled} %m, {source}, 0f46EA6000; "
                             "mov.b64 %rd5, {%n, %m};")


def write_kernel(out, name, body, opt):
    """Assembles the template around `body` with ptxas -O`opt` and writes
    the artifact `name`_O`opt`.json that fold_probe_run.py runs."""
    ptx = TEMPLATE.replace("BODY", body)
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        done = subprocess.run(["ptxas", "-arch=sm_90", f"-O{opt}", "-o", cubin, "-"], input=ptx.encode(),
                              capture_output=True)
        if done.returncode:
            sys.exit(f"{name}: ptxas -O{opt}: {done.stderr.decode()}")
        image = open(cubin, "rb").read()
    artifact = {"format": "tile-mlir-kernel/1", "name": "k", "target": "sm_90", "grid": [1, 1, 1],
                "block": [256, 1, 1], "convention": "bare", "params": PARAMS, "ptx": ptx,
                "cubin": base64.b64encode(image).decode()}
    with open(os.path.join(out, f"{name}_O{opt}.json"), "w") as f:
        json.dump(artifact, f)


def main(out):
    os.makedirs(out, exist_ok=True)
    count = 0
    for name, body in bodies():
        for opt in (0, 3):
            write_kernel(out, name, body, opt)
            count += 1
    print(f"{count} kernels")


if __name__ == "__main__":
    main(sys.argv[1])
