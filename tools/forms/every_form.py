#!/usr/bin/env python3
"""Lowers every form the table's enumerator lists for a target (of ld and
st, six per state space, vector width and type: selection.py) through
tile-mlir and assembles the PTX with ptxas.

One kernel per spelling: its register sources are loaded from global memory
(ld.global.bN), the form is applied over a (2, count) tile, and register
destinations are stored back (st.global.bN), so no instruction is dead.

    python tools/forms/every_form.py --target sm_90
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from types import SimpleNamespace

from tile_mlir import compile_module

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predicates  # noqa: E402
import selection  # noqa: E402

REPEATS = 2


def carrier(operand):
    return f"i{operand.bits}"


def memref(operand, space, repeated=True):
    """The tile of `operand`'s registers over REPEATS repeats, or over none
    (a TMA copies one box)."""
    suffix = f", {space}" if space else ""
    repeats = f"{REPEATS}x" if repeated else ""
    return f"memref<{repeats}{operand.count}x{carrier(operand)}{suffix}>"


def tensor_map(i, op, dims, args, body):
    """A TMA's tensor map: a global tensor of 16-bit elements, its map
    parameter and tile.tensor_map with a box of 1 x ... x 8 elements (16
    bytes, the least the innermost axis may span)."""
    shape = "x".join(["4"] * (dims - 1) + ["64"])
    box = ", ".join(["1"] * (dims - 1) + ["8"])
    args += [f"%g{i}: memref<{shape}xi16, 1>", f"%map{i}: !llvm.ptr"]
    body.append(f"%tm{i} = tile.tensor_map %map{i} for %g{i} {{box = array<i64: {box}>, swizzle = 0 : i64}} "
                f": memref<{shape}xi16, 1>")
    return f"memref<{'x'.join(['1'] * (dims - 1) + ['8'])}xi16, #gpu.address_space<workgroup>>"


def copy_bytes(imm):
    """The value of an immediate that sizes memory operands: its first
    listed value (cp.async's cp-size), else 16 (a bulk copy's size, any
    multiple of 16)."""
    return (imm.immediates or (16,))[0]


def sized(form):
    """A form's memory operands sized by an immediate (cp.async's cp-size)
    hold that many bytes: the operand as one of `value` 8-bit elements, the
    value the kernel passes."""
    out = list(form.operands)
    for i, op in enumerate(out):
        if op.sized_by:
            imm = next(o for o in out if o.name == op.sized_by)
            out[i] = SimpleNamespace(**{**op.__dict__, "count": copy_bytes(imm), "bits": 8})
    return out


def move(family, op):
    """A global load or store of a whole (REPEATS, count) tile of `op`."""
    vec = f".v{op.count}" if op.count > 1 else ""
    return f"{family}.global{vec}.b{op.bits}"


# The widest vector a global load or store moves; a longer operand
# (tcgen05.ld's up to 128 registers) moves one register a repeat.
WIDEST_MOVE = 4


def moves(family, op, tile, tile_type, memory, memory_type, name):
    """The lines that load (family "ld") or store ("st") the whole register
    tile `tile` from or to the global `memory`: one vector move, or, past
    WIDEST_MOVE registers, one register a repeat through (REPEATS, count,
    1) views of both."""
    if op.count <= WIDEST_MOVE:
        operands = (tile, memory) if family == "ld" else (memory, tile)
        types = (tile_type, memory_type) if family == "ld" else (memory_type, tile_type)
        return [f'tile.apply "{move(family, op)}"({", ".join(operands)}) : {", ".join(types)}']
    views = []
    for value, ty, suffix in ((tile, tile_type, "r"), (memory, memory_type, "g")):
        viewed = ty.replace(f"x{op.count}x", f"x{op.count}x1x")
        views.append((f"%{suffix}{name}", viewed))
    lines = [f"{v} = memref.expand_shape {value} [[0], [1, 2]] output_shape [{REPEATS}, {op.count}, 1] : {ty} into {vt}"
             for (v, vt), value, ty in zip(views, (tile, memory), (tile_type, memory_type))]
    (r, rt), (g, gt) = views
    scalar = f"{family}.global.b{op.bits}"
    lines.append(f'tile.apply "{scalar}"({r}, {g}) : {rt}, {gt}' if family == "ld" else
                 f'tile.apply "{scalar}"({g}, {r}) : {gt}, {rt}')
    return lines


def fragment_types(op, lanes):
    """A fragment's register tile, its register-by-register view and the
    global tensor it travels through: with `lanes` (32) a warp's mma
    fragment, without (0) a wgmma's at scope thread."""
    shape = f"{lanes}x1x1x{op.count}" if lanes else f"1x1x{op.count}"
    return (f"memref<{shape}x{carrier(op)}, 5>", f"memref<{shape}x1x{carrier(op)}, 5>",
            f"memref<{shape}x1x{carrier(op)}, 1>")


def words(op):
    """The 16-bit words a predicate operand is staged in."""
    return SimpleNamespace(bits=16, count=op.count)


@dataclass
class Parts:
    """A kernel's text as it is built: its arguments, workgroup
    attributions, body lines, the apply's operands (name, type; None: the
    box's), and each destination's (argument, lines) stored after it."""

    args: list = field(default_factory=list)
    attributions: list = field(default_factory=list)
    body: list = field(default_factory=list)
    operands: list = field(default_factory=list)
    after: list = field(default_factory=list)


def _coordinates(k, i, op, repeated):
    """A TMA's coordinates: a tile of zeros inside the address."""
    tile = memref(op, "5", repeated)
    k.body.append(f"%t{i} = memref.alloca() : {tile}")
    k.body.append(f"%zero{i} = arith.constant 0 : i32")
    k.body += [f"%at{i}_{c} = arith.constant {c} : index\n      "
               f"memref.store %zero{i}, %t{i}[%at{i}_{c}] : {tile}" for c in range(op.count)]
    k.operands.append((f"%t{i}", tile))


def _predicate(k, i, op):
    """A predicate tile, staged through 16-bit words in global memory."""
    tile, word = predicates.predicate_tile(REPEATS, op.count), memref(words(op), "5")
    k.body.append(f"%t{i} = memref.alloca() : {tile}")
    if op.role in ("src", "rw"):
        k.args.append(f"%in{i}: {memref(words(op), '1')}")
        k.body.append(f"%w{i} = memref.alloca() : {word}")
        k.body.append(f'tile.apply "{move("ld", words(op))}"(%w{i}, %in{i}) : {word}, '
                      f'{memref(words(op), "1")}')
        k.body += predicates.from_words(f"%t{i}", f"%w{i}", REPEATS, op.count)
    if op.role in ("dst", "rw"):
        args_out = f"%out{i}: {memref(words(op), '1')}"
        k.after.append((args_out, [f"%o{i} = memref.alloca() : {word}"]
                        + predicates.to_words(f"%o{i}", f"%t{i}", REPEATS, op.count)
                        + [f'tile.apply "{move("st", words(op))}"(%out{i}, %o{i}) : '
                           f'{memref(words(op), "1")}, {word}']))
    k.operands.append((f"%t{i}", tile))


def _fragment(k, i, op, form):
    """A fragment: (a warp's lanes for an mma, none for a wgmma at scope
    thread; one repeat per axis; registers), loaded and stored register by
    register."""
    warp = not form.warpgroup_collective
    tile, regs, glob = fragment_types(op, 32 if warp else 0)
    alloca_attr, scope_attr = (' {tile.scope = "warp"}', ' {scope = "warp"}') if warp else ("", "")
    dims = [32, 1, 1] if warp else [1, 1]
    groups = ", ".join(f"[{d}]" for d in range(len(dims))) + f", [{len(dims)}, {len(dims) + 1}]"
    k.body.append(f"%t{i} = memref.alloca(){alloca_attr} : {tile}")
    k.body.append(f"%r{i} = memref.expand_shape %t{i} [{groups}] output_shape "
                  f"[{', '.join(map(str, dims))}, {op.count}, 1] : {tile} into {regs}")
    if op.role in ("src", "rw"):
        k.args.append(f"%in{i}: {glob}")
        k.body.append(f'tile.apply "ld.global.b{op.bits}"(%r{i}, %in{i}){scope_attr} : {regs}, {glob}')
    if op.role in ("dst", "rw"):
        k.after.append((f"%out{i}: {glob}", [f'tile.apply "st.global.b{op.bits}"(%out{i}, %r{i})'
                                             f'{scope_attr} : {glob}, {regs}']))
    k.operands.append((f"%t{i}", tile))


def _memory(k, i, op, repeated):
    """A register tile loaded from global memory, or a memory operand in
    its state space."""
    if op.space == "reg":
        tile = memref(op, "5", repeated)
        k.body.append(f"%t{i} = memref.alloca() : {tile}")
        if op.role in ("src", "rw"):
            k.args.append(f"%in{i}: {memref(op, '1', repeated)}")
            k.body += moves("ld", op, f"%t{i}", tile, f"%in{i}", memref(op, "1", repeated), f"in{i}")
        k.operands.append((f"%t{i}", tile))
    elif op.space == "global":
        k.args.append(f"%m{i}: {memref(op, '1', repeated)}")
        k.operands.append((f"%m{i}", memref(op, "1", repeated)))
    elif op.space == "generic":
        k.args.append(f"%m{i}: {memref(op, None)}")
        k.operands.append((f"%m{i}", memref(op, None)))
    elif op.space in ("shared", "shared::cluster"):
        ty = memref(op, "#gpu.address_space<workgroup>", repeated)
        k.attributions.append(f"%m{i}: {ty}")
        k.operands.append((f"%m{i}", ty))
    else:  # local memory
        ty = memref(op, "5")
        k.body.append(f"%m{i} = memref.alloca() : {ty}")
        k.operands.append((f"%m{i}", ty))


def _operand(k, i, op, form, repeated, dims):
    """One operand's lines; a tensor map's box type, else None."""
    if op.address and op.bits == 64:  # a tensor map (a tensor-memory address is a b32)
        k.operands.append((f"%tm{i}", "i64"))
        return tensor_map(i, op, dims, k.args, k.body)
    if op.within_address:
        _coordinates(k, i, op, repeated)
    elif op.box:
        k.operands.append((f"%m{i}", None))
    elif form.warpgroup_collective and op.type == "pred":
        # wgmma's scale-d: a condition, the same for every step.
        k.body.append(f"%p{i} = arith.constant true")
        k.operands.append((f"%p{i}", "i1"))
    elif op.type == "pred":
        _predicate(k, i, op)
    elif op.role == "imm":
        sizes = any(o.sized_by == op.name for o in form.operands)
        value = copy_bytes(op) if sizes else (op.immediates or (op.max_immediate,))[0]
        k.body.append(f"%imm{i} = arith.constant {value} : i32")
        k.operands.append((f"%imm{i}", "i32"))
    elif op.axes:
        _fragment(k, i, op, form)
    else:
        _memory(k, i, op, repeated)
    return None


def kernel(index, form):
    """MLIR text of one kernel applying `form`, or None if the lowering does
    not support one of its operands (reported by the caller)."""
    k = Parts()
    if any(op.type == "pred" for op in form.operands):
        k.body += predicates.SCALARS
    # A TMA copies (or prefetches) one box, a bulk copy one run of bytes
    # beside its mbarrier: their operands are not repeated.
    repeated = not any(op.box or op.bulk or op.within_address for op in form.operands)
    dims = next((op.count for op in form.operands if op.within_address), 1)
    box_type = None
    for i, op in enumerate(sized(form)):
        box_type = _operand(k, i, op, form, repeated, dims) or box_type
    if any(op.box for op in form.operands):
        # The box, in a buffer aligned as an unswizzled box must start.
        box = next(i for i, op in enumerate(form.operands) if op.box)
        k.attributions.append(f"%m{box}: {box_type} {{llvm.align = 128 : i64}}")
        k.operands = [(name, ty or box_type) for name, ty in k.operands]
    _apply(k, form)
    workgroup = f" workgroup({', '.join(k.attributions)})" if k.attributions else ""
    lines = "\n      ".join(k.body)
    return (f"    gpu.func @k{index}({', '.join(k.args)}){workgroup} kernel {{\n"
            f"      {lines}\n      gpu.return\n    }}")


def _apply(k, form):
    """The apply of `form` on the operands, then its destinations stored."""
    names = ", ".join(name for name, _ in k.operands)
    types = ", ".join(ty for _, ty in k.operands)
    scope = ' {scope = "warp"}' if any(op.axes for op in form.operands) and not form.warpgroup_collective else ""
    if form.reads_carry:
        # A reader of the carry flag needs a writer before it in its block:
        # add.cc over its destination and first two sources (one type).
        k.body.append(f'tile.apply "add.cc.{form.opcode.rsplit(".", 1)[1]}"'
                      f'({", ".join(n for n, _ in k.operands[:3])}) : {", ".join(t for _, t in k.operands[:3])}')
    k.body.append(f'tile.apply "{form.opcode}"({names}){scope}' + (f" : {types}" if types else ""))
    for arg, lines in k.after:
        k.args.append(arg)
        k.body += lines
    for i, op in enumerate(form.operands):
        if op.type != "pred" and op.space == "reg" and op.role in ("dst", "rw") and not op.axes:
            k.args.append(f"%out{i}: {memref(op, '1')}")
            k.body += moves("st", op, f"%t{i}", memref(op, "5"), f"%out{i}", memref(op, "1"), f"out{i}")


def run(target, forms=None, workdir=None):
    """Returns (forms checked, list of problems)."""
    forms = selection.selected_forms(target) if forms is None else forms
    kernels = "\n".join(kernel(i, form) for i, form in enumerate(forms))
    module = (f'module attributes {{gpu.container_module}} {{\n'
              f'  gpu.module @forms [#nvvm.target<chip = "{target}">] {{\n{kernels}\n  }}\n}}\n')
    text = compile_module(module, chip=target)["forms"].decode()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(workdir or tmp, f"every_form_{target}.ptx")
        with open(path, "w") as f:
            f.write(text)
        result = subprocess.run(["ptxas", f"-arch={target}", path, "-o", os.devnull],
                                capture_output=True, text=True)
        if result.returncode != 0:
            problems.append(f"ptxas rejected the PTX:\n{result.stdout}{result.stderr}"[:4000])
    bodies = re.split(r"\.entry ", text)[1:]
    by_name = {re.match(r"(k\d+)", b).group(1): b for b in bodies}
    for i, form in enumerate(forms):
        if form.family == "barrier.cluster":
            # Through NVVM's operation, without the default .release and
            # .acquire (docs/families/clusters.md).
            tokens = form.opcode.split(".")
            printed = "barrier.cluster." + tokens[2] + (".relaxed" if "relaxed" in tokens else "") + \
                (".aligned" if "aligned" in tokens else "")
            found = re.findall(r"^\s*" + re.escape(printed) + ";$", by_name.get(f"k{i}", ""), re.M)
            if len(found) != 1:
                problems.append(f"{form.opcode}: expected one {printed} in k{i}")
            continue
        if form.block_barrier:
            # Printed by NVPTX from its convergent intrinsic under the ISA's
            # name (docs/families/bar.md).
            tokens = form.opcode.split(".")
            aligned = tokens[0] == "bar" or "aligned" in tokens
            reduction = next((t for t in tokens if t in ("popc", "and", "or")), None)
            operation = f"red.{reduction}.{tokens[-1]}" if reduction else \
                "arrive" if "arrive" in tokens else "sync"
            printed = ("bar." if aligned else "barrier.") + operation
            result = r"%\w+, " if reduction else ""
            # The id and the count: immediates, or registers (%r).
            number = r"(\d+|%r\d+)"
            found = re.findall(r"^\s*" + re.escape(printed) + r"\s+" + result + number + "(, " + number + ")?" +
                               (r", %\w+" if reduction else "") + ";$", by_name.get(f"k{i}", ""), re.M)
            # A form with register tiles (a reduction's result, a register
            # id or count) is one barrier per repeat.
            expected = REPEATS if any(o.space == "reg" and o.role != "imm" for o in form.operands) else 1
            if len(found) != expected:
                problems.append(f"{form.opcode}: expected {expected} {printed} in k{i}")
            continue
        if form.family == "shfl":
            # Through NVVM's convergent intrinsic, printed as written.
            found = re.findall(r"^\s*" + re.escape(form.opcode) + r"\s", by_name.get(f"k{i}", ""), re.M)
            if len(found) != REPEATS:
                problems.append(f"{form.opcode}: expected {REPEATS} instructions in k{i}")
            continue
        asm = re.findall(r"// begin inline asm\n(.*?)// end inline asm", by_name.get(f"k{i}", ""), re.S)
        pattern = re.compile(r"(^|\s)" + re.escape(form.opcode) + r"[\s;]")
        # A form without tiles (a fence, cp.async.wait_group's immediate; a
        # tensor map is not one, a tensor-memory address is) has nothing to
        # repeat over; an mma's fragments here are one (m, n, k)
        # step, a TMA's box (or a prefetch's) and a bulk copy's bytes one copy.
        tiles = [o for o in form.operands if o.role != "imm" and not (o.address and o.bits == 64)]
        # A register form is pure (docs/design.md): with no source, its
        # repeats are one computation, which LLVM keeps once
        # (createpolicy.fractional without a fraction).
        pure = not (form.reads_memory or form.writes_memory or form.warp_collective or form.observes_warp
                    or form.orders_memory or form.accesses_described_memory or form.accesses_tensor_memory)
        sourceless = not any(o.role in ("src", "rw") for o in form.operands)
        expected = 1 if not tiles or any(o.axes or o.box or o.bulk or o.within_address for o in form.operands) or (
            pure and sourceless) else REPEATS
        if sum(bool(pattern.search(block)) for block in asm) != expected:
            problems.append(f"{form.opcode}: expected {expected} instructions in k{i}")
    return len(forms), problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--keep", help="directory to keep the PTX in")
    args = parser.parse_args(argv)
    count, problems = run(args.target, workdir=args.keep)
    for problem in problems:
        print(problem)
    print(f"{args.target}: {count} forms lowered, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
