#!/usr/bin/env python3
"""Which f32 atomic adds flush subnormals, learnt on the GPU (issue #29).

The PTX ISA says atom.add.f32 "flushes subnormal inputs and results to
sign-preserving zero". The atomics campaign found a red.add.f32 whose
generic address lands in shared memory keeping subnormal sums. This
measures every scalar f32 add (atom and red) and a vector one on a global
cell, on a shared cell, and through the generic view of each, for operand
pairs that tell an input flush from a result flush from none.

    python tools/gpu/atomic_add_f32.py build build/atomic_add_f32        # here
    PYTHONPATH=python python tools/gpu/atomic_add_f32.py run build/atomic_add_f32 report.json  # on the GPU

Each kernel is gen_atomics' conformance kernel of its form: thread t adds
b[t] to its own cell, which holds old[t], and atom returns the old value.
The report gives, per form and cell, the sum each pair left in memory,
and whether the interpreter (run at build time) left the same.
"""

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "difftest"))

import gen  # noqa: E402  (tools/difftest: one_form_kernel)

# (old, b, what the pair tells)
PAIRS = (
    (0x00000000, 0x00000004, "subnormal b onto +0: b flushed?"),
    (0x00000004, 0x00000004, "two subnormals: 0x8, or 0 flushed"),
    (0x00800000, 0x80000001, "min normal - tiny: 0x007fffff, result flushed 0, b flushed 0x00800000"),
    (0x00800001, 0x80800000, "normals to a subnormal 0x1: result flushed?"),
    (0x80000004, 0x00000002, "-0x4 + 0x2: 0x80000002, flushed -0 or +0"),
    (0x00000003, 0x00800000, "subnormal old + min normal: 0x00800003, old flushed 0x00800000"),
    (0x3f800000, 0x00000001, "control: 1.0"),
    (0x80000000, 0x80000001, "-0 + -tiny: 0x80000001, flushed -0"),
)

# (opcode, cell in shared memory)
CASES = (
    ("atom.global.add.f32", False), ("atom.shared::cta.add.f32", True),
    ("atom.add.f32", False), ("atom.add.f32", True),
    ("red.global.add.f32", False), ("red.shared::cta.add.f32", True),
    ("red.add.f32", False), ("red.add.f32", True),
    ("red.global.v2.f32.add", False),
    ("atom.shared::cluster.add.f32", True), ("red.shared::cluster.add.f32", True),
)


# shared::cluster forms on the cell of the other block of a cluster of two
# (distributed shared memory), ptxas trying the atomic unit first.
REMOTE_CASES = ("atom.shared::cluster.add.f32", "red.shared::cluster.add.f32")
BLOCK, GRID = 64, 2


def remote_kernel(opcode, name):
    """Block r's thread t adds b of the cell's row to cell t of block r ^ 1,
    between cluster barriers; Out is each block's cells after, D old."""
    from tile_mlir import script as T
    rows = BLOCK * GRID
    returns = opcode.startswith("atom")

    def body(M, S0, Out, D):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=GRID, block=BLOCK, cluster=GRID))
        t = T.thread_id()
        rank = T.cluster_ctarank()
        row = T.block_id() * BLOCK + t
        target = (T.block_id() ^ 1) * BLOCK + t
        cells = T.alloc_shared((BLOCK, 1), "uint32")
        value = T.alloc_local((1, 1), "uint32")
        b = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], value, M[row:row + 1])
        T.cuda.tile.apply(T.ptx["st.shared.b32"], cells[t:t + 1], value)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["ld.global.b32"], b, S0[target:target + 1])
        cell = cells.of_block(rank ^ 1)[t:t + 1]
        if returns:
            T.cuda.tile.apply(T.ptx[opcode], value, cell, b)
            T.cuda.tile.apply(T.ptx["st.global.b32"], D[target:target + 1], value)
        else:
            T.cuda.tile.apply(T.ptx[opcode], cell, b)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], value, cells[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[row:row + 1], value)

    cells = [(name, (rows, 1), 32) for name in ("M", "S0", "Out", "D")]
    return gen.one_form_kernel(name, body, cells, GRID, BLOCK, ["atomics", "remote"], opcode, "atomic_add_f32").fn


def case_name(opcode, shared):
    space = "shared" if shared else "global"
    return f"{opcode} on a {space} cell"


def inputs(threads, count):
    """old and b, the pairs in turn over threads and vector elements."""
    old = np.array([PAIRS[i % len(PAIRS)][0] for i in range(threads * count)], np.uint32)
    b = np.array([PAIRS[i % len(PAIRS)][1] for i in range(threads * count)], np.uint32)
    return old.reshape(threads, count), b.reshape(threads, count)


def arrays(params):
    """The kernel's arguments, by parameter: M the cells, S0 b, Out and D zeroed."""
    count = params[0].shape[1]
    old, b = inputs(params[0].shape[0], count)
    given = {"M": old, "S0": b}
    return [given.get(p.name, np.zeros(p.shape, np.uint32)).copy() for p in params]


def by_pair(out):
    """Per pair, the distinct sums its threads left (one when defined)."""
    flat = out.reshape(-1)
    return {f"{old:#010x} + {b:#010x}": sorted({f"{int(v):#010x}" for v in flat[i::len(PAIRS)]})
            for i, (old, b, _) in enumerate(PAIRS)}


def cells(params, args):
    """The cells after the atomics: Out where the kernel copied them out of
    shared memory, else M itself."""
    out = next(p for p in params if p.name == "Out")
    return args[params.index(out)] if out.written else args[[p.name for p in params].index("M")]


def left_in_cells(params, launch):
    """Per pair, what `launch` (the GPU's kernel, or the interpreter) leaves
    in the cells."""
    args = arrays(params)
    launch(*args)
    return by_pair(cells(params, args))


def interpreted(fn, params):
    import tile_mlir
    return left_in_cells(params, lambda *args: tile_mlir.interpret(fn, *args))


def save(fn, out_dir, case):
    import tile_mlir
    kernel = tile_mlir.compile(fn, target="sm_90")
    kernel.save(os.path.join(out_dir, f"{kernel.name}.json"))
    return {"file": f"{kernel.name}.json", "case": case, "interpreter": interpreted(fn, kernel.params)}


def kernels():
    """Every case's kernel, by the case's name."""
    import gen_atomics
    from tile_mlir import ptx
    found = {}
    for k, (opcode, shared) in enumerate(CASES):
        spec = gen_atomics.kernel(ptx.overloads(opcode, target="sm_90")[0], shared, f"atomic_add_f32_{k}")
        found[case_name(opcode, shared)] = spec.fn
    for k, opcode in enumerate(REMOTE_CASES):
        found[f"{opcode} on the other block's cell"] = remote_kernel(opcode, f"atomic_add_f32_remote_{k}")
    return found


def build(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    manifest = [save(fn, out_dir, case) for case, fn in kernels().items()]
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def run(out_dir, report_path):
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "manifest.json")) as f:
        manifest = json.load(f)
    report = {"pairs": [{"old": f"{o:#010x}", "b": f"{b:#010x}", "tells": w} for o, b, w in PAIRS], "cases": {}}
    for item in manifest:
        kernel = runtime.load(os.path.join(out_dir, item["file"]))
        measured = left_in_cells(kernel.params, kernel)
        report["cases"][item["case"]] = {"gpu": measured, "interpreter_agrees": measured == item["interpreter"]}
        print(item["case"], "interpreter agrees" if measured == item["interpreter"] else "DIFFERS",
              json.dumps(measured))
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("out_dir")
    r = sub.add_parser("run")
    r.add_argument("out_dir")
    r.add_argument("report")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build(args.out_dir)
    return run(args.out_dir, args.report)


if __name__ == "__main__":
    sys.exit(main())
