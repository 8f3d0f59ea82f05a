//===- FormRecords.cpp - The records of the PTX families -------------------===//
//
// Facts are PTX ISA 9.0's, checked against ptxas (CUDA 13.0) by
// tools/ptxas_diff; where ptxas differs from the ISA's prose, ptxas wins and
// the record says so.
//
//===----------------------------------------------------------------------===//

#include "FormRecords.h"
#include "FormSupport.h"

#include <array>

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::tile::ptx;
using namespace mlir::tile::ptx::records;
using llvm::StringRef;

namespace {

/// `base` and one more record after it.
template <typename T, size_t N>
constexpr std::array<T, N + 1> appended(const T (&base)[N], T extra) {
  std::array<T, N + 1> all{};
  for (size_t i = 0; i < N; ++i)
    all[i] = base[i];
  all[N] = extra;
  return all;
}

//===-- Shared token lists --------------------------------------------------===//

constexpr StringRef kRoundings[] = {"rn", "rz", "rm", "rp"};
constexpr StringRef kRn[] = {"rn"};
constexpr StringRef kFtz[] = {"ftz"};
constexpr StringRef kSat[] = {"sat"};
constexpr StringRef kCc[] = {"cc"};
constexpr StringRef kSatCc[] = {"sat", "cc"};

//===-- add, sub, mul ------------------------------------------------------===//

constexpr StringRef kIntTypes[] = {"u16", "u32", "u64", "s16", "s32", "s64"};
constexpr StringRef kFloatTypes[] = {"f16", "f16x2", "bf16", "bf16x2",
                                     "f32", "f32x2", "f64"};
constexpr StringRef kSimd16[] = {"u16x2", "s16x2"};
constexpr StringRef kF32[] = {"f32"};
constexpr StringRef kS32[] = {"s32"};
constexpr StringRef kF32x2[] = {"f32x2"};
constexpr StringRef kHalf[] = {"f16", "f16x2"};
constexpr StringRef kBf16[] = {"bf16", "bf16x2"};
constexpr StringRef kHalfOrBf16[] = {"f16", "bf16"};
constexpr StringRef kWideRounding[] = {"f32", "f32x2", "f64"};
constexpr StringRef kRnOnly[] = {"f16", "f16x2", "bf16", "bf16x2"};
constexpr StringRef kFtzTypes[] = {"f32", "f32x2", "f16", "f16x2"};
constexpr StringRef kSatTypes[] = {"f32", "f16", "f16x2"};

constexpr Tokens kIntTuple[] = {kIntTypes};
constexpr Tokens kFloatTuple[] = {kFloatTypes};
constexpr Tokens kSimd16Tuple[] = {kSimd16};
constexpr Tokens kMixedTuple[] = {kF32, kHalfOrBf16};

constexpr OperandRecord kBinary[] = {{"dst", Role::Dst},
                                     {"lhs", Role::Src},
                                     {"rhs", Role::Src}};
constexpr Signature kBinarySignature[] = {kBinary};

constexpr SlotRecord kAddIntSlots[] = {
    {"carry-out", kCc}, {"sat", kSat, false, kS32}};
constexpr RuleRecord kAddIntRules[] = {
    {RuleRecord::NarrowerThan, "cc", {}, 32,
     "'cc' is not available for {ctx}: carry-out needs a 32- or 64-bit type"},
    {RuleRecord::Excludes, "sat", "cc", 0,
     "'sat' cannot be combined with 'cc' in {ctx}"}};
// add.sat.s32 and sub.sat.s32 results are exposed to
// Fold::IntegerSaturation.
constexpr OperandRecord kSaturatingBinary[] = {
    {.name = "dst", .role = Role::Dst, .saturationBy = "sat"},
    {.name = "lhs", .role = Role::Src},
    {.name = "rhs", .role = Role::Src}};
constexpr Signature kSaturatingBinarySignature[] = {kSaturatingBinary};
constexpr VariantRecord kAddInt = {kIntTuple, kAddIntSlots, kAddIntRules, {},
                                   kSaturatingBinarySignature};

constexpr SlotRecord kFloatSlots[] = {
    {"rounding mode", kRoundings, false, kWideRounding},
    {"rounding mode", kRn, false, kRnOnly},
    {"ftz", kFtz, false, kFtzTypes},
    {"sat", kSat, false, kSatTypes}};
constexpr FloorRecord kFloatFloors[] = {
    {100, 86, kF32x2}, {53, 42, kHalf}, {90, 78, kBf16}};
constexpr VariantRecord kFloatArith = {kFloatTuple, kFloatSlots, {},
                                       kFloatFloors, kBinarySignature};

constexpr FloorRecord kSimd16Floors[] = {{90, 80}};
constexpr VariantRecord kAddSimd16 = {kSimd16Tuple, {}, {}, kSimd16Floors,
                                      kBinarySignature};

// add/sub{.rnd}{.sat}.f32.{f16,bf16} d, a, c: a has the narrow type.
constexpr SlotRecord kMixedSlots[] = {{"rounding mode", kRoundings},
                                      {"sat", kSat}};
constexpr FloorRecord kMixedFloors[] = {{100, 86}};
constexpr OperandRecord kMixed[] = {{"dst", Role::Dst},
                                    {"lhs", Role::Src, Space::Reg, 1},
                                    {"rhs", Role::Src}};
constexpr Signature kMixedSignature[] = {kMixed};
constexpr VariantRecord kMixedArith = {kMixedTuple, kMixedSlots, {},
                                       kMixedFloors, kMixedSignature};

constexpr StringRef kMulModes[] = {"hi", "lo", "wide"};
constexpr SlotRecord kMulIntSlots[] = {{"mode", kMulModes, true}};
constexpr RuleRecord kMulIntRules[] = {
    // Unlike the other qualifiers, ptxas takes mul's mode only before the
    // type: mul.lo.s32, never mul.s32.lo.
    {RuleRecord::SlotAfterType, "mode", {}, 0,
     "'{tok}' must come before the type in {ctx}: ptxas takes mul's mode "
     "first (mul.{tok}.{type})"},
    {RuleRecord::AtLeast, "wide", {}, 64,
     "'wide' is not available for {ctx}: wide multiplies 16- and 32-bit "
     "operands only"}};
constexpr OperandRecord kMulInt[] = {
    {"dst", Role::Dst, Space::Reg, 0, {}, 1, "wide"},
    {"lhs", Role::Src},
    {"rhs", Role::Src}};
constexpr Signature kMulIntSignature[] = {kMulInt};
constexpr VariantRecord kMulIntVariant = {kIntTuple, kMulIntSlots,
                                          kMulIntRules, {}, kMulIntSignature};

constexpr VariantRecord kAddVariants[] = {kAddInt, kFloatArith, kAddSimd16,
                                          kMixedArith};
constexpr VariantRecord kSubVariants[] = {kAddInt, kFloatArith, kMixedArith};
constexpr VariantRecord kMulVariants[] = {kMulIntVariant, kFloatArith};

//===-- abs, neg -----------------------------------------------------------===//

constexpr StringRef kAbsTypes[] = {"s16",  "s32", "s64", "f16",
                                   "bf16", "f32", "f64"};
constexpr StringRef kPackedHalfTypes[] = {"f16x2", "bf16x2"};
constexpr StringRef kAbsFtzTypes[] = {"f32", "f16", "f16x2"};
constexpr Tokens kAbsTuple[] = {kAbsTypes};
constexpr Tokens kPackedHalfTuple[] = {kPackedHalfTypes};
constexpr SlotRecord kAbsSlots[] = {{"ftz", kFtz, false, kAbsFtzTypes}};
constexpr OperandRecord kUnary[] = {{"dst", Role::Dst}, {"src", Role::Src}};
constexpr Signature kUnarySignature[] = {kUnary};
// abs of packed halves is exposed to Fold::PackedHalfAbs: ptxas
// (CUDA 13.0) -O3 drops abs.f16x2 and abs.bf16x2 after an f32 result it
// knows is not negative (mul.sat, add.sat, abs.f32), so the low half keeps
// its sign (measured on an H200: tools/difftest/results/fold_probe.json).
constexpr OperandRecord kPackedHalfAbs[] = {
    {"dst", Role::Dst}, {.name = "src", .role = Role::Src, .fold = Fold::PackedHalfAbs}};
constexpr Signature kPackedHalfAbsSignature[] = {kPackedHalfAbs};
constexpr FloorRecord kAbsFloors[] = {{53, 65, kHalf}, {80, 70, kBf16}};
constexpr FloorRecord kNegFloors[] = {{53, 60, kHalf}, {80, 70, kBf16}};
constexpr VariantRecord kAbs[] = {
    {kAbsTuple, kAbsSlots, {}, kAbsFloors, kUnarySignature},
    {kPackedHalfTuple, kAbsSlots, {}, kAbsFloors, kPackedHalfAbsSignature}};
constexpr VariantRecord kNeg[] = {
    {kAbsTuple, kAbsSlots, {}, kNegFloors, kUnarySignature},
    {kPackedHalfTuple, kAbsSlots, {}, kNegFloors, kUnarySignature}};

//===-- mov ----------------------------------------------------------------===//

// mov.b16..b128 also pack registers into one and unpack one into several
// with braces (mov.b64 d, {a, b}): pieces of half the width, and of a
// quarter where ptxas takes them (bytes only for b16 and b32), each piece a
// register of exactly its width.
struct MovPacking {
  OperandRecord pack[2], unpack[2];
};
constexpr MovPacking movPacking(StringRef piece, unsigned parts) {
  MovPacking packing{};
  packing.pack[0] = {"dst", Role::Dst};
  packing.pack[1] = {.name = "src", .role = Role::Src, .fixedType = piece,
                     .count = parts, .exactRegister = true};
  packing.unpack[0] = {.name = "dst", .role = Role::Dst, .fixedType = piece,
                       .count = parts, .exactRegister = true};
  packing.unpack[1] = {"src", Role::Src};
  return packing;
}
constexpr MovPacking kB8Pairs = movPacking("b8", 2);
constexpr MovPacking kB8Quads = movPacking("b8", 4);
constexpr MovPacking kB16Pairs = movPacking("b16", 2);
constexpr MovPacking kB16Quads = movPacking("b16", 4);
constexpr MovPacking kB32Pairs = movPacking("b32", 2);
constexpr MovPacking kB32Quads = movPacking("b32", 4);
constexpr MovPacking kB64Pairs = movPacking("b64", 2);
constexpr Signature kMovB16Signatures[] = {kUnary, kB8Pairs.pack,
                                           kB8Pairs.unpack};
constexpr Signature kMovB32Signatures[] = {
    kUnary, kB16Pairs.pack, kB16Pairs.unpack, kB8Quads.pack, kB8Quads.unpack};
constexpr Signature kMovB64Signatures[] = {
    kUnary, kB32Pairs.pack, kB32Pairs.unpack, kB16Quads.pack,
    kB16Quads.unpack};
constexpr Signature kMovB128Signatures[] = {
    kUnary, kB64Pairs.pack, kB64Pairs.unpack, kB32Quads.pack,
    kB32Quads.unpack};
constexpr StringRef kMovTypes[] = {"u16", "u32", "u64", "s16",
                                   "s32", "s64", "f32", "f64"};
// mov.pred copies a predicate register (ptxas 13.0 takes it on every
// target).
constexpr StringRef kMovPred[] = {"pred"};
constexpr Tokens kMovPredTuple[] = {kMovPred};
constexpr StringRef kB16Only[] = {"b16"};
constexpr StringRef kB32Only[] = {"b32"};
constexpr StringRef kB64Only[] = {"b64"};
constexpr StringRef kB128[] = {"b128"};
constexpr Tokens kMovTuple[] = {kMovTypes};
constexpr Tokens kB16Tuple[] = {kB16Only};
constexpr Tokens kB32OnlyTuple[] = {kB32Only};
constexpr Tokens kB64Tuple[] = {kB64Only};
constexpr Tokens kB128Tuple[] = {kB128};
constexpr FloorRecord kMovFloors[] = {{70, 83}};
constexpr VariantRecord kMov[] = {
    {kB16Tuple, {}, {}, {}, kMovB16Signatures},
    {kB32OnlyTuple, {}, {}, {}, kMovB32Signatures},
    {kB64Tuple, {}, {}, {}, kMovB64Signatures},
    {kB128Tuple, {}, {}, kMovFloors, kMovB128Signatures},
    {kMovTuple, {}, {}, {}, kUnarySignature},
    {kMovPredTuple, {}, {}, {}, kUnarySignature}};

//===-- fma ----------------------------------------------------------------===//

constexpr StringRef kFmaTypes[] = {"f32", "f64"};
constexpr StringRef kFtzSatTypes[] = {"f32"};
constexpr Tokens kFmaTuple[] = {kFmaTypes};
constexpr SlotRecord kFmaSlots[] = {
    {"rounding mode", kRoundings, true},
    {"ftz", kFtz, false, kFtzSatTypes},
    {"sat", kSat, false, kFtzSatTypes}};
constexpr OperandRecord kFma[] = {{"dst", Role::Dst},
                                  {"a", Role::Src},
                                  {"b", Role::Src},
                                  {"c", Role::Src}};
// fma d, a, b, d: the addend is the destination, read and written.
constexpr OperandRecord kFmaTied[] = {
    {.name = "acc", .role = Role::ReadWrite, .readAt = 3},
    {"a", Role::Src},
    {"b", Role::Src}};
constexpr Signature kFmaSignatures[] = {kFma, kFmaTied};

// Measured with ptxas 13.0: f16 and f16x2 round to nearest only;
// .ftz and .sat on f16 and f16x2, .relu (sm_80) on those and bf16, but not
// with .sat; f32x2 (sm_100) takes no .sat. .oob (sm_90) is not here yet:
// its inputs' out-of-bounds NaN needs a model of its own.
constexpr StringRef kReluOnly[] = {"relu"};
constexpr Tokens kF16PairTuple[] = {kHalf};
constexpr Tokens kBf16PairTuple[] = {kBf16};
constexpr SlotRecord kFmaHalfSlots[] = {{"rounding mode", kRn, true},
                                        {"ftz", kFtz},
                                        {"sat", kSat},
                                        {"relu", kReluOnly}};
constexpr RuleRecord kFmaHalfRules[] = {
    {RuleRecord::Excludes, "relu", "sat", 0,
     "'relu' cannot be combined with 'sat' in {ctx}"}};
constexpr FloorRecord kFmaHalfFloors[] = {{53, 42}, {80, 70, {}, "relu"}};
// The ISA defines fma.rn for bf16 only. ptxas 13.0 also takes rz, rm and
// rp, and computes them as an f16 fma of the same bits: on an H200, 75-85%
// of the results of fma.rz.bf16 etc. were wrong, and matched an f16
// fma (tools/conformance). The slot lists them to name them in the error.
constexpr SlotRecord kFmaBf16Slots[] = {{"rounding mode", kRoundings, true},
                                        {"relu", kReluOnly}};
constexpr RuleRecord kFmaBf16Rules[] = {
    {.kind = RuleRecord::Excludes,
     .token = "rounding mode",
     .other = "rounding mode",
     .message = "'{tok}' is not available for {ctx}: the PTX ISA defines "
                "fma.rn for bf16 only, and ptxas (CUDA 13.0) computes "
                "fma.{tok}.bf16 as an f16 fma (measured on an H200)",
     .allowed = kRn}};
constexpr FloorRecord kFmaBf16Floors[] = {{80, 70}};
constexpr SlotRecord kFmaF32x2Slots[] = {{"rounding mode", kRoundings, true},
                                         {"ftz", kFtz}};
constexpr Tokens kF32x2Tuple[] = {kF32x2};
constexpr FloorRecord kFmaF32x2Floors[] = {{100, 86}};
constexpr VariantRecord kFmaVariants[] = {
    {kFmaTuple, kFmaSlots, {}, {}, kFmaSignatures},
    {kF16PairTuple, kFmaHalfSlots, kFmaHalfRules, kFmaHalfFloors,
     kFmaSignatures},
    {kBf16PairTuple, kFmaBf16Slots, kFmaBf16Rules, kFmaBf16Floors,
     kFmaSignatures},
    {kF32x2Tuple, kFmaF32x2Slots, {}, kFmaF32x2Floors, kFmaSignatures}};

//===-- mad ----------------------------------------------------------------===//

// mad.mode{.cc}{.sat}.type d, a, b, c: the mode first (as mul's), .cc on
// lo and hi of 32- and 64-bit types, .sat on mad.hi.s32 only and not with
// .cc; mad.wide doubles d and c. Floats: fma's forms.
constexpr SlotRecord kMadIntSlots[] = {{"mode", kMulModes, true},
                                       {"carry-out", kCc},
                                       {"sat", kSat, false, kS32}};
constexpr RuleRecord kMadIntRules[] = {
    {RuleRecord::SlotAfterType, "mode", {}, 0,
     "'{tok}' must come before the type in {ctx}: ptxas takes mad's mode "
     "first (mad.{tok}.{type})"},
    {RuleRecord::AtLeast, "wide", {}, 64,
     "'wide' is not available for {ctx}: wide multiplies 16- and 32-bit "
     "operands only"},
    {RuleRecord::NarrowerThan, "cc", {}, 32,
     "'cc' is not available for {ctx}: carry-out needs a 32- or 64-bit type"},
    {RuleRecord::Excludes, "cc", "wide", 0,
     "'cc' is not available with 'wide' in {ctx}: carry-out applies to lo "
     "and hi"},
    {RuleRecord::Requires, "sat", "hi", 0,
     "'sat' needs 'hi' in {ctx}: only mad.hi.sat.s32 saturates"},
    {RuleRecord::Excludes, "sat", "cc", 0,
     "'sat' cannot be combined with 'cc' in {ctx}"},
    // ptxas takes mad's mode first of all: mad.lo.cc, never mad.cc.lo.
    {RuleRecord::Before, "mode", "cc", 0,
     "'{tok}' must come first in {ctx}: ptxas takes mad's mode before "
     "'cc' (mad.{tok}.cc.{type})"},
    {RuleRecord::Before, "mode", "sat", 0,
     "'{tok}' must come first in {ctx}: ptxas takes mad's mode before "
     "'sat' (mad.{tok}.sat.{type})"}};
constexpr OperandRecord kMadInt[] = {
    {.name = "dst",
     .role = Role::Dst,
     .widenedBy = "wide",
     .saturationBy = "sat"},
    {"a", Role::Src},
    {"b", Role::Src},
    {"c", Role::Src, Space::Reg, 0, {}, 1, "wide"}};
constexpr Signature kMadIntSignature[] = {kMadInt};
constexpr VariantRecord kMadVariants[] = {
    {kIntTuple, kMadIntSlots, kMadIntRules, {}, kMadIntSignature},
    {kFmaTuple, kFmaSlots, {}, {}, kFmaSignatures}};
constexpr StringRef kSatReluRepeats[] = {"sat", "relu"};

//===-- the L2 cache policy ------------------------------------------------===//

// .L2::cache_hint: an access (ld, st, cp.async, the bulk copies and TMA)
// takes a 64-bit cache policy (createpolicy's result) as its last operand.
constexpr StringRef kCacheHint[] = {"L2::cache_hint"};
constexpr OperandRecord kCachePolicy = {
    .name = "cache-policy", .role = Role::Src, .fixedType = "b64",
    .onlyWith = "L2::cache_hint"};

//===-- cp.async -----------------------------------------------------------===//

// cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::prefetch}
// [dst], [src], size{, src-size}{, cache-policy}. Measured with ptxas 13.0:
// any qualifier order, but the destination space comes before the source
// space; .cg copies 16 bytes only; .L2::cache_hint from sm_80 and PTX 7.4.
constexpr StringRef kCpCache[] = {"ca", "cg"};
constexpr StringRef kSharedDst[] = {"shared", "shared::cta"};
constexpr StringRef kGlobal[] = {"global"};
constexpr StringRef kPrefetch[] = {"L2::64B", "L2::128B", "L2::256B"};
constexpr SlotRecord kCpAsyncSlots[] = {
    {"cache operator", kCpCache, true},
    {"destination state space", kSharedDst, true},
    {"source state space", kGlobal, true},
    {"L2::cache_hint", kCacheHint},
    {"prefetch size", kPrefetch}};
constexpr RuleRecord kCpAsyncRules[] = {
    {RuleRecord::Before, "shared", "global", 0,
     "'global' must follow the destination space in {ctx}: cp.async copies "
     "from global to shared memory (cp.async.ca.shared.global)"},
    {RuleRecord::Before, "shared::cta", "global", 0,
     "'global' must follow the destination space in {ctx}: cp.async copies "
     "from global to shared memory (cp.async.ca.shared::cta.global)"},
    // Measured on an H200 (tools/gpu/cp_async_policy.py): where the shared
    // address is a uniform value plus a register, ptxas 13.0 at -O1 and
    // above encodes the copy as LDGSTS [R+UR], desc[UR] naming uniform
    // registers nothing writes, and the GPU stops the kernel; -O0 runs it.
    {.kind = RuleRecord::Caveat,
     .token = "L2::cache_hint",
     .message = "ptxas (CUDA 13.0, -O1 and above) can assemble {ctx} with "
                ".L2::cache_hint into an LDGSTS that names uniform registers "
                "nothing writes, when the shared address is a uniform value "
                "plus a register: an H200 stops the kernel with an illegal "
                "instruction (measured; ptxas -O0 runs it)"}};
constexpr FloorRecord kCpAsyncFloors[] = {
    {80, 70}, {80, 78, {}, "shared::cta"}, {80, 74, {}, "L2::64B"},
    {80, 74, {}, "L2::128B"}, {80, 74, {}, "L2::256B"},
    {80, 74, {}, "L2::cache_hint"}};
constexpr unsigned kCpSizes[] = {4, 8, 16};
constexpr unsigned kCgSizes[] = {16};
constexpr OperandRecord kCpAsync[] = {
    {"dst", Role::Dst, Space::Shared, 0, "b8", 1, {}, {}, {}, {}, "cp-size"},
    {"src", Role::Src, Space::Global, 0, "b8", 1, {}, {}, {}, {}, "cp-size"},
    {"cp-size", Role::Imm, Space::Reg, 0, "u32", 1, {}, kCpSizes, "cg",
     kCgSizes},
    kCachePolicy};
// With src-size, a u32 register: the bytes read from src; the rest of the
// cp-size bytes are zero-filled (PTX ISA 9.0, 9.7.9.25.3.1). A predicated
// tail copies 0 bytes where it has none.
constexpr OperandRecord kCpAsyncZeroFill[] = {
    kCpAsync[0], kCpAsync[1], kCpAsync[2],
    {.name = "src-size", .role = Role::Src, .fixedType = "u32"},
    kCachePolicy};
constexpr Signature kCpAsyncSignature[] = {kCpAsync, kCpAsyncZeroFill};
constexpr VariantRecord kCpAsyncVariants[] = {
    {{}, kCpAsyncSlots, kCpAsyncRules, kCpAsyncFloors, kCpAsyncSignature}};

// cp.async.commit_group closes the thread's open group of copies;
// cp.async.wait_group N waits until at most N of its committed groups are
// pending, cp.async.wait_all until none is (PTX ISA 9.0, 9.7.9.25.3).
// ptxas 13.0 takes any integer for N, -1 too; the table takes 0 and up.
constexpr OperandRecord kWaitGroup[] = {
    {.name = "n", .role = Role::Imm, .fixedType = "u32",
     .maxImmediate = 0x7fffffff}};
constexpr Signature kWaitGroupSignature[] = {kWaitGroup};
constexpr FloorRecord kSm80Ptx70Only[] = {{80, 70}};
constexpr Signature kNoGroupOperands[] = {{}};
constexpr VariantRecord kCommitGroupVariants[] = {
    {.floors = kSm80Ptx70Only, .signatures = kNoGroupOperands}};
constexpr VariantRecord kWaitGroupVariants[] = {
    {.floors = kSm80Ptx70Only, .signatures = kWaitGroupSignature}};

//===-- cp.async.bulk ------------------------------------------------------===//

// cp.async.bulk.tensor.{1d..5d} (PTX ISA 9.0, 9.7.9.27.1), tile mode: a box
// of the tensor a tensor map describes, between global and shared memory.
//   .shared::{cluster,cta}.global{.tile}.mbarrier::complete_tx::bytes
//       {.multicast::cluster}{.L2::cache_hint}
//       [dstMem], [tensorMap, {coords}], [mbar]{, ctaMask}{, cache-policy}
//   .global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
//       [tensorMap, {coords}], [srcMem]{, cache-policy}
// Measured with ptxas 13.0: the qualifiers in any order but the destination
// space before the source space; none repeated; sm_90 and PTX 8.0, a
// .shared::cta destination PTX 8.6; .multicast::cluster only into
// .shared::cluster. The tensor map is a 64-bit generic address (of a
// kernel parameter, tile.tensor_map), the coordinates s32, innermost
// first; ctaMask is 16 bits, the cache policy 64.
constexpr StringRef kTensorDims[] = {"1d", "2d", "3d", "4d", "5d"};
constexpr StringRef kTmaLoadDst[] = {"shared::cluster", "shared::cta"};
constexpr StringRef kTmaClusterDst[] = {"shared::cluster"};
constexpr StringRef kTmaStoreSrc[] = {"shared::cta"};
constexpr StringRef kTmaTile[] = {"tile"};
constexpr StringRef kTmaMbarrier[] = {"mbarrier::complete_tx::bytes"};
constexpr StringRef kTmaBulkGroup[] = {"bulk_group"};
constexpr StringRef kTmaCompletions[] = {"mbarrier::complete_tx::bytes",
                                         "bulk_group"};
constexpr StringRef kTmaMulticast[] = {"multicast::cluster"};
constexpr SlotRecord kTmaLoadSlots[] = {
    {"dimension", kTensorDims, true},
    {"destination state space", kTmaLoadDst, true},
    {"source state space", kGlobal, true},
    {"load mode", kTmaTile},
    {"completion mechanism", kTmaMbarrier, true},
    {"multicast", kTmaMulticast},
    {"cache hint", kCacheHint}};
constexpr SlotRecord kTmaStoreSlots[] = {
    {"dimension", kTensorDims, true},
    {"destination state space", kGlobal, true},
    {"source state space", kTmaStoreSrc, true},
    {"load mode", kTmaTile},
    {"completion mechanism", kTmaBulkGroup, true},
    {"cache hint", kCacheHint}};
// A spelling with neither completion mechanism: this variant only names
// what is missing.
constexpr SlotRecord kTmaAnySlots[] = {
    {"dimension", kTensorDims, true},
    {"destination state space", kTmaLoadDst},
    {"source state space", kGlobal},
    {"load mode", kTmaTile},
    {"multicast", kTmaMulticast},
    {"cache hint", kCacheHint},
    {"completion mechanism", kTmaCompletions, true}};
constexpr RuleRecord kTmaLoadRules[] = {
    {RuleRecord::Before, "destination state space", "global", 0,
     "'global' must follow the destination space in {ctx}: a load copies "
     "from global to shared memory (cp.async.bulk.tensor.2d.{tok}.global)"},
    {RuleRecord::Excludes, "multicast::cluster", "destination state space",
     0,
     "'multicast::cluster' cannot be combined with 'shared::cta' in {ctx}: "
     "it delivers into the shared memory of several CTAs of the cluster",
     kTmaClusterDst}};
constexpr RuleRecord kTmaStoreRules[] = {
    {RuleRecord::Before, "global", "shared::cta", 0,
     "'shared::cta' must follow the destination space in {ctx}: a store "
     "copies from shared to global memory "
     "(cp.async.bulk.tensor.2d.global.shared::cta)"}};
constexpr FloorRecord kTmaLoadFloors[] = {{90, 80},
                                          {90, 86, {}, "shared::cta"}};
constexpr FloorRecord kTmaFloors[] = {{90, 80}};
constexpr OperandRecord kTmaMap = {.name = "tensorMap", .role = Role::Src,
                                   .fixedType = "b64", .address = true};
constexpr OperandRecord kTmaCoords = {
    .name = "tensorCoords", .role = Role::Src, .fixedType = "s32",
    .countFrom = "dimension", .braced = true, .withinAddress = true};
constexpr OperandRecord kTmaLoad[] = {
    {.name = "dstMem", .role = Role::Dst, .space = Space::Shared,
     .fixedType = "b8", .box = true},
    kTmaMap,
    kTmaCoords,
    {.name = "mbar", .role = Role::Dst, .space = Space::Shared,
     .fixedType = "b64"},
    {.name = "ctaMask", .role = Role::Src, .fixedType = "b16",
     .onlyWith = "multicast::cluster"},
    kCachePolicy};
constexpr OperandRecord kTmaStore[] = {
    kTmaMap,
    kTmaCoords,
    {.name = "srcMem", .role = Role::Src, .space = Space::Shared,
     .fixedType = "b8", .box = true},
    kCachePolicy};
constexpr Signature kTmaLoadSignature[] = {kTmaLoad};
constexpr Signature kTmaStoreSignature[] = {kTmaStore};
constexpr VariantRecord kTmaVariants[] = {
    {.slots = kTmaLoadSlots, .rules = kTmaLoadRules, .floors = kTmaLoadFloors,
     .signatures = kTmaLoadSignature,
     .whenToken = "mbarrier::complete_tx::bytes"},
    {.slots = kTmaStoreSlots, .rules = kTmaStoreRules, .floors = kTmaFloors,
     .signatures = kTmaStoreSignature, .whenToken = "bulk_group"},
    {.slots = kTmaAnySlots, .floors = kTmaFloors,
     .signatures = kTmaLoadSignature}};

// cp.async.bulk.prefetch.tensor.{1d..5d}.L2.global{.tile}{.L2::cache_hint}
//     [tensorMap, {coords}]{, cache-policy}
// (PTX ISA 9.0, 9.7.9.27.2), tile mode: brings a box of the tensor into
// L2, nothing into shared memory, and completes nothing. Measured with
// ptxas 13.0: the qualifiers in any order; .L2 ("level modifier required")
// and .global ("state space modifier required") both needed; sm_90 and
// PTX 8.0.
constexpr StringRef kL2Level[] = {"L2"};
constexpr SlotRecord kTmaPrefetchSlots[] = {
    {"dimension", kTensorDims, true},
    {"level", kL2Level, true},
    {"source state space", kGlobal, true},
    {"load mode", kTmaTile},
    {"cache hint", kCacheHint}};
constexpr OperandRecord kTmaPrefetch[] = {kTmaMap, kTmaCoords, kCachePolicy};
constexpr Signature kTmaPrefetchSignature[] = {kTmaPrefetch};
constexpr VariantRecord kTmaPrefetchVariants[] = {
    {.slots = kTmaPrefetchSlots, .floors = kTmaFloors,
     .signatures = kTmaPrefetchSignature}};

// cp.async.bulk (PTX ISA 9.0), the copy that is not a tensor's: `size`
// bytes of contiguous memory, a multiple of 16, at 16-byte aligned
// addresses.
//   .shared::{cluster,cta}.global.mbarrier::complete_tx::bytes
//       {.multicast::cluster}{.L2::cache_hint}
//       [dstMem], [srcMem], size, [mbar]{, ctaMask}{, cache-policy}
//   .global.shared::cta.bulk_group{.L2::cache_hint}
//       [dstMem], [srcMem], size{, cache-policy}
//   .shared::cluster.shared::cta.mbarrier::complete_tx::bytes
//       [dstMem], [srcMem], size, [mbar]
// Measured with ptxas 13.0, as the tensor copies: the qualifiers in any
// order but the destination space before the source space; a completion
// mechanism required; sm_90 and PTX 8.0, a .shared::cta destination PTX
// 8.6; .multicast::cluster only from global into .shared::cluster; the
// cache hint only with global memory; an immediate size that is not a
// multiple of 16 an error. A .shared::cluster destination may be another
// block's (tile.mapa), and its mbarrier is then that block's too. Not in
// the table yet: sm_100's .cp_mask.
constexpr StringRef kBulkLoadSrc[] = {"global", "shared::cta"};
constexpr SlotRecord kBulkLoadSlots[] = {
    {"destination state space", kTmaLoadDst, true},
    {"source state space", kBulkLoadSrc, true},
    {"completion mechanism", kTmaMbarrier, true},
    {"multicast", kTmaMulticast},
    {"cache hint", kCacheHint}};
constexpr SlotRecord kBulkStoreSlots[] = {
    {"destination state space", kGlobal, true},
    {"source state space", kTmaStoreSrc, true},
    {"completion mechanism", kTmaBulkGroup, true},
    {"cache hint", kCacheHint}};
constexpr SlotRecord kBulkAnySlots[] = {
    {"destination state space", kTmaLoadDst},
    {"source state space", kGlobal},
    {"multicast", kTmaMulticast},
    {"cache hint", kCacheHint},
    {"completion mechanism", kTmaCompletions, true}};
/// The copy between shared memories (source .shared::cta) goes into
/// .shared::cluster, and takes neither multicast nor a cache hint: the
/// slots are destination, source, completion, multicast, cache hint.
bool sharedSourceNotIntoCluster(Tokens, Tokens chosen) {
  return chosen[1] == "shared::cta" && chosen[0] != "shared::cluster";
}
bool sharedSourceWithMulticast(Tokens, Tokens chosen) {
  return chosen[1] == "shared::cta" && !chosen[3].empty();
}
bool sharedSourceWithCacheHint(Tokens, Tokens chosen) {
  return chosen[1] == "shared::cta" && !chosen[4].empty();
}
constexpr RuleRecord kBulkLoadRules[] = {
    {RuleRecord::Before, "destination state space", "source state space", 0,
     "'{other}' must follow the destination space in {ctx}: the copy "
     "names its destination first (cp.async.bulk.{tok}.{other})"},
    kTmaLoadRules[1],
    {.kind = RuleRecord::Hook, .token = "destination state space",
     .message = "'{tok}' cannot take a .shared::cta source in {ctx}: a copy "
                "between shared memories goes into .shared::cluster",
     .holds = sharedSourceNotIntoCluster},
    {.kind = RuleRecord::Hook, .token = "multicast",
     .message = "'{tok}' cannot be combined with a .shared::cta source in "
                "{ctx}: it multicasts from global memory",
     .holds = sharedSourceWithMulticast},
    {.kind = RuleRecord::Hook, .token = "cache hint",
     .message = "'{tok}' cannot be combined with a .shared::cta source in "
                "{ctx}: the hint is for global memory",
     .holds = sharedSourceWithCacheHint}};
constexpr RuleRecord kBulkStoreRules[] = {
    {RuleRecord::Before, "global", "shared::cta", 0,
     "'shared::cta' must follow the destination space in {ctx}: a store "
     "copies from shared to global memory "
     "(cp.async.bulk.global.shared::cta)"}};
// The byte count: an immediate (the verifier proves both tiles hold it), a
// multiple of 16 from 0 to 1,048,560, the range ptxas 13.0 states.
constexpr OperandRecord kBulkSize = {.name = "size", .role = Role::Imm,
                                     .fixedType = "u32",
                                     .maxImmediate = 1048560,
                                     .immediateStep = 16};
constexpr OperandRecord kBulkLoad[] = {
    {.name = "dstMem", .role = Role::Dst, .fixedType = "b8", .sizedBy = "size",
     .spaceFrom = "destination state space", .bulk = true},
    {.name = "srcMem", .role = Role::Src, .fixedType = "b8", .sizedBy = "size",
     .spaceFrom = "source state space", .bulk = true},
    kBulkSize,
    {.name = "mbar", .role = Role::Dst, .fixedType = "b64",
     .spaceFrom = "destination state space"},
    kTmaLoad[4],
    kCachePolicy};
constexpr OperandRecord kBulkStore[] = {
    {.name = "dstMem", .role = Role::Dst, .space = Space::Global,
     .fixedType = "b8", .sizedBy = "size", .bulk = true},
    {.name = "srcMem", .role = Role::Src, .space = Space::Shared,
     .fixedType = "b8", .sizedBy = "size", .bulk = true},
    kBulkSize,
    kCachePolicy};
constexpr Signature kBulkLoadSignature[] = {kBulkLoad};
constexpr Signature kBulkStoreSignature[] = {kBulkStore};
constexpr VariantRecord kBulkVariants[] = {
    {.slots = kBulkLoadSlots, .rules = kBulkLoadRules, .floors = kTmaLoadFloors,
     .signatures = kBulkLoadSignature,
     .whenToken = "mbarrier::complete_tx::bytes"},
    {.slots = kBulkStoreSlots, .rules = kBulkStoreRules, .floors = kTmaFloors,
     .signatures = kBulkStoreSignature, .whenToken = "bulk_group"},
    {.slots = kBulkAnySlots, .floors = kTmaFloors,
     .signatures = kBulkLoadSignature}};

// cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [srcMem], size{,
// cache-policy} (PTX ISA 9.0): `size` bytes of global memory into L2,
// asynchronously; nothing the kernel can see changes. Measured with ptxas
// 13.0: .L2 and .global both required, in either order; the size a
// multiple of 16.
constexpr SlotRecord kBulkPrefetchSlots[] = {{"level", kL2Level, true},
                                             {"source state space", kGlobal, true},
                                             {"cache hint", kCacheHint}};
constexpr OperandRecord kBulkPrefetch[] = {
    {.name = "srcMem", .role = Role::Src, .space = Space::Global,
     .fixedType = "b8", .sizedBy = "size", .bulk = true},
    kBulkSize,
    kCachePolicy};
constexpr Signature kBulkPrefetchSignature[] = {kBulkPrefetch};
constexpr VariantRecord kBulkPrefetchVariants[] = {
    {.slots = kBulkPrefetchSlots, .floors = kTmaFloors,
     .signatures = kBulkPrefetchSignature}};

// cp.reduce.async.bulk.tensor.{1d..5d} (PTX ISA 9.0), tile mode: a TMA
// store that reduces the box into the tensor element by element,
//   .global.shared::cta.redOp{.tile}.bulk_group{.L2::cache_hint}
//       [tensorMap, {coords}], [srcMem]{, cache-policy}
// with redOp one of add, min, max, inc, dec, and, or, xor, which element
// types each takes the tensor map's data type decides (at run time).
// Measured with ptxas 13.0: the qualifiers in any order but the
// destination space before the source space; the operation and .bulk_group
// required; sm_90 and PTX 8.0. Not in the table yet: .im2col_no_offs
// (3d-5d).
constexpr StringRef kReduceOps[] = {"add", "min", "max", "inc",
                                    "dec", "and", "or",  "xor"};
constexpr SlotRecord kTmaReduceSlots[] = {
    {"dimension", kTensorDims, true},
    {"destination state space", kGlobal, true},
    {"source state space", kTmaStoreSrc, true},
    {"reduction", kReduceOps, true},
    {"load mode", kTmaTile},
    {"completion mechanism", kTmaBulkGroup, true},
    {"cache hint", kCacheHint}};
constexpr VariantRecord kTmaReduceVariants[] = {
    {.slots = kTmaReduceSlots, .rules = kTmaStoreRules, .floors = kTmaFloors,
     .signatures = kTmaStoreSignature}};

// cp.async.bulk.commit_group closes the thread's group of bulk copies (the
// .bulk_group stores); cp.async.bulk.wait_group{.read} N waits until at
// most N of its groups are pending, or with .read until at most N still
// read their source (PTX ISA 9.0, 9.7.9.27.5): sm_90 and PTX 8.0.
constexpr StringRef kBulkRead[] = {"read"};
constexpr SlotRecord kBulkWaitSlots[] = {{"read", kBulkRead}};
constexpr VariantRecord kBulkCommitVariants[] = {
    {.floors = kTmaFloors, .signatures = kNoGroupOperands}};
constexpr VariantRecord kBulkWaitVariants[] = {
    {.slots = kBulkWaitSlots, .floors = kTmaFloors,
     .signatures = kWaitGroupSignature}};

// prefetch{.const,.param}.tensormap [a]: brings a tensor map into the
// cache (PTX ISA 9.0, 9.7.9.15); the state space in any order, sm_90 and
// PTX 8.0. The address is a generic one here (tile.tensor_map's).
constexpr StringRef kTensormap[] = {"tensormap"};
constexpr StringRef kTensormapSpaces[] = {"const", "param"};
// The .param and .const spellings take an address in that state space,
// which a kernel has no way to name yet (tile.tensor_map's is generic):
// parsed and enumerated, not lowered.
constexpr SlotRecord kPrefetchTensormapSlots[] = {
    {"tensormap", kTensormap, true}};
constexpr SlotRecord kPrefetchTensormapSpaceSlots[] = {
    {"tensormap", kTensormap, true}, {"state space", kTensormapSpaces, true}};
constexpr OperandRecord kPrefetchTensormap[] = {kTmaMap};
constexpr Signature kPrefetchTensormapSignature[] = {kPrefetchTensormap};
constexpr VariantRecord kPrefetchTensormapVariants[] = {
    {.slots = kPrefetchTensormapSlots, .floors = kTmaFloors,
     .signatures = kPrefetchTensormapSignature},
    {.slots = kPrefetchTensormapSpaceSlots, .floors = kTmaFloors,
     .signatures = kPrefetchTensormapSignature, .extendsPrevious = true,
     .lowered = false}};

// prefetch{.space}.level [a], prefetch.global.L2::evict_last/normal [a]
// and prefetchu.L1 [a] (PTX ISA 9.0, 9.7.9.15): the line holding `a` into
// the data cache (.L1, .L2) or the uniform cache; nothing a thread can see
// changes. .global or .local, or a generic address without. Measured with
// ptxas 13.0: a level required, one; the eviction priority with .global
// (ptxas also takes it with no space, which the ISA does not write, so the
// table keeps .global) and from sm_80 and PTX 7.4; prefetchu .L1 alone,
// with no space.
constexpr StringRef kPrefetchSpaces[] = {"global", "local"};
constexpr StringRef kPrefetchLevels[] = {"L1", "L2"};
constexpr StringRef kPrefetchPriorities[] = {"L2::evict_last",
                                             "L2::evict_normal"};
constexpr StringRef kL1Level[] = {"L1"};
constexpr SlotRecord kPrefetchSlots[] = {{"state space", kPrefetchSpaces},
                                         {"level", kPrefetchLevels, true}};
constexpr SlotRecord kPrefetchPrioritySlots[] = {
    {"state space", kGlobal, true},
    {"eviction priority", kPrefetchPriorities, true}};
constexpr SlotRecord kPrefetchUniformSlots[] = {{"level", kL1Level, true}};
constexpr OperandRecord kPrefetchLine[] = {
    {.name = "a", .role = Role::Src, .fixedType = "b8",
     .spaceFrom = "state space"}};
constexpr Signature kPrefetchSignature[] = {kPrefetchLine};
constexpr FloorRecord kPrefetchPriorityFloors[] = {{80, 74}};
constexpr VariantRecord kPrefetchVariants[] = {
    {.slots = kPrefetchSlots, .signatures = kPrefetchSignature},
    {.slots = kPrefetchPrioritySlots, .floors = kPrefetchPriorityFloors,
     .signatures = kPrefetchSignature, .extendsPrevious = true}};
constexpr VariantRecord kPrefetchUniformVariants[] = {
    {.slots = kPrefetchUniformSlots, .signatures = kPrefetchSignature}};

//===-- mbarrier -----------------------------------------------------------===//

// mbarrier.{init,inval,arrive,arrive_drop,expect_tx,complete_tx,test_wait,
// try_wait,pending_count} and cp.async.mbarrier.arrive (PTX ISA 9.0,
// 9.7.13.15), a .b64 object in shared memory (or a generic address).
// Measured with ptxas 13.0 on sm_80, sm_90 and sm_100a: the qualifiers in
// any order (.noComplete after the type too), but .expect_tx and .parity
// right after the operation's name; a semantics (.release or .relaxed for
// the arrivals, .acquire or .relaxed for the waits, .relaxed for
// expect_tx/complete_tx) and a scope (.cta, .cluster) each need the other;
// .noComplete takes a count and excludes .relaxed, .cluster and
// .shared::cluster; an arrival on .shared::cluster returns no state (its
// destination is the sink _); the floors are ptxas's (a count without
// .noComplete, try_wait and .shared::cta: PTX 7.8; .expect_tx,
// complete_tx, a semantics, .cluster and .shared::cluster: 8.0 and sm_90
// where the ISA says so; .relaxed on an arrival or a wait: 8.6).
constexpr StringRef kMbarCtaSpaces[] = {"shared", "shared::cta"};
constexpr StringRef kMbarClusterSpace[] = {"shared::cluster"};
constexpr StringRef kMbarAllSpaces[] = {"shared", "shared::cta",
                                        "shared::cluster"};
constexpr StringRef kMbarArriveSemantics[] = {"release", "relaxed"};
constexpr StringRef kMbarWaitSemantics[] = {"acquire", "relaxed"};
constexpr StringRef kMbarRelaxed[] = {"relaxed"};
constexpr StringRef kMbarScopes[] = {"cta", "cluster"};
constexpr StringRef kNoComplete[] = {"noComplete"};
constexpr StringRef kNoinc[] = {"noinc"};

constexpr RuleRecord kMbarNeedsScope = {
    RuleRecord::Requires, "semantics", "scope", 0,
    "'{tok}' needs a scope in {ctx}: .cta or .cluster"};
constexpr RuleRecord kMbarNeedsSemantics = {
    RuleRecord::Requires, "scope", "semantics", 0,
    "'{tok}' needs a semantics in {ctx}: a scope comes with one (.release or "
    ".relaxed on an arrival, .acquire or .relaxed on a wait)"};
constexpr RuleRecord kMbarOrderRules[] = {kMbarNeedsScope, kMbarNeedsSemantics};
constexpr RuleRecord kMbarNoCompleteRules[] = {
    kMbarNeedsScope, kMbarNeedsSemantics,
    {RuleRecord::Excludes, "noComplete", "relaxed", 0,
     "'noComplete' cannot be combined with 'relaxed' in {ctx}"},
    {RuleRecord::Excludes, "noComplete", "cluster", 0,
     "'noComplete' cannot be combined with 'cluster' in {ctx}"}};

// The floors an arrival or a wait shares: a semantics and a scope from PTX
// 8.0, .cluster from sm_90, .relaxed from sm_90 and PTX 8.6.
#define MBAR_ORDER_FLOORS                                                      \
  {80, 78, {}, "shared::cta"}, {80, 80, {}, "scope"}, {90, 80, {}, "cluster"}, \
      {90, 86, {}, "relaxed"}, {90, 80, {}, "shared::cluster"}
constexpr FloorRecord kMbarSm80Floors[] = {{80, 70}, MBAR_ORDER_FLOORS};
constexpr FloorRecord kMbarParityFloors[] = {{80, 71}, MBAR_ORDER_FLOORS};
constexpr FloorRecord kMbarSm90Floors[] = {{90, 78}, MBAR_ORDER_FLOORS};
constexpr FloorRecord kMbarTxFloors[] = {{90, 80}, MBAR_ORDER_FLOORS};
// expect_tx and complete_tx take .relaxed from PTX 8.0.
constexpr FloorRecord kMbarTxOnlyFloors[] = {{90, 80}};
#undef MBAR_ORDER_FLOORS

constexpr SlotRecord kMbarInitSlots[] = {{"state space", kMbarCtaSpaces}};
constexpr SlotRecord kMbarArriveSlots[] = {
    {"semantics", kMbarArriveSemantics},
    {"scope", kMbarScopes},
    {"state space", kMbarCtaSpaces}};
constexpr SlotRecord kMbarNoCompleteSlots[] = {
    {"semantics", kMbarArriveSemantics},
    {"scope", kMbarScopes},
    {"state space", kMbarCtaSpaces},
    {"noComplete", kNoComplete, true}};
constexpr SlotRecord kMbarRemoteSlots[] = {
    {"semantics", kMbarArriveSemantics},
    {"scope", kMbarScopes},
    {"state space", kMbarClusterSpace, true}};
constexpr SlotRecord kMbarTxSlots[] = {{"semantics", kMbarRelaxed},
                                       {"scope", kMbarScopes},
                                       {"state space", kMbarAllSpaces}};
constexpr SlotRecord kMbarWaitSlots[] = {{"semantics", kMbarWaitSemantics},
                                         {"scope", kMbarScopes},
                                         {"state space", kMbarCtaSpaces}};
constexpr SlotRecord kCpAsyncArriveSlots[] = {{"noinc", kNoinc},
                                              {"state space", kMbarCtaSpaces}};

// The object: written by init, inval and the arrivals, read by the waits.
constexpr OperandRecord kMbarObject = {.name = "addr", .role = Role::Dst,
                                       .spaceFrom = "state space"};
constexpr OperandRecord kMbarRead = {.name = "addr", .role = Role::Src,
                                     .spaceFrom = "state space"};
constexpr OperandRecord kMbarState = {.name = "state", .role = Role::Dst};
constexpr OperandRecord kMbarCount = {.name = "count", .role = Role::Src,
                                      .fixedType = "u32"};
constexpr OperandRecord kMbarTxCount = {.name = "txCount", .role = Role::Src,
                                        .fixedType = "u32"};
constexpr OperandRecord kMbarInit[] = {kMbarObject, kMbarCount};
constexpr OperandRecord kMbarInval[] = {kMbarObject};
constexpr OperandRecord kMbarArrive[] = {kMbarState, kMbarObject};
constexpr OperandRecord kMbarArriveCount[] = {kMbarState, kMbarObject,
                                              kMbarCount};
constexpr OperandRecord kMbarArriveTx[] = {kMbarState, kMbarObject,
                                           kMbarTxCount};
constexpr OperandRecord kMbarRemote[] = {kMbarObject};
constexpr OperandRecord kMbarRemoteCount[] = {kMbarObject, kMbarCount};
constexpr OperandRecord kMbarRemoteTx[] = {kMbarObject, kMbarTxCount};
constexpr OperandRecord kMbarTx[] = {kMbarObject, kMbarTxCount};
constexpr OperandRecord kMbarWaitComplete = {
    .name = "waitComplete", .role = Role::Dst, .fixedType = "pred"};
constexpr OperandRecord kMbarTestWait[] = {kMbarWaitComplete, kMbarRead,
                                           {.name = "state", .role = Role::Src}};
constexpr OperandRecord kMbarTestParity[] = {
    kMbarWaitComplete, kMbarRead,
    {.name = "phaseParity", .role = Role::Src, .fixedType = "u32"}};
constexpr OperandRecord kMbarSuspendHint = {
    .name = "suspendTimeHint", .role = Role::Src, .fixedType = "u32"};
constexpr OperandRecord kMbarTryWaitHint[] = {kMbarTestWait[0], kMbarTestWait[1],
                                              kMbarTestWait[2], kMbarSuspendHint};
constexpr OperandRecord kMbarTryParityHint[] = {
    kMbarTestParity[0], kMbarTestParity[1], kMbarTestParity[2],
    kMbarSuspendHint};
constexpr OperandRecord kMbarPendingCount[] = {
    {.name = "count", .role = Role::Dst, .fixedType = "u32"},
    {.name = "state", .role = Role::Src}};
constexpr OperandRecord kCpAsyncArrive[] = {kMbarObject};

constexpr Signature kMbarInitSignature[] = {kMbarInit};
constexpr Signature kMbarInvalSignature[] = {kMbarInval};
constexpr Signature kMbarArriveSignature[] = {kMbarArrive};
constexpr Signature kMbarArriveCountSignature[] = {kMbarArriveCount};
constexpr Signature kMbarArriveTxSignature[] = {kMbarArriveTx};
constexpr Signature kMbarRemoteSignature[] = {kMbarRemote};
constexpr Signature kMbarRemoteCountSignature[] = {kMbarRemoteCount};
constexpr Signature kMbarRemoteTxSignature[] = {kMbarRemoteTx};
constexpr Signature kMbarTxSignature[] = {kMbarTx};
constexpr Signature kMbarTestWaitSignature[] = {kMbarTestWait};
constexpr Signature kMbarTestParitySignature[] = {kMbarTestParity};
constexpr Signature kMbarTryWaitSignature[] = {kMbarTestWait, kMbarTryWaitHint};
constexpr Signature kMbarTryParitySignature[] = {kMbarTestParity,
                                                 kMbarTryParityHint};
constexpr Signature kMbarPendingSignature[] = {kMbarPendingCount};
constexpr Signature kCpAsyncArriveSignature[] = {kCpAsyncArrive};

constexpr FloorRecord kMbarInitFloors[] = {{80, 70},
                                           {80, 78, {}, "shared::cta"}};
constexpr VariantRecord kMbarInitVariants[] = {
    {kB64Tuple, kMbarInitSlots, {}, kMbarInitFloors, kMbarInitSignature}};
constexpr VariantRecord kMbarInvalVariants[] = {
    {kB64Tuple, kMbarInitSlots, {}, kMbarInitFloors, kMbarInvalSignature}};
// An arrival: its state, then a count (from sm_90; with .noComplete, which
// needs it, from sm_80), then on .shared::cluster no state (the sink _),
// with or without a count. Each signature is a variant of its own, so that
// each has its floors.
constexpr VariantRecord kMbarArriveVariants[] = {
    {kB64Tuple, kMbarArriveSlots, kMbarOrderRules, kMbarSm80Floors,
     kMbarArriveSignature},
    {.types = kB64Tuple, .slots = kMbarNoCompleteSlots,
     .rules = kMbarNoCompleteRules, .floors = kMbarSm80Floors,
     .signatures = kMbarArriveCountSignature, .extendsPrevious = true},
    {.types = kB64Tuple, .slots = kMbarArriveSlots, .rules = kMbarOrderRules,
     .floors = kMbarSm90Floors, .signatures = kMbarArriveCountSignature,
     .extendsPrevious = true},
    {.types = kB64Tuple, .slots = kMbarRemoteSlots, .rules = kMbarOrderRules,
     .floors = kMbarTxFloors, .signatures = kMbarRemoteSignature,
     .extendsPrevious = true, .sinkResult = true},
    {.types = kB64Tuple, .slots = kMbarRemoteSlots, .rules = kMbarOrderRules,
     .floors = kMbarTxFloors, .signatures = kMbarRemoteCountSignature,
     .extendsPrevious = true, .sinkResult = true}};
constexpr VariantRecord kMbarArriveTxVariants[] = {
    {kB64Tuple, kMbarArriveSlots, kMbarOrderRules, kMbarTxFloors,
     kMbarArriveTxSignature},
    {.types = kB64Tuple, .slots = kMbarRemoteSlots, .rules = kMbarOrderRules,
     .floors = kMbarTxFloors, .signatures = kMbarRemoteTxSignature,
     .extendsPrevious = true, .sinkResult = true}};
constexpr VariantRecord kMbarTxVariants[] = {
    {kB64Tuple, kMbarTxSlots, kMbarOrderRules, kMbarTxOnlyFloors,
     kMbarTxSignature}};
constexpr VariantRecord kMbarTestWaitVariants[] = {
    {kB64Tuple, kMbarWaitSlots, kMbarOrderRules, kMbarSm80Floors,
     kMbarTestWaitSignature}};
constexpr VariantRecord kMbarTestParityVariants[] = {
    {kB64Tuple, kMbarWaitSlots, kMbarOrderRules, kMbarParityFloors,
     kMbarTestParitySignature}};
constexpr VariantRecord kMbarTryWaitVariants[] = {
    {kB64Tuple, kMbarWaitSlots, kMbarOrderRules, kMbarSm90Floors,
     kMbarTryWaitSignature}};
constexpr VariantRecord kMbarTryParityVariants[] = {
    {kB64Tuple, kMbarWaitSlots, kMbarOrderRules, kMbarSm90Floors,
     kMbarTryParitySignature}};
constexpr FloorRecord kMbarPendingFloors[] = {{80, 70}};
constexpr VariantRecord kMbarPendingVariants[] = {
    {kB64Tuple, {}, {}, kMbarPendingFloors, kMbarPendingSignature}};
// cp.async.mbarrier.arrive{.noinc}: an arrival on the object once every
// cp.async the thread issued before it has completed; .noinc does not
// raise the pending count first (PTX ISA 9.0, 9.7.9.25.3.3).
constexpr VariantRecord kCpAsyncArriveVariants[] = {
    {kB64Tuple, kCpAsyncArriveSlots, {}, kMbarInitFloors,
     kCpAsyncArriveSignature}};

//===-- barrier.cluster ----------------------------------------------------===//

// barrier.cluster.arrive{.release,.relaxed}{.aligned} and
// barrier.cluster.wait{.acquire}{.aligned} (PTX ISA 9.0, 9.7.13.2): every
// thread of the cluster arrives, then waits until all have. Measured with
// ptxas 13.0: sm_90 and PTX 7.8, a semantics PTX 8.0; the operation right
// after .cluster, the other qualifiers in any order, none repeated.
// .release and .acquire are the defaults the ISA gives an arrival and a
// wait.
constexpr StringRef kClusterArriveSemantics[] = {"release", "relaxed"};
constexpr StringRef kClusterWaitSemantics[] = {"acquire"};
constexpr StringRef kBarrierAlignedToken[] = {"aligned"};
constexpr SlotRecord kClusterArriveSlots[] = {
    {"semantics", kClusterArriveSemantics}, {"aligned", kBarrierAlignedToken}};
constexpr SlotRecord kClusterWaitSlots[] = {
    {"semantics", kClusterWaitSemantics}, {"aligned", kBarrierAlignedToken}};
constexpr FloorRecord kClusterBarrierFloors[] = {{90, 78},
                                                 {90, 80, {}, "semantics"}};
constexpr VariantRecord kClusterArriveVariants[] = {
    {.slots = kClusterArriveSlots, .floors = kClusterBarrierFloors,
     .signatures = kNoGroupOperands}};
constexpr VariantRecord kClusterWaitVariants[] = {
    {.slots = kClusterWaitSlots, .floors = kClusterBarrierFloors,
     .signatures = kNoGroupOperands}};

//===-- bar, barrier ------------------------------------------------------===//

// PTX ISA 9.0, 9.7.13.1: bar{.cta}.sync a{, b}; bar{.cta}.arrive a, b;
// bar{.cta}.red.popc.u32 d, a{, b}, c; bar{.cta}.red.{and,or}.pred p, a{,
// b}, c; barrier{.cta}.* the same with {.aligned}. a names one of the 16
// barriers of the CTA, b counts the threads that take part, a multiple of
// the warp size. bar.* is barrier.*.aligned. Both are immediates here (a
// register operand is not taken yet). Measured with ptxas 13.0: qualifiers
// in any order but that .cta comes right after the name, red before the
// reduction and the type, and aligned after arrive and red
// (barrier.aligned.sync is taken, barrier.aligned.arrive is not); sync,
// arrive and red repeated as one, cta and aligned not.
constexpr StringRef kBarrierSyncOp[] = {"sync"};
constexpr StringRef kBarrierArriveOp[] = {"arrive"};
constexpr StringRef kBarrierRedOp[] = {"red"};
constexpr StringRef kBarrierCta[] = {"cta"};
constexpr StringRef kBarrierAligned[] = {"aligned"};
constexpr StringRef kBarrierPopc[] = {"popc"};
constexpr StringRef kBarrierLogic[] = {"and", "or"};
constexpr StringRef kBarrierRepeatable[] = {"sync", "arrive", "red"};
// .cta comes right after the name (bar.sync.cta: "Illegal modifier").
#define CTA_FIRST(op)                                                          \
  {RuleRecord::Before, "cta", op, 0,                                           \
   "'cta' must come right after the name in {ctx} (bar.cta." op ")"}
#define CTA_BEFORE_ALIGNED                                                     \
  {RuleRecord::Before, "cta", "aligned", 0,                                    \
   "'cta' must come right after the name in {ctx} (barrier.cta.sync.aligned)"}
constexpr RuleRecord kBarSyncRules[] = {CTA_FIRST("sync")};
constexpr RuleRecord kBarArriveRules[] = {CTA_FIRST("arrive")};
// red comes before the reduction and the type (barrier.or.red.pred:
// "Unknown modifier '.red'").
#define RED_FIRST                                                              \
  {RuleRecord::Before, "red", "popc", 0,                                       \
   "'red' must come before the reduction in {ctx} (bar.red.popc.u32)"},        \
      {RuleRecord::Before, "red", "and", 0,                                    \
       "'red' must come before the reduction in {ctx} (bar.red.and.pred)"},    \
      {RuleRecord::Before, "red", "or", 0,                                     \
       "'red' must come before the reduction in {ctx} (bar.red.or.pred)"},     \
  {                                                                            \
    RuleRecord::SlotAfterType, "operation", {}, 0,                             \
        "'red' must come before the type in {ctx} (bar.red.popc.u32)"          \
  }
constexpr RuleRecord kBarRedRules[] = {CTA_FIRST("red"), RED_FIRST};
constexpr RuleRecord kBarrierSyncRules[] = {CTA_FIRST("sync"),
                                            CTA_BEFORE_ALIGNED};
constexpr RuleRecord kBarrierArriveRules[] = {
    {RuleRecord::Before, "arrive", "aligned", 0,
     "'aligned' must follow 'arrive' in {ctx} (barrier.arrive.aligned)"},
    CTA_FIRST("arrive"), CTA_BEFORE_ALIGNED};
constexpr RuleRecord kBarrierRedRules[] = {
    {RuleRecord::Before, "red", "aligned", 0,
     "'aligned' must follow 'red' in {ctx} (barrier.red.popc.aligned.u32)"},
    CTA_FIRST("red"), CTA_BEFORE_ALIGNED, RED_FIRST};
#undef RED_FIRST
#undef CTA_FIRST
#undef CTA_BEFORE_ALIGNED
constexpr StringRef kU32Type[] = {"u32"};
constexpr Tokens kU32Tuple[] = {kU32Type};
constexpr StringRef kPredType[] = {"pred"};
constexpr Tokens kPredTuple[] = {kPredType};
// In the ISA's order, which the enumerator spells: bar.cta.sync,
// barrier.cta.red.popc.aligned.u32.
constexpr SlotRecord kBarSyncSlots[] = {{"scope", kBarrierCta},
                                        {"operation", kBarrierSyncOp, true}};
constexpr SlotRecord kBarArriveSlots[] = {
    {"scope", kBarrierCta}, {"operation", kBarrierArriveOp, true}};
constexpr SlotRecord kBarPopcSlots[] = {{"scope", kBarrierCta},
                                        {"operation", kBarrierRedOp, true},
                                        {"reduction", kBarrierPopc, true}};
constexpr SlotRecord kBarLogicSlots[] = {{"scope", kBarrierCta},
                                         {"operation", kBarrierRedOp, true},
                                         {"reduction", kBarrierLogic, true}};
constexpr SlotRecord kBarrierSyncSlots[] = {
    {"scope", kBarrierCta},
    {"operation", kBarrierSyncOp, true},
    {"alignment", kBarrierAligned}};
constexpr SlotRecord kBarrierArriveSlots[] = {
    {"scope", kBarrierCta},
    {"operation", kBarrierArriveOp, true},
    {"alignment", kBarrierAligned}};
constexpr SlotRecord kBarrierPopcSlots[] = {
    {"scope", kBarrierCta},
    {"operation", kBarrierRedOp, true},
    {"reduction", kBarrierPopc, true},
    {"alignment", kBarrierAligned}};
constexpr SlotRecord kBarrierLogicSlots[] = {
    {"scope", kBarrierCta},
    {"operation", kBarrierRedOp, true},
    {"reduction", kBarrierLogic, true},
    {"alignment", kBarrierAligned}};
constexpr unsigned kBarrierThreadCounts[] = {
    32,  64,  96,  128, 160, 192, 224, 256, 288, 320, 352,
    384, 416, 448, 480, 512, 544, 576, 608, 640, 672, 704,
    736, 768, 800, 832, 864, 896, 928, 960, 992, 1024};
constexpr OperandRecord kBarrierId = {
    .name = "a", .role = Role::Imm, .fixedType = "b32", .maxImmediate = 15};
constexpr OperandRecord kBarrierCount = {.name = "b",
                                         .role = Role::Imm,
                                         .fixedType = "b32",
                                         .immediates = kBarrierThreadCounts};
// Either may be a register instead (measured: ptxas 13.0 takes bar.sync %r1,
// %r2 and every mix); the PTX ISA asks that its value be the same in every
// thread of the block. A constant takes the immediate signature, a runtime
// value the register one.
constexpr OperandRecord kBarrierIdRegister = {
    .name = "a", .role = Role::Src, .fixedType = "b32"};
constexpr OperandRecord kBarrierCountRegister = {
    .name = "b", .role = Role::Src, .fixedType = "b32"};
constexpr OperandRecord kBarrierCondition = {
    .name = "c", .role = Role::Src, .fixedType = "pred"};
constexpr OperandRecord kBarrierAll[] = {kBarrierId};
constexpr OperandRecord kBarrierAllReg[] = {kBarrierIdRegister};
constexpr OperandRecord kBarrierCounted[] = {kBarrierId, kBarrierCount};
constexpr OperandRecord kBarrierCountedRegId[] = {kBarrierIdRegister,
                                                  kBarrierCount};
constexpr OperandRecord kBarrierCountedRegCount[] = {kBarrierId,
                                                     kBarrierCountRegister};
constexpr OperandRecord kBarrierCountedReg[] = {kBarrierIdRegister,
                                                kBarrierCountRegister};
constexpr OperandRecord kBarrierRedAll[] = {
    {"d", Role::Dst}, kBarrierId, kBarrierCondition};
constexpr OperandRecord kBarrierRedAllReg[] = {
    {"d", Role::Dst}, kBarrierIdRegister, kBarrierCondition};
constexpr OperandRecord kBarrierRedCounted[] = {
    {"d", Role::Dst}, kBarrierId, kBarrierCount, kBarrierCondition};
constexpr OperandRecord kBarrierRedCountedRegId[] = {
    {"d", Role::Dst}, kBarrierIdRegister, kBarrierCount, kBarrierCondition};
constexpr OperandRecord kBarrierRedCountedRegCount[] = {
    {"d", Role::Dst}, kBarrierId, kBarrierCountRegister, kBarrierCondition};
constexpr OperandRecord kBarrierRedCountedReg[] = {
    {"d", Role::Dst}, kBarrierIdRegister, kBarrierCountRegister,
    kBarrierCondition};
constexpr Signature kBarrierSyncSignatures[] = {
    kBarrierAll,          kBarrierCounted,         kBarrierAllReg,
    kBarrierCountedRegId, kBarrierCountedRegCount, kBarrierCountedReg};
constexpr Signature kBarrierArriveSignature[] = {
    kBarrierCounted, kBarrierCountedRegId, kBarrierCountedRegCount,
    kBarrierCountedReg};
constexpr Signature kBarrierRedSignatures[] = {
    kBarrierRedAll,          kBarrierRedCounted,
    kBarrierRedAllReg,       kBarrierRedCountedRegId,
    kBarrierRedCountedRegCount, kBarrierRedCountedReg};
constexpr FloorRecord kBarFloors[] = {{50, 20}, {50, 78, {}, "cta"}};
constexpr FloorRecord kBarrierFloors[] = {{50, 60}, {50, 78, {}, "cta"}};
constexpr StringRef kBarrierRedMessage =
    "{ctx}.red takes popc with .u32, or and/or with .pred";
constexpr VariantRecord kBarVariants[] = {
    {.slots = kBarSyncSlots,
     .rules = kBarSyncRules,
     .floors = kBarFloors,
     .signatures = kBarrierSyncSignatures,
     .whenToken = "sync"},
    {.slots = kBarArriveSlots,
     .rules = kBarArriveRules,
     .floors = kBarFloors,
     .signatures = kBarrierArriveSignature,
     .whenToken = "arrive"},
    {.types = kU32Tuple,
     .slots = kBarPopcSlots,
     .rules = kBarRedRules,
     .floors = kBarFloors,
     .signatures = kBarrierRedSignatures,
     .whenToken = "red",
     .whenMessage = kBarrierRedMessage},
    {.types = kPredTuple,
     .slots = kBarLogicSlots,
     .rules = kBarRedRules,
     .floors = kBarFloors,
     .signatures = kBarrierRedSignatures,
     .whenToken = "red",
     .whenMessage = kBarrierRedMessage}};
constexpr VariantRecord kBarrierVariants[] = {
    {.slots = kBarrierSyncSlots,
     .rules = kBarrierSyncRules,
     .floors = kBarrierFloors,
     .signatures = kBarrierSyncSignatures,
     .whenToken = "sync"},
    {.slots = kBarrierArriveSlots,
     .rules = kBarrierArriveRules,
     .floors = kBarrierFloors,
     .signatures = kBarrierArriveSignature,
     .whenToken = "arrive"},
    {.types = kU32Tuple,
     .slots = kBarrierPopcSlots,
     .rules = kBarrierRedRules,
     .floors = kBarrierFloors,
     .signatures = kBarrierRedSignatures,
     .whenToken = "red",
     .whenMessage = kBarrierRedMessage},
    {.types = kPredTuple,
     .slots = kBarrierLogicSlots,
     .rules = kBarrierRedRules,
     .floors = kBarrierFloors,
     .signatures = kBarrierRedSignatures,
     .whenToken = "red",
     .whenMessage = kBarrierRedMessage}};

//===-- atom, red ----------------------------------------------------------===//

// PTX ISA 9.0, 9.7.13.5-6: atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}
// and red{.sem}{.scope}{.space}.op.type [a], b. The ops each type takes,
// measured with ptxas 13.0 (its messages list them): and/or/xor and exch on
// b32/b64, cas on b32/b64 (atom only; red takes neither exch nor cas), add
// on u32/s32/u64/f32/f64, inc/dec on u32, min/max on u32/s32/u64/s64, cas
// also on b16 (sm_70), and add on f16, f16x2 (sm_70), bf16 and bf16x2
// (sm_90) with the required .noftz. The memory operand is a source: every
// repeat may update one location. Not taken yet: the sm_90 vectors, b128
// cas and exch, and L2::cache_hint (a policy operand).
constexpr StringRef kAtomSems[] = {"relaxed", "acquire", "release", "acq_rel"};
constexpr StringRef kRedSems[] = {"relaxed", "release"};
constexpr StringRef kAtomScopes[] = {"cta", "cluster", "gpu", "sys"};
constexpr StringRef kAtomSpaces[] = {"global", "shared", "shared::cta",
                                     "shared::cluster"};
constexpr StringRef kAtomBitOps[] = {"and", "or", "xor", "exch"};
constexpr StringRef kRedBitOps[] = {"and", "or", "xor"};
constexpr StringRef kAtomCas[] = {"cas"};
constexpr StringRef kAtomU32Ops[] = {"add", "inc", "dec", "min", "max"};
constexpr StringRef kAtomAddMinMax[] = {"add", "min", "max"};
constexpr StringRef kAtomMinMax[] = {"min", "max"};
constexpr StringRef kAtomAdd[] = {"add"};
constexpr StringRef kAtomBits[] = {"b32", "b64"};
constexpr StringRef kAtomCasBits[] = {"b16", "b32", "b64"};
constexpr StringRef kAtomB16[] = {"b16"};
constexpr StringRef kAtomU32[] = {"u32"};
constexpr StringRef kAtomS32U64[] = {"s32", "u64"};
constexpr StringRef kAtomS64[] = {"s64"};
constexpr StringRef kAtomF32[] = {"f32"};
constexpr StringRef kAtomF64[] = {"f64"};
constexpr StringRef kAtomHalves[] = {"f16", "f16x2", "bf16", "bf16x2"};
constexpr StringRef kAtomBf16s[] = {"bf16", "bf16x2"};
constexpr StringRef kAtomNoftz[] = {"noftz"};
constexpr Tokens kAtomBitsTuple[] = {kAtomBits};
constexpr Tokens kAtomCasTuple[] = {kAtomCasBits};
constexpr Tokens kAtomU32Tuple[] = {kAtomU32};
constexpr Tokens kAtomS32U64Tuple[] = {kAtomS32U64};
constexpr Tokens kAtomS64Tuple[] = {kAtomS64};
constexpr Tokens kAtomF32Tuple[] = {kAtomF32};
constexpr Tokens kAtomF64Tuple[] = {kAtomF64};
constexpr Tokens kAtomHalfTuple[] = {kAtomHalves};
// red orders .relaxed or .release only ("Illegal modifier '.acquire'").
#define ATOM_SLOTS(sems, ops)                                                  \
  {{"memory ordering", sems},                                                  \
   {"scope", kAtomScopes},                                                     \
   {"state space", kAtomSpaces},                                               \
   {"operation", ops, true}}
constexpr SlotRecord kAtomBitSlots[] = ATOM_SLOTS(kAtomSems, kAtomBitOps);
constexpr SlotRecord kAtomCasSlots[] = ATOM_SLOTS(kAtomSems, kAtomCas);
constexpr SlotRecord kAtomU32Slots[] = ATOM_SLOTS(kAtomSems, kAtomU32Ops);
constexpr SlotRecord kAtomAddMinMaxSlots[] =
    ATOM_SLOTS(kAtomSems, kAtomAddMinMax);
constexpr SlotRecord kAtomMinMaxSlots[] = ATOM_SLOTS(kAtomSems, kAtomMinMax);
constexpr SlotRecord kAtomAddSlots[] = ATOM_SLOTS(kAtomSems, kAtomAdd);
constexpr SlotRecord kRedBitSlots[] = ATOM_SLOTS(kRedSems, kRedBitOps);
constexpr SlotRecord kRedU32Slots[] = ATOM_SLOTS(kRedSems, kAtomU32Ops);
constexpr SlotRecord kRedAddMinMaxSlots[] =
    ATOM_SLOTS(kRedSems, kAtomAddMinMax);
constexpr SlotRecord kRedMinMaxSlots[] = ATOM_SLOTS(kRedSems, kAtomMinMax);
constexpr SlotRecord kRedAddSlots[] = ATOM_SLOTS(kRedSems, kAtomAdd);
#undef ATOM_SLOTS
// add.noftz on halves: .noftz is required ("'.noftz' modifier required").
#define HALF_SLOTS(sems)                                                       \
  {{"memory ordering", sems},                                                  \
   {"scope", kAtomScopes},                                                     \
   {"state space", kAtomSpaces},                                               \
   {"operation", kAtomAdd, true},                                              \
   {"noftz", kAtomNoftz, true}}
constexpr SlotRecord kAtomHalfSlots[] = HALF_SLOTS(kAtomSems);
constexpr SlotRecord kRedHalfSlots[] = HALF_SLOTS(kRedSems);
#undef HALF_SLOTS
constexpr OperandRecord kAtom[] = {
    {"d", Role::Dst},
    {.name = "a", .role = Role::Src, .spaceFrom = "state space"},
    {"b", Role::Src}};
constexpr OperandRecord kAtomCasOperands[] = {
    {"d", Role::Dst},
    {.name = "a", .role = Role::Src, .spaceFrom = "state space"},
    {"b", Role::Src},
    {"c", Role::Src}};
constexpr OperandRecord kRed[] = {
    {.name = "a", .role = Role::Src, .spaceFrom = "state space"},
    {"b", Role::Src}};
constexpr Signature kAtomSignature[] = {kAtom};
// The sm_90 vector forms (PTX 8.1), global or generic only ("State space
// incorrect for feature 'atom instruction with vector types'"): f32 add on
// .v2/.v4; f16 and bf16 add, min and max (.noftz) on .v2/.v4/.v8; f16x2
// and bf16x2 on .v2/.v4 (at most 128 bits). min and max of halves exist
// only as vectors ("Vector modifier required").
constexpr StringRef kAtomVectorSpaces[] = {"global"};
constexpr StringRef kAtomV2[] = {"v2"};
constexpr StringRef kAtomV4[] = {"v4"};
constexpr StringRef kAtomV8[] = {"v8"};
constexpr StringRef kAtomScalarHalves[] = {"f16", "bf16"};
constexpr StringRef kAtomPackedHalves[] = {"f16x2", "bf16x2"};
constexpr Tokens kAtomScalarHalfTuple[] = {kAtomScalarHalves};
constexpr Tokens kAtomPackedHalfTuple[] = {kAtomPackedHalves};
#define VECTOR_SLOTS(sems, ops, widths, noftz)                                 \
  {{"memory ordering", sems},                                                  \
   {"scope", kAtomScopes},                                                     \
   {"state space", kAtomVectorSpaces},                                         \
   {"operation", ops, true},                                                   \
   {"vector width", widths, true},                                             \
   {"noftz", kAtomNoftz, noftz}}
// f32 vectors have no .noftz ("Illegal modifier '.noftz'").
constexpr SlotRecord kAtomV2F32Slots[] = {
    {"memory ordering", kAtomSems}, {"scope", kAtomScopes}, {"state space", kAtomVectorSpaces},
    {"operation", kAtomAdd, true}, {"vector width", kAtomV2, true}};
constexpr SlotRecord kAtomV4F32Slots[] = {
    {"memory ordering", kAtomSems}, {"scope", kAtomScopes}, {"state space", kAtomVectorSpaces},
    {"operation", kAtomAdd, true}, {"vector width", kAtomV4, true}};
constexpr SlotRecord kAtomV2HalfSlots[] = VECTOR_SLOTS(kAtomSems, kAtomAddMinMax, kAtomV2, true);
constexpr SlotRecord kAtomV4HalfSlots[] = VECTOR_SLOTS(kAtomSems, kAtomAddMinMax, kAtomV4, true);
constexpr SlotRecord kAtomV8HalfSlots[] = VECTOR_SLOTS(kAtomSems, kAtomAddMinMax, kAtomV8, true);
constexpr SlotRecord kRedV2F32Slots[] = {
    {"memory ordering", kRedSems}, {"scope", kAtomScopes}, {"state space", kAtomVectorSpaces},
    {"operation", kAtomAdd, true}, {"vector width", kAtomV2, true}};
constexpr SlotRecord kRedV4F32Slots[] = {
    {"memory ordering", kRedSems}, {"scope", kAtomScopes}, {"state space", kAtomVectorSpaces},
    {"operation", kAtomAdd, true}, {"vector width", kAtomV4, true}};
constexpr SlotRecord kRedV2HalfSlots[] = VECTOR_SLOTS(kRedSems, kAtomAddMinMax, kAtomV2, true);
constexpr SlotRecord kRedV4HalfSlots[] = VECTOR_SLOTS(kRedSems, kAtomAddMinMax, kAtomV4, true);
constexpr SlotRecord kRedV8HalfSlots[] = VECTOR_SLOTS(kRedSems, kAtomAddMinMax, kAtomV8, true);
#undef VECTOR_SLOTS
constexpr OperandRecord kAtomVector[] = {
    {.name = "d", .role = Role::Dst, .countFrom = "vector width"},
    {.name = "a", .role = Role::Src, .countFrom = "vector width", .spaceFrom = "state space"},
    {.name = "b", .role = Role::Src, .countFrom = "vector width"}};
constexpr OperandRecord kRedVector[] = {
    {.name = "a", .role = Role::Src, .countFrom = "vector width", .spaceFrom = "state space"},
    {.name = "b", .role = Role::Src, .countFrom = "vector width"}};
constexpr Signature kAtomVectorSignature[] = {kAtomVector};
constexpr Signature kRedVectorSignature[] = {kRedVector};
constexpr Signature kAtomCasSignature[] = {kAtomCasOperands};
constexpr Signature kRedSignature[] = {kRed};
// .sem from sm_70 (PTX 6.0), .cluster and shared::cluster from sm_90 (PTX
// 7.8), shared::cta PTX 7.8, .sys sm_60, f64 add sm_60, 64-bit min/max
// sm_32 (below every target here).
constexpr FloorRecord kAtomFloors[] = {
    {50, 20},          {70, 60, {}, "relaxed"}, {70, 60, {}, "acquire"},
    {70, 60, {}, "release"}, {70, 60, {}, "acq_rel"},
    {60, 50, {}, "sys"},     {90, 78, {}, "cluster"},
    {50, 78, {}, "shared::cta"}, {90, 78, {}, "shared::cluster"},
    {60, 50, kAtomF64}, {70, 63, kAtomB16}};
constexpr FloorRecord kAtomHalfFloors[] = {
    {70, 63},          {70, 60, {}, "relaxed"}, {70, 60, {}, "acquire"},
    {70, 60, {}, "release"}, {70, 60, {}, "acq_rel"},
    {60, 50, {}, "sys"},     {90, 78, {}, "cluster"},
    {50, 78, {}, "shared::cta"}, {90, 78, {}, "shared::cluster"},
    {90, 78, kAtomBf16s}};
constexpr FloorRecord kAtomVectorFloors[] = {{90, 81}};
constexpr StringRef kAtomVectorMessage =
    "{ctx} vectors take f32 (add, .v2 or .v4), f16 or bf16 (add, min or max "
    "with .noftz, .v2 to .v8) or f16x2 or bf16x2 (.v2 or .v4)";
constexpr VariantRecord kAtomVariants[] = {
    {.types = kAtomCasTuple,
     .slots = kAtomCasSlots,
     .floors = kAtomFloors,
     .signatures = kAtomCasSignature,
     .whenToken = "cas",
     .whenMessage = "atom.cas takes .b16, .b32 or .b64"},
    {kAtomBitsTuple, kAtomBitSlots, {}, kAtomFloors, kAtomSignature},
    {kAtomU32Tuple, kAtomU32Slots, {}, kAtomFloors, kAtomSignature},
    {kAtomS32U64Tuple, kAtomAddMinMaxSlots, {}, kAtomFloors, kAtomSignature},
    {kAtomS64Tuple, kAtomMinMaxSlots, {}, kAtomFloors, kAtomSignature},
    {kAtomF32Tuple, kAtomAddSlots, {}, kAtomFloors, kAtomSignature},
    {kAtomF64Tuple, kAtomAddSlots, {}, kAtomFloors, kAtomSignature},
    {kAtomHalfTuple, kAtomHalfSlots, {}, kAtomHalfFloors, kAtomSignature},
#define VECTOR(typeTuple, slotList, signatureList, width)                      \
  {.types = typeTuple,                                                         \
   .slots = slotList,                                                          \
   .floors = kAtomVectorFloors,                                                \
   .signatures = signatureList,                                                \
   .whenToken = width,                                                         \
   .whenMessage = kAtomVectorMessage}
    VECTOR(kAtomF32Tuple, kAtomV2F32Slots, kAtomVectorSignature, "v2"),
    VECTOR(kAtomHalfTuple, kAtomV2HalfSlots, kAtomVectorSignature, "v2"),
    VECTOR(kAtomF32Tuple, kAtomV4F32Slots, kAtomVectorSignature, "v4"),
    VECTOR(kAtomHalfTuple, kAtomV4HalfSlots, kAtomVectorSignature, "v4"),
    VECTOR(kAtomScalarHalfTuple, kAtomV8HalfSlots, kAtomVectorSignature, "v8")};
constexpr VariantRecord kRedVariants[] = {
    {kAtomBitsTuple, kRedBitSlots, {}, kAtomFloors, kRedSignature},
    {kAtomU32Tuple, kRedU32Slots, {}, kAtomFloors, kRedSignature},
    {kAtomS32U64Tuple, kRedAddMinMaxSlots, {}, kAtomFloors, kRedSignature},
    {kAtomS64Tuple, kRedMinMaxSlots, {}, kAtomFloors, kRedSignature},
    {kAtomF32Tuple, kRedAddSlots, {}, kAtomFloors, kRedSignature},
    {kAtomF64Tuple, kRedAddSlots, {}, kAtomFloors, kRedSignature},
    {kAtomHalfTuple, kRedHalfSlots, {}, kAtomHalfFloors, kRedSignature},
    VECTOR(kAtomF32Tuple, kRedV2F32Slots, kRedVectorSignature, "v2"),
    VECTOR(kAtomHalfTuple, kRedV2HalfSlots, kRedVectorSignature, "v2"),
    VECTOR(kAtomF32Tuple, kRedV4F32Slots, kRedVectorSignature, "v4"),
    VECTOR(kAtomHalfTuple, kRedV4HalfSlots, kRedVectorSignature, "v4"),
    VECTOR(kAtomScalarHalfTuple, kRedV8HalfSlots, kRedVectorSignature, "v8")};
#undef VECTOR

//===-- shfl ---------------------------------------------------------------===//

// PTX ISA 9.0, 9.7.9.6: shfl.sync.mode.b32 d{|p}, a, b, c, membermask, with
// mode up, down, bfly or idx: each thread of membermask reads a of the lane
// that b (a delta or a lane) and c (the clamp in bits 0-4, the segment mask
// in bits 8-12) name. PTX ISA 6.0. Measured with ptxas 13.0: qualifiers in
// any order, sync repeated as one. The form with the predicate result (d|p)
// is not taken yet.
constexpr StringRef kShflB32[] = {"b32"};
constexpr Tokens kShflTypes[] = {kShflB32};
constexpr StringRef kShflSync[] = {"sync"};
constexpr StringRef kShflModes[] = {"up", "down", "bfly", "idx"};
constexpr SlotRecord kShflSlots[] = {{"sync", kShflSync, true},
                                     {"mode", kShflModes, true}};
constexpr OperandRecord kShfl[] = {{"d", Role::Dst},
                                   {"a", Role::Src},
                                   {"b", Role::Src},
                                   {"c", Role::Src},
                                   {"membermask", Role::Src}};
// d|p: p is true where the source lane was inside the clamp.
constexpr OperandRecord kShflPred[] = {
    {"d", Role::Dst},
    {.name = "p", .role = Role::Dst, .fixedType = "pred", .barBefore = true},
    {"a", Role::Src},
    {"b", Role::Src},
    {"c", Role::Src},
    {"membermask", Role::Src}};
constexpr Signature kShflSignature[] = {kShfl, kShflPred};
constexpr FloorRecord kShflFloors[] = {{50, 60}};
constexpr VariantRecord kShflVariants[] = {
    {kShflTypes, kShflSlots, {}, kShflFloors, kShflSignature}};

//===-- vote, match, redux, elect, activemask ------------------------------===//

// PTX ISA 9.0, 9.7.13.8-12. Measured with ptxas 13.0: qualifiers in any
// order, sync repeated as one and required (vote without it is refused from
// sm_70); vote's .all/.any/.uni take .pred and .ballot .b32; match takes
// .b32 and .b64 and only match.all has the predicate result; redux takes
// add/min/max on .u32/.s32 and and/or/xor on .b32 from sm_80, and min/max
// (with .abs and .NaN) on .f32 on sm_100a/f and sm_103a/f only (not
// sm_110, sm_120); vote's uni repeated as one; elect.sync has no type and its predicate is required
// (sm_90); activemask is .b32 only. The negated vote source (!a) and
// elect's sink (_) are not taken yet.
constexpr StringRef kVoteModes[] = {"all", "any", "uni"};
constexpr StringRef kVoteBallot[] = {"ballot"};
// ptxas takes vote.sync.uni.uni as one uni, but refuses all.all and any.any
// ("Multiple .any/.all modifiers").
constexpr StringRef kVoteRepeatable[] = {"sync", "uni"};
constexpr SlotRecord kVoteSlots[] = {{"sync", kShflSync, true},
                                     {"mode", kVoteModes, true}};
constexpr SlotRecord kBallotSlots[] = {{"sync", kShflSync, true},
                                       {"mode", kVoteBallot, true}};
constexpr OperandRecord kVote[] = {
    {"d", Role::Dst},
    {.name = "a", .role = Role::Src, .fixedType = "pred"},
    {.name = "membermask", .role = Role::Src, .fixedType = "b32"}};
constexpr Signature kVoteSignature[] = {kVote};
constexpr VariantRecord kVoteVariants[] = {
    {kPredTuple, kVoteSlots, {}, kShflFloors, kVoteSignature},
    {.types = kShflTypes,
     .slots = kBallotSlots,
     .floors = kShflFloors,
     .signatures = kVoteSignature,
     .whenToken = "ballot",
     .whenMessage = "vote.ballot takes .b32"}};

constexpr StringRef kMatchAny[] = {"any"};
constexpr StringRef kMatchAll[] = {"all"};
constexpr StringRef kMatchTypes[] = {"b32", "b64"};
constexpr Tokens kMatchTuple[] = {kMatchTypes};
constexpr SlotRecord kMatchAnySlots[] = {{"mode", kMatchAny, true},
                                         {"sync", kShflSync, true}};
constexpr SlotRecord kMatchAllSlots[] = {{"mode", kMatchAll, true},
                                         {"sync", kShflSync, true}};
constexpr OperandRecord kMatch[] = {
    {.name = "d", .role = Role::Dst, .fixedType = "b32"},
    {"a", Role::Src},
    {.name = "membermask", .role = Role::Src, .fixedType = "b32"}};
// d|p: p is true where every thread of the mask has the same a.
constexpr OperandRecord kMatchPred[] = {
    {.name = "d", .role = Role::Dst, .fixedType = "b32"},
    {.name = "p", .role = Role::Dst, .fixedType = "pred", .barBefore = true},
    {"a", Role::Src},
    {.name = "membermask", .role = Role::Src, .fixedType = "b32"}};
constexpr Signature kMatchAnySignature[] = {kMatch};
constexpr Signature kMatchAllSignatures[] = {kMatch, kMatchPred};
constexpr FloorRecord kMatchFloors[] = {{70, 60}};
constexpr VariantRecord kMatchVariants[] = {
    {kMatchTuple, kMatchAnySlots, {}, kMatchFloors, kMatchAnySignature},
    {.types = kMatchTuple,
     .slots = kMatchAllSlots,
     .floors = kMatchFloors,
     .signatures = kMatchAllSignatures,
     .extendsPrevious = true}};

constexpr StringRef kReduxArith[] = {"add", "min", "max"};
constexpr StringRef kReduxLogic[] = {"and", "or", "xor"};
constexpr StringRef kReduxMinMax[] = {"min", "max"};
constexpr StringRef kReduxAbs[] = {"abs"};
constexpr StringRef kReduxNaN[] = {"NaN"};
constexpr StringRef kReduxIntTypes[] = {"u32", "s32"};
constexpr Tokens kReduxIntTuple[] = {kReduxIntTypes};
constexpr Tokens kReduxF32Tuple[] = {kF32};
constexpr SlotRecord kReduxArithSlots[] = {{"sync", kShflSync, true},
                                           {"operation", kReduxArith, true}};
constexpr SlotRecord kReduxLogicSlots[] = {{"sync", kShflSync, true},
                                           {"operation", kReduxLogic, true}};
constexpr SlotRecord kReduxFloatSlots[] = {{"sync", kShflSync, true},
                                           {"operation", kReduxMinMax, true},
                                           {"abs", kReduxAbs},
                                           {"NaN", kReduxNaN}};
constexpr OperandRecord kRedux[] = {
    {"d", Role::Dst},
    {"a", Role::Src},
    {.name = "membermask", .role = Role::Src, .fixedType = "b32"}};
constexpr Signature kReduxSignature[] = {kRedux};
constexpr FloorRecord kReduxFloors[] = {{80, 70}};
constexpr FloorRecord kReduxFloatFloors[] = {
    {.sm = 100, .ptx = 86, .archSpecific = true, .maxSm = 103}};
constexpr VariantRecord kReduxVariants[] = {
    {kReduxIntTuple, kReduxArithSlots, {}, kReduxFloors, kReduxSignature},
    {kShflTypes, kReduxLogicSlots, {}, kReduxFloors, kReduxSignature},
    {kReduxF32Tuple, kReduxFloatSlots, {}, kReduxFloatFloors, kReduxSignature}};

constexpr SlotRecord kElectSlots[] = {{"sync", kShflSync, true}};
constexpr OperandRecord kElect[] = {
    {.name = "d", .role = Role::Dst, .fixedType = "b32"},
    {.name = "p", .role = Role::Dst, .fixedType = "pred", .barBefore = true},
    {.name = "membermask", .role = Role::Src, .fixedType = "b32"}};
constexpr Signature kElectSignature[] = {kElect};
constexpr FloorRecord kElectFloors[] = {{90, 80}};
constexpr VariantRecord kElectVariants[] = {
    {.slots = kElectSlots, .floors = kElectFloors, .signatures = kElectSignature}};

constexpr OperandRecord kActivemask[] = {{"d", Role::Dst}};
constexpr Signature kActivemaskSignature[] = {kActivemask};
constexpr FloorRecord kActivemaskFloors[] = {{50, 62}};
constexpr VariantRecord kActivemaskVariants[] = {
    {kShflTypes, {}, {}, kActivemaskFloors, kActivemaskSignature}};

//===-- membar, fence ------------------------------------------------------===//

// PTX ISA 9.0, 9.7.13.4: membar.level, membar.proxy.alias, fence{.sem}.scope
// (sem sc, acq_rel, and from PTX 8.6 acquire and release; acq_rel
// when none is written), fence.proxy.alias, fence.proxy.async{.space} and
// fence.mbarrier_init.release.cluster. They have no operands. Measured
// with ptxas 13.0: qualifiers in any order, none repeated (membar.gpu is
// refused: membar's levels are cta, gl and sys); fence needs a scope.
constexpr StringRef kMembarLevels[] = {"cta", "gl", "sys"};
constexpr StringRef kMembarProxy[] = {"proxy"};
constexpr StringRef kProxyAlias[] = {"alias"};
constexpr StringRef kProxyAsync[] = {"async"};
constexpr StringRef kProxyAsyncSpaces[] = {"global", "shared::cta", "shared::cluster"};
constexpr StringRef kFenceSems[] = {"sc", "acq_rel", "acquire", "release"};
constexpr StringRef kFenceScopes[] = {"cta", "cluster", "gpu", "sys"};
constexpr StringRef kMbarrierInit[] = {"mbarrier_init"};
constexpr StringRef kRelease[] = {"release"};
constexpr StringRef kCluster[] = {"cluster"};
constexpr SlotRecord kMembarSlots[] = {{"level", kMembarLevels, true}};
constexpr SlotRecord kMembarProxySlots[] = {{"proxy", kMembarProxy, true},
                                            {"proxy kind", kProxyAlias, true}};
constexpr SlotRecord kFenceSlots[] = {{"semantics", kFenceSems},
                                      {"scope", kFenceScopes, true}};
constexpr SlotRecord kFenceProxyAliasSlots[] = {
    {"proxy", kMembarProxy, true}, {"proxy kind", kProxyAlias, true}};
constexpr SlotRecord kFenceProxyAsyncSlots[] = {
    {"proxy", kMembarProxy, true},
    {"proxy kind", kProxyAsync, true},
    {"state space", kProxyAsyncSpaces}};
constexpr SlotRecord kFenceMbarrierInitSlots[] = {
    {"operation", kMbarrierInit, true},
    {"semantics", kRelease, true},
    {"scope", kCluster, true}};
constexpr FloorRecord kMembarFloors[] = {{50, 20}};
constexpr FloorRecord kProxyAliasFloors[] = {{70, 75}};
// acquire and release from PTX 8.6; ptxas 13.0 takes them on every target
// it knows (sm_75 on), where LLVM reads the ISA as sm_90: the table follows
// ptxas.
constexpr FloorRecord kFenceFloors[] = {{70, 60},
                                        {90, 78, {}, "cluster"},
                                        {70, 86, {}, "acquire"},
                                        {70, 86, {}, "release"}};
// proxy comes right after the name (membar.alias.proxy: "Unknown modifier
// '.proxy'").
constexpr RuleRecord kProxyAliasRules[] = {
    {RuleRecord::Before, "proxy", "alias", 0,
     "'proxy' must come right after the name in {ctx} (fence.proxy.alias)"}};
constexpr RuleRecord kProxyAsyncRules[] = {
    {RuleRecord::Before, "proxy", "async", 0,
     "'proxy' must come right after the name in {ctx} (fence.proxy.async)"}};
constexpr FloorRecord kSm90Ptx80[] = {{90, 80}};
constexpr Signature kNoOperands[] = {{}};
// fence.proxy.tensormap::generic.release.scope and
// fence.proxy.tensormap::generic.acquire.scope [a], 128 (PTX ISA 9.0,
// 9.7.13.4): a one-way proxy fence between the generic proxy's accesses of
// a 128-byte tensor map (st, tensormap.replace) and the tensormap proxy's
// (a TMA reading the map): the release after the writes, the acquire, at
// the map's generic address, before the use. Measured with ptxas 13.0:
// sm_90 and PTX 8.3; proxy.tensormap::generic right after the name (its
// own record), a scope required ("Modifier '.release' requires scope"),
// .release without operands and .acquire with them (".release modifier
// required for instruction 'fence.proxy' with 0 arguments"), 128 the only
// size, the semantics and the scope in either order.
constexpr StringRef kAcquire[] = {"acquire"};
constexpr unsigned kTensormapBytes[] = {128};
constexpr SlotRecord kTensormapReleaseSlots[] = {{"semantics", kRelease, true}, {"scope", kFenceScopes, true}};
constexpr SlotRecord kTensormapAcquireSlots[] = {{"semantics", kAcquire, true}, {"scope", kFenceScopes, true}};
constexpr FloorRecord kSm90Ptx83[] = {{90, 83}};
constexpr OperandRecord kTensormapAcquire[] = {
    {.name = "a", .role = Role::Src, .space = Space::Generic, .fixedType = "b8", .sizedBy = "size"},
    {.name = "size", .role = Role::Imm, .fixedType = "b32", .immediates = kTensormapBytes}};
constexpr Signature kTensormapAcquireSignature[] = {kTensormapAcquire};
constexpr VariantRecord kTensormapReleaseVariants[] = {
    {.slots = kTensormapReleaseSlots, .floors = kSm90Ptx83, .signatures = kNoOperands}};
constexpr VariantRecord kTensormapAcquireVariants[] = {
    {.slots = kTensormapAcquireSlots, .floors = kSm90Ptx83, .signatures = kTensormapAcquireSignature}};
constexpr VariantRecord kMembarVariants[] = {
    {.slots = kMembarProxySlots,
     .rules = kProxyAliasRules,
     .floors = kProxyAliasFloors,
     .signatures = kNoOperands,
     .whenToken = "proxy"},
    {.slots = kMembarSlots, .floors = kMembarFloors, .signatures = kNoOperands}};
constexpr VariantRecord kFenceVariants[] = {
    {.slots = kFenceProxyAliasSlots,
     .rules = kProxyAliasRules,
     .floors = kProxyAliasFloors,
     .signatures = kNoOperands,
     .whenToken = "alias"},
    {.slots = kFenceProxyAsyncSlots,
     .rules = kProxyAsyncRules,
     .floors = kSm90Ptx80,
     .signatures = kNoOperands,
     .whenToken = "async"},
    {.slots = kFenceMbarrierInitSlots,
     .floors = kSm90Ptx80,
     .signatures = kNoOperands,
     .whenToken = "mbarrier_init"},
    {.slots = kFenceSlots, .floors = kFenceFloors, .signatures = kNoOperands}};

//===-- griddepcontrol: programmatic dependent launch ------------------------===//

// griddepcontrol.wait waits until the grids this one depends on have
// completed and their memory is visible; griddepcontrol.launch_dependents
// lets the grid that depends on this one start (its wait still waits for
// all of this grid). sm_90, PTX 7.8; measured with ptxas 13.0: one of the
// two is required, nothing else. Each orders memory: a load of what the
// kernel before wrote must not move above the wait.
constexpr StringRef kGridDependencyActions[] = {"wait", "launch_dependents"};
constexpr SlotRecord kGridDependencySlots[] = {
    {"control", kGridDependencyActions, true}};
constexpr FloorRecord kGridDependencyFloors[] = {{90, 78}};
constexpr VariantRecord kGridDependencyVariants[] = {
    {.slots = kGridDependencySlots,
     .floors = kGridDependencyFloors,
     .signatures = kNoOperands}};

//===-- discard, applypriority: L2 cache lines ------------------------------===//

// discard{.global}.L2 [a], 128 and applypriority{.global}.L2::evict_normal
// [a], 128 (PTX ISA 9.0, 9.7.9.16-17): one 128-byte line of global memory
// (a generic address without .global), `a` aligned to 128. discard
// behaves as a weak write of unstable indeterminate values to [a, a + 128)
// (reads see undefined bytes until they are written); applypriority sets
// the line's L2 eviction priority, which no thread can see. sm_80, PTX
// 7.4; measured with ptxas 13.0: the qualifiers in either order, 128 the
// only size, evict_normal the only priority.
constexpr unsigned kCacheLineBytes[] = {128};
constexpr StringRef kEvictNormalL2[] = {"L2::evict_normal"};
constexpr SlotRecord kDiscardSlots[] = {{"state space", kGlobal},
                                        {"level", kL2Level, true}};
constexpr SlotRecord kApplyPrioritySlots[] = {
    {"state space", kGlobal}, {"eviction priority", kEvictNormalL2, true}};
constexpr OperandRecord kCacheLineSize = {.name = "size", .role = Role::Imm,
                                          .fixedType = "b32",
                                          .immediates = kCacheLineBytes};
constexpr OperandRecord kDiscard[] = {
    {.name = "a", .role = Role::Dst, .fixedType = "b8", .sizedBy = "size",
     .spaceFrom = "state space"},
    kCacheLineSize};
constexpr OperandRecord kApplyPriority[] = {
    {.name = "a", .role = Role::Src, .fixedType = "b8", .sizedBy = "size",
     .spaceFrom = "state space"},
    kCacheLineSize};
constexpr Signature kDiscardSignature[] = {kDiscard};
constexpr Signature kApplyPrioritySignature[] = {kApplyPriority};
constexpr FloorRecord kCacheLineFloors[] = {{80, 74}};
constexpr VariantRecord kDiscardVariants[] = {
    {.slots = kDiscardSlots, .floors = kCacheLineFloors,
     .signatures = kDiscardSignature}};
constexpr VariantRecord kApplyPriorityVariants[] = {
    {.slots = kApplyPrioritySlots, .floors = kCacheLineFloors,
     .signatures = kApplyPrioritySignature}};

// nanosleep.u32 t: the thread sleeps for about t nanoseconds (at most 1
// ms). sm_70, PTX 6.3; measured with ptxas 13.0: .u32 alone. It orders
// memory for MLIR and LLVM, so that a spin loop's load is not hoisted past
// its backoff and the sleep is never dropped (it has no result).
constexpr OperandRecord kNanosleep[] = {
    {.name = "t", .role = Role::Src, .fixedType = "u32"}};
constexpr Signature kNanosleepSignature[] = {kNanosleep};
constexpr FloorRecord kNanosleepFloors[] = {{70, 63}};
constexpr VariantRecord kNanosleepVariants[] = {
    {kU32Tuple, {}, {}, kNanosleepFloors, kNanosleepSignature}};

// trap: the kernel stops with an error (the launch fails; its context is
// lost). No operands; ptxas 13.0 takes `trap` alone. Side-effecting asm
// that orders memory, so nothing moves past it and it is never dropped.
constexpr VariantRecord kTrapVariants[] = {{.signatures = kNoOperands}};

// exit: the thread ends; a barrier of all the block's (or cluster's)
// threads waits for those that have not exited. No operands; it orders
// memory, so nothing after it moves before it.
constexpr VariantRecord kExitVariants[] = {{.signatures = kNoOperands}};

//===-- mma ----------------------------------------------------------------===//

// mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype
// d, a, b, c, one variant per shape (its whenToken). Measured with ptxas
// 13.0: qualifiers in any order, A's layout (row) before B's (col); f16
// multiplies accumulate in f16 (dtype = ctype = f16) or f32, every other
// type in f32 (s32 for integers); .satfinite only on integer forms (ptxas
// takes it repeated), a rounding mode (.rn, .rz, .rm, .rp) only on f64 ones.
// The
// sm_70 m8n8k4 of f16 and the b1 forms are not in the table.
// Registers per thread (PTX ISA, "Matrix Fragments for mma.m16n8k*"): the
// counts below; A and B hold two f16/bf16, four 8-bit integers or fp8, one
// tf32 or one f64 per register; D and C four f32/s32 (two f64 for
// m8n8k4, two s32 for m8n8k16) or two f16x2.
// The repeat space is (m, n, k): D and C span (m, n), A (m, k), B (n, k);
// C feeds k = 0 and D each later k (docs/families/mma.md).
constexpr StringRef kSync[] = {"sync"};
constexpr StringRef kAligned[] = {"aligned"};
constexpr StringRef kRow[] = {"row"};
constexpr StringRef kCol[] = {"col"};
constexpr StringRef kF16[] = {"f16"};
constexpr StringRef kBf16Only[] = {"bf16"};
constexpr StringRef kTf32Only[] = {"tf32"};
constexpr StringRef kMmaInt8[] = {"s8", "u8"};
constexpr StringRef kMmaInt4[] = {"s4", "u4"};
constexpr StringRef kMmaFp8[] = {"e4m3", "e5m2"};
constexpr StringRef kMmaF64[] = {"f64"};
constexpr StringRef kMmaSatfinite[] = {"satfinite"};
constexpr StringRef kMmaRoundings[] = {"rn", "rz", "rm", "rp"};
constexpr StringRef kMmaRepeatable[] = {"satfinite"};

constexpr StringRef kM16N8K4[] = {"m16n8k4"};
constexpr StringRef kM16N8K8[] = {"m16n8k8"};
constexpr StringRef kM16N8K16[] = {"m16n8k16"};
constexpr StringRef kM16N8K32[] = {"m16n8k32"};
constexpr StringRef kM8N8K4[] = {"m8n8k4"};
constexpr StringRef kM8N8K16[] = {"m8n8k16"};
constexpr StringRef kM8N8K32[] = {"m8n8k32"};
constexpr StringRef kM16N8K64[] = {"m16n8k64"};
constexpr SlotRecord mmaSlot(Tokens shape) { return {"shape", shape, true}; }
#define TILE_MMA_SLOTS(NAME, SHAPE)                                            \
  constexpr SlotRecord NAME[] = {{"sync", kSync, true},                        \
                                 {"aligned", kAligned, true},                  \
                                 mmaSlot(SHAPE),                               \
                                 {"A layout", kRow, true},                     \
                                 {"B layout", kCol, true}};                    \
  constexpr SlotRecord NAME##Sat[] = {{"sync", kSync, true},                   \
                                      {"aligned", kAligned, true},             \
                                      mmaSlot(SHAPE),                          \
                                      {"A layout", kRow, true},                \
                                      {"B layout", kCol, true},                \
                                      {"satfinite", kMmaSatfinite}};   \
  constexpr SlotRecord NAME##Rnd[] = {{"sync", kSync, true},                   \
                                      {"aligned", kAligned, true},             \
                                      mmaSlot(SHAPE),                          \
                                      {"A layout", kRow, true},                \
                                      {"B layout", kCol, true},                \
                                      {"rounding", kMmaRoundings}};
TILE_MMA_SLOTS(kMmaSlotsM16N8K4, kM16N8K4)
TILE_MMA_SLOTS(kMmaSlotsM16N8K8, kM16N8K8)
TILE_MMA_SLOTS(kMmaSlotsM16N8K16, kM16N8K16)
TILE_MMA_SLOTS(kMmaSlotsM16N8K32, kM16N8K32)
TILE_MMA_SLOTS(kMmaSlotsM8N8K4, kM8N8K4)
TILE_MMA_SLOTS(kMmaSlotsM8N8K16, kM8N8K16)
TILE_MMA_SLOTS(kMmaSlotsM8N8K32, kM8N8K32)
TILE_MMA_SLOTS(kMmaSlotsM16N8K64, kM16N8K64)
#undef TILE_MMA_SLOTS

constexpr RuleRecord kMmaRules[] = {
    {RuleRecord::Before, "row", "col", 0,
     "'col' must follow 'row' in {ctx}: the first layout is A's (row), the "
     "second B's (col)"}};

// D, A, B, C and the tied form (acc, A, B) of one shape and type group.
constexpr OperandRecord mmaA(StringRef type, unsigned count) {
  return {.name = "a", .role = Role::Src, .typeIndex = 1, .fixedType = type,
          .count = count, .axes = "mk", .braced = true};
}
constexpr OperandRecord mmaB(StringRef type, unsigned count) {
  return {.name = "b", .role = Role::Src, .typeIndex = 2, .fixedType = type,
          .count = count, .axes = "nk", .braced = true};
}
#define TILE_MMA_OPERANDS(NAME, ACC_TYPE, IN_TYPE, ACC, A, B)                  \
  constexpr OperandRecord NAME[] = {                                           \
      {.name = "d", .role = Role::Dst, .fixedType = ACC_TYPE, .count = ACC,    \
       .axes = "mn", .braced = true},                                          \
      mmaA(IN_TYPE, A),                                                        \
      mmaB(IN_TYPE, B),                                                        \
      {.name = "c", .role = Role::Src, .typeIndex = 3, .fixedType = ACC_TYPE,  \
       .count = ACC, .axes = "mn", .accumulator = true, .braced = true}};      \
  constexpr OperandRecord NAME##Tied[] = {                                     \
      {.name = "acc", .role = Role::ReadWrite, .fixedType = ACC_TYPE,          \
       .count = ACC, .readAt = 3, .axes = "mn", .braced = true},               \
      mmaA(IN_TYPE, A),                                                        \
      mmaB(IN_TYPE, B)};                                                       \
  constexpr Signature NAME##Signatures[] = {NAME, NAME##Tied};
TILE_MMA_OPERANDS(kMmaF16K8F32, "f32", "f16x2", 4, 2, 1)
TILE_MMA_OPERANDS(kMmaF16K8F16, "f16x2", "f16x2", 2, 2, 1)
TILE_MMA_OPERANDS(kMmaF16K16F32, "f32", "f16x2", 4, 4, 2)
TILE_MMA_OPERANDS(kMmaF16K16F16, "f16x2", "f16x2", 2, 4, 2)
TILE_MMA_OPERANDS(kMmaBf16K8, "f32", "bf16x2", 4, 2, 1)
TILE_MMA_OPERANDS(kMmaBf16K16, "f32", "bf16x2", 4, 4, 2)
TILE_MMA_OPERANDS(kMmaTf32K4, "f32", "b32", 4, 2, 1)
TILE_MMA_OPERANDS(kMmaTf32K8, "f32", "b32", 4, 4, 2)
TILE_MMA_OPERANDS(kMmaIntM8N8K16, "s32", "b32", 2, 1, 1)
TILE_MMA_OPERANDS(kMmaIntK16, "s32", "b32", 4, 2, 1)
TILE_MMA_OPERANDS(kMmaIntK32, "s32", "b32", 4, 4, 2)
TILE_MMA_OPERANDS(kMmaInt4M8N8K32, "s32", "b32", 2, 1, 1)
TILE_MMA_OPERANDS(kMmaInt4K64, "s32", "b32", 4, 4, 2)
TILE_MMA_OPERANDS(kMmaFp8K16F32, "f32", "b32", 4, 2, 1)
TILE_MMA_OPERANDS(kMmaFp8K16F16, "f16x2", "b32", 2, 2, 1)
TILE_MMA_OPERANDS(kMmaFp8K32F32, "f32", "b32", 4, 4, 2)
TILE_MMA_OPERANDS(kMmaFp8K32F16, "f16x2", "b32", 2, 4, 2)
TILE_MMA_OPERANDS(kMmaF64M8N8K4, "f64", "f64", 2, 1, 1)
TILE_MMA_OPERANDS(kMmaF64K4, "f64", "f64", 4, 2, 1)
TILE_MMA_OPERANDS(kMmaF64K8, "f64", "f64", 4, 4, 2)
TILE_MMA_OPERANDS(kMmaF64K16, "f64", "f64", 4, 8, 4)
#undef TILE_MMA_OPERANDS

constexpr Tokens kMmaF32F16[] = {kF32, kF16, kF16, kF32};
constexpr Tokens kMmaF16F16[] = {kF16, kF16, kF16, kF16};
constexpr Tokens kMmaF32Bf16[] = {kF32, kBf16Only, kBf16Only, kF32};
constexpr Tokens kMmaF32Tf32[] = {kF32, kTf32Only, kTf32Only, kF32};
constexpr Tokens kMmaS32Int8[] = {kS32, kMmaInt8, kMmaInt8, kS32};
constexpr Tokens kMmaS32Int4[] = {kS32, kMmaInt4, kMmaInt4, kS32};
constexpr Tokens kMmaF32Fp8[] = {kF32, kMmaFp8, kMmaFp8, kF32};
constexpr Tokens kMmaF16Fp8[] = {kF16, kMmaFp8, kMmaFp8, kF16};
constexpr Tokens kMmaF64Types[] = {kMmaF64, kMmaF64, kMmaF64, kMmaF64};

constexpr FloorRecord kSm75Ptx65[] = {{75, 65}};
constexpr FloorRecord kSm80Ptx70[] = {{80, 70}};
constexpr FloorRecord kSm89Ptx84[] = {{89, 84}};
constexpr FloorRecord kSm89Ptx87[] = {{89, 87}};
constexpr FloorRecord kSm90Ptx78[] = {{90, 78}};

constexpr StringRef kM16N8K4Message =
    "'{type}' are not the types of any {ctx}.m16n8k4 form: it multiplies "
    "tf32 (f32.tf32.tf32.f32) or f64 (f64.f64.f64.f64)";
constexpr StringRef kM16N8K8Message =
    "'{type}' are not the types of any {ctx}.m16n8k8 form: it multiplies f16 "
    "(f32.f16.f16.f32 or f16.f16.f16.f16), bf16 (f32.bf16.bf16.f32), tf32 "
    "(f32.tf32.tf32.f32) or f64 (f64.f64.f64.f64)";
constexpr StringRef kM16N8K16Message =
    "'{type}' are not the types of any {ctx}.m16n8k16 form: it multiplies "
    "f16 (f32.f16.f16.f32 or f16.f16.f16.f16), bf16 (f32.bf16.bf16.f32), "
    "s8/u8 (s32.s8.u8.s32, ...), e4m3/e5m2 (f32.e4m3.e5m2.f32, "
    "f16.e4m3.e4m3.f16, ...) or f64 (f64.f64.f64.f64)";
constexpr StringRef kM16N8K32Message =
    "'{type}' are not the types of any {ctx}.m16n8k32 form: it multiplies "
    "s8/u8 (s32.s8.u8.s32, ...), s4/u4 (s32.s4.u4.s32, ...) or e4m3/e5m2 "
    "(f32.e4m3.e5m2.f32, f16.e4m3.e4m3.f16, ...)";
constexpr StringRef kM16N8K64Message =
    "'{type}' are not the types of any {ctx}.m16n8k64 form: it multiplies "
    "s4/u4 (s32.s4.u4.s32, ...)";
constexpr StringRef kM8N8K32Message =
    "'{type}' are not the types of any {ctx}.m8n8k32 form: it multiplies "
    "s4/u4 (s32.s4.u4.s32, ...)";
constexpr StringRef kM8N8K4Message =
    "'{type}' are not the types of any {ctx}.m8n8k4 form: it multiplies f64 "
    "here (f64.f64.f64.f64); the f16 m8n8k4 of sm_70 is not in the table";
constexpr StringRef kM8N8K16Message =
    "'{type}' are not the types of any {ctx}.m8n8k16 form: it multiplies "
    "s8/u8 (s32.s8.u8.s32, ...)";

constexpr VariantRecord kMmaVariants[] = {
    {kMmaF32F16, kMmaSlotsM16N8K8, kMmaRules, kSm75Ptx65,
     kMmaF16K8F32Signatures, "m16n8k8", kM16N8K8Message},
    {kMmaF16F16, kMmaSlotsM16N8K8, kMmaRules, kSm75Ptx65,
     kMmaF16K8F16Signatures, "m16n8k8", kM16N8K8Message},
    {kMmaF32Bf16, kMmaSlotsM16N8K8, kMmaRules, kSm80Ptx70,
     kMmaBf16K8Signatures, "m16n8k8", kM16N8K8Message},
    {kMmaF32Tf32, kMmaSlotsM16N8K8, kMmaRules, kSm80Ptx70,
     kMmaTf32K8Signatures, "m16n8k8", kM16N8K8Message},
    {kMmaF64Types, kMmaSlotsM16N8K8Rnd, kMmaRules, kSm90Ptx78,
     kMmaF64K8Signatures, "m16n8k8", kM16N8K8Message},
    {kMmaF32F16, kMmaSlotsM16N8K16, kMmaRules, kSm80Ptx70,
     kMmaF16K16F32Signatures, "m16n8k16", kM16N8K16Message},
    {kMmaF16F16, kMmaSlotsM16N8K16, kMmaRules, kSm80Ptx70,
     kMmaF16K16F16Signatures, "m16n8k16", kM16N8K16Message},
    {kMmaF32Bf16, kMmaSlotsM16N8K16, kMmaRules, kSm80Ptx70,
     kMmaBf16K16Signatures, "m16n8k16", kM16N8K16Message},
    {kMmaS32Int8, kMmaSlotsM16N8K16Sat, kMmaRules, kSm80Ptx70,
     kMmaIntK16Signatures, "m16n8k16", kM16N8K16Message},
    {kMmaF32Fp8, kMmaSlotsM16N8K16, kMmaRules, kSm89Ptx87,
     kMmaFp8K16F32Signatures, "m16n8k16", kM16N8K16Message},
    {kMmaF16Fp8, kMmaSlotsM16N8K16, kMmaRules, kSm89Ptx87,
     kMmaFp8K16F16Signatures, "m16n8k16", kM16N8K16Message},
    {kMmaF64Types, kMmaSlotsM16N8K16Rnd, kMmaRules, kSm90Ptx78,
     kMmaF64K16Signatures, "m16n8k16", kM16N8K16Message},
    {kMmaS32Int8, kMmaSlotsM16N8K32Sat, kMmaRules, kSm80Ptx70,
     kMmaIntK32Signatures, "m16n8k32", kM16N8K32Message},
    {kMmaF32Fp8, kMmaSlotsM16N8K32, kMmaRules, kSm89Ptx84,
     kMmaFp8K32F32Signatures, "m16n8k32", kM16N8K32Message},
    {kMmaF16Fp8, kMmaSlotsM16N8K32, kMmaRules, kSm89Ptx87,
     kMmaFp8K32F16Signatures, "m16n8k32", kM16N8K32Message},
    {kMmaF32Tf32, kMmaSlotsM16N8K4, kMmaRules, kSm80Ptx70,
     kMmaTf32K4Signatures, "m16n8k4", kM16N8K4Message},
    {kMmaF64Types, kMmaSlotsM16N8K4Rnd, kMmaRules, kSm90Ptx78,
     kMmaF64K4Signatures, "m16n8k4", kM16N8K4Message},
    {kMmaF64Types, kMmaSlotsM8N8K4Rnd, kMmaRules, kSm80Ptx70,
     kMmaF64M8N8K4Signatures, "m8n8k4", kM8N8K4Message},
    {kMmaS32Int8, kMmaSlotsM8N8K16Sat, kMmaRules, kSm75Ptx65,
     kMmaIntM8N8K16Signatures, "m8n8k16", kM8N8K16Message},
    {kMmaS32Int4, kMmaSlotsM16N8K32Sat, kMmaRules, kSm80Ptx70,
     kMmaIntK16Signatures, "m16n8k32", kM16N8K32Message},
    {kMmaS32Int4, kMmaSlotsM16N8K64Sat, kMmaRules, kSm80Ptx70,
     kMmaInt4K64Signatures, "m16n8k64", kM16N8K64Message},
    {kMmaS32Int4, kMmaSlotsM8N8K32Sat, kMmaRules, kSm75Ptx65,
     kMmaInt4M8N8K32Signatures, "m8n8k32", kM8N8K32Message}};

/// A spelling without a shape names no variant.
std::string mmaTypeError(Tokens types) {
  return "mma." + llvm::join(types, ".") +
         " names no shape: expected mma.sync.aligned.<shape>.row.col."
         "<d>.<a>.<b>.<c> with a shape of m16n8k4, m16n8k8, m16n8k16, "
         "m16n8k32, m16n8k64, m8n8k4, m8n8k16 or m8n8k32";
}

//===-- ldmatrix / stmatrix ------------------------------------------------===//

// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16 d, [a]
// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16 [a], r
// (PTX ISA 9.0, 9.7.14.5.15-16; measured with ptxas 13.0: qualifiers in any
// order). Each of 1, 2 or 4 8x8 matrices of b16 has its 8 rows at the
// addresses of 8 lanes (lanes 8j to 8j + 7 for matrix j; the other lanes'
// addresses are not read), each row 16 contiguous bytes aligned to 16, in
// shared memory (through a generic address without .shared, as ptxas 13.0
// takes it):
// here each lane's memory operand is its row, 8 b16 elements. Register j
// of lane l holds elements 2(l % 4) and 2(l % 4) + 1 of row l / 4 of
// matrix j (with .trans, those of column l / 4).
//
// The sm_100a .b8 shapes (PTX ISA 8.6; measured with ptxas 13.0 on sm_100a,
// refused on sm_90): ldmatrix m16n16, .trans only, .x1 or .x2 in 2 b32
// registers per matrix, of .b8 or of rows in a packed format read as
// .b8x16.b6x16_p32 / .b8x16.b4x16_p64; ldmatrix m8n16 (no .trans) .x1, .x2,
// .x4 in those formats only; stmatrix m16n8, .trans only, .x1/.x2/.x4 of
// .b8. Each lane's memory operand is its 16-byte row. Checked by ptxas
// only: the interpreter does not run them.
constexpr StringRef kM8N8[] = {"m8n8"};
constexpr StringRef kMatrixCounts[] = {"x1", "x2", "x4"};
constexpr StringRef kTrans[] = {"trans"};
constexpr SlotRecord kMatrixSlots[] = {
    {"sync", kSync, true},
    {"aligned", kAligned, true},
    {"shape", kM8N8, true},
    {"number of matrices", kMatrixCounts, true},
    {"trans", kTrans},
    {"state space", kSharedDst}};
constexpr FloorRecord kLdmatrixFloors[] = {{75, 65},
                                           {75, 78, {}, "shared::cta"}};
constexpr FloorRecord kStmatrixFloors[] = {{90, 78}};
constexpr OperandRecord kLdmatrix[] = {
    {.name = "d", .role = Role::Dst, .fixedType = "b32",
     .countFrom = "number of matrices", .braced = true},
    {.name = "a", .role = Role::Src, .count = 8, .spaceFrom = "state space"}};
constexpr OperandRecord kStmatrix[] = {
    {.name = "a", .role = Role::Dst, .count = 8, .spaceFrom = "state space"},
    {.name = "r", .role = Role::Src, .fixedType = "b32",
     .countFrom = "number of matrices", .braced = true}};
constexpr Signature kLdmatrixSignature[] = {kLdmatrix};
constexpr Signature kStmatrixSignature[] = {kStmatrix};
constexpr StringRef kB8Shapes[] = {"m16n16", "m8n16"};
constexpr StringRef kM16N16[] = {"m16n16"};
constexpr StringRef kM16N8[] = {"m16n8"};
constexpr StringRef kB8Only[] = {"b8"};
constexpr StringRef kB8x16[] = {"b8x16"};
constexpr StringRef kPackedRows[] = {"b6x16_p32", "b4x16_p64"};
constexpr Tokens kB8Tuple[] = {kB8Only};
constexpr Tokens kPackedRowTuple[] = {kB8x16, kPackedRows};
constexpr FloorRecord kMatrixB8Floors[] = {
    {.sm = 100, .ptx = 86, .archSpecific = true}};
constexpr SlotRecord kLdmatrixB8Slots[] = {
    {"sync", kSync, true},          {"aligned", kAligned, true},
    {"shape", kM16N16, true},       {"number of matrices", kMatrixCounts, true},
    {"trans", kTrans, true},        {"state space", kSharedDst}};
constexpr SlotRecord kLdmatrixPackedSlots[] = {
    {"sync", kSync, true},          {"aligned", kAligned, true},
    {"shape", kB8Shapes, true},     {"number of matrices", kMatrixCounts, true},
    {"trans", kTrans},              {"state space", kSharedDst}};
constexpr SlotRecord kStmatrixB8Slots[] = {
    {"sync", kSync, true},          {"aligned", kAligned, true},
    {"shape", kM16N8, true},        {"number of matrices", kMatrixCounts, true},
    {"trans", kTrans, true},        {"state space", kSharedDst}};
constexpr StringRef kM16N16Counts =
    "ldmatrix.m16n16 loads 1 or 2 matrices (x1, x2), got {other}";
constexpr RuleRecord kLdmatrixB8Rules[] = {
    {RuleRecord::Excludes, "m16n16", "x4", 0, kM16N16Counts}};
constexpr RuleRecord kLdmatrixPackedRules[] = {
    {RuleRecord::Excludes, "m16n16", "x4", 0, kM16N16Counts},
    {RuleRecord::Requires, "m16n16", "trans", 0,
     "ldmatrix.m16n16 needs '.trans': its matrices are loaded transposed"},
    {RuleRecord::Excludes, "m8n16", "trans", 0,
     "ldmatrix.m8n16 takes no '.trans'"}};
constexpr OperandRecord kLdmatrixB8[] = {
    {.name = "d", .role = Role::Dst, .fixedType = "b32",
     .countFrom = "number of matrices", .countDoubledBy = "m16n16",
     .braced = true},
    {.name = "a", .role = Role::Src, .fixedType = "b8", .count = 16,
     .spaceFrom = "state space"}};
constexpr OperandRecord kStmatrixB8[] = {
    {.name = "a", .role = Role::Dst, .fixedType = "b8", .count = 16,
     .spaceFrom = "state space"},
    {.name = "r", .role = Role::Src, .fixedType = "b32",
     .countFrom = "number of matrices", .braced = true}};
constexpr Signature kLdmatrixB8Signature[] = {kLdmatrixB8};
constexpr Signature kStmatrixB8Signature[] = {kStmatrixB8};
constexpr VariantRecord kLdmatrixVariants[] = {
    {kB16Tuple, kMatrixSlots, {}, kLdmatrixFloors, kLdmatrixSignature},
    {kB8Tuple, kLdmatrixB8Slots, kLdmatrixB8Rules, kMatrixB8Floors,
     kLdmatrixB8Signature},
    {kPackedRowTuple, kLdmatrixPackedSlots, kLdmatrixPackedRules,
     kMatrixB8Floors, kLdmatrixB8Signature}};
// movmatrix.sync.aligned.m8n8.trans.b16 d, a: the warp's 8 x 8 matrix of
// b16, in ldmatrix's fragment (lane l's register holds elements 2(l % 4)
// and 2(l % 4) + 1 of row l / 4), transposed in registers. Measured with
// ptxas 13.0: every qualifier required, in any order; no other shape on
// sm_90.
constexpr SlotRecord kMovmatrixSlots[] = {{"sync", kSync, true},
                                          {"aligned", kAligned, true},
                                          {"shape", kM8N8, true},
                                          {"trans", kTrans, true}};
constexpr OperandRecord kMovmatrix[] = {
    {.name = "d", .role = Role::Dst, .fixedType = "b32"},
    {.name = "a", .role = Role::Src, .fixedType = "b32"}};
constexpr Signature kMovmatrixSignature[] = {kMovmatrix};
constexpr FloorRecord kMovmatrixFloors[] = {{75, 78}};
constexpr VariantRecord kMovmatrixVariants[] = {
    {kB16Tuple, kMovmatrixSlots, {}, kMovmatrixFloors, kMovmatrixSignature}};
constexpr VariantRecord kStmatrixVariants[] = {
    {kB16Tuple, kMatrixSlots, {}, kStmatrixFloors, kStmatrixSignature},
    {kB8Tuple, kStmatrixB8Slots, {}, kMatrixB8Floors, kStmatrixB8Signature}};

//===-- cvt ----------------------------------------------------------------===//

// ptxas takes cvt's qualifiers anywhere (cvt.f16.f32.rn, cvt.f16.rp.s32)
// but the destination type before the source type. cvt.pack is parsed in
// Forms.cpp: its u4/s4/u2/s2 are no register types.

constexpr StringRef kIntRoundings[] = {"rni", "rzi", "rmi", "rpi"};
constexpr StringRef kRelu[] = {"relu"};
constexpr StringRef kSatfinite[] = {"satfinite"};
constexpr StringRef kRnRz[] = {"rn", "rz"};
constexpr StringRef kRmRp[] = {"rm", "rp"};
constexpr StringRef kRzRp[] = {"rz", "rp"};
constexpr StringRef kRs[] = {"rs"};
constexpr StringRef kRnaRnRz[] = {"rna", "rn", "rz"};
constexpr StringRef kCvtRepeatable[] = {"sat", "relu", "satfinite"};

constexpr StringRef kCvtScalar[] = {"u8",  "u16", "u32",  "u64",
                                    "s8",  "s16", "s32",  "s64",
                                    "f16", "bf16", "f32", "f64"};
constexpr StringRef kCvtInts[] = {"u8", "u16", "u32", "u64",
                                  "s8", "s16", "s32", "s64"};
constexpr StringRef kCvtWideInts[] = {"u16", "u32", "u64", "s16", "s32", "s64"};
constexpr StringRef kCvtBytes[] = {"u8", "s8"};
constexpr StringRef kF16OrF64[] = {"f16", "f64"};
constexpr StringRef kF64[] = {"f64"};
constexpr StringRef kBf16Scalar[] = {"bf16"};
constexpr StringRef kF16Scalar[] = {"f16"};
constexpr StringRef kHalfPair[] = {"f16x2", "bf16x2"};
constexpr StringRef kF8x2[] = {"e4m3x2", "e5m2x2"};
constexpr StringRef kF6F4x2[] = {"e2m3x2", "e3m2x2", "e2m1x2"};
constexpr StringRef kF8F4x2[] = {"e4m3x2", "e5m2x2", "e2m1x2"};
constexpr StringRef kE2m1x2[] = {"e2m1x2"};
constexpr StringRef kSmallFloatX2[] = {"e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2",
                                       "e2m1x2"};
constexpr StringRef kF6F4Sources[] = {"e2m3x2", "e3m2x2", "e2m1x2"};
constexpr StringRef kF16x2[] = {"f16x2"};
constexpr StringRef kBf16x2[] = {"bf16x2"};
constexpr StringRef kUe8m0x2[] = {"ue8m0x2"};
constexpr StringRef kTf32[] = {"tf32"};
constexpr StringRef kQuads[] = {"e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4",
                                "e2m1x4"};

bool integerSatApplies(Tokens types) {
  // .sat clamps, so ptxas allows it only where the source range does not
  // fit the destination.
  auto range = [](StringRef type) {
    unsigned bits = 0;
    type.drop_front().getAsInteger(10, bits);
    return type.front() == 's'
               ? std::make_pair(-(__int128(1) << (bits - 1)),
                                (__int128(1) << (bits - 1)) - 1)
               : std::make_pair(__int128(0), (__int128(1) << bits) - 1);
  };
  auto dst = range(types[0]), src = range(types[1]);
  return !(src.first >= dst.first && src.second <= dst.second);
}

// Operand signatures.
// Every cvt source is exposed to Fold::CvtSource: ptxas -O3 folded the
// producers of cvt sources into the conversion wrongly, integer and float
// alike. A saturated integer result is exposed to Fold::IntegerSaturation.
constexpr OperandRecord kCvtUnary[] = {
    {.name = "dst", .role = Role::Dst, .saturationBy = "sat"},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource}};
constexpr Signature kCvtUnarySignature[] = {kCvtUnary};
// bf16 to and from s8/u8: ptxas (CUDA 13.0) takes the 8-bit operand only in
// an 8-bit register ("Arguments mismatch" with a 16-bit one, measured), so
// it is an exact register, which the asm bridges through a .b8.
constexpr OperandRecord kCvtToByte[] = {
    {.name = "dst", .role = Role::Dst, .exactRegister = true},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource}};
constexpr OperandRecord kCvtFromByte[] = {
    {.name = "dst", .role = Role::Dst},
    {.name = "src",
     .role = Role::Src,
     .typeIndex = 1,
     .fold = Fold::CvtSource,
     .exactRegister = true}};
constexpr Signature kCvtToByteSignature[] = {kCvtToByte};
constexpr Signature kCvtFromByteSignature[] = {kCvtFromByte};
// Two f32 sources packed into one register; the first is the high half.
constexpr OperandRecord kCvtFromTwoF32[] = {
    {.name = "dst", .role = Role::Dst},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource},
    {.name = "src1", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource}};
constexpr Signature kCvtFromTwoF32Signature[] = {kCvtFromTwoF32};
constexpr OperandRecord kCvtTf32[] = {
    {.name = "dst", .role = Role::Dst, .fixedType = "b32"},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource}};
constexpr Signature kCvtTf32Signature[] = {kCvtTf32};
// cvt.rs: the random bits come last; four f32 sources in braces for x4.
constexpr OperandRecord kCvtRsPair[] = {
    {.name = "dst", .role = Role::Dst},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource},
    {.name = "src1", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource},
    {.name = "rbits", .role = Role::Src, .fixedType = "b32"}};
constexpr OperandRecord kCvtRsQuad[] = {
    {.name = "dst", .role = Role::Dst},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .count = 4, .fold = Fold::CvtSource},
    {.name = "rbits", .role = Role::Src, .fixedType = "b32"}};
constexpr Signature kCvtRsPairSignature[] = {kCvtRsPair};
constexpr Signature kCvtRsQuadSignature[] = {kCvtRsQuad};

// Slots.
constexpr SlotRecord kIntRoundingRequired = {"integer rounding mode",
                                             kIntRoundings, true};
constexpr SlotRecord kIntRoundingOptional = {"integer rounding mode",
                                             kIntRoundings};
constexpr SlotRecord kRoundingRequired = {"rounding mode", kRoundings, true};
constexpr SlotRecord kRoundingOptional = {"rounding mode", kRoundings};
constexpr SlotRecord kFtzSlot = {"ftz", kFtz};
constexpr SlotRecord kSatSlot = {"sat", kSat};
constexpr SlotRecord kReluSlot = {"relu", kRelu};
constexpr SlotRecord kSatfiniteSlot = {"satfinite", kSatfinite};
constexpr SlotRecord kSatfiniteRequired = {"satfinite", kSatfinite, true};
constexpr SlotRecord kRnRequired = {"rounding mode", kRn, true};

constexpr SlotRecord kIntIntSlots[] = {
    {.what = "sat", .tokens = kSat, .appliesIf = integerSatApplies}};
constexpr SlotRecord kIntFromF32Slots[] = {kIntRoundingRequired, kFtzSlot,
                                           kSatSlot};
constexpr SlotRecord kIntFromFloatSlots[] = {kIntRoundingRequired, kSatSlot};
constexpr SlotRecord kIntFromBf16Slots[] = {kIntRoundingRequired};
constexpr SlotRecord kF32FromIntSlots[] = {kRoundingRequired, kFtzSlot,
                                           kSatSlot};
constexpr SlotRecord kFloatFromIntSlots[] = {kRoundingRequired, kSatSlot};
constexpr SlotRecord kBf16FromIntSlots[] = {kRoundingRequired};
constexpr SlotRecord kSameF32Slots[] = {kIntRoundingOptional, kFtzSlot,
                                        kSatSlot};
constexpr SlotRecord kSameFloatSlots[] = {kIntRoundingOptional, kSatSlot};
constexpr SlotRecord kSameBf16Slots[] = {kIntRoundingOptional};
constexpr SlotRecord kF16FromF32Slots[] = {kRoundingRequired, kFtzSlot,
                                           kSatSlot, kReluSlot, kSatfiniteSlot};
constexpr SlotRecord kBf16FromF32Slots[] = {kRoundingRequired, kFtzSlot,
                                            kReluSlot, kSatfiniteSlot};
constexpr SlotRecord kF16FromF64Slots[] = {kRoundingRequired, kSatSlot,
                                           kReluSlot, kSatfiniteSlot};
constexpr SlotRecord kBf16FromF64Slots[] = {kRoundingRequired, kReluSlot,
                                            kSatfiniteSlot};
constexpr SlotRecord kF32FromF64Slots[] = {kRoundingRequired, kFtzSlot,
                                           kSatSlot, kReluSlot, kSatfiniteSlot};
constexpr SlotRecord kWidenToF32Slots[] = {kFtzSlot, kSatSlot};
constexpr SlotRecord kWidenSlots[] = {kSatSlot};
constexpr SlotRecord kF32FromBf16Slots[] = {kRoundingOptional, kFtzSlot};
constexpr SlotRecord kFromBf16Slots[] = {kRoundingOptional};
constexpr SlotRecord kUe8m0Slots[] = {{"rounding mode", kRzRp, true},
                                      kSatfiniteSlot};
constexpr SlotRecord kFromUe8m0Slots[] = {kRnRequired};
constexpr SlotRecord kHalfPairSlots[] = {{"rounding mode", kRnRz, true},
                                         kReluSlot, kSatfiniteSlot};
constexpr SlotRecord kSmallFloatSlots[] = {kRnRequired, kSatfiniteRequired,
                                           kReluSlot};
constexpr SlotRecord kToF16x2Slots[] = {kRnRequired, kReluSlot};
constexpr SlotRecord kTf32Slots[] = {{"rounding mode", kRnaRnRz, true},
                                     kReluSlot, kSatfiniteSlot};
constexpr SlotRecord kRsPairSlots[] = {{"rounding mode", kRs, true},
                                       kReluSlot, kSatfiniteSlot};
constexpr SlotRecord kRsQuadSlots[] = {{"rounding mode", kRs, true},
                                       kReluSlot, kSatfiniteRequired};

// Rules of the narrowing float conversions: relu and satfinite exist for
// f16/bf16 from f32 only, without ftz or sat, rounding to nearest or zero.
constexpr RuleRecord kReluSatfiniteOnlyRules[] = {
    {RuleRecord::Chosen, "relu", {}, 0,
     "'relu' is only available for cvt.f16.f32 and cvt.bf16.f32"},
    {RuleRecord::Chosen, "satfinite", {}, 0,
     "'satfinite' is only available for cvt.f16.f32 and cvt.bf16.f32"}};
constexpr StringRef kNoFtzSat =
    "'relu' and 'satfinite' cannot be combined with 'ftz' or 'sat' in {ctx}";
constexpr StringRef kNearestOrZero =
    "'{other}' is not available with relu or satfinite in {ctx}: one of rn, rz";
constexpr RuleRecord kHalfFromF32Rules[] = {
    {RuleRecord::Excludes, "relu", "ftz", 0, kNoFtzSat},
    {RuleRecord::Excludes, "relu", "sat", 0, kNoFtzSat},
    {RuleRecord::Excludes, "satfinite", "ftz", 0, kNoFtzSat},
    {RuleRecord::Excludes, "satfinite", "sat", 0, kNoFtzSat},
    {RuleRecord::Excludes, "relu", "rm", 0, kNearestOrZero},
    {RuleRecord::Excludes, "relu", "rp", 0, kNearestOrZero},
    {RuleRecord::Excludes, "satfinite", "rm", 0, kNearestOrZero},
    {RuleRecord::Excludes, "satfinite", "rp", 0, kNearestOrZero},
};
// Measured on an H200: ptxas 13.0 emits F2F.F16.F32.RM/.RP without FTZ
// (bf16 keeps it), so a subnormal f32 input rounds to the nearest f16
// subnormal instead of flushing; rn and rz give zero either way.
constexpr auto kF16FromF32Rules = appended(
    kHalfFromF32Rules,
    {.kind = RuleRecord::Caveat,
     .token = "ftz",
     .message = "ptxas (CUDA 13.0) assembles {ctx} with rm or rp without its "
                ".ftz (F2F.F16.F32, measured on an H200): a subnormal f32 input "
                "is rounded as it is, not flushed to zero",
     .allowed = kRmRp});
constexpr RuleRecord kTf32Rules[] = {
    {RuleRecord::Excludes, "relu", "rna", 0,
     "'relu' is not available with 'rna' in {ctx}"}};

// Floors.
constexpr FloorRecord kBf16Floors[] = {{90, 78}};
constexpr FloorRecord kBf16F32Floors[] = {{80, 70}};
constexpr FloorRecord kF32FromBf16Floors[] = {{80, 71},
                                              {90, 78, {}, "ftz"}};
constexpr FloorRecord kF16FromF32Floors[] = {{80, 70, {}, "relu"},
                                             {80, 81, {}, "satfinite"}};
constexpr FloorRecord kBf16FromF32Floors[] = {{80, 70},
                                              {80, 81, {}, "satfinite"}};
constexpr FloorRecord kArch100[] = {{100, 86, {}, {}, true}};
constexpr FloorRecord kHalfPairFloors[] = {{80, 70}, {80, 81, {}, "satfinite"}};
constexpr FloorRecord kF8Floors[] = {{89, 81}};
constexpr FloorRecord kF8F4FromF16x2Floors[] = {
    {89, 81}, {100, 86, kE2m1x2, {}, true}};
constexpr FloorRecord kToF16x2Floors[] = {
    {89, 81}, {100, 86, kF6F4Sources, {}, true, 1}};
constexpr FloorRecord kTf32Floors[] = {
    {80, 70, {}, "rna"},         {80, 81, {}, "rna", false, 0, "satfinite"},
    {90, 78, {}, "rn"},          {90, 78, {}, "rz"},
    {100, 86, {}, "rn", false, 0, "satfinite"},
    {100, 86, {}, "rz", false, 0, "satfinite"}};
constexpr FloorRecord kRsFloors[] = {
    {.sm = 100, .ptx = 87, .archOnly = true, .maxSm = 103}};

// Type tuples.
constexpr Tokens kIntIntTuple[] = {kCvtInts, kCvtInts};
constexpr Tokens kIntF32Tuple[] = {kCvtInts, kF32};
constexpr Tokens kIntFloatTuple[] = {kCvtInts, kF16OrF64};
constexpr Tokens kIntBf16Tuple[] = {kCvtWideInts, kBf16Scalar};
constexpr Tokens kF32IntTuple[] = {kF32, kCvtInts};
constexpr Tokens kFloatIntTuple[] = {kF16OrF64, kCvtInts};
constexpr Tokens kBf16IntTuple[] = {kBf16Scalar, kCvtWideInts};
constexpr Tokens kByteBf16Tuple[] = {kCvtBytes, kBf16Scalar};
constexpr Tokens kBf16ByteTuple[] = {kBf16Scalar, kCvtBytes};
constexpr Tokens kF32F32Tuple[] = {kF32, kF32};
constexpr Tokens kF16F16Tuple[] = {kF16Scalar, kF16Scalar};
constexpr Tokens kF64F64Tuple[] = {kF64, kF64};
constexpr Tokens kBf16Bf16Tuple[] = {kBf16Scalar, kBf16Scalar};
constexpr Tokens kF16F32Tuple[] = {kF16Scalar, kF32};
constexpr Tokens kBf16F32Tuple[] = {kBf16Scalar, kF32};
constexpr Tokens kF16F64Tuple[] = {kF16Scalar, kF64};
constexpr Tokens kBf16F64Tuple[] = {kBf16Scalar, kF64};
constexpr Tokens kF32F64Tuple[] = {kF32, kF64};
constexpr Tokens kF32F16Tuple[] = {kF32, kF16Scalar};
constexpr Tokens kF64F16Tuple[] = {kF64, kF16Scalar};
constexpr Tokens kF64F32Tuple[] = {kF64, kF32};
constexpr Tokens kF32Bf16Tuple[] = {kF32, kBf16Scalar};
constexpr Tokens kF64Bf16Tuple[] = {kF64, kBf16Scalar};
constexpr Tokens kF16Bf16Tuple[] = {kF16Scalar, kBf16Scalar};
constexpr Tokens kBf16F16Tuple[] = {kBf16Scalar, kF16Scalar};
constexpr Tokens kUe8m0FromF32Tuple[] = {kUe8m0x2, kF32};
constexpr Tokens kUe8m0FromBf16x2Tuple[] = {kUe8m0x2, kBf16x2};
constexpr Tokens kFromUe8m0Tuple[] = {kBf16x2, kUe8m0x2};
constexpr Tokens kHalfPairTuple[] = {kHalfPair, kF32};
constexpr Tokens kF8FromF32Tuple[] = {kF8x2, kF32};
constexpr Tokens kF6F4FromF32Tuple[] = {kF6F4x2, kF32};
constexpr Tokens kF8F4FromF16x2Tuple[] = {kF8F4x2, kF16x2};
constexpr Tokens kToF16x2Tuple[] = {kF16x2, kSmallFloatX2};
constexpr Tokens kTf32Tuple[] = {kTf32, kF32};
constexpr Tokens kRsPairTuple[] = {kHalfPair, kF32};
constexpr Tokens kRsQuadTuple[] = {kQuads, kF32};

constexpr StringRef kRsMessage =
    "'rs' (stochastic rounding) converts from f32, to f16x2, bf16x2, e4m3x4, "
    "e5m2x4, e2m3x4, e3m2x4 or e2m1x4";

constexpr VariantRecord kCvtVariants[] = {
    // Stochastic rounding, on sm_100a to sm_103a from PTX ISA 8.7
    // (measured: not on the family targets, sm_110a or sm_120a).
    {kRsPairTuple, kRsPairSlots, {}, kRsFloors, kCvtRsPairSignature, "rs",
     kRsMessage},
    {kRsQuadTuple, kRsQuadSlots, {}, kRsFloors, kCvtRsQuadSignature, "rs",
     kRsMessage},
    // Packed forms. ue8m0x2 measured with ptxas 13.0: rz or rp, satfinite
    // optional, no relu.
    {kUe8m0FromF32Tuple, kUe8m0Slots, {}, kArch100, kCvtFromTwoF32Signature},
    {kUe8m0FromBf16x2Tuple, kUe8m0Slots, {}, kArch100, kCvtUnarySignature},
    {kFromUe8m0Tuple, kFromUe8m0Slots, {}, kArch100, kCvtUnarySignature},
    {kHalfPairTuple, kHalfPairSlots, {}, kHalfPairFloors,
     kCvtFromTwoF32Signature},
    {kF8FromF32Tuple, kSmallFloatSlots, {}, kF8Floors,
     kCvtFromTwoF32Signature},
    {kF6F4FromF32Tuple, kSmallFloatSlots, {}, kArch100,
     kCvtFromTwoF32Signature},
    {kF8F4FromF16x2Tuple, kSmallFloatSlots, {}, kF8F4FromF16x2Floors,
     kCvtUnarySignature},
    {kToF16x2Tuple, kToF16x2Slots, {}, kToF16x2Floors, kCvtUnarySignature},
    {kTf32Tuple, kTf32Slots, kTf32Rules, kTf32Floors, kCvtTf32Signature},
    // Scalars.
    {kIntIntTuple, kIntIntSlots, {}, {}, kCvtUnarySignature},
    {kIntF32Tuple, kIntFromF32Slots, {}, {}, kCvtUnarySignature},
    {kIntFloatTuple, kIntFromFloatSlots, {}, {}, kCvtUnarySignature},
    {kIntBf16Tuple, kIntFromBf16Slots, {}, kBf16Floors, kCvtUnarySignature},
    {kF32IntTuple, kF32FromIntSlots, {}, {}, kCvtUnarySignature},
    {kFloatIntTuple, kFloatFromIntSlots, {}, {}, kCvtUnarySignature},
    {kBf16IntTuple, kBf16FromIntSlots, {}, kBf16Floors, kCvtUnarySignature},
    {kByteBf16Tuple, kIntFromBf16Slots, {}, kBf16Floors,
     kCvtToByteSignature},
    {kBf16ByteTuple, kBf16FromIntSlots, {}, kBf16Floors,
     kCvtFromByteSignature},
    {kF32F32Tuple, kSameF32Slots, {}, {}, kCvtUnarySignature},
    {kF16F16Tuple, kSameFloatSlots, {}, {}, kCvtUnarySignature},
    {kF64F64Tuple, kSameFloatSlots, {}, {}, kCvtUnarySignature},
    {kBf16Bf16Tuple, kSameBf16Slots, {}, kBf16Floors, kCvtUnarySignature},
    {kF16F32Tuple, kF16FromF32Slots, kF16FromF32Rules, kF16FromF32Floors,
     kCvtUnarySignature},
    {kBf16F32Tuple, kBf16FromF32Slots, kHalfFromF32Rules, kBf16FromF32Floors,
     kCvtUnarySignature},
    {kF16F64Tuple, kF16FromF64Slots, kReluSatfiniteOnlyRules, {},
     kCvtUnarySignature},
    {kBf16F64Tuple, kBf16FromF64Slots, kReluSatfiniteOnlyRules, kBf16Floors,
     kCvtUnarySignature},
    {kF32F64Tuple, kF32FromF64Slots, kReluSatfiniteOnlyRules, {},
     kCvtUnarySignature},
    {kF32F16Tuple, kWidenToF32Slots, {}, {}, kCvtUnarySignature},
    {kF64F16Tuple, kWidenSlots, {}, {}, kCvtUnarySignature},
    {kF64F32Tuple, kWidenToF32Slots, {}, {}, kCvtUnarySignature},
    {kF32Bf16Tuple, kF32FromBf16Slots, {}, kF32FromBf16Floors,
     kCvtUnarySignature},
    {kF64Bf16Tuple, kFromBf16Slots, {}, kBf16Floors, kCvtUnarySignature},
    {kF16Bf16Tuple, kFromBf16Slots, {}, kBf16Floors, kCvtUnarySignature},
    {kBf16F16Tuple, kFromBf16Slots, {}, kBf16Floors, kCvtUnarySignature},
};

/// The two tokens that are cvt's types: the type tokens when there are
/// two, else the last two tokens (so that cvt.rn.f128.f32 says f128 is no
/// destination type).
bool splitCvtTypes(Tokens rest, llvm::SmallVectorImpl<StringRef> &types,
                   llvm::SmallVectorImpl<StringRef> &qualifiers,
                   std::string &error) {
  for (StringRef token : rest)
    (mlir::tile::ptx::detail::lookupType(token) ? types : qualifiers)
        .push_back(token);
  if (types.size() == 2)
    return true;
  if (rest.size() < 2) {
    error = "cvt needs a destination and a source type, e.g. cvt.rn.f16.f32";
    return false;
  }
  types.assign({rest[rest.size() - 2], rest.back()});
  qualifiers.assign(rest.begin(), rest.end() - 2);
  return true;
}

std::string cvtTypeError(Tokens types) {
  std::string context = "cvt." + types[0].str() + "." + types[1].str();
  std::string scalars = llvm::join(Tokens(kCvtScalar), ", ");
  if (!llvm::is_contained(kCvtScalar, types[0]))
    return "'" + types[0].str() +
           "' is not a destination type of cvt: expected one of " + scalars +
           ", or f16x2, bf16x2, tf32, e4m3x2, e5m2x2, e2m3x2, e3m2x2, e2m1x2 "
           "for packed forms";
  if (!llvm::is_contained(kCvtScalar, types[1]))
    return "'" + types[1].str() + "' is not a source type of " + context +
           ": expected one of " + scalars;
  // Every pair of scalar types has a variant; a pair reaches here only if a
  // future record leaves one out.
  return context + " is not a PTX form";
}

//===-- ld, st -------------------------------------------------------------===//

constexpr StringRef kMemTypes[] = {"b8",  "b16", "b32", "b64", "b128",
                                   "u8",  "u16", "u32", "u64", "s8",
                                   "s16", "s32", "s64", "f32", "f64"};
constexpr StringRef kLoadOrders[] = {"weak", "volatile", "relaxed", "acquire"};
constexpr StringRef kStoreOrders[] = {"weak", "volatile", "relaxed",
                                      "release"};
constexpr StringRef kScopes[] = {"cta", "cluster", "gpu", "sys"};
constexpr StringRef kLoadSpaces[] = {"global",          "shared",
                                     "shared::cta",     "shared::cluster",
                                     "local",           "const",
                                     "param"};
constexpr StringRef kStoreSpaces[] = {"global", "shared", "shared::cta",
                                      "shared::cluster", "local", "param"};
constexpr StringRef kLoadCaches[] = {"ca", "cg", "cs", "lu", "cv"};
constexpr StringRef kStoreCaches[] = {"wb", "cg", "cs", "wt"};
constexpr StringRef kNc[] = {"nc"};
constexpr StringRef kMmio[] = {"mmio"};
constexpr StringRef kEvictions[] = {"L1::evict_normal", "L1::evict_unchanged",
                                    "L1::evict_first", "L1::evict_last",
                                    "L1::no_allocate"};
// The L2 eviction priority of a 256-bit access (PTX ISA 8.8, sm_100):
// measured with ptxas 13.0, it combines with every other qualifier of a
// global 256-bit ld or st, L1 priorities, cache operators and .volatile
// included.
constexpr StringRef kL2Evictions[] = {"L2::evict_normal", "L2::evict_first",
                                      "L2::evict_last"};
constexpr StringRef kVectors[] = {"v2", "v4", "v8"};
constexpr StringRef kB8B16[] = {"b8", "b16", "u8", "u16", "s8", "s16"};
constexpr StringRef kMem32[] = {"b32", "u32", "s32", "f32"};
constexpr StringRef kMem64[] = {"b64", "u64", "s64", "f64"};
constexpr StringRef kGlobalOnly[] = {"global"};
constexpr StringRef kWeak[] = {"weak"};
constexpr StringRef kNotVolatile[] = {"weak", "relaxed", "acquire", "release"};
constexpr StringRef kRelaxed[] = {"relaxed"};
constexpr StringRef kSys[] = {"sys"};
constexpr StringRef kOrdered[] = {"relaxed", "acquire", "release"};

constexpr SlotRecord kLoadSlots[] = {
    {"memory ordering", kLoadOrders}, {"scope", kScopes},
    {"state space", kLoadSpaces},     {"cache operator", kLoadCaches},
    {"mmio", kMmio},                  {"nc", kNc},
    {"eviction priority", kEvictions}, {"L2 eviction priority", kL2Evictions},
    {"L2::cache_hint", kCacheHint},   {"prefetch size", kPrefetch},
    {"vector width", kVectors}};
constexpr SlotRecord kStoreSlots[] = {
    {"memory ordering", kStoreOrders}, {"scope", kScopes},
    {"state space", kStoreSpaces},     {"cache operator", kStoreCaches},
    {"mmio", kMmio},                   {"eviction priority", kEvictions},
    {"L2 eviction priority", kL2Evictions},
    {"L2::cache_hint", kCacheHint},    {"vector width", kVectors}};

/// A vector access moves at most 128 bits, or 256 with global (or generic)
/// v8 of 32-bit or v4 of 64-bit elements.
bool vectorTooWide(Tokens types, Tokens chosen) {
  auto has = [&](StringRef token) { return llvm::is_contained(chosen, token); };
  unsigned count = has("v2") ? 2 : has("v4") ? 4 : has("v8") ? 8 : 1;
  unsigned bits = mlir::tile::ptx::detail::lookupType(types[0])->bits;
  unsigned total = count * bits;
  bool globalOrGeneric = llvm::none_of(kLoadSpaces, [&](StringRef space) {
    return space != "global" && has(space);
  });
  return count > 1 && (total > 256 || (total == 256 && (!globalOrGeneric ||
                                                         count == 2)));
}

/// An L2 eviction priority on an access that is not 256 bits wide (v8 of
/// 32-bit or v4 of 64-bit elements), which ptxas rejects.
bool l2EvictionNotWide(Tokens types, Tokens chosen) {
  if (llvm::none_of(kL2Evictions, [&](StringRef token) {
        return llvm::is_contained(chosen, token);
      }))
    return false;
  unsigned bits = mlir::tile::ptx::detail::lookupType(types[0])->bits;
  bool wide = (bits == 32 && llvm::is_contained(chosen, "v8")) ||
              (bits == 64 && llvm::is_contained(chosen, "v4"));
  return !wide;
}

constexpr StringRef kNeedsScope =
    "'{tok}' needs a scope in {ctx}: one of cta, cluster, gpu, sys";
constexpr StringRef kScopeOnly =
    "'{tok}' is a scope, which only relaxed and acquire (ld) or release (st) "
    "accesses take";
// Measured with ptxas 13.0 (sm_80 to sm_100a): .L2::cache_hint takes a
// global or generic address, any ordering but .volatile and no .mmio, and
// combines with every cache operator, L1 and L2 priority and prefetch size.
constexpr StringRef kCacheHintNotVolatile =
    "'L2::cache_hint' cannot be combined with '{other}'";
constexpr StringRef kCannotCombine =
    "'{tok}' cannot be combined with '{other}' in {ctx}";
constexpr StringRef kNcNeedsGlobal =
    "'nc' needs the global state space and no memory ordering";
constexpr StringRef kNcCacheOperator =
    "'{other}' is not a cache operator of ld.global.nc: one of ca, cg, cs";
// Measured with ptxas (CUDA 13.0): .mmio needs .relaxed.sys, a global or
// generic address and one register, and takes no cache hints.
constexpr StringRef kMmioNeedsRelaxedSys = "'mmio' needs relaxed.sys in {ctx}";
constexpr StringRef kMmioNeedsGlobal =
    "'mmio' needs the global or the generic state space";
constexpr StringRef kMmioAlone = "'mmio' cannot be combined with '{other}'";
constexpr StringRef kHintCannotCombine =
    "'{tok}' cannot be combined with '{other}'";
constexpr StringRef kLocalNoOrdering = "local memory takes no memory ordering";
// Measured with ptxas (CUDA 13.0): const and param accesses take .weak at
// most, and no L1 or L2 hints.
constexpr StringRef kWeakAtMost = "{tok} memory takes no memory ordering but weak";
// ptxas takes eviction priorities and prefetch sizes on global and on
// generic addresses (ld.L1::evict_last.b32), not on shared or local ones.
constexpr StringRef kHintNeedsGlobal =
    "'{tok}' needs the global or the generic state space";
constexpr StringRef kB128NotVectorized =
    "'{tok}' is not available for {ctx}: b128 is not vectorized";
constexpr StringRef kL2EvictionNeedsWide =
    "'{tok}' needs a 256-bit access in {ctx}: v8 of 32-bit or v4 of 64-bit "
    "elements";
constexpr StringRef kVectorTooWide =
    "'{tok}' is not available for {ctx}: a vector access moves at most 128 "
    "bits (256 bits with global v8 of 32-bit or v4 of 64-bit elements)";
#define TILE_V8_SMALL(BITS)                                                    \
  "'v8' with " BITS "-bit elements is not supported: PTX defines .v8 for "    \
  "32-bit elements, and ptxas (CUDA 13.0) accepts it but crashes on 16-bit "  \
  "loads and moves one element of 8-bit ones (measured on an H200); use v4 "  \
  "of 32-bit elements over a narrower view"
constexpr StringRef kV8Bytes = TILE_V8_SMALL("8");
constexpr StringRef kV8Halves = TILE_V8_SMALL("16");
#undef TILE_V8_SMALL
constexpr StringRef kByteTypes[] = {"b8", "u8", "s8"};
constexpr StringRef kHalfTypes[] = {"b16", "u16", "s16"};

// One list for ld and st: a rule on a slot or token one of them lacks
// (st's nc, const and prefetch sizes, ld's release) never applies to it.
constexpr RuleRecord kMemoryRules[] = {
    {.kind = RuleRecord::Requires, .token = "relaxed", .other = "scope", .message = kNeedsScope},
    {.kind = RuleRecord::Requires, .token = "acquire", .other = "scope", .message = kNeedsScope},
    {.kind = RuleRecord::Requires, .token = "release", .other = "scope", .message = kNeedsScope},
    {.kind = RuleRecord::RequiresAny, .token = "scope", .message = kScopeOnly, .allowed = kOrdered},
    {.kind = RuleRecord::Excludes, .token = "L2::cache_hint", .other = "volatile", .message = kCacheHintNotVolatile},
    {.kind = RuleRecord::Excludes, .token = "mmio", .other = "L2::cache_hint", .message = kMmioAlone},
    {.kind = RuleRecord::Excludes, .token = "L2::cache_hint", .other = "state space", .message = kHintNeedsGlobal, .allowed = kGlobalOnly},
    {.kind = RuleRecord::Excludes, .token = "cache operator", .other = "memory ordering", .message = kCannotCombine, .allowed = kWeak},
    {.kind = RuleRecord::Excludes, .token = "nc", .other = "memory ordering", .message = kNcNeedsGlobal},
    {.kind = RuleRecord::Requires, .token = "nc", .other = "global", .message = kNcNeedsGlobal},
    {.kind = RuleRecord::Excludes, .token = "nc", .other = "lu", .message = kNcCacheOperator},
    {.kind = RuleRecord::Excludes, .token = "nc", .other = "cv", .message = kNcCacheOperator},
    {.kind = RuleRecord::RequiresAny, .token = "mmio", .message = kMmioNeedsRelaxedSys, .allowed = kRelaxed},
    {.kind = RuleRecord::RequiresAny, .token = "mmio", .message = kMmioNeedsRelaxedSys, .allowed = kSys},
    {.kind = RuleRecord::Excludes, .token = "mmio", .other = "state space", .message = kMmioNeedsGlobal, .allowed = kGlobalOnly},
    {.kind = RuleRecord::Excludes, .token = "mmio", .other = "vector width", .message = kMmioAlone},
    {.kind = RuleRecord::Excludes, .token = "mmio", .other = "eviction priority", .message = kMmioAlone},
    {.kind = RuleRecord::Excludes, .token = "mmio", .other = "prefetch size", .message = kMmioAlone},
    {.kind = RuleRecord::Excludes, .token = "eviction priority", .other = "cache operator", .message = kHintCannotCombine},
    {.kind = RuleRecord::Excludes, .token = "eviction priority", .other = "volatile", .message = kHintCannotCombine},
    {.kind = RuleRecord::Excludes, .token = "local", .other = "memory ordering", .message = kLocalNoOrdering, .allowed = kWeak},
    {.kind = RuleRecord::Excludes, .token = "const", .other = "memory ordering", .message = kWeakAtMost, .allowed = kWeak},
    {.kind = RuleRecord::Excludes, .token = "param", .other = "memory ordering", .message = kWeakAtMost, .allowed = kWeak},
    {.kind = RuleRecord::Excludes, .token = "eviction priority", .other = "state space", .message = kHintNeedsGlobal, .allowed = kGlobalOnly},
    {.kind = RuleRecord::Excludes, .token = "prefetch size", .other = "state space", .message = kHintNeedsGlobal, .allowed = kGlobalOnly},
    {.kind = RuleRecord::Chosen, .token = "vector width", .message = kB128NotVectorized, .types = kB128},
    {.kind = RuleRecord::Hook, .token = "vector width", .message = kVectorTooWide, .holds = vectorTooWide},
    {.kind = RuleRecord::Hook, .token = "L2 eviction priority", .message = kL2EvictionNeedsWide, .holds = l2EvictionNotWide},
    {.kind = RuleRecord::Excludes, .token = "L2 eviction priority", .other = "state space", .message = kHintNeedsGlobal, .allowed = kGlobalOnly},
    {.kind = RuleRecord::Chosen, .token = "v8", .message = kV8Bytes, .types = kByteTypes},
    {.kind = RuleRecord::Chosen, .token = "v8", .message = kV8Halves, .types = kHalfTypes},
};

constexpr FloorRecord kMemoryFloors[] = {
    {70, 83, kB128},
    {70, 84, kB128, "sys"},
    {70, 60, {}, "relaxed"},
    {70, 60, {}, "acquire"},
    {70, 60, {}, "release"},
    {70, 74, {}, "eviction priority"},
    {0, 78, {}, "shared::cta"},
    {90, 78, {}, "cluster"},
    {90, 78, {}, "shared::cluster"},
    // .v8 arrived with PTX ISA 8.8 for every element width (ptxas from CUDA
    // 13.0 crashes on some .v8 loads written with an older .version); 256
    // bits with sm_100.
    {0, 88, {}, "v8"},
    {100, 88, kMem32, "v8"},
    {100, 88, kMem64, "v4"},
    {80, 74, {}, "L2::256B"},
    {75, 74, {}, "L2::128B"},
    {75, 74, {}, "L2::64B"},
    {70, 82, {}, "mmio"},
    {80, 74, {}, "L2::cache_hint"}};


// Measured with ptxas 13.0: a kernel's st.param assembles for sm_75 and
// sm_80 but ends ptxas with SIGSEGV for sm_90 and sm_100a, alone in a
// kernel (in a batch of other lines it sometimes assembles).
constexpr auto kStoreFloors =
    appended(kMemoryFloors,
             FloorRecord{.sm = 0, .ptx = 0, .token = "param", .maxSm = 89});

constexpr Tokens kMemTuple[] = {kMemTypes};
constexpr OperandRecord kLoad[] = {
    {.name = "dst", .role = Role::Dst, .countFrom = "vector width"},
    {.name = "src",
     .role = Role::Src,
     .countFrom = "vector width",
     .spaceFrom = "state space"},
    kCachePolicy};
constexpr OperandRecord kStore[] = {
    {.name = "dst",
     .role = Role::Dst,
     .countFrom = "vector width",
     .spaceFrom = "state space"},
    {.name = "src", .role = Role::Src, .countFrom = "vector width"},
    kCachePolicy};
constexpr Signature kLoadSignature[] = {kLoad};
constexpr Signature kStoreSignature[] = {kStore};
constexpr VariantRecord kLoadVariants[] = {
    {kMemTuple, kLoadSlots, kMemoryRules, kMemoryFloors, kLoadSignature}};
constexpr VariantRecord kStoreVariants[] = {
    {kMemTuple, kStoreSlots, kMemoryRules, kStoreFloors, kStoreSignature}};

//===-- ldu ----------------------------------------------------------------===//

// ldu{.global}{.vec}.type d, [a] (PTX ISA 9.0, 9.7.9.10): a load of data
// that is read-only during the kernel, from an address common to the
// threads of the warp; .global or a generic address. Measured with ptxas
// 13.0: no other state space, ordering, cache operator or eviction priority;
// f16 is not a type; .v2 and .v4 of at most 128 bits ("Vector type too
// large, exceeds 128 bit limit" for .v4.f64 and .v2.b128); .b128 alone.
constexpr StringRef kLduVectors[] = {"v2", "v4"};
constexpr SlotRecord kLduSlots[] = {{"state space", kGlobalOnly},
                                    {"vector width", kLduVectors}};

/// A vector of more than 128 bits (ldu, st.async).
bool vectorWiderThan128(Tokens types, Tokens chosen) {
  unsigned count = llvm::is_contained(chosen, "v2")   ? 2
                   : llvm::is_contained(chosen, "v4") ? 4
                                                      : 1;
  return count * mlir::tile::ptx::detail::lookupType(types[0])->bits > 128;
}

constexpr StringRef kLduVectorTooWide =
    "'{tok}' is not available for {ctx}: an ldu vector moves at most 128 bits";
constexpr RuleRecord kLduRules[] = {
    {.kind = RuleRecord::Chosen, .token = "vector width", .message = kB128NotVectorized, .types = kB128},
    {.kind = RuleRecord::Hook, .token = "vector width", .message = kLduVectorTooWide, .holds = vectorWiderThan128},
};
constexpr FloorRecord kLduFloors[] = {{70, 83, kB128}};
constexpr OperandRecord kLdu[] = {
    {.name = "dst", .role = Role::Dst, .countFrom = "vector width"},
    {.name = "src",
     .role = Role::Src,
     .countFrom = "vector width",
     .spaceFrom = "state space"}};
constexpr Signature kLduSignature[] = {kLdu};
constexpr VariantRecord kLduVariants[] = {
    {kMemTuple, kLduSlots, kLduRules, kLduFloors, kLduSignature}};

//===-- st.async -----------------------------------------------------------===//

// st.async{.weak}{.cluster}{.shared::cluster}.mbarrier::complete_tx::bytes
//     {.vec}.type [a], b, [mbar] (PTX ISA 9.0, 9.7.9.12): stores b into
// shared memory of a block of the cluster (another's, through mapa) and
// completes the bytes' transaction on the mbarrier at mbar, of the same
// block; the writes are seen by a thread that observes the phase complete.
// Measured with ptxas 13.0: sm_90 and PTX 8.1; the qualifiers and the type
// in any order; the completion mechanism required (without it ptxas takes
// the spelling for sm_100's .global form); .weak and .cluster exclusive;
// .v2 and .v4 of at most 128 bits ("Vector type too large, exceeds 128
// bit limit"); the types b, u, s and f of 32 and 64 bits. ptxas also takes
// .shared::cta and .shared, which the ISA does not write: the table keeps
// .shared::cluster (a generic address without it). sm_100's .mmio/.release
// .global form is not in the table.
constexpr StringRef kAsyncStoreTypes[] = {"b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"};
constexpr Tokens kAsyncStoreTuple[] = {kAsyncStoreTypes};
constexpr SlotRecord kAsyncStoreSlots[] = {{"semantics", kWeak},
                                           {"scope", kCluster},
                                           {"state space", kMbarClusterSpace},
                                           {"completion mechanism", kTmaMbarrier, true},
                                           {"vector width", kLduVectors}};
constexpr RuleRecord kAsyncStoreRules[] = {
    {.kind = RuleRecord::Excludes, .token = "semantics", .other = "scope",
     .message = "'{tok}' cannot be combined with '.{other}' in {ctx}: a weak store has no scope"},
    {.kind = RuleRecord::Hook, .token = "vector width",
     .message = "'{tok}' is not available for {ctx}: st.async moves at most 128 bits",
     .holds = vectorWiderThan128}};
constexpr FloorRecord kAsyncStoreFloors[] = {{90, 81}};
constexpr OperandRecord kAsyncStore[] = {
    {.name = "a", .role = Role::Dst, .countFrom = "vector width", .spaceFrom = "state space"},
    {.name = "b", .role = Role::Src, .countFrom = "vector width"},
    {.name = "mbar", .role = Role::Dst, .fixedType = "b64", .spaceFrom = "state space"}};
constexpr Signature kAsyncStoreSignature[] = {kAsyncStore};
constexpr VariantRecord kAsyncStoreVariants[] = {
    {kAsyncStoreTuple, kAsyncStoreSlots, kAsyncStoreRules, kAsyncStoreFloors, kAsyncStoreSignature}};

//===-- red.async ----------------------------------------------------------===//

// red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes
//     .op.type [a], b, [mbar] (PTX ISA 9.0, 9.7.13.7): an atomic reduction
// of b into shared memory of a block of the cluster, whose bytes'
// transaction completes on the mbarrier at mbar of that block. The ISA's
// operations by type: and, or, xor on b32; inc, dec on u32; min, max on u32
// and s32; add on u32, s32 and u64. Measured with ptxas 13.0: sm_90 and
// PTX 8.1; .relaxed and .cluster required ("order modifier required",
// "Modifier '.relaxed' requires scope"), the completion mechanism too; the
// qualifiers in any order; no vector ("Vector qualifier is not allowed").
// ptxas also takes add.s64, which the ISA does not write: the table keeps
// the ISA's types. sm_100's .mmio/.release .global form is not in the table.
constexpr StringRef kAsyncRedBitOps[] = {"and", "or", "xor"};
constexpr StringRef kAsyncRedU32Ops[] = {"inc", "dec", "min", "max", "add"};
constexpr StringRef kU64Only[] = {"u64"};
constexpr StringRef kS32Only[] = {"s32"};
constexpr StringRef kU32Only[] = {"u32"};
constexpr Tokens kAsyncRedU32Tuple[] = {kU32Only};
constexpr Tokens kAsyncRedS32Tuple[] = {kS32Only};
constexpr Tokens kAsyncRedU64Tuple[] = {kU64Only};
#define ASYNC_RED_SLOTS(ops)                                                   \
  {{"semantics", kRelaxed, true},                                              \
   {"scope", kCluster, true},                                                  \
   {"state space", kMbarClusterSpace},                                         \
   {"completion mechanism", kTmaMbarrier, true},                               \
   {"operation", ops, true}}
constexpr SlotRecord kAsyncRedBitSlots[] = ASYNC_RED_SLOTS(kAsyncRedBitOps);
constexpr SlotRecord kAsyncRedU32Slots[] = ASYNC_RED_SLOTS(kAsyncRedU32Ops);
constexpr SlotRecord kAsyncRedS32Slots[] = ASYNC_RED_SLOTS(kAtomAddMinMax);
constexpr SlotRecord kAsyncRedU64Slots[] = ASYNC_RED_SLOTS(kAtomAdd);
#undef ASYNC_RED_SLOTS
constexpr OperandRecord kAsyncRed[] = {
    {.name = "a", .role = Role::Dst, .spaceFrom = "state space"},
    {.name = "b", .role = Role::Src},
    {.name = "mbar", .role = Role::Dst, .fixedType = "b64", .spaceFrom = "state space"}};
constexpr Signature kAsyncRedSignature[] = {kAsyncRed};
constexpr VariantRecord kAsyncRedVariants[] = {
    {kB32OnlyTuple, kAsyncRedBitSlots, {}, kAsyncStoreFloors, kAsyncRedSignature},
    {kAsyncRedU32Tuple, kAsyncRedU32Slots, {}, kAsyncStoreFloors, kAsyncRedSignature},
    {kAsyncRedS32Tuple, kAsyncRedS32Slots, {}, kAsyncStoreFloors, kAsyncRedSignature},
    {kAsyncRedU64Tuple, kAsyncRedU64Slots, {}, kAsyncStoreFloors, kAsyncRedSignature}};

//===-- isspacep, cvta, getctarank -----------------------------------------===//

// Addresses read as values (Form::addressValue): the memory operand's
// address is the operand, written without brackets, and no byte there is
// read or written (PTX ISA 9.0, 9.7.9.21-9.7.9.23 and 9.7.9.20).
//   isspacep.space p, a: whether the generic address a falls in the window
//     of the state space (.shared::cluster: any block's of the cluster;
//     .shared and .shared::cta: the executing block's).
//   cvta.space.u64 p, a: a's address in the state space as a generic one;
//   cvta.to.space.u64 p, a: the generic address a as one in the space.
//   getctarank{.shared::cluster}.type d, a: the rank in the cluster of the
//     block whose shared memory holds a (generic without the space).
// Measured with ptxas 13.0: one state space required, once; .to only right
// after cvta ("Unknown modifier '.to'" elsewhere); .param and
// .param::entry from PTX 7.7 and 8.3, .shared::cta from 7.8,
// .shared::cluster from sm_90 and 7.8, getctarank from sm_90 and 7.8, its
// qualifiers in either order. cvta takes .u64 alone under .address_size
// 64 (.u32 is "32-Bit ABI"), the only size tile-mlir emits; getctarank
// takes .u32 with a 32-bit register, which a tile's 64-bit address is not
// (tools/ptxas_diff explains it).
constexpr StringRef kAddressSpaces[] = {"const", "global", "local", "shared", "shared::cta", "shared::cluster",
                                        "param", "param::entry"};
constexpr SlotRecord kAddressSpaceSlots[] = {{"state space", kAddressSpaces, true}};
constexpr FloorRecord kAddressSpaceFloors[] = {{0, 77, {}, "param"},
                                               {0, 83, {}, "param::entry"},
                                               {0, 78, {}, "shared::cta"},
                                               {90, 78, {}, "shared::cluster"}};
constexpr OperandRecord kIsspacep[] = {
    {.name = "p", .role = Role::Dst, .fixedType = "pred"},
    {.name = "a", .role = Role::Src, .space = Space::Generic, .fixedType = "b8"}};
constexpr Signature kIsspacepSignature[] = {kIsspacep};
constexpr VariantRecord kIsspacepVariants[] = {
    {.slots = kAddressSpaceSlots, .floors = kAddressSpaceFloors, .signatures = kIsspacepSignature}};
constexpr Tokens kCvtaTuple[] = {kU64Only};
constexpr OperandRecord kCvtaToGeneric[] = {
    {.name = "p", .role = Role::Dst, .fixedType = "u64"},
    {.name = "a", .role = Role::Src, .fixedType = "b8", .spaceFrom = "state space"}};
constexpr OperandRecord kCvtaToSpace[] = {
    {.name = "p", .role = Role::Dst, .fixedType = "u64"},
    {.name = "a", .role = Role::Src, .space = Space::Generic, .fixedType = "b8"}};
constexpr Signature kCvtaToGenericSignature[] = {kCvtaToGeneric};
constexpr Signature kCvtaToSpaceSignature[] = {kCvtaToSpace};
constexpr VariantRecord kCvtaVariants[] = {
    {kCvtaTuple, kAddressSpaceSlots, {}, kAddressSpaceFloors, kCvtaToGenericSignature}};
constexpr VariantRecord kCvtaToVariants[] = {
    {kCvtaTuple, kAddressSpaceSlots, {}, kAddressSpaceFloors, kCvtaToSpaceSignature}};
constexpr SlotRecord kCtaRankSlots[] = {{"state space", kMbarClusterSpace}};
constexpr FloorRecord kCtaRankFloors[] = {{90, 78}};
constexpr OperandRecord kCtaRank[] = {
    {.name = "d", .role = Role::Dst, .fixedType = "u32"},
    {.name = "a", .role = Role::Src, .fixedType = "b8", .spaceFrom = "state space"}};
constexpr Signature kCtaRankSignature[] = {kCtaRank};
constexpr VariantRecord kCtaRankVariants[] = {
    {kCvtaTuple, kCtaRankSlots, {}, kCtaRankFloors, kCtaRankSignature}};

//===-- multimem -----------------------------------------------------------===//

// multimem.ld_reduce, multimem.st and multimem.red (PTX ISA 9.0, 9.7.9.14):
// a load-reduce, a store and a reduction on every memory location a
// multimem address names (one per GPU of an NVLink multicast object).
// .global or a generic address; sm_90, PTX 8.1. Measured with ptxas 13.0:
// the semantics .weak (ld_reduce, st), .relaxed, .acquire (ld_reduce) or
// .release (st, red), each but .weak with a scope and a scope only with
// one; the operations by type: and/or/xor on b32/b64, add on u32/u64/s32,
// min/max on u32/u64/s32/s64; floats: add on f16 and bf16 (vectors of 2,
// 4 or 8 required), f16x2 and bf16x2 (1, 2 or 4), f32 (1, 2 or 4) and f64,
// min/max on the 16-bit ones only (red's pairs as vectors only),
// .acc::f32 on ld_reduce's 16-bit adds (PTX 8.2); st takes the same float
// types and vectors, and the six integer types alone. ptxas also takes .acc::f16/.acc::f32 on any red,
// which the ISA does not write: the table keeps the ISA's.
constexpr StringRef kMultimemLoadSems[] = {"weak", "relaxed", "acquire"};
constexpr StringRef kMultimemStoreSems[] = {"weak", "relaxed", "release"};
constexpr StringRef kMultimemRedSems[] = {"relaxed", "release"};
constexpr StringRef kMultimemBitTypes[] = {"b32", "b64"};
constexpr StringRef kMultimemAddTypes[] = {"u32", "u64", "s32"};
constexpr StringRef kMultimemS64[] = {"s64"};
constexpr StringRef kMultimemIntTypes[] = {"b32", "b64", "u32", "u64", "s32", "s64"};
constexpr StringRef kMultimemHalves[] = {"f16", "bf16"};
constexpr StringRef kMultimemPairs[] = {"f16x2", "bf16x2"};
constexpr StringRef kMultimemF32[] = {"f32"};
constexpr StringRef kMultimemF64[] = {"f64"};
constexpr StringRef kMultimemBitOps[] = {"and", "or", "xor"};
constexpr StringRef kMultimemMinMax[] = {"min", "max"};
constexpr StringRef kMultimemAccF32[] = {"acc::f32"};
constexpr StringRef kMultimemPairVectors[] = {"v2", "v4"};
constexpr Tokens kMultimemBitTuple[] = {kMultimemBitTypes};
constexpr Tokens kMultimemAddTuple[] = {kMultimemAddTypes};
constexpr Tokens kMultimemS64Tuple[] = {kMultimemS64};
constexpr Tokens kMultimemIntTuple[] = {kMultimemIntTypes};
constexpr Tokens kMultimemHalfTuple[] = {kMultimemHalves};
constexpr Tokens kMultimemPairTuple[] = {kMultimemPairs};
constexpr Tokens kMultimemF32Tuple[] = {kMultimemF32};
constexpr Tokens kMultimemF64Tuple[] = {kMultimemF64};
#define MULTIMEM_SLOTS(sems, ...)                                              \
  {{"semantics", sems}, {"scope", kFenceScopes}, {"state space", kGlobal}, __VA_ARGS__}
constexpr SlotRecord kMultimemLoadBitSlots[] = MULTIMEM_SLOTS(kMultimemLoadSems, {"operation", kMultimemBitOps, true});
constexpr SlotRecord kMultimemLoadAddSlots[] = MULTIMEM_SLOTS(kMultimemLoadSems, {"operation", kAtomAddMinMax, true});
constexpr SlotRecord kMultimemLoadMinMaxSlots[] = MULTIMEM_SLOTS(kMultimemLoadSems,
                                                                 {"operation", kMultimemMinMax, true});
constexpr SlotRecord kMultimemLoadHalfSlots[] = MULTIMEM_SLOTS(
    kMultimemLoadSems, {"operation", kAtomAddMinMax, true}, {"accumulation", kMultimemAccF32},
    {"vector width", kVectors, true});
constexpr SlotRecord kMultimemLoadPairSlots[] = MULTIMEM_SLOTS(
    kMultimemLoadSems, {"operation", kAtomAddMinMax, true}, {"accumulation", kMultimemAccF32},
    {"vector width", kMultimemPairVectors});
constexpr SlotRecord kMultimemLoadF32Slots[] = MULTIMEM_SLOTS(kMultimemLoadSems, {"operation", kAtomAdd, true},
                                                              {"vector width", kMultimemPairVectors});
constexpr SlotRecord kMultimemLoadF64Slots[] = MULTIMEM_SLOTS(kMultimemLoadSems, {"operation", kAtomAdd, true});
constexpr SlotRecord kMultimemRedBitSlots[] = MULTIMEM_SLOTS(kMultimemRedSems, {"operation", kMultimemBitOps, true});
constexpr SlotRecord kMultimemRedAddSlots[] = MULTIMEM_SLOTS(kMultimemRedSems, {"operation", kAtomAddMinMax, true});
constexpr SlotRecord kMultimemRedMinMaxSlots[] = MULTIMEM_SLOTS(kMultimemRedSems,
                                                                {"operation", kMultimemMinMax, true});
constexpr SlotRecord kMultimemRedHalfSlots[] = MULTIMEM_SLOTS(kMultimemRedSems, {"operation", kAtomAddMinMax, true},
                                                              {"vector width", kVectors, true});
constexpr SlotRecord kMultimemRedPairSlots[] = MULTIMEM_SLOTS(kMultimemRedSems, {"operation", kAtomAddMinMax, true},
                                                              {"vector width", kMultimemPairVectors});
constexpr SlotRecord kMultimemRedF32Slots[] = MULTIMEM_SLOTS(kMultimemRedSems, {"operation", kAtomAdd, true},
                                                             {"vector width", kMultimemPairVectors});
constexpr SlotRecord kMultimemRedF64Slots[] = MULTIMEM_SLOTS(kMultimemRedSems, {"operation", kAtomAdd, true});
constexpr SlotRecord kMultimemStoreIntSlots[] = MULTIMEM_SLOTS(kMultimemStoreSems);
constexpr SlotRecord kMultimemStoreHalfSlots[] = MULTIMEM_SLOTS(kMultimemStoreSems, {"vector width", kVectors, true});
constexpr SlotRecord kMultimemStorePairSlots[] = MULTIMEM_SLOTS(kMultimemStoreSems,
                                                                {"vector width", kMultimemPairVectors});
#undef MULTIMEM_SLOTS
constexpr StringRef kMultimemScopeNeedsOrder =
    "'{tok}' needs a semantics in {ctx}: .relaxed, .acquire or .release with a scope";
constexpr RuleRecord kMultimemRules[] = {
    {.kind = RuleRecord::Excludes, .token = "weak", .other = "scope",
     .message = "'{tok}' cannot be combined with '.{other}' in {ctx}: a weak access has no scope"},
    {.kind = RuleRecord::Requires, .token = "scope", .other = "semantics", .message = kMultimemScopeNeedsOrder},
    {.kind = RuleRecord::Requires, .token = "relaxed", .other = "scope",
     .message = "'{tok}' needs a scope in {ctx} (.cta, .cluster, .gpu or .sys)"},
    {.kind = RuleRecord::Requires, .token = "acquire", .other = "scope",
     .message = "'{tok}' needs a scope in {ctx} (.cta, .cluster, .gpu or .sys)"},
    {.kind = RuleRecord::Requires, .token = "release", .other = "scope",
     .message = "'{tok}' needs a scope in {ctx} (.cta, .cluster, .gpu or .sys)"},
    {.kind = RuleRecord::Excludes, .token = "accumulation", .other = "operation",
     .message = "'{tok}' cannot be combined with '.{other}' in {ctx}: it is the accumulation of an add",
     .allowed = kAtomAdd}};
// red's min and max of f16x2 and bf16x2 take a vector ("multimem.red.min.
// f16x2" alone is refused; its .v2 and .v4 are taken).
constexpr RuleRecord kMultimemRedPairRules[] = {
    kMultimemRules[0], kMultimemRules[1], kMultimemRules[2], kMultimemRules[3], kMultimemRules[4],
    {.kind = RuleRecord::Requires, .token = "min", .other = "vector width",
     .message = "'{tok}' of {ctx} takes a vector (.v2 or .v4)"},
    {.kind = RuleRecord::Requires, .token = "max", .other = "vector width",
     .message = "'{tok}' of {ctx} takes a vector (.v2 or .v4)"}};
constexpr FloorRecord kMultimemFloors[] = {{90, 81}, {90, 82, {}, "acc::f32"}};
constexpr OperandRecord kMultimemLoad[] = {
    {.name = "d", .role = Role::Dst, .countFrom = "vector width"},
    {.name = "a", .role = Role::Src, .countFrom = "vector width", .spaceFrom = "state space"}};
constexpr OperandRecord kMultimemStore[] = {
    {.name = "a", .role = Role::Dst, .countFrom = "vector width", .spaceFrom = "state space"},
    {.name = "b", .role = Role::Src, .countFrom = "vector width"}};
constexpr Signature kMultimemLoadSignature[] = {kMultimemLoad};
constexpr Signature kMultimemStoreSignature[] = {kMultimemStore};
// multimem.red [a], b takes red's vector operands (kRedVectorSignature).
#define MULTIMEM(tuple, slots, signature) {tuple, slots, kMultimemRules, kMultimemFloors, signature}
constexpr VariantRecord kMultimemLoadVariants[] = {
    MULTIMEM(kMultimemBitTuple, kMultimemLoadBitSlots, kMultimemLoadSignature),
    MULTIMEM(kMultimemAddTuple, kMultimemLoadAddSlots, kMultimemLoadSignature),
    MULTIMEM(kMultimemS64Tuple, kMultimemLoadMinMaxSlots, kMultimemLoadSignature),
    MULTIMEM(kMultimemHalfTuple, kMultimemLoadHalfSlots, kMultimemLoadSignature),
    MULTIMEM(kMultimemPairTuple, kMultimemLoadPairSlots, kMultimemLoadSignature),
    MULTIMEM(kMultimemF32Tuple, kMultimemLoadF32Slots, kMultimemLoadSignature),
    MULTIMEM(kMultimemF64Tuple, kMultimemLoadF64Slots, kMultimemLoadSignature)};
constexpr VariantRecord kMultimemRedVariants[] = {
    MULTIMEM(kMultimemBitTuple, kMultimemRedBitSlots, kRedVectorSignature),
    MULTIMEM(kMultimemAddTuple, kMultimemRedAddSlots, kRedVectorSignature),
    MULTIMEM(kMultimemS64Tuple, kMultimemRedMinMaxSlots, kRedVectorSignature),
    MULTIMEM(kMultimemHalfTuple, kMultimemRedHalfSlots, kRedVectorSignature),
    {kMultimemPairTuple, kMultimemRedPairSlots, kMultimemRedPairRules, kMultimemFloors, kRedVectorSignature},
    MULTIMEM(kMultimemF32Tuple, kMultimemRedF32Slots, kRedVectorSignature),
    MULTIMEM(kMultimemF64Tuple, kMultimemRedF64Slots, kRedVectorSignature)};
constexpr VariantRecord kMultimemStoreVariants[] = {
    MULTIMEM(kMultimemIntTuple, kMultimemStoreIntSlots, kMultimemStoreSignature),
    MULTIMEM(kMultimemHalfTuple, kMultimemStoreHalfSlots, kMultimemStoreSignature),
    MULTIMEM(kMultimemPairTuple, kMultimemStorePairSlots, kMultimemStoreSignature),
    MULTIMEM(kMultimemF32Tuple, kMultimemStorePairSlots, kMultimemStoreSignature),
    MULTIMEM(kMultimemF64Tuple, kMultimemStoreIntSlots, kMultimemStoreSignature)};
#undef MULTIMEM

//===-- tensormap.cp_fenceproxy --------------------------------------------===//

// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release
//     .scope.sync.aligned [dst], [src], 128 (PTX ISA 9.0, 9.7.9.26): copies
// a 128-byte tensor map from shared memory to global memory and fences the
// copy for the tensormap proxy (a TMA that acquires the map then reads
// it). Measured with ptxas 13.0: sm_90 and PTX 8.3; every qualifier
// required (".sync modifier required", ".release modifier required",
// ".tensormap::generic modifier required"), the scope one of cta,
// cluster, gpu and sys; the destination space before the source's; the
// other qualifiers in any order; 128 the only size.
constexpr StringRef kTensormapProxy[] = {"tensormap::generic"};
constexpr SlotRecord kTensormapCopySlots[] = {{"destination state space", kGlobal, true},
                                              {"source state space", kTmaStoreSrc, true},
                                              {"proxy kind", kTensormapProxy, true},
                                              {"semantics", kRelease, true},
                                              {"scope", kFenceScopes, true},
                                              {"sync", kSync, true},
                                              {"aligned", kAligned, true}};
constexpr RuleRecord kTensormapCopyRules[] = {
    {RuleRecord::Before, "global", "shared::cta", 0,
     "'shared::cta' must follow the destination space in {ctx}: the copy names its destination first "
     "(tensormap.cp_fenceproxy.global.shared::cta)"}};
constexpr unsigned kTensormapCopyBytes[] = {128};
constexpr OperandRecord kTensormapCopy[] = {
    {.name = "dst", .role = Role::Dst, .fixedType = "b8", .sizedBy = "size", .spaceFrom = "destination state space"},
    {.name = "src", .role = Role::Src, .fixedType = "b8", .sizedBy = "size", .spaceFrom = "source state space"},
    {.name = "size", .role = Role::Imm, .fixedType = "b32", .immediates = kTensormapCopyBytes}};
constexpr Signature kTensormapCopySignature[] = {kTensormapCopy};
constexpr VariantRecord kTensormapCopyVariants[] = {
    {.slots = kTensormapCopySlots, .rules = kTensormapCopyRules, .floors = kSm90Ptx83,
     .signatures = kTensormapCopySignature}};

//===-- tensormap.replace --------------------------------------------------===//

// tensormap.replace.tile.field{.ss}.b1024.type [addr], {ord,} new_val (PTX
// ISA 9.0, 9.7.9.27): one field of the 128-byte tensor map at addr (in
// global or shared::cta memory, or a generic address), edited in place
// (a grouped GEMM points one map at each expert). Measured with ptxas
// 13.0: sm_90a (arch- or family-specific targets from it) and PTX 8.3;
// .tile and .b1024 required ("'.tile modifier required", "Tensormap size
// modifier required"), every qualifier in any order, each once; .b64 for
// global_address and global_stride, .b32 for the others ("Illegal
// modifier ... with type"); ord (box_dim, global_dim, global_stride,
// element_stride) an immediate 0 to 4; new_val a register for the sizes,
// the address and the rank, an immediate for the enumerated fields, of
// ptxas's ranges: elemtype 0-12, interleave_layout 0-2, swizzle_mode 0-3,
// fill_mode 0-1, swizzle_atomicity 0-3 (sm_100a and PTX 8.6). The map's
// operand names its first byte.
constexpr StringRef kTile[] = {"tile"};
constexpr StringRef kB1024[] = {"b1024"};
constexpr StringRef kReplaceSpaces[] = {"global", "shared::cta"};
constexpr StringRef kReplaceFields[] = {"global_address", "rank", "global_stride", "box_dim", "global_dim",
                                        "element_stride", "elemtype", "interleave_layout", "swizzle_mode",
                                        "fill_mode", "swizzle_atomicity"};
#define TENSORMAP_MAP {.name = "addr", .role = Role::Dst, .fixedType = "b8", .spaceFrom = "state space"}
#define TENSORMAP_ORD {.name = "ord", .role = Role::Imm, .fixedType = "b32", .maxImmediate = 4}
#define TENSORMAP_ENUM(most) {.name = "new_val", .role = Role::Imm, .fixedType = "b32", .maxImmediate = most}
constexpr OperandRecord kReplaceValue[] = {TENSORMAP_MAP, {.name = "new_val", .role = Role::Src}};
constexpr OperandRecord kReplaceOrdinal[] = {TENSORMAP_MAP, TENSORMAP_ORD, {.name = "new_val", .role = Role::Src}};
constexpr OperandRecord kReplaceElemtype[] = {TENSORMAP_MAP, TENSORMAP_ENUM(12)};
constexpr OperandRecord kReplaceInterleave[] = {TENSORMAP_MAP, TENSORMAP_ENUM(2)};
constexpr OperandRecord kReplaceSwizzle[] = {TENSORMAP_MAP, TENSORMAP_ENUM(3)};
constexpr OperandRecord kReplaceFill[] = {TENSORMAP_MAP, TENSORMAP_ENUM(1)};
#undef TENSORMAP_MAP
#undef TENSORMAP_ORD
#undef TENSORMAP_ENUM
constexpr Signature kReplaceValueSignature[] = {kReplaceValue};
constexpr Signature kReplaceOrdinalSignature[] = {kReplaceOrdinal};
constexpr Signature kReplaceElemtypeSignature[] = {kReplaceElemtype};
constexpr Signature kReplaceInterleaveSignature[] = {kReplaceInterleave};
constexpr Signature kReplaceSwizzleSignature[] = {kReplaceSwizzle};
constexpr Signature kReplaceFillSignature[] = {kReplaceFill};
constexpr FloorRecord kReplaceFloors[] = {{.sm = 90, .ptx = 83, .archSpecific = true}};
constexpr FloorRecord kReplaceAtomicityFloors[] = {{.sm = 100, .ptx = 86, .archSpecific = true}};
constexpr Tokens kReplaceB64Tuple[] = {kB64Only};
constexpr Tokens kReplaceB32Tuple[] = {kB32Only};
// One variant a field (its token selects it): the field's type, operands
// and floors.
#define TENSORMAP_FIELD(FIELD, TUPLE, FLOORS, SIGNATURE, TYPE)                 \
  {.types = TUPLE,                                                             \
   .slots = kReplaceSlots,                                                     \
   .floors = FLOORS,                                                           \
   .signatures = SIGNATURE,                                                    \
   .whenToken = FIELD,                                                         \
   .whenMessage = "tensormap.replace." FIELD " takes ." TYPE ", not .{type}"}
constexpr SlotRecord kReplaceSlots[] = {{"mode", kTile, true},
                                        {"field", kReplaceFields, true},
                                        {"state space", kReplaceSpaces},
                                        {"size", kB1024, true}};
constexpr VariantRecord kTensormapReplaceVariants[] = {
    TENSORMAP_FIELD("global_address", kReplaceB64Tuple, kReplaceFloors, kReplaceValueSignature, "b64"),
    TENSORMAP_FIELD("rank", kReplaceB32Tuple, kReplaceFloors, kReplaceValueSignature, "b32"),
    TENSORMAP_FIELD("global_stride", kReplaceB64Tuple, kReplaceFloors, kReplaceOrdinalSignature, "b64"),
    TENSORMAP_FIELD("box_dim", kReplaceB32Tuple, kReplaceFloors, kReplaceOrdinalSignature, "b32"),
    TENSORMAP_FIELD("global_dim", kReplaceB32Tuple, kReplaceFloors, kReplaceOrdinalSignature, "b32"),
    TENSORMAP_FIELD("element_stride", kReplaceB32Tuple, kReplaceFloors, kReplaceOrdinalSignature, "b32"),
    TENSORMAP_FIELD("elemtype", kReplaceB32Tuple, kReplaceFloors, kReplaceElemtypeSignature, "b32"),
    TENSORMAP_FIELD("interleave_layout", kReplaceB32Tuple, kReplaceFloors, kReplaceInterleaveSignature, "b32"),
    TENSORMAP_FIELD("swizzle_mode", kReplaceB32Tuple, kReplaceFloors, kReplaceSwizzleSignature, "b32"),
    TENSORMAP_FIELD("fill_mode", kReplaceB32Tuple, kReplaceFloors, kReplaceFillSignature, "b32"),
    TENSORMAP_FIELD("swizzle_atomicity", kReplaceB32Tuple, kReplaceAtomicityFloors, kReplaceSwizzleSignature, "b32")};
#undef TENSORMAP_FIELD

/// A spelling with no field's token selects no variant: the field is what
/// is missing, whatever its types.
std::string tensormapReplaceTypeError(Tokens) {
  return "tensormap.replace needs a field: one of global_address, rank, global_stride, box_dim, global_dim, "
         "element_stride, elemtype, interleave_layout, swizzle_mode, fill_mode, swizzle_atomicity";
}

//===-- createpolicy -------------------------------------------------------===//

// PTX ISA 9.0, 9.7.9.17: createpolicy.fractional, .range{.global} and
// .cvt.L2 make the 64-bit cache policy that .L2::cache_hint accesses take.
// Measured with ptxas 13.0 (sm_80, PTX ISA 7.4, to sm_100a): a primary
// priority is required; a second priority token is the secondary one
// (evict_first or evict_unchanged only); qualifiers and type in any order
// after the family's name; .b64 only; the fraction, when written, is an f32
// register or an immediate in (0, 1] (1.0 when none is written); the range's
// sizes are 32-bit registers or immediates.
constexpr StringRef kPrimaryPriorities[] = {
    "L2::evict_last", "L2::evict_normal", "L2::evict_first",
    "L2::evict_unchanged"};
constexpr StringRef kSecondaryPriorities[] = {"L2::evict_first",
                                              "L2::evict_unchanged"};
constexpr SlotRecord kFractionalPolicySlots[] = {
    {"primary priority", kPrimaryPriorities, true},
    {"secondary priority", kSecondaryPriorities}};
constexpr SlotRecord kRangePolicySlots[] = {
    {"state space", kGlobalOnly},
    {"primary priority", kPrimaryPriorities, true},
    {"secondary priority", kSecondaryPriorities}};
constexpr SlotRecord kCvtPolicySlots[] = {{"level", kL2Level, true}};
constexpr FloorRecord kPolicyFloors[] = {{80, 74}};
constexpr OperandRecord kPolicyResult = {.name = "cache-policy",
                                         .role = Role::Dst};
constexpr OperandRecord kPolicyWhole[] = {kPolicyResult};
constexpr OperandRecord kPolicyFraction[] = {
    kPolicyResult, {.name = "fraction", .role = Role::Src, .fixedType = "f32"}};
constexpr OperandRecord kPolicyRange[] = {
    kPolicyResult,
    {.name = "a", .role = Role::Src, .fixedType = "b64", .address = true},
    {.name = "primary-size", .role = Role::Src, .fixedType = "b32"},
    {.name = "total-size", .role = Role::Src, .fixedType = "b32"}};
constexpr OperandRecord kPolicyCvt[] = {
    kPolicyResult, {.name = "access-property", .role = Role::Src}};
constexpr Signature kFractionalPolicySignatures[] = {kPolicyWhole,
                                                     kPolicyFraction};
constexpr Signature kRangePolicySignature[] = {kPolicyRange};
constexpr Signature kCvtPolicySignature[] = {kPolicyCvt};
constexpr VariantRecord kFractionalPolicyVariants[] = {
    {kB64Tuple, kFractionalPolicySlots, {}, kPolicyFloors,
     kFractionalPolicySignatures}};
constexpr VariantRecord kRangePolicyVariants[] = {
    {kB64Tuple, kRangePolicySlots, {}, kPolicyFloors, kRangePolicySignature}};
constexpr VariantRecord kCvtPolicyVariants[] = {
    {kB64Tuple, kCvtPolicySlots, {}, kPolicyFloors, kCvtPolicySignature}};

//===-- cvt.pack -----------------------------------------------------------===//

// cvt.pack.sat.{u16,s16}.s32 d, a, b and
// cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c: a and b saturate to
// the narrow type and pack into the low bits of d (a above b); c fills the
// rest.
constexpr StringRef kPackWide[] = {"u16", "s16"};
constexpr StringRef kPackNarrow[] = {"u8", "s8", "u4", "s4", "u2", "s2"};
constexpr StringRef kPackNibbles[] = {"u4", "s4", "u2", "s2"};
constexpr StringRef kPackDestinations[] = {"u16", "s16", "u8", "s8",
                                           "u4",  "s4",  "u2", "s2"};
constexpr Tokens kPackWideTuple[] = {kPackWide, kS32Only};
constexpr Tokens kPackNarrowTuple[] = {kPackNarrow, kS32Only, kB32Only};
constexpr SlotRecord kPackSlots[] = {{"sat", kSat}};
constexpr RuleRecord kPackRules[] = {
    {RuleRecord::Absent, "sat", {}, 0,
     "cvt.pack needs 'sat': its conversions always saturate"}};
constexpr FloorRecord kPackFloors[] = {{72, 65}, {75, 65, kPackNibbles}};
constexpr OperandRecord kPackTwo[] = {
    {.name = "dst",
     .role = Role::Dst,
     .fixedType = "u32",
     .saturationBy = "sat"},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource},
    {.name = "src1", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource}};
constexpr OperandRecord kPackThree[] = {
    {.name = "dst",
     .role = Role::Dst,
     .fixedType = "u32",
     .saturationBy = "sat"},
    {.name = "src", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource},
    {.name = "src1", .role = Role::Src, .typeIndex = 1, .fold = Fold::CvtSource},
    {.name = "src2", .role = Role::Src, .typeIndex = 2, .fold = Fold::CvtSource}};
constexpr Signature kPackTwoSignature[] = {kPackTwo};
constexpr Signature kPackThreeSignature[] = {kPackThree};
constexpr VariantRecord kCvtPackVariants[] = {
    {kPackWideTuple, kPackSlots, kPackRules, kPackFloors, kPackTwoSignature},
    {kPackNarrowTuple, kPackSlots, kPackRules, kPackFloors,
     kPackThreeSignature}};

std::string cvtPackTypeError(Tokens types) {
  if (types.empty() || !llvm::is_contained(kPackDestinations, types[0]))
    return "cvt.pack needs a destination type: one of " +
           llvm::join(Tokens(kPackDestinations), ", ");
  bool wide = llvm::is_contained(kPackWide, types[0]);
  return "cvt.pack." + types[0].str() + " takes the source types " +
         (wide ? "s32" : "s32.b32") + ", got '" +
         llvm::join(types.drop_front(), ".") + "'";
}

//===-- min, max -----------------------------------------------------------===//

// Measured with ptxas 13.0 (tools/ptxas_diff): .relu on s32 and s16x2 only,
// xorsign and abs only together with two inputs, abs alone and no xorsign
// with three (f32 only, sm_100 and PTX ISA 8.8), no ftz on bf16, no
// qualifier on f64; qualifiers in any order.
constexpr StringRef kMinIntTypes[] = {"u16", "u32", "u64",   "s16",
                                      "s32", "s64", "u16x2", "s16x2"};
constexpr StringRef kReluTypes[] = {"s32", "s16x2"};
constexpr Tokens kMinIntTuple[] = {kMinIntTypes};
constexpr SlotRecord kMinIntSlots[] = {{"relu", kRelu, false, kReluTypes}};
constexpr FloorRecord kMinIntFloors[] = {{90, 80, kSimd16},
                                         {90, 80, {}, "relu"}};
constexpr VariantRecord kMinInt = {kMinIntTuple, kMinIntSlots, {},
                                   kMinIntFloors, kBinarySignature};

constexpr StringRef kMinFloatTypes[] = {"f32",   "f64",  "f16",
                                        "f16x2", "bf16", "bf16x2"};
constexpr StringRef kNotF64[] = {"f32", "f16", "f16x2", "bf16", "bf16x2"};
constexpr StringRef kMinFtzTypes[] = {"f32", "f16", "f16x2"};
constexpr StringRef kHalfAndBf16[] = {"f16", "f16x2", "bf16", "bf16x2"};
constexpr StringRef kNaN[] = {"NaN"};
constexpr StringRef kXorsign[] = {"xorsign"};
constexpr StringRef kAbsToken[] = {"abs"};
constexpr Tokens kMinFloatTuple[] = {kMinFloatTypes};
constexpr SlotRecord kMinFloatSlots[] = {
    {"ftz", kFtz, false, kMinFtzTypes},
    {"NaN", kNaN, false, kNotF64},
    {"xorsign", kXorsign, false, kNotF64},
    {"abs", kAbsToken, false, kNotF64}};
constexpr RuleRecord kMinFloatRules[] = {
    {RuleRecord::Requires, "xorsign", "abs", 0,
     "'xorsign' needs 'abs' in {ctx}: the qualifier is xorsign.abs"},
    {RuleRecord::Requires, "abs", "xorsign", 0,
     "'abs' needs 'xorsign' in {ctx}: two inputs take xorsign.abs; abs "
     "alone is min/max.abs.f32 of three inputs"}};
constexpr FloorRecord kMinFloatFloors[] = {
    {80, 70, kHalfAndBf16}, {80, 70, {}, "NaN"}, {86, 72, {}, "xorsign"}};
constexpr VariantRecord kMinFloat = {kMinFloatTuple, kMinFloatSlots,
                                     kMinFloatRules, kMinFloatFloors,
                                     kBinarySignature};

constexpr Tokens kF32Tuple[] = {kF32};
constexpr SlotRecord kMin3Slots[] = {{"ftz", kFtz}, {"NaN", kNaN},
                                     {"abs", kAbsToken}};
constexpr FloorRecord kMin3Floors[] = {{100, 88}};
constexpr OperandRecord kTernary[] = {{"dst", Role::Dst},
                                      {"a", Role::Src},
                                      {"b", Role::Src},
                                      {"c", Role::Src}};
constexpr Signature kTernarySignature[] = {kTernary};
constexpr VariantRecord kMin3 = {.types = kF32Tuple,
                                 .slots = kMin3Slots,
                                 .floors = kMin3Floors,
                                 .signatures = kTernarySignature,
                                 .extendsPrevious = true};
constexpr VariantRecord kMinVariants[] = {kMinInt, kMinFloat, kMin3};
// max's sources on 16-bit lanes are exposed to Fold::ReluFusion: ptxas -O3
// fused a half add/sub/mul/fma and max.NaN.xorsign.abs of it with +0 into
// HFMA2.RELU (docs/difftest.md, finding 14). The halves come first so that
// kMin3 still extends the variant of f32.
constexpr StringRef kMaxWideTypes[] = {"f32", "f64"};
constexpr Tokens kMaxWideTuple[] = {kMaxWideTypes};
constexpr Tokens kHalfAndBf16Tuple[] = {kHalfAndBf16};
constexpr OperandRecord kMaxHalves[] = {
    {"dst", Role::Dst},
    {.name = "lhs", .role = Role::Src, .fold = Fold::ReluFusion},
    {.name = "rhs", .role = Role::Src, .fold = Fold::ReluFusion}};
constexpr Signature kMaxHalvesSignature[] = {kMaxHalves};
constexpr VariantRecord kMaxVariants[] = {
    kMinInt,
    {kHalfAndBf16Tuple, kMinFloatSlots, kMinFloatRules, kMinFloatFloors,
     kMaxHalvesSignature},
    {kMaxWideTuple, kMinFloatSlots, kMinFloatRules, kMinFloatFloors,
     kBinarySignature},
    kMin3};
// ptxas 13.0 takes these repeated, as one (min.NaN.NaN.f32).
constexpr StringRef kNaNRelu[] = {"NaN", "relu"};

//===-- and, or, xor, not, cnot, shl, shr -----------------------------------===//

constexpr StringRef kLogicTypes[] = {"pred", "b16", "b32", "b64"};
constexpr StringRef kBitTypes[] = {"b16", "b32", "b64"};
constexpr Tokens kLogicTuple[] = {kLogicTypes};
constexpr Tokens kBitTuple[] = {kBitTypes};
constexpr VariantRecord kLogic[] = {
    {kLogicTuple, {}, {}, {}, kBinarySignature}};
constexpr VariantRecord kNot[] = {{kLogicTuple, {}, {}, {}, kUnarySignature}};
// ptxas 13.0 has no cnot.pred.
constexpr VariantRecord kCnot[] = {{kBitTuple, {}, {}, {}, kUnarySignature}};

// The shift amount is a u32 whatever the type. A 64-bit shift's is exposed
// to Fold::WideShiftAmount: ptxas (CUDA 13.0) assembled neg.f32 or abs.f32
// then shr.b64 as F2I.U64.TRUNC of the float, at -O0 as at -O3 (measured on
// an H200: tools/difftest/results/fold_probe.json); 16- and 32-bit shifts were
// right.
constexpr StringRef kShlNarrowTypes[] = {"b16", "b32"};
constexpr StringRef kShrNarrowTypes[] = {"b16", "b32", "u16", "u32", "s16", "s32"};
constexpr StringRef kShlWideTypes[] = {"b64"};
constexpr StringRef kShrWideTypes[] = {"b64", "u64", "s64"};
constexpr Tokens kShlNarrowTuple[] = {kShlNarrowTypes};
constexpr Tokens kShrNarrowTuple[] = {kShrNarrowTypes};
constexpr Tokens kShlWideTuple[] = {kShlWideTypes};
constexpr Tokens kShrWideTuple[] = {kShrWideTypes};
constexpr OperandRecord kShift[] = {
    {"dst", Role::Dst}, {"a", Role::Src}, {.name = "b", .role = Role::Src, .fixedType = "u32"}};
constexpr OperandRecord kWideShift[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {.name = "b", .role = Role::Src, .fixedType = "u32", .fold = Fold::WideShiftAmount}};
constexpr Signature kShiftSignature[] = {kShift};
constexpr Signature kWideShiftSignature[] = {kWideShift};
constexpr VariantRecord kShl[] = {
    {kShlNarrowTuple, {}, {}, {}, kShiftSignature},
    {kShlWideTuple, {}, {}, {}, kWideShiftSignature}};
constexpr VariantRecord kShr[] = {
    {kShrNarrowTuple, {}, {}, {}, kShiftSignature},
    {kShrWideTuple, {}, {}, {}, kWideShiftSignature}};

//===-- popc, clz, brev, bfind, bfe, bfi, prmt, lop3 -------------------------===//

constexpr StringRef kB32B64[] = {"b32", "b64"};
constexpr Tokens kB32B64Tuple[] = {kB32B64};
// The count is a u32 whatever the type.
constexpr OperandRecord kCount[] = {
    {.name = "dst", .role = Role::Dst, .fixedType = "u32"}, {"src", Role::Src}};
constexpr Signature kCountSignature[] = {kCount};
constexpr VariantRecord kCountBits[] = {
    {kB32B64Tuple, {}, {}, {}, kCountSignature}};
constexpr VariantRecord kBrev[] = {{kB32B64Tuple, {}, {}, {}, kUnarySignature}};

constexpr StringRef kFieldTypes[] = {"u32", "u64", "s32", "s64"};
constexpr Tokens kFieldTuple[] = {kFieldTypes};
constexpr StringRef kShiftAmt[] = {"shiftamt"};
constexpr SlotRecord kBfindSlots[] = {{"shiftamt", kShiftAmt}};
constexpr VariantRecord kBfind[] = {
    {kFieldTuple, kBfindSlots, {}, {}, kCountSignature}};

// bfe d, a, pos, len and bfi f, a, b, pos, len: position and length are
// u32 whatever the type.
constexpr OperandRecord kBfe[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {.name = "pos", .role = Role::Src, .fixedType = "u32"},
    {.name = "len", .role = Role::Src, .fixedType = "u32"}};
constexpr Signature kBfeSignature[] = {kBfe};
// bfe.s32's position is exposed to Fold::ConstantFieldPosition: ptxas -O3
// folds a constant position of 32 or more with a constant nonzero length to
// -1 (docs/difftest.md, finding 9); bfe.u32 and the 64-bit types were
// measured right.
constexpr OperandRecord kBfeS32[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {.name = "pos", .role = Role::Src, .fixedType = "u32",
     .fold = Fold::ConstantFieldPosition},
    {.name = "len", .role = Role::Src, .fixedType = "u32"}};
constexpr Signature kBfeS32Signature[] = {kBfeS32};
// Three variants keep the types in the table's order: u32, u64, s32, s64.
constexpr StringRef kFieldUnsigned[] = {"u32", "u64"};
constexpr Tokens kFieldUnsignedTuple[] = {kFieldUnsigned};
constexpr Tokens kS32Tuple[] = {kS32};
constexpr StringRef kS64[] = {"s64"};
constexpr Tokens kS64Tuple[] = {kS64};
// Measured on an H200 (tools/conformance): ptxas 13.0's 64-bit bfe and bfi
// use the whole position and length, where the ISA takes their low 8 bits.
constexpr StringRef kField64[] = {"u64", "s64", "b64"};
constexpr RuleRecord kField64Rules[] = {
    {.kind = RuleRecord::Caveat,
     .message = "ptxas (CUDA 13.0) computes 64-bit {ctx} with the whole 32-bit "
                "position and length (measured on an H200), where the PTX "
                "ISA takes their low 8 bits: a position or length of 256 or "
                "more differs",
     .types = kField64}};
constexpr VariantRecord kBfeVariants[] = {
    {kFieldUnsignedTuple, {}, kField64Rules, {}, kBfeSignature},
    {kS32Tuple, {}, {}, {}, kBfeS32Signature},
    {kS64Tuple, {}, kField64Rules, {}, kBfeSignature}};
constexpr OperandRecord kBfi[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {"b", Role::Src},
    {.name = "pos", .role = Role::Src, .fixedType = "u32"},
    {.name = "len", .role = Role::Src, .fixedType = "u32"}};
constexpr Signature kBfiSignature[] = {kBfi};
constexpr VariantRecord kBfiVariants[] = {
    {kB32B64Tuple, {}, kField64Rules, {}, kBfiSignature}};

constexpr StringRef kB32[] = {"b32"};
constexpr Tokens kB32Tuple[] = {kB32};
constexpr StringRef kPrmtModes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
constexpr SlotRecord kPrmtSlots[] = {{"mode", kPrmtModes}};
constexpr OperandRecord kPrmt[] = {
    {"dst", Role::Dst}, {"a", Role::Src}, {"b", Role::Src}, {"selector", Role::Src}};
constexpr Signature kPrmtSignature[] = {kPrmt};
constexpr VariantRecord kPrmtVariants[] = {
    {kB32Tuple, kPrmtSlots, {}, {}, kPrmtSignature}};

// lop3.b32 d, a, b, c, immLut: the table of a function of three bits.
// ptxas 13.0 also takes values past 255, which the ISA does not define.
constexpr OperandRecord kLop3[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {"b", Role::Src},
    {"c", Role::Src},
    {.name = "lut", .role = Role::Imm, .fixedType = "b32", .maxImmediate = 255}};
constexpr Signature kLop3Signature[] = {kLop3};
constexpr FloorRecord kLop3Floors[] = {{50, 43}};
constexpr VariantRecord kLop3Variants[] = {
    {kB32Tuple, {}, {}, kLop3Floors, kLop3Signature}};

//===-- mul24, mad24, sad, dp4a, dp2a ----------------------------------------===//

// mul24.mode.type d, a, b and mad24.mode.type d, a, b, c: the 48-bit
// product of the low 24 bits of a and b (sign-extended for s32), its bits
// 47..16 (.hi) or 31..0 (.lo), plus c for mad24; .sat on mad24.hi.s32
// only. Measured with ptxas 13.0: the mode is required and comes first
// (mul24.s32.lo, mad24.sat.hi.s32 are refused).
constexpr StringRef kU32S32[] = {"u32", "s32"};
constexpr Tokens kU32S32Tuple[] = {kU32S32};
constexpr StringRef kHiLo[] = {"hi", "lo"};
constexpr SlotRecord kMul24Slots[] = {{"mode", kHiLo, true}};
constexpr RuleRecord kMul24Rules[] = {
    {RuleRecord::SlotAfterType, "mode", {}, 0,
     "'{tok}' must come before the type in {ctx}: ptxas takes "
     "mul24.{tok}.{type}"}};
constexpr VariantRecord kMul24Variants[] = {
    {kU32S32Tuple, kMul24Slots, kMul24Rules, {}, kBinarySignature}};
constexpr SlotRecord kMad24Slots[] = {{"mode", kHiLo, true},
                                      {"sat", kSat, false, kS32}};
constexpr RuleRecord kMad24Rules[] = {
    {RuleRecord::SlotAfterType, "mode", {}, 0,
     "'{tok}' must come before the type in {ctx}: ptxas takes the mode "
     "first"},
    {RuleRecord::Requires, "sat", "hi", 0,
     "'sat' needs 'hi' in {ctx}: only mad24.hi.sat.s32 saturates"},
    {RuleRecord::Before, "mode", "sat", 0,
     "'{tok}' must come first in {ctx}: ptxas takes mad24.{tok}.sat.s32"}};
constexpr VariantRecord kMad24Variants[] = {
    {kU32S32Tuple, kMad24Slots, kMad24Rules, {}, kTernarySignature}};

//===-- addc, subc, madc: the carry chain -------------------------------------===//

// addc{.cc}.type d, a, b: d = a + b + CC.CF; subc{.cc}.type d, a, b:
// d = a - (b + CC.CF), CC.CF a borrow; madc.mode{.cc}.type d, a, b, c: the
// half of a * b plus c plus CC.CF. With .cc each writes its carry-out
// (borrow-out) to CC.CF, as add.cc, sub.cc and mad.lo.cc do. Measured with
// ptxas 13.0: .cc anywhere (addc.u32.cc) and repeated as one, madc's mode
// required and before .cc (madc.cc.lo.u32 is refused), no madc.wide; the
// ISA's 64-bit types are PTX 4.3's, madc PTX 3.0's. ptxas also takes 16-bit
// types without .cc and .sat on s32 (addc.sat.s32, madc.hi.sat.s32), which
// the ISA does not define: the table keeps the ISA's forms.
constexpr StringRef kCarryTypes[] = {"u32", "s32", "u64", "s64"};
constexpr StringRef kCarry64Types[] = {"u64", "s64"};
constexpr Tokens kCarryTuple[] = {kCarryTypes};
constexpr SlotRecord kCarrySlots[] = {{"carry-out", kCc}};
constexpr FloorRecord kCarryFloors[] = {{.sm = 20, .ptx = 43, .types = kCarry64Types}};
constexpr VariantRecord kAddcVariants[] = {
    {kCarryTuple, kCarrySlots, {}, kCarryFloors, kBinarySignature}};
constexpr SlotRecord kMadcSlots[] = {{"mode", kHiLo, true}, {"carry-out", kCc}};
constexpr RuleRecord kMadcRules[] = {
    {RuleRecord::SlotAfterType, "mode", {}, 0,
     "'{tok}' must come before the type in {ctx}: ptxas takes madc.{tok}.{type}"},
    {RuleRecord::Before, "mode", "cc", 0,
     "'{tok}' must come first in {ctx}: ptxas takes madc.{tok}.cc.{type}"}};
constexpr FloorRecord kMadcFloors[] = {{20, 30},
                                       {.sm = 20, .ptx = 43, .types = kCarry64Types}};
constexpr VariantRecord kMadcVariants[] = {
    {kCarryTuple, kMadcSlots, kMadcRules, kMadcFloors, kTernarySignature}};

// sad.type d, a, b, c: d = c + |a - b|.
constexpr VariantRecord kSadVariants[] = {
    {kIntTuple, {}, {}, {}, kTernarySignature}};

// dp4a.atype.btype d, a, b, c and dp2a.mode.atype.btype d, a, b, c: byte
// (and for dp2a's a, 16-bit) dot products added to c; d and c are u32
// when both types are, else s32. dp2a's .lo/.hi picks b's bytes 0-1 or
// 2-3; measured with ptxas 13.0, it is required and comes first.
constexpr Tokens kDotUnsignedTuple[] = {kU32Type, kU32Type};
constexpr Tokens kDotSignedATuple[] = {kS32, kU32S32};
constexpr Tokens kDotSignedBTuple[] = {kU32Type, kS32};
constexpr OperandRecord kDotUnsigned[] = {{"dst", Role::Dst},
                                          {"a", Role::Src},
                                          {"b", Role::Src, Space::Reg, 1},
                                          {"c", Role::Src}};
constexpr OperandRecord kDotSigned[] = {
    {.name = "dst", .role = Role::Dst, .fixedType = "s32"},
    {"a", Role::Src},
    {"b", Role::Src, Space::Reg, 1},
    {.name = "c", .role = Role::Src, .fixedType = "s32"}};
constexpr Signature kDotUnsignedSignature[] = {kDotUnsigned};
constexpr Signature kDotSignedSignature[] = {kDotSigned};
constexpr FloorRecord kDotFloors[] = {{61, 50}};
constexpr VariantRecord kDp4aVariants[] = {
    {kDotUnsignedTuple, {}, {}, kDotFloors, kDotUnsignedSignature},
    {kDotSignedBTuple, {}, {}, kDotFloors, kDotSignedSignature},
    {kDotSignedATuple, {}, {}, kDotFloors, kDotSignedSignature}};
constexpr SlotRecord kDp2aSlots[] = {{"mode", kHiLo, true}};
constexpr RuleRecord kDp2aRules[] = {
    {RuleRecord::SlotAfterType, "mode", {}, 0,
     "'{tok}' must come before the types in {ctx}: ptxas takes "
     "dp2a.{tok}.atype.btype"}};
constexpr VariantRecord kDp2aVariants[] = {
    {kDotUnsignedTuple, kDp2aSlots, kDp2aRules, kDotFloors,
     kDotUnsignedSignature},
    {kDotSignedBTuple, kDp2aSlots, kDp2aRules, kDotFloors,
     kDotSignedSignature},
    {kDotSignedATuple, kDp2aSlots, kDp2aRules, kDotFloors,
     kDotSignedSignature}};

//===-- bmsk, szext, fns, shf -------------------------------------------------===//

// bmsk.mode.b32 d, a, b (a mask of b bits from bit a) and
// szext.mode.type d, a, b (a's low b bits extended): .clamp or .wrap,
// required, decides a position or width of 32 or more.
constexpr StringRef kClampWrap[] = {"clamp", "wrap"};
constexpr SlotRecord kClampWrapSlots[] = {{"mode", kClampWrap, true}};
constexpr OperandRecord kBmsk[] = {
    {"dst", Role::Dst},
    {.name = "a", .role = Role::Src, .fixedType = "u32"},
    {.name = "b", .role = Role::Src, .fixedType = "u32"}};
constexpr Signature kBmskSignature[] = {kBmsk};
constexpr FloorRecord kBmskFloors[] = {{70, 76}};
constexpr VariantRecord kBmskVariants[] = {
    {kB32Tuple, kClampWrapSlots, {}, kBmskFloors, kBmskSignature}};
constexpr OperandRecord kSzext[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {.name = "b", .role = Role::Src, .fixedType = "u32"}};
constexpr Signature kSzextSignature[] = {kSzext};
constexpr VariantRecord kSzextVariants[] = {
    {kU32S32Tuple, kClampWrapSlots, {}, kBmskFloors, kSzextSignature}};

// fns.b32 d, mask, base, offset: the position of mask's offset-th set bit
// from base (up for a positive offset, down for a negative one), or
// 0xffffffff; a base past 31 is undefined.
constexpr OperandRecord kFns[] = {
    {"dst", Role::Dst},
    {"mask", Role::Src},
    {.name = "base", .role = Role::Src, .fixedType = "u32"},
    {.name = "offset", .role = Role::Src, .fixedType = "s32"}};
constexpr Signature kFnsSignature[] = {kFns};
constexpr FloorRecord kFnsFloors[] = {{30, 60}};
constexpr VariantRecord kFnsVariants[] = {
    {kB32Tuple, {}, {}, kFnsFloors, kFnsSignature}};

// shf.dir.mode.b32 d, a, b, c: the funnel shift of the 64 bits b:a by c
// (.clamp: at most 32; .wrap: c mod 32); .l keeps the high 32 bits, .r
// the low. Measured with ptxas 13.0: both qualifiers are required.
constexpr StringRef kShfDirections[] = {"l", "r"};
constexpr SlotRecord kShfSlots[] = {{"direction", kShfDirections, true},
                                    {"mode", kClampWrap, true}};
// Measured with ptxas 13.0: the direction comes first (shf.clamp.l.b32 and
// shf.b32.r.clamp are refused; shf.l.b32.wrap is taken).
constexpr RuleRecord kShfRules[] = {
    {RuleRecord::SlotAfterType, "direction", {}, 0,
     "'{tok}' must come first in {ctx}: ptxas takes shf.{tok}.mode.b32"},
    {RuleRecord::Before, "direction", "mode", 0,
     "'{tok}' must come first in {ctx}: ptxas takes shf.{tok}.mode.b32"}};
constexpr OperandRecord kShf[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {"b", Role::Src},
    {.name = "c", .role = Role::Src, .fixedType = "u32"}};
constexpr Signature kShfSignature[] = {kShf};
constexpr FloorRecord kShfFloors[] = {{32, 31}};
constexpr VariantRecord kShfVariants[] = {
    {kB32Tuple, kShfSlots, kShfRules, kShfFloors, kShfSignature}};

//===-- setp, selp ---------------------------------------------------------===//

// setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, c}: measured with ptxas 13.0,
// qualifiers in any order; bit types compare eq/ne only, unsigned ones also
// lt..ge (unsigned) and lo/ls/hi/hs, signed ones eq..ge, floats the
// ordered and unordered comparisons and num/nan; ftz on f32, f16 and
// f16x2. A boolean operation adds the predicate c that it combines with.
// p|q also writes the complement (q), or for f16x2 and bf16x2 the high
// lanes' comparison (q) beside the low lanes' (p); ptxas takes no p|q for
// f16 and bf16 ("Predicate output not allowed").
constexpr StringRef kBitCompares[] = {"eq", "ne"};
constexpr StringRef kUnsignedCompares[] = {"eq", "ne", "lt", "le", "gt", "ge",
                                           "lo", "ls", "hi", "hs"};
constexpr StringRef kSignedCompares[] = {"eq", "ne", "lt", "le", "gt", "ge"};
constexpr StringRef kFloatCompares[] = {"eq",  "ne",  "lt",  "le",  "gt",
                                        "ge",  "equ", "neu", "ltu", "leu",
                                        "gtu", "geu", "num", "nan"};
constexpr StringRef kBoolOps[] = {"and", "or", "xor"};
constexpr StringRef kUnsignedTypes[] = {"u16", "u32", "u64"};
constexpr StringRef kSignedTypes[] = {"s16", "s32", "s64"};
constexpr StringRef kScalarFloatTypes[] = {"f32", "f64"};
constexpr StringRef kPackedFloatTypes[] = {"f16x2", "bf16x2"};
constexpr StringRef kSetpFtzTypes[] = {"f32", "f16", "f16x2"};
constexpr Tokens kUnsignedTuple[] = {kUnsignedTypes};
constexpr Tokens kSignedTuple[] = {kSignedTypes};
constexpr Tokens kScalarFloatTuple[] = {kScalarFloatTypes};
constexpr Tokens kHalfFloatTuple[] = {kHalfOrBf16};
constexpr Tokens kPackedFloatTuple[] = {kPackedFloatTypes};

constexpr OperandRecord kSetp[] = {
    {.name = "p", .role = Role::Dst, .fixedType = "pred"},
    {"a", Role::Src},
    {"b", Role::Src}};
constexpr OperandRecord kSetpPair[] = {
    {.name = "pq", .role = Role::Dst, .fixedType = "pred", .count = 2,
     .joinedByBar = true},
    {"a", Role::Src},
    {"b", Role::Src}};
constexpr OperandRecord kSetpCombined[] = {
    {.name = "p", .role = Role::Dst, .fixedType = "pred"},
    {"a", Role::Src},
    {"b", Role::Src},
    {.name = "c", .role = Role::Src, .fixedType = "pred"}};
constexpr OperandRecord kSetpPairCombined[] = {
    {.name = "pq", .role = Role::Dst, .fixedType = "pred", .count = 2,
     .joinedByBar = true},
    {"a", Role::Src},
    {"b", Role::Src},
    {.name = "c", .role = Role::Src, .fixedType = "pred"}};
constexpr Signature kSetpSignatures[] = {kSetp, kSetpPair};
constexpr Signature kSetpSingleSignatures[] = {kSetp};
constexpr Signature kSetpPairSignatures[] = {kSetpPair};
constexpr Signature kSetpCombinedSignatures[] = {kSetpCombined,
                                                 kSetpPairCombined};
constexpr Signature kSetpSingleCombinedSignatures[] = {kSetpCombined};
constexpr Signature kSetpPairCombinedSignatures[] = {kSetpPairCombined};

constexpr SlotRecord kSetpBitSlots[] = {{"comparison", kBitCompares, true}};
constexpr SlotRecord kSetpBitBoolSlots[] = {
    {"comparison", kBitCompares, true}, {"boolean operation", kBoolOps, true}};
constexpr SlotRecord kSetpUnsignedSlots[] = {
    {"comparison", kUnsignedCompares, true}};
constexpr SlotRecord kSetpUnsignedBoolSlots[] = {
    {"comparison", kUnsignedCompares, true},
    {"boolean operation", kBoolOps, true}};
constexpr SlotRecord kSetpSignedSlots[] = {{"comparison", kSignedCompares, true}};
constexpr SlotRecord kSetpSignedBoolSlots[] = {
    {"comparison", kSignedCompares, true}, {"boolean operation", kBoolOps, true}};
constexpr SlotRecord kSetpFloatSlots[] = {
    {"comparison", kFloatCompares, true}, {"ftz", kFtz, false, kSetpFtzTypes}};
constexpr SlotRecord kSetpFloatBoolSlots[] = {
    {"comparison", kFloatCompares, true},
    {"boolean operation", kBoolOps, true},
    {"ftz", kFtz, false, kSetpFtzTypes}};
constexpr FloorRecord kSetpFloatFloors[] = {{53, 42, kHalf}, {90, 78, kBf16}};

constexpr VariantRecord kSetpVariants[] = {
    {kBitTuple, kSetpBitSlots, {}, {}, kSetpSignatures},
    {.types = kBitTuple, .slots = kSetpBitBoolSlots,
     .signatures = kSetpCombinedSignatures, .extendsPrevious = true},
    {kUnsignedTuple, kSetpUnsignedSlots, {}, {}, kSetpSignatures},
    {.types = kUnsignedTuple, .slots = kSetpUnsignedBoolSlots,
     .signatures = kSetpCombinedSignatures, .extendsPrevious = true},
    {kSignedTuple, kSetpSignedSlots, {}, {}, kSetpSignatures},
    {.types = kSignedTuple, .slots = kSetpSignedBoolSlots,
     .signatures = kSetpCombinedSignatures, .extendsPrevious = true},
    {kScalarFloatTuple, kSetpFloatSlots, {}, kSetpFloatFloors,
     kSetpSignatures},
    {.types = kScalarFloatTuple, .slots = kSetpFloatBoolSlots,
     .floors = kSetpFloatFloors, .signatures = kSetpCombinedSignatures,
     .extendsPrevious = true},
    {kHalfFloatTuple, kSetpFloatSlots, {}, kSetpFloatFloors,
     kSetpSingleSignatures},
    {.types = kHalfFloatTuple, .slots = kSetpFloatBoolSlots,
     .floors = kSetpFloatFloors, .signatures = kSetpSingleCombinedSignatures,
     .extendsPrevious = true},
    {kPackedFloatTuple, kSetpFloatSlots, {}, kSetpFloatFloors,
     kSetpPairSignatures},
    {.types = kPackedFloatTuple, .slots = kSetpFloatBoolSlots,
     .floors = kSetpFloatFloors, .signatures = kSetpPairCombinedSignatures,
     .extendsPrevious = true}};

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}: setp's comparison of
// a and b (of stype), its result written as a value of dtype: all ones
// for an integer dtype, 1.0 for a float one, 0 when false; per 16-bit lane
// for the packed stypes. The dtype/stype pairs are those ptxas 13.0
// takes (measured): u32, s32 with every stype; f32 with the bit, integer,
// f32 and f64 ones; f16 with those and f16, bf16 with those, f16 and bf16;
// u16, s16 with f16 and bf16; f16x2 and bf16x2 with their own.
constexpr StringRef kSetNarrowDtypes[] = {"u16", "s16"};
constexpr StringRef kSetScalarDtypes[] = {"u32", "s32", "f32", "f16", "bf16"};
constexpr Tokens kSetBitTuple[] = {kSetScalarDtypes, kBitTypes};
constexpr Tokens kSetUnsignedTuple[] = {kSetScalarDtypes, kUnsignedTypes};
constexpr Tokens kSetSignedTuple[] = {kSetScalarDtypes, kSignedTypes};
constexpr Tokens kSetFloatTuple[] = {kSetScalarDtypes, kScalarFloatTypes};
constexpr Tokens kSetIntHalfTuple[] = {kU32S32, kHalfOrBf16};
constexpr Tokens kSetNarrowHalfTuple[] = {kSetNarrowDtypes, kHalfOrBf16};
constexpr Tokens kSetHalfF16Tuple[] = {kHalfOrBf16, kF16};
constexpr Tokens kSetBf16Tuple[] = {kBf16Only, kBf16Only};
constexpr Tokens kSetIntPackedTuple[] = {kU32S32, kPackedFloatTypes};
constexpr Tokens kSetF16x2Tuple[] = {kF16x2, kF16x2};
constexpr Tokens kSetBf16x2Tuple[] = {kBf16x2, kBf16x2};
constexpr OperandRecord kSet[] = {
    {"dst", Role::Dst}, {"a", Role::Src, Space::Reg, 1}, {"b", Role::Src, Space::Reg, 1}};
constexpr OperandRecord kSetCombined[] = {
    {"dst", Role::Dst},
    {"a", Role::Src, Space::Reg, 1},
    {"b", Role::Src, Space::Reg, 1},
    {.name = "c", .role = Role::Src, .fixedType = "pred"}};
constexpr Signature kSetSignature[] = {kSet};
constexpr Signature kSetCombinedSignature[] = {kSetCombined};
constexpr SlotRecord kSetBitSlots[] = {{"comparison", kBitCompares, true}};
constexpr SlotRecord kSetBitBoolSlots[] = {
    {"comparison", kBitCompares, true}, {"boolean operation", kBoolOps, true}};
constexpr SlotRecord kSetUnsignedSlots[] = {{"comparison", kUnsignedCompares, true}};
constexpr SlotRecord kSetUnsignedBoolSlots[] = {
    {"comparison", kUnsignedCompares, true}, {"boolean operation", kBoolOps, true}};
constexpr SlotRecord kSetSignedSlots[] = {{"comparison", kSignedCompares, true}};
constexpr SlotRecord kSetSignedBoolSlots[] = {
    {"comparison", kSignedCompares, true}, {"boolean operation", kBoolOps, true}};
constexpr SlotRecord kSetFloatSlots[] = {
    {"comparison", kFloatCompares, true}, {"ftz", kFtz, false, kSetpFtzTypes, 1}};
constexpr SlotRecord kSetFloatBoolSlots[] = {
    {"comparison", kFloatCompares, true},
    {"boolean operation", kBoolOps, true},
    {"ftz", kFtz, false, kSetpFtzTypes, 1}};
constexpr FloorRecord kSetFloors[] = {{.sm = 53, .ptx = 42, .types = kHalf},
                                      {.sm = 90, .ptx = 78, .types = kBf16},
                                      {.sm = 53, .ptx = 42, .types = kHalf, .typeIndex = 1},
                                      {.sm = 90, .ptx = 78, .types = kBf16, .typeIndex = 1}};
// Measured with ptxas 13.0: a bf16 result takes no .ftz (ISA 9.0 writes
// none for it either).
constexpr RuleRecord kSetRules[] = {
    {.kind = RuleRecord::Chosen,
     .token = "ftz",
     .message = "'ftz' is not available for {ctx}: a bf16 result takes no "
                ".ftz",
     .types = kBf16Only}};
#define SET_VARIANTS(TUPLE, SLOTS, BOOL_SLOTS)                                 \
  {TUPLE, SLOTS, kSetRules, kSetFloors, kSetSignature},                        \
      {.types = TUPLE, .slots = BOOL_SLOTS, .rules = kSetRules,                \
       .floors = kSetFloors, .signatures = kSetCombinedSignature,              \
       .extendsPrevious = true}
constexpr VariantRecord kSetVariants[] = {
    SET_VARIANTS(kSetBitTuple, kSetBitSlots, kSetBitBoolSlots),
    SET_VARIANTS(kSetUnsignedTuple, kSetUnsignedSlots, kSetUnsignedBoolSlots),
    SET_VARIANTS(kSetSignedTuple, kSetSignedSlots, kSetSignedBoolSlots),
    SET_VARIANTS(kSetFloatTuple, kSetFloatSlots, kSetFloatBoolSlots),
    SET_VARIANTS(kSetIntHalfTuple, kSetFloatSlots, kSetFloatBoolSlots),
    SET_VARIANTS(kSetNarrowHalfTuple, kSetFloatSlots, kSetFloatBoolSlots),
    SET_VARIANTS(kSetHalfF16Tuple, kSetFloatSlots, kSetFloatBoolSlots),
    SET_VARIANTS(kSetBf16Tuple, kSetFloatSlots, kSetFloatBoolSlots),
    SET_VARIANTS(kSetIntPackedTuple, kSetFloatSlots, kSetFloatBoolSlots),
    SET_VARIANTS(kSetF16x2Tuple, kSetFloatSlots, kSetFloatBoolSlots),
    SET_VARIANTS(kSetBf16x2Tuple, kSetFloatSlots, kSetFloatBoolSlots)};
#undef SET_VARIANTS

// selp.type d, a, b, c: d = c ? a : b.
constexpr StringRef kSelpTypes[] = {"b16", "b32", "b64", "u16", "u32", "u64",
                                    "s16", "s32", "s64", "f32", "f64"};
constexpr Tokens kSelpTuple[] = {kSelpTypes};
constexpr OperandRecord kSelp[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {"b", Role::Src},
    {.name = "c", .role = Role::Src, .fixedType = "pred"}};
constexpr Signature kSelpSignature[] = {kSelp};
constexpr VariantRecord kSelpVariants[] = {
    {kSelpTuple, {}, {}, {}, kSelpSignature}};

// slct.dtype.s32 d, a, b, c and slct{.ftz}.dtype.f32 d, a, b, c:
// d = c >= 0 ? a : b (-0 and, with .ftz, a negative subnormal select a;
// NaN selects b); .ftz only with an f32 c.
constexpr StringRef kSlctSelectors[] = {"s32", "f32"};
constexpr Tokens kSlctTuple[] = {kSelpTypes, kSlctSelectors};
constexpr SlotRecord kSlctSlots[] = {{"ftz", kFtz, false, kF32, 1}};
constexpr OperandRecord kSlct[] = {
    {"dst", Role::Dst},
    {"a", Role::Src},
    {"b", Role::Src},
    {"c", Role::Src, Space::Reg, 1}};
constexpr Signature kSlctSignature[] = {kSlct};
constexpr VariantRecord kSlctVariants[] = {
    {kSlctTuple, kSlctSlots, {}, {}, kSlctSignature}};

//===-- div, rem, sqrt, rcp -------------------------------------------------===//

// Measured with ptxas 13.0: one mode is required (a rounding, or .approx;
// div.f32 also .full), .ftz only on f32, except that ptxas takes
// rcp.{rnd}.ftz.f64 besides the ISA's rcp.approx.ftz.f64 (which needs its
// .ftz); integer div and rem take no qualifier.
constexpr StringRef kDivModes[] = {"rn", "rz", "rm", "rp", "full", "approx"};
constexpr StringRef kApproxModes[] = {"rn", "rz", "rm", "rp", "approx"};
constexpr StringRef kApprox[] = {"approx"};
constexpr Tokens kF64Tuple[] = {kF64};
constexpr SlotRecord kDivF32Slots[] = {{"mode", kDivModes, true},
                                       {"ftz", kFtz}};
// ptxas takes .full right after div only (div.full.ftz.f32; div.ftz.full
// is "Unknown modifier '.full'"), the other modes anywhere.
constexpr RuleRecord kDivF32Rules[] = {
    {RuleRecord::Before, "full", "ftz", 0,
     "'full' must come first in {ctx}: ptxas takes div.full.ftz.f32"},
    {RuleRecord::SlotAfterType, "full", {}, 0,
     "'full' must come first in {ctx}: ptxas takes div.full.{type}"}};
constexpr SlotRecord kRoundedF64Slots[] = {{"rounding mode", kRoundings, true}};
constexpr VariantRecord kDivVariants[] = {
    {kIntTuple, {}, {}, {}, kBinarySignature},
    {kF32Tuple, kDivF32Slots, kDivF32Rules, {}, kBinarySignature},
    {kF64Tuple, kRoundedF64Slots, {}, {}, kBinarySignature}};
constexpr VariantRecord kRemVariants[] = {
    {kIntTuple, {}, {}, {}, kBinarySignature}};

constexpr SlotRecord kApproxF32Slots[] = {{"mode", kApproxModes, true},
                                          {"ftz", kFtz}};
constexpr VariantRecord kSqrtVariants[] = {
    {kF32Tuple, kApproxF32Slots, {}, {}, kUnarySignature},
    {kF64Tuple, kRoundedF64Slots, {}, {}, kUnarySignature}};
constexpr RuleRecord kRcpF64Rules[] = {
    {RuleRecord::Requires, "approx", "ftz", 0,
     "'approx' needs 'ftz' in {ctx}: the gross approximation is "
     "rcp.approx.ftz.f64"},
    {.kind = RuleRecord::Caveat,
     .token = "ftz",
     .message = "ptxas (CUDA 13.0) takes {ctx} with a rounding mode and .ftz, "
                "which the PTX ISA does not define: measured on an H200, the "
                ".ftz has no effect (subnormal inputs and results are kept)",
     .allowed = kRoundings}};
constexpr VariantRecord kRcpVariants[] = {
    {kF32Tuple, kApproxF32Slots, {}, {}, kUnarySignature},
    {kF64Tuple, kApproxF32Slots, kRcpF64Rules, {}, kUnarySignature}};

// rsqrt.approx{.ftz}.f32 and rsqrt.approx{.ftz}.f64: .approx required;
// the .ftz of f64 is PTX 4.0's.
constexpr SlotRecord kApproxOnlyFtzSlots[] = {{"approx", kApprox, true},
                                              {"ftz", kFtz}};
constexpr FloorRecord kRsqrtF64Floors[] = {{.sm = 20, .ptx = 40, .token = "ftz"}};
constexpr VariantRecord kRsqrtVariants[] = {
    {kF32Tuple, kApproxOnlyFtzSlots, {}, {}, kUnarySignature},
    {kF64Tuple, kApproxOnlyFtzSlots, {}, kRsqrtF64Floors, kUnarySignature}};

//===-- ex2, lg2, sin, cos, tanh --------------------------------------------===//

// .approx is required; .ftz optional on f32, absent on f16 and f16x2 and
// required on bf16 and bf16x2 (ex2); tanh takes no .ftz.
constexpr SlotRecord kApproxSlots[] = {{"approx", kApprox, true}};
constexpr SlotRecord kApproxFtzSlots[] = {{"approx", kApprox, true},
                                          {"ftz", kFtz}};
constexpr SlotRecord kApproxFtzRequiredSlots[] = {{"approx", kApprox, true},
                                                  {"ftz", kFtz, true}};
constexpr Tokens kHalfTuple[] = {kHalf};
constexpr Tokens kBf16Tuple[] = {kBf16};
constexpr FloorRecord kHalfApproxFloors[] = {{75, 70}};
constexpr FloorRecord kBf16ApproxFloors[] = {{90, 78}};
constexpr VariantRecord kEx2Variants[] = {
    {kF32Tuple, kApproxFtzSlots, {}, {}, kUnarySignature},
    {kHalfTuple, kApproxSlots, {}, kHalfApproxFloors, kUnarySignature},
    {kBf16Tuple, kApproxFtzRequiredSlots, {}, kBf16ApproxFloors,
     kUnarySignature}};
constexpr VariantRecord kApproxF32Variants[] = {
    {kF32Tuple, kApproxFtzSlots, {}, {}, kUnarySignature}};
// Measured on an H200 over 2^20 inputs (tools/conformance/approx.py):
// cos.approx.f32 exceeds the ISA's absolute error bound in [-2pi, 2pi].
constexpr RuleRecord kCosRules[] = {
    {.kind = RuleRecord::Caveat,
     .message = "cos.approx.f32's measured absolute error in [-2pi, 2pi] is "
                "2^-20.44 on an H200 (at x = 4.8267), above the PTX ISA's "
                "2^-20.5; within 2^-14.7 in [-100pi, 100pi] as stated"}};
constexpr VariantRecord kCosVariants[] = {
    {kF32Tuple, kApproxFtzSlots, kCosRules, {}, kUnarySignature}};
constexpr FloorRecord kTanhF32Floors[] = {{75, 70}};
// Measured on an H200 (tools/conformance/approx.py, every bf16 input):
// tanh.approx.bf16 is one ulp below at 0.74609375, an absolute error of
// 2^-8 + 2.5e-7, a hair above the ISA's 2^-8.
constexpr RuleRecord kTanhBf16Rules[] = {
    {.kind = RuleRecord::Caveat,
     .message = "tanh.approx.{type}'s measured absolute error is 2^-8 + "
                "2.5e-7 on an H200 (tanh(0.74609375) gives 0.62890625), a "
                "hair above the PTX ISA's 2^-8"}};
constexpr VariantRecord kTanhVariants[] = {
    {kF32Tuple, kApproxSlots, {}, kTanhF32Floors, kUnarySignature},
    {kHalfTuple, kApproxSlots, {}, kHalfApproxFloors, kUnarySignature},
    {kBf16Tuple, kApproxSlots, kTanhBf16Rules, kBf16ApproxFloors,
     kUnarySignature}};

//===-- copysign, testp -----------------------------------------------------===//

// copysign.type d, a, b: b's value with a's sign.
constexpr StringRef kF32OrF64[] = {"f32", "f64"};
constexpr Tokens kF32OrF64Tuple[] = {kF32OrF64};
constexpr VariantRecord kCopysignVariants[] = {
    {kF32OrF64Tuple, {}, {}, {}, kBinarySignature}};
constexpr StringRef kTestpOps[] = {"finite", "infinite", "number",
                                   "notanumber", "normal", "subnormal"};
constexpr SlotRecord kTestpSlots[] = {{"test", kTestpOps, true}};
constexpr OperandRecord kTestp[] = {
    {.name = "p", .role = Role::Dst, .fixedType = "pred"}, {"a", Role::Src}};
constexpr Signature kTestpSignature[] = {kTestp};
constexpr VariantRecord kTestpVariants[] = {
    {kF32OrF64Tuple, kTestpSlots, {}, {}, kTestpSignature}};

//===-- The table ----------------------------------------------------------===//

//===-- wgmma groups, setmaxnreg -------------------------------------------===//

// wgmma.fence.sync.aligned, wgmma.commit_group.sync.aligned and
// wgmma.wait_group.sync.aligned N (PTX ISA 9.0, 9.7.15.6-7): the ordering
// and the groups of a warpgroup's wgmma.mma_async, sm_90a only (ptxas 13.0
// refuses them on sm_90 and on sm_100a). setmaxnreg.{inc,dec}.sync.aligned
// .u32 N (9.7.19.4): N from 24 to 256 in steps of 8, on arch-specific
// targets from sm_90a (sm_100a and sm_120a too). Measured with ptxas 13.0:
// .sync and .aligned in either order; ptxas also takes wgmma's without
// .aligned and setmaxnreg.s32, which the ISA does not define (the table
// follows the ISA; tools/ptxas_diff explains them). Each is ordered like a
// fence: never moved, merged or removed.
constexpr SlotRecord kSyncAlignedSlots[] = {{"sync", kSync, true},
                                            {"aligned", kAligned, true}};
constexpr FloorRecord kWgmmaGroupFloors[] = {
    {.sm = 90, .ptx = 80, .archOnly = true, .maxSm = 90}};
constexpr VariantRecord kWgmmaNoOperandVariants[] = {
    {.slots = kSyncAlignedSlots, .floors = kWgmmaGroupFloors,
     .signatures = kNoGroupOperands}};
constexpr VariantRecord kWgmmaWaitVariants[] = {
    {.slots = kSyncAlignedSlots, .floors = kWgmmaGroupFloors,
     .signatures = kWaitGroupSignature}};
constexpr unsigned kMaxRegisterCounts[] = {
    24,  32,  40,  48,  56,  64,  72,  80,  88,  96,  104, 112, 120, 128, 136,
    144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256};
constexpr OperandRecord kSetmaxnreg[] = {
    {.name = "imm-reg-count", .role = Role::Imm, .immediates = kMaxRegisterCounts}};
constexpr Signature kSetmaxnregSignature[] = {kSetmaxnreg};
constexpr Tokens kSetmaxnregTuple[] = {kU32Only};
constexpr FloorRecord kSetmaxnregFloors[] = {
    {.sm = 90, .ptx = 80, .archSpecific = true}};
constexpr VariantRecord kSetmaxnregVariants[] = {
    {kSetmaxnregTuple, kSyncAlignedSlots, {}, kSetmaxnregFloors,
     kSetmaxnregSignature}};

//===-- wgmma.mma_async ----------------------------------------------------===//

// wgmma.mma_async.sync.aligned.shape.dtype.atype.btype (PTX ISA 9.0,
// 9.7.15.5.2), sm_90a only (ptxas 13.0 refuses it on sm_90 and sm_100a),
// PTX ISA 8.0 (8.4 for s8.u8 and u8.s8):
//   f16/bf16, m64nNk16:  d, a-desc, b-desc, scale-d, imm-scale-a,
//                        imm-scale-b, imm-trans-a, imm-trans-b
//                        d, a, b-desc, scale-d, imm-scale-a, imm-scale-b,
//                        imm-trans-b
//   tf32 (k8), e4m3/e5m2 (k32): the same without the transposes
//   s8/u8 (k32, .satfinite), b1 (k256, .and.popc): d, a(-desc), b-desc,
//                        scale-d
// N is 8 to 256 in steps of 8; for s8/u8 and b1 8, 16, 24, then steps of 16
// to 256 (the ISA's integer list stops at 224, but its b1 list, ptxas
// 13.0 and CUTLASS's SM90 s8 atoms go on to 240 and 256). Per thread of
// the warpgroup, D holds N/2 f32 or s32 registers (N/4 f16x2); A in
// registers four b32 (f16x2 or bf16x2 pairs, one tf32, four 8-bit values
// or 32 bits); a descriptor is a b64. d is read (unless scale-d is false)
// and written in place. scale-d is a predicate register here (the ISA also
// takes the immediates 0 and 1); imm-scale-a/b are -1 or 1 and the
// transposes 0 or 1, which ptxas checks. Measured with ptxas 13.0:
// qualifiers in any order (.satfinite before or after the types; it and
// .sync taken repeated), .and before .popc; .aligned also missing, which the
// ISA does not define (the table keeps it required); dtype f16 with f16 or fp8 inputs only.
// The repeat space is (m, n, k) as mma's: d spans (m, n), A (m, k), B
// (n, k), scale-d every axis; d feeds each later k step. The sparse
// wgmma.mma_async.sp is not in the table.
constexpr StringRef kWgmmaK16[] = {
    "m64n8k16", "m64n16k16", "m64n24k16", "m64n32k16", "m64n40k16",
    "m64n48k16", "m64n56k16", "m64n64k16", "m64n72k16", "m64n80k16",
    "m64n88k16", "m64n96k16", "m64n104k16", "m64n112k16", "m64n120k16",
    "m64n128k16", "m64n136k16", "m64n144k16", "m64n152k16", "m64n160k16",
    "m64n168k16", "m64n176k16", "m64n184k16", "m64n192k16", "m64n200k16",
    "m64n208k16", "m64n216k16", "m64n224k16", "m64n232k16", "m64n240k16",
    "m64n248k16", "m64n256k16"};
constexpr StringRef kWgmmaK8[] = {
    "m64n8k8", "m64n16k8", "m64n24k8", "m64n32k8", "m64n40k8", "m64n48k8",
    "m64n56k8", "m64n64k8", "m64n72k8", "m64n80k8", "m64n88k8", "m64n96k8",
    "m64n104k8", "m64n112k8", "m64n120k8", "m64n128k8", "m64n136k8",
    "m64n144k8", "m64n152k8", "m64n160k8", "m64n168k8", "m64n176k8",
    "m64n184k8", "m64n192k8", "m64n200k8", "m64n208k8", "m64n216k8",
    "m64n224k8", "m64n232k8", "m64n240k8", "m64n248k8", "m64n256k8"};
constexpr StringRef kWgmmaK32[] = {
    "m64n8k32", "m64n16k32", "m64n24k32", "m64n32k32", "m64n40k32",
    "m64n48k32", "m64n56k32", "m64n64k32", "m64n72k32", "m64n80k32",
    "m64n88k32", "m64n96k32", "m64n104k32", "m64n112k32", "m64n120k32",
    "m64n128k32", "m64n136k32", "m64n144k32", "m64n152k32", "m64n160k32",
    "m64n168k32", "m64n176k32", "m64n184k32", "m64n192k32", "m64n200k32",
    "m64n208k32", "m64n216k32", "m64n224k32", "m64n232k32", "m64n240k32",
    "m64n248k32", "m64n256k32"};
constexpr StringRef kWgmmaIntK32[] = {
    "m64n8k32", "m64n16k32", "m64n24k32", "m64n32k32", "m64n48k32",
    "m64n64k32", "m64n80k32", "m64n96k32", "m64n112k32", "m64n128k32",
    "m64n144k32", "m64n160k32", "m64n176k32", "m64n192k32", "m64n208k32",
    "m64n224k32", "m64n240k32", "m64n256k32"};
constexpr StringRef kWgmmaK256[] = {
    "m64n8k256", "m64n16k256", "m64n24k256", "m64n32k256", "m64n48k256",
    "m64n64k256", "m64n80k256", "m64n96k256", "m64n112k256", "m64n128k256",
    "m64n144k256", "m64n160k256", "m64n176k256", "m64n192k256",
    "m64n208k256", "m64n224k256", "m64n240k256", "m64n256k256"};

constexpr StringRef kMmaAsync[] = {"mma_async"};
constexpr StringRef kAndOp[] = {"and"};
constexpr StringRef kPopc[] = {"popc"};
#define TILE_WGMMA_SLOTS(NAME, SHAPES)                                         \
  constexpr SlotRecord NAME[] = {{"sync", kSync, true},                        \
                                 {"aligned", kAligned, true},                  \
                                 {"shape", SHAPES, true}};
TILE_WGMMA_SLOTS(kWgmmaSlotsK16, kWgmmaK16)
TILE_WGMMA_SLOTS(kWgmmaSlotsK8, kWgmmaK8)
TILE_WGMMA_SLOTS(kWgmmaSlotsK32, kWgmmaK32)
#undef TILE_WGMMA_SLOTS
constexpr SlotRecord kWgmmaSlotsInt[] = {{"sync", kSync, true},
                                         {"aligned", kAligned, true},
                                         {"shape", kWgmmaIntK32, true},
                                         {"satfinite", kMmaSatfinite}};
constexpr SlotRecord kWgmmaSlotsB1[] = {{"sync", kSync, true},
                                        {"aligned", kAligned, true},
                                        {"shape", kWgmmaK256, true},
                                        {"operation", kAndOp, true},
                                        {"popc", kPopc, true}};
constexpr RuleRecord kWgmmaB1Rules[] = {
    {RuleRecord::Before, "and", "popc", 0,
     "'popc' must follow 'and' in {ctx}: the operation is .and.popc"}};

constexpr int kScales[] = {-1, 1};
constexpr unsigned kTransposes[] = {0, 1};
constexpr OperandRecord wgmmaD(StringRef type, unsigned perRegister) {
  return {.name = "d", .role = Role::ReadWrite, .fixedType = type,
          .countFrom = "shape", .axes = "mn", .braced = true,
          .shapeNPerRegister = perRegister, .matrixTypeIndex = 0};
}
constexpr OperandRecord kWgmmaADesc = {.name = "a-desc",
                                       .role = Role::Src,
                                       .fixedType = "b64",
                                       .axes = "mk",
                                       .matrixTypeIndex = 1};
constexpr OperandRecord wgmmaA(StringRef type) {
  return {.name = "a", .role = Role::Src, .fixedType = type, .count = 4,
          .axes = "mk", .braced = true, .matrixTypeIndex = 1};
}
constexpr OperandRecord kWgmmaBDesc = {.name = "b-desc",
                                       .role = Role::Src,
                                       .fixedType = "b64",
                                       .axes = "nk",
                                       .matrixTypeIndex = 2};
constexpr OperandRecord kWgmmaScaleD = {
    .name = "scale-d", .role = Role::Src, .fixedType = "pred", .axes = "mnk"};
constexpr OperandRecord wgmmaScale(StringRef name) {
  return {.name = name, .role = Role::Imm, .fixedType = "s32",
          .signedImmediates = kScales};
}
constexpr OperandRecord wgmmaTrans(StringRef name) {
  return {.name = name, .role = Role::Imm, .fixedType = "u32",
          .immediates = kTransposes};
}
// Each type group's signatures: A through a descriptor, then in registers.
#define TILE_WGMMA_OPERANDS(NAME, D_TYPE, PER_REGISTER, A_TYPE)                \
  constexpr OperandRecord NAME##Desc[] = {                                     \
      wgmmaD(D_TYPE, PER_REGISTER), kWgmmaADesc, kWgmmaBDesc, kWgmmaScaleD,    \
      wgmmaScale("imm-scale-a"),    wgmmaScale("imm-scale-b"),                 \
      wgmmaTrans("imm-trans-a"),    wgmmaTrans("imm-trans-b")};                \
  constexpr OperandRecord NAME##Regs[] = {                                     \
      wgmmaD(D_TYPE, PER_REGISTER), wgmmaA(A_TYPE), kWgmmaBDesc, kWgmmaScaleD, \
      wgmmaScale("imm-scale-a"),    wgmmaScale("imm-scale-b"),                 \
      wgmmaTrans("imm-trans-b")};                                              \
  constexpr Signature NAME##Signatures[] = {NAME##Desc, NAME##Regs};
TILE_WGMMA_OPERANDS(kWgmmaF16F32, "f32", 2, "f16x2")
TILE_WGMMA_OPERANDS(kWgmmaF16F16, "f16x2", 4, "f16x2")
TILE_WGMMA_OPERANDS(kWgmmaBf16, "f32", 2, "bf16x2")
#undef TILE_WGMMA_OPERANDS
#define TILE_WGMMA_OPERANDS(NAME, D_TYPE, PER_REGISTER)                        \
  constexpr OperandRecord NAME##Desc[] = {                                     \
      wgmmaD(D_TYPE, PER_REGISTER), kWgmmaADesc, kWgmmaBDesc, kWgmmaScaleD,    \
      wgmmaScale("imm-scale-a"), wgmmaScale("imm-scale-b")};                   \
  constexpr OperandRecord NAME##Regs[] = {                                     \
      wgmmaD(D_TYPE, PER_REGISTER), wgmmaA("b32"), kWgmmaBDesc, kWgmmaScaleD,  \
      wgmmaScale("imm-scale-a"), wgmmaScale("imm-scale-b")};                   \
  constexpr Signature NAME##Signatures[] = {NAME##Desc, NAME##Regs};
TILE_WGMMA_OPERANDS(kWgmmaTf32, "f32", 2)
TILE_WGMMA_OPERANDS(kWgmmaFp8F32, "f32", 2)
TILE_WGMMA_OPERANDS(kWgmmaFp8F16, "f16x2", 4)
#undef TILE_WGMMA_OPERANDS
constexpr OperandRecord kWgmmaIntDesc[] = {wgmmaD("s32", 2), kWgmmaADesc,
                                           kWgmmaBDesc, kWgmmaScaleD};
constexpr OperandRecord kWgmmaIntRegs[] = {wgmmaD("s32", 2), wgmmaA("b32"),
                                           kWgmmaBDesc, kWgmmaScaleD};
constexpr Signature kWgmmaIntSignatures[] = {kWgmmaIntDesc, kWgmmaIntRegs};

constexpr StringRef kS8Only[] = {"s8"};
constexpr StringRef kU8Only[] = {"u8"};
constexpr StringRef kB1Only[] = {"b1"};
constexpr Tokens kWgmmaF32F16Types[] = {kF32, kF16, kF16};
constexpr Tokens kWgmmaF16F16Types[] = {kF16, kF16, kF16};
constexpr Tokens kWgmmaBf16Types[] = {kF32, kBf16Only, kBf16Only};
constexpr Tokens kWgmmaTf32Types[] = {kF32, kTf32Only, kTf32Only};
constexpr Tokens kWgmmaFp8F32Types[] = {kF32, kMmaFp8, kMmaFp8};
constexpr Tokens kWgmmaFp8F16Types[] = {kF16, kMmaFp8, kMmaFp8};
constexpr Tokens kWgmmaS8S8Types[] = {kS32, kS8Only, kS8Only};
constexpr Tokens kWgmmaU8U8Types[] = {kS32, kU8Only, kU8Only};
constexpr Tokens kWgmmaS8U8Types[] = {kS32, kS8Only, kU8Only};
constexpr Tokens kWgmmaU8S8Types[] = {kS32, kU8Only, kS8Only};
constexpr Tokens kWgmmaB1Types[] = {kS32, kB1Only, kB1Only};
constexpr FloorRecord kWgmmaFloors[] = {
    {.sm = 90, .ptx = 80, .archOnly = true, .maxSm = 90}};
constexpr FloorRecord kWgmmaMixedIntFloors[] = {
    {.sm = 90, .ptx = 84, .archOnly = true, .maxSm = 90}};
constexpr VariantRecord kWgmmaVariants[] = {
    {kWgmmaF32F16Types, kWgmmaSlotsK16, {}, kWgmmaFloors,
     kWgmmaF16F32Signatures},
    {kWgmmaF16F16Types, kWgmmaSlotsK16, {}, kWgmmaFloors,
     kWgmmaF16F16Signatures},
    {kWgmmaBf16Types, kWgmmaSlotsK16, {}, kWgmmaFloors, kWgmmaBf16Signatures},
    {kWgmmaTf32Types, kWgmmaSlotsK8, {}, kWgmmaFloors, kWgmmaTf32Signatures},
    {kWgmmaFp8F32Types, kWgmmaSlotsK32, {}, kWgmmaFloors,
     kWgmmaFp8F32Signatures},
    {kWgmmaFp8F16Types, kWgmmaSlotsK32, {}, kWgmmaFloors,
     kWgmmaFp8F16Signatures},
    {kWgmmaS8S8Types, kWgmmaSlotsInt, {}, kWgmmaFloors, kWgmmaIntSignatures},
    {kWgmmaU8U8Types, kWgmmaSlotsInt, {}, kWgmmaFloors, kWgmmaIntSignatures},
    {kWgmmaS8U8Types, kWgmmaSlotsInt, {}, kWgmmaMixedIntFloors,
     kWgmmaIntSignatures},
    {kWgmmaU8S8Types, kWgmmaSlotsInt, {}, kWgmmaMixedIntFloors,
     kWgmmaIntSignatures},
    {kWgmmaB1Types, kWgmmaSlotsB1, kWgmmaB1Rules, kWgmmaFloors,
     kWgmmaIntSignatures}};
constexpr StringRef kWgmmaRepeatable[] = {"satfinite", "sync"};

/// The PTX type tokens, with b1 (the single-bit multiply's), which no
/// register has.
bool splitWgmmaTypes(Tokens rest, llvm::SmallVectorImpl<StringRef> &types,
                     llvm::SmallVectorImpl<StringRef> &qualifiers,
                     std::string &) {
  for (StringRef token : rest)
    (token == "b1" || mlir::tile::ptx::detail::lookupType(token) ? types
                                                                  : qualifiers)
        .push_back(token);
  return true;
}

std::string wgmmaTypeError(Tokens types) {
  return "'" + llvm::join(types, ".") +
         "' are not the types of any wgmma.mma_async form: it multiplies "
         "f16 (f32.f16.f16 or f16.f16.f16), bf16 (f32.bf16.bf16), tf32 "
         "(f32.tf32.tf32), e4m3/e5m2 (f32.e4m3.e5m2, f16.e5m2.e5m2, ...), "
         "s8/u8 (s32.s8.u8, ...) or b1 (s32.b1.b1)";
}

std::string setTypeError(Tokens types) {
  return "'" + llvm::join(types, ".") +
         "' are not the types of any set form: set.dtype.stype takes "
         "u32 or s32 with every stype; f32 with b16..b64, u16..u64, "
         "s16..s64, f32 and f64; f16 with those and f16; bf16 with those, "
         "f16 and bf16; u16 or s16 with f16 and bf16; f16x2.f16x2 and "
         "bf16x2.bf16x2";
}

#include "Tcgen05Records.inc"

const FamilyRecord kRecords[] = {
    {.name = "add", .variants = kAddVariants, .repeatable = kSatCc},
    {.name = "sub", .variants = kSubVariants, .repeatable = kSatCc},
    {.name = "mul", .variants = kMulVariants, .repeatable = kSatCc},
    {.name = "abs", .variants = kAbs},
    {.name = "neg", .variants = kNeg},
    {.name = "fma", .variants = kFmaVariants, .repeatable = kSatReluRepeats},
    {.name = "mad", .variants = kMadVariants, .repeatable = kSatCc},
    // Before cvt: a spelling is the first record whose name it begins with.
    {.name = "cvt.pack",
     .family = "cvt",
     .variants = kCvtPackVariants,
     .repeatable = kSat,
     .typeError = cvtPackTypeError},
    {.name = "cvt",
     .variants = kCvtVariants,
     .repeatable = kCvtRepeatable,
     .splitTypes = splitCvtTypes,
     .typeError = cvtTypeError},
    {.name = "mov", .variants = kMov},
    {.name = "ld", .variants = kLoadVariants, .readsMemory = true},
    {.name = "multimem.ld_reduce", .family = "multimem", .variants = kMultimemLoadVariants, .readsMemory = true},
    {.name = "multimem.st", .family = "multimem", .variants = kMultimemStoreVariants, .writesMemory = true},
    {.name = "multimem.red", .family = "multimem", .variants = kMultimemRedVariants, .readsMemory = true,
     .writesMemory = true},
    // ptxas takes .sync repeated, as one (no other qualifier).
    {.name = "tensormap.cp_fenceproxy", .variants = kTensormapCopyVariants, .repeatable = kSync, .readsMemory = true,
     .writesMemory = true, .warpCollective = true, .ordersMemory = true},
    // It writes one field of the map in memory; the generic proxy's write,
    // which a fence.proxy.tensormap::generic orders before a TMA's use.
    {.name = "tensormap.replace", .variants = kTensormapReplaceVariants, .readsMemory = true, .writesMemory = true,
     .typeError = tensormapReplaceTypeError},
    // Before st, whose name it begins with.
    {.name = "st.async", .variants = kAsyncStoreVariants, .readsMemory = true, .writesMemory = true},
    {.name = "st", .variants = kStoreVariants, .writesMemory = true},
    {.name = "ldu", .variants = kLduVariants, .readsMemory = true},
    {.name = "isspacep", .variants = kIsspacepVariants, .addressValue = true},
    // cvta.to is its own instruction to ptxas ("State space modifier
    // required for instruction 'cvta.to'"), listed before cvta.
    {.name = "cvta.to", .family = "cvta", .variants = kCvtaToVariants, .addressValue = true},
    {.name = "cvta", .variants = kCvtaVariants, .addressValue = true},
    {.name = "getctarank", .variants = kCtaRankVariants, .addressValue = true},
    {.name = "createpolicy.fractional", .family = "createpolicy",
     .variants = kFractionalPolicyVariants},
    {.name = "createpolicy.range", .family = "createpolicy",
     .variants = kRangePolicyVariants},
    {.name = "createpolicy.cvt", .family = "createpolicy",
     .variants = kCvtPolicyVariants},
    {.name = "min", .variants = kMinVariants, .repeatable = kNaNRelu},
    {.name = "max", .variants = kMaxVariants, .repeatable = kNaNRelu},
    {.name = "and", .variants = kLogic},
    {.name = "or", .variants = kLogic},
    {.name = "xor", .variants = kLogic},
    {.name = "not", .variants = kNot},
    {.name = "cnot", .variants = kCnot},
    {.name = "shl", .variants = kShl},
    {.name = "shr", .variants = kShr},
    {.name = "popc", .variants = kCountBits},
    {.name = "clz", .variants = kCountBits},
    {.name = "brev", .variants = kBrev},
    {.name = "bfind", .variants = kBfind, .repeatable = kShiftAmt},
    {.name = "bfe", .variants = kBfeVariants},
    {.name = "bfi", .variants = kBfiVariants},
    {.name = "prmt", .variants = kPrmtVariants},
    {.name = "lop3", .variants = kLop3Variants},
    {.name = "mul24", .variants = kMul24Variants},
    {.name = "mad24", .variants = kMad24Variants},
    {.name = "addc", .variants = kAddcVariants, .repeatable = kCc, .readsCarry = true},
    {.name = "subc", .variants = kAddcVariants, .repeatable = kCc, .readsCarry = true},
    {.name = "madc", .variants = kMadcVariants, .repeatable = kCc, .readsCarry = true},
    {.name = "sad", .variants = kSadVariants},
    {.name = "dp4a", .variants = kDp4aVariants},
    {.name = "dp2a", .variants = kDp2aVariants},
    {.name = "bmsk", .variants = kBmskVariants},
    {.name = "szext", .variants = kSzextVariants},
    {.name = "fns", .variants = kFnsVariants},
    {.name = "shf", .variants = kShfVariants},
    {.name = "div", .variants = kDivVariants, .repeatable = kApprox},
    {.name = "rem", .variants = kRemVariants},
    {.name = "sqrt", .variants = kSqrtVariants, .repeatable = kApprox},
    {.name = "rcp", .variants = kRcpVariants, .repeatable = kApprox},
    {.name = "rsqrt", .variants = kRsqrtVariants, .repeatable = kApprox},
    {.name = "ex2", .variants = kEx2Variants, .repeatable = kApprox},
    {.name = "lg2", .variants = kApproxF32Variants, .repeatable = kApprox},
    {.name = "sin", .variants = kApproxF32Variants, .repeatable = kApprox},
    {.name = "cos", .variants = kCosVariants, .repeatable = kApprox},
    {.name = "tanh", .variants = kTanhVariants, .repeatable = kApprox},
    {.name = "copysign", .variants = kCopysignVariants},
    // ptxas (CUDA 13.0) assembles a guarded testp as if it had no guard,
    // at -O3 and -O0 (measured on an H200, docs/difftest.md finding 8).
    {.name = "testp", .variants = kTestpVariants, .guardIgnored = true},
    {.name = "setp", .variants = kSetpVariants},
    {.name = "selp", .variants = kSelpVariants},
    {.name = "set", .variants = kSetVariants, .typeError = setTypeError},
    {.name = "slct", .variants = kSlctVariants},
    // Before cp.async: a spelling is the first record whose name it begins
    // with. A TMA reads or writes the global tensor its map describes.
    {.name = "cp.async.bulk.tensor",
     .family = "cp.async.bulk",
     .variants = kTmaVariants,
     .readsMemory = true,
     .writesMemory = true,
     .accessesDescribedMemory = true},
    {.name = "cp.async.bulk.commit_group",
     .family = "cp.async.bulk",
     .variants = kBulkCommitVariants,
     .ordersMemory = true},
    {.name = "cp.async.bulk.wait_group",
     .family = "cp.async.bulk",
     .variants = kBulkWaitVariants,
     .ordersMemory = true},
    // It reads the box of the tensor its map describes, into L2 only: no
    // operand is memory.
    {.name = "cp.async.bulk.prefetch.tensor",
     .family = "cp.async.bulk",
     .variants = kTmaPrefetchVariants,
     .accessesDescribedMemory = true},
    // After prefetch.tensor and before cp.async.bulk, whose names begin
    // its own and its. It reads its source (into L2 only).
    {.name = "cp.async.bulk.prefetch",
     .family = "cp.async.bulk",
     .variants = kBulkPrefetchVariants,
     .readsMemory = true},
    {.name = "cp.reduce.async.bulk.tensor",
     .family = "cp.async.bulk",
     .variants = kTmaReduceVariants,
     .readsMemory = true,
     .writesMemory = true,
     .accessesDescribedMemory = true},
    // After the bulk records above, whose names it begins.
    {.name = "cp.async.bulk",
     .variants = kBulkVariants,
     .readsMemory = true,
     .writesMemory = true},
    // It reads the tensor map its address names. Before plain prefetch,
    // whose name it shares: the record of spellings with .tensormap.
    {.name = "prefetch",
     .family = "prefetch.tensormap",
     .whenToken = "tensormap",
     .variants = kPrefetchTensormapVariants,
     .accessesDescribedMemory = true},
    // A line into a cache: it reads its address's line for MLIR, so that
    // nothing moves a store of it across the prefetch.
    {.name = "prefetch", .variants = kPrefetchVariants, .readsMemory = true},
    {.name = "prefetchu", .variants = kPrefetchUniformVariants,
     .readsMemory = true},
    {.name = "cp.async.mbarrier.arrive",
     .family = "cp.async",
     .variants = kCpAsyncArriveVariants,
     .readsMemory = true,
     .writesMemory = true,
     .synchronizes = true},
    {.name = "cp.async.commit_group",
     .family = "cp.async",
     .variants = kCommitGroupVariants,
     .ordersMemory = true},
    {.name = "cp.async.wait_group",
     .family = "cp.async",
     .variants = kWaitGroupVariants,
     .ordersMemory = true},
    {.name = "cp.async.wait_all",
     .family = "cp.async",
     .variants = kCommitGroupVariants,
     .ordersMemory = true},
    {.name = "cp.async",
     .variants = kCpAsyncVariants,
     .readsMemory = true,
     .writesMemory = true},
    // Before barrier and bar: a spelling is the first record whose name it
    // begins with. Every thread of the cluster reaches them: like a block
    // barrier they take no guard, and they lower through NVVM's convergent
    // operations (Form::blockBarrier).
    {.name = "barrier.cluster.arrive",
     .family = "barrier.cluster",
     .variants = kClusterArriveVariants,
     .blockBarrier = true},
    {.name = "barrier.cluster.wait",
     .family = "barrier.cluster",
     .variants = kClusterWaitVariants,
     .blockBarrier = true},
    // Before bar: a spelling is the first record whose name it begins with.
    {.name = "barrier",
     .family = "bar",
     .variants = kBarrierVariants,
     .repeatable = kBarrierRepeatable,
     .blockBarrier = true},
    {.name = "bar",
     .variants = kBarVariants,
     .repeatable = kBarrierRepeatable,
     .blockBarrier = true},
    {.name = "atom",
     .variants = kAtomVariants,
     .readsMemory = true,
     .writesMemory = true},
    // Before red, whose name it begins with.
    {.name = "red.async", .variants = kAsyncRedVariants, .readsMemory = true, .writesMemory = true},
    {.name = "red",
     .variants = kRedVariants,
     .readsMemory = true,
     .writesMemory = true},
    {.name = "shfl",
     .variants = kShflVariants,
     .repeatable = kShflSync,
     .warpCollective = true},
    {.name = "vote",
     .variants = kVoteVariants,
     .repeatable = kVoteRepeatable,
     .warpCollective = true},
    {.name = "match",
     .variants = kMatchVariants,
     .repeatable = kShflSync,
     .warpCollective = true},
    {.name = "redux",
     .variants = kReduxVariants,
     .repeatable = kShflSync,
     .warpCollective = true},
    {.name = "elect",
     .variants = kElectVariants,
     .repeatable = kShflSync,
     .warpCollective = true},
    // Not a collective (no thread waits for another), but its result is
    // the set of threads executing it with it: Form::observesWarp.
    {.name = "activemask",
     .variants = kActivemaskVariants,
     .observesWarp = true},
    // Fences order memory: Form::ordersMemory.
    {.name = "membar", .variants = kMembarVariants, .ordersMemory = true},
    // Before fence, whose name it begins with.
    // The acquire reads the map at its operand (for MLIR: nothing moves a
    // store of it across the fence); the release has no operand.
    {.name = "fence.proxy.tensormap::generic", .family = "fence", .whenToken = "acquire",
     .variants = kTensormapAcquireVariants, .readsMemory = true, .ordersMemory = true},
    {.name = "fence.proxy.tensormap::generic", .family = "fence", .variants = kTensormapReleaseVariants,
     .ordersMemory = true},
    {.name = "fence", .variants = kFenceVariants, .ordersMemory = true},
    {.name = "ldmatrix",
     .variants = kLdmatrixVariants,
     .readsMemory = true,
     .warpCollective = true},
    {.name = "stmatrix",
     .variants = kStmatrixVariants,
     .writesMemory = true,
     .warpCollective = true},
    {.name = "movmatrix", .variants = kMovmatrixVariants, .warpCollective = true},
    {.name = "griddepcontrol",
     .variants = kGridDependencyVariants,
     .ordersMemory = true},
    {.name = "nanosleep", .variants = kNanosleepVariants, .ordersMemory = true},
    // discard writes undefined bytes; applypriority touches the line's
    // cache state only, which it reads for MLIR so that nothing moves a
    // store of the line across it.
    {.name = "discard", .variants = kDiscardVariants, .writesMemory = true},
    {.name = "applypriority", .variants = kApplyPriorityVariants,
     .readsMemory = true},
    {.name = "trap", .variants = kTrapVariants, .ordersMemory = true},
    {.name = "exit", .variants = kExitVariants, .ordersMemory = true},
    {.name = "wgmma.mma_async", .family = "wgmma",
     .variants = kWgmmaVariants, .repeatable = kWgmmaRepeatable,
     .warpCollective = true, .warpgroupCollective = true,
     .accessesDescribedMemory = true, .splitTypes = splitWgmmaTypes,
     .typeError = wgmmaTypeError},
    {.name = "wgmma.fence", .family = "wgmma",
     .variants = kWgmmaNoOperandVariants, .ordersMemory = true},
    {.name = "wgmma.commit_group", .family = "wgmma",
     .variants = kWgmmaNoOperandVariants, .ordersMemory = true},
    {.name = "wgmma.wait_group", .family = "wgmma",
     .variants = kWgmmaWaitVariants, .ordersMemory = true},
    {.name = "setmaxnreg.inc", .family = "setmaxnreg",
     .variants = kSetmaxnregVariants, .ordersMemory = true},
    {.name = "setmaxnreg.dec", .family = "setmaxnreg",
     .variants = kSetmaxnregVariants, .ordersMemory = true},
    // Longer names first: a spelling is the first record whose name it
    // begins with.
    {.name = "mbarrier.arrive.expect_tx", .family = "mbarrier",
     .variants = kMbarArriveTxVariants, .readsMemory = true,
     .writesMemory = true, .synchronizes = true},
    {.name = "mbarrier.arrive_drop.expect_tx", .family = "mbarrier",
     .variants = kMbarArriveTxVariants, .readsMemory = true,
     .writesMemory = true, .synchronizes = true},
    {.name = "mbarrier.arrive", .family = "mbarrier",
     .variants = kMbarArriveVariants, .readsMemory = true,
     .writesMemory = true, .synchronizes = true},
    {.name = "mbarrier.arrive_drop", .family = "mbarrier",
     .variants = kMbarArriveVariants, .readsMemory = true,
     .writesMemory = true, .synchronizes = true},
    {.name = "mbarrier.init", .family = "mbarrier",
     .variants = kMbarInitVariants, .writesMemory = true, .synchronizes = true},
    {.name = "mbarrier.inval", .family = "mbarrier",
     .variants = kMbarInvalVariants, .writesMemory = true, .synchronizes = true},
    {.name = "mbarrier.expect_tx", .family = "mbarrier",
     .variants = kMbarTxVariants, .readsMemory = true, .writesMemory = true,
     .synchronizes = true},
    {.name = "mbarrier.complete_tx", .family = "mbarrier",
     .variants = kMbarTxVariants, .readsMemory = true, .writesMemory = true,
     .synchronizes = true},
    {.name = "mbarrier.test_wait.parity", .family = "mbarrier",
     .variants = kMbarTestParityVariants, .readsMemory = true,
     .synchronizes = true},
    {.name = "mbarrier.test_wait", .family = "mbarrier",
     .variants = kMbarTestWaitVariants, .readsMemory = true, .synchronizes = true},
    {.name = "mbarrier.try_wait.parity", .family = "mbarrier",
     .variants = kMbarTryParityVariants, .readsMemory = true,
     .synchronizes = true},
    {.name = "mbarrier.try_wait", .family = "mbarrier",
     .variants = kMbarTryWaitVariants, .readsMemory = true, .synchronizes = true},
    {.name = "mbarrier.pending_count", .family = "mbarrier",
     .variants = kMbarPendingVariants, .synchronizes = true},
    {.name = "mma",
     .variants = kMmaVariants,
     .repeatable = kMmaRepeatable,
     .warpCollective = true,
     .typeError = mmaTypeError},
    // Blackwell's tensor memory (Tcgen05Records.inc): parsed and
    // enumerated, not lowered yet. The .sync.aligned operations are warp
    // collectives (ptxas takes .sync repeated, as one); commit arrives on
    // an mbarrier; cp reads the shared memory its descriptor names.
    {.name = "tcgen05.alloc", .family = "tcgen05",
     .variants = kTmemAllocVariants, .repeatable = kSync,
     .writesMemory = true, .warpCollective = true, .accessesTensorMemory = true},
    {.name = "tcgen05.dealloc", .family = "tcgen05",
     .variants = kTmemDeallocVariants, .repeatable = kSync,
     .warpCollective = true, .accessesTensorMemory = true},
    {.name = "tcgen05.relinquish_alloc_permit", .family = "tcgen05",
     .variants = kTmemRelinquishVariants, .repeatable = kSync,
     .warpCollective = true, .accessesTensorMemory = true},
    {.name = "tcgen05.fence::before_thread_sync", .family = "tcgen05",
     .variants = kTcgen05FenceVariants, .ordersMemory = true,
     .accessesTensorMemory = true},
    {.name = "tcgen05.fence::after_thread_sync", .family = "tcgen05",
     .variants = kTcgen05FenceVariants, .ordersMemory = true,
     .accessesTensorMemory = true},
    {.name = "tcgen05.wait::ld", .family = "tcgen05",
     .variants = kTcgen05WaitVariants, .repeatable = kSync,
     .warpCollective = true, .ordersMemory = true, .accessesTensorMemory = true},
    {.name = "tcgen05.wait::st", .family = "tcgen05",
     .variants = kTcgen05WaitVariants, .repeatable = kSync,
     .warpCollective = true, .ordersMemory = true, .accessesTensorMemory = true},
    {.name = "tcgen05.ld", .family = "tcgen05",
     .variants = kTmemLoadVariants, .repeatable = kSync,
     .warpCollective = true, .accessesTensorMemory = true},
    {.name = "tcgen05.st", .family = "tcgen05",
     .variants = kTmemStoreVariants, .repeatable = kSync,
     .warpCollective = true, .accessesTensorMemory = true},
    {.name = "tcgen05.commit", .family = "tcgen05",
     .variants = kTcgen05CommitVariants, .readsMemory = true,
     .writesMemory = true, .synchronizes = true, .accessesTensorMemory = true},
    {.name = "tcgen05.shift", .family = "tcgen05",
     .variants = kTmemShiftVariants, .accessesTensorMemory = true},
    {.name = "tcgen05.cp", .family = "tcgen05", .variants = kTmemCopyVariants,
     .accessesDescribedMemory = true, .accessesTensorMemory = true},
    // A single thread issues the MMA; it reads the shared tiles its
    // descriptors name. .ws first: a spelling is the first record whose
    // name it begins with.
    {.name = "tcgen05.mma.ws", .family = "tcgen05",
     .variants = kTcgen05MmaWsVariants, .accessesDescribedMemory = true,
     .accessesTensorMemory = true, .splitTypes = splitMmaKinds, .typeError = mmaKindError},
    {.name = "tcgen05.mma", .family = "tcgen05",
     .variants = kTcgen05MmaVariants, .accessesDescribedMemory = true,
     .accessesTensorMemory = true, .splitTypes = splitMmaKinds, .typeError = mmaKindError},
};

} // namespace

llvm::ArrayRef<FamilyRecord> mlir::tile::ptx::records::familyRecords() {
  return kRecords;
}

const FamilyRecord *
mlir::tile::ptx::records::findRecord(llvm::ArrayRef<StringRef> tokens) {
  for (const FamilyRecord &record : kRecords) {
    llvm::SmallVector<StringRef, 2> name;
    record.name.split(name, '.');
    if (!record.whenToken.empty() &&
        !llvm::is_contained(tokens, record.whenToken))
      continue;
    if (tokens.size() >= name.size() &&
        tokens.take_front(name.size()) == llvm::ArrayRef<StringRef>(name))
      return &record;
  }
  return nullptr;
}
