//===- FormRecords.cpp - The records of the PTX families -------------------===//
//
// Facts are PTX ISA 9.0's, checked against ptxas (CUDA 13.0) by
// tools/ptxas_diff; where ptxas differs from the ISA's prose, ptxas wins and
// the record says so.
//
//===----------------------------------------------------------------------===//

#include "FormRecords.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir::tile::ptx;
using namespace mlir::tile::ptx::records;
using llvm::StringRef;

namespace {

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
constexpr VariantRecord kAddInt = {kIntTuple, kAddIntSlots, kAddIntRules, {},
                                   kBinarySignature};

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

constexpr StringRef kAbsTypes[] = {"s16",  "s32",    "s64", "f16", "f16x2",
                                   "bf16", "bf16x2", "f32", "f64"};
constexpr StringRef kAbsFtzTypes[] = {"f32", "f16", "f16x2"};
constexpr Tokens kAbsTuple[] = {kAbsTypes};
constexpr SlotRecord kAbsSlots[] = {{"ftz", kFtz, false, kAbsFtzTypes}};
constexpr OperandRecord kUnary[] = {{"dst", Role::Dst}, {"src", Role::Src}};
constexpr Signature kUnarySignature[] = {kUnary};
constexpr FloorRecord kAbsFloors[] = {{53, 65, kHalf}, {80, 70, kBf16}};
constexpr FloorRecord kNegFloors[] = {{53, 60, kHalf}, {80, 70, kBf16}};
constexpr VariantRecord kAbs[] = {
    {kAbsTuple, kAbsSlots, {}, kAbsFloors, kUnarySignature}};
constexpr VariantRecord kNeg[] = {
    {kAbsTuple, kAbsSlots, {}, kNegFloors, kUnarySignature}};

//===-- mov ----------------------------------------------------------------===//

// The packing forms of mov.b16..b128 (mov.b64 d, {a, b}) are overloads the
// interpreter adds by register width (overloadsOf in Forms.cpp).
constexpr StringRef kMovTypes[] = {"b16", "b32", "b64", "b128", "u16", "u32",
                                   "u64", "s16", "s32", "s64",  "f32", "f64"};
constexpr StringRef kB128[] = {"b128"};
constexpr Tokens kMovTuple[] = {kMovTypes};
constexpr FloorRecord kMovFloors[] = {{70, 83, kB128}};
constexpr VariantRecord kMov[] = {{kMovTuple, {}, {}, kMovFloors,
                                   kUnarySignature}};

//===-- fma (parsed and enumerated; lowered with the register set) --------===//

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
constexpr OperandRecord kFmaTied[] = {{"acc", Role::ReadWrite},
                                      {"a", Role::Src},
                                      {"b", Role::Src}};
constexpr Signature kFmaSignatures[] = {kFma, kFmaTied};
constexpr VariantRecord kFmaVariants[] = {
    {kFmaTuple, kFmaSlots, {}, {}, kFmaSignatures}};

//===-- cp.async -----------------------------------------------------------===//

// cp.async.{ca,cg}.shared{::cta}.global{.L2::prefetch} [dst], [src], size.
// Measured with ptxas 13.0: any qualifier order, but the destination space
// comes before the source space; .cg copies 16 bytes only.
constexpr StringRef kCpCache[] = {"ca", "cg"};
constexpr StringRef kSharedDst[] = {"shared", "shared::cta"};
constexpr StringRef kGlobal[] = {"global"};
constexpr StringRef kPrefetch[] = {"L2::64B", "L2::128B", "L2::256B"};
constexpr SlotRecord kCpAsyncSlots[] = {
    {"cache operator", kCpCache, true},
    {"destination state space", kSharedDst, true},
    {"source state space", kGlobal, true},
    {"prefetch size", kPrefetch}};
constexpr RuleRecord kCpAsyncRules[] = {
    {RuleRecord::Before, "shared", "global", 0,
     "'global' must follow the destination space in {ctx}: cp.async copies "
     "from global to shared memory (cp.async.ca.shared.global)"},
    {RuleRecord::Before, "shared::cta", "global", 0,
     "'global' must follow the destination space in {ctx}: cp.async copies "
     "from global to shared memory (cp.async.ca.shared::cta.global)"}};
constexpr FloorRecord kCpAsyncFloors[] = {
    {80, 70}, {80, 78, {}, "shared::cta"}, {80, 74, {}, "L2::64B"},
    {80, 74, {}, "L2::128B"}, {80, 74, {}, "L2::256B"}};
constexpr unsigned kCpSizes[] = {4, 8, 16};
constexpr unsigned kCgSizes[] = {16};
constexpr OperandRecord kCpAsync[] = {
    {"dst", Role::Dst, Space::Shared, 0, "b8", 1, {}, {}, {}, {}, "cp-size"},
    {"src", Role::Src, Space::Global, 0, "b8", 1, {}, {}, {}, {}, "cp-size"},
    {"cp-size", Role::Imm, Space::Reg, 0, "u32", 1, {}, kCpSizes, "cg",
     kCgSizes}};
constexpr Signature kCpAsyncSignature[] = {kCpAsync};
constexpr VariantRecord kCpAsyncVariants[] = {
    {{}, kCpAsyncSlots, kCpAsyncRules, kCpAsyncFloors, kCpAsyncSignature}};

//===-- mma ----------------------------------------------------------------===//

// mma.sync.aligned.m16n8k16.row.col.dtype.atype.btype.ctype d, a, b, c.
// Measured with ptxas 13.0: qualifiers in any order, alayout before
// blayout; f16 multiplies accumulate in f16 (dtype = ctype = f16) or f32,
// bf16 ones in f32 only.
constexpr StringRef kSync[] = {"sync"};
constexpr StringRef kAligned[] = {"aligned"};
constexpr StringRef kShapes[] = {"m16n8k16"};
constexpr StringRef kRow[] = {"row"};
constexpr StringRef kCol[] = {"col"};
constexpr StringRef kF16[] = {"f16"};
constexpr StringRef kBf16Only[] = {"bf16"};
constexpr SlotRecord kMmaSlots[] = {{"sync", kSync, true},
                                    {"aligned", kAligned, true},
                                    {"shape", kShapes, true},
                                    {"A layout", kRow, true},
                                    {"B layout", kCol, true}};
constexpr RuleRecord kMmaRules[] = {
    {RuleRecord::Before, "row", "col", 0,
     "'col' must follow 'row' in {ctx}: the first layout is A's (row), the "
     "second B's (col)"}};
constexpr FloorRecord kMmaFloors[] = {{80, 70}};
constexpr Tokens kMmaF32F16[] = {kF32, kF16, kF16, kF32};
constexpr Tokens kMmaF16F16[] = {kF16, kF16, kF16, kF16};
constexpr Tokens kMmaF32Bf16[] = {kF32, kBf16Only, kBf16Only, kF32};
// Fragments per thread: A four f16x2 (or bf16x2) registers, B two, C and D
// four f32 or two f16x2.
constexpr OperandRecord kMmaF32[] = {
    {"d", Role::Dst, Space::Reg, 0, {}, 4},
    {"a", Role::Src, Space::Reg, 1, "f16x2", 4},
    {"b", Role::Src, Space::Reg, 2, "f16x2", 2},
    {"c", Role::Src, Space::Reg, 3, {}, 4}};
constexpr OperandRecord kMmaF32Tied[] = {
    {"acc", Role::ReadWrite, Space::Reg, 0, {}, 4},
    {"a", Role::Src, Space::Reg, 1, "f16x2", 4},
    {"b", Role::Src, Space::Reg, 2, "f16x2", 2}};
constexpr OperandRecord kMmaF16[] = {
    {"d", Role::Dst, Space::Reg, 0, "f16x2", 2},
    {"a", Role::Src, Space::Reg, 1, "f16x2", 4},
    {"b", Role::Src, Space::Reg, 2, "f16x2", 2},
    {"c", Role::Src, Space::Reg, 3, "f16x2", 2}};
constexpr OperandRecord kMmaF16Tied[] = {
    {"acc", Role::ReadWrite, Space::Reg, 0, "f16x2", 2},
    {"a", Role::Src, Space::Reg, 1, "f16x2", 4},
    {"b", Role::Src, Space::Reg, 2, "f16x2", 2}};
constexpr OperandRecord kMmaBf16[] = {
    {"d", Role::Dst, Space::Reg, 0, {}, 4},
    {"a", Role::Src, Space::Reg, 1, "bf16x2", 4},
    {"b", Role::Src, Space::Reg, 2, "bf16x2", 2},
    {"c", Role::Src, Space::Reg, 3, {}, 4}};
constexpr OperandRecord kMmaBf16Tied[] = {
    {"acc", Role::ReadWrite, Space::Reg, 0, {}, 4},
    {"a", Role::Src, Space::Reg, 1, "bf16x2", 4},
    {"b", Role::Src, Space::Reg, 2, "bf16x2", 2}};
constexpr Signature kMmaF32Signatures[] = {kMmaF32, kMmaF32Tied};
constexpr Signature kMmaF16Signatures[] = {kMmaF16, kMmaF16Tied};
constexpr Signature kMmaBf16Signatures[] = {kMmaBf16, kMmaBf16Tied};
constexpr VariantRecord kMmaVariants[] = {
    {kMmaF32F16, kMmaSlots, kMmaRules, kMmaFloors, kMmaF32Signatures},
    {kMmaF16F16, kMmaSlots, kMmaRules, kMmaFloors, kMmaF16Signatures},
    {kMmaF32Bf16, kMmaSlots, kMmaRules, kMmaFloors, kMmaBf16Signatures}};

//===-- The table ----------------------------------------------------------===//

const FamilyRecord kRecords[] = {
    {"add", kAddVariants, kSatCc},
    {"sub", kSubVariants, kSatCc},
    {"mul", kMulVariants, kSatCc},
    {"abs", kAbs},
    {"neg", kNeg},
    {"mov", kMov},
    {"fma", kFmaVariants, {}, false, false, false, /*lowered=*/false},
    {"cp.async", kCpAsyncVariants, {}, true, true, false, /*lowered=*/false},
    {"mma", kMmaVariants, {}, false, false, /*warpCollective=*/true,
     /*lowered=*/false},
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
    if (tokens.size() >= name.size() &&
        tokens.take_front(name.size()) == llvm::ArrayRef<StringRef>(name))
      return &record;
  }
  return nullptr;
}
