"""C = A B on the warp tensor cores (issue #27), written with the tile_mlir
script front end: fp16 or bf16 A (M x K) and B (K x N), row major, f32
accumulators and C; or s8 A and Bt (N x K) with s32 accumulators and C
(gemm_kernel's dtype "int8"). The kernels that copy by TMA (`tma`) take
Bt (N x K) for every type.

The first kernel, described here, and the variants gemm_kernel's
arguments make (cp.async pipelines, larger tiles, swizzled shared tiles,
predicated tails; bench/README.md has their speeds):

A block of 256 threads (8 warps, 2 x 4) computes a 128 x 128 tile of C over
32-wide steps of K:

1. each thread loads two 16-byte pieces of A's 128 x 32 tile and two of
   B's 32 x 128 tile from global memory into registers one step ahead, and
   stores them into one of two shared buffers (the step's parity) after the
   step before has been computed; one barrier per step (a buffer is written
   again two steps later, after every warp passed the barrier between);
   rows are padded by 16 bytes, so the 8 rows one ldmatrix reads fall in
   distinct banks;
2. per 16-wide half of the step, each warp reads its A fragments (four
   16 x 16 blocks: ldmatrix .x4, each lane giving the address of one row)
   and its B fragments (two 16 x 16 blocks: ldmatrix .x4 .trans of the
   row-major B) and issues 4 x 4 mma.sync m16n8k16 into its 64 x 32
   accumulators;
3. each thread stores its accumulator pairs (rows g and g + 8, columns 2t,
   2t + 1 of each 16 x 8 block: tile_mlir.fragments) with st.global.v2.f32.

The products and sums are the mma's; on integer-valued data small enough
that every partial sum is exact (gemm_reference.py) the result equals numpy
bit for bit, on the H200 and in the interpreter.
"""

from tile_mlir import script as T

BM, BN, BK = 128, 128, 32
THREADS = 256
WARPS_M, WARPS_N = 2, 4          # warps of the block, 64 x 32 of C each
WM, WN = BM // WARPS_M, BN // WARPS_N
MT, NT = WM // 16, WN // 8       # mma tiles per warp: 4 x 4
PAD = 8                          # halves (16 bytes) after every shared row


def _pieces(rows, halves, threads):
    """The 16-byte pieces of a rows x halves tile of b16, dealt to the
    threads in turn: for each of a thread's pieces, (row, 32-bit word) as a
    function of the thread index t; consecutive threads take consecutive
    pieces of a row, so a warp's loads are whole 128-byte lines."""
    per_row = halves // 8
    if (rows * per_row) % threads or threads % per_row:
        raise ValueError(f"{rows * per_row} pieces of a {rows} x {halves} tile for {threads} threads")
    return [lambda t, i=i: (t // per_row + (threads // per_row) * i, (t % per_row) * 4)
            for i in range(rows * per_row // threads)]


def row_swizzle(row_bytes):
    """The swizzle (bits, base, shift) of a shared tile with rows of
    `row_bytes` (a power of two, 32 or more) under which the 8 rows one
    ldmatrix phase reads, at one 16-byte unit each, fall on 8 distinct
    16-byte bank groups, and so do 8 consecutive 16-byte pieces a phase of
    cp.async writes: the unit index is XORed with the row's position among
    the rows that share banks. Rows of 128 bytes or more (row r at bit
    log2(row_bytes)) put r % 8 on the 8 units of a 128-byte line; shorter
    rows share a line with their neighbours, and the row bits above the
    line's (bit 7) go on the units of a row."""
    log = row_bytes.bit_length() - 1
    if row_bytes != 1 << log or log < 5:
        raise ValueError(f"rows of {row_bytes} bytes: a power of two, at least 32")
    return min(3, log - 4), 4, max(3, log - 4)


# Per input type: the mma, the tensors' element types (A's, B's, C's), the
# accumulators', the epilogue's store, the bytes of an element and whether
# B is given K x N (row major, fragments by ldmatrix .trans) or N x K (K
# contiguous, as the s8 fragments need: ldmatrix has no .trans for bytes).
KINDS = {
    "float16": ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "uint16", "float32", "st.global.v2.f32", 2,
                "kn"),
    "bfloat16": ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "uint16", "float32", "st.global.v2.f32",
                 2, "kn"),
    "int8": ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "int8", "int32", "st.global.v2.b32", 1, "nk"),
}


def gemm_kernel(m, n, k, dtype="float16", stages=None, block=(BM, BN, BK), warps=(WARPS_M, WARPS_N), group_m=1,
                swizzle=False, tail=False, prefetch=False, l2_prefetch=None, l2_priority=None, mbarriers=False,
                tma=False):
    """The kernel of the module docstring; with `stages` (3 or more), step 1
    is a cp.async pipeline instead: each thread's 16-byte pieces go straight
    from global to shared memory (cp.async.cg), `stages` buffers deep, one
    commit group per step (empty past the end), cp.async.wait_group
    stages - 2 and one barrier before each step's reads.

    `block` is the (M, N, K) block tile and `warps` the (M, N) grid of warps
    over it; `group_m` > 1 orders the blocks in groups of that many block
    rows, column by column within a group, so the blocks running at once
    share their pieces of A and B in L2 (Triton's grouped ordering).
    `swizzle` places the shared tiles' 16-byte units by an XOR swizzle
    (row_swizzle) instead of padding their rows.

    `tail` takes any M and any N and K that are multiples of 16 bytes of
    their elements (rows of whole pieces): blocks past the edges copy with
    src-size 0 where a piece lies outside A or B (cp.async fills it with
    zeros, which add nothing to the sums) from an address clamped inside,
    and store only the accumulators inside C (a predicated st.global).

    `dtype` "int8" is C = A Bt^T on s8 data with s32 accumulators
    (mma.m16n8k32.s8): A is M x K and Bt N x K, both row major, C M x N
    s32. Shared memory holds both as rows of K viewed as b16, so block K
    counts bytes (a step of 64 is the same 32 b16 columns as fp16's 32
    values) and each 16 b16 columns are one k32 mma; B's fragments come
    from ldmatrix .x4 of Bt (two n8 blocks, bytes 0-15 and 16-31 of the 32
    of k each). The sums are exact and wrap modulo 2^32 (no .satfinite).

    `prefetch` (with `stages`) double-buffers the fragments: each 16 of K
    loads the next one's fragments by ldmatrix before its mma, and the
    last one of a step waits for the next step's pieces, passes the
    barrier, refills the buffer just read and loads the next step's first
    fragments before its own mma (CUTLASS's order), so the barrier and the
    first ldmatrix of a step overlap the mma of the step before.

    `l2_prefetch` ("128B" or "256B") and `l2_priority` (an L2 eviction
    priority, "evict_last" say, for every line: a createpolicy.fractional
    made once) qualify the pipeline's cp.async.

    `mbarriers` (with `prefetch`) replaces the step's barrier by two
    mbarriers a stage: each thread's copies arrive on the stage's `full`
    (cp.async.mbarrier.arrive.noinc) and a step waits for its stage's
    phase; each thread arrives on `empty` once its reads of a stage are
    done, and refills the stage the step before read only after its own
    step, waiting for that stage's `empty` phase. A warp then waits only
    for a warp more than a step behind, where the barrier held every warp
    to the slowest one each step.

    `tma` (with `stages` and steps of 128 bytes of K) copies each step as
    two TMA boxes instead, A's BM x 64 and Bt's BN x 64 (B is then given
    N x K, K contiguous, as the s8 kernel takes it; s8 boxes are 128
    wide), 128-byte swizzled, issued by thread 0 after the step's barrier;
    each step waits on its stage's `full` mbarrier, which the boxes' bytes
    complete. No thread computes a copy's addresses, which leaves
    registers to larger warp tiles, and the boxes' zero fill past the
    tensors' edges takes any M, N and K: the epilogue stores only what
    lies inside C.

    `m`, `n` and `k` all None compile one kernel for every size: its
    tensors have runtime extents and it takes M, N and K as int32
    parameters, with a tail; the launch gives a 2-D grid, (ceil(N / BN),
    ceil(M / BM)), and N and K multiples of 16 bytes (a misaligned piece
    faults)."""
    opcode, in_type, out_type, epilogue, size, b_layout = KINDS[dtype]
    runtime = m is None
    if runtime:
        if (n, k) != (None, None) or not stages or group_m != 1:
            raise ValueError("runtime sizes (m, n and k None) take a cp.async pipeline and group_m 1")
        tail = True
    bm, bn, bk = block
    bkh = bk * size // 2                 # a step of K in b16 columns
    per_piece = 16 // size               # elements of a 16-byte piece
    warps_m, warps_n = warps
    threads = 32 * warps_m * warps_n
    wm_size, wn_size = bm // warps_m, bn // warps_n
    mt, nt = wm_size // 16, wn_size // 8
    if runtime:
        pass
    elif tma:
        if not stages or bkh != 64 or tail or mbarriers:
            raise ValueError("tma takes a pipeline (stages), steps of 128 bytes of K, no tail and no mbarriers")
        b_layout = "nk"
        tail = m % bm or n % bn
    elif tail:
        if not stages or n % per_piece or k % per_piece or min(m, n, k) < 1:
            raise ValueError(f"a tail needs a cp.async pipeline and N, K multiples of {per_piece}: {m} x {n} x {k}")
    elif m % bm or n % bn or k % bk:
        raise ValueError(f"{m} x {n} x {k} is not a multiple of the {bm} x {bn} x {bk} block tile")
    if wm_size % 16 or wn_size % 16 or bkh % 16:
        raise ValueError(f"a {wm_size} x {wn_size} warp tile over k steps of {bk}: need multiples of 16")
    if prefetch and (not stages or runtime or -(-k // bk) < stages):
        raise ValueError("prefetch takes a cp.async pipeline (stages) of at most as many steps as K has")
    if mbarriers and (not prefetch or tail):
        raise ValueError("mbarriers take prefetch and no tail")
    if stages is not None and not 3 <= stages <= (stages if runtime else -(-k // bk) + 1):
        raise ValueError(f"a pipeline of {stages} stages over {-(-k // bk)} steps")
    if not runtime and (-(-m // bm)) % group_m:
        raise ValueError(f"{-(-m // bm)} block rows in groups of {group_m}")
    buffers = stages or 2
    # B's shared tile: K x N, or Bt's N x K as b16 columns.
    b_rows, b_cols = (bk, bn) if b_layout == "kn" else (bn, bkh)
    a_pieces, b_pieces = ([], []) if tma else (_pieces(bm, bkh, threads), _pieces(b_rows, b_cols, threads))
    b_shape = (k, n) if b_layout == "kn" else (n, k)

    def body(A, B, C, m, n, k):
        steps = (k + bk - 1) // bk
        blocks_n = None if runtime else -(-n // bn)
        grid = None if runtime else -(-m // bm) * blocks_n
        T.device_entry(launch=T.cuda.LaunchConfig(grid=grid, block=threads))
        # Three stages or more outgrow the 48 KiB of static shared memory.
        alloc = T.alloc_dynamic_shared if stages else T.alloc_shared
        pad = 0 if swizzle else PAD
        if tma:
            # The boxes' layout: 128-byte rows, 128-byte swizzle.
            # (s8 boxes as bytes, read as b16 like the other tiles.)
            a_box = alloc((buffers, bm, bk), in_type, align=1024).swizzle("128B")
            b_box = alloc((buffers, bn, bk), in_type, align=1024).swizzle("128B")
            a_s, b_s = (a_box, b_box) if size == 2 else (a_box.view("uint16"), b_box.view("uint16"))
        else:
            a_s = alloc((buffers, bm, bkh + pad), "uint16")
            b_s = alloc((buffers, b_rows, b_cols + pad), "uint16")
        if swizzle and not tma:
            a_s = a_s.swizzle(**dict(zip(("bits", "base", "shift"), row_swizzle(2 * bkh))))
            b_s = b_s.swizzle(**dict(zip(("bits", "base", "shift"), row_swizzle(2 * b_cols))))
        t, bid = T.thread_id(), T.block_id()
        if runtime:
            row0, col0 = T.block_id("y") * bm, T.block_id("x") * bn
        elif group_m > 1:
            in_group = bid % (group_m * blocks_n)
            row0 = ((bid // (group_m * blocks_n)) * group_m + in_group % group_m) * bm
            col0 = (in_group // group_m) * bn
        else:
            row0, col0 = (bid // blocks_n) * bm, (bid % blocks_n) * bn
        warp, lane = t // 32, t % 32
        wm, wn = (warp // warps_n) * wm_size, (warp % warps_n) * wn_size
        acc = T.alloc_local((mt, nt, 4), out_type)
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((mt * nt * 4, 1)).view("uint32"), T.uint32(0))
        staged = None if stages else T.alloc_local((len(a_pieces) + len(b_pieces), 4), "uint32")
        slots = 2 if prefetch else 1
        a_frags = T.alloc_local((slots, mt, 1, 4), "uint32")
        b_frags = T.alloc_local((slots, nt, 1, 2), "uint32")
        # The address each lane gives ldmatrix .x4: row l % 8 of matrix l / 8;
        # matrices 0-3 are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
        lane_row = lane % 8 + 8 * ((lane // 8) % 2)
        lane_col = 8 * (lane // 16)
        a_piece = [piece(t) for piece in a_pieces]
        b_piece = [piece(t) for piece in b_pieces]
        # Where a piece of each shared tile starts in its tensor, in
        # elements, for the step kt: (row, column) of A, and of B or Bt.
        a_at = lambda kt, r, w: (row0 + r, kt * bk + 4 * w // size)  # noqa: E731
        if b_layout == "kn":
            b_at = lambda kt, r, w: (kt * bk + r, col0 + 2 * w)  # noqa: E731
        else:
            b_at = lambda kt, r, w: (col0 + r, kt * bk + 4 * w // size)  # noqa: E731
        b_bounds = (k, n) if b_layout == "kn" else (n, k)

        def pieces(kt):
            """Step kt's pieces: (shared tile, (row, word) in it, tensor,
            (row, column) in the tensor, the tensor's extents)."""
            return ([(a_s, (r, w), A, a_at(kt, r, w), (m, k)) for r, w in a_piece]
                    + [(b_s, (r, w), B, b_at(kt, r, w), b_bounds) for r, w in b_piece])

        def load(kt):
            """Step kt's pieces from global memory into `staged`."""
            for i, (_, _, tensor, (r, c), _) in enumerate(pieces(kt)):
                T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged[i:i + 1],
                                  tensor.view("uint32")[r:r + 1, c * size // 4:c * size // 4 + 4])

        def store(buffer):
            for i, (tile, (r, w), _, _, _) in enumerate(pieces(0)):
                T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], tile.view("uint32")[buffer, r:r + 1, w:w + 4],
                                  staged[i:i + 1])

        copy_form = "cp.async.cg.shared.global" + (".L2::cache_hint" if l2_priority else "") \
            + (f".L2::{l2_prefetch}" if l2_prefetch else "")
        if l2_priority:
            policy = T.alloc_local((1, 1), "uint64")
            T.cuda.tile.apply(T.ptx[f"createpolicy.fractional.L2::{l2_priority}.b64"], policy)

        if mbarriers or tma:
            full = T.alloc_shared((buffers, 1), "uint64")
            empty = None if tma else T.alloc_shared((buffers, 1), "uint64")
            state = T.alloc_local((1, 1), "uint64")
            done = T.alloc_local((1, 1), "bool")
            for s in range(buffers):
                for barrier in (full, empty):
                    if barrier is not None:
                        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], barrier[s:s + 1],
                                          T.uint32(1 if tma else threads), pred=t == 0)
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        box = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]

        def wait(barrier, step):
            """Until `barrier` of step's stage has completed step's phase."""
            stage = step % buffers
            with T.until(done):
                T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done,
                                  barrier[stage:stage + 1], T.uint32((step // buffers) % 2))

        def copy(kt, buffer):
            """Step kt's pieces straight into shared buffer `buffer`; with
            `tail`, those outside the tensors copy 0 bytes. With `tma`,
            thread 0 expects the boxes' bytes and copies them, for a
            step inside K."""
            if tma:
                if isinstance(kt, int) and kt >= steps:
                    return
                with T.if_((t == 0) if isinstance(kt, int) else (t == 0) & (kt < steps)):
                    T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state,
                                      full[buffer:buffer + 1], T.uint32((bm + bn) * 128))
                    T.cuda.tile.apply(box, a_box[buffer], A.tensor_map, (kt * bk, row0), full[buffer])
                    T.cuda.tile.apply(box, b_box[buffer], B.tensor_map, (kt * bk, col0), full[buffer])
                return
            for tile, (r, w), tensor, (row, col), (rows, cols) in pieces(kt):
                size_operand = [T.uint32(16)]
                if tail:
                    size_operand.append(T.uint32(T.where((row < rows) & (col < cols), 16, 0)))
                    row, col = T.minimum(row, rows - 1), T.minimum(col, cols - per_piece)
                T.cuda.tile.apply(T.ptx[copy_form], tile[buffer, r:r + 1, 2 * w:2 * w + 8],
                                  tensor[row:row + 1, col:col + per_piece], *size_operand,
                                  *([policy] if l2_priority else []))
            if mbarriers:
                T.cuda.tile.apply(T.ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full[buffer:buffer + 1])
            else:
                T.cuda.tile.apply(T.ptx["cp.async.commit_group"])

        def fragments(buffer, kk, slot):
            """The fragments of 16 of K (kk) of a shared buffer into slot."""
            a_frag, b_frag = a_frags[slot], b_frags[slot]
            for mi in range(mt):
                r = wm + 16 * mi + lane_row
                T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                                  a_frag[mi:mi + 1].reshape((1, 4)),
                                  a_s[buffer, r:r + 1, 16 * kk + lane_col:16 * kk + lane_col + 8])
            for nj in range(nt // 2):
                if b_layout == "kn":
                    r, c = 16 * kk + lane_row, wn + 16 * nj + lane_col
                    form = "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
                else:
                    # Matrices (n 0-7, k bytes 0-15), (n 0-7, 16-31),
                    # (n 8-15, 0-15), (n 8-15, 16-31): two n8 blocks.
                    r, c = wn + 16 * nj + 8 * (lane // 16) + lane % 8, 16 * kk + 8 * ((lane // 8) % 2)
                    form = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
                T.cuda.tile.apply(T.ptx[form], b_frag[2 * nj:2 * nj + 2].reshape((1, 4)),
                                  b_s[buffer, r:r + 1, c:c + 8])

        def refill(kt):
            """Step kt's group has landed once at most stages - 2 newer ones
            are pending; the barrier shows every thread's pieces and that
            every warp is done with the buffer refilled next, which then
            gets step kt + stages - 1 (past K: zeros with a tail, else the
            last step again, in bounds, never read). With `tma`, the
            barrier, the copy (none past K), then the wait for step kt's
            boxes (none past K)."""
            if tma:
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
                copy(kt + stages - 1, (kt + stages - 1) % buffers)
                if isinstance(kt, int):
                    wait(full, kt)
                else:
                    with T.if_(kt < steps):
                        wait(full, kt)
                return
            T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(stages - 2))
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            ahead = kt + stages - 1
            if tail:
                copy(ahead, ahead % buffers)
            else:
                copy(ahead - (ahead // steps) * (ahead - (steps - 1)), ahead % buffers)

        if stages:
            for s in range(stages - 1):
                copy(s, s)
        else:
            load(0)
        kks = bkh // 16

        def next_step_ready(kt, buffer):
            """At the last 16 of step kt's K, before the next step's first
            fragments: with mbarriers, this thread's reads of `buffer` are
            done and it waits for step kt + 1's pieces; else the barrier
            step (refill)."""
            if not mbarriers:
                refill(kt + 1)
                return
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.shared::cta.b64"], state, empty[buffer:buffer + 1])
            with T.if_(kt + 1 < steps):
                wait(full, kt + 1)

        if prefetch:
            if mbarriers:
                wait(full, 0)
            else:
                refill(0)
            fragments(0, 0, 0)
            for kt in T.serial(0, steps):
                buffer = kt % buffers
                for kk in range(kks):
                    if kk + 1 < kks:
                        fragments(buffer, kk + 1, (kk + 1) % 2)
                    else:
                        # (After the last step: a stage's old pieces, unused.)
                        next_step_ready(kt, buffer)
                        fragments((kt + 1) % buffers, 0, (kk + 1) % 2)
                    T.cuda.tile.apply(T.ptx[opcode], acc, a_frags[kk % 2], b_frags[kk % 2])
                if mbarriers:
                    # The stage step kt - 1 read gets step kt + stages - 1.
                    ahead = kt + stages - 1
                    with T.if_(ahead < steps):
                        with T.if_(kt > 0):
                            wait(empty, kt - 1)
                        copy(ahead, ahead % buffers)
        else:
            for kt in T.serial(0, steps):
                buffer = kt % buffers
                if stages:
                    refill(kt)
                else:
                    store(buffer)
                    T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
                    # 1. the next step's pieces are in flight while this one
                    # computes (the last step loads its own pieces again: in
                    # bounds, unused).
                    load(kt + 1 - (kt + 1) // steps)
                for kk in range(kks):
                    # 2. fragments by ldmatrix, then mt x nt mma over them.
                    fragments(buffer, kk, 0)
                    T.cuda.tile.apply(T.ptx[opcode], acc, a_frags[0], b_frags[0])
        # 3. rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8 block.
        g, tq = lane // 4, lane % 4
        for mi in range(mt):
            for ni in range(nt):
                for half in range(2):
                    r = row0 + wm + 16 * mi + g + 8 * half
                    c = col0 + wn + 8 * ni + 2 * tq
                    T.cuda.tile.apply(T.ptx[epilogue], C[r:r + 1, c:c + 2],
                                      acc[mi, ni:ni + 1, 2 * half:2 * half + 2],
                                      pred=((r < m) & (c < n)) if tail else None)

    if runtime:
        @T.function
        def gemm(A: T.Tensor((None, None), in_type), B: T.Tensor((None, None), in_type),
                 C: T.Tensor((None, None), out_type), m: T.int32, n: T.int32, k: T.int32):
            body(A, B, C, m, n, k)
    else:
        a_map = T.TensorMap((bm, bk), "128B") if tma else ()
        b_map = T.TensorMap((bn, bk), "128B") if tma else ()

        @T.function
        def gemm(A: T.Tensor((m, k), in_type, tma=a_map), B: T.Tensor(b_shape, in_type, tma=b_map),
                 C: T.Tensor((m, n), out_type)):
            body(A, B, C, m, n, k)
    return gemm


VARIANTS = {f"gemm_{dtype}_{size}": (gemm_kernel, dict(m=size, n=size, k=size, dtype=dtype))
            for dtype in ("float16", "bfloat16") for size in (4096, 8192)}
VARIANTS.update({f"gemm_{dtype}_{size}_cp_async3": (gemm_kernel, dict(m=size, n=size, k=size, dtype=dtype, stages=3))
                 for dtype in ("float16", "bfloat16") for size in (4096, 8192)})
# Larger block tiles, 64 x 64 of C per warp (more mma per ldmatrix and per
# barrier), over swizzled shared tiles. bench/gemm/sweep-2026-12-02.txt has
# the padded ones and 5 stages, slower.
TILINGS = {"t128x256s4_swizzled": dict(block=(128, 256, 32), warps=(2, 4), stages=4, group_m=8, swizzle=True),
           "t256x128s4_swizzled": dict(block=(256, 128, 32), warps=(4, 2), stages=4, group_m=8, swizzle=True),
           "t128x256x64s3_swizzled": dict(block=(128, 256, 64), warps=(2, 4), stages=3, group_m=8, swizzle=True),
           "t128x256x64s4_swizzled": dict(block=(128, 256, 64), warps=(2, 4), stages=4, group_m=8, swizzle=True),
           "t128x128x64s3_swizzled": dict(block=(128, 128, 64), warps=(2, 2), stages=3, group_m=8, swizzle=True)}
# The fragments double-buffered across each step's barrier (prefetch).
TILINGS.update({f"{name}_prefetch": dict(tiling, prefetch=True) for name, tiling in TILINGS.items()
                if name in ("t128x256x64s3_swizzled", "t128x256x64s4_swizzled", "t128x128x64s3_swizzled")})
TILINGS["t256x128x64s3_w4x2_swizzled_prefetch"] = dict(block=(256, 128, 64), warps=(4, 2), stages=3, group_m=8,
                                                      swizzle=True, prefetch=True)
VARIANTS.update({f"gemm_{dtype}_{size}_{name}": (gemm_kernel, dict(m=size, n=size, k=size, dtype=dtype, **tiling))
                 for dtype in ("float16", "bfloat16") for size in (4096, 8192) for name, tiling in TILINGS.items()})
# Copies by TMA (B given N x K): the 64 x 64 warp tiles with prefetch, and
# 64 x 96 warp tiles (256 x 192 blocks of 4 x 2 warps), which read 20%
# fewer shared bytes per product and fit once no thread holds copy
# addresses; 4096 and 8192 are not multiples of 192: the boxes fill the edge.
TMA_TILINGS = {"t128x256x64s4_tma_prefetch": dict(block=(128, 256, 64), warps=(2, 4), stages=4, prefetch=True),
               "t128x256x64s3_tma_prefetch": dict(block=(128, 256, 64), warps=(2, 4), stages=3, prefetch=True),
               "t256x192x64s3_tma": dict(block=(256, 192, 64), warps=(4, 2), stages=3),
               "t256x192x64s4_tma": dict(block=(256, 192, 64), warps=(4, 2), stages=4)}
VARIANTS.update({f"gemm_{dtype}_{size}_{name}": (
    gemm_kernel, dict(m=size, n=size, k=size, dtype=dtype, group_m=8, tma=True, **tiling))
    for dtype in ("float16", "bfloat16") for size in (4096, 8192) for name, tiling in TMA_TILINGS.items()})
# The skinny product with 8 stages of boxes in flight, 128 or 256 blocks.
VARIANTS.update({f"gemm_{dtype}_64x8192x8192_{name}": (
    gemm_kernel, dict(m=64, n=8192, k=8192, dtype=dtype, block=block, warps=warps, stages=8, tma=True, prefetch=True))
    for dtype in ("float16", "bfloat16")
    for name, block, warps in (("t64x64x64s8_tma_prefetch", (64, 64, 64), (2, 2)),
                               ("t64x32x64s8_tma_prefetch", (64, 32, 64), (2, 1)))})
# Shapes that are not multiples of the block tile: the predicated tail.
VARIANTS.update({f"tail_{dtype}_4000x4040x4008_t128x256x64s3_swizzled": (
    gemm_kernel, dict(m=4000, n=4040, k=4008, dtype=dtype, tail=True, **TILINGS["t128x256x64s3_swizzled"]))
    for dtype in ("float16", "bfloat16")})
# One kernel for every size (runtime extents, M, N, K as parameters), timed
# at the tails' shape.
VARIANTS.update({f"runtime_{dtype}_4000x4040x4008_t128x256x64s3_swizzled": (
    gemm_kernel, dict(m=None, n=None, k=None, dtype=dtype, block=(128, 256, 64), warps=(2, 4), stages=3,
                      swizzle=True)) for dtype in ("float16", "bfloat16")})
# A skinny product (M = 64): blocks of 64 x 64 so that 128 of them cover C.
VARIANTS.update({f"gemm_{dtype}_64x8192x8192_t64x64x64s4": (
    gemm_kernel, dict(m=64, n=8192, k=8192, dtype=dtype, block=(64, 64, 64), warps=(2, 2), stages=4, swizzle=True))
    for dtype in ("float16", "bfloat16")})


# s8 (C = A Bt^T, s32): the first kernel's structure, and the swizzled
# 128 x 256 blocks with 128-byte steps of K (64 b16 columns, as fp16's 64).
VARIANTS.update({f"gemm_int8_{size}": (gemm_kernel, dict(m=size, n=size, k=size, dtype="int8", block=(128, 128, 64)))
                 for size in (4096, 8192)})
VARIANTS.update({f"gemm_int8_{size}_t128x256x128s3_swizzled": (
    gemm_kernel, dict(m=size, n=size, k=size, dtype="int8", block=(128, 256, 128), warps=(2, 4), stages=3,
                      group_m=8, swizzle=True)) for size in (4096, 8192)})
VARIANTS.update({f"gemm_int8_{size}_t128x256x128s4_tma_prefetch": (
    gemm_kernel, dict(m=size, n=size, k=size, dtype="int8", block=(128, 256, 128), warps=(2, 4), stages=4,
                      group_m=8, tma=True, prefetch=True)) for size in (4096, 8192)})
