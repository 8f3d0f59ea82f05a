"""The pipeline parts (tile_mlir.pipelining, issue 54): they emit exactly
what the hand-written kernel does (the PTX is the same text), they run
right in the interpreter, and each misuse that the parts exist to prevent
is reported there: a skipped release (the producer's wait never ends), a
consumer that waits on the wrong phase or not at all (it reads a slot
before its bytes land), a producer that does not acquire (its copy races
the consumers' reads)."""

import re

import numpy as np
import pytest

import tile_mlir
from tile_mlir import pipelining as P
from tile_mlir import script as T

THREADS, ROWS, COLS = 128, 64, 16
LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
BOX_BYTES = ROWS * COLS * 2


def _consume(slot, acc, t):
    words = T.alloc_local((1, 4), "uint32")
    row, half = t // 2, t % 2
    T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], words, slot.view("uint32")[row:row + 1, 4 * half:4 * half + 4])
    T.cuda.tile.apply(T.ptx["add.u32"], acc.reshape((4, 1)), acc.reshape((4, 1)), words.reshape((4, 1)))


def with_parts(steps, stages, misuse=""):
    """Thread 0 loads k block k of A into slot k % stages through the ring;
    every thread adds its 4 words of each block; Out gets the sums.
    `misuse`: the parts' misuses to make, joined by "+"."""
    misuse = misuse.split("+")
    @T.function
    def ring_sum(A: T.Tensor((steps * ROWS, COLS), "uint16", tma=T.TensorMap((ROWS, COLS))),
                 Out: T.Tensor((THREADS, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        slots = T.alloc_shared((stages, ROWS, COLS), "uint16", align=128)
        ring = P.TmaRing(stages, consumers=THREADS)
        acc = T.alloc_local((1, 1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)), T.uint32(0))
        ring.init(where=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        for k in T.serial(0, steps):
            with T.if_(t == 0):
                put = P.PipelineState.producer(stages, k)
                if "no_acquire" not in misuse:
                    ring.acquire(put)  # the producer's wait
                ring.expect(put, BOX_BYTES)
                T.cuda.tile.apply(T.ptx[LOAD], slots[put.stage], A.tensor_map, (0, k * ROWS), ring.full(put))
            get = P.PipelineState.producer(stages, k) if "wrong_phase" in misuse else P.PipelineState(stages, k)
            if "no_wait" not in misuse:
                ring.wait(get)  # the consumer's wait
            _consume(slots[get.stage], acc, t)
            if "no_release" not in misuse:
                ring.release(get)
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], acc.reshape((1, 4)))
    return ring_sum


def by_hand(steps, stages):
    """The same kernel, every mbarrier operation and parity written out."""
    @T.function
    def ring_sum(A: T.Tensor((steps * ROWS, COLS), "uint16", tma=T.TensorMap((ROWS, COLS))),
                 Out: T.Tensor((THREADS, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        slots = T.alloc_shared((stages, ROWS, COLS), "uint16", align=128)
        full = T.alloc_shared((stages,), "uint64", align=8, name="ring.full")
        full_state, full_done = T.alloc_local((1,), "uint64"), T.alloc_local((1,), "bool")
        empty = T.alloc_shared((stages,), "uint64", align=8, name="ring.empty")
        empty_state, empty_done = T.alloc_local((1,), "uint64"), T.alloc_local((1,), "bool")
        acc = T.alloc_local((1, 1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)), T.uint32(0))
        for s in range(stages):
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], full[s:s + 1], T.uint32(1), pred=t == 0)
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], empty[s:s + 1], T.uint32(THREADS),
                              pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        for k in T.serial(0, steps):
            with T.if_(t == 0):
                s = k % stages
                with T.until(empty_done):
                    T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], empty_done,
                                      empty[s:s + 1], T.uint32((k // stages + 1) % 2))
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], full_state, full[s:s + 1],
                                  T.uint32(BOX_BYTES))
                T.cuda.tile.apply(T.ptx[LOAD], slots[s], A.tensor_map, (0, k * ROWS), full[s:s + 1])
            s = k % stages
            with T.until(full_done):
                T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], full_done, full[s:s + 1],
                                  T.uint32((k // stages) % 2))
            _consume(slots[s], acc, t)
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], empty_state, empty[s:s + 1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], acc.reshape((1, 4)))
    return ring_sum


def data(steps):
    rng = np.random.default_rng(steps)
    a = rng.integers(0, 1 << 16, (steps * ROWS, COLS)).astype(np.uint16)
    words = a.view(np.uint32).reshape(steps, ROWS, COLS // 2).astype(np.uint64)
    want = np.zeros((THREADS, 4), np.uint32)
    for t in range(THREADS):
        want[t] = (words[:, t // 2, 4 * (t % 2):4 * (t % 2) + 4].sum(axis=0) & 0xFFFFFFFF).astype(np.uint32)
    return a, want


def test_the_parts_emit_what_the_hand_written_kernel_does():
    parts = tile_mlir.compile(with_parts(5, 3), target="sm_90a", cubin=False).ptx
    hand = tile_mlir.compile(by_hand(5, 3), target="sm_90a", cubin=False).ptx
    assert parts == hand


@pytest.mark.parametrize("steps,stages", [(1, 1), (5, 1), (5, 2), (7, 3), (2, 4)])
def test_a_ring_sums_every_block(steps, stages):
    a, want = data(steps)
    out = np.zeros((THREADS, 4), np.uint32)
    tile_mlir.interpret(with_parts(steps, stages), a, out)
    assert np.array_equal(out, want)


def test_a_skipped_release_leaves_the_producer_waiting(line_of):
    # Located at the kernel's line, not in the parts.
    a, _ = data(4)
    with pytest.raises(tile_mlir.InterpretError, match="^ring_sum: " + line_of("# the producer's wait") +
                       ": this loop never ends"):
        tile_mlir.interpret(with_parts(4, 2, "no_release"), a, np.zeros((THREADS, 4), np.uint32))


def test_a_consumer_that_does_not_wait_reads_before_the_bytes_land():
    a, _ = data(4)
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(with_parts(4, 2, "no_wait"), a, np.zeros((THREADS, 4), np.uint32))
    assert "cp.async before its wait" in {h.kind for h in caught.value.hazards}


def test_a_consumer_waiting_on_the_wrong_phase_is_reported(line_of):
    # A consumer state that starts at phase 1 passes its first waits at
    # once and then waits for a phase the producer never completes, which
    # it cannot complete until the consumers release.
    a, _ = data(4)
    with pytest.raises(tile_mlir.InterpretError, match="^ring_sum: " + line_of("# the consumer's wait") +
                       ": this loop never ends"):
        tile_mlir.interpret(with_parts(4, 2, "wrong_phase"), a, np.zeros((THREADS, 4), np.uint32))


def test_a_producer_that_does_not_acquire_races_the_consumers():
    a, _ = data(4)
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(with_parts(4, 2, "no_acquire"), a, np.zeros((THREADS, 4), np.uint32))
    assert "write-after-read" in {h.kind for h in caught.value.hazards}


def test_pipeline_state_is_the_ring_arithmetic():
    state = P.PipelineState(3)
    seen = []
    for _ in range(7):
        seen.append((state.stage, state.phase))
        state = state.advance()
    assert seen == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 0)]
    assert [(s.stage, s.phase) for s in (P.PipelineState.producer(2, k) for k in range(4))] == \
        [(0, 1), (1, 1), (0, 0), (1, 0)]
    with pytest.raises(ValueError, match="a state of a 2-stage ring used on a ring of 3"):
        @T.function
        def mismatched(Out: T.Tensor((1, 1), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            P.TmaRing(3, consumers=32).wait(P.PipelineState(2))
    with pytest.raises(ValueError, match="at least 1 stage"):
        P.PipelineState(0)


def test_the_docs_example_runs_as_written(tmp_path, monkeypatch):
    import os
    import re
    monkeypatch.chdir(tmp_path)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "pipelining.md")
    (block,) = re.findall(r"```python\n(.*?)```", open(path).read(), re.S)
    exec(compile(block, "docs/pipelining.md", "exec"), {})


# -- Reductions ---------------------------------------------------------------

from tile_mlir.pipelining.reductions import block_reduce, butterfly  # noqa: E402


def reduce_kernel(warps, opcode, quad=False):
    @T.function
    def reduce(X: T.Tensor((32 * warps, 1), "float32"), Out: T.Tensor((32 * warps, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32 * warps))
        t = T.thread_id()
        partials = T.alloc_shared((warps, 1), "float32")
        value = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], value, X[t:t + 1])
        if quad:
            butterfly(value, opcode, T.alloc_local((1, 1), "float32"), lanes=4, offsets=(1, 2))
        else:
            block_reduce(value, partials, t, opcode)
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], value)
    return reduce


def butterfly_model(x, offsets):
    """Each lane's value after the butterfly, in f32, as the ISA runs it."""
    x = x.copy()
    lanes = np.arange(x.size)
    for offset in offsets:
        x = (x + x[lanes ^ offset]).astype(np.float32)
    return x


def test_a_block_sum_is_the_stated_order_bit_for_bit():
    warps = 8
    x = np.random.default_rng(3).standard_normal(32 * warps).astype(np.float32)
    out = np.zeros((32 * warps, 1), np.float32)
    tile_mlir.interpret(reduce_kernel(warps, "add.rn.f32"), x.reshape(-1, 1), out)
    partials = [butterfly_model(x[32 * w:32 * w + 32], (16, 8, 4, 2, 1))[0] for w in range(warps)]
    total = np.float32(partials[0])
    for p in partials[1:]:
        total = np.float32(total + p)
    assert out.tobytes() == np.full((32 * warps, 1), total, np.float32).tobytes()


def test_a_quad_butterfly_in_the_written_order():
    x = np.random.default_rng(4).standard_normal(32).astype(np.float32)
    out = np.zeros((32, 1), np.float32)
    tile_mlir.interpret(reduce_kernel(1, "add.rn.f32", quad=True), x.reshape(-1, 1), out)
    assert out.ravel().tobytes() == butterfly_model(x, (1, 2)).tobytes()


def test_block_reduce_emits_the_hand_written_sequence():
    import re
    text = str(reduce_kernel(8, "max.f32").module)
    opcodes = re.findall(r'tile\.apply "([^"]+)"', text)
    assert opcodes == (["ld.global.f32"] + ["shfl.sync.bfly.b32", "max.f32"] * 5
                       + ["st.shared.f32", "bar.sync", "ld.shared.v4.f32", "mov.b32"] + ["max.f32"] * 7
                       + ["st.global.f32"])
    with pytest.raises(ValueError, match="not a multiple of 4"):
        reduce_kernel(2, "max.f32")


# -- Fragment layouts ----------------------------------------------------------

def test_the_wgmma_accumulator_is_the_isa_figure():
    # PTX ISA 9.7.15.5.1, the D figure: thread T0-T3 of warp w hold row
    # 16w + T/4, registers d0-d1 columns 2 (T % 4) and the next, d2-d3 the
    # same 8 rows down, and every 4 registers the next 8 columns.
    from tile_mlir.pipelining.layouts import WgmmaAccumulator
    layout = WgmmaAccumulator(256)
    for e in range(layout.registers):
        for warp in range(4):
            for lane in range(32):
                want = (16 * warp + lane // 4 + 8 * ((e % 4) // 2), 8 * (e // 4) + 2 * (lane % 4) + e % 2)
                assert layout.place(e, warp, lane) == want
    assert layout.place(5, 1, 6, row0=64, col0=8) == (64 + 16 + 1, 8 + 8 + 4 + 1)
    with pytest.raises(ValueError, match="registers 0 to 3 of an N=8 D, not 4"):
        WgmmaAccumulator(8).place(4, 0, 0)
    with pytest.raises(ValueError, match="multiple of 8 from 8 to 256"):
        WgmmaAccumulator(12)


# -- Named barriers ------------------------------------------------------------

def each_warpgroup_syncs(named):
    """Two warpgroups each write their half of a shared row, sync on a
    barrier of their 128 threads, and read a neighbour's word of their
    half: with `named` each on its own barrier, else both on id 1."""
    @T.function
    def halves(Out: T.Tensor((256, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
        t = T.thread_id()
        row = T.alloc_shared((256, 1), "uint32")
        bars = P.Mbarriers(1)  # the warpgroups' clocks
        bars[0].init(1, where=t == 0)
        stores = P.NamedBarriers().allocate("stores", threads=128, count=2)
        v = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], v, T.uint32(t))
        T.cuda.tile.apply(T.ptx["st.shared.b32"], row[t:t + 1], v)
        wg = t // 128
        if named:
            stores.sync(wg)
        else:
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(1), T.uint32(128))  # one id for both
        n = wg * 128 + (t + 1) % 128
        T.cuda.tile.apply(T.ptx["ld.shared.b32"], v, row[n:n + 1])
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], v)
    return halves


def test_named_barriers_keep_each_warpgroup_to_its_own():
    out = np.zeros((256, 1), np.uint32)
    tile_mlir.interpret(each_warpgroup_syncs(True), out)
    assert out.ravel().tolist() == [wg * 128 + (t + 1) % 128 for wg in range(2) for t in range(128)]
    text = tile_mlir.compile(each_warpgroup_syncs(True), target="sm_90a", cubin=False).ptx
    assert "bar.sync \t%r" in text and ", 128;" in text


def test_two_warpgroups_on_one_raw_id_are_reported():
    # Both warpgroups' 256 threads at barrier 1 of 128.
    with pytest.raises(tile_mlir.HazardError, match=r"bar.sync reached by 256 of the 128 threads of block 0"):
        tile_mlir.interpret(each_warpgroup_syncs(False), np.zeros((256, 1), np.uint32))


def test_named_barriers_are_allocated_by_name_in_order():
    named = P.NamedBarriers()
    turns = named.allocate("turns", threads=256, count=2)
    stores = named.allocate("stores", threads=128, count=2)
    assert (turns.id(0), turns.id(1), stores.id(0), stores.id(1)) == (1, 2, 3, 4)
    with pytest.raises(ValueError, match="'turns' are allocated already"):
        named.allocate("turns", threads=256)
    with pytest.raises(ValueError, match="needs 12 more named barriers; ids 1 to 15 are 4 taken"):
        named.allocate("many", threads=32, count=12)
    with pytest.raises(ValueError, match="whole warps, not 48 threads"):
        named.allocate("odd", threads=48)
    with pytest.raises(ValueError, match="'stores' has barriers 0 to 1, not 2"):
        stores.id(2)


# -- Epilogues -------------------------------------------------------------------

from tile_mlir.pipelining.epilogues import stage_and_store  # noqa: E402
from tile_mlir.pipelining.layouts import WgmmaAccumulator  # noqa: E402


def staged_store(times, same_place=False):
    """One warpgroup's D (64 x 128 f32, register e of thread t holding
    t * 64 + e) stored `times` times as bf16 through one shared buffer,
    each time each value plus one, to the next 128 columns of C (or, with
    `same_place`, to the same ones)."""
    @T.function
    def epilogue(C: T.Tensor((64, 128 * times), "uint16", tma=T.TensorMap((64, 64), "128B"))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        buf = T.alloc_dynamic_shared((2, 64, 64), "uint16", align=1024).swizzle("128B")
        acc = T.alloc_local((1, 1, 64), "float32")
        stores = P.NamedBarriers().allocate("stores", threads=128)
        for step in range(times):
            for e in range(64):
                T.cuda.tile.apply(T.ptx["cvt.rn.f32.u32"], acc[0, 0:1, e:e + 1],
                                  T.uint32(t * 64 + e + step))  # a value per register
            col0 = 0 if same_place else 128 * step
            stage_and_store(C, buf, acc, 0, col0, 128, t // 32, t % 32, t, "bf16", T.uint32(stores.id()))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))
    return epilogue


@pytest.mark.parametrize("times", [1, 2])
def test_stage_and_store_puts_each_register_where_the_layout_says(times):
    # Twice through one buffer: the second call waits for the first
    # store's read of it before its stmatrix writes.
    out = np.zeros((64, 128 * times), np.uint16)
    tile_mlir.interpret(staged_store(times), out)
    layout, want = WgmmaAccumulator(128), np.zeros((64, 128 * times), np.float32)
    for step in range(times):
        for t in range(128):
            for e in range(64):
                row, col = layout.place(e, t // 32, t % 32, 0, 128 * step)
                want[row, col] = t * 64 + e + step
    bits = want.view(np.uint32)
    bf16 = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # rounded to nearest even
    assert np.array_equal(out, bf16.astype(np.uint16))


from tile_mlir.pipelining.epilogues import DeferredPairs  # noqa: E402


def deferred_store(rows, order):
    """One warpgroup's D (64 x 128 f32, register e of thread t holding
    t * 64 + e) rounded into held bf16 pairs, the registers then
    overwritten, and the held pairs stored chunk by chunk (of 4, in
    `order`) into the rows below `rows`."""
    @T.function
    def epilogue(C: T.Tensor((64, 128), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
        t = T.thread_id()
        acc = T.alloc_local((2, 1, 32), "float32")
        pairs = DeferredPairs(2, "bf16", 4)
        for e in range(64):
            T.cuda.tile.apply(T.ptx["cvt.rn.f32.u32"], acc[e // 32, 0:1, e % 32:e % 32 + 1], T.uint32(t * 64 + e))
        pairs.round(acc)
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.view("uint32").reshape((64, 1)), T.uint32(0))
        for chunk in order:
            pairs.store(C, chunk, t // 32, t % 32, 0, rows)
    return epilogue


@pytest.mark.parametrize("rows, order", [(64, (0, 1, 2, 3)), (37, (3, 1, 0, 2))])
def test_deferred_pairs_store_what_was_rounded_below_the_rows(rows, order):
    # The held pairs, not the registers rounded from, are stored; each
    # chunk once, in any order; rows at or past `rows` keep what C held.
    out = np.full((64, 128), 0x7777, np.uint16)
    tile_mlir.interpret(deferred_store(rows, order), out)
    layout, want = WgmmaAccumulator(64), np.zeros((64, 128), np.float32)
    for t in range(128):
        for e in range(64):
            row, col = layout.place(e % 32, t // 32, t % 32, 0, 64 * (e // 32))
            want[row, col] = t * 64 + e
    bits = want.view(np.uint32)
    bf16 = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)  # rounded to nearest even
    assert np.array_equal(out[:rows], bf16[:rows])
    assert (out[rows:] == 0x7777).all()
    with pytest.raises(ValueError, match="32 pairs do not split into 5 chunks"):
        DeferredPairs(2, "bf16", 5)


def test_two_stores_to_one_place_without_a_wait_race():
    # The second store's writes and the first's are not ordered until a
    # cp.async.bulk.wait_group (without .read) covers the first.
    with pytest.raises(tile_mlir.HazardError, match=r"writes C byte 0, which the bulk store at \S+ may still be "
                                                    r"writing"):
        tile_mlir.interpret(staged_store(2, same_place=True), np.zeros((64, 256), np.uint16))


from tile_mlir.pipelining.epilogues import reduce_add_boxes, stage_f32_pairs  # noqa: E402


def staged_reduction(wait):
    """3 blocks each add their warpgroup's D (64 x 64 f32, register e of
    thread t of block b holding t * 32 + e + b) to C's rows 40 to 103
    (C has 100: the last 4 fall outside) twice, through one shared
    buffer; `wait`: thread 0 waits for the first reductions to read it
    (and a barrier tells the block) before it is written again."""
    @T.function
    def reduction(C: T.Tensor((100, 64), "float32", tma=T.TensorMap((64, 32), "128B"))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=3, block=128))
        t, b = T.thread_id(), T.block_id()
        buf = T.alloc_dynamic_shared((2, 64, 32), "float32", align=1024).swizzle("128B")
        acc = T.alloc_local((1, 1, 32), "float32")
        for _ in range(2):
            for e in range(32):
                T.cuda.tile.apply(T.ptx["cvt.rn.f32.u32"], acc[0, 0:1, e:e + 1], T.uint32(t * 32 + e + b))
            if wait:
                with T.if_(t == 0):
                    T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
            P.sync_block()
            stage_f32_pairs(buf, acc, t // 32, t % 32)
            P.sync_block()
            with T.if_(t == 0):
                reduce_add_boxes(C, buf, (0, 40))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))
    return reduction


def test_staged_f32_pairs_add_each_register_where_the_layout_says():
    out = np.full((100, 64), 0.5, np.float32)
    tile_mlir.interpret(staged_reduction(wait=True), out)
    want, layout = np.full((104, 64), 0.5, np.float64), WgmmaAccumulator(64)
    for b in range(3):
        for t in range(128):
            for e in range(32):
                row, col = layout.place(e, t // 32, t % 32, 40, 0)
                want[row, col] += 2 * (t * 32 + e + b)  # small integers: every sum exact
    assert np.array_equal(out, want[:100].astype(np.float32))


def test_staging_again_before_the_reductions_read_the_buffer_races():
    with pytest.raises(tile_mlir.HazardError, match=r"st.shared.v2.f32 writes the dynamic shared memory byte \d+, "
                                                    r"which the cp.async.bulk.tensor store at \S+ may still read"):
        tile_mlir.interpret(staged_reduction(wait=False), np.zeros((100, 64), np.float32))


def test_staged_f32_pairs_emit_a_vector_store_a_pair_and_one_reduction_a_box():
    ptx = tile_mlir.compile(staged_reduction(wait=True), target="sm_90a").ptx
    assert len(re.findall(r"st\.shared\.v2\.f32", ptx)) == 2 * 16
    assert len(re.findall(r"cp\.reduce\.async\.bulk\.tensor\.2d\.global\.shared::cta\.add\.tile\.bulk_group",
                          ptx)) == 2 * 2
    assert len(re.findall(r"fence\.proxy\.async\.shared::cta", ptx)) == 2


# -- Tile schedulers ---------------------------------------------------------------

@pytest.mark.parametrize("tiles_m,tiles_n,group_m", [(16, 16, 8), (32, 16, 16), (6, 5, 3), (4, 7, 1), (7, 5, 3),
                                                     (5, 3, 8), (17, 4, 8)])
def test_grouped_tiles_cover_the_grid_once_in_groups(tiles_m, tiles_n, group_m):
    from tile_mlir.pipelining.schedulers import GroupedTiles
    tiles = GroupedTiles(tiles_n, group_m, tile_m=128, tile_n=256, tiles_m=tiles_m)
    origins = [tiles.origin(i) for i in range(tiles_m * tiles_n)]
    assert sorted(origins) == [(128 * r, 256 * c) for r in range(tiles_m) for c in range(tiles_n)]
    # Each group (the last of the rows left): its tile rows down column
    # 0, then down column 1, ...
    for first in range(0, tiles_m, group_m):
        rows = range(first, min(first + group_m, tiles_m))
        start = first * tiles_n
        assert origins[start:start + len(rows) * tiles_n] == [(128 * r, 256 * c) for c in range(tiles_n)
                                                              for r in rows]
    with pytest.raises(ValueError, match="group_m is a positive integer"):
        GroupedTiles(4, 0, 128, 128)
    with pytest.raises(ValueError, match="tiles_m is a positive integer, got 0"):
        GroupedTiles(4, 2, 128, 128, tiles_m=0)


def grouped_origins(tiles):
    """One thread writes the origin of every tile of `tiles`, taken at run
    time (an index), to Out[tile]."""
    count = tiles.tiles_m * tiles.tiles_n

    @T.function
    def origins(Out: T.Tensor((count, 2), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        held = T.alloc_local((1, 2), "uint32")
        for unit in T.serial(0, count):
            row0, col0 = tiles.origin(unit)
            T.cuda.tile.apply(T.ptx["mov.b32"], held[0:1, 0:1], T.uint32(row0))
            T.cuda.tile.apply(T.ptx["mov.b32"], held[0:1, 1:2], T.uint32(col0))
            T.cuda.tile.apply(T.ptx["st.global.v2.u32"], Out[unit:unit + 1], held)
    return origins


@pytest.mark.parametrize("tiles_m,tiles_n,group_m", [(7, 5, 3), (4, 3, 2), (5, 3, 8)])
def test_grouped_tiles_at_run_time_match_the_order(tiles_m, tiles_n, group_m):
    from tile_mlir.pipelining.schedulers import GroupedTiles
    tiles = GroupedTiles(tiles_n, group_m, tile_m=128, tile_n=64, tiles_m=tiles_m)
    out = np.zeros((tiles_m * tiles_n, 2), np.uint32)
    tile_mlir.interpret(grouped_origins(tiles), out)
    assert out.tolist() == [list(tiles.origin(i)) for i in range(tiles_m * tiles_n)]


@pytest.mark.parametrize("rows", [4, 6])
def test_either_tiles_takes_the_order_its_condition_names_when_it_runs(rows):
    # The condition (a runtime one: the tensor's rows, read when the kernel
    # runs, a multiple of 4) picks groups of 2 tile rows or row by row; the
    # origins are the chosen order's, and stay multiples of the tile.
    from tile_mlir.pipelining.schedulers import EitherTiles, GroupedTiles
    grouped, by_rows = (GroupedTiles(3, group, tile_m=128, tile_n=64) for group in (2, 1))

    @T.function
    def origins(Rows: T.Tensor((None, 1), "uint32"), Out: T.Tensor((12, 2), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        tiles = EitherTiles(Rows.extent(0) % 4 == 0, grouped, by_rows)
        held = T.alloc_local((1, 2), "uint32")
        for unit in T.serial(0, 12):
            row0, col0 = tiles.origin(unit)
            T.cuda.tile.apply(T.ptx["mov.b32"], held[0:1, 0:1], T.uint32(row0))
            T.cuda.tile.apply(T.ptx["mov.b32"], held[0:1, 1:2], T.uint32(col0))
            T.cuda.tile.apply(T.ptx["st.global.v2.u32"], Out[unit:unit + 1], held)
    out = np.zeros((12, 2), np.uint32)
    tile_mlir.interpret(origins, np.zeros((rows, 1), np.uint32), out)
    chosen = grouped if rows % 4 == 0 else by_rows
    assert out.tolist() == [list(chosen.origin(i)) for i in range(12)]
    with pytest.raises(ValueError, match="the two orders' tiles differ: 128 x 64 and 64 x 64"):
        EitherTiles(None, grouped, GroupedTiles(3, 1, tile_m=64, tile_n=64))


# -- Warpgroup roles -------------------------------------------------------------

def specialized_ring_sum(steps, stages):
    """Warpgroup 0 produces (thread 0 loads each k block through the ring),
    warpgroups 1 and 2 consume: consumer thread p adds its 4 words of every
    block, as ring_sum's thread p does."""
    from tile_mlir.pipelining.roles import WarpgroupRoles

    @T.function
    def specialized(A: T.Tensor((steps * ROWS, COLS), "uint16", tma=T.TensorMap((ROWS, COLS))),
                    Out: T.Tensor((2, THREADS, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=3 * THREADS))
        t = T.thread_id()
        slots = T.alloc_shared((stages, ROWS, COLS), "uint16", align=128)
        ring = P.TmaRing(stages, consumers=2 * THREADS)
        acc = T.alloc_local((1, 1, 4), "uint32")
        ring.init(where=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        roles = WarpgroupRoles(t, registers=(40, 232))
        with roles.producer():
            with T.if_(roles.p == 0):
                for k in T.serial(0, steps):
                    put = P.PipelineState.producer(stages, k)
                    ring.acquire(put)
                    ring.expect(put, BOX_BYTES)
                    T.cuda.tile.apply(T.ptx[LOAD], slots[put.stage], A.tensor_map, (0, k * ROWS), ring.full(put))
        with roles.consumers() as c:
            T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)), T.uint32(0))
            for k in T.serial(0, steps):
                get = P.PipelineState(stages, k)
                ring.wait(get)
                _consume(slots[get.stage], acc, roles.p)
                ring.release(get)
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[c, roles.p:roles.p + 1], acc.reshape((1, 4)))
    return specialized


@pytest.mark.parametrize("steps,stages", [(5, 2), (3, 3)])
def test_a_warp_specialized_ring_sums_every_block(steps, stages):
    a, want = data(steps)
    out = np.zeros((2, THREADS, 4), np.uint32)
    tile_mlir.interpret(specialized_ring_sum(steps, stages), a, out)
    assert np.array_equal(out[0], want) and np.array_equal(out[1], want)


def test_roles_emit_setmaxnreg_first_in_each_branch():
    import re
    text = str(specialized_ring_sum(2, 2).module)
    opcodes = re.findall(r'tile\.apply "(setmaxnreg[^"]+)"', text)
    assert opcodes == ["setmaxnreg.dec.sync.aligned.u32", "setmaxnreg.inc.sync.aligned.u32"]
    from tile_mlir.pipelining.roles import WarpgroupRoles
    with pytest.raises(ValueError, match="24 to 256 registers in steps of 8, got 20"):
        WarpgroupRoles(None, registers=(20, 232))


def turns_kernel(rounds, wait_twice=False):
    """Consumer warpgroups 0 and 1 take `rounds` turns each; in its turn,
    each one's thread 0 writes its index to the next slot of a log (turns
    in order: 0, 1, 0, 1, ...), and a barrier of both orders the log."""
    from tile_mlir.pipelining.roles import ConsumerTurns

    @T.function
    def turns(Log: T.Tensor((2 * rounds, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=2 * THREADS))
        t = T.thread_id()
        c, p = t // THREADS, t % THREADS
        log = T.alloc_shared((2 * rounds, 1), "uint32")
        bars = P.Mbarriers(1)  # the warpgroups' clocks
        bars[0].init(1, where=t == 0)
        named = P.NamedBarriers()
        turn = ConsumerTurns(c, named.allocate("turns", threads=256, count=2))
        v = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], v, T.uint32(c))
        for r in range(rounds):
            turn.wait_turn()
            if wait_twice and r == 1:
                turn.wait_turn()  # a second wait in one turn
            slot = 2 * r + c
            T.cuda.tile.apply(T.ptx["st.shared.b32"], log[slot:slot + 1], v, pred=p == 0)  # the turn's write
            turn.pass_turn(r < rounds - 1)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t < 2 * rounds):
            T.cuda.tile.apply(T.ptx["ld.shared.b32"], v, log[t:t + 1])
            T.cuda.tile.apply(T.ptx["st.global.b32"], Log[t:t + 1], v)
    return turns


def test_consumer_turns_alternate():
    log = np.zeros((6, 1), np.uint32)
    tile_mlir.interpret(turns_kernel(3), log)
    assert log.ravel().tolist() == [0, 1, 0, 1, 0, 1]


def test_waiting_twice_in_one_turn_is_reported(line_of):
    # The turn is not passed back before the second wait: it never comes.
    with pytest.raises(tile_mlir.InterpretError, match=line_of("# a second wait in one turn") +
                       r": bar.sync never completes"):
        tile_mlir.interpret(turns_kernel(3, wait_twice=True), np.zeros((6, 1), np.uint32))


def test_a_hang_names_the_hazards_found_before_it(line_of):
    # A consumer that neither waits nor releases: its reads race the
    # copies (found first), then the producer's wait never ends.
    a, _ = data(4)
    with pytest.raises(tile_mlir.InterpretError) as caught:
        tile_mlir.interpret(with_parts(4, 2, "no_wait+no_release"), a, np.zeros((THREADS, 4), np.uint32))
    text = str(caught.value)
    assert text.startswith("ring_sum: " + line_of("# the producer's wait") + ": this loop never ends")
    assert "\nbefore it, the interpreter found " in text and "has not delivered" in text


# -- What the kernels package added ---------------------------------------------

def test_behind_is_the_earlier_step_and_never_negative():
    state = P.PipelineState(4, step=9)
    earlier = state.behind(1)
    assert (earlier.stage, earlier.phase) == (P.PipelineState(4, 8).stage, P.PipelineState(4, 8).phase)
    # Step 0's predecessor is addressed through a slot of the ring, not -1.
    first = P.PipelineState(4, 0).behind(1)
    assert first.step == 7 and first.stage == 3 and first.phase == 1
    with pytest.raises(ValueError, match="behind takes 0 to 8 steps of a 4-stage ring, got 9"):
        state.behind(9)


def test_a_branched_first_pass_skips_the_first_waits_and_still_sums():
    # acquire(branch_first_pass=True): for a step known while tracing and
    # below the stages no wait at all (5 steps over 3 slots unrolled: the
    # producer waits at steps 3 and 4 only, the consumers at all 5); for a
    # runtime step the wait inside `if step >= stages`, which the
    # interpreter runs to the right sums.
    def ring(branch, unrolled):
        @T.function
        def ring_sum(A: T.Tensor((5 * ROWS, COLS), "uint16", tma=T.TensorMap((ROWS, COLS))),
                     Out: T.Tensor((THREADS, 4), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
            t = T.thread_id()
            slots = T.alloc_shared((3, ROWS, COLS), "uint16", align=128)
            ring = P.TmaRing(3, consumers=THREADS)
            acc = T.alloc_local((1, 1, 4), "uint32")
            T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)), T.uint32(0))
            ring.init(where=t == 0)
            P.sync_block()
            for k in (range(5) if unrolled else T.serial(0, 5)):
                with T.if_(t == 0):
                    put = P.PipelineState.producer(3, k)
                    ring.acquire(put, branch_first_pass=branch)
                    ring.expect(put, BOX_BYTES)
                    T.cuda.tile.apply(T.ptx[LOAD], slots[put.stage], A.tensor_map, (0, k * ROWS), ring.full(put))
                get = P.PipelineState(3, k)
                ring.wait(get)
                _consume(slots[get.stage], acc, t)
                ring.release(get)
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], acc.reshape((1, 4)))
        return ring_sum

    waits = [tile_mlir.compile(ring(b, True), target="sm_90a", cubin=False).ptx.count("mbarrier.try_wait.parity")
             for b in (False, True)]
    assert waits == [5 + 5, 2 + 5]
    a, want = data(5)
    for unrolled in (True, False):
        out = np.zeros((THREADS, 4), np.uint32)
        tile_mlir.interpret(ring(True, unrolled), a, out)
        assert np.array_equal(out, want)


@pytest.mark.parametrize("heads, places, causal, blocks, extra", [
    (3, 4, False, 5, 0), (2, 6, True, 4, 0), (4, 8, True, 132, 0), (3, 4, True, 5, 3)])
def test_head_tiles_take_every_tile_once_and_causal_units_equal_work(heads, places, causal, blocks, extra):
    tiles = P.HeadTiles(heads, places, tile_m=128, tile_n=64, causal=causal, blocks=blocks, extra_steps=extra)
    per_tile = 2
    seen = []
    for bid in range(tiles.grid):
        step = 0  # the ring runs on across a block's tiles
        for i in range(tiles.count(bid)):
            work = 0
            for h in range(tiles.per_unit):
                first_row, head, steps, first_step, _ = tiles.tile(bid, i, h)
                assert first_step == step
                step += steps
                work += steps
                seen.append((head, first_row))
                # Causal: the key blocks up to the tile's last row, and
                # `extra` more (S_k - S_q keys past the diagonal).
                assert steps == ((first_row // 128 + 1) * per_tile + extra if causal else places * per_tile)
            if causal:
                assert work == (places + 1) * per_tile + 2 * extra  # every unit the same work
    assert sorted(seen) == [(h, 128 * p) for h in range(heads) for p in range(places)]
    with pytest.raises(ValueError, match="causal pairs a head's tiles: 3 tiles is an odd number"):
        P.HeadTiles(1, 3, 128, 128, True, 4)
    with pytest.raises(ValueError, match="extra_steps moves the causal diagonal: it takes causal tiles only"):
        P.HeadTiles(1, 2, 128, 128, False, 4, extra_steps=1)


@pytest.mark.parametrize("heads, places, splits, blocks", [(3, 2, 4, 5), (2, 1, 3, 132), (1, 1, 7, 2)])
def test_head_tiles_split_the_keys_of_each_tile(heads, places, splits, blocks):
    # Split-KV: every (head, tile, part of the keys) once; a tile's parts
    # in adjacent units; the ring's steps run on across a block's units.
    tiles = P.HeadTiles(heads, places, tile_m=128, tile_n=128, causal=False, blocks=blocks, kv_steps=3,
                        splits=splits)
    assert tiles.units == heads * places * splits and tiles.grid == min(blocks, tiles.units)
    seen = []
    for bid in range(tiles.grid):
        for i in range(tiles.count(bid)):
            tile = tiles.tile(bid, i)
            assert (tile.steps, tile.first_step) == (3, 3 * i)
            seen.append(((tile.head, tile.first_row), tile.split))
            assert bid + i * tiles.grid == ((tile.head * places + tile.first_row // 128) * splits + tile.split)
    assert sorted(seen) == [((h, 128 * p), s) for h in range(heads) for p in range(places) for s in range(splits)]
    for kw in ({"causal": True}, {"kv_steps": None}):
        with pytest.raises(ValueError, match="2 splits of the keys: splits take tiles not causal, of kv_steps"):
            P.HeadTiles(1, 2, 128, 128, **{"causal": False, "blocks": 4, "kv_steps": 2, "splits": 2, **kw})


# -- The cp.async ring ------------------------------------------------------------------

def cp_async_sum(steps, stages, misuse=""):
    """Every thread copies its 16-byte piece of k block k (64 x 16 u16: 128
    pieces) into the ring's slot, stages - 1 steps ahead, and adds the 4
    words of another thread's piece (thread t reads piece t ^ 1, so a
    missing barrier shows). `misuse`: "no_wait", "no_barrier"."""
    @T.function
    def ring_sum(A: T.Tensor((steps * ROWS, COLS), "uint16"), Out: T.Tensor((THREADS, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        slots = T.alloc_shared((stages, ROWS, COLS), "uint16", align=128)
        ring = P.CpAsyncRing(stages)
        acc = T.alloc_local((1, 1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((4, 1)), T.uint32(0))

        def copy(k):
            row, half = t // 2, t % 2
            last = k - (k // steps) * (k - (steps - 1))  # past the end: the last block again, never read
            T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], slots[ring.slot(k), row:row + 1, 8 * half:8 * half + 8],
                              A[last * ROWS + row:last * ROWS + row + 1, 8 * half:8 * half + 8], T.uint32(16))
            ring.commit()

        for s in range(stages - 1):
            copy(s)
        for k in T.serial(0, steps):
            if misuse == "no_wait":
                pass
            elif misuse == "no_barrier":
                T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(stages - 2))
            else:
                ring.wait()
            copy(k + stages - 1)
            _consume(slots[ring.slot(k)], acc, t ^ 1)
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], acc.reshape((1, 4)))
    return ring_sum


@pytest.mark.parametrize("steps, stages", [(5, 3), (6, 4), (2, 2)])
def test_a_cp_async_ring_sums_every_block(steps, stages):
    a, want = data(steps)
    out = np.zeros((THREADS, 4), np.uint32)
    tile_mlir.interpret(cp_async_sum(steps, stages), a, out)
    assert np.array_equal(out, want[np.arange(THREADS) ^ 1])


def test_a_cp_async_ring_read_before_its_wait_is_reported():
    a, _ = data(5)
    with pytest.raises(tile_mlir.HazardError, match="has not delivered"):
        tile_mlir.interpret(cp_async_sum(5, 3, "no_wait"), a, np.zeros((THREADS, 4), np.uint32))


def test_a_cp_async_ring_without_its_barrier_races():
    # Each thread waited for its own pieces; the other thread's piece it
    # reads, and the slot it refills, are unordered without the barrier.
    a, _ = data(5)
    with pytest.raises(tile_mlir.HazardError, match="read-after-write race on the shared buffer"):
        tile_mlir.interpret(cp_async_sum(5, 3, "no_barrier"), a, np.zeros((THREADS, 4), np.uint32))


def test_the_cp_async_ring_emits_the_multistage_sequence():
    # Two steps ahead, then each step: wait for the oldest group (1 newer
    # pending), the block barrier, the refill and its commit (LLVM unrolls
    # the 5 steps).
    ptx = tile_mlir.compile(cp_async_sum(5, 3), target="sm_90", cubin=False).ptx
    names = {"cp.async.cg": "copy", "cp.async.commit_group": "commit", "cp.async.wait_group 1": "wait",
             "bar.sync \t0": "barrier"}
    sequence = [names[m] for m in re.findall(r"cp\.async\.cg|cp\.async\.commit_group|cp\.async\.wait_group 1|"
                                             r"bar\.sync \t0", ptx)]
    assert sequence == ["copy", "commit"] * 2 + ["wait", "barrier", "copy", "commit"] * 5
    with pytest.raises(ValueError, match="at least 2 stages"):
        P.CpAsyncRing(1)


def test_the_mma_accumulator_is_the_isa_table():
    layout = P.MmaAccumulator("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
    assert layout.elements == 4
    # PTX ISA, "Matrix Fragments for mma.m16n8k16", C/D: row groupID (+ 8
    # for c2, c3), column threadID_in_group * 2 + (i & 1).
    assert [layout.place(i, 13, 100, 200) for i in range(4)] == [(103, 202), (103, 203), (111, 202), (111, 203)]
    with pytest.raises(ValueError, match="is a wgmma form, not an mma.sync"):
        P.MmaAccumulator("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16")


@pytest.mark.parametrize("tiles, steps, blocks", [(512, 64, 132), (20, 7, 8), (9, 3, 4), (5, 2, 8), (128, 128, 132)])
def test_stream_k_shares_cover_the_last_wave_once_and_evenly(tiles, steps, blocks):
    split = P.StreamKShares(tiles, steps, blocks)
    # The whole waves, unless the last one has fewer steps than blocks (then
    # it stays a short wave of whole tiles).
    assert split.whole_tiles + split.shared_tiles == tiles
    assert split.whole_tiles % blocks == 0 or (split.shared_tiles == 0 and tiles % blocks * steps < blocks)
    seen = []
    for b in range(blocks):
        begin, end = split.share(b)
        for i in range(split.first_shared_tile(b), split.end_shared_tile(b)):
            lo, hi = split.segment(b, i)
            assert 0 <= lo < hi <= steps
            seen += [(i, s) for s in range(lo, hi)]
            assert b in split.contributors(i)
    # Every step of every shared tile exactly once, in order of the blocks.
    assert seen == [(i, s) for i in range(split.shared_tiles) for s in range(steps)]
    if split.shared_tiles:
        sizes = [end - begin for begin, end in map(split.share, range(blocks))]
        assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
        for i in range(split.shared_tiles):
            # The first contributor's share holds the tile's step 0.
            assert split.segment(split.contributors(i)[0], i)[0] == 0
    with pytest.raises(ValueError, match="blocks is a positive integer"):
        P.StreamKShares(4, 4, 0)


def test_head_tiles_with_their_own_key_blocks():
    # S_q != S_k (not causal): each tile has the keys' blocks, and the
    # ring's steps run on by them.
    tiles = P.HeadTiles(2, 3, tile_m=128, tile_n=128, causal=False, blocks=4, kv_steps=5)
    firsts = [tiles.tile(bid, i) for bid in range(tiles.grid) for i in range(tiles.count(bid))]
    assert all(tile.steps == 5 for tile in firsts)
    assert [tiles.tile(0, i).first_step for i in range(tiles.count(0))] == [0, 5]
    with pytest.raises(ValueError, match="kv_steps takes no causal tiles"):
        P.HeadTiles(2, 2, 128, 128, True, 4, kv_steps=3)
