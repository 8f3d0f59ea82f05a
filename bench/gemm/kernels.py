"""C = A B on the warp tensor cores (issue #27), written with the tile_mlir
script front end: fp16 or bf16 A (M x K) and B (K x N), row major, f32
accumulators and C.

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
OPCODE = {"float16": "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
          "bfloat16": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"}


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


def gemm_kernel(m, n, k, dtype="float16", stages=None, block=(BM, BN, BK), warps=(WARPS_M, WARPS_N), group_m=1,
                swizzle=False):
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
    (row_swizzle) instead of padding their rows."""
    bm, bn, bk = block
    warps_m, warps_n = warps
    threads = 32 * warps_m * warps_n
    wm_size, wn_size = bm // warps_m, bn // warps_n
    mt, nt = wm_size // 16, wn_size // 8
    if m % bm or n % bn or k % bk:
        raise ValueError(f"{m} x {n} x {k} is not a multiple of the {bm} x {bn} x {bk} block tile")
    if wm_size % 16 or wn_size % 16 or bk % 16:
        raise ValueError(f"a {wm_size} x {wn_size} warp tile over k steps of {bk}: need multiples of 16")
    if stages is not None and not 3 <= stages <= k // bk + 1:
        raise ValueError(f"a pipeline of {stages} stages over {k // bk} steps")
    blocks_m, blocks_n = m // bm, n // bn
    if blocks_m % group_m:
        raise ValueError(f"{blocks_m} block rows in groups of {group_m}")
    buffers = stages or 2
    a_pieces, b_pieces = _pieces(bm, bk, threads), _pieces(bk, bn, threads)

    @T.function
    def gemm(A: T.Tensor((m, k), "uint16"), B: T.Tensor((k, n), "uint16"), C: T.Tensor((m, n), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks_m * blocks_n, block=threads))
        # Three stages or more outgrow the 48 KiB of static shared memory.
        alloc = T.alloc_dynamic_shared if stages else T.alloc_shared
        pad = 0 if swizzle else PAD
        a_s = alloc((buffers, bm, bk + pad), "uint16")
        b_s = alloc((buffers, bk, bn + pad), "uint16")
        if swizzle:
            a_s = a_s.swizzle(**dict(zip(("bits", "base", "shift"), row_swizzle(2 * bk))))
            b_s = b_s.swizzle(**dict(zip(("bits", "base", "shift"), row_swizzle(2 * bn))))
        t, bid = T.thread_id(), T.block_id()
        if group_m > 1:
            in_group = bid % (group_m * blocks_n)
            row0 = ((bid // (group_m * blocks_n)) * group_m + in_group % group_m) * bm
            col0 = (in_group // group_m) * bn
        else:
            row0, col0 = (bid // blocks_n) * bm, (bid % blocks_n) * bn
        warp, lane = t // 32, t % 32
        wm, wn = (warp // warps_n) * wm_size, (warp % warps_n) * wn_size
        acc = T.alloc_local((mt, nt, 4), "float32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((mt * nt * 4, 1)).view("uint32"), T.uint32(0))
        staged = T.alloc_local((len(a_pieces) + len(b_pieces), 4), "uint32")
        a_frag = T.alloc_local((mt, 1, 4), "uint32")
        b_frag = T.alloc_local((nt, 1, 2), "uint32")
        # The address each lane gives ldmatrix .x4: row l % 8 of matrix l / 8;
        # matrices 0-3 are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
        lane_row = lane % 8 + 8 * ((lane // 8) % 2)
        lane_col = 8 * (lane // 16)
        a_piece = [piece(t) for piece in a_pieces]
        b_piece = [piece(t) for piece in b_pieces]
        staged_b = len(a_piece)

        def tiles(kt):
            """Step kt's tiles of A and B, as 32-bit words."""
            return (A.view("uint32")[row0:row0 + bm, kt * (bk // 2):kt * (bk // 2) + bk // 2],
                    B.view("uint32")[kt * bk:kt * bk + bk, col0 // 2:col0 // 2 + bn // 2])

        def load(kt):
            """Step kt's pieces from global memory into `staged`."""
            a_rows, b_rows = tiles(kt)
            for i, (r, c) in enumerate(a_piece):
                T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged[i:i + 1], a_rows[r:r + 1, c:c + 4])
            for i, (r, c) in enumerate(b_piece):
                T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged[staged_b + i:staged_b + i + 1],
                                  b_rows[r:r + 1, c:c + 4])

        def store(buffer):
            for i, (r, c) in enumerate(a_piece):
                T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], a_s.view("uint32")[buffer, r:r + 1, c:c + 4],
                                  staged[i:i + 1])
            for i, (r, c) in enumerate(b_piece):
                T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], b_s.view("uint32")[buffer, r:r + 1, c:c + 4],
                                  staged[staged_b + i:staged_b + i + 1])

        def copy(kt, buffer):
            """Step kt's pieces straight into shared buffer `buffer`."""
            a_rows, b_rows = tiles(kt)
            for r, c in a_piece:
                T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], a_s.view("uint32")[buffer, r:r + 1, c:c + 4],
                                  a_rows[r:r + 1, c:c + 4], T.uint32(16))
            for r, c in b_piece:
                T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], b_s.view("uint32")[buffer, r:r + 1, c:c + 4],
                                  b_rows[r:r + 1, c:c + 4], T.uint32(16))
            T.cuda.tile.apply(T.ptx["cp.async.commit_group"])

        steps = k // bk
        if stages:
            for s in range(stages - 1):
                copy(s, s)
        else:
            load(0)
        for kt in T.serial(0, steps):
            buffer = kt % buffers
            if stages:
                # Step kt's group has landed once at most stages - 2 newer
                # ones are pending; the barrier shows every thread's pieces
                # and that every warp is done with the buffer refilled next.
                T.cuda.tile.apply(T.ptx["cp.async.wait_group"], T.uint32(stages - 2))
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
                ahead = kt + stages - 1
                # Past the end, the last step again (in bounds, never read).
                copy(ahead - (ahead // steps) * (ahead - (steps - 1)), ahead % buffers)
            else:
                store(buffer)
                T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
                # 1. the next step's pieces are in flight while this one
                # computes (the last step loads its own pieces again: in
                # bounds, unused).
                load(kt + 1 - (kt + 1) // steps)
            for kk in range(bk // 16):
                # 2. fragments by ldmatrix, then mt x nt mma over them.
                for mi in range(mt):
                    r = wm + 16 * mi + lane_row
                    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                                      a_frag[mi:mi + 1].reshape((1, 4)),
                                      a_s[buffer, r:r + 1, 16 * kk + lane_col:16 * kk + lane_col + 8])
                for nj in range(nt // 2):
                    r = 16 * kk + lane_row
                    c = wn + 16 * nj + lane_col
                    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"],
                                      b_frag[2 * nj:2 * nj + 2].reshape((1, 4)), b_s[buffer, r:r + 1, c:c + 8])
                T.cuda.tile.apply(T.ptx[OPCODE[dtype]], acc, a_frag, b_frag)
        # 3. rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8 block.
        g, tq = lane // 4, lane % 4
        for mi in range(mt):
            for ni in range(nt):
                for half in range(2):
                    r = row0 + wm + 16 * mi + g + 8 * half
                    c = col0 + wn + 8 * ni + 2 * tq
                    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], C[r:r + 1, c:c + 2],
                                      acc[mi, ni:ni + 1, 2 * half:2 * half + 2])

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
VARIANTS.update({f"gemm_{dtype}_{size}_{name}": (gemm_kernel, dict(m=size, n=size, k=size, dtype=dtype, **tiling))
                 for dtype in ("float16", "bfloat16") for size in (4096, 8192) for name, tiling in TILINGS.items()})
# A skinny product (M = 64): blocks of 64 x 64 so that 128 of them cover C.
VARIANTS.update({f"gemm_{dtype}_64x8192x8192_t64x64x64s4": (
    gemm_kernel, dict(m=64, n=8192, k=8192, dtype=dtype, block=(64, 64, 64), warps=(2, 2), stages=4, swizzle=True))
    for dtype in ("float16", "bfloat16")})


INT8_MMA = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
BK_BYTES = 64  # a step of K in bytes: the same 32 b16 columns of shared memory as fp16's 32 values


def gemm_int8_kernel(m, n, k):
    """C = A B^T on s8 data with s32 accumulators (`mma.m16n8k32.s8`): A is
    M x K and Bt is N x K, both row major (K contiguous, the layout the s8
    fragments of B need: ldmatrix has no .trans for bytes), C is M x N s32.
    The fp16 kernel's structure, in bytes: a step is 64 bytes of K (the same
    32 b16 columns of shared memory), A's fragments by ldmatrix .x4 of the
    16 x 64-byte blocks viewed as b16, each n8 block's B fragment by an
    ldmatrix .x2 of Bt (rows n, bytes 0-15 and 16-31 of the 32 of k). The
    sums are exact and wrap modulo 2^32 (no .satfinite), so on the H200 and
    in the interpreter C equals numpy's int64 product taken modulo 2^32."""
    if m % BM or n % BN or k % BK_BYTES:
        raise ValueError(f"{m} x {n} x {k} is not a multiple of the {BM} x {BN} x {BK_BYTES} block tile")
    blocks_n = n // BN
    words = BK_BYTES // 4  # 32-bit words of a step's row

    @T.function
    def gemm_int8(A: T.Tensor((m, k), "int8"), Bt: T.Tensor((n, k), "int8"), C: T.Tensor((m, n), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=(m // BM) * blocks_n, block=THREADS))
        a_s = T.alloc_shared((2, BM, BK + PAD), "uint16")
        b_s = T.alloc_shared((2, BN, BK + PAD), "uint16")
        t, bid = T.thread_id(), T.block_id()
        row0, col0 = (bid // blocks_n) * BM, (bid % blocks_n) * BN
        warp, lane = t // 32, t % 32
        wm, wn = (warp // WARPS_N) * WM, (warp % WARPS_N) * WN
        acc = T.alloc_local((MT, NT, 4), "int32")
        T.cuda.tile.apply(T.ptx["mov.b32"], acc.reshape((MT * NT * 4, 1)).view("uint32"), T.uint32(0))
        staged = T.alloc_local((4, 4), "uint32")
        a_frag = T.alloc_local((MT, 1, 4), "uint32")
        b_frag = T.alloc_local((NT, 1, 2), "uint32")
        lane_row = lane % 8 + 8 * ((lane // 8) % 2)
        lane_col = 8 * (lane // 16)
        pieces = [(t // 4 + 64 * i, (t % 4) * 4) for i in range(2)]  # (row, word) of a 128-row tile

        def load(kt):
            a_rows = A.view("uint32")[row0:row0 + BM, kt * words:kt * words + words]
            b_rows = Bt.view("uint32")[col0:col0 + BN, kt * words:kt * words + words]
            for i, (r, c) in enumerate(pieces):
                T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged[i:i + 1], a_rows[r:r + 1, c:c + 4])
                T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged[2 + i:3 + i], b_rows[r:r + 1, c:c + 4])

        def store(buffer):
            for i, (r, c) in enumerate(pieces):
                T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], a_s.view("uint32")[buffer, r:r + 1, c:c + 4],
                                  staged[i:i + 1])
                T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], b_s.view("uint32")[buffer, r:r + 1, c:c + 4],
                                  staged[2 + i:3 + i])

        steps = k // BK_BYTES
        load(0)
        for kt in T.serial(0, steps):
            buffer = kt % 2
            store(buffer)
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
            load(kt + 1 - (kt + 1) // steps)
            for kk in range(BK // 16):  # 32 bytes of K (16 b16 columns) per mma step
                for mi in range(MT):
                    r = wm + 16 * mi + lane_row
                    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                                      a_frag[mi:mi + 1].reshape((1, 4)),
                                      a_s[buffer, r:r + 1, 16 * kk + lane_col:16 * kk + lane_col + 8])
                for ni in range(NT):
                    # .x2: lanes 0-7 give rows n 0-7 at bytes 0-15, lanes 8-15 at bytes 16-31.
                    r = wn + 8 * ni + lane % 8
                    c = 16 * kk + 8 * ((lane // 8) % 2)
                    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"],
                                      b_frag[ni:ni + 1].reshape((1, 2)), b_s[buffer, r:r + 1, c:c + 8])
                T.cuda.tile.apply(T.ptx[INT8_MMA], acc, a_frag, b_frag)
        g, tq = lane // 4, lane % 4
        for mi in range(MT):
            for ni in range(NT):
                for half in range(2):
                    r = row0 + wm + 16 * mi + g + 8 * half
                    c = col0 + wn + 8 * ni + 2 * tq
                    T.cuda.tile.apply(T.ptx["st.global.v2.b32"], C[r:r + 1, c:c + 2],
                                      acc[mi, ni:ni + 1, 2 * half:2 * half + 2])

    return gemm_int8


VARIANTS.update({f"gemm_int8_{size}": (gemm_int8_kernel, dict(m=size, n=size, k=size)) for size in (4096, 8192)})
