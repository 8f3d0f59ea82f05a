"""C = A Bt^T on Hopper's warpgroup tensor cores (issue #28), written with
the tile_mlir script front end: bf16 or fp16 A (M x K) and Bt (N x K),
both row major (K-major operands) and passed as their bits (uint16), f32
accumulators and C.

A block of `warpgroups` x 128 threads computes a BM x BN tile of C, BM =
64 x warpgroups, over steps of BK = 64 of K:

1. every thread copies 16-byte pieces of A's BM x 64 and Bt's BN x 64
   tiles from global to shared memory (cp.async.cg), `stages` buffers deep,
   one commit group per step; each tile's rows are 128 bytes, placed by the
   128-byte swizzle wgmma reads;
2. before step kt: cp.async.wait_group (its pieces have landed),
   fence.proxy.async (the copies, written through the generic proxy,
   become visible to wgmma's async proxy), a barrier (every thread's
   pieces; every warpgroup is past the wgmma.wait_group that retired step
   kt - 2), then the copy of step kt + stages - 2 into step kt - 2's
   buffer;
3. each warpgroup issues four wgmma.mma_async m64nBNk16 over its 64 rows of
   A and all of Bt's tile, through descriptors of the swizzled tiles
   (tile.matrix_descriptor), commits them and waits until at most that
   group is pending, so one step's wgmma overlap the next step's barrier;
4. after the last step, wait_group 0, and each thread stores its D pairs
   (rows 16w + l/4 and + 8 of its warp, columns 2(l % 4) of each block of
   8: the wgmma D fragment) with st.global.v2.f32.

On integer-valued data small enough that every partial sum is exact, the
result equals numpy bit for bit (bench/gemm/gemm_reference.py), in the
interpreter and on the H200.
"""


from tile_mlir import script as T
from tile_mlir.pipelining.epilogues import stage_and_store, stmatrix_place
from tile_mlir.pipelining.layouts import WgmmaAccumulator
from tile_mlir.pipelining.roles import WarpgroupRoles
from tile_mlir.pipelining.schedulers import GroupedTiles
from tile_mlir.pipelining.state import PipelineState

BK = 64          # a step of K: one 128-byte swizzled row of b16
KINDS = {"float16": "f16", "bfloat16": "bf16", "e4m3": "e4m3"}
# The deferred epilogue stores the previous tile in this many chunks, one
# after each of the first steps' wgmma.
DEFERRED_STEPS = 4



def _block_origin(bid, blocks_n, group_m, bm, bn):
    """The first row and column of C that block `bid` computes: blocks in
    groups of `group_m` block rows, column by column within a group
    (pipelining.schedulers)."""
    return GroupedTiles(blocks_n, group_m, bm, bn).origin(bid)


def _copy_step(tiles, kt, buffer, thread, threads):
    """Step kt's 16-byte pieces of each (shared tile, tensor, rows, first
    row) of `tiles` into shared buffer `buffer`, dealt to `threads` threads
    of which this is `thread`."""
    units = BK * 2 // 16  # 16-byte pieces per row
    for tile, tensor, rows, first in tiles:
        for i in range(rows * units // threads):
            piece = i * threads + thread
            r, u = piece // units, piece % units
            T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], tile[buffer, r:r + 1, 8 * u:8 * u + 8],
                              tensor[first + r:first + r + 1, kt * BK + 8 * u:kt * BK + 8 * u + 8],
                              T.uint32(16))


def _multiply_step(opcode, acc, a_s, b_s, buffer, a_row, bn, accumulate, k_step=16, pending=1, fresh=None):
    """One step of K (one 128-byte row): four wgmma of `k_step` (16 for
    16-bit inputs, 32 for e4m3) over the 64 rows of A from `a_row` and all
    of Bt's tile in shared buffer `buffer`, committed; then wait until at
    most `pending` groups are (the step `pending` before has retired). Only
    16-bit inputs take the transpose immediates. `acc` may be a list of
    accumulators, one for each 64 rows from `a_row`. `fresh`, a false
    predicate, is the first wgmma's scale-d instead of `accumulate`: it
    starts the accumulators at A B, whatever they held."""
    T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
    transposes = [T.uint32(0), T.uint32(0)] if k_step == 16 else []
    accs = acc if isinstance(acc, list) else [acc]
    for kk in range(4):
        ks = slice(k_step * kk, k_step * (kk + 1))
        b_desc = b_s[buffer, 0:bn, ks].matrix_descriptor()
        for i, d in enumerate(accs):
            a_desc = a_s[buffer, a_row + 64 * i:a_row + 64 * (i + 1), ks].matrix_descriptor()
            scale_d = fresh if fresh is not None and kk == 0 else accumulate
            T.cuda.tile.apply(T.ptx[opcode], d, a_desc, b_desc, scale_d, T.int32(1), T.int32(1), *transposes)
    T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
    T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(pending))


# Register e of a D fragment sits where it does in the widest one.
_D_FRAGMENT = WgmmaAccumulator(256)


def _fragment_place(row0, col0, e, warp, lane):
    """The row and column of C of register pair e, e + 1 of the wgmma D
    fragment of the 64 rows from `row0` (pipelining.layouts)."""
    return _D_FRAGMENT.place(e, warp, lane, row0, col0)


def _pack(packed, i, acc, e, kind):
    """Register pair e, e + 1 of `acc` rounded to a `kind` pair, into
    `packed`'s element i (cvt.rn.*x2.f32 d, a, b puts a in the upper half:
    the pair's second column)."""
    T.cuda.tile.apply(T.ptx[f"cvt.rn.{kind}x2.f32"], packed[0, 0:1, i:i + 1], acc[0, 0:1, e + 1:e + 2],
                      acc[0, 0:1, e:e + 1])


def _store_packed(C, packed, row0, col0, placed, warp, lane):
    """Each (i, e) of `placed`: the rounded pair in `packed`'s element i,
    register pair e of the D fragment of the 64 rows from `row0`, to C."""
    for i, e in placed:
        r, col = _fragment_place(row0, col0, e, warp, lane)
        T.cuda.tile.apply(T.ptx["st.global.b32"], C.view("uint32")[r:r + 1, col // 2:col // 2 + 1],
                          packed[0, 0:1, i:i + 1])


def _store(C, acc, row0, col0, regs, warp, lane, kind=None):
    """The D fragment's register pairs as f32 pairs, or with `kind` each
    rounded to a bf16x2/f16x2 pair."""
    packed = T.alloc_local((1, 1, 1), "uint32") if kind else None
    for e in range(0, regs, 2):
        if kind is None:
            r, col = _fragment_place(row0, col0, e, warp, lane)
            T.cuda.tile.apply(T.ptx["st.global.v2.f32"], C[r:r + 1, col:col + 2], acc[0, 0:1, e:e + 2])
            continue
        _pack(packed, 0, acc, e, kind)
        _store_packed(C, packed, row0, col0, [(0, e)], warp, lane)


def _wait_stage_free(empty, done, buffer, step, stages):
    """Once every stage has been filled, the producer waits until the
    consumers freed `buffer`: the phase of its `empty` mbarrier before
    `step`'s."""
    with T.if_(step >= stages):
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, empty[buffer:buffer + 1],
                              T.uint32(PipelineState.producer(stages, step).phase))


def _cp_async_producer(A, B, a_s, b_s, full, empty, state, done, row0, col0, steps, stages, depth, bm, bn, p):
    """The producer warpgroup's copies by cp.async, `depth` steps in
    flight: once a step's copies have landed, each thread fences them for
    wgmma's async proxy and arrives on the stage's full mbarrier."""
    def publish(stage):
        T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, full[stage:stage + 1])

    for kt in T.serial(0, steps):
        buffer = kt % stages
        _wait_stage_free(empty, done, buffer, kt, stages)
        _copy_step(((a_s, A, bm, row0), (b_s, B, bn, col0)), kt, buffer, p, 128)
        T.cuda.tile.apply(T.ptx["cp.async.commit_group"])
        with T.if_(kt >= depth - 1):
            T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(depth - 1))
            publish((kt + stages - depth + 1) % stages)
    T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(0))
    for kt in range(steps - depth + 1, steps):
        publish(kt % stages)


def _tma_producer(A, B, a_s, b_s, full, empty, state, done, row0, col0, steps, stages, bm, bn, p, bk=BK):
    """Thread 0 of the producer: each step (`bk` elements of 128 bytes),
    once its stage is free, expects the two boxes' bytes on the stage's
    full mbarrier and copies them."""
    load = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]
    with T.if_(p == 0):
        for kt in T.serial(0, steps):
            buffer = kt % stages
            _wait_stage_free(empty, done, buffer, kt, stages)
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, full[buffer:buffer + 1],
                              T.uint32((bm + bn) * 128))
            T.cuda.tile.apply(load, a_s[buffer], A.tensor_map, (kt * bk, row0), full[buffer])
            T.cuda.tile.apply(load, b_s[buffer], B.tensor_map, (kt * bk, col0), full[buffer])


def gemm_kernel(m, n, k, dtype="bfloat16", bn=256, warpgroups=2, stages=4, group_m=8):
    kind = KINDS[dtype]
    bm = 64 * warpgroups
    threads = 128 * warpgroups
    if m % bm or n % bn or k % BK:
        raise ValueError(f"{m} x {n} x {k} is not a multiple of the {bm} x {bn} x {BK} block tile")
    steps = k // BK
    if not 3 <= stages <= steps + 2:
        raise ValueError(f"a pipeline of {stages} stages over {steps} steps")
    blocks_m, blocks_n = m // bm, n // bn
    if blocks_m % group_m:
        group_m = 1
    opcode = f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32.{kind}.{kind}"
    regs = bn // 2

    @T.function
    def gemm(A: T.Tensor((m, k), "uint16"), B: T.Tensor((n, k), "uint16"), C: T.Tensor((m, n), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks_m * blocks_n, block=threads))
        a_s = T.alloc_dynamic_shared((stages, bm, BK), "uint16", align=1024).swizzle("128B")
        b_s = T.alloc_dynamic_shared((stages, bn, BK), "uint16", align=1024).swizzle("128B")
        t, bid = T.thread_id(), T.block_id()
        row0, col0 = _block_origin(bid, blocks_n, group_m, bm, bn)
        wg, warp, lane = t // 128, (t // 32) % 4, t % 32

        def copy(kt, buffer):
            """Step kt's pieces of A and Bt into shared buffer `buffer`."""
            _copy_step(((a_s, A, bm, row0), (b_s, B, bn, col0)), kt, buffer, t, threads)
            T.cuda.tile.apply(T.ptx["cp.async.commit_group"])

        acc = T.alloc_local((1, 1, regs), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.view("uint32").reshape((regs, 1)), T.uint32(0))
        accumulate = t < threads
        for s in range(stages - 2):
            copy(s, s)
        for kt in T.serial(0, steps):
            buffer = kt % stages
            T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(stages - 3))
            T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            # The last steps copy the last step again: in bounds, never read.
            ahead = kt + stages - 2
            copy(ahead - (ahead // steps) * (ahead - (steps - 1)), ahead % stages)
            _multiply_step(opcode, acc, a_s, b_s, buffer, 64 * wg, bn, accumulate)
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        _store(C, acc, row0 + 64 * wg, col0, regs, warp, lane)

    return gemm


def gemm_specialized(m, n, k, dtype="bfloat16", bn=256, consumers=2, stages=4, depth=2, group_m=8,
                     producer_regs=88, consumer_regs=208, out="float32", tma=False):
    """The same product, warp-specialized: warpgroup 0 copies (cp.async,
    `depth` steps in flight; once a step's copies have landed it fences
    them for the async proxy and arrives on that stage's `full` mbarrier),
    warpgroups 1 to `consumers` multiply (each waits on `full`, issues its
    four wgmma, and once wgmma.wait_group 1 shows the step before retired,
    one thread arrives on that stage's `empty` mbarrier, which the producer
    waits on before refilling it). setmaxnreg gives the producer's registers
    to the consumers. No block barrier after the mbarriers' initialization.
    With `tma`, one thread of the producer copies each step as two TMA
    boxes (A's BM x 64 and Bt's BN x 64, 128-byte swizzled, the tensor maps
    of A and B): it expects their bytes on the stage's `full` mbarrier,
    which their complete_tx completes (`depth` does not apply).
    `out` "float32" stores C as f32; "same" as the inputs' type (C's bits,
    uint16), each pair rounded to nearest by cvt.rn.{bf16x2,f16x2}.f32, as
    torch.matmul returns it."""
    kind = KINDS[dtype]
    # A step is one 128-byte swizzled row: 64 b16 or 128 e4m3 elements,
    # four wgmma of K 16 or 32.
    fp8 = dtype == "e4m3"
    bk, k_step, bits = (128, 32, "uint8") if fp8 else (BK, 16, "uint16")
    if fp8 and not tma:
        raise ValueError("the e4m3 kernel copies by TMA: tma=True")
    bm = 64 * consumers
    threads = 128 * (consumers + 1)
    if m % bm or n % bn or k % bk:
        raise ValueError(f"{m} x {n} x {k} is not a multiple of the {bm} x {bn} x {bk} block tile")
    steps = k // bk
    if not 1 <= depth <= min(stages, steps):
        raise ValueError(f"{depth} steps in flight over {stages} stages and {steps} steps")
    blocks_m, blocks_n = m // bm, n // bn
    if blocks_m % group_m:
        group_m = 1
    opcode = f"wgmma.mma_async.sync.aligned.m64n{bn}k{k_step}.f32.{kind}.{kind}"
    regs = bn // 2
    if out not in ("float32", "same", "bfloat16"):
        raise ValueError(f"out is 'float32', 'same' or 'bfloat16', got {out!r}")
    c_type = "float32" if out == "float32" else "uint16"
    out_kind = None if out == "float32" else "bf16" if out == "bfloat16" else kind

    a_param = T.Tensor((m, k), bits, tma=T.TensorMap((bm, bk), "128B") if tma else ())
    b_param = T.Tensor((n, k), bits, tma=T.TensorMap((bn, bk), "128B") if tma else ())

    @T.function
    def gemm(A: a_param, B: b_param, C: T.Tensor((m, n), c_type)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks_m * blocks_n, block=threads))
        a_s = T.alloc_dynamic_shared((stages, bm, bk), bits, align=1024).swizzle("128B")
        b_s = T.alloc_dynamic_shared((stages, bn, bk), bits, align=1024).swizzle("128B")
        full = T.alloc_shared((stages, 1), "uint64")
        empty = T.alloc_shared((stages, 1), "uint64")
        t, bid = T.thread_id(), T.block_id()
        row0, col0 = _block_origin(bid, blocks_n, group_m, bm, bn)
        wg, warp, lane, p = t // 128, (t // 32) % 4, t % 32, t % 128
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((1, 1), "bool")
        for s in range(stages):
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], full[s:s + 1], T.uint32(1 if tma else 128),
                              pred=t == 0)
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], empty[s:s + 1], T.uint32(consumers),
                              pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))

        roles = WarpgroupRoles(t, (producer_regs, consumer_regs))
        with roles.producer():
            if tma:
                _tma_producer(A, B, a_s, b_s, full, empty, state, done, row0, col0, steps, stages, bm, bn, p, bk)
            else:
                _cp_async_producer(A, B, a_s, b_s, full, empty, state, done, row0, col0, steps, stages, depth,
                                   bm, bn, p)
        with roles.consumers() as c:
            acc = T.alloc_local((1, 1, regs), "float32")
            T.cuda.tile.apply(T.ptx["mov.b32"], acc.view("uint32").reshape((regs, 1)), T.uint32(0))
            accumulate = t < threads
            for kt in T.serial(0, steps):
                get = PipelineState(stages, kt)
                buffer = get.stage
                with T.until(done):
                    T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done,
                                      full[buffer:buffer + 1], T.uint32(get.phase))
                _multiply_step(opcode, acc, a_s, b_s, buffer, 64 * c, bn, accumulate, k_step)
                # The step before retired: one thread frees its stage.
                before = (kt + stages - 1) % stages
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[before:before + 1],
                                  pred=(kt > 0) & (p == 0))
            T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
            _store(C, acc, row0 + 64 * c, col0, regs, warp, lane, out_kind)

    return gemm


# The swizzle of the deferred TMA epilogue's shared buffer, by its columns
# (rows of 128, 64 or 32 bytes): its box's, under which stmatrix's 8 rows
# of 16 bytes fall on distinct banks.
CHUNK_SWIZZLE = {64: "128B", 32: "64B", 16: "32B"}


def _stmatrix_box(C, c_s, packed, chunk, cols, row0, col0, c, warp, lane, p):
    """Chunk `chunk` of consumer `c`'s rounded pairs (`packed`: element i
    is D's register pair 2i) to C: the 64 rows from `row0` by the `cols`
    columns from col0 + chunk x cols. Once the box before has been read
    (cp.async.bulk.wait_group.read, then a barrier of the warpgroup),
    stmatrix writes each 16 x 16 block of a warp's fragment (four 8 x 8
    matrices: packed 4j to 4j + 3 for the block of columns 16j) into the
    consumer's buffer; a fence for the async proxy and a barrier, then one
    thread stores the box."""
    with T.if_(p == 0):
        T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group.read"], T.uint32(0))
    # Each consumer's barrier has its own id, 1 + c.
    barrier = T.uint32(c + 1)
    T.cuda.tile.apply(T.ptx["bar.sync"], barrier, T.uint32(128))
    row, lane_col = stmatrix_place(warp, lane)
    first = chunk * cols // 16
    for j in range(first, first + cols // 16):
        col = 16 * (j - first) + lane_col
        T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"], c_s[c, row:row + 1, col:col + 8],
                          packed[0, 0:1, 4 * j:4 * j + 4])
    T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
    T.cuda.tile.apply(T.ptx["bar.sync"], barrier, T.uint32(128))
    with T.if_(p == 0):
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"], C.tensor_map,
                          (col0 + chunk * cols, row0), c_s[c])
        T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])


def gemm_persistent(m, n, k, dtype="bfloat16", bn=256, consumers=2, stages=4, group_m=8, blocks=132,
                    producer_regs=40, consumer_regs=232, out="same", epilogue="registers", cluster=1,
                    pingpong=False, a_priority=None, b_priority=None, pending=1, stream_k=False):
    """gemm_specialized(tma=True), persistent: `blocks` blocks (the H200's
    132 SMs) take the tiles of C in turn (tile = block id + i x blocks).
    Stages and mbarrier phases run on across tiles (step g = i x steps +
    kt), so the producer copies the next tile's first steps while the
    consumers wait for their last wgmma and store the tile. `epilogue`
    "registers" stores C's pairs from the registers; "tma" stages them in
    shared memory by stmatrix and stores 64 x 64 boxes by TMA, which the
    consumers do not wait for (C in 16-bit types only); "deferred" rounds
    the tile's pairs into 64 registers and stores them from there while the
    next tile's first DEFERRED_STEPS steps of wgmma run, a chunk after each
    step's issue, so that the tensor cores do not wait for the stores (C in
    16-bit types, cooperative schedule only); "deferred_tma" stores each
    chunk (64 rows of a consumer by BN / DEFERRED_STEPS columns) by stmatrix
    into a shared buffer of the consumer and one TMA box, so C is written in
    whole lines and the consumers' warps issue no global stores.

    With `cluster` 2, pairs of blocks (clusters of 2 along x) take pairs of
    tiles one above the other, which share their columns of Bt: each
    block's producer loads its own A box and half of the Bt tile, which
    TMA multicasts into both blocks' stage (ctaMask 0b11), so each block
    reads 3/4 of the bytes from L2. A stage is free once the consumers of
    both blocks have retired it: each consumer arrives on the stage's empty
    mbarrier in both blocks (tile.mapa, mbarrier.arrive.shared::cluster),
    and each producer expects all (bm + bn) x 128 bytes
    on its own full mbarrier, its peer's multicast half included. The
    mbarriers' initialization is made visible to the cluster
    (fence.mbarrier_init, barrier.cluster) before any block copies, and a
    last barrier.cluster keeps every block alive until its peer has
    stopped arriving on its mbarriers.

    With `pingpong` (two consumers), each consumer warpgroup computes whole
    tiles, of 128 rows (two wgmma of 64 rows a step of 16) or with 256
    columns of 64, and the consumers take the block's tiles in turn, as
    CUTLASS's ping-pong schedule does: the producer fills the tiles' steps
    in order through one ring, and the
    consumers' main loops take turns through named barriers (consumer c
    waits at bar.sync 1 + c and, once it has issued its tile's last wgmma,
    gives the other its turn by bar.arrive), so one consumer's main loop
    runs while the other waits for its last wgmma and stores its tile. The
    turns also keep each waiter on a stage within one phase of it: a
    consumer waits on its tile's first stage only after the other has
    waited on every step before. (Without turns, in one shared ring a
    consumer would wait on a stage a tile's steps ahead, whose parity an
    older phase also has: that hung on the H200.)

    `pending`: the steps of wgmma a consumer leaves in flight when it
    waits, each step's stage freed once it has retired.

    `a_priority` and `b_priority` (L2 eviction priorities, "evict_last"
    say) give the TMA loads of A's or Bt's boxes a policy of that priority
    for every line (a createpolicy.fractional made once by the producer).

    With `stream_k`, the tiles that would leave the last wave short (the
    tiles modulo the blocks) are shared out by steps of K instead: after
    its whole tiles, block b takes the steps [b S / P, (b + 1) S / P) of
    those tiles' S steps in order (P blocks), so every block runs about
    the same number of steps. A block whose share starts inside a tile
    stores its accumulators as a partial tile in the workspace (in the
    fragment's order: each thread's registers, 16 bytes a store) and sets
    its flag with a release; the block whose share holds the tile's first
    step computes it last in its share, waits for each later block's flag
    with an acquire, adds their partials in block order, resets the flags
    and stores the tile. Two more parameters: the workspace (a partial
    tile per block and consumer) and the flags (one per block and
    consumer, zero at launch and left zero). Cooperative schedule, no
    cluster, one step of wgmma in flight."""
    kind = KINDS[dtype]
    fp8 = dtype == "e4m3"
    bk, k_step, bits = (128, 32, "uint8") if fp8 else (BK, 16, "uint16")
    # The rows of A each consumer multiplies a step: 64, or with ping-pong
    # a whole tile of 128 in two wgmma (of 64 rows for 256 columns): 128
    # accumulator registers a thread either way.
    wg_rows = (128 if bn <= 128 else 64) if pingpong else 64
    bm = wg_rows if pingpong else wg_rows * consumers
    threads = 128 * (consumers + 1)
    if m % bm or n % bn or k % bk:
        raise ValueError(f"{m} x {n} x {k} is not a multiple of the {bm} x {bn} x {bk} block tile")
    steps = k // bk
    if not 0 <= pending <= min(steps, stages - 1):
        raise ValueError(f"{pending} steps of wgmma in flight take 0 to min(the {steps} steps, "
                         f"{stages} stages less one)")
    # The consumers that read each stage: all of them, or with ping-pong
    # the one whose tile it holds.
    readers = 1 if pingpong else consumers
    if pingpong and consumers != 2:
        raise ValueError(f"ping-pong takes turns between 2 consumers, got {consumers}")
    blocks_m, blocks_n = m // bm, n // bn
    tiles = blocks_m * blocks_n
    blocks = min(blocks, tiles)
    if cluster not in (1, 2):
        raise ValueError(f"clusters of 1 or 2 blocks, got {cluster}")
    if blocks_m % cluster or blocks % cluster:
        raise ValueError(f"{blocks_m} block rows and {blocks} blocks do not pair into clusters of {cluster}")
    # The tiles a cluster takes at once: `cluster` block rows, one column.
    pair_m = blocks_m // cluster
    pairs, clusters = pair_m * blocks_n, blocks // cluster
    if pair_m % group_m:
        group_m = 1
    opcode = f"wgmma.mma_async.sync.aligned.m64n{bn}k{k_step}.f32.{kind}.{kind}"
    regs = bn // 2
    c_type = "float32" if out == "float32" else "uint16"
    out_kind = None if out == "float32" else "bf16" if out == "bfloat16" else kind
    load = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]
    hinted = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"]
    multicast = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                      ".multicast::cluster"]
    wait = T.ptx["mbarrier.try_wait.parity.shared::cta.b64"]
    if cluster > 1 and b_priority:
        raise ValueError("b_priority takes no cluster (the multicast load has no policy here)")
    b_box = bn // cluster

    staged, deferred = epilogue == "tma", epilogue in ("deferred", "deferred_tma")
    chunk_box = epilogue == "deferred_tma"
    chunk_cols = bn // DEFERRED_STEPS
    if chunk_box and (stream_k or chunk_cols not in CHUNK_SWIZZLE):
        raise ValueError(f"the deferred TMA epilogue takes no stream-K and chunks of {sorted(CHUNK_SWIZZLE)} "
                         f"columns, got {chunk_cols}")
    if deferred and (out_kind is None or pingpong or steps <= DEFERRED_STEPS):
        raise ValueError("the deferred epilogue stores C in a 16-bit type, in the cooperative schedule, "
                         f"over more than {DEFERRED_STEPS} steps")
    if staged and out == "float32":
        raise ValueError("the TMA epilogue stores C in a 16-bit type")
    if staged and pingpong:
        raise ValueError("the TMA epilogue is written for the cooperative schedule")
    if stream_k and (pingpong or cluster > 1 or staged or pending != 1):
        raise ValueError("stream-K is written for the cooperative schedule, without clusters or the TMA "
                         "epilogue, with one step of wgmma in flight")
    # Stream-K: the tiles past the last full wave, and each block's whole
    # tiles before them.
    shared_tiles = pairs % blocks if stream_k else 0
    if shared_tiles * steps < blocks:
        shared_tiles = 0  # a block without a step would never set its flag
    whole = pairs - shared_tiles
    shared_steps = shared_tiles * steps
    chunks = regs // 4  # a partial tile: 16-byte pieces a thread

    a_param = T.Tensor((m, k), bits, tma=T.TensorMap((bm, bk), "128B"))
    b_param = T.Tensor((n, k), bits, tma=T.TensorMap((b_box, bk), "128B"))
    c_param = T.Tensor((m, n), c_type, tma=T.TensorMap((64, 64), "128B") if staged
                       else T.TensorMap((64, chunk_cols), CHUNK_SWIZZLE[chunk_cols]) if chunk_box else ())

    def body(A, B, C, Workspace=None, Flags=None):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=threads,
                                                  cluster=cluster if cluster > 1 else None))
        a_s = T.alloc_dynamic_shared((stages, bm, bk), bits, align=1024).swizzle("128B")
        b_s = T.alloc_dynamic_shared((stages, bn, bk), bits, align=1024).swizzle("128B")
        c_s = T.alloc_dynamic_shared((consumers, bn // 64, 64, 64), "uint16", align=1024).swizzle("128B") \
            if staged else None
        if chunk_box:
            c_s = T.alloc_dynamic_shared((consumers, 64, chunk_cols), "uint16", align=1024).swizzle(
                CHUNK_SWIZZLE[chunk_cols])
        full = T.alloc_shared((stages, 1), "uint64")
        empty = T.alloc_shared((stages, 1), "uint64")
        t, bid = T.thread_id(), T.block_id()
        wg, warp, lane, p = t // 128, (t // 32) % 4, t % 32, t % 128
        state = T.alloc_local((1, 1), "uint64")
        done = T.alloc_local((1, 1), "bool")
        for s in range(stages):
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], full[s:s + 1], T.uint32(1), pred=t == 0)
            T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], empty[s:s + 1],
                              T.uint32(readers * cluster), pred=t == 0)
        if cluster > 1:
            T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
            T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
            rank, first_pair = T.cluster_ctarank(), bid // cluster
        else:
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            rank, first_pair = 0, bid

        def first_step(pair):
            """The ring's steps filled before `pair`'s first."""
            return (pair - first_pair) // clusters * steps

        # Stream-K: this block's share of the shared tiles' steps.
        share_begin = bid * shared_steps // blocks
        share_end = (bid + 1) * shared_steps // blocks

        def shared_tiles_of_share():
            """The shared tiles (0 is the first after the whole ones) that
            this block's share has steps of."""
            return T.serial(share_begin // steps, (share_end + steps - 1) // steps)

        def segment(i):
            """Shared tile i's steps in this block's share, [begin, end),
            and the ring's steps filled before the tile's step 0 would be."""
            begin = T.maximum(share_begin - i * steps, 0)
            end = T.minimum(share_end - i * steps, steps)
            return whole // blocks * steps + i * steps - share_begin, begin, end

        def origin(pair):
            """The first row and column of C of this block's tile of `pair`."""
            row0, col0 = _block_origin(pair, blocks_n, group_m, cluster * bm, bn)
            return row0 + rank * bm, col0

        roles = WarpgroupRoles(t, (producer_regs, consumer_regs))
        with roles.producer():
            with T.if_(p == 0):
                policies = {}
                for name, priority in (("a", a_priority), ("b", b_priority)):
                    if priority:
                        policies[name] = T.alloc_local((1, 1), "uint64")
                        T.cuda.tile.apply(T.ptx[f"createpolicy.fractional.L2::{priority}.b64"], policies[name])

                def copy(name, *operands):
                    if name in policies:
                        T.cuda.tile.apply(hinted, *operands, policies[name].reshape((1,)))
                    else:
                        T.cuda.tile.apply(load, *operands)
                def load_step(g, kt, row0, col0):
                    """Step kt of the tile at (row0, col0) into the ring's
                    step g."""
                    buffer = g % stages
                    _wait_stage_free(empty, done, buffer, g, stages)
                    T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state,
                                      full[buffer:buffer + 1], T.uint32((bm + bn) * 128))
                    copy("a", a_s[buffer], A.tensor_map, (kt * bk, row0), full[buffer])
                    if cluster == 1:
                        copy("b", b_s[buffer], B.tensor_map, (kt * bk, col0), full[buffer])
                        return
                    # This block's half of Bt's tile, into both blocks.
                    for r in range(cluster):
                        with T.if_(rank == r):
                            T.cuda.tile.apply(multicast, b_s[buffer, r * b_box:(r + 1) * b_box], B.tensor_map,
                                              (kt * bk, col0 + r * b_box), full[buffer],
                                              T.uint16((1 << cluster) - 1))

                for pair in T.serial(first_pair, whole, clusters):
                    row0, col0 = origin(pair)
                    first = first_step(pair)
                    for kt in T.serial(0, steps):
                        load_step(first + kt, kt, row0, col0)
                if shared_tiles:
                    for i in shared_tiles_of_share():
                        row0, col0 = origin(whole + i)
                        first, begin, end = segment(i)
                        for kt in T.serial(begin, end):
                            load_step(first + kt, kt, row0, col0)
        def free(stage, when=None):
            """One thread of the consumer frees `stage` (in each block of
            the cluster) once its wgmma have retired."""
            pred = (p == 0) if when is None else when & (p == 0)
            if cluster == 1:
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[stage:stage + 1],
                                  pred=pred)
            # The ISA's default .release.cta, as CUTLASS's
            # ClusterBarrier::arrive: ptxas puts MEMBAR.ALL.GPU before a
            # .release.cluster arrival, in every step. What it releases
            # are wgmma's reads, retired before.
            for r in range(cluster if cluster > 1 else 0):
                T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cluster.b64"],
                                  empty.of_block(r)[stage:stage + 1], pred=pred)

        with roles.consumers() as c:
            accs = [T.alloc_local((1, 1, regs), "float32") for _ in range(wg_rows // 64)]
            acc = accs[0]
            accumulate = t < threads
            # Ping-pong: the consumers take the block's tiles in turn, and
            # their main loops take turns at named barriers 1 + c.
            start, stride = (first_pair + c * clusters, clusters * consumers) if pingpong else (first_pair, clusters)
            a_row = 0 if pingpong else wg_rows * c
            if pingpong:
                mine, others = T.alloc_local((1, 1), "uint32"), T.alloc_local((1, 1), "uint32")
                for cc in range(consumers):
                    with T.if_(c == cc):
                        T.cuda.tile.apply(T.ptx["mov.b32"], mine, T.uint32(1 + cc))
                        T.cuda.tile.apply(T.ptx["mov.b32"], others, T.uint32(2 - cc))
                # Consumer 1 gives consumer 0 the first turn.
                with T.if_(c == 1):
                    T.cuda.tile.apply(T.ptx["bar.arrive"], T.uint32(1), T.uint32(256))
            # The deferred epilogue's pairs of the previous tile, rounded
            # (element i holds register pair 2i; one accumulator: the
            # cooperative schedule).
            packed = T.alloc_local((1, 1, regs // 2), "uint32") if deferred else None
            chunk_pairs = regs // 2 // DEFERRED_STEPS

            def store_packed(pair, indices):
                """The rounded pairs `indices` of `pair`'s tile."""
                row0, col0 = origin(pair)
                _store_packed(C, packed, row0 + a_row, col0, [(i, 2 * i) for i in indices], warp, lane)

            def store_chunk(pair, chunk):
                """Chunk `chunk` of `pair`'s rounded pairs, by registers or
                by its TMA box."""
                if not chunk_box:
                    store_packed(pair, range(chunk * chunk_pairs, (chunk + 1) * chunk_pairs))
                    return
                row0, col0 = origin(pair)
                _stmatrix_box(C, c_s, packed, chunk, chunk_cols, row0 + a_row, col0, c, warp, lane, p)

            def store_previous(pair, chunk):
                """Chunk `chunk` of the previous tile's rounded pairs."""
                with T.if_(pair != start):
                    store_chunk(pair - stride, chunk)

            for pair in T.serial(start, whole if not pingpong else pairs, stride):
                row0, col0 = origin(pair)
                first = first_step(pair)
                # Deferred: the first step's scale-d starts the
                # accumulators; else they start at zero.
                for d in [] if deferred else accs:
                    T.cuda.tile.apply(T.ptx["mov.b32"], d.view("uint32").reshape((regs, 1)), T.uint32(0))
                if pingpong:
                    T.cuda.tile.apply(T.ptx["bar.sync"], mine, T.uint32(256))

                def multiply(kt):
                    g = first + kt
                    get = PipelineState(stages, g)
                    buffer = get.stage
                    with T.until(done):
                        T.cuda.tile.apply(wait, done, full[buffer:buffer + 1], T.uint32(get.phase))
                    _multiply_step(opcode, accs, a_s, b_s, buffer, a_row, bn, accumulate, k_step, pending,
                                   fresh=t >= threads if deferred and isinstance(kt, int) and kt == 0 else None)
                    # The step `pending` before retired: free its stage.
                    if not isinstance(kt, int):
                        free((g + stages - pending) % stages, kt >= pending)
                    elif kt >= pending:
                        free((g + stages - pending) % stages)

                # Deferred: the first steps' wgmma run while the previous
                # tile's pairs are stored, a chunk after each step.
                peeled = DEFERRED_STEPS if deferred else 0
                for kt in range(peeled):
                    multiply(kt)
                    store_previous(pair, kt)
                for kt in T.serial(peeled, steps):
                    multiply(kt)
                if pingpong:
                    # The other consumer's turn, if it has a tile after
                    # this one (every arrival is waited for).
                    with T.if_(pair + clusters < pairs):
                        T.cuda.tile.apply(T.ptx["bar.arrive"], others, T.uint32(256))
                T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
                for last in range(steps - pending, steps):
                    free((first + last) % stages)
                if deferred:
                    for i in range(regs // 2):
                        _pack(packed, i, acc, 2 * i, out_kind)
                    continue
                if not staged:
                    for i, d in enumerate(accs):
                        _store(C, d, row0 + a_row + 64 * i, col0, regs, warp, lane, out_kind)
                    continue
                # Each consumer's barrier has its own id (1 + c).
                for cc in range(consumers):
                    with T.if_(c == cc):
                        stage_and_store(C, c_s[cc], acc, row0 + 64 * cc, col0, bn, warp, lane, p, out_kind,
                                        T.uint32(1 + cc))
            if deferred:
                # The last tile's pairs.
                with T.if_(start < whole):
                    for chunk in range(DEFERRED_STEPS):
                        store_chunk(start + (whole - 1 - start) // stride * stride, chunk)
            if shared_tiles:
                _stream_k_segments(C, Workspace, Flags, accs, a_s, b_s, full, done, free, origin, segment,
                                   shared_tiles_of_share(), whole, bid, c, p, warp, lane, opcode, accumulate,
                                   dict(stages=stages, steps=steps, blocks=blocks, consumers=consumers, bn=bn,
                                        k_step=k_step, regs=regs, a_row=a_row, out_kind=out_kind,
                                        shared_steps=shared_steps))
            if staged or chunk_box:
                with T.if_(p == 0):
                    T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))
        if cluster > 1:
            # No block leaves while its peer may still arrive on its
            # mbarriers.
            T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
            T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    if not shared_tiles:
        @T.function
        def gemm(A: a_param, B: b_param, C: c_param):
            body(A, B, C)
        return gemm

    @T.function
    def gemm(A: a_param, B: b_param, C: c_param,
             Workspace: T.Tensor((blocks * consumers * chunks * 128, 4), "float32"),
             Flags: T.Tensor((blocks * consumers, 1), "uint32")):
        body(A, B, C, Workspace, Flags)
    return gemm


def _stream_k_segments(C, Workspace, Flags, accs, a_s, b_s, full, done, free, origin, segment, tiles, whole, bid,
                       c, p, warp, lane, opcode, accumulate, shape):
    """A consumer's steps of the shared tiles (gemm_persistent's
    stream_k): for each tile of the block's share, its steps from zeroed
    accumulators; then a later part of a tile is stored as this block's
    partial and its flag set with a release, and the part with the tile's
    step 0 takes every later block's partial, in block order, once its
    flag is set, and stores the tile."""
    stages, steps, blocks, consumers = shape["stages"], shape["steps"], shape["blocks"], shape["consumers"]
    regs, a_row = shape["regs"], shape["a_row"]
    chunks = regs // 4
    wait = T.ptx["mbarrier.try_wait.parity.shared::cta.b64"]
    acc = accs[0]
    seen = T.alloc_local((1, 1), "uint32")
    partial = T.alloc_local((1, 1, 4), "float32")

    def partial_rows(block, j):
        """The workspace row of this thread's piece j of `block`'s partial."""
        return ((block * consumers + c) * chunks + j) * 128 + p

    def flag(block):
        return Flags[block * consumers + c:block * consumers + c + 1]

    def consumer_barrier():
        """This consumer warpgroup's 128 threads (barrier 1 + c)."""
        for cc in range(consumers):
            with T.if_(c == cc):
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(1 + cc), T.uint32(128))

    for i in tiles:
        row0, col0 = origin(whole + i)
        first, begin, end = segment(i)
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.view("uint32").reshape((regs, 1)), T.uint32(0))
        for kt in T.serial(begin, end):
            g = first + kt
            get = PipelineState(stages, g)
            buffer = get.stage
            with T.until(done):
                T.cuda.tile.apply(wait, done, full[buffer:buffer + 1], T.uint32(get.phase))
            _multiply_step(opcode, accs, a_s, b_s, buffer, a_row, shape["bn"], accumulate, shape["k_step"], 1)
            free((g + stages - 1) % stages, kt > begin)
        T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(0))
        free((first + end - 1) % stages)
        with T.if_(begin > 0):
            # A later part of the tile: this block's partial, then its flag.
            for j in range(chunks):
                row = partial_rows(bid, j)
                T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Workspace[row:row + 1, 0:4],
                                  acc[0, 0:1, 4 * j:4 * j + 4])
            consumer_barrier()
            T.cuda.tile.apply(T.ptx["red.release.gpu.global.add.u32"], flag(bid), T.uint32(1), pred=p == 0)
        with T.if_(begin == 0):
            # The blocks whose shares start inside the tile.
            last = ((i + 1) * steps * blocks + shape["shared_steps"] - 1) // shape["shared_steps"]
            for other in T.serial(bid + 1, last):
                with T.if_(p == 0):
                    with T.until(done):
                        T.cuda.tile.apply(T.ptx["ld.acquire.gpu.global.b32"], seen, flag(other))
                        T.cuda.tile.apply(T.ptx["setp.eq.u32"], done, seen, T.uint32(1))
                    T.cuda.tile.apply(T.ptx["st.relaxed.gpu.global.b32"], flag(other), T.uint32(0))
                consumer_barrier()
                for j in range(chunks):
                    row = partial_rows(other, j)
                    T.cuda.tile.apply(T.ptx["ld.global.v4.f32"], partial[0, 0:1, 0:4], Workspace[row:row + 1, 0:4])
                    for q in range(4):
                        e = 4 * j + q
                        T.cuda.tile.apply(T.ptx["add.rn.f32"], acc[0, 0:1, e:e + 1], acc[0, 0:1, e:e + 1],
                                          partial[0, 0:1, q:q + 1])
            _store(C, acc, row0 + a_row, col0, regs, warp, lane, shape["out_kind"])


VARIANTS = {f"hopper_{dtype}_{size}{tag}": (make, dict(m=size, n=size, k=size, dtype=dtype))
            for dtype in ("bfloat16", "float16") for size in (4096, 8192)
            for tag, make in (("", gemm_kernel), ("_specialized", gemm_specialized))}
# C in the inputs' type, as torch.matmul returns it (half the bytes to store).
VARIANTS.update({f"hopper_{dtype}_{size}_specialized_out16": (gemm_specialized, dict(m=size, n=size, k=size,
                                                                                      dtype=dtype, out="same"))
                 for dtype in ("bfloat16", "float16") for size in (4096, 8192)})

# A sweep of the tiling (bench/gemm_hopper/sweep.json): fewer stages, 128
# columns with more stages, wider grouping.
SWEEP = {f"hopper_bfloat16_{size}_{tag}": (gemm_kernel, dict(m=size, n=size, k=size, **kw))
         for size in (4096, 8192)
         for tag, kw in (("s3", dict(stages=3)), ("g16", dict(group_m=16)), ("g4", dict(group_m=4)),
                         ("n128s6", dict(bn=128, stages=6)), ("n128s4", dict(bn=128, stages=4)))}
# Warp-specialized: a producer warpgroup and two consumers.
SWEEP.update({f"hopper_bfloat16_{size}_ws_d{depth}": (gemm_specialized, dict(m=size, n=size, k=size, depth=depth))
              for size in (4096, 8192) for depth in (1, 2, 3)})
# The producer by TMA: one thread, two boxes a step (C in the inputs' type).
TMA = {f"hopper_{dtype}_{size}_tma{tag}": (gemm_specialized, dict(m=size, n=size, k=size, dtype=dtype, out="same",
                                                                 tma=True, producer_regs=40, consumer_regs=232,
                                                                 **kw))
       for dtype in ("bfloat16", "float16") for size in (4096, 8192)
       for tag, kw in (("", {}), ("_s3", dict(stages=3)), ("_g16", dict(group_m=16)))}
# e4m3 inputs (their bits, uint8), C in bf16, as torch._scaled_mm returns it.
TMA.update({f"hopper_e4m3_{size}_tma{tag}": (gemm_specialized, dict(m=size, n=size, k=size, dtype="e4m3",
                                                                    out="bfloat16", tma=True, producer_regs=40,
                                                                    consumer_regs=232, **kw))
            for size in (4096, 8192) for tag, kw in (("", {}), ("_g16", dict(group_m=16)))})


# Persistent: 132 blocks take the tiles in turn.
TMA.update({f"hopper_{dtype}_{size}_persistent{tag}": (gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype,
                                                                             out="bfloat16" if dtype == "e4m3"
                                                                             else "same", **kw))
            for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
            for tag, kw in (("", {}), ("_g16", dict(group_m=16)))})
# Clusters of 2 blocks that share Bt's tile by TMA multicast, beside the
# persistent kernel without clusters, in one run (gemm_hopper/
# results_cluster.json).
CLUSTER = {f"hopper_{dtype}_{size}_persistent{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
    for tag, kw in (("", {}), ("_b128", dict(blocks=128, group_m=16)), ("_cluster2", dict(cluster=2)),
                    ("_cluster2_g16", dict(cluster=2, group_m=16)),
                    ("_cluster2_b128", dict(cluster=2, blocks=128, group_m=16)))}
# CUTLASS's ping-pong schedule (the consumers' main loops in turns, one
# ring), beside the cooperative persistent kernel, in one run
# (gemm_hopper/results_pingpong_turns.json; the schedule with a ring per
# consumer and no turns, as of commit f3d8d87, is results_pingpong.json).
PINGPONG = {f"hopper_{dtype}_{size}_persistent{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="same", **kw))
    for dtype in ("bfloat16", "float16") for size in (4096, 8192)
    for tag, kw in (("", {}), ("_b128", dict(blocks=128, group_m=16)),
                    ("_pending2", dict(pending=2)), ("_b128_pending2", dict(blocks=128, group_m=16, pending=2)),
                    ("_pingpong", dict(pingpong=True, bn=128, stages=6)),
                    ("_pingpong_pending2", dict(pingpong=True, bn=128, stages=6, pending=2)),
                    ("_pingpong_n256_pending2", dict(pingpong=True, bn=256, stages=5, pending=2)),
                    ("_pingpong_pending3", dict(pingpong=True, bn=128, stages=7, pending=3)))}
# The deferred epilogue beside the persistent kernel, in one run
# (gemm_hopper/results_deferred.json; the cluster variants and the rest
# again in results_deferred_cluster.json).
DEFERRED = {f"hopper_{dtype}_{size}_persistent{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
    for tag, kw in (("", {}), ("_b128", dict(blocks=128, group_m=16)),
                    ("_deferred", dict(epilogue="deferred")),
                    ("_b128_deferred", dict(blocks=128, group_m=16, epilogue="deferred")),
                    ("_deferred_pending2", dict(epilogue="deferred", pending=2)),
                    ("_cluster2_deferred", dict(cluster=2, epilogue="deferred")),
                    ("_cluster2_b128_deferred", dict(cluster=2, blocks=128, group_m=16, epilogue="deferred")))}
# The deferred epilogue's chunks stored by TMA boxes from shared memory
# (epilogue="deferred_tma"), beside the register stores, in one run
# (gemm_hopper/results_deferred_tma_final.json, built with descriptors in
# 32-bit arithmetic, since reverted; the first run and a sweep with
# clusters in results_deferred_tma.json and _sweep.json; the 16-bit
# group 16 and 128-block variants with both descriptor builds in
# results_descriptor_ab.json).
DEFERRED_TMA = {f"hopper_{dtype}_{size}_persistent{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
    for tag, kw in (("_deferred", dict(epilogue="deferred")), ("_deferred_tma", dict(epilogue="deferred_tma")),
                    ("_g16_deferred_tma", dict(epilogue="deferred_tma", group_m=16)),
                    ("_b128_deferred_tma", dict(epilogue="deferred_tma", blocks=128, group_m=16)))}
# The result of issue #31 in one run: the best 16-bit and e4m3 kernels of
# results_descriptor_ab.json and results_deferred_tma.json at 4096^3 and
# 8192^3, and the same 16-bit kernels on a skinny shape, 512 x 8192 x 8192
# (128 tiles: less than one wave, no split of K).
FINAL = {f"hopper_{dtype}_{m}x{n}x{k}_persistent{tag}": (
    gemm_persistent, dict(m=m, n=n, k=k, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same",
                          epilogue="deferred_tma", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for m, n, k in ((4096,) * 3, (8192,) * 3, (512, 8192, 8192))
    for tag, kw in ((("_deferred_tma", {}),) if dtype == "e4m3" else
                    (("_b128_deferred_tma", dict(blocks=128, group_m=16)), ("_deferred_tma", {})))
    if dtype != "e4m3" or m == n}
# Stream-K for the tiles past the last full wave, beside the deferred
# kernels it extends (gemm_hopper/results_stream_k.json).
STREAM_K = {f"hopper_{dtype}_{size}_persistent{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same",
                          epilogue="deferred", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
    for tag, kw in (("_deferred", {}), ("_b128_deferred", dict(blocks=128, group_m=16)),
                    ("_streamk_deferred", dict(stream_k=True)),
                    ("_streamk_g16_deferred", dict(stream_k=True, group_m=16)))}
# What moves the SM clock at the power limit (bench/gemm_hopper/clocks.py,
# gemm_hopper/results_clocks_l2.json): the order of the tiles and TMA
# multicast, which change the bytes read from L2 and DRAM.
POWER = {f"hopper_bfloat16_{size}_persistent{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, epilogue="deferred", **kw))
    for size in (4096, 8192)
    for tag, kw in (("_deferred", {}), ("_g4_deferred", dict(group_m=4)), ("_g16_deferred", dict(group_m=16)),
                    ("_g32_deferred", dict(group_m=32)), ("_cluster2_deferred", dict(cluster=2)),
                    ("_cluster2_b128_deferred", dict(cluster=2, blocks=128, group_m=16)))}
# The deferred epilogue with its first step's scale-d starting the
# accumulators, with and without the fold barriers before its roundings
# (gemm_hopper/results_deferred_fresh.json).
DEFERRED_FRESH = {f"hopper_{dtype}_{size}_persistent{tag}{fold}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
    for tag, kw in (("_b128", dict(blocks=128, group_m=16)),
                    ("_b128_deferred", dict(blocks=128, group_m=16, epilogue="deferred")),
                    ("_cluster2_deferred", dict(cluster=2, epilogue="deferred")))
    for fold in ("", "_as_written")}
# C staged in shared memory by stmatrix and stored by TMA: 3 stages (144
# KiB) and C's 64 KiB.
TMA.update({f"hopper_{dtype}_{size}_persistent_tma_store{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same",
                          stages=3, epilogue="tma", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
    for tag, kw in (("", {}), ("_g16", dict(group_m=16)))})
# A sweep of the persistent kernel's tiling (gemm_hopper/sweep_tma.json):
# 128-column tiles with more stages, other groupings, and 128 blocks
# (4096^3's 512 tiles in 4 full waves, where 132 leave the last short).
TMA_SWEEP = {f"hopper_{dtype}_{size}_persistent_{tag}": (gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype,
                                                                               **kw))
             for dtype in ("bfloat16", "float16") for size in (4096, 8192)
             for tag, kw in (("n128s6", dict(bn=128, stages=6)), ("n128s6g16", dict(bn=128, stages=6, group_m=16)),
                             ("g4", dict(group_m=4)), ("b128", dict(blocks=128, group_m=16)),
                             ("b128g8", dict(blocks=128)))}
# L2 policies on the TMA loads of A and Bt (`build.py --l2`).
L2 = {f"hopper_{dtype}_{size}_persistent{tag}": (
    gemm_persistent, dict(m=size, n=size, k=size, dtype=dtype, out="same", **kw))
    for dtype in ("bfloat16", "float16") for size in (4096, 8192)
    for tag, kw in (("", {}), ("_b128", dict(blocks=128, group_m=16)),
                    ("_a_first_b_last", dict(a_priority="evict_first", b_priority="evict_last")),
                    ("_ab_last", dict(a_priority="evict_last", b_priority="evict_last")),
                    ("_b128_a_first_b_last", dict(blocks=128, group_m=16, a_priority="evict_first",
                                                  b_priority="evict_last")))}
# The persistent kernel timed again with launches queued ahead (bench/gpu/
# run.py's median_ms since 2026-12-03), as written (no fold barriers before
# the epilogue's conversions) and with them (gemm_hopper/results_queued.json).
QUEUED = {f"hopper_{dtype}_{size}_persistent{tag}{fold}": (gemm_persistent, dict(
    m=size, n=size, k=size, dtype=dtype, out="bfloat16" if dtype == "e4m3" else "same", **kw))
    for dtype in ("bfloat16", "float16", "e4m3") for size in (4096, 8192)
    for tag, kw in (("", {}), ("_b128", dict(blocks=128, group_m=16))) for fold in ("", "_as_written")}
# Where the time goes at 4096^3: the same tiles with K doubled (each tile's
# main loop twice as long, as many tiles) and with M and N doubled (four
# times the tiles, main loops as long), beside 4096^3 and 8192^3
# (gemm_hopper/results_shapes.json).
SHAPES = {f"hopper_bfloat16_{m}x{n}x{k}_persistent{tag}": (gemm_persistent, dict(m=m, n=n, k=k, out="same", **kw))
          for m, n, k in ((4096, 4096, 4096), (4096, 4096, 8192), (8192, 8192, 4096), (8192, 8192, 8192))
          for tag, kw in (("_b128_deferred", dict(blocks=128, group_m=16, epilogue="deferred")),
                          ("_deferred", dict(epilogue="deferred")))}
