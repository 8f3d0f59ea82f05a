"""Random tile kernels in the Python front end, legal by construction.

Each thread t (row = block_id * block + t) owns row `row` of every global
tensor, so no thread reads what another writes and the interpreter's
lockstep order is the hardware's. A kernel loads register tiles from its
inputs, applies a chain of forms drawn from the form table (for sm_90, the
families the reference models), and stores tiles to its outputs. Operands
vary the way users write them: whole tiles, static slices, slices at a
runtime index inside T.serial loops, dtype views of wider tiles, broadcast
inputs and typed scalars; instructions are predicated on index comparisons,
with and without preserve_dst, or sit inside T.if_; tiles may be warp
tiles; the output may be passed as the input's own array (aliasing).

    spec = generate(random.Random(seed))   # spec.fn, spec.params, spec.aliases
"""

from __future__ import annotations

import os
import random
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ptxas_diff"))

from tile_mlir import script as T  # noqa: E402

SLOTS = 8  # elements of each thread's row in every global tensor
WIDTHS = (8, 16, 32, 64)
FAMILIES = ("add", "sub", "mul", "abs", "neg", "cvt", "mov")
FLOAT_SCALARS = {"f16": T.float16, "bf16": T.bfloat16, "f32": T.float32, "f64": T.float64}

_forms = None


def register_forms():
    """The sm_90 forms whose operands are all single registers of the
    families the reference interpreter models."""
    global _forms
    if _forms is None:
        import ptxas_diff
        _forms = [f for f in ptxas_diff.legal_forms("sm_90", one_per_qualifier_set=True)
                  if f.family in FAMILIES and all(o.space == "reg" and o.count == 1 and o.bits in WIDTHS
                                                  for o in f.operands)]
    return _forms


@dataclass
class KernelSpec:
    fn: object
    grid: int
    block: int
    params: List[Tuple[str, int]] = field(default_factory=list)  # (name, bits)
    aliases: Dict[str, str] = field(default_factory=dict)  # param -> earlier param given the same array
    ops: int = 0
    features: List[str] = field(default_factory=list)


class Builder:
    """Traces one kernel body, choosing as it goes."""

    def __init__(self, rng, repeats, scope):
        self.rng, self.repeats, self.scope = rng, repeats, scope
        self.tiles: Dict[int, list] = {w: [] for w in WIDTHS}
        self.next_in = {w: 0 for w in WIDTHS}
        self.next_out = {w: 0 for w in WIDTHS}
        self.features = set()
        self.ops = 0

    # -- tensors and tiles -------------------------------------------------
    def rows(self, tensor, start):
        """This thread's `repeats` elements of `tensor` from `start`."""
        if self.scope == "warp":
            return tensor[self.warp_base:self.warp_base + 32, start:start + self.repeats]
        return tensor[self.row, start:start + self.repeats]

    def alloc(self, bits):
        shape = (32, self.repeats, 1) if self.scope == "warp" else (self.repeats, 1)
        return T.alloc_local(shape, f"uint{bits}", scope=self.scope)

    def apply(self, opcode, *operands, **options):
        self.ops += 1
        T.cuda.tile.apply(T.ptx[opcode], *operands, scope=self.scope, **options)

    def loaded_tile(self, bits):
        start = self.next_in[bits]
        if start + self.repeats > SLOTS:
            start = 0
        self.next_in[bits] = start + self.repeats
        tile = self.alloc(bits)
        self.apply(f"ld.global.b{bits}", tile, self.rows(self.inputs[bits], start))
        self.tiles[bits].append(tile)
        return tile

    def source(self, operand):
        """A register source of `operand`: a tile (or part of one) or a
        scalar."""
        rng, bits = self.rng, operand.bits
        if self.scope == "thread" and rng.random() < 0.12:
            self.features.add("scalar")
            if operand.type in FLOAT_SCALARS:
                return FLOAT_SCALARS[operand.type](rng.choice([0.0, -0.0, 1.0, -2.5, 0.375, 1e-3, 3.0e4 if bits > 16
                                                               else 1000.0]))
            return getattr(T, f"uint{bits}")(rng.randrange(1 << bits))
        if bits == 16 and self.scope == "thread" and self.tiles[32] and rng.random() < 0.2:
            self.features.add("view")
            word = rng.choice(self.tiles[32])
            column = rng.randrange(2)
            return word.view("uint16")[:, column:column + 1]
        if self.scope == "thread" and self.repeats > 1 and self.tiles[bits] and rng.random() < 0.15:
            self.features.add("broadcast")
            tile = rng.choice(self.tiles[bits])
            k = rng.randrange(self.repeats)
            return tile[k:k + 1].broadcast((self.repeats, 1))
        if self.tiles[bits] and rng.random() < 0.7:
            return rng.choice(self.tiles[bits])
        return self.loaded_tile(bits)

    def destination(self, bits):
        if self.tiles[bits] and self.rng.random() < 0.5:
            return self.rng.choice(self.tiles[bits])
        tile = self.alloc(bits)
        self.tiles[bits].append(tile)
        return tile

    # -- instructions ------------------------------------------------------
    def condition(self):
        bound = self.rng.randrange(1, self.threads)
        return (self.linear < bound) if self.rng.random() < 0.5 else ~(self.linear < bound)

    def instruction(self):
        rng = self.rng
        form = rng.choice(register_forms())
        dst = self.destination(form.operands[0].bits)
        srcs = [self.source(o) for o in form.operands[1:]]
        options = {}
        if rng.random() < 0.25:
            self.features.add("pred")
            options["pred"] = self.condition()
            if rng.random() < 0.5:
                self.features.add("preserve_dst")
                options["preserve_dst"] = True
        operands = [dst] + srcs
        how = rng.random()
        if self.scope == "thread" and how < 0.15 and self.repeats > 1:
            # A runtime index: every tile operand sliced at the loop's i.
            self.features.add("serial")
            for i in T.serial(0, self.repeats):
                self.apply(form.opcode, *[o[i:i + 1] if isinstance(o, T.Buffer) else o for o in operands],
                           **options)
        elif self.scope == "thread" and how < 0.25:
            self.features.add("if")
            with T.if_(self.condition()):
                self.apply(form.opcode, *operands, **options)
        elif self.scope == "thread" and how < 0.35 and self.repeats > 1:
            self.features.add("static_slice")
            lo = rng.randrange(self.repeats)
            hi = rng.randrange(lo + 1, self.repeats + 1)
            self.apply(form.opcode, *[o[lo:hi] if isinstance(o, T.Buffer) else o for o in operands], **options)
        else:
            self.apply(form.opcode, *operands, **options)

    def store_all(self):
        for bits, tiles in self.tiles.items():
            for tile in tiles:
                start = self.next_out[bits]
                if start + self.repeats > SLOTS:
                    break
                self.next_out[bits] = start + self.repeats
                self.apply(f"st.global.b{bits}", self.rows(self.outputs[bits], start), tile)


def generate(rng: random.Random, name: str = "kernel") -> KernelSpec:
    block = rng.choice([32, 64])
    grid = rng.choice([1, 1, 2])
    threads = grid * block
    repeats = rng.choice([1, 2, 4])
    scope = "warp" if rng.random() < 0.1 else "thread"
    count = rng.randint(1, 8)
    widths = WIDTHS
    names = [(f"in{w}", w) for w in widths] + [(f"out{w}", w) for w in widths]
    builder = Builder(rng, repeats, scope)
    builder.threads = threads

    def body(*tensors):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=block))
        builder.linear = T.block_id() * block + T.thread_id() if grid > 1 else T.thread_id()
        builder.row = builder.linear
        builder.warp_base = 0
        tensors = dict(zip([n for n, _ in names], tensors))
        builder.inputs = {w: tensors[f"in{w}"] for w in widths}
        builder.outputs = {w: tensors[f"out{w}"] for w in widths}
        for _ in range(count):
            builder.instruction()
        builder.store_all()

    rows = 32 if scope == "warp" else threads
    if scope == "warp":
        grid, block, threads = 1, 32, 32
        builder.threads = 32
    parameters = ", ".join(f"{n}: T.Tensor(({rows}, {SLOTS}, 1), 'uint{w}')" for n, w in names)
    namespace = {"T": T, "body": body}
    source = f"def {name}({parameters}):\n    body({', '.join(n for n, _ in names)})\n"
    # dont_inherit: this module's `from __future__ import annotations` would
    # turn the T.Tensor annotations into strings.
    exec(compile(source, "<difftest kernel>", "exec", dont_inherit=True), namespace)
    fn = T.function(namespace[name])
    spec = KernelSpec(fn, grid, block, names, ops=builder.ops, features=sorted(builder.features))
    if rng.random() < 0.1:
        spec.aliases["out32"] = "in32"
        spec.features.append("alias")
    return spec
