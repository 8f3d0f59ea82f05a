#!/usr/bin/env python3
"""wgmma.mma_async on the H200 against the interpreter (issue #28): one
warpgroup multiplies A (64 x K) by B (N x K, K-major) staged in swizzled
shared memory through tile.matrix_descriptor, or with A in registers from
ldmatrix, over one or more k steps; each thread stores its D registers.
Each output is compared bit for bit with the interpreter's
(interpreter/wgmma.py), whose own result test_wgmma.py checks against
numpy on the same integer-valued data.

    python tools/gpu/wgmma_check.py build build/wgmma
    PYTHONPATH=python python tools/gpu/wgmma_check.py run build/wgmma report.json

build_hazards builds the kernels the interpreter reports a WgmmaHazard in
(HAZARDS), to see on the GPU what each does against the correct D.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python")]

import bit_cases  # noqa: E402

THREADS = 128
# Each input kind as the bits the kernel copies (numpy has no bfloat16).
ELEMENT = {"bf16": ("uint16", 2), "f16": ("uint16", 2), "tf32": ("uint32", 4), "e4m3": ("uint8", 1),
           "e5m2": ("uint8", 1), "s8": ("uint8", 1), "u8": ("uint8", 1)}
K_OF = {2: 16, 4: 8, 1: 32}
SWIZZLE_BYTES = {"32B": 32, "64B": 64, "128B": 128}


def d_place(i, thread):
    """(row, column) of D's element i (f32 order) in `thread` of the
    warpgroup (PTX ISA 9.7.15.5.1, the wgmma D fragment): warp w holds rows
    16w to 16w + 15, each block of 8 columns as an mma.m16n8 accumulator."""
    warp, lane = thread // 32, thread % 32
    e = i % 4
    return 16 * warp + lane // 4 + 8 * (e // 2), 8 * (i // 4) + 2 * (lane % 4) + e % 2


def wgmma_tile(n=64, dkind="f32", akind="bf16", swizzle="128B", k_steps=1, a_registers=False,
               accumulate=False, negate_a=False, wait=0, overwrite=False, bkind=None, trans_a=False,
               trans_b=False, reload_a=False, fence=True):
    """D (64 x n, each thread's n/2 registers as stored) of A (64 x K) B^T
    (B: n x K), K = k_steps instruction steps, plus the input D where
    `accumulate` (scale-d true). `wait`: the wgmma.wait_group before D is
    stored (None: none); `overwrite`: thread 0 stores to A's shared tile
    before it. `trans_a` (`trans_b`): A (B) is given MN-major, K x 64
    (K x n) row major, staged so in shared memory (rows of K) and read
    with imm-trans-a (-b) 1; one wider than a swizzled row is staged as
    swizzled rows of its M (N) elements one after the other and described
    by a 3-D tile (the descriptor's leading byte offset between them).
    `reload_a`: with A in registers, every k step loads one set of them
    (a hazard: the last step's wgmma still reads them). Without `fence`,
    no fence.proxy.async orders the staging stores before the wgmma's
    async-proxy reads (a hazard)."""
    from tile_mlir import script as T
    bkind = bkind or akind
    dtype, size = ELEMENT[akind]
    k = K_OF[size]
    row_bytes = SWIZZLE_BYTES[swizzle]
    width = row_bytes // size  # elements per swizzled row
    k_total = k * k_steps
    regs = n // 2 if dkind != "f16" else n // 4
    d_dtype = {"f32": "float32", "s32": "int32", "f16": "uint32"}[dkind]
    opcode = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{dkind}.{akind}.{bkind}"
    scaled = akind not in ("s8", "u8")
    transposes = akind in ("bf16", "f16")
    align = 8 * row_bytes

    a_shape = (k_total, 64) if trans_a else (64, k_total)
    b_shape = (k_total, n) if trans_b else (n, k_total)
    assert k_total <= width or (trans_a and trans_b)
    # Swizzled rows each operand's rows take (more than one: MN-major).
    a_atoms, b_atoms = (-(-shape[1] // width) for shape in (a_shape, b_shape))

    @T.function
    def kernel(A: T.Tensor(a_shape, dtype), B: T.Tensor(b_shape, dtype),
               C: T.Tensor((THREADS, regs), d_dtype), Out: T.Tensor((THREADS, regs), d_dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=THREADS))
        t = T.thread_id()
        sa3 = T.alloc_shared((a_atoms, a_shape[0], width), dtype, align=align).swizzle(swizzle)
        sb3 = T.alloc_shared((b_atoms, b_shape[0], width), dtype, align=align).swizzle(swizzle)
        sa, sb = sa3[0], sb3[0]
        staged = T.alloc_local((1, 4), "uint32")
        row_units = row_bytes // 16  # 16-byte units of a swizzled row
        for tile, tensor, (rows, cols) in ((sa3, A, a_shape), (sb3, B, b_shape)):
            units = cols * size // 16  # 16-byte units per row
            for p in range(-(-rows * units // THREADS)):
                piece = p * THREADS + t
                row, unit = piece // units, piece % units
                atom, place = unit // row_units, unit % row_units
                with T.if_(piece < rows * units):
                    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], staged,
                                      tensor.view("uint32")[row:row + 1, 4 * unit:4 * unit + 4])
                    T.cuda.tile.apply(T.ptx["st.shared.v4.b32"],
                                      tile.view("uint32")[atom, row:row + 1, 4 * place:4 * place + 4], staged)
        if fence:
            T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        d = T.alloc_local((1, 1, regs), d_dtype)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], d.view("uint32").reshape((regs, 1)),
                          C.view("uint32")[t:t + 1, :].reshape((regs, 1)))
        # A fragment of each k step its own registers: a wgmma reads its A
        # registers until its wait_group, so a step must not reload the
        # last one's (PTX ISA 9.7.15.5.2; the interpreter reports it).
        a_frags = [T.alloc_local((1, 1, 4), "uint32") for _ in range(1 if reload_a else k_steps)]
        scale_d = t < THREADS if accumulate else t >= THREADS
        T.cuda.tile.apply(T.ptx["wgmma.fence.sync.aligned"])
        units = a_shape[1] * size // 16
        for step in range(k_steps):
            ks = slice(step * k, (step + 1) * k)
            b_desc = (sb3[:, ks, :] if b_atoms > 1 else sb[ks, 0:n] if trans_b else sb[0:n, ks]).matrix_descriptor()
            extra = [T.int32(-1 if negate_a else 1), T.int32(1)] if scaled else []
            if a_registers:
                # Rows 16w + (lane % 8) + 8 (matrix % 2), k 8 (matrix / 2):
                # the four 8x8 matrices of an m16k16 A fragment.
                lane, warp = t % 32, t // 32
                arow = 16 * warp + lane % 8 + 8 * ((lane // 8) % 2)
                acol = step * k + 8 * (lane // 16)
                a_frag = a_frags[0 if reload_a else step]
                T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], a_frag.reshape((1, 4)),
                                  sa[arow:arow + 1, acol:acol + 8])
                T.cuda.tile.apply(T.ptx[opcode], d, a_frag, b_desc, scale_d, *extra,
                                  *([T.uint32(int(trans_b))] if transposes else []))
            else:
                a_desc = (sa3[:, ks, :] if a_atoms > 1 else sa[ks, 0:64] if trans_a else sa[0:64, ks]
                          ).matrix_descriptor()
                T.cuda.tile.apply(T.ptx[opcode], d, a_desc, b_desc, scale_d, *extra,
                                  *([T.uint32(int(trans_a)), T.uint32(int(trans_b))] if transposes else []))
            scale_d = t < THREADS
        T.cuda.tile.apply(T.ptx["wgmma.commit_group.sync.aligned"])
        if overwrite:
            # Every thread zeroes 16-byte units of A's shared tile.
            T.cuda.tile.apply(T.ptx["mov.b32"], staged.reshape((4, 1)), T.uint32(0))
            for p in range(-(-64 * units // THREADS)):
                piece = p * THREADS + t
                row, unit = piece // units, piece % units
                with T.if_(piece < 64 * units):
                    T.cuda.tile.apply(T.ptx["st.shared.v4.b32"],
                                      sa.view("uint32")[row:row + 1, 4 * unit:4 * unit + 4], staged)
        if wait is not None:
            T.cuda.tile.apply(T.ptx["wgmma.wait_group.sync.aligned"], T.uint32(wait))
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out.view("uint32")[t:t + 1, :].reshape((regs, 1)),
                          d.view("uint32").reshape((regs, 1)))

    return kernel


def inputs(n, akind, k_total, seed=0, bkind=None):
    """Integer-valued A and B (as numbers, then as the bits of their
    kinds): every product and sum is exact. u8 takes magnitudes."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (64, k_total))
    b = rng.integers(-3, 4, (n, k_total))
    a, b = (np.abs(x) if kind == "u8" else x for x, kind in ((a, akind), (b, bkind or akind)))
    return a, b, _bits(a, akind), _bits(b, bkind or akind)


def _bits(x, kind):
    if kind in ("e4m3", "e5m2"):
        from tile_mlir.interpreter import reference
        return reference.encode(x, kind).astype(np.uint8)
    return {"bf16": lambda: _bf16_bits(x), "f16": lambda: x.astype(np.float16).view(np.uint16),
            "tf32": lambda: x.astype(np.float32).view(np.uint32),
            "s8": lambda: x.astype(np.int8).view(np.uint8), "u8": lambda: x.astype(np.uint8)}[kind]()


def _bf16_bits(x):
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


CASES = {
    "bf16_n64_128B": dict(n=64, akind="bf16", swizzle="128B", k_steps=4),
    "bf16_n256_128B": dict(n=256, akind="bf16", swizzle="128B", k_steps=2),
    "bf16_n8_64B_accumulate": dict(n=8, akind="bf16", swizzle="64B", k_steps=2, accumulate=True),
    "f16_n32_32B_negated": dict(n=32, akind="f16", swizzle="32B", k_steps=1, negate_a=True),
    "f16_f16_n64_128B": dict(n=64, dkind="f16", akind="f16", swizzle="128B", k_steps=2),
    "bf16_registers_n64": dict(n=64, akind="bf16", swizzle="128B", k_steps=4, a_registers=True),
    "tf32_n16_128B": dict(n=16, akind="tf32", swizzle="128B", k_steps=2),
    "s8_n32_128B": dict(n=32, dkind="s32", akind="s8", swizzle="128B", k_steps=2),
    "e4m3_n64_128B": dict(n=64, akind="e4m3", swizzle="128B", k_steps=2),
    "e5m2_e4m3_f16_n32_64B": dict(n=32, dkind="f16", akind="e5m2", bkind="e4m3", swizzle="64B", k_steps=2),
    "u8_s8_n16_32B_accumulate": dict(n=16, dkind="s32", akind="u8", bkind="s8", swizzle="32B", k_steps=1,
                                     accumulate=True),
    "bf16_n64_b_mn_major": dict(n=64, akind="bf16", swizzle="128B", k_steps=2, trans_b=True),
    "f16_n32_both_mn_major": dict(n=32, akind="f16", swizzle="128B", k_steps=2, trans_a=True, trans_b=True),
    "bf16_registers_n64_b_mn_major": dict(n=64, akind="bf16", swizzle="128B", k_steps=2, a_registers=True,
                                          trans_b=True),
    "f16_n32_64B_b_mn_major": dict(n=32, akind="f16", swizzle="64B", k_steps=2, trans_b=True),
    # MN-major operands wider than a swizzled row: two rows of N (P V of
    # attention at head dimension 128), four of N with A from registers,
    # four of M and two of N in 32-byte rows.
    "bf16_n128_b_mn_major_2_rows": dict(n=128, akind="bf16", swizzle="128B", k_steps=2, trans_b=True),
    "bf16_registers_n256_b_mn_major_4_rows": dict(n=256, akind="bf16", swizzle="128B", k_steps=2,
                                                  a_registers=True, trans_b=True),
    "f16_n32_32B_both_mn_major_rows": dict(n=32, akind="f16", swizzle="32B", k_steps=2, trans_a=True,
                                           trans_b=True),
}


def case_arrays(spec, seed=0):
    """(A, B) as numbers, then the kernel's arrays: A's and B's bits, the
    input D and the output, for the kernel of `spec` (a CASES entry)."""
    n, akind = spec["n"], spec["akind"]
    dkind = spec.get("dkind", "f32")
    size = ELEMENT[akind][1]
    k_total = K_OF[size] * spec["k_steps"]
    a, b, a_bits, b_bits = inputs(n, akind, k_total, seed, spec.get("bkind"))
    if spec.get("trans_a"):
        a_bits = np.ascontiguousarray(a_bits.T)
    if spec.get("trans_b"):
        b_bits = np.ascontiguousarray(b_bits.T)
    regs = n // 2 if dkind != "f16" else n // 4
    c = np.random.default_rng(seed + 1).integers(-8, 8, (THREADS, regs))
    c = {"f32": c.astype(np.float32), "s32": c.astype(np.int32),
         "f16": (c.astype(np.float16).view(np.uint16).astype(np.uint32) * 0x10001)}[dkind]
    out = np.full((THREADS, regs), 0x7F, {"f32": np.float32, "s32": np.int32, "f16": np.uint32}[dkind])
    return (a, b), [a_bits, b_bits, c, out]


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    index = []
    for name, spec in CASES.items():
        kernel = wgmma_tile(**spec)
        _, arrays = case_arrays(spec)
        tile_mlir.interpret(kernel, *arrays)
        tile_mlir.compile(kernel, target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, arrays))
    bit_cases.write_index(out_dir, index, "wgmma")


# Kernels the interpreter reports a WgmmaHazard in, each with the case whose
# correct D it is run against: D stored with no wait, and A's shared tile
# overwritten before the wait.
HAZARDS = {"no_wait": ("bf16_n256_128B", dict(wait=None)),
           "overwrite_before_wait": ("bf16_n256_128B", dict(overwrite=True))}


def build_hazards(out_dir):
    """The HAZARDS kernels, compiled without the interpreter's consent, to
    see on the GPU what the hazard does; expected is the correct D."""
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    index = []
    for name, (base, changes) in HAZARDS.items():
        spec = {**CASES[base], **changes}
        _, arrays = case_arrays(spec)
        tile_mlir.interpret(wgmma_tile(**CASES[base]), *arrays)
        tile_mlir.compile(wgmma_tile(**spec), target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, arrays))
    bit_cases.write_index(out_dir, index, "hazard")


def run(out_dir, report_path):
    bit_cases.run(out_dir, report_path, "wgmma")


if __name__ == "__main__":
    {"build": build, "build_hazards": build_hazards, "run": run}[sys.argv[1]](*sys.argv[2:])
