"""Random tile kernels in the Python front end, legal by construction.

Each thread t (row = block_id * block + t) owns row `row` of every global
tensor, so no thread reads what another writes and the interpreter's
lockstep order is the hardware's. A kernel loads register tiles from its
inputs, applies a chain of forms drawn from the form table (for sm_90, the
families the reference models), and stores tiles to its outputs. Operands
vary the way users write them: whole tiles, static slices, slices at a
runtime index inside T.serial loops, dtype views of wider tiles, broadcast
inputs and typed scalars; instructions are predicated on index comparisons
or on predicate tiles that setp and testp wrote, with and without
preserve_dst, or sit inside T.if_; tiles may be warp tiles; the output may
be passed as the input's own array (aliasing).

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
FAMILIES = ("add", "sub", "mul", "abs", "neg", "cvt", "mov", "min", "max", "and", "or", "xor", "not",
            "cnot", "shl", "shr", "popc", "clz", "brev", "bfind", "bfe", "bfi", "prmt", "div", "rem",
            "sqrt", "rcp", "copysign", "fma", "mad", "setp", "selp", "testp", "lop3")
PREDICATE = 1  # the width of a predicate register (i1 tiles, never loaded or stored)
# Approximations have bounds, not bit patterns (tools/conformance/approx.py).
APPROXIMATE = {"approx", "full"}
FLOAT_SCALARS = {"f16": T.float16, "bf16": T.bfloat16, "f32": T.float32, "f64": T.float64}
# The group axes of a tile at each scope (docs/scopes.md); a cta of W warps
# is set per kernel.
GROUPS = {"thread": (), "warp": (32,), "warpgroup": (4, 32)}

_forms = None


def register_forms():
    """The sm_90 forms whose operands are all single registers (data or
    predicates) or immediates, of the families the reference interpreter
    models."""
    global _forms
    if _forms is None:
        import ptxas_diff
        _forms = [f for f in ptxas_diff.legal_forms("sm_90", one_per_qualifier_set=True)
                  if f.family in FAMILIES and not APPROXIMATE & set(f.opcode.split("."))
                  and all(o.space == "reg" and o.bits in WIDTHS + (PREDICATE,)
                          and (o.count == 1 or packs(f, o)) and o.role in ("dst", "src", "imm")
                          for o in f.operands)]
    return _forms


def packs(form, operand):
    """mov's pack and unpack forms (mov.b32 d, {a, b}): the braces are a
    view of one tile of the other operand's width."""
    return form.family == "mov" and operand.bits * operand.count in WIDTHS


# setp has hundreds of forms whose results only selp and predication show:
# drawn at the weights below, a kernel still spends most instructions on
# data, and the predicates it makes are read.
FAMILY_WEIGHTS = {"setp": 0.3, "selp": 5.0, "testp": 2.0, "lop3": 10.0}
PACK_WEIGHT = 6.0  # mov's ten pack and unpack forms
_weights = None


def draw_form(rng):
    global _weights
    forms = register_forms()
    if _weights is None:
        _weights = [PACK_WEIGHT if any(o.count > 1 for o in f.operands) else FAMILY_WEIGHTS.get(f.family, 1.0)
                    for f in forms]
    return rng.choices(forms, _weights)[0]


def comparisons():
    """setp forms without a predicate source: they make a predicate tile
    where an instruction needs one and none exists yet."""
    return [f for f in register_forms() if f.family == "setp" and len(f.operands) == 3]


@dataclass
class KernelSpec:
    fn: object
    grid: int
    block: int
    params: List[Tuple[str, int]] = field(default_factory=list)  # (name, bits)
    aliases: Dict[str, str] = field(default_factory=dict)  # param -> earlier param given the same array
    ops: int = 0
    features: List[str] = field(default_factory=list)


def one_form_kernel(name, body, params, grid, block, features, opcode, what):
    """A conformance kernel of one form (gen_atomics, gen_collectives):
    `params` (name, shape, bits) become its unsigned tensors in order, which
    `body` receives; one instruction, no repeats, no race."""
    from tile_mlir import script as T
    parameters = ", ".join(f"{p}: T.Tensor({shape}, 'uint{bits}')" for p, shape, bits in params)
    namespace = {"T": T, "body": body}
    source = f"def {name}({parameters}):\n    body({', '.join(p for p, _, _ in params)})\n"
    exec(compile(source, f"<{what} conformance kernel>", "exec", dont_inherit=True), namespace)
    spec = KernelSpec(T.function(namespace[name]), grid, block, [(p, bits) for p, _, bits in params], ops=1,
                      features=features)
    spec.instructions, spec.repeats, spec.racy = 1, 1, False
    spec.opcode = opcode
    return spec


class Builder:
    """Traces one kernel body, choosing as it goes."""

    def __init__(self, rng, repeats, scope, shape=None):
        self.rng, self.repeats, self.scope = rng, repeats, scope
        # The repeat axes: (R,), or two axes of R elements in all.
        self.shape = tuple(shape or (repeats,))
        self.tiles: Dict[int, list] = {w: [] for w in WIDTHS + (PREDICATE,)}
        self.next_in = {w: 0 for w in WIDTHS}
        self.next_out = {w: 0 for w in WIDTHS}
        self.features = set()
        self.ops = 0
        self.skipping = False

    # -- tensors and tiles -------------------------------------------------
    def rows(self, tensor, start, count=None):
        """This thread's `count` (default `repeats`) elements of `tensor`
        from `start`; at a group scope, every thread's, behind the group
        axes the tensor leads with."""
        stop = start + (count or self.repeats)
        if self.scope == "thread":
            elements = tensor[self.row, start:stop]
            if count is None and len(self.shape) > 1:
                elements = elements.reshape(self.shape + (1,))
            return elements
        return tensor[(slice(None),) * len(GROUPS[self.scope]) + (slice(start, stop),)]

    def alloc(self, bits):
        dtype = "bool" if bits == PREDICATE else f"uint{bits}"
        return T.alloc_local(GROUPS[self.scope] + self.shape + (1,), dtype, scope=self.scope)

    def apply(self, opcode, *operands, **options):
        if self.skipping:
            return  # the reducer removed this instruction; its choices are still drawn
        self.ops += 1
        T.cuda.tile.apply(T.ptx[opcode], *operands, scope=self.scope, **options)

    def loaded_tile(self, bits):
        start = self.next_in[bits]
        if start + self.repeats > SLOTS:
            start = 0
        self.next_in[bits] = start + self.repeats
        tile = self.alloc(bits)
        how = self.rng.random()
        if self.scope == "thread" and bits == 32 and how < 0.15 and 2 * (start + self.repeats) <= SLOTS:
            # Halves of the 16-bit input read as words: a widening view at a
            # runtime offset the verifier must prove even (row * SLOTS + 2k).
            self.features.add("widening_view")
            halves = self.rows(self.inputs[16], 2 * start, 2 * self.repeats)
            self.apply("ld.global.b32", tile, halves.reshape(self.shape + (2,)).view("uint32"))
        elif self.scope == "thread" and how < 0.3 and self.repeats > 1 and len(self.shape) == 1:
            # One element per iteration, at the loop's runtime index, into
            # the tile at the same index.
            self.features.add("serial_global")
            for i in T.serial(0, self.repeats):
                self.apply(f"ld.global.b{bits}", tile[i:i + 1], self.inputs[bits][self.row, start + i:start + i + 1])
        else:
            self.apply(f"ld.global.b{bits}", tile, self.rows(self.inputs[bits], start))
        self.tiles[bits].append(tile)
        return tile

    def source(self, operand):
        """A register source of `operand`: a tile (or part of one) or a
        scalar."""
        rng, bits = self.rng, operand.bits
        if operand.role == "imm":
            self.features.add("immediate")
            values = operand.immediates or range(operand.max_immediate + 1)
            return T.uint32(rng.choice(list(values)))
        if bits == PREDICATE:
            self.features.add("predicate_data")
            if self.tiles[PREDICATE] and rng.random() < 0.7:
                return rng.choice(self.tiles[PREDICATE])
            return self.compared_tile()
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
            return word.view("uint16")[(slice(None),) * len(self.shape) + (slice(column, column + 1),)]
        # Drawn whatever the shape, so a replay with fewer repeats (the
        # reducer's) draws the same choices.
        broadcast, where = rng.random(), rng.random()
        if self.scope == "thread" and self.shape[0] > 1 and self.tiles[bits] and broadcast < 0.15:
            self.features.add("broadcast")
            tile = rng.choice(self.tiles[bits])
            k = int(where * self.shape[0])
            return tile[k:k + 1].broadcast(self.shape + (1,))
        if self.tiles[bits] and rng.random() < 0.7:
            return rng.choice(self.tiles[bits])
        return self.loaded_tile(bits)

    def packed(self, operand, written=False):
        """The registers in a mov's braces: `count` elements of a view of a
        tile as wide as all of them (uint32 words as uint16 halves, low
        first)."""
        self.features.add("pack")
        width = operand.bits * operand.count
        if written:
            tile = self.destination(width)
        elif self.tiles[width] and self.rng.random() < 0.7:
            tile = self.rng.choice(self.tiles[width])
        else:
            tile = self.loaded_tile(width)
        return tile.view(f"uint{operand.bits}")

    def compared_tile(self):
        """A new predicate tile that a setp of data tiles writes."""
        form = self.rng.choice(comparisons())
        tile = self.destination(PREDICATE, fresh=True)
        self.apply(form.opcode, tile, *[self.source(o) for o in form.operands[1:]])
        return tile

    def destination(self, bits, fresh=False):
        if not fresh and self.tiles[bits] and self.rng.random() < 0.5:
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
        form = draw_form(rng)
        while self.scope != "thread" and any(o.count > 1 for o in form.operands):
            form = draw_form(rng)  # views are thread-scope only
        first_operand = form.operands[0]
        dst = (self.packed(first_operand, written=True) if first_operand.count > 1
               else self.destination(first_operand.bits))
        srcs = [self.packed(o) if o.count > 1 else self.source(o) for o in form.operands[1:]]
        options = {}
        how = rng.random()
        if rng.random() < 0.25:
            self.features.add("pred")
            plain = not (self.scope == "thread" and (how < 0.15 and self.shape[0] > 1 or how < 0.42))
            if plain and self.tiles[PREDICATE] and rng.random() < 0.4:
                # A predicate tile guards each repeat with its own register.
                self.features.add("predicate_tile")
                options["pred"] = rng.choice(self.tiles[PREDICATE])
            else:
                options["pred"] = self.condition()
            if rng.random() < 0.5:
                self.features.add("preserve_dst")
                options["preserve_dst"] = True
        operands = [dst] + srcs
        first, extent = rng.random(), rng.random()  # the slice's, drawn whatever the shape
        if self.scope == "thread" and how < 0.15 and self.shape[0] > 1:
            # A runtime index: every tile operand sliced at the loop's i.
            self.features.add("serial")
            for i in T.serial(0, self.shape[0]):
                self.apply(form.opcode, *[o[i:i + 1] if isinstance(o, T.Buffer) else o for o in operands],
                           **options)
        elif self.scope == "thread" and how < 0.25:
            self.features.add("if")
            with T.if_(self.condition()):
                self.apply(form.opcode, *operands, **options)
        elif self.scope == "thread" and how < 0.35 and self.shape[0] > 1:
            self.features.add("static_slice")
            lo = int(first * self.shape[0])
            hi = lo + 1 + int(extent * (self.shape[0] - lo))
            self.apply(form.opcode, *[o[lo:hi] if isinstance(o, T.Buffer) else o for o in operands], **options)
        elif self.scope == "thread" and how < 0.42 and self.shape[0] > 2:
            # Every other repeat: a gapped layout (stride 2).
            self.features.add("gapped")
            lo = int(first * 2)
            self.apply(form.opcode, *[o[lo::2] if isinstance(o, T.Buffer) else o for o in operands], **options)
        else:
            self.apply(form.opcode, *operands, **options)

    def store_all(self):
        for bits, tiles in self.tiles.items():
            if bits == PREDICATE:
                continue  # seen through selp and the instructions they guard
            for tile in tiles:
                start = self.next_out[bits]
                if start + self.repeats > SLOTS:
                    break
                self.next_out[bits] = start + self.repeats
                self.apply(f"st.global.b{bits}", self.rows(self.outputs[bits], start), tile)


def generate(rng: random.Random, name: str = "kernel", skip=frozenset(), repeats=None) -> KernelSpec:
    """A random kernel. The reducer replays a seed with `skip` (indices of
    instructions not to emit, every random choice still drawn, so the rest
    of the kernel is unchanged) and a smaller `repeats`."""
    block = rng.choice([32, 64])
    grid = rng.choice([1, 1, 2])
    threads = grid * block
    drawn = rng.choice([1, 2, 4])
    repeats = drawn if repeats is None else repeats
    two_axes = rng.random() < 0.3  # drawn always, so a reducer's replay keeps the stream
    pick = rng.random()
    scope = "thread" if pick < 0.85 else "warp" if pick < 0.92 else "warpgroup" if pick < 0.96 else "cta"
    count = rng.randint(1, 8)
    widths = WIDTHS
    names = [(f"in{w}", w) for w in widths] + [(f"out{w}", w) for w in widths]
    shape = {4: (2, 2), 2: (1, 2)}.get(repeats) if two_axes and scope == "thread" else None
    builder = Builder(rng, repeats, scope, shape)
    if shape:
        builder.features.add("two_axes")
    builder.threads = threads

    def body(*tensors):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=block))
        builder.linear = T.block_id() * block + T.thread_id() if grid > 1 else T.thread_id()
        builder.row = builder.linear
        tensors = dict(zip([n for n, _ in names], tensors))
        builder.inputs = {w: tensors[f"in{w}"] for w in widths}
        builder.outputs = {w: tensors[f"out{w}"] for w in widths}
        for index in range(count):
            builder.skipping = index in skip
            builder.instruction()
        builder.skipping = False
        builder.store_all()

    if scope != "thread":
        warps = {"warp": 1, "warpgroup": 4, "cta": rng.choice([2, 4])}[scope]
        GROUPS["cta"] = (warps, 32)
        grid, block, threads = 1, 32 * warps, 32 * warps
        builder.threads = threads
        builder.features.add(scope)
    rows = ", ".join(str(d) for d in (GROUPS[scope] or (threads,)))
    parameters = ", ".join(f"{n}: T.Tensor(({rows}, {SLOTS}, 1), 'uint{w}')" for n, w in names)
    namespace = {"T": T, "body": body}
    source = f"def {name}({parameters}):\n    body({', '.join(n for n, _ in names)})\n"
    # dont_inherit: this module's `from __future__ import annotations` would
    # turn the T.Tensor annotations into strings.
    exec(compile(source, "<difftest kernel>", "exec", dont_inherit=True), namespace)
    fn = T.function(namespace[name])
    spec = KernelSpec(fn, grid, block, names, ops=builder.ops, features=sorted(builder.features))
    spec.instructions, spec.repeats = count, repeats
    if rng.random() < 0.1:
        spec.aliases["out32"] = "in32"
        spec.features.append("alias")
    return spec
