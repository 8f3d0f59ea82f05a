"""Every atom and red form of sm_90 that the table generates (issue #29,
item 3: the conformance of atomics), one kernel per form for
campaign.py --kind atomics.

Thread t applies the form once to its own cell, with its own operands, so
the old value it returns and the memory it leaves are defined whatever
order the threads run in: the interpreter's result is the ISA's. The cell
is in global memory (global forms) or in shared memory (shared and
shared::cluster forms, the thread's own block's cell), filled from M and
copied out to Out after the atomic. A form of a generic address takes
the generic view (Buffer.generic) of a global cell or, for every other
such form, of a shared one, so that both windows of the generic space are
judged; a generic vector form (.v2/.v4/.v8) always takes a global cell,
the ISA defining vector atomics on global memory only. Every operand is
given as registers of the form's widths; the inputs are campaign.py's bit
patterns (NaNs, infinities, extremes).
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ptxas_diff"))

import gen  # noqa: E402
from tile_mlir import script as T  # noqa: E402

BLOCK = 64
GRID = 2

_forms = None


def forms():
    """The sm_90 atom and red forms ptxas_diff generates, in its order."""
    global _forms
    if _forms is None:
        import ptxas_diff
        _forms = [f for f in ptxas_diff.legal_forms("sm_90") if f.family in ("atom", "red")]
    return _forms


def generate(index: int, name: str) -> gen.KernelSpec:
    form = forms()[index % len(forms())]
    memory = next(o for o in form.operands if o.space != "reg")
    generic_rank = sum(1 for f in forms()[:index % len(forms())]
                       if next(o for o in f.operands if o.space != "reg").space == "generic")
    # A vector form (several cells) must not land in shared memory: the ISA
    # defines vector atomics on global memory only.
    shared = memory.space.startswith("shared") or (memory.space == "generic" and memory.count == 1
                                                   and generic_rank % 2 == 1)
    return kernel(form, shared, name)


def kernel(form, shared: bool, name: str) -> gen.KernelSpec:
    """`form` applied by each thread to its own cell, in shared memory
    (`shared`) or in global memory; through the cell's generic view when
    the form takes a generic address."""
    memory = next(o for o in form.operands if o.space != "reg")
    registers = [o for o in form.operands if o.space == "reg"]
    bits = max(8, memory.register_bits)
    dtype = f"uint{bits}"
    n = memory.count
    threads = GRID * BLOCK
    generic = memory.space == "generic"
    sources = [o for o in registers if o.role == "src"]
    results = [o for o in registers if o.role == "dst"]
    names = ["M"] + [f"S{i}" for i in range(len(sources))] + ["Out"] + (["D"] if results else [])

    def body(*tensors):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=GRID, block=BLOCK))
        t = T.thread_id()
        row = T.block_id() * BLOCK + t
        m, out = tensors[0], tensors[len(sources) + 1]
        operands = []
        for i, operand in enumerate(sources):
            # (1, count): the registers of one instruction on the last axis
            tile = T.alloc_local((1, operand.count), f"uint{max(8, operand.register_bits)}")
            load = f"ld.global.b{max(8, operand.register_bits)}"
            T.cuda.tile.apply(T.ptx[load], tile.reshape((operand.count, 1)),
                              tensors[1 + i][row].reshape((operand.count, 1)))
            operands.append(tile)
        if shared:
            cells = T.alloc_shared((BLOCK, n), dtype)
            staged = T.alloc_local((n, 1), dtype)
            T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], staged, m[row].reshape((n, 1)))
            T.cuda.tile.apply(T.ptx[f"st.shared.b{bits}"], cells[t].reshape((n, 1)), staged)
            cell = cells[t].reshape((1, n)) if n > 1 else cells[t:t + 1]
        else:
            cell = m[row].reshape((1, n)) if n > 1 else m[row:row + 1, 0:1].reshape((1, 1))
        if generic:
            cell = cell.generic()
        if results:
            d = T.alloc_local((1, results[0].count), f"uint{max(8, results[0].register_bits)}")
            T.cuda.tile.apply(T.ptx[form.opcode], d, cell, *operands)
            T.cuda.tile.apply(T.ptx[f"st.global.b{max(8, results[0].register_bits)}"],
                              tensors[-1][row].reshape((results[0].count, 1)), d.reshape((results[0].count, 1)))
        else:
            T.cuda.tile.apply(T.ptx[form.opcode], cell, *operands)
        if shared:
            T.cuda.tile.apply(T.ptx[f"ld.shared.b{bits}"], staged, cells[t].reshape((n, 1)))
            T.cuda.tile.apply(T.ptx[f"st.global.b{bits}"], out[row].reshape((n, 1)), staged)

    shapes = {"M": (threads, n), "Out": (threads, n)}
    for i, operand in enumerate(sources):
        shapes[f"S{i}"] = (threads, operand.count)
    if results:
        shapes["D"] = (threads, results[0].count)
    widths = {"M": bits, "Out": bits, **{f"S{i}": max(8, o.register_bits) for i, o in enumerate(sources)},
              "D": max(8, results[0].register_bits) if results else 0}
    return gen.one_form_kernel(name, body, [(p, shapes[p], widths[p]) for p in names], GRID, BLOCK,
                               ["atomics", form.family, memory.space]
                               + (["through shared" if shared else "through global"] if generic else []),
                               form.opcode, "atomics")
