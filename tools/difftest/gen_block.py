"""Random kernels beyond one thread: shared memory, barriers, warp
collectives and atomics, race-free by construction (and a deliberately
racy class, which the interpreter must flag).

A kernel is gen.py's thread-scope kernel (each thread owns its row of the
global tensors, register forms between loads and stores) with block phases
between its instructions:

- exchange: every thread stores a 32-bit tile to its column of a shared
  buffer, a barrier (bar.sync, barrier.sync, or either with the block's
  thread count), then loads another thread's element (t + c, t ^ c or
  n - 1 - t within the block), then a barrier before the buffer is stored
  again;
- shuffle: shfl.sync of every mode with a random lane operand, clamp and
  segment mask, over the full mask, sometimes with its predicate;
- collective: vote (all, any, uni, ballot), match (any, all with its
  predicate), redux (integer ops), elect and activemask, over the full
  mask;
- atomics: thread t < m initializes counter t of a shared array, a barrier,
  every thread applies red.shared (add, min, max, and, or, xor on u32 or
  s32) to counter (a t + b) % m, and red.global.add.u32 to a global
  counter, whose results are independent of the order; a barrier, then
  every thread loads counter t % m.

Block sizes are whole warps (32 to 256), so the full mask is legal. The
racy class drops one barrier of an exchange whose read crosses threads:
the interpreter must report the race. The racy read is stored to the
next output slot at once, so that ptxas keeps the load for racecheck.

With `tensor` (campaign --kind tensor), two phases of the warp tensor
cores join them (issue #27):

- async_copy: one or two cp.async copies of 16 bytes of the thread's input
  row into its cells of a shared buffer, each its own commit group, some
  with a src-size (the rest zeros); a wait_group that covers the cells it
  reads (wait_group 1 leaves the second group in flight and reads only the
  first's cells), a barrier, then a load of another thread's cell and a
  barrier before the cells are written again;
- mma: an s8 mma.sync m16n8k32 chain over K = 1 or 2 (C feeds the first
  step, D the next), its fragments loaded from the input rows, and its
  4 s32 results kept as sources: exact, so every element is compared.

    spec = generate(random.Random(seed), racy=False)
"""

from __future__ import annotations

import random
from typing import List

import gen
from tile_mlir import script as T

FULL = 0xFFFFFFFF
SHARED_COLUMNS = 4
COUNTERS = 8
PHASES = ("exchange", "shuffle", "collective", "atomics")
TENSOR_PHASES = ("async_copy", "mma")
S8_MMA = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
SHUFFLE_MODES = ("up", "down", "bfly", "idx")
REDUCTIONS = ("add", "min", "max", "and", "or", "xor")


class BlockBuilder(gen.Builder):
    """gen.Builder's thread-scope kernel, with the block phases."""

    def __init__(self, rng, block, racy):
        super().__init__(rng, 1, "thread")
        self.block, self.racy = block, racy
        self.column = 0
        self.dropped = False  # the racy class has dropped its barrier

    def barrier(self, always=False):
        """A barrier of the whole block, in one of its spellings."""
        how = self.rng.random()
        if how < 0.5:
            self.apply("bar.sync", T.uint32(0))
        elif how < 0.7:
            self.apply("barrier.sync", T.uint32(0))
        elif how < 0.85:
            self.apply("bar.sync", T.uint32(self.rng.randrange(16)), T.uint32(self.block))
        else:
            self.apply("barrier.sync.aligned", T.uint32(self.rng.randrange(16)), T.uint32(self.block))
        self.features.add("barrier")

    def partner(self):
        """Another thread's index in the block, as an index expression."""
        t, n, rng = self.t, self.block, self.rng
        how = rng.random()
        if how < 0.4:
            return (t + rng.randrange(1, n)) % n
        if how < 0.8:
            return t ^ rng.randrange(1, n)
        return (n - 1) - t

    def exchange(self):
        self.features.add("exchange")
        column = self.column % SHARED_COLUMNS
        self.column += 1
        cell = self.shared[:, column:column + 1]
        value = self.source32()
        self.apply("st.shared.b32", cell[self.t:self.t + 1], value)
        racy_here = self.racy and not self.dropped
        if racy_here:
            self.dropped = True
            self.features.add("racy")
        else:
            self.barrier()
        j = self.partner()
        tile = self.alloc(32)
        self.apply("ld.shared.b32", tile, cell[j:j + 1])
        self.tiles[32].append(tile)
        if racy_here:
            self.store_racy_read(tile)
        # Before this column is stored again.
        self.barrier()

    def store_racy_read(self, tile):
        """The racy load's value to the next output slot at once: a value no
        output depends on is a dead load, which ptxas deletes, and then
        compute-sanitizer's racecheck, which sees the SASS, has no race to
        report."""
        start = self.next_out[32]
        self.next_out[32] = start + self.repeats
        self.apply("st.global.b32", self.rows(self.outputs[32], start), tile)

    def source32(self):
        if self.tiles[32] and self.rng.random() < 0.8:
            return self.rng.choice(self.tiles[32])
        return self.loaded_tile(32)

    def predicate(self):
        if self.tiles[gen.PREDICATE] and self.rng.random() < 0.5:
            return self.rng.choice(self.tiles[gen.PREDICATE])
        return self.compared_tile()

    def shuffle(self):
        rng = self.rng
        mode = rng.choice(SHUFFLE_MODES)
        self.features.add("shuffle")
        b = rng.randrange(32)
        c = rng.choice([31, 0, rng.randrange(32) | (rng.choice([0, 0x10, 0x18, 0x1C]) << 8)])
        dst = self.alloc(32)
        operands = [dst]
        if rng.random() < 0.3:
            p = self.destination(gen.PREDICATE, fresh=True)
            operands.append(p)
            self.features.add("shuffle_predicate")
        self.apply(f"shfl.sync.{mode}.b32", *operands, self.source32(), T.uint32(b), T.uint32(c), T.uint32(FULL))
        self.tiles[32].append(dst)

    def collective(self):
        rng = self.rng
        m = T.uint32(FULL)
        how = rng.randrange(6)
        self.features.add("collective")
        if how == 0:
            mode = rng.choice(["all", "any", "uni"])
            self.apply(f"vote.sync.{mode}.pred", self.destination(gen.PREDICATE, fresh=True), self.predicate(), m)
        elif how == 1:
            dst = self.alloc(32)
            self.apply("vote.sync.ballot.b32", dst, self.predicate(), m)
            self.tiles[32].append(dst)
        elif how == 2:
            dst = self.alloc(32)
            if rng.random() < 0.5:
                self.apply("match.any.sync.b32", dst, self.source32(), m)
            else:
                self.apply("match.all.sync.b32", dst, self.destination(gen.PREDICATE, fresh=True),
                           self.source32(), m)
            self.tiles[32].append(dst)
        elif how == 3:
            op = rng.choice(REDUCTIONS)
            ty = "b32" if op in ("and", "or", "xor") else rng.choice(["u32", "s32"])
            dst = self.alloc(32)
            self.apply(f"redux.sync.{op}.{ty}", dst, self.source32(), m)
            self.tiles[32].append(dst)
        elif how == 4:
            dst = self.alloc(32)
            self.apply("elect.sync", dst, self.destination(gen.PREDICATE, fresh=True), m)
            self.tiles[32].append(dst)
        else:
            dst = self.alloc(32)
            self.apply("activemask.b32", dst)
            self.tiles[32].append(dst)

    def words(self, start, count):
        """`count` 32-bit words of this thread's input row from `start`
        rounded down to a multiple of `count` (a vector access starts at a
        multiple of its size, or the GPU faults), as one (1, count) row."""
        start = min(start, gen.SLOTS - count) // count * count
        return self.inputs[32][self.row, start:start + count].reshape((1, count))

    def async_copy(self):
        rng = self.rng
        self.features.add("cp_async")
        copies = rng.choice([1, 2])
        for c in range(copies):
            size = [T.uint32(16)]
            if rng.random() < 0.4:
                self.features.add("cp_async_src_size")
                size.append(T.uint32(4 * rng.randrange(5)) if rng.random() < 0.5
                            else T.uint32(4 * ((self.t + rng.randrange(5)) % 5)))
            form = rng.choice(["cp.async.cg.shared.global", "cp.async.ca.shared.global",
                               "cp.async.cg.shared::cta.global.L2::128B"])
            self.apply(form, self.staging[self.t:self.t + 1, 4 * c:4 * c + 4],
                       self.words(rng.randrange(gen.SLOTS - 3), 4), *size)
            self.apply("cp.async.commit_group")
        # wait_group 1 with two groups: only the first has landed.
        pending = rng.choice([0, 1]) if copies == 2 else 0
        if pending == 0 and rng.random() < 0.3:
            self.apply("cp.async.wait_all")
        else:
            self.apply("cp.async.wait_group", T.uint32(pending))
        self.barrier()
        j = self.partner()
        word = rng.randrange(4 * (copies - pending))
        tile = self.alloc(32)
        self.apply("ld.shared.b32", tile, self.staging[j:j + 1, word:word + 1])
        self.tiles[32].append(tile)
        if pending:
            # The second group lands before its cells are written again.
            self.apply("cp.async.wait_all")
        self.barrier()

    def mma(self):
        rng = self.rng
        self.features.add("mma")
        k = rng.choice([1, 2])
        a = T.alloc_local((1, k, 4), "uint32")
        b = T.alloc_local((1, k, 2), "uint32")
        for i in range(k):
            self.apply("ld.global.v4.b32", a[0, i:i + 1], self.words(rng.randrange(gen.SLOTS), 4))
            self.apply("ld.global.v2.b32", b[0, i:i + 1], self.words(rng.randrange(gen.SLOTS), 2))
        c = T.alloc_local((1, 1, 4), "int32")
        self.apply("ld.global.v4.b32", c[0].view("uint32"), self.words(rng.randrange(gen.SLOTS), 4))
        d = T.alloc_local((1, 1, 4), "int32")
        self.apply(S8_MMA, d, a, b, c)
        for r in rng.sample(range(4), 2):
            tile = self.alloc(32)
            self.apply("mov.b32", tile, d[0, :, r:r + 1].view("uint32"))
            self.tiles[32].append(tile)

    def atomics(self):
        rng = self.rng
        self.features.add("atomics")
        counters = self.counters
        self.apply("st.shared.b32", counters[self.t:self.t + 1], self.source32(), pred=self.t < COUNTERS)
        self.barrier()
        a, b = rng.randrange(1, 8), rng.randrange(COUNTERS)
        k = (self.t * a + b) % COUNTERS
        op = rng.choice(REDUCTIONS)
        ty = "b32" if op in ("and", "or", "xor") else rng.choice(["u32", "s32"])
        self.apply(f"red.shared.{op}.{ty}", counters[k:k + 1], self.source32())
        if rng.random() < 0.5:
            self.features.add("global_atomics")
            g = self.t % COUNTERS
            self.apply("red.global.add.u32", self.global_counters[g:g + 1], self.source32())
        self.barrier()
        tile = self.alloc(32)
        r = self.t % COUNTERS
        self.apply("ld.shared.b32", tile, counters[r:r + 1])
        self.tiles[32].append(tile)
        self.barrier()  # before the counters are initialized again


def generate(rng: random.Random, name: str = "kernel", racy: bool = False, tensor: bool = False) -> gen.KernelSpec:
    block = rng.choice([32, 64, 128, 256])
    grid = rng.choice([1, 1, 2])
    threads = grid * block
    steps = rng.randint(3, 8)
    builder = BlockBuilder(rng, block, racy)
    builder.threads = threads
    names = [(f"in{w}", w) for w in gen.WIDTHS] + [(f"out{w}", w) for w in gen.WIDTHS]
    phases = PHASES + TENSOR_PHASES if tensor else PHASES
    plan: List[str] = [rng.choice(phases + ("register",)) for _ in range(steps)]
    if racy and "exchange" not in plan:
        plan[rng.randrange(steps)] = "exchange"

    def body(*tensors):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=block))
        builder.t = T.thread_id()
        builder.linear = T.block_id() * block + builder.t if grid > 1 else builder.t
        builder.row = builder.linear
        tensors = dict(zip([n for n, _ in names] + ["counts"], tensors))
        builder.inputs = {w: tensors[f"in{w}"] for w in gen.WIDTHS}
        builder.outputs = {w: tensors[f"out{w}"] for w in gen.WIDTHS}
        builder.global_counters = tensors["counts"]
        builder.shared = T.alloc_shared((block, SHARED_COLUMNS), "uint32")
        builder.counters = T.alloc_shared((COUNTERS, 1), "uint32")
        if tensor:
            builder.staging = T.alloc_shared((block, 8), "uint32")
        for step in plan:
            if step == "register":
                builder.instruction()
            else:
                getattr(builder, step)()
        builder.store_all()

    parameters = ", ".join(f"{n}: T.Tensor(({threads}, {gen.SLOTS}, 1), 'uint{w}')" for n, w in names)
    parameters += f", counts: T.Tensor(({COUNTERS}, 1), 'uint32')"
    namespace = {"T": T, "body": body}
    source = f"def {name}({parameters}):\n    body({', '.join(n for n, _ in names)}, counts)\n"
    exec(compile(source, "<difftest block kernel>", "exec", dont_inherit=True), namespace)
    fn = T.function(namespace[name])
    spec = gen.KernelSpec(fn, grid, block, names + [("counts", 32)], ops=builder.ops,
                          features=sorted(builder.features) + ["block"])
    spec.instructions, spec.repeats = steps, 1
    spec.racy = racy
    return spec
