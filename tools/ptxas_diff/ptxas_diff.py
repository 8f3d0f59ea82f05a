#!/usr/bin/env python3
"""Differential test of the PTX form table against ptxas.

Generates opcode spellings across the families the table knows, legal forms
and near misses, and assembles each in a one-instruction-per-line kernel for
sm_80, sm_90 and sm_100a. A spelling the table accepts is written with the
register widths the table derives; one it rejects is written with the widths
its type tokens suggest. ptxas reports every bad line, so one file per target
and batch is enough; every disagreement is re-checked alone.

    python tools/ptxas_diff/ptxas_diff.py --out tools/ptxas_diff/results.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import subprocess
import sys
import tempfile

from tile_mlir import ptx

import tcgen05  # noqa: E402  (beside this file)

TARGETS = ("sm_80", "sm_90", "sm_100a")
# The newest PTX ISA version tile-mlir emits, and the oldest each target has.
PTX_VERSION = 88
TARGET_PTX = {"sm_80": 70, "sm_90": 78, "sm_90a": 80, "sm_100a": 86, "sm_100f": 88, "sm_103a": 88,
              "sm_120a": 87}

BITS = {
    "b8": 8, "b16": 16, "b32": 32, "b64": 64, "b128": 128,
    "u8": 8, "u16": 16, "u32": 32, "u64": 64, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 32,
    "f16x2": 32, "bf16x2": 32, "f32x2": 64, "u16x2": 32, "s16x2": 32,
    "e4m3x2": 16, "e5m2x2": 16, "e2m3x2": 16, "e3m2x2": 16, "e2m1x2": 8,
    "ue8m0x2": 16, "e4m3x4": 32, "e5m2x4": 32, "e2m3x4": 32, "e3m2x4": 32, "e2m1x4": 16,
}
PACKED_FROM_F32 = {"f16x2", "bf16x2", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2"}


def arith_spellings():
    types = ["u16", "u32", "u64", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2",
             "f32", "f32x2", "f64", "u16x2", "s16x2", "f32.f16", "f32.bf16", "b32"]
    pool = ["rn", "rz", "rm", "rp", "ftz", "sat", "cc", "hi", "lo", "wide", "relu"]
    for family in ("add", "sub", "mul"):
        for ty in types:
            for n in range(3):
                for quals in itertools.combinations(pool, n):
                    yield ".".join((family,) + quals + (ty,))
            for quals in (("rn", "ftz", "sat"), ("sat", "ftz", "rn"), ("rz", "ftz", "sat"),
                          ("rn", "rz"), ("ftz", "ftz")):
                yield ".".join((family,) + quals + (ty,))
            yield f"{family}.{ty}.rn"


def absneg_spellings():
    types = ["s16", "s32", "s64", "u32", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "b32"]
    for family in ("abs", "neg"):
        for ty in types:
            for quals in ((), ("ftz",), ("rn",), ("sat",), ("ftz", "ftz")):
                yield ".".join((family,) + quals + (ty,))


def cvt_spellings():
    scalars = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"]
    frnd = ["rn", "rz", "rm", "rp"]
    irnd = ["rni", "rzi", "rmi", "rpi"]
    for dst in scalars:
        for src in scalars:
            for quals in [(), ("sat",), ("ftz",), ("relu",), ("satfinite",)] + \
                         [(r,) for r in frnd + irnd] + [(r, "ftz") for r in ("rn", "rni")] + \
                         [(r, "sat") for r in ("rz", "rzi")] + [("rn", "relu"), ("rz", "satfinite"),
                                                                ("rn", "ftz", "sat")]:
                yield ".".join(("cvt",) + quals + (dst, src))
    for dst in sorted(PACKED_FROM_F32) + ["tf32"]:
        for quals in [(), ("rn",), ("rz",), ("rna",), ("rn", "relu"), ("rn", "satfinite"),
                      ("rn", "satfinite", "relu"), ("rz", "relu", "satfinite"), ("rm",),
                      ("rna", "satfinite"), ("satfinite", "rn")]:
            yield ".".join(("cvt",) + quals + (dst, "f32"))
    for f8 in ("e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2"):
        for quals in [("rn",), ("rn", "relu"), ("rn", "satfinite"), ()]:
            yield ".".join(("cvt",) + quals + ("f16x2", f8))
            yield ".".join(("cvt",) + quals + (f8, "f16x2"))
    # PTX ISA 8.6-8.7: ue8m0 scale pairs and stochastic rounding (cvt.rs).
    for dst, src in (("ue8m0x2", "f32"), ("ue8m0x2", "bf16x2"), ("bf16x2", "ue8m0x2")):
        for quals in [(), ("rz",), ("rp",), ("rn",), ("rz", "satfinite"), ("rp", "satfinite"), ("rz", "relu")]:
            yield ".".join(("cvt",) + quals + (dst, src))
    for dst in ("f16x2", "bf16x2", "e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"):
        for quals in [("rs",), ("rs", "satfinite"), ("rs", "relu", "satfinite"), ("rs", "relu"), ("rs", "ftz")]:
            yield ".".join(("cvt",) + quals + (dst, "f32"))
    for narrow in ("u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2", "u32", "f16"):
        for tail in (("s32",), ("s32", "b32"), ("u32", "b32"), ("s32", "s32")):
            yield ".".join(("cvt", "pack", "sat", narrow) + tail)
            yield ".".join(("cvt", "pack", narrow) + tail)


def mov_spellings():
    for ty in ["b16", "b32", "b64", "b128", "u16", "u32", "u64", "s16", "s32", "s64",
               "f16", "bf16", "f32", "f64", "b8", "f16x2"]:
        yield f"mov.{ty}"
        yield f"mov.rn.{ty}"
    # mov also copies a predicate (PTX ISA: mov.type with .pred).
    yield "mov.pred"
    yield "mov.b32.pred"


def ldst_spellings():
    rng = random.Random(7)
    types = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16",
             "s32", "s64", "f32", "f64", "f16"]
    spaces = ["global", "shared", "shared::cta", "shared::cluster", "local", ""]
    for family in ("ld", "st"):
        sems = ["", "weak", "volatile", "relaxed.gpu", "relaxed.sys", "relaxed.cta",
                "relaxed.cluster", "relaxed", "gpu", "acquire.gpu" if family == "ld" else "release.gpu"]
        caches = ["", "ca", "cg", "cs", "lu", "cv"] if family == "ld" else ["", "wb", "cg", "cs", "wt"]
        extras = ["", "L1::evict_last", "L1::no_allocate", "L2::64B", "L2::256B", "nc",
                  "L2::cache_hint", "L2::evict_last", "L2::evict_first", "L2::evict_normal"]
        vecs = ["", "v2", "v4", "v8"]
        for space in spaces:
            for ty in types:
                for vec in vecs:
                    yield ".".join(t for t in (family, space, vec, ty) if t)
                for sem in sems[1:]:
                    yield ".".join(t for t in (family, sem, space, ty) if t)
                for cache in caches[1:]:
                    yield ".".join(t for t in (family, space, cache, ty) if t)
        for _ in range(600):
            parts = [rng.choice(sems), rng.choice(spaces[:3]), rng.choice(caches),
                     rng.choice(extras), rng.choice(vecs), rng.choice(types)]
            yield ".".join(t for t in [family] + parts if t)
        # PTX ISA 8.8: .level2::eviction_priority = {.L2::evict_normal,
        # .L2::evict_first, .L2::evict_last}, for 256-bit accesses, beside
        # the L1 priorities.
        for l2 in ("L2::evict_normal", "L2::evict_first", "L2::evict_last"):
            for vec, ty in (("v8", "b32"), ("v8", "f32"), ("v4", "b64"), ("v4", "u64"),
                            ("v4", "s64"), ("v4", "f64"), ("v2", "b64"), ("v4", "b32"), ("", "b64")):
                for first in ("", "L1::evict_last", "L1::no_allocate"):
                    for space in ("global", "", "shared"):
                        yield ".".join(t for t in (family, space, first, l2, vec, ty) if t)


def ldu_spellings():
    """PTX ISA 9.0, 9.7.9.10: ldu{.global}{.vec}.type over every type (and
    f16, which is not one), every vector width (and .v8), other state
    spaces, and the qualifiers of ld that ldu does not take (an ordering, a
    cache operator, .nc, eviction priorities), some in other orders."""
    types = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32",
             "f64", "f16"]
    for space in ("global", "", "shared", "local", "const", "param"):
        for ty in types:
            for vec in ("", "v2", "v4", "v8"):
                yield ".".join(t for t in ("ldu", space, vec, ty) if t)
    for extra in ("nc", "ca", "cg", "lu", "volatile", "relaxed.gpu", "acquire.gpu", "L1::evict_last",
                  "L2::cache_hint", "L2::128B"):
        yield f"ldu.global.{extra}.b32"
        yield f"ldu.{extra}.v2.f32"
    yield "ldu.v2.global.f32"
    yield "ldu.global.global.b32"
    yield "ldu.global.v2.v4.b32"


def async_store_spellings():
    """PTX ISA 9.0, st.async{.weak}{.cluster}{.shared::cluster}
    .mbarrier::complete_tx::bytes{.vec}.type: every type of st (and b128),
    every vector width (and .v8), each optional qualifier with and without
    the others, the completion mechanism missing or another, other state
    spaces and scopes, other orders and repeated qualifiers, and sm_100's
    .mmio/.release/.global form."""
    types = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f32",
             "f64"]
    complete = "mbarrier::complete_tx::bytes"
    for ty, vec in itertools.product(types, ("", "v2", "v4", "v8")):
        yield ".".join(t for t in ("st.async", "shared::cluster", complete, vec, ty) if t)
    for sem, scope, space, completion in itertools.product(
            ("", "weak", "relaxed", "release"), ("", "cluster", "cta", "gpu"),
            ("", "shared::cluster", "shared::cta", "shared", "global"), ("", complete, "bulk_group")):
        for ty in ("b32", "v2.f32", "v4.b64"):
            yield ".".join(t for t in ("st.async", sem, scope, space, completion, ty) if t)
    for quals in (("b32", "shared::cluster", complete), ("shared::cluster", "b32", complete),
                  (complete, "weak", "shared::cluster", "b32"), ("v2", "shared::cluster", complete, "b32"),
                  ("shared::cluster", complete, "b32", "v2"), ("cluster", "shared::cluster", complete, "u64"),
                  ("weak", "weak", "shared::cluster", complete, "b32"),
                  ("shared::cluster", "shared::cluster", complete, "b32"), ("shared::cluster", complete, "v2.v2.b32"),
                  ("shared::cluster", complete, "b32.b32"), ("shared::cluster", complete, "L2::cache_hint", "b32"),
                  ("mmio", "release", "gpu", "global", "b32"), ("release", "sys", "global", "s16")):
        yield ".".join(("st.async",) + quals)


def async_reduce_spellings():
    """PTX ISA 9.0, red.async.relaxed.cluster{.shared::cluster}
    .mbarrier::complete_tx::bytes.op.type: every operation (and mul, exch,
    cas) with every integer and float type of 16 to 64 bits, the required
    qualifiers each left out or replaced (.release, .acquire, .weak, .cta,
    .gpu; .shared::cta, .global; .bulk_group), .noftz halves, a vector,
    other orders, repeated and two operations."""
    complete = "mbarrier::complete_tx::bytes"
    for op, ty in itertools.product(("add", "min", "max", "and", "or", "xor", "inc", "dec", "mul", "exch", "cas"),
                                    ("b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64", "f16", "u16")):
        yield ".".join(("red.async", "relaxed", "cluster", "shared::cluster", complete, op, ty))
    for sem, scope, space, completion in itertools.product(
            ("relaxed", "", "release", "acquire", "weak"), ("cluster", "", "cta", "gpu"),
            ("shared::cluster", "", "shared::cta", "global"), (complete, "", "bulk_group")):
        yield ".".join(t for t in ("red.async", sem, scope, space, completion, "add.u32") if t)
    for quals in (("add", "u32", "relaxed", "cluster", "shared::cluster", complete),
                  (complete, "shared::cluster", "cluster", "relaxed", "min", "s32"),
                  ("relaxed", "cluster", "shared::cluster", complete, "u32"),
                  ("relaxed", "cluster", "shared::cluster", complete, "add", "add", "u32"),
                  ("relaxed", "cluster", "shared::cluster", complete, "add", "min", "u32"),
                  ("relaxed", "relaxed", "cluster", "shared::cluster", complete, "add", "u32"),
                  ("relaxed", "cluster", "shared::cluster", complete, "v2", "add", "u32"),
                  ("relaxed", "cluster", "shared::cluster", complete, "add", "noftz", "f16"),
                  ("relaxed", "cluster", "shared::cluster", complete, "add", "noftz", "bf16x2"),
                  ("mmio", "release", "gpu", "global", "add", "u32")):
        yield ".".join(("red.async",) + quals)


def multimem_spellings():
    """PTX ISA 9.0, multimem.ld_reduce / st / red: every operation (and inc,
    dec, exch) with every integer and float type of 16 to 64 bits, every
    vector width (and none) and accumulation precision; the semantics and
    scopes each with and without the other; other orders and spaces."""
    types = ("b32", "b64", "u32", "u64", "s32", "s64", "f16", "bf16", "f16x2", "bf16x2", "f32", "f64", "u16", "e4m3")
    for name, ops in (("ld_reduce", ("add", "min", "max", "and", "or", "xor", "inc")),
                      ("red", ("add", "min", "max", "and", "or", "xor", "inc", "exch")), ("st", ("",))):
        for op, acc, vec, ty in itertools.product(ops, ("", "acc::f32", "acc::f16"), ("", "v2", "v4", "v8"), types):
            if name == "st" and acc:
                continue
            yield ".".join(t for t in ("multimem", name, "global", op, acc, vec, ty) if t)
        tail = "u32" if name == "st" else "add.u32"
        for sem, scope, space in itertools.product(("", "weak", "relaxed", "acquire", "release", "acq_rel"),
                                                   ("", "cta", "cluster", "gpu", "sys"), ("", "global", "shared")):
            yield ".".join(t for t in ("multimem", name, sem, scope, space, tail) if t)
    for spelling in ("multimem.ld_reduce.add.u32.relaxed.gpu.global", "multimem.ld_reduce.global.gpu.relaxed.add.u32",
                     "multimem.st.u32.global", "multimem.red.global.u32.add", "multimem.st.global.f32.v2",
                     "multimem.st.v2.global.f32", "multimem.ld_reduce.global.add.v2.acc::f32.f16x2",
                     "multimem.ld_reduce.global.acc::f32.add.f16x2", "multimem.ld_reduce.global.add.f16x2.acc::f32",
                     "multimem.ld_reduce.global.add.add.u32", "multimem.st.weak.weak.u32", "multimem.ld.global.u32",
                     "multimem.ld_reduce.min.acc::f32.v2.bf16x2"):
        yield spelling


def cache_hint_spellings():
    """.L2::cache_hint on ld and st: every state space, ordering, cache
    operator, L1 priority and prefetch size beside it, and its place in the
    spelling moved."""
    for family in ("ld", "st"):
        sems = ["", "weak", "volatile", "relaxed.gpu", "relaxed.cluster", "mmio.relaxed.sys",
                "acquire.gpu" if family == "ld" else "release.gpu"]
        spaces = ["", "global", "shared", "shared::cta", "shared::cluster", "local", "param"] + \
            (["const"] if family == "ld" else [])
        caches = ["", "ca", "cg", "cs", "lu", "cv", "nc", "nc.cs", "nc.L1::evict_first"] if family == "ld" \
            else ["", "wb", "cg", "cs", "wt"]
        extras = ["", "L1::evict_last", "L1::no_allocate", "L1::evict_unchanged"] + \
            (["L2::128B", "L2::256B"] if family == "ld" else [])
        for sem, space, cache, extra in itertools.product(sems, spaces, caches, extras):
            yield ".".join(t for t in (family, sem, space, cache, extra, "L2::cache_hint", "b32") if t)
        for vec, ty in (("v2", "b64"), ("v4", "f32"), ("", "b128"), ("v8", "b32"), ("v4", "b64"), ("", "u8")):
            yield ".".join(t for t in (family, "global", "L2::cache_hint", vec, ty) if t)
            yield ".".join(t for t in (family, "global", "L2::evict_last", "L2::cache_hint", vec, ty) if t)
        yield f"{family}.L2::cache_hint.global.b32"
        yield f"{family}.global.b32.L2::cache_hint"
        yield f"{family}.global.L2::cache_hint.L2::cache_hint.b32"


def createpolicy_spellings():
    """PTX ISA 9.0, 9.7.9.17: createpolicy.fractional and .range{.global}
    with a primary and an optional secondary priority, createpolicy.cvt.L2;
    every pair of priorities in both orders, other types, the qualifiers
    moved, missing and repeated."""
    priorities = ["L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged",
                  "L2::evict_first.L2::evict_first"]
    for kind in ("fractional", "range", "range.global"):
        for first in [""] + priorities:
            for second in ["", "L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"]:
                for ty in ("b64", "b32", "u64"):
                    yield ".".join(t for t in ("createpolicy", kind, first, second, ty) if t)
        yield f"createpolicy.{kind}.b64.L2::evict_last"
        yield f"createpolicy.L2::evict_last.{kind}.b64"
        yield f"createpolicy.{kind}.L2::evict_last.{kind.split('.')[0]}.b64"
    yield "createpolicy.range.shared.L2::evict_last.b64"
    yield "createpolicy.range.L2::evict_last.global.b64"
    yield "createpolicy.range.global.global.L2::evict_last.b64"
    for quals in ("L2", "", "L2.L2", "L1", "L2::evict_last", "L2.L2::evict_last"):
        for ty in ("b64", "b32"):
            yield ".".join(t for t in ("createpolicy", "cvt", quals, ty) if t)
    yield "createpolicy.cvt.b64.L2"
    yield "createpolicy.L2::evict_last.b64"
    yield "createpolicy.b64"


def createpolicy_operands(tokens):
    """The ISA's operands: a 64-bit policy, then the fraction (an f32
    register, optional: both are tried), the range's [a], primary-size and
    total-size, or cvt's 64-bit access property."""
    policy = (64, 1, False)
    if "range" in tokens:
        return [[policy, TENSOR_MAP, (32, 1, False), (32, 1, False)]]
    if "cvt" in tokens:
        return [[policy, (64, 1, False)]]
    return [[policy], [policy, (32, 1, False)]]


def minmax_spellings():
    """PTX ISA 9.0, min/max: min{.relu}.{u16,u32,u64,s16,s32,s64,u16x2,s16x2},
    min{.ftz}{.NaN}{.xorsign.abs}.{f32,f16,f16x2,bf16,bf16x2}, min.f64, and
    three-input f32 forms; with qualifiers and types from neighbouring
    instructions."""
    types = ["u16", "u32", "u64", "s16", "s32", "s64", "u16x2", "s16x2", "f16", "f16x2", "bf16",
             "bf16x2", "f32", "f64", "b32", "u8", "f32x2"]
    pool = ["ftz", "NaN", "xorsign", "abs", "relu", "sat", "rn"]
    for family in ("min", "max"):
        for ty in types:
            for n in range(4):
                for quals in itertools.combinations(pool, n):
                    yield ".".join((family,) + quals + (ty,))
            yield f"{family}.{ty}.ftz"
            yield f"{family}.abs.xorsign.{ty}"
            yield f"{family}.nan.{ty}"


def bit_spellings():
    """PTX ISA 9.0, logic and shift instructions and the bit-field ones:
    every type token of the integer and bit types on each, and each
    family's qualifiers (bfind.shiftamt, prmt's modes) on every type."""
    types = ["b8", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "pred", "f32"]
    quals = [(), ("shiftamt",), ("f4e",), ("b4e",), ("rc8",), ("ecl",), ("ecr",), ("rc16",),
             ("cc",), ("sat",), ("wide",)]
    for family in ("and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfind",
                   "bfe", "bfi", "prmt", "lop3"):
        for ty in types:
            for q in quals:
                yield ".".join((family,) + q + (ty,))
            yield f"{family}.{ty}.{'shiftamt' if family == 'bfind' else 'f4e'}"


def extended_int_spellings():
    """PTX ISA 9.0, the rest of the integer instructions (mul24, mad24,
    addc, subc, madc, sad, dp4a, dp2a, bmsk, szext, fns, shf, slct),
    movmatrix and rsqrt: each family's
    qualifiers, with none, doubled and out of order, on its types and on
    near ones."""
    ints = ["u16", "u32", "u64", "s16", "s32", "s64", "b32", "b64", "f32"]
    for family in ("mul24", "mad24"):
        for ty in ints:
            for q in [(), ("hi",), ("lo",), ("wide",), ("hi", "sat"), ("sat", "hi"), ("lo", "sat"),
                      ("sat",), ("hi", "lo"), ("hi", "cc")]:
                yield ".".join((family,) + q + (ty,))
            yield f"{family}.{ty}.lo"
    for ty in ints + ["b16"]:
        for family in ("addc", "subc"):
            for q in [(), ("cc",), ("sat",), ("cc", "cc"), ("lo",)]:
                yield ".".join((family,) + q + (ty,))
            yield f"{family}.{ty}.cc"
        for q in [(), ("lo",), ("hi",), ("cc",), ("lo", "cc"), ("cc", "hi"), ("wide",), ("hi", "sat"),
                  ("lo", "cc", "cc")]:
            yield ".".join(("madc",) + q + (ty,))
        yield f"madc.lo.{ty}.cc"
    for ty in ints + ["u8", "s8", "b16"]:
        yield f"sad.{ty}"
        yield f"sad.sat.{ty}"
        yield f"sad.lo.{ty}"
    dot = ["u32", "s32", "b32", "u16", "s8"]
    for a in dot:
        for b in dot:
            yield f"dp4a.{a}.{b}"
            yield f"dp4a.lo.{a}.{b}"
            yield f"dp2a.{a}.{b}"
            yield f"dp2a.{a}.{b}.lo"
            for mode in ("lo", "hi"):
                yield f"dp2a.{mode}.{a}.{b}"
        yield f"dp4a.{a}"
        yield f"dp2a.lo.{a}"
    for family in ("bmsk", "szext"):
        for ty in ["b32", "u32", "s32", "b64", "u64", "s64", "b16"]:
            for q in [(), ("clamp",), ("wrap",), ("clamp", "wrap"), ("sat",)]:
                yield ".".join((family,) + q + (ty,))
            yield f"{family}.{ty}.wrap"
    for ty in ["b32", "u32", "s32", "b64", "b16"]:
        yield f"fns.{ty}"
        yield f"fns.clamp.{ty}"
    for ty in ["b32", "u32", "s32", "b64", "u64"]:
        for direction in ("l", "r", None):
            for mode in ("clamp", "wrap", None):
                yield ".".join(t for t in ("shf", direction, mode, ty) if t)
        yield f"shf.clamp.l.{ty}"
        yield f"shf.l.{ty}.wrap"
        yield f"shf.{ty}.r.clamp"
    for dtype in ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64", "f16", "b8",
                  "pred"]:
        for ctype in ["s32", "f32", "u32", "f64", "s64", "f16"]:
            yield f"slct.{dtype}.{ctype}"
            yield f"slct.ftz.{dtype}.{ctype}"
            yield f"slct.{dtype}.ftz.{ctype}"
        yield f"slct.{dtype}"
    for quals in itertools.permutations(("sync", "aligned", "m8n8", "trans")):
        yield ".".join(("movmatrix",) + quals + ("b16",))
    for drop in ("sync", "aligned", "m8n8", "trans"):
        yield ".".join(["movmatrix"] + [q for q in ("sync", "aligned", "m8n8", "trans") if q != drop] + ["b16"])
    for shape, ty in (("m16n8", "b16"), ("m8n8", "b32"), ("m8n8", "b8"), ("m16n16", "b16")):
        yield f"movmatrix.sync.aligned.{shape}.trans.{ty}"
    for ty in ["f16", "bf16", "f32", "f64", "f16x2"]:
        for q in [(), ("approx",), ("approx", "ftz"), ("ftz", "approx"), ("rn",), ("approx", "rn"),
                  ("ftz",)]:
            yield ".".join(("rsqrt",) + q + (ty,))


def set_spellings():
    """PTX ISA 9.0, set.CmpOp{.BoolOp}{.ftz}.dtype.stype: every comparison
    on every destination and source type token, and a few with a boolean
    operation, ftz, or out of order."""
    compares = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
                "gtu", "geu", "num", "nan"]
    dtypes = ["u16", "s16", "u32", "s32", "f32", "f16", "bf16", "f16x2", "bf16x2", "b32", "u64"]
    stypes = ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "bf16", "f32", "f64",
              "f16x2", "bf16x2"]
    for dtype in dtypes:
        for stype in stypes:
            for cmp in compares:
                yield f"set.{cmp}.{dtype}.{stype}"
            for cmp in ("eq", "lt", "lo", "ltu", "num"):
                yield f"set.{cmp}.ftz.{dtype}.{stype}"
                yield f"set.{cmp}.and.{dtype}.{stype}"
                yield f"set.{cmp}.xor.ftz.{dtype}.{stype}"
            yield f"set.{dtype}.{stype}"
            yield f"set.{dtype}.lt.{stype}"
            yield f"set.lt.{stype}.{dtype}"
        yield f"set.lt.{dtype}"


def grid_dependency_spellings():
    """PTX ISA 9.0, griddepcontrol.{wait,launch_dependents}, nanosleep.u32,
    trap and exit: each, with none, both or near qualifiers and types."""
    for quals in [("wait",), ("launch_dependents",), (), ("wait", "launch_dependents"), ("wait", "aligned"),
                  ("sync", "wait"), ("launch_dependents", "wait"), ("wait", "wait"), ("launch",), ("signal",)]:
        yield ".".join(("griddepcontrol",) + quals)
    for rest in ("u32", "s32", "b32", "u64", "u16", "sync.u32", "u32.u32"):
        yield f"nanosleep.{rest}"
    for rest in ("", ".u32", ".sync", ".aligned"):
        yield f"trap{rest}"
        yield f"exit{rest}"


def cache_line_spellings():
    """PTX ISA 9.0, 9.7.9.16-17: discard{.global}.L2 and
    applypriority{.global}.L2::evict_normal, in both orders, with other
    spaces, levels and priorities, a type, and the level missing."""
    for space in ("global", "", "shared", "local", "const"):
        for level in ("L2", "L1", "L2::evict_normal", ""):
            yield ".".join(t for t in ("discard", space, level) if t)
            yield ".".join(t for t in ("discard", level, space) if t)
        for priority in ("L2::evict_normal", "L2::evict_last", "L2::evict_first", "L2::evict_unchanged",
                         "L1::evict_normal", "L2", ""):
            yield ".".join(t for t in ("applypriority", space, priority) if t)
            yield ".".join(t for t in ("applypriority", priority, space) if t)
    yield "discard.global.L2.b32"
    yield "discard.global.L2.L2"
    yield "applypriority.global.L2::evict_normal.b8"


def prefetch_spellings():
    """PTX ISA 9.0, 9.7.9.15: prefetch{.space}.level, prefetch.global with
    an L2 eviction priority and prefetchu.L1, in both orders, with other
    spaces, levels and priorities, two levels, none, and a type."""
    for space in ("global", "local", "", "shared", "const"):
        for level in ("L1", "L2", "L2::evict_last", "L2::evict_normal", "L2::evict_first", "L1::evict_last",
                      "L3", ""):
            yield ".".join(t for t in ("prefetch", space, level) if t)
            yield ".".join(t for t in ("prefetch", level, space) if t)
            yield ".".join(t for t in ("prefetchu", space, level) if t)
    yield "prefetch.global.L1.L2"
    yield "prefetch.global.L2::evict_last.L2"
    yield "prefetch.global.L1.b32"
    yield "prefetchu.L1.b8"


def address_value_spellings():
    """PTX ISA 9.0, 9.7.9.20-23: isspacep.space, cvta{.to}.space.size and
    getctarank{.shared::cluster}.type, with every space, none and two, each
    size and type, .to elsewhere, and the qualifiers in both orders."""
    spaces = ("const", "global", "local", "shared", "shared::cta", "shared::cluster", "param", "param::entry",
              "param::func", "tex", "")
    for space in spaces:
        yield ".".join(t for t in ("isspacep", space) if t)
        for size in ("u64", "u32", "b64", "s64", ""):
            yield ".".join(t for t in ("cvta", space, size) if t)
            yield ".".join(t for t in ("cvta", "to", space, size) if t)
            yield ".".join(t for t in ("cvta", size, space) if t)
        for kind in ("u64", "u32", "b32", "s32", "b64", ""):
            yield ".".join(t for t in ("getctarank", space, kind) if t)
            yield ".".join(t for t in ("getctarank", kind, space) if t)
    yield "isspacep.global.shared"
    yield "isspacep.shared.u64"
    yield "cvta.global.shared.u64"
    yield "cvta.shared.to.u64"
    yield "cvta.to.to.shared.u64"
    yield "getctarank.shared::cluster.shared::cluster.u64"


REPLACE_FIELDS = ("global_address", "rank", "global_stride", "box_dim", "global_dim", "element_stride", "elemtype",
                  "interleave_layout", "swizzle_mode", "fill_mode", "swizzle_atomicity")


def tensormap_replace_spellings():
    """PTX ISA 9.0, 9.7.9.27: tensormap.replace.tile.field{.ss}.b1024.type
    with every field (and one the ISA lacks), each space and none and
    three it lacks, both types and u32, .tile or .b1024 missing, and the
    space and type moved."""
    for field in REPLACE_FIELDS + ("dims",):
        for space in ("global", "shared::cta", "", "shared", "shared::cluster", "const"):
            for kind in ("b32", "b64", "u32"):
                yield ".".join(t for t in ("tensormap.replace.tile", field, space, "b1024", kind) if t)
            yield ".".join(t for t in ("tensormap.replace", field, space, "b1024", "b32") if t)
            yield ".".join(t for t in ("tensormap.replace.tile", field, space, "b32") if t)
            yield ".".join(t for t in ("tensormap.replace", space, "tile", field, "b1024", "b64") if t)
            yield ".".join(t for t in ("tensormap.replace.tile", field, "b32", "b1024", space) if t)
    yield "tensormap.replace.tile.b1024.b32"
    yield "tensormap.replace.tile.rank.rank.b1024.b32"
    yield "tensormap.replace.tile.tile.rank.b1024.b32"


def setp_selp_spellings():
    """PTX ISA 9.0, setp.CmpOp{.BoolOp}{.ftz}.type and selp.type: every
    comparison on every type, with and without a boolean operation and ftz,
    some in other orders; selp on every type token."""
    compares = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu",
                "leu", "gtu", "geu", "num", "nan"]
    types = ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64", "f16",
             "f16x2", "bf16", "bf16x2", "u8", "s8", "pred"]
    for ty in types:
        for cmp in compares:
            yield f"setp.{cmp}.{ty}"
            yield f"setp.{cmp}.ftz.{ty}"
            for bool_op in ("and", "or", "xor"):
                yield f"setp.{cmp}.{bool_op}.{ty}"
            yield f"setp.and.{cmp}.ftz.{ty}"
            yield f"setp.{ty}.{cmp}"
        yield f"setp.{ty}"
        yield f"setp.and.{ty}"
        yield f"setp.lt.gt.{ty}"
        yield f"selp.{ty}"
        yield f"selp.ftz.{ty}"


def math_spellings():
    """PTX ISA 9.0: div.{approx,full,rnd}{.ftz}.f32, div.rnd.f64, integer div
    and rem; sqrt and rcp .{approx,rnd}{.ftz}.f32 and .rnd.f64 (and
    rcp.approx.ftz.f64); ex2/lg2/sin/cos .approx{.ftz}.f32, ex2.approx on
    f16/f16x2 and .ftz on bf16/bf16x2, tanh.approx on f32 and 16-bit types;
    copysign and testp on f32/f64; each family on every type and with every
    mode, ftz, and neighbours' qualifiers."""
    types = ["u16", "u32", "u64", "s16", "s32", "s64", "b32", "f16", "f16x2", "bf16", "bf16x2", "f32",
             "f64", "u8"]
    modes = [(), ("rn",), ("rz",), ("rm",), ("rp",), ("approx",), ("full",)]
    for family in ("div", "rem", "sqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh", "copysign"):
        for ty in types:
            for mode in modes:
                for extra in ((), ("ftz",), ("sat",)):
                    yield ".".join((family,) + mode + extra + (ty,))
            yield f"{family}.{ty}.approx"
            yield f"{family}.ftz.approx.{ty}"
            yield f"{family}.approx.rn.{ty}"
    for test in ("finite", "infinite", "number", "notanumber", "normal", "subnormal", "nan", ""):
        for ty in ("f32", "f64", "f16", "bf16", "b32", "s32"):
            yield ".".join(t for t in ("testp", test, ty) if t)
            yield ".".join(t for t in ("testp", test, "ftz", ty) if t)
        yield f"testp.f32.{test}" if test else "testp.finite.normal.f32"


def fma_mad_spellings():
    """PTX ISA 9.0: fma.rnd{.ftz}{.sat}.f32, fma.rnd{.ftz}.f32x2, fma.rnd.f64,
    fma.rn{.ftz}{.sat}.f16/f16x2, fma.rn{.ftz}.relu.f16/f16x2,
    fma.rn{.relu}.bf16/bf16x2; mad.{lo,hi,wide}{.cc}{.sat} on the integer
    types (mode first) and mad's float forms: every type with qualifier
    subsets of a shared pool."""
    types = ["f32", "f64", "f16", "f16x2", "bf16", "bf16x2", "f32x2", "u16", "u32", "u64", "s16", "s32",
             "s64", "b32"]
    pool = ["rn", "rz", "ftz", "sat", "relu", "lo", "hi", "wide", "cc"]
    for family in ("fma", "mad"):
        for ty in types:
            for n in range(4):
                for quals in itertools.combinations(pool, n):
                    yield ".".join((family,) + quals + (ty,))
            yield f"{family}.{ty}.lo"
            yield f"{family}.{ty}.rn"


def barrier_spellings():
    """PTX ISA 9.0, 9.7.13.1: bar{.cta}.{sync,arrive,red}, barrier{.cta}.{sync,arrive,red}{.aligned},
    and near misses (qualifiers in other places, types, repeats)."""
    for name in ("bar", "barrier"):
        for op in ("sync", "arrive", "red.popc.u32", "red.and.pred", "red.or.pred", "wait"):
            for quals in ((), ("aligned",), ("cta",), ("cta", "aligned"), ("aligned", "aligned"),
                          ("b32",), ("sync",), ("gpu",)):
                cta = ("cta",) if "cta" in quals else ()
                rest = tuple(q for q in quals if q != "cta")
                yield ".".join((name,) + cta + (op,) + rest)
                yield ".".join((name,) + rest + (op,))
                yield ".".join((name, op) + quals)
                yield ".".join((name,) + quals + (op,))
    yield "bar"
    yield "barrier"


def atomic_spellings():
    """PTX ISA 9.0, 9.7.13.5-6: atom/red{.sem}{.scope}{.space}.op.type, the
    op x type grid on global memory, the sem x scope x space grid on
    add.u32, and orders."""
    ops = ("and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max", "sub")
    types = ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64", "b16")
    for name in ("atom", "red"):
        for op in ops:
            for ty in types:
                yield f"{name}.global.{op}.{ty}"
                yield f"{name}.{op}.{ty}"
        for sem in ("", "relaxed", "acquire", "release", "acq_rel", "weak", "volatile"):
            for scope in ("", "cta", "cluster", "gpu", "sys"):
                for space in ("", "global", "shared", "shared::cta", "shared::cluster", "local"):
                    yield ".".join(t for t in (name, sem, scope, space, "add", "u32") if t)
        for ty in ("f16", "bf16", "f16x2", "bf16x2"):
            for quals in ("global.add.noftz", "global.noftz.add", "noftz.global.add", "global.add",
                          "add.noftz", "shared.add.noftz", "relaxed.gpu.global.add.noftz",
                          "global.min.noftz", "global.max.noftz", "global.add.noftz.noftz",
                          "global.add.noftz.ftz", "global.exch.noftz", "cluster.global.add.noftz"):
                yield f"{name}.{quals}.{ty}"
            yield f"{name}.global.add.{ty}.noftz"
        # The sm_90 vectors: every width on every type and op, spaces and orders.
        for ty in ("f32", "f16", "bf16", "f16x2", "bf16x2", "f64", "u32", "b32"):
            for width in ("v2", "v4", "v8"):
                for op in ("add", "min", "max", "exch"):
                    for quals in (f"global.{width}.{ty}.{op}.noftz", f"global.{width}.{ty}.{op}",
                                  f"{width}.{ty}.{op}.noftz", f"shared.{width}.{ty}.{op}.noftz",
                                  f"relaxed.gpu.global.{op}.noftz.{width}.{ty}", f"global.{op}.{width}.{ty}"):
                        yield f"{name}.{quals}"
        for order in ("add.global.u32", "global.u32.add", "gpu.relaxed.global.add.u32",
                      "global.relaxed.gpu.add.u32", "relaxed.global.gpu.add.u32",
                      "global.global.add.u32", "add.add.u32", "relaxed.relaxed.add.u32"):
            yield f"{name}.{order}"


def shfl_spellings():
    """PTX ISA 9.0, 9.7.9.6: shfl.sync.mode.b32, and near misses (no sync,
    other types, orders, repeats, the pre-sm_70 shfl.mode)."""
    for mode in ("up", "down", "bfly", "idx", "xor", ""):
        for ty in ("b32", "u32", "s32", "f32", "b64", "b16", ""):
            for quals in (("sync", mode), (mode, "sync"), (mode,), ("sync",), ("sync", mode, "sync"),
                          ("sync", mode, mode), ("sync", mode, "aligned")):
                yield ".".join(("shfl",) + tuple(q for q in quals if q) + ((ty,) if ty else ()))
            yield ".".join(("shfl", "sync", ty, mode) if ty and mode else ("shfl",))


def warp_collective_spellings():
    """PTX ISA 9.0, 9.7.13.8-12: vote.sync.mode.type, match.mode.sync.type,
    redux.sync.op{.abs}{.NaN}.type, elect.sync, activemask.b32, each mode x
    type grid, and near misses (no sync, orders, repeats, other types)."""
    types = ("pred", "b32", "b64", "u32", "s32", "f32", "b16", "")
    for mode in ("all", "any", "uni", "ballot", "eq", ""):
        for ty in types:
            for quals in (("sync", mode), (mode, "sync"), (mode,), ("sync", mode, "sync"),
                          ("sync", mode, mode)):
                yield ".".join(("vote",) + tuple(q for q in quals if q) + ((ty,) if ty else ()))
            if mode in ("all", "any", "uni", ""):
                for quals in ((mode, "sync"), ("sync", mode), (mode,), (mode, "sync", "sync")):
                    yield ".".join(("match",) + tuple(q for q in quals if q) + ((ty,) if ty else ()))
    for op in ("add", "min", "max", "and", "or", "xor", "sub", ""):
        for ty in types:
            for quals in (("sync", op), (op, "sync"), (op,), ("sync", op, "sync"), ("sync", op, "abs"),
                          ("sync", op, "NaN"), ("sync", op, "abs", "NaN"), ("sync", op, "NaN", "abs"),
                          ("sync", op, "abs", "abs")):
                yield ".".join(("redux",) + tuple(q for q in quals if q) + ((ty,) if ty else ()))
            yield f"redux.sync.{ty}.{op}" if ty and op else "redux"
    for quals in ("sync", "", "sync.sync", "sync.b32", "sync.pred", "aligned.sync", "sync.aligned"):
        yield ".".join(t for t in ("elect", quals) if t)
    for ty in types:
        yield ".".join(t for t in ("activemask", ty) if t)
    yield "activemask.sync.b32"


def fence_spellings():
    """PTX ISA 9.0, 9.7.13.4: membar.level, fence{.sem}.scope and the proxy
    fences, every combination of the qualifiers and near misses (orders,
    repeats, membar's and fence's levels swapped, types)."""
    levels = ("cta", "gl", "sys", "gpu", "cluster", "")
    for level in levels:
        for extra in ((), ("cta",), ("sc",), ("b32",), ("sync",)):
            yield ".".join(("membar", level) + extra if level else ("membar",) + extra)
    for proxy in ("alias", "async", "tensormap", ""):
        for space in ("", "global", "shared::cta", "shared::cluster", "shared", "local"):
            for quals in (("proxy", proxy, space), (proxy, "proxy", space), ("proxy", space, proxy)):
                for name in ("membar", "fence"):
                    yield ".".join(t for t in (name,) + quals if t)
    for sem in ("", "sc", "acq_rel", "acquire", "release", "relaxed", "weak"):
        for scope in ("", "cta", "cluster", "gpu", "sys", "gl"):
            yield ".".join(t for t in ("fence", sem, scope) if t)
            yield ".".join(t for t in ("fence", scope, sem) if t)
            yield ".".join(t for t in ("fence", sem, sem, scope) if t)
    for order in ("mbarrier_init.release.cluster", "release.mbarrier_init.cluster",
                  "mbarrier_init.cluster.release", "mbarrier_init.release.cta", "mbarrier_init.cluster",
                  "mbarrier_init.acquire.cluster", "mbarrier_init.release.gpu"):
        yield f"fence.{order}"
    # The tensormap proxy fence: each semantics and scope, in either order,
    # the semantics or the scope left out, a space, repeated, moved.
    for sem, scope in itertools.product(("release", "acquire", "acq_rel", "sc", "relaxed", ""),
                                        ("cta", "cluster", "gpu", "sys", "gl", "")):
        yield ".".join(t for t in ("fence.proxy.tensormap::generic", sem, scope) if t)
        yield ".".join(t for t in ("fence.proxy.tensormap::generic", scope, sem) if t)
    # tensormap.cp_fenceproxy: each scope and semantics, each required
    # qualifier left out, the spaces swapped, other orders.
    copy = ["global", "shared::cta", "tensormap::generic", "release", "gpu", "sync", "aligned"]
    for scope, sem in itertools.product(("cta", "cluster", "gpu", "sys", "gl"), ("release", "acquire", "acq_rel")):
        yield ".".join(["tensormap.cp_fenceproxy", "global", "shared::cta", "tensormap::generic", sem, scope,
                        "sync", "aligned"])
    for i in range(len(copy)):
        yield ".".join(["tensormap.cp_fenceproxy"] + copy[:i] + copy[i + 1:])
    for quals in (copy[2:] + copy[:2], [copy[1], copy[0]] + copy[2:], copy[:5] + ["aligned", "sync"],
                  ["global", "shared"] + copy[2:], copy + ["sync"]):
        yield ".".join(["tensormap.cp_fenceproxy"] + quals)
    for quals in ("release.gpu.global", "acquire.gpu.global", "release.release.gpu", "release.gpu.sync.aligned",
                  "tensormap::generic.proxy.release.gpu", "release.gpu.proxy.tensormap::generic",
                  "tensormap::generic.release.gpu", "proxy.tensormap.release.gpu", "proxy.generic.release.gpu"):
        yield f"fence.{quals}"


MMA_SHAPES = ("m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m8n8k4", "m8n8k16", "m16n8k64", "m8n8k32")
MMA_INPUTS = ("f16", "bf16", "tf32", "s8", "u8", "e4m3", "e5m2", "f64", "s4")


def mma_spellings():
    """PTX ISA 9.0, 9.7.14.5.14: mma.sync.aligned.shape.row.col{.satfinite}
    .dtype.atype.btype.ctype over the shape x input grid with every
    accumulator pair, and near misses (col.row, no sync, satfinite on
    floats, mixed inputs, the sm_70 m8n8k4 shape)."""
    accumulators = ("f16", "f32", "s32", "f64")
    for shape in MMA_SHAPES:
        for a in MMA_INPUTS:
            for b in (a, {"s8": "u8", "u8": "s8", "e4m3": "e5m2", "e5m2": "e4m3"}.get(a, "f16")):
                for d in accumulators:
                    for c in accumulators:
                        yield f"mma.sync.aligned.{shape}.row.col.{d}.{a}.{b}.{c}"
                yield f"mma.sync.aligned.{shape}.row.col.satfinite.s32.{a}.{b}.s32"
                yield f"mma.sync.aligned.{shape}.col.row.f32.{a}.{b}.f32"
                yield f"mma.sync.{shape}.row.col.f32.{a}.{b}.f32"
                yield f"mma.sync.aligned.{shape}.row.col.satfinite.f32.{a}.{b}.f32"
                yield f"mma.aligned.sync.{shape}.col.row.f32.{a}.{b}.f32"
    for layouts in ("row.row", "col.col", "row.col", "col.row"):
        yield f"mma.sync.aligned.m8n8k4.{layouts}.f32.f16.f16.f32"
    yield "mma.sync.aligned.row.col.f32.f16.f16.f32"


def matrix_spellings():
    """PTX ISA 9.0, 9.7.14.5.15-16: ldmatrix/stmatrix.sync.aligned.m8n8
    .num{.trans}.shared{::cta}.b16, and near misses (other shapes, counts,
    types and spaces, orders, no sync)."""
    for name in ("ldmatrix", "stmatrix"):
        for shape in ("m8n8", "m16n16", "m8n16", "m16n8"):
            for num in ("x1", "x2", "x4", "x8"):
                for trans in ("", "trans"):
                    for space in ("shared", "shared::cta", "global", ""):
                        for ty in ("b16", "b8", "b32"):
                            quals = [q for q in ("sync", "aligned", shape, num, trans, space) if q]
                            yield ".".join([name] + quals + [ty])
                yield f"{name}.aligned.sync.{shape}.{num}.shared.b16"
                yield f"{name}.sync.aligned.{num}.{shape}.shared.b16"
                yield f"{name}.sync.{shape}.{num}.shared.b16"
                # The sm_100a packed rows (dst_fmt.src_fmt), and their orders.
                for trans in ("", "trans."):
                    for src in ("b6x16_p32", "b4x16_p64", "b8"):
                        yield f"{name}.sync.aligned.{shape}.{num}.{trans}shared.b8x16.{src}"
                        yield f"{name}.sync.aligned.{shape}.{num}.{trans}b8x16.{src}"
                        yield f"{name}.sync.aligned.{shape}.{num}.{trans}shared.{src}.b8x16"


def async_group_spellings():
    """PTX ISA 9.0, 9.7.9.25.3: cp.async.commit_group, cp.async.wait_group
    N, cp.async.wait_all, and near misses (qualifiers, the bulk forms'
    names, a missing or extra immediate)."""
    for name in ("commit_group", "wait_group", "wait_all", "wait_group_read", "commit", "wait"):
        for extra in ("", "sync", "shared", "b32"):
            yield ".".join(t for t in ("cp", "async", name, extra) if t)


def async_copy_spellings():
    """PTX ISA 9.0, 9.7.9.25.3.1: cp.async.{ca,cg}.shared{::cta}.global
    {.L2::cache_hint}{.L2::prefetch}, with the spaces swapped or missing,
    other cache operators and the qualifiers moved."""
    for cache in ("ca", "cg", "cs", ""):
        for spaces in ("shared.global", "shared::cta.global", "global.shared", "shared", "shared::cluster.global"):
            for hint in ("", "L2::cache_hint"):
                for prefetch in ("", "L2::64B", "L2::128B", "L2::256B"):
                    yield ".".join(t for t in ("cp", "async", cache, spaces, hint, prefetch) if t)
    yield "cp.async.ca.L2::cache_hint.shared.global"
    yield "cp.async.L2::cache_hint.cg.shared.global"
    yield "cp.async.ca.shared.global.L2::cache_hint.L2::cache_hint"
    yield "cp.async.ca.shared.global.L2::128B.L2::cache_hint"


def async_copy_operands(tokens):
    """[dst], [src], cp-size 16, and the cache policy with .L2::cache_hint."""
    return [(8, 16, True), (8, 16, True), ("imm", 16, False)] + \
        ([(64, 1, False)] if "L2::cache_hint" in tokens else [])


MBARRIER_NAMES = ("mbarrier.init", "mbarrier.inval", "mbarrier.arrive", "mbarrier.arrive_drop",
                  "mbarrier.arrive.expect_tx", "mbarrier.arrive_drop.expect_tx", "mbarrier.expect_tx",
                  "mbarrier.complete_tx", "mbarrier.test_wait", "mbarrier.test_wait.parity",
                  "mbarrier.try_wait", "mbarrier.try_wait.parity", "mbarrier.pending_count",
                  "cp.async.mbarrier.arrive")


def mbarrier_spellings():
    """PTX ISA 9.0, 9.7.13.15 and 9.7.9.25.3.3: every mbarrier operation
    (and cp.async.mbarrier.arrive) with each semantics, scope, state space
    and .noComplete / .noinc, in the record's order and reversed, .b64 and
    near misses (.b32, a qualifier after the type)."""
    for name in MBARRIER_NAMES:
        for sem, scope, space, extra in itertools.product(
                ("", "release", "acquire", "relaxed"), ("", "cta", "cluster"),
                ("", "shared", "shared::cta", "shared::cluster"), ("", "noComplete", "noinc")):
            quals = [q for q in (sem, scope, space, extra) if q]
            yield ".".join([name] + quals + ["b64"])
            if len(quals) > 1:
                yield ".".join([name] + quals[::-1] + ["b64"])
        yield f"{name}.shared.b32"
        yield f"{name}.b64.shared"
        yield f"{name}.shared"
    for name in ("mbarrier.arrive", "mbarrier.arrive_drop"):
        yield f"{name}.shared.b64.noComplete"
        yield f"{name}.release.cta.expect_tx.shared.b64"
    yield "mbarrier.test_wait.shared.parity.b64"
    yield "mbarrier.try_wait.acquire.parity.cta.shared.b64"


def hopper_group_spellings():
    """PTX ISA 9.0, 9.7.15.6-7 and 9.7.19.4: wgmma.fence, commit_group and
    wait_group, setmaxnreg.inc/dec, with .sync and .aligned in each order,
    either alone or neither, and types near the ISA's .u32. The three
    targets refuse them all but setmaxnreg on sm_100a (wgmma is sm_90a's
    only): test_ptxas_diff.py assembles the legal ones on sm_90a."""
    for name in ("wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "wgmma.arrive",
                 "setmaxnreg.inc", "setmaxnreg.dec", "setmaxnreg"):
        for quals in ((), ("sync",), ("aligned",), ("sync", "aligned"), ("aligned", "sync")):
            for ty in (("u32", "s32", "b32", None) if name.startswith("setmaxnreg") else (None, "b32")):
                yield ".".join((name,) + quals + ((ty,) if ty else ()))


WGMMA_GROUPS = (  # (dtype, atype, btype, k): the PTX ISA's type groups
    [("f32", "f16", "f16", 16), ("f16", "f16", "f16", 16), ("f32", "bf16", "bf16", 16),
     ("f32", "tf32", "tf32", 8)]
    + [(d, a, b, 32) for d in ("f32", "f16") for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")]
    + [("s32", a, b, 32) for a in ("s8", "u8") for b in ("s8", "u8")]
    + [("s32", "b1", "b1", 256)])


def wgmma_spellings():
    """PTX ISA 9.0, 9.7.15.5.2: wgmma.mma_async of every type group at every
    N from 8 to 264 in steps of 4 (the legal ones are multiples of 8, or
    for s8/u8 and b1 8, 16, 24 and multiples of 16), with the group's
    qualifiers (.satfinite, .and.popc) present, absent and misplaced; each
    group at the other groups' K; type tuples across groups; .sync and
    .aligned in each order, alone or missing. The three targets refuse them
    all (wgmma is sm_90a's only): results_sm90a.json judges them there."""
    name = "wgmma.mma_async"
    for d, a, b, k in WGMMA_GROUPS:
        extra = ("and", "popc") if a == "b1" else ()
        for n in range(4, 268, 4):
            yield ".".join((name, "sync", "aligned", f"m64n{n}k{k}", d, a, b) + extra)
        for n in (8, 24, 136, 256):
            shape = f"m64n{n}k{k}"
            for other_k in (8, 16, 32, 64, 256):
                if other_k != k:
                    yield ".".join((name, "sync", "aligned", f"m64n{n}k{other_k}", d, a, b) + extra)
            yield ".".join((name, "sync", "aligned", shape, "satfinite", d, a, b) + extra)
            yield ".".join((name, "sync", "aligned", shape, d, a, b) + extra + ("satfinite",))
            yield ".".join((name, "aligned", "sync", shape, d, a, b) + extra)
            yield ".".join((name, "sync", shape, d, a, b) + extra)
            yield ".".join((name, "aligned", shape, d, a, b) + extra)
            yield ".".join((name, shape, d, a, b) + extra)
            yield ".".join((name, "sync", "aligned", d, a, b) + extra)
            yield ".".join((name, "sync", "aligned", shape, "sync", d, a, b) + extra)
            yield ".".join((name, shape, "sync", "aligned", d, a, b) + extra)
            yield ".".join((name, "sync", "aligned", shape, "satfinite", "satfinite", d, a, b) + extra)
            for ops in (("and",), ("popc",), ("popc", "and"), ("xor", "popc"), ("and", "popc")):
                if ops != extra:
                    yield ".".join((name, "sync", "aligned", shape, d, a, b) + ops)
            yield ".".join((name, "sync", "aligned", shape) + extra + (d, a, b))
            for rnd in ("rn", "ftz", "relu"):
                yield ".".join((name, "sync", "aligned", shape, rnd, d, a, b) + extra)
    kinds = ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "f32", "s32", "f64")
    for d in ("f16", "f32", "s32", "bf16", "f64"):
        for a in kinds:
            for b in kinds:
                k = {"tf32": 8, "f16": 16, "bf16": 16, "b1": 256}.get(a, 32)
                yield ".".join((name, "sync", "aligned", f"m64n16k{k}", d, a, b))
    yield "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16"
    yield "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16.f16"
    yield "wgmma.mma_async.sync.aligned.m64n16k16"


def wgmma_operands(tokens):
    """The PTX ISA's operands: D holds N/2 f32 or s32 registers per thread
    (N/4 f16x2), A four b32 registers or a b64 descriptor, B a descriptor,
    scale-d a predicate, then the group's immediates (scales, transposes)."""
    shape = next((t for t in tokens if re.fullmatch(r"m\d+n\d+k\d+", t)), "m64n16k16")
    n = int(re.search(r"n(\d+)", shape).group(1))
    types = [t for t in tokens[2:] if t in BITS or t in ("e4m3", "e5m2", "b1")]
    d = types[0] if types else "f32"
    a = types[1] if len(types) > 1 else "f16"
    d_regs = max(1, n // 4 if d == "f16" else n // 2)
    imms = [] if a in ("s8", "u8", "b1") else [("imm", 1, False)] * 2
    if a in ("f16", "bf16"):
        imms += [("imm", 0, False)] * 2
    return [(32, d_regs, False, False, False, True), (64, 1, False), (64, 1, False), (1, 1, False)] + imms


def mbarrier_operand_choices(tokens):
    """Renderings of an mbarrier operation's operands (PTX ISA 9.7.13.15):
    the object's address, and the state, counts, predicate and parity its
    operation takes; an arrival in each of its shapes (a state or the sink
    _, with or without a count)."""
    memory, u32, b64, pred, sink = (64, 1, True), (32, 1, False), (64, 1, False), (1, 1, False), ("sink", 0, False)
    name = ".".join(tokens[:3] if tokens[0] == "cp" else tokens[:2])
    if tokens[0] == "cp" or name == "mbarrier.inval":
        return [[memory]]
    if name == "mbarrier.init":
        return [[memory, u32]]
    if name in ("mbarrier.expect_tx", "mbarrier.complete_tx"):
        return [[memory, u32]]
    if name == "mbarrier.pending_count":
        return [[u32, b64]]
    if name in ("mbarrier.test_wait", "mbarrier.try_wait"):
        last = u32 if "parity" in tokens else b64
        return [[pred, memory, last]] + ([[pred, memory, last, u32]] if name == "mbarrier.try_wait" else [])
    if "expect_tx" in tokens:
        return [[b64, memory, u32], [sink, memory, u32]]
    return [[b64, memory], [b64, memory, u32], [sink, memory], [sink, memory, u32]]


def mma_operands(tokens):
    """The PTX ISA's fragment sizes: A holds M*K/32 elements per thread, B
    K*N/32 and C/D M*N/32, packed into 32-bit registers (two 16-bit, four
    8-bit, eight 4-bit values; one tf32) or 64-bit ones for f64."""
    shape = next((t for t in tokens if re.fullmatch(r"m\d+n\d+k\d+", t)), "m16n8k16")
    m, n, k = (int(x) for x in re.findall(r"\d+", shape))
    types = [t for t in tokens if t in BITS or t in ("e4m3", "e5m2", "s4")][-4:]
    if len(types) < 4:
        return [(32, 4, False), (32, 4, False), (32, 2, False), (32, 4, False)]
    per_reg = {"f16": 2, "bf16": 2, "tf32": 1, "s8": 4, "u8": 4, "e4m3": 4, "e5m2": 4, "s4": 8, "f64": 1,
               "f32": 1, "s32": 1}

    def reg(ty, elements):  # a fragment: braced even as one register
        return (64 if ty == "f64" else 32, max(1, elements // per_reg.get(ty, 1)), False, False, False, True)
    d, a, b, c = types
    return [reg(d, m * n // 32), reg(a, m * k // 32), reg(b, k * n // 32), reg(c, m * n // 32)]


def tma_spellings():
    """PTX ISA 9.0, 9.7.9.27: cp.async.bulk.tensor in tile mode, loads into
    shared::cluster or shared::cta and stores from shared::cta, 1d to 5d
    (and 0d, 6d), with and without .tile, each completion mechanism,
    .multicast::cluster and .L2::cache_hint, in the ISA's order and with
    the dimension and the completion moved; the spaces swapped or plain;
    cp.async.bulk.commit_group and wait_group{.read}; prefetch.tensormap in
    each state space and order."""
    spaces = (("shared::cluster", "global"), ("shared::cta", "global"), ("global", "shared::cta"),
              ("global", "shared::cluster"), ("shared", "global"), ("global", "shared"))
    for dim in ("0d", "1d", "2d", "3d", "4d", "5d", "6d"):
        for (dst, src), mode, completion, extra in itertools.product(
                spaces, ("", "tile"), ("mbarrier::complete_tx::bytes", "bulk_group", ""),
                ("", "multicast::cluster", "L2::cache_hint", "multicast::cluster.L2::cache_hint")):
            quals = [q for q in (dim, dst, src, mode, completion, extra) if q]
            yield ".".join(["cp.async.bulk.tensor"] + quals)
            if dim in ("2d", "3d") and completion:
                moved = [completion] + [q for q in quals if q not in (dim, completion)] + [dim]
                yield ".".join(["cp.async.bulk.tensor"] + moved)
    for name in ("cp.async.bulk.commit_group", "cp.async.bulk.wait_group"):
        for extra in ("", "read", "read.read", "sync", "b32"):
            yield ".".join(t for t in (name, extra) if t)
    for quals in (("tensormap",), ("param", "tensormap"), ("const", "tensormap"),
                  ("tensormap", "param"), ("global", "tensormap"), ("shared", "tensormap"),
                  ("param",), ("tensormap", "tensormap")):
        yield ".".join(("prefetch",) + quals)


def tma_prefetch_spellings():
    """PTX ISA 9.0, 9.7.9.27.2: cp.async.bulk.prefetch.tensor, 0d to 6d, with
    .L2 and .global in either order or one of them alone, with and without
    .tile, .im2col and .L2::cache_hint; at 2d the dimension moved last."""
    for dim in ("0d", "1d", "2d", "3d", "4d", "5d", "6d"):
        for level_space, mode, hint in itertools.product(
                (("L2", "global"), ("global", "L2"), ("L2",), ("global",)), ("", "tile", "im2col"),
                ("", "L2::cache_hint")):
            quals = [dim, *level_space] + [q for q in (mode, hint) if q]
            yield ".".join(["cp.async.bulk.prefetch.tensor"] + quals)
            if dim == "2d":
                yield ".".join(["cp.async.bulk.prefetch.tensor"] + quals[1:] + [dim])


def bulk_spellings():
    """PTX ISA 9.0, cp.async.bulk (not a tensor's): loads into
    shared::cluster or shared::cta from global, the copy from shared::cta
    into shared::cluster, stores from shared::cta to global; each
    completion mechanism, .multicast::cluster and .L2::cache_hint, in the
    ISA's order and with the completion moved first; the spaces swapped,
    plain or repeated."""
    spaces = (("shared::cluster", "global"), ("shared::cta", "global"), ("global", "shared::cta"),
              ("shared::cluster", "shared::cta"), ("global", "shared::cluster"), ("shared", "global"),
              ("global", "shared"), ("global", ""), ("shared::cluster", ""), ("global", "global"))
    for (dst, src), completion, extra in itertools.product(
            spaces, ("mbarrier::complete_tx::bytes", "bulk_group", ""),
            ("", "multicast::cluster", "L2::cache_hint", "multicast::cluster.L2::cache_hint", "cp_mask")):
        quals = [q for q in (dst, src, completion, extra) if q]
        yield ".".join(["cp.async.bulk"] + quals)
        if completion:
            yield ".".join(["cp.async.bulk", completion] + [q for q in quals if q != completion])

    # cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [srcMem], size{, policy}
    for quals in (("L2", "global"), ("global", "L2"), ("L2",), ("global",), ("L1", "global"),
                  ("L2", "shared::cta"), ("L2", "global", "L2::cache_hint"), ("L2::cache_hint", "L2", "global"),
                  ("L2", "global", "bulk_group"), ("L2", "global", "mbarrier::complete_tx::bytes")):
        yield ".".join(("cp.async.bulk.prefetch",) + quals)


def reduce_spellings():
    """PTX ISA 9.0, cp.reduce.async.bulk.tensor: 0d to 6d, each reduction
    (and mul, which is none), .tile, .im2col_no_offs or no load mode, each
    completion mechanism or none, .L2::cache_hint, the spaces in order,
    swapped or shared::cluster; the operation, the completion and the
    dimension moved; repeated qualifiers; no operation."""
    spaces = (("global", "shared::cta"), ("shared::cta", "global"), ("global", "shared::cluster"))
    ops = ("add", "min", "max", "inc", "dec", "and", "or", "xor", "mul", "")
    for dim, (dst, src), op, mode, completion, hint in itertools.product(
            ("0d", "1d", "2d", "3d", "5d", "6d"), spaces, ops, ("", "tile", "im2col_no_offs"),
            ("bulk_group", "mbarrier::complete_tx::bytes", ""), ("", "L2::cache_hint")):
        quals = [q for q in (dim, dst, src, op, mode, completion, hint) if q]
        yield ".".join(["cp.reduce.async.bulk.tensor"] + quals)
        if dim == "2d" and (dst, src) == ("global", "shared::cta") and op and completion == "bulk_group":
            yield ".".join(["cp.reduce.async.bulk.tensor", op] + [q for q in quals if q != op])
            yield ".".join(["cp.reduce.async.bulk.tensor"] + [q for q in quals if q != dim] + [dim])
            yield ".".join(["cp.reduce.async.bulk.tensor"] + quals + [op])
    yield "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.tile.bulk_group"


def bulk_operands(tokens):
    """The ISA's operands of a cp.async.bulk spelling the table rejects:
    [dstMem], [srcMem], size, [mbar]{, ctaMask}{, cache-policy} or a
    store's [dstMem], [srcMem], size{, cache-policy}{, byteMask}."""
    memory, policy, size = (8, 1, True), (64, 1, False), ("imm", 16, False)
    if "prefetch" in tokens:
        return [memory, size] + ([policy] if "L2::cache_hint" in tokens else [])
    if "bulk_group" in tokens:
        return ([memory, memory, size] + ([policy] if "L2::cache_hint" in tokens else [])
                + ([(16, 1, False)] if "cp_mask" in tokens else []))
    return ([memory, memory, size, (64, 1, True)]
            + ([(16, 1, False)] if "multicast::cluster" in tokens else [])
            + ([policy] if "L2::cache_hint" in tokens else []))


def cluster_barrier_spellings():
    """PTX ISA 9.0, 9.7.13.2: barrier.cluster.arrive{.release,.relaxed}
    {.aligned} and barrier.cluster.wait{.acquire}{.aligned}, in each order,
    with the other operation's semantics, repeated qualifiers and the
    operation moved."""
    for op, semantics in (("arrive", ("", "release", "relaxed", "acquire")),
                          ("wait", ("", "acquire", "release", "relaxed"))):
        for sem, aligned in itertools.product(semantics, ("", "aligned")):
            quals = [q for q in (sem, aligned) if q]
            yield ".".join(["barrier", "cluster", op] + quals)
            if len(quals) == 2:
                yield ".".join(["barrier", "cluster", op] + quals[::-1])
        yield f"barrier.cluster.aligned.{op}"
        yield f"barrier.cluster.{op}.aligned.aligned"
        yield f"barrier.cluster.{op}.sync"
    yield "barrier.cluster"
    yield "barrier.cluster.sync"


def tma_operands(tokens):
    """The ISA's operands of a cp.async.bulk.tensor or prefetch.tensormap
    spelling the table rejects: [dstMem], [tensorMap, {coords}], [mbar]
    {, ctaMask}{, cache-policy}, or a store's [tensorMap, {coords}],
    [srcMem]{, cache-policy}."""
    if tokens[0] == "prefetch":
        return [TENSOR_MAP]
    dims = next((int(t[0]) for t in tokens if re.fullmatch(r"\dd", t)), 2)
    coords = (32, max(dims, 1), False, False, False, True, False, True)
    memory, policy = (8, 1, True), (64, 1, False)
    if tokens[3] == "prefetch":
        # [tensorMap, {coords}]{, {im2colOffsets}}{, cache-policy}: the
        # offsets 16-bit, one fewer than two per dimension past the second.
        offsets = [(16, max(dims - 2, 1), False, False, False, True, False, False)] if "im2col" in tokens else []
        return [TENSOR_MAP, coords] + offsets + ([policy] if "L2::cache_hint" in tokens else [])
    if "bulk_group" in tokens:
        return [TENSOR_MAP, coords, memory] + ([policy] if "L2::cache_hint" in tokens else [])
    return ([memory, TENSOR_MAP, coords, (64, 1, True)]
            + ([(16, 1, False)] if "multicast::cluster" in tokens else [])
            + ([policy] if "L2::cache_hint" in tokens else []))


# A tensor map's address register, written in brackets.
TENSOR_MAP = (64, 1, False, False, False, False, True, False)


def spellings():
    seen = set()
    for gen in (arith_spellings, absneg_spellings, cvt_spellings, mov_spellings, ldst_spellings,
                minmax_spellings, bit_spellings, setp_selp_spellings, math_spellings,
                fma_mad_spellings, barrier_spellings, shfl_spellings, atomic_spellings,
                warp_collective_spellings, fence_spellings, mma_spellings, matrix_spellings,
                extended_int_spellings, set_spellings, grid_dependency_spellings, cache_line_spellings,
                prefetch_spellings,
                async_group_spellings, mbarrier_spellings, hopper_group_spellings, wgmma_spellings,
                tma_spellings, tma_prefetch_spellings, bulk_spellings, reduce_spellings, cluster_barrier_spellings,
                cache_hint_spellings, createpolicy_spellings, async_copy_spellings, ldu_spellings,
                async_store_spellings, async_reduce_spellings, multimem_spellings, address_value_spellings,
                tensormap_replace_spellings):
        for spelling in gen():
            if spelling not in seen:
                seen.add(spelling)
                yield spelling


def sm90a_spellings():
    """The spellings of the families that exist on sm_90a alone or from it
    (wgmma, setmaxnreg, tensormap.replace), which the three targets but
    sm_100a refuse."""
    seen = set()
    for gen in (hopper_group_spellings, wgmma_spellings, tensormap_replace_spellings):
        for spelling in gen():
            if spelling not in seen:
                seen.add(spelling)
                yield spelling


def legal_forms(target=None, one_per_qualifier_set=False):
    """The forms of every generated spelling the table accepts (on `target`,
    if given), overloads included. With `one_per_qualifier_set`, spellings
    that differ only in qualifier order (which mean the same) count once;
    the order of type tokens still matters (cvt.f16.f32 is not cvt.f32.f16)."""
    seen, forms = set(), []
    for spelling in spellings():
        tokens = spelling.split(".")
        key = spelling
        if one_per_qualifier_set:
            key = (tokens[0], tuple(sorted(tokens[1:])), tuple(t for t in tokens[1:] if t in BITS))
        if key in seen:
            continue
        try:
            forms.extend(ptx.overloads(spelling, target=target))
        except ptx.PTXFormError:
            continue
        seen.add(key)
    return forms


def natural_operands(spelling):
    """Operand (register bits, count, is_memory) guesses from the type tokens,
    for spellings the table rejects: the ISA's operands of the collective,
    asynchronous and barrier families, else of the arithmetic ones by
    their types, else of the register families."""
    tokens = spelling.split(".")
    types = [t for t in tokens[1:] if t in BITS or t == "pred"]
    vec = next((int(t[1:]) for t in tokens if re.fullmatch(r"v[248]", t)), 1)
    control = _control_operands(tokens, types, vec)
    if control is not None:
        return control
    if not types:
        return [(32, 1, False)] * 3
    arithmetic = _arithmetic_operands(tokens, types)
    return arithmetic if arithmetic is not None else _register_operands(tokens, types, vec)


def _control_operands(tokens, types, vec):
    """Warp collectives, fences, asynchronous copies, matrix moves, atomics
    and barriers; None for another family."""
    family = tokens[0]
    if family == "shfl":
        return [(32, 1, False)] * 5
    pred, u32 = (1, 1, False), (32, 1, False)
    if family == "vote":
        return [u32 if "ballot" in tokens else pred, pred, u32]
    if family == "match":
        return [u32, (64, 1, False) if "b64" in tokens else u32, u32]
    if family == "redux":
        return [(BITS.get(types[-1], 32) if types else 32, 1, False)] * 2 + [u32]
    if family == "elect":
        return [u32, (1, 1, False, False, True), u32]
    if family == "activemask":
        return [u32]
    sm90 = _sm90_memory_operands(tokens, types, vec)
    if sm90 is not None:
        return sm90
    if family in ("membar", "fence", "griddepcontrol", "trap", "exit"):
        return []
    if family in ("discard", "applypriority"):
        return [(8, 128, True), ("imm", 128, False)]  # one 128-byte line
    if family in ("prefetch", "prefetchu") and "tensormap" not in tokens:
        return [(8, 1, True)]  # the line's address
    if family == "nanosleep":
        return [(max(BITS.get(types[-1], 32), 16), 1, False)] if types else [(32, 1, False)]
    if family == "prefetch" or tokens[:4] == ["cp", "async", "bulk", "tensor"] or \
            tokens[:5] == ["cp", "async", "bulk", "prefetch", "tensor"] or \
            tokens[:5] == ["cp", "reduce", "async", "bulk", "tensor"]:
        return tma_operands(tokens)
    if tokens[:3] == ["cp", "async", "bulk"] and tokens[3] not in ("commit_group", "wait_group"):
        return bulk_operands(tokens)
    if tokens[:2] == ["cp", "async"] and len(tokens) > 2 and tokens[2] not in (
            "bulk", "mbarrier", "commit_group", "wait_group", "wait_all", "wait_group_read", "commit", "wait"):
        return async_copy_operands(tokens)
    if family == "cp" and "wait_group" in tokens:
        return [IMMEDIATE]
    if family == "wgmma" and "mma_async" in tokens:
        return wgmma_operands(tokens)
    if family == "wgmma":
        return [IMMEDIATE] if "wait_group" in tokens else []
    if family == "setmaxnreg":
        return [("imm", 32, False)]
    if family == "cp" and ("commit_group" in tokens or "wait_all" in tokens):
        return []
    if family == "mma":
        return mma_operands(tokens)
    if family in ("ldmatrix", "stmatrix"):
        # m16n16 matrices take 2 registers each; a lane's row is 16 bytes.
        count = next((int(t[1:]) for t in tokens if re.fullmatch(r"x\d", t)), 1) * (2 if "m16n16" in tokens else 1)
        regs = (32, count, False, False, False, True)
        memory = (16, 8, True) if "b16" in tokens else (8, 16, True)
        return [regs, memory] if family == "ldmatrix" else [memory, regs]
    if family in ("atom", "red"):
        reg = (max(BITS.get(types[-1], 32), 16), vec, False)
        memory = (BITS.get(types[-1], 32), vec, True)
        if family == "red":
            return [memory, reg]
        return [reg, memory, reg] + ([reg] if "cas" in tokens else [])
    if tokens[:2] == ["barrier", "cluster"]:
        return []
    if family in ("bar", "barrier"):
        # The ISA's operands: a barrier and a thread count, immediates.
        barrier, count = ("imm", 0, False), ("imm", 64, False)
        if "red" in tokens:
            dst = (1, 1, False) if "pred" in tokens else (32, 1, False)
            return [dst, barrier, count, (1, 1, False)]
        return [barrier, count] if "arrive" in tokens else [barrier]
    return None


def _sm90_memory_operands(tokens, types, vec):
    """The tensor-map copy and fence, multimem, st.async and red.async;
    None for another family."""
    if tokens[:2] == ["tensormap", "replace"]:
        # [addr], {ord,} new_val: an immediate for the enumerated fields.
        value = ("imm", 1, False) if {"elemtype", "interleave_layout", "swizzle_mode", "fill_mode",
                                      "swizzle_atomicity"} & set(tokens) else (BITS.get(types[-1], 32), 1, False)
        ordinal = [("imm", 0, False)] if {"box_dim", "global_dim", "global_stride", "element_stride"} & set(tokens) \
            else []
        return [(8, 1, True), *ordinal, value]
    if tokens[:2] == ["tensormap", "cp_fenceproxy"]:
        return [(8, 1, True), (8, 1, True), ("imm", 128, False)]  # [dst], [src], 128
    if tokens[0] == "fence" and "tensormap::generic" in tokens and "acquire" in tokens:
        return [(8, 1, True), ("imm", 128, False)]  # the tensor map's address and its 128 bytes
    bits = BITS.get(types[-1], 32) if types else 32
    memory, reg = (bits, vec, True), (max(bits, 16), vec, False)
    if tokens[0] == "multimem" and len(tokens) > 1:
        return [reg, memory] if tokens[1] == "ld_reduce" else [memory, reg]  # d, [a] or [a], b
    if tokens[:2] in (["st", "async"], ["red", "async"]):
        return [memory, reg, (64, 1, True)]  # [a], b, [mbar]
    return _address_value_operands(tokens)


def _address_value_operands(tokens):
    """isspacep p, a; cvta p, a; getctarank d, a: the address a register
    (not in brackets) of the spelling's size (64 bits without one); None
    for another family."""
    address = (32 if {"u32", "s32", "b32"} & set(tokens) else 64, 1, False)
    if tokens[0] == "isspacep":
        return [(1, 1, False), address]
    if tokens[0] == "cvta":
        return [address, address]
    if tokens[0] == "getctarank":
        return [(32, 1, False), address]
    return None


def _arithmetic_operands(tokens, types):
    """add/sub/mul, abs/neg/mov and cvt by their types; None for another
    family."""
    family = tokens[0]
    if family in ("add", "sub", "mul"):
        if len(types) == 2:
            return [(BITS[types[0]], 1, False), (BITS[types[1]], 1, False), (BITS[types[0]], 1, False)]
        bits = BITS[types[-1]]
        dst = 2 * bits if "wide" in tokens and bits <= 64 else bits
        return [(dst, 1, False), (bits, 1, False), (bits, 1, False)]
    if family in ("abs", "neg", "mov"):
        if types[-1] == "pred":
            return [(1, 1, False)] * 2
        return [(max(BITS[types[-1]], 16), 1, False)] * 2
    if family == "cvt" and "pack" in tokens:
        return [(32, 1, False)] * (4 if tokens[-1] == "b32" else 3)
    if family == "cvt":
        if len(types) < 2:
            return [(32, 1, False)] * 2
        dst, src = types[-2], types[-1]
        width = {t: (BITS[t] if t == "e2m1x2" else max(BITS[t], 16)) for t in (dst, src)}
        if dst in PACKED_FROM_F32 and src == "f32":
            return [(width[dst], 1, False), (32, 1, False), (32, 1, False)]
        return [(width[dst], 1, False), (width[src], 1, False)]
    return None


def _register_operands(tokens, types, vec):
    """The register families (and ld/st, the fallback) by their last type."""
    family = tokens[0]
    reg = (max(BITS.get(types[-1], 1), 16), 1, False)
    if "pred" in tokens:
        reg = (1, 1, False)
    u32 = (32, 1, False)
    if family in ("fma", "mad"):
        wide = (min(2 * BITS.get(types[-1], 32), 64), 1, False)
        return [wide, reg, reg, wide] if "wide" in tokens else [reg] * 4
    if family in ("min", "max", "and", "or", "xor", "div", "rem", "copysign"):
        return [reg] * 3
    if family in ("not", "cnot", "brev", "sqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh"):
        return [reg] * 2
    if family == "testp":
        return [(1, 1, False), reg]
    if family in ("shl", "shr"):
        return [reg, reg, u32]
    if family in ("popc", "clz", "bfind"):
        return [u32, reg]
    if family == "bfe":
        return [reg, reg, u32, u32]
    if family == "bfi":
        return [reg, reg, reg, u32, u32]
    if family == "prmt":
        return [u32] * 4
    if family == "lop3":
        return [reg] * 4 + [IMMEDIATE]
    if family == "slct":
        dtype = types[0] if len(types) == 2 else types[-1]
        data = (1, 1, False) if dtype == "pred" else (max(BITS[dtype], 16), 1, False)
        return [data] * 3 + [(max(BITS.get(types[-1], 32), 16), 1, False)]
    if family == "set":
        if len(types) < 2:
            return [u32] * 3
        width = {t: (1, 1, False) if t == "pred" else (max(BITS.get(t, 32), 16), 1, False) for t in types[:2]}
        combined = any(t in ("and", "or", "xor") for t in tokens)
        return [width[types[0]], width[types[1]], width[types[1]]] + ([(1, 1, False)] if combined else [])
    if family in ("mul24", "rsqrt", "addc", "subc"):
        return [reg] * (2 if family == "rsqrt" else 3)
    if family in ("mad24", "sad", "madc"):
        return [reg] * 4
    if family == "movmatrix":
        return [u32, u32]
    if family in ("dp4a", "dp2a", "fns", "shf"):
        return [u32] * 4
    if family in ("bmsk", "szext"):
        return [reg, u32, u32]
    pred = (1, 1, False)
    if family == "setp":
        combined = any(t in ("and", "or", "xor") for t in tokens)
        dst = (1, 2, False, True) if types[-1].endswith("x2") else pred
        return [dst, reg, reg] + ([pred] if combined else [])
    if family == "selp":
        return [reg, reg, reg, pred]
    bits = max(BITS[types[-1]], 16)
    policy = [(64, 1, False)] if "L2::cache_hint" in tokens else []
    if family in ("ld", "ldu"):
        return [(bits, vec, False), (bits, vec, True)] + policy
    return [(bits, vec, True), (bits, vec, False)] + policy


# An immediate operand, written as its first legal value (1 when any small
# value is legal).
IMMEDIATE = ("imm", 1, False)


def natural_operand_choices(spelling):
    """natural_operands, then the same with the 8-bit integer operands of a
    cvt in 8-bit registers: the PTX ISA lets an 8-bit type sit in a
    register of 8 bits or more; an mbarrier operation's every shape."""
    tokens = spelling.split(".")
    if tokens[0] == "tcgen05":
        yield from tcgen05.operand_choices(tokens)
        return
    if tokens[0] == "mbarrier" or tokens[:3] == ["cp", "async", "mbarrier"]:
        yield from mbarrier_operand_choices(tokens)
        return
    if tokens[0] == "createpolicy":
        yield from createpolicy_operands(tokens)
        return
    first = natural_operands(spelling)
    yield first
    tokens = spelling.split(".")
    types = [t for t in tokens[1:] if t in BITS]
    if tokens[0] == "cvt" and "pack" not in tokens and len(types) >= 2 and len(first) == 2:
        narrow = [(8 if BITS[t] == 8 and t.startswith(("s", "u", "b")) else op[0], *op[1:])
                  for t, op in zip(types[-2:], first)]
        if narrow != first:
            yield narrow


def table_operands(form):
    # An immediate that sizes memory operands with no listed values (a bulk
    # copy's size, a multiple of 16) takes 16.
    sizes = {op.sized_by for op in form.operands if op.sized_by}

    def immediate(op):
        return (op.immediates or ((16,) if op.name in sizes else (1,)))[0]
    return [("sink", 0, False)] * form.sink_result + [("imm", immediate(op), False) if op.role == "imm" else
            (64, 1, False) if form.address_value and op.space != "reg" else  # the address itself: %rd1
            (op.register_bits if op.space == "reg" else op.bits, op.count, op.space != "reg",
             op.joined_by_bar, op.bar_before, op.braced, op.address, op.within_address)
            for op in form.operands]


# Disagreements that are decisions, not bugs: the spelling, and why.
EXPLAINED = [
    (re.compile(r"^(addc|subc|madc)\.((hi|lo)\.)?([us]16|sat\.s32|s32\.sat)$"),
     "the PTX ISA defines addc, subc and madc on u32, s32, u64 and s64 without .sat; ptxas (CUDA 13.0) "
     "also takes 16-bit types (without .cc) and .sat on s32, with no semantics written: the table keeps "
     "the ISA's forms"),
    (re.compile(r"^(ld|st)\..*\bv8\.[bus](8|16)$"),
     "PTX defines .v8 for 32-bit elements; ptxas (CUDA 13.0) accepts 8- and 16-bit "
     "elements in a toy kernel but crashes (SIGSEGV) on a real 16-bit load and "
     "moves one of eight 8-bit elements (tools/conformance); the table rejects them"),
]


EXPLAINED.append(
    (re.compile(r"^testp\.(f32|f64)$"),
     "the PTX ISA requires a test (testp.op.type: finite, infinite, number, notanumber, normal, "
     "subnormal); ptxas 13.0 also takes testp.type with none, which no document defines, so the "
     "table keeps the ISA's rule"))


EXPLAINED.append(
    (re.compile(r"^fma(\.[a-z0-9]+)*\.(rz|rm|rp)(\.[a-z0-9]+)*\.bf16(x2)?$"),
     "the PTX ISA defines fma.rn for bf16 only; ptxas 13.0 also takes rz, rm and rp and computes "
     "them as an f16 fma of the same bits (75-85% wrong on an H200, tools/conformance), so the "
     "table rejects them"))


EXPLAINED.append(
    (re.compile(r"^stmatrix\.(.*\.)?m16n8\..*(b8x16\.b8|b8\.b8x16)$"),
     "the PTX ISA defines stmatrix.m16n8 with the type .b8 alone; ptxas 13.0 also takes a .b8x16 beside "
     "it, which the ISA gives ldmatrix's packed rows only; the table follows the ISA"))


EXPLAINED.append(
    (re.compile(r"^wgmma\.(fence|commit_group|wait_group)\.sync$"),
     "the PTX ISA spells wgmma.fence, commit_group and wait_group .sync.aligned; ptxas 13.0 also "
     "takes them without .aligned (sm_90a), which the ISA does not define, so the table keeps its rule"))
EXPLAINED.append(
    (re.compile(r"^wgmma\.mma_async\.(?!(.*\.)?aligned(\.|$))(.*\.)?sync(\.|$)"),
     "the PTX ISA spells wgmma.mma_async .sync.aligned; ptxas 13.0 also takes it without .aligned "
     "(sm_90a), which the ISA does not define, so the table keeps its rule"))
EXPLAINED.append(
    (re.compile(r"^tcgen05\.(ld|st)\.(?!(.*\.)?aligned(\.|$))(.*\.)?sync(\.|$)"),
     "the PTX ISA spells tcgen05.ld and tcgen05.st .sync.aligned; ptxas 13.0 also takes them without "
     ".aligned (sm_100a, sm_100f, sm_103a), which the ISA does not define, so the table keeps its rule"))
EXPLAINED.append(
    (re.compile(r"^tcgen05\.(?!cp\.)(.*\.)?(b8x16|b6x16_p32|b4x16_p64)(\.|$)"),
     "ptxas 13.0 ignores tcgen05.cp's decompression formats (.b8x16, .b6x16_p32, .b4x16_p64) written on "
     "another tcgen05 instruction; the PTX ISA defines them on tcgen05.cp alone, so the table rejects them"))
EXPLAINED.append(
    (re.compile(r"^prefetch\.(L2::evict_(last|normal))$"),
     "the PTX ISA writes prefetch's eviction priority with .global (prefetch.global.L2::evict_last); ptxas "
     "13.0 also takes it with no space, which the table refuses"))
EXPLAINED.append(
    (re.compile(r"^setmaxnreg\.(inc|dec)\.(sync\.aligned|aligned\.sync)\.s32$"),
     "the PTX ISA defines setmaxnreg with .u32; ptxas 13.0 also takes .s32, which the table rejects"))

EXPLAINED.append(
    (re.compile(r"^cp\.async\.bulk\.(?!tensor)(.*\.)?(cta|cluster|gpu|sys)(\.|$)"),
     "ptxas 13.0 also takes a scope (.cta, .cluster, .gpu, .sys) on cp.async.bulk, which the PTX ISA 9.0 "
     "does not define; the table keeps the ISA's syntax"))
EXPLAINED.append(
    (re.compile(r"^cp\.reduce\.async\.bulk\.tensor\.(.*\.)?im2col_no_offs(\.|$)"),
     "cp.reduce.async.bulk.tensor's .im2col_no_offs (3d-5d) is not in the table yet (docs/families/tma.md)"))
EXPLAINED.append(
    (re.compile(r"^cp\.async\.bulk\.prefetch\.tensor\.(.*\.)?im2col(\.|$)"),
     "cp.async.bulk.prefetch.tensor's .im2col (3d-5d, with im2col offsets) is not in the table yet "
     "(docs/families/tma.md)"))
EXPLAINED.append(
    (re.compile(r"^cp\.async\.bulk\.(?!tensor)(.*\.)?cp_mask(\.|$)"),
     "cp.async.bulk's .cp_mask (sm_100, a byte mask) is not in the table yet (docs/families/tma.md)"))


EXPLAINED.append(
    (re.compile(r"^st\.async\.(.*\.)?(shared::cta|shared)(\.|$)"),
     "the PTX ISA 9.0 defines st.async's state space as .shared::cluster; ptxas 13.0 also takes .shared::cta and "
     ".shared (then without a completion mechanism too), which no document defines, so the table keeps the ISA's"))


EXPLAINED.append(
    (re.compile(r"^red\.async\..*\.add\.s64$"),
     "the PTX ISA 9.0 defines red.async's add on .u32, .s32 and .u64; ptxas 13.0 also takes .s64 (the same bits "
     "as .u64), which the ISA does not write, so the table keeps the ISA's types"))


EXPLAINED.append(
    (re.compile(r"^getctarank\.((shared::cluster\.)?u32|u32\.shared::cluster)$"),
     "getctarank.u32 takes its address in a 32-bit register (ptxas 13.0 refuses a 64-bit one); a view's address "
     "in tile-mlir is 64 bits (.address_size 64), so the table has the .u64 forms"))
EXPLAINED.append(
    (re.compile(r"^getctarank\.(.*\.)?s(32|64)(\.|$)"),
     "the PTX ISA 9.0 defines getctarank's type as .u32 or .u64; ptxas 13.0 also takes .s32 and .s64, which the ISA "
     "does not write, so the table keeps the ISA's types"))


EXPLAINED.append(
    (re.compile(r"^multimem\.red\.(.*\.)?acc::f(16|32)(\.|$)"),
     "the PTX ISA 9.0 writes no accumulation precision on multimem.red; ptxas 13.0 takes .acc::f16 and .acc::f32 "
     "on every red (integer and f64 ones too), so the table keeps the ISA's syntax"))


def explanation(spelling):
    return next((why for pattern, why in EXPLAINED if pattern.search(spelling)), None)


REG = {1: "%p", 8: "%b", 16: "%h", 32: "%r", 64: "%rd", 128: "%q"}


def render(spelling, operands):
    texts = []
    for i, (bits, count, memory, *bar) in enumerate(operands):
        if bits == "imm":
            texts.append(str(count))
            continue
        if bits == "sink":
            texts.append("_")
            continue
        if memory:
            texts.append("[%rd0]")
            continue
        prefix = REG.get(bits, "%r")
        regs = [f"{prefix}{i * 8 + k + 1}" for k in range(count)]
        braced = count > 1 or (len(bar) > 2 and bar[2])
        text = "|".join(regs) if bar and bar[0] else "{" + ", ".join(regs) + "}" if braced else regs[0]
        if len(bar) > 3 and bar[3]:  # an address register: [%rd1]
            text = f"[{text}]"
        if len(bar) > 4 and bar[4] and texts and texts[-1].endswith("]"):  # [%rd1, {%r1, %r2}]
            texts[-1] = texts[-1][:-1] + ", " + text + "]"
            continue
        if len(bar) > 1 and bar[1] and texts:  # d|p
            texts[-1] += "|" + text
            continue
        texts.append(text)
    return f"{spelling} {', '.join(texts)};"


HEADER = """.version {version}
.target {target}
.address_size 64
.visible .entry k() {{
  .reg .b8 %b<40>; .reg .b16 %h<80>; .reg .b32 %r<160>; .reg .b64 %rd<80>; .reg .b128 %q<40>; .reg .pred %p<80>;
"""


def assemble(lines, target, workdir, version=PTX_VERSION):
    """Returns {index: message} for the `lines` that ptxas rejects."""
    path = os.path.join(workdir, f"batch_{target}.ptx")
    header = HEADER.format(version=f"{version // 10}.{version % 10}", target=target)
    first = header.count("\n") + 1
    with open(path, "w") as f:
        f.write(header + "\n".join(lines) + "\nret;\n}\n")
    result = subprocess.run(["ptxas", f"-arch={target}", path, "-o", os.devnull],
                            capture_output=True, text=True)
    rejected = {}
    for match in re.finditer(r"line (\d+); error\s*:\s*(.*)", result.stdout + result.stderr):
        rejected.setdefault(int(match.group(1)) - first, match.group(2).strip())
    if result.returncode != 0 and not rejected:
        if len(lines) > 1:
            # ptxas died without naming a line (it crashes on some inputs):
            # find the culprits one by one.
            return {i: err for i, line in enumerate(lines)
                    for err in assemble([line], target, workdir, version).values()}
        rejected[0] = f"ptxas exited with {result.returncode} and no message"
    return rejected


def run(spelling_list, targets=TARGETS, batch=800):
    cases = []
    for spelling in spelling_list:
        try:
            form = ptx.parse(spelling)
            cases.append((spelling, form, [table_operands(form)], None))
        except ptx.PTXFormError as error:
            cases.append((spelling, None, list(natural_operand_choices(spelling)), str(error)))
            continue
        if form.family in ("mbarrier", "wgmma", "createpolicy", "tcgen05"):
            # Each operand shape of an mbarrier operation is a form of its
            # own, with its own floor (an arrival's count needs sm_90); so
            # is a wgmma's A in registers, a fractional policy with its
            # fraction written, and a tcgen05 column count in a register.
            for other in ptx.overloads(spelling)[1:]:
                cases.append((spelling, other, [table_operands(other)], None))
    report = {"spellings": len(spelling_list), "cases": len(cases), "targets": list(targets), "table_legal": 0,
              "agree": 0, "disagreements": [], "explained": []}
    with tempfile.TemporaryDirectory() as workdir:
        for target in targets:
            # A form the table accepts is assembled at the PTX ISA version the
            # table says it needs, so the version floors are checked too.
            groups = {}
            for case in cases:
                spelling, form, ops, error = case
                if form is not None:
                    try:
                        there = ptx.overloads(spelling, target=target)
                        if form.operands not in [f.operands for f in there]:
                            raise ptx.PTXFormError(f"{spelling} with {len(form.operands)} operands is not "
                                                   f"on {target}")
                    except ptx.PTXFormError as floor_error:
                        form, error = None, str(floor_error)
                version = max(form.min_ptx, TARGET_PTX[target]) if form else PTX_VERSION
                groups.setdefault(version, []).append((spelling, form, ops, error))
            for version, group in sorted(groups.items()):
              for start in range(0, len(group), batch):
                chunk = group[start:start + batch]
                # Each case has its renderings (a rejected spelling may have
                # several); the first goes in the batch, the others are tried
                # only when ptxas rejects it.
                rejected = assemble([render(s, ops[0]) for s, _, ops, _ in chunk],
                                    target, workdir, version)
                for i, (spelling, form, ops, error) in enumerate(chunk):
                    table_ok = form is not None
                    report["table_legal"] += table_ok
                    ptxas_ok = i not in rejected
                    if table_ok == ptxas_ok:
                        report["agree"] += 1
                        continue
                    # Re-check alone, so a neighbour's error cannot mislead.
                    for rendering in ops:
                        alone = assemble([render(spelling, rendering)], target, workdir, version)
                        ptxas_ok = 0 not in alone
                        if ptxas_ok:
                            break
                    ops = rendering
                    if table_ok == ptxas_ok:
                        report["agree"] += 1
                        continue
                    entry = report["explained"] if explanation(spelling) else report["disagreements"]
                    entry.append({
                        "spelling": spelling, "target": target, "ptx_version": version,
                        "table": "accepts" if table_ok else "rejects",
                        "table_error": error, "ptxas_error": alone.get(0),
                        "line": render(spelling, ops),
                        **({"why": explanation(spelling)} if explanation(spelling) else {}),
                    })
    report["checks"] = len(cases) * len(targets)
    report["table_accepts_ptxas_rejects"] = sum(
        d["table"] == "accepts" for d in report["disagreements"])
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the JSON report here")
    parser.add_argument("--sm90a", action="store_true",
                        help="judge the sm_90a-only families (wgmma, setmaxnreg) on sm_90a instead")
    parser.add_argument("--sm100", action="store_true",
                        help="judge tcgen05 (tcgen05.py) on the targets that have it and two that do not")
    parser.add_argument("--sample", type=int, default=0,
                        help="check a deterministic sample of this many spellings")
    args = parser.parse_args(argv)
    cases = list(sm90a_spellings() if args.sm90a else tcgen05.spellings() if args.sm100 else spellings())
    if args.sample:
        cases = random.Random(1).sample(cases, min(args.sample, len(cases)))
    targets = ("sm_90a",) if args.sm90a else tcgen05.TARGETS if args.sm100 else TARGETS
    report = run(cases, targets=targets)
    text = json.dumps(report, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(f"{report['spellings']} spellings x {len(report['targets'])} targets: "
          f"{report['agree']} agree, {len(report['explained'])} explained, "
          f"{len(report['disagreements'])} disagree "
          f"({report['table_accepts_ptxas_rejects']} accepted by the table but rejected by ptxas)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
