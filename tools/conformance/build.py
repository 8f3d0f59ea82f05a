#!/usr/bin/env python3
"""Builds the conformance bundle: one kernel per sm_90-legal form (one
spelling per set of qualifiers; reorderings mean the same), compiled here
with tile-mlir, to be run by run.py where there is a GPU but no MLIR.

Each kernel runs GRID x BLOCK threads; each thread applies the form to
REPEATS repeats loaded from global memory and stores the destinations.

    python tools/conformance/build.py build/conformance [family,family...]
"""

import base64
import json
import os
import sys

import tile_mlir
from tile_mlir import ptx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "forms"))
import predicates  # noqa: E402
from every_form import move, words  # noqa: E402
from selection import selected_forms  # noqa: E402

TARGET = "sm_90"
GRID, BLOCK, REPEATS = 8, 64, 4
THREADS = GRID * BLOCK


def memref(op, space):
    suffix = f", {space}" if space else ""
    return f"memref<{THREADS}x{REPEATS}x{op.count}xi{op.bits}{suffix}>"


def tile(op):
    return f"memref<{REPEATS}x{op.count}xi{op.bits}, 5>"


def slice_type(op, space):
    suffix = f", {space}" if space else ""
    return (f"memref<{REPEATS}x{op.count}xi{op.bits}, strided<[{op.count}, 1], offset: ?>{suffix}>")


def staging(op, space, family):
    vec = f".v{op.count}" if op.count > 1 else ""
    return f"{family}.{space}{vec}.b{op.bits}"


# lop3's tables: every single minterm (which fixes the bit order of a, b and
# c), their complements, the constants and common functions (majority 0xE8,
# three-way xor 0x96, select 0xCA, and each input alone).
LOP3_TABLES = sorted({1 << k for k in range(8)} | {0xFF ^ (1 << k) for k in range(8)} |
                     {0x00, 0xFF, 0xE8, 0x96, 0xCA, 0xF0, 0xCC, 0xAA})


def immediate_values(op):
    """The values an immediate operand is run with: all of a short list,
    else LOP3_TABLES (lop3's 0 to 255)."""
    return list(op.immediates) if op.immediates else [v for v in LOP3_TABLES if v <= op.max_immediate]


def instances(forms):
    """(form, {operand index: immediate}) for every form, one per value of
    its immediate."""
    for form in forms:
        imm = next((i for i, op in enumerate(form.operands) if op.role == "imm"), None)
        if imm is None:
            yield form, {}
            continue
        for value in immediate_values(form.operands[imm]):
            yield form, {imm: value}


def kernel(index, form, immediates):
    args, body, operands, after = [], [], [], []
    workgroup = []
    body.append("%bid = gpu.block_id x")
    body.append("%tid = gpu.thread_id x")
    body.append(f"%c{BLOCK} = arith.constant {BLOCK} : index")
    body.append(f"%base = arith.muli %bid, %c{BLOCK} : index")
    body.append("%t = arith.addi %base, %tid : index")

    def thread_slice(name, op, space):
        view = f"%{name}_t"
        body.append(f"{view} = memref.subview %{name}[%t, 0, 0] [1, {REPEATS}, {op.count}] [1, 1, 1] "
                    f": {memref(op, space)} to {slice_type(op, space)}")
        return view

    if any(op.type == "pred" for op in form.operands):
        body += predicates.SCALARS
    for i, op in enumerate(form.operands):
        if op.type == "pred":
            # Staged through 16-bit words (tools/forms/predicates.py).
            w = words(op)
            body.append(f"%r{i} = memref.alloca() : {predicates.predicate_tile(REPEATS, op.count)}")
            if op.role in ("src", "rw"):
                args.append(f"%in{i}: {memref(w, '1')}")
                view = thread_slice(f"in{i}", w, "1")
                body.append(f"%w{i} = memref.alloca() : {tile(w)}")
                body.append(f'tile.apply "{move("ld", w)}"(%w{i}, {view}) : {tile(w)}, {slice_type(w, "1")}')
                body += predicates.from_words(f"%r{i}", f"%w{i}", REPEATS, op.count)
            operands.append((f"%r{i}", predicates.predicate_tile(REPEATS, op.count)))
        elif op.role == "imm":
            body.append(f"%imm{i} = arith.constant {immediates[i]} : i32")
            operands.append((f"%imm{i}", "i32"))
        elif op.name == "cache-policy":
            # A policy's bits are the hardware's (createpolicy makes them):
            # every line evict_last, which moves no byte differently.
            body.append(f"%r{i} = memref.alloca() : {tile(op)}")
            body.append(f'tile.apply "createpolicy.fractional.L2::evict_last.b64"(%r{i}) : {tile(op)}')
            operands.append((f"%r{i}", tile(op)))
        elif op.space == "reg":
            body.append(f"%r{i} = memref.alloca() : {tile(op)}")
            if op.role in ("src", "rw"):
                args.append(f"%in{i}: {memref(op, '1')}")
                view = thread_slice(f"in{i}", op, "1")
                body.append(f'tile.apply "{move("ld", op)}"(%r{i}, {view}) : {tile(op)}, {slice_type(op, "1")}')
            operands.append((f"%r{i}", tile(op)))
        elif op.space in ("global", "generic"):
            space = "1" if op.space == "global" else None
            args.append(f"%m{i}: {memref(op, space)}")
            operands.append((thread_slice(f"m{i}", op, space), slice_type(op, space)))
        else:
            # Shared or local memory is staged: the global parameter in the
            # memory operand's place carries the data in (ld) or out (st).
            args.append(f"%m{i}: {memref(op, '1')}")
            data = thread_slice(f"m{i}", op, "1")
            if op.space in ("shared", "shared::cluster"):
                workgroup.append(f"%sh{i}: memref<{BLOCK}x{REPEATS}x{op.count}xi{op.bits}, "
                                 "#gpu.address_space<workgroup>>")
                body.append(f"%shv{i} = memref.subview %sh{i}[%tid, 0, 0] [1, {REPEATS}, {op.count}] "
                            f"[1, 1, 1] : memref<{BLOCK}x{REPEATS}x{op.count}xi{op.bits}, "
                            f"#gpu.address_space<workgroup>> to memref<{REPEATS}x{op.count}xi{op.bits}, "
                            f"strided<[{op.count}, 1], offset: ?>, #gpu.address_space<workgroup>>")
                buf, buf_t, space = (f"%shv{i}", f"memref<{REPEATS}x{op.count}xi{op.bits}, "
                                     f"strided<[{op.count}, 1], offset: ?>, #gpu.address_space<workgroup>>",
                                     "shared")
            else:
                buf, buf_t, space = f"%loc{i}", tile(op), "local"
                body.append(f"{buf} = memref.alloca() : {buf_t}")
            body.append(f"%stage{i} = memref.alloca() : {tile(op)}")
            if op.role == "src":  # ld: global -> registers -> buffer, then the form loads
                body.append(f'tile.apply "{move("ld", op)}"(%stage{i}, {data}) : {tile(op)}, {slice_type(op, "1")}')
                body.append(f'tile.apply "{staging(op, space, "st")}"({buf}, %stage{i}) : {buf_t}, {tile(op)}')
            else:  # st: the form stores, then the buffer goes back out through registers
                after.append(f'tile.apply "{staging(op, space, "ld")}"(%stage{i}, {buf}) : {tile(op)}, {buf_t}')
                after.append(f'tile.apply "{move("st", op)}"({data}, %stage{i}) : {slice_type(op, "1")}, {tile(op)}')
            operands.append((buf, buf_t))
    names = ", ".join(n for n, _ in operands)
    types = ", ".join(t for _, t in operands)
    body.append(f'tile.apply "{form.opcode}"({names}) : {types}')
    body.extend(after)
    for i, op in enumerate(form.operands):
        if op.space == "reg" and op.role in ("dst", "rw"):
            stored, value = op, f"%r{i}"
            if op.type == "pred":
                stored, value = words(op), f"%o{i}"
                body.append(f"{value} = memref.alloca() : {tile(stored)}")
                body += predicates.to_words(value, f"%r{i}", REPEATS, op.count)
            args.append(f"%out{i}: {memref(stored, '1')}")
            view = thread_slice(f"out{i}", stored, "1")
            body.append(f'tile.apply "{move("st", stored)}"({view}, {value}) : {slice_type(stored, "1")}, '
                        f'{tile(stored)}')
    lines = "\n      ".join(body)
    attribution = f" workgroup({', '.join(workgroup)})" if workgroup else ""
    return (f"    gpu.func @k{index}({', '.join(args)}){attribution} kernel attributes "
            f"{{known_block_size = array<i32: {BLOCK}, 1, 1>, known_grid_size = array<i32: {GRID}, 1, 1>}} {{\n"
            f"      {lines}\n      gpu.return\n    }}")


def main(out_dir, families=None):
    """Builds the bundle of every exact form, or of `families` only (a
    comma-separated list: a new family's run on the GPU)."""
    os.makedirs(out_dir, exist_ok=True)
    # Approximations have error bounds, not bit patterns: approx.py.
    # Block barriers have no per-element result (and a counted one would
    # wait for threads this launch lacks), fences and cp.async's groups none
    # at all, and its copies are judged by tools/gpu with their waits; shuffles,
    # warp collectives, activemask and atomics depend on other threads:
    # tools/gpu and the interpreter's tests judge them, as they judge the
    # bulk copies, TMA and mbarriers (tma_check, bulk_check, mbarrier_check:
    # a tensor map, a bulk size and a barrier's phase have no per-element
    # reference here). A createpolicy's
    # result is an encoding no document gives: the accesses that take one
    # are judged instead.
    exact = [f for f in selected_forms(TARGET)
             if not set(f.opcode.split(".")) & {"approx", "full"}
             and not (f.block_barrier or f.warp_collective or f.observes_warp or f.orders_memory)
             and f.family not in ("shfl", "atom", "red", "cp.async", "createpolicy", "cp.async.bulk",
                                  "prefetch.tensormap", "mbarrier")
             and not f.reads_carry  # a chain, not one form: tools/gpu/carry_check.py
             and (families is None or f.family in families.split(","))]
    selected = list(instances(exact))
    kernels = "\n".join(kernel(i, f, imm) for i, (f, imm) in enumerate(selected))
    module = (f'module attributes {{gpu.container_module}} {{\n'
              f'  gpu.module @conformance [#nvvm.target<chip = "{TARGET}">] {{\n{kernels}\n  }}\n}}\n')
    text = tile_mlir.compile_module(module, chip=TARGET)["conformance"].decode()
    cubin = tile_mlir.compiler.assemble(text, TARGET)
    bundle = {
        "target": TARGET, "grid": GRID, "block": BLOCK, "repeats": REPEATS,
        "cubin": base64.b64encode(cubin).decode(),
        # The kernels' tile IR, for tools/difftest's interpreter (run.py --interpret).
        "mlir": module,
        "kernels": [{"name": f"k{i}", "opcode": f.opcode, "family": f.family,
                     "operands": [{"name": op.name, "role": op.role, "space": op.space, "type": op.type,
                                   "bits": op.bits, "count": op.count, "read_at": op.read_at}
                                  # the policy is made in the kernel, no parameter
                                  for op in f.operands if op.name != "cache-policy"],
                     "immediates": {str(k): v for k, v in imm.items()}}
                    for i, (f, imm) in enumerate(selected)],
    }
    with open(os.path.join(out_dir, "bundle.json"), "w") as f:
        json.dump(bundle, f)
    print(f"{len(selected)} forms, {len(cubin)} bytes of cubin")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/conformance", sys.argv[2] if len(sys.argv) > 2 else None)
