//===- FormSupport.h - Pieces the form parsers share ------------*- C++ -*-===//
//
// PTX type tokens, qualifier slots and the matcher that assigns qualifiers
// to slots, shared by the record interpreter (FormRecords.cpp) and the
// parsers of the families that are not records yet (Forms.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_PTX_FORMSUPPORT_H
#define TILE_LIB_PTX_FORMSUPPORT_H

#include "tile/PTX/Forms.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::tile::ptx::detail {

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;

/// A PTX data type token.
struct TypeInfo {
  StringRef name;
  /// 'b' untyped bits, 'u'/'s' integers, 'f' scalar float, 'p' packed.
  char kind;
  unsigned bits;
};

inline constexpr TypeInfo kTypes[] = {
    {"b8", 'b', 8},        {"b16", 'b', 16},      {"b32", 'b', 32},
    {"b64", 'b', 64},      {"b128", 'b', 128},    {"u8", 'u', 8},
    {"u16", 'u', 16},      {"u32", 'u', 32},      {"u64", 'u', 64},
    {"s8", 's', 8},        {"s16", 's', 16},      {"s32", 's', 32},
    {"s64", 's', 64},      {"f16", 'f', 16},      {"bf16", 'f', 16},
    {"f32", 'f', 32},      {"f64", 'f', 64},      {"tf32", 'p', 32},
    {"f16x2", 'p', 32},    {"bf16x2", 'p', 32},   {"f32x2", 'p', 64},
    {"u16x2", 'p', 32},    {"s16x2", 'p', 32},    {"e4m3x2", 'p', 16},
    {"e5m2x2", 'p', 16},   {"e2m3x2", 'p', 16},   {"e3m2x2", 'p', 16},
    {"e2m1x2", 'p', 8},    {"ue8m0x2", 'p', 16},  {"e4m3x4", 'p', 32},
    // mma's fp8 operand types: four of them in each b32 register.
    {"e4m3", 'p', 8},      {"e5m2", 'p', 8},
    {"e5m2x4", 'p', 32},   {"e2m3x4", 'p', 32},   {"e3m2x4", 'p', 32},
    {"e2m1x4", 'p', 16},
    // ldmatrix's sm_100a row formats: 16 elements in 128 bits, padded.
    {"b8x16", 'p', 128},   {"b6x16_p32", 'p', 128}, {"b4x16_p64", 'p', 128},
    // cvt.pack's destinations: no register has them.
    {"u4", 'u', 4},        {"s4", 's', 4},        {"u2", 'u', 2},
    {"s2", 's', 2},
    // A predicate register (setp's destination, selp's selector).
    {"pred", 'P', 1},
};

const TypeInfo *lookupType(StringRef name);

/// The shape a multiply's shape token spells (m64n128k16: 64, 128, 16), or
/// none for a token of another pattern (ldmatrix's m8n8).
std::optional<Form::MatrixShape> parseMatrixShape(StringRef token);

/// One position in a qualifier sequence: a named set of alternatives.
struct Slot {
  StringRef what;
  SmallVector<StringRef, 8> tokens;
  bool required = false;
};

inline std::string joinTokens(ArrayRef<StringRef> tokens) {
  return llvm::join(tokens, ", ");
}

std::string describeSlot(const Slot &slot);

/// Matches `quals` against `slots`. ptxas accepts qualifiers in any order, so
/// the order is free; each slot takes at most one token. `chosen[i]` receives
/// the token picked for slot i, or "" when absent. `context` names the form
/// in errors.
bool matchQualifiers(ArrayRef<StringRef> quals, ArrayRef<Slot> slots,
                     StringRef context, SmallVectorImpl<StringRef> &chosen,
                     std::string &error);

inline Operand reg(StringRef name, Role role, const TypeInfo *type,
            unsigned count = 1) {
  Operand operand{name.str(), role, Space::Reg, type->name.str(), type->bits,
                  count};
  operand.exactRegister = type->name == "e2m1x2";
  return operand;
}

inline Operand mem(StringRef name, Role role, Space space, const TypeInfo *type,
            unsigned count) {
  return Operand{name.str(), role, space, type->name.str(), type->bits,
                 count};
}

} // namespace mlir::tile::ptx::detail

#endif // TILE_LIB_PTX_FORMSUPPORT_H
