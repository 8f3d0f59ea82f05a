"""The two-instruction chains of tools/gpu, by name: each a ptxas (CUDA
13.0) fold that the lowering's barriers stop (docs/difftest.md).
build_artifacts.py compiles them and run_artifacts.py checks them, on a
machine without MLIR, so the specs live here, apart from both."""

# (first, second, source, middle and result storage): conversion chains
# that ptxas -O3 fused into one wrong conversion (finding 2).
CHAINS = {
    "chain_u32_s16": ("cvt.rzi.u32.f32", "cvt.sat.s16.u32", "uint32", "uint32", "uint16"),
    "chain_s64_s32": ("cvt.rzi.s64.bf16", "cvt.sat.s32.s64", "uint16", "uint64", "uint32"),
    # The reduced H200 mismatches of difftest campaign 4 (seeds 5006506 and
    # 6005967): bf16 to f16 then f16 to s32, and neg.ftz.f16x2 then a cvt
    # of its high half.
    "chain_f16_s32": ("cvt.f16.bf16", "cvt.rzi.s32.f16", "uint16", "uint16", "uint32"),
    "chain_neg_s8": ("neg.ftz.f16x2", "cvt.rzi.s8.f16", "uint32", "uint32", "uint8"),
}


# (float producer, 64-bit shift): the difftest campaign 6 mismatches (seeds
# 7003105 and 7003385) reduced to neg.f32 then shr.b64; abs.f32 and the
# other shifts fold the same way.
AMOUNT_CHAINS = {
    "amount_neg_shr": ("neg.f32", "shr.b64"),
    "amount_abs_shl": ("abs.f32", "shl.b64"),
    "amount_neg_shr_s64": ("neg.ftz.f32", "shr.s64"),
}


# (saturating f32 producer, abs of packed halves): difftest seed 7001561.
SIGN_CHAINS = {
    "sign_sat_abs_f16x2": ("mul.rp.sat.f32", "abs.ftz.f16x2"),
    "sign_sat_abs_bf16x2": ("add.sat.f32", "abs.bf16x2"),
}


# (producer, consumer, constant, result storage, producer's sources): the
# integer .sat producers and the float consumers of finding 6, at 16, 32
# and 64 bits.
RANGE_CHAINS = {
    "range_cvt_sat_min": ("cvt.sat.u32.s64", "min.f32", 30000.0, "uint32", ("a",)),
    "range_add_sat_min_ftz": ("add.sat.s32", "min.ftz.f32", 30000.0, "uint32", ("low", "b")),
    "range_mad_sat_max": ("mad.hi.sat.s32", "max.f32", -1.0, "uint32", ("low", "b", "low")),
    "range_cvt_sat_s16_min": ("cvt.sat.s16.s32", "min.f16", 8192.0, "uint16", ("b",)),
    "range_cvt_sat_s64_min": ("cvt.sat.s64.u64", "min.f64", 30000.0, "uint64", ("a",)),
}


# (half producer, max, register): a half add, sub, mul or fma, then
# max.NaN.xorsign.abs of it with +0, which ptxas -O3 fused into an FMA with
# .relu, dropping the xorsign.abs (finding 14, difftest seed 9005246).
RELU_CHAINS = {
    "relu_mul_max_f16": ("mul.rn.f16", "max.NaN.xorsign.abs.f16", "uint16"),
    "relu_add_max_bf16": ("add.rn.bf16", "max.NaN.xorsign.abs.bf16", "uint16"),
    "relu_mul_max_f16x2": ("mul.rn.f16x2", "max.NaN.xorsign.abs.f16x2", "uint32"),
    "relu_fma_max_bf16x2": ("fma.rn.bf16x2", "max.NaN.xorsign.abs.bf16x2", "uint32"),
}


# (position, length) of each column of the bfe_constant_position kernel:
# constants that ptxas -O3 folded bfe.s32 to -1 with (finding 9), the
# position's low 8 bits 32 or more and the length's not 0.
FIELD_CONSTANTS = ((40, 8), (32, 1), (296, 8), (212, 31))


# (mode, b, c) of each column of the shuffle_modes kernel: every mode, with
# clamps and segment masks (c's bits 8-12).
SHUFFLE_MODES = (("up", 1, 0), ("down", 2, 31), ("idx", 3, 0x1807), ("bfly", 5, 0x1807),
                 ("idx", 9, 0x1F00), ("up", 3, 0x1C00))
