//===- FormRecords.h - PTX instruction families as data ---------*- C++ -*-===//
//
// A family is a record: its variants list type tuples, qualifier slots and
// the types they apply to, rules between qualifiers, floors keyed by type
// and qualifier, and an operand signature. One interpreter parses spellings
// against the records and one enumerator lists their legal forms
// (FormInterpreter.cpp); docs/design.md says why the records are constexpr
// C++ rather than TableGen.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_PTX_FORMRECORDS_H
#define TILE_LIB_PTX_FORMRECORDS_H

#include "tile/PTX/Forms.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tile::ptx::records {

using Tokens = llvm::ArrayRef<llvm::StringRef>;

/// One qualifier position: at most one of `tokens`.
struct SlotRecord {
  llvm::StringRef what;
  Tokens tokens;
  bool required = false;
  /// The types (at `typeIndex`) it applies to; empty for every type of the
  /// variant.
  Tokens onlyFor = {};
  unsigned typeIndex = 0;
  /// Escape hook: whether the slot exists for these types, where that is
  /// no list (cvt's .sat between integers exists where the source range
  /// does not fit the destination's).
  bool (*appliesIf)(Tokens types) = nullptr;
};

/// A rule rejects a spelling with `message` when its condition holds. A
/// rule's `token` and `other` name a qualifier or a slot (its `what`: the
/// token chosen for it); "chosen" means that token is in the spelling. In
/// the message {ctx} is the form (add.u16), {tok} the chosen `token`,
/// {other} the chosen `other` and {type} the first type.
struct RuleRecord {
  enum Kind {
    /// `token` and `other` are both chosen, `other` not one of `allowed`.
    Excludes,
    /// `token` is chosen (a qualifier the slot list takes only to name it
    /// in a better message: cvt.relu of anything but f16/bf16 from f32).
    Chosen,
    /// `token` is chosen and the first type is narrower than `bits`.
    NarrowerThan,
    /// `token` is chosen and the first type is `bits` wide or wider.
    AtLeast,
    /// The token chosen for the slot named `token` comes after the type.
    SlotAfterType,
    /// `token` and `other` are both chosen and `other` comes first: the
    /// qualifiers are positional (mma's layouts, cp.async's state spaces).
    Before,
    /// `token` is chosen and none of `allowed` is.
    RequiresAny,
    /// `token` is chosen and `other` is not.
    Requires,
    /// `token` is not chosen (a qualifier required with its own message).
    Absent,
    /// Escape hook: `holds(types, chosen)` says.
    Hook,
    /// Not an error: when `token` and one of `allowed` are chosen (each
    /// when given) and the first type is one of `types` (when given), the
    /// form keeps `message` as its caveat, a measured way in which ptxas or
    /// the hardware departs from the ISA that the lowering warns about.
    Caveat,
  };
  Kind kind;
  llvm::StringRef token;
  llvm::StringRef other = {};
  unsigned bits = 0;
  llvm::StringRef message = {};
  Tokens allowed = {};
  /// The rule applies only to these first types (every type, when empty).
  Tokens types = {};
  bool (*holds)(Tokens types, Tokens chosen) = nullptr;
};

/// A target floor, applying when the type at `typeIndex` is one of `types`
/// (any, when empty) and `token` and `token2` (qualifiers or slots, as in a
/// rule) are chosen (always, when empty).
struct FloorRecord {
  unsigned sm, ptx;
  Tokens types = {};
  llvm::StringRef token = {};
  bool archSpecific = false;
  unsigned typeIndex = 0;
  llvm::StringRef token2 = {};
  /// Only on `a` targets from sm to maxSm (cvt.rs).
  bool archOnly = false;
  unsigned maxSm = 0;
};

/// One operand of the signature.
struct OperandRecord {
  llvm::StringRef name;
  Role role;
  Space space = Space::Reg;
  /// Its type: the variant's type at `typeIndex`, unless `fixedType` names
  /// one (mma's A fragment holds f16x2 pairs of an f16 multiply).
  unsigned typeIndex = 0;
  llvm::StringRef fixedType = {};
  unsigned count = 1;
  /// A chosen token that doubles the type's width (mul.wide).
  llvm::StringRef widenedBy = {};
  /// An immediate's values, and the fewer it takes when `narrowedBy` is
  /// chosen (cp.async.cg copies 16 bytes only).
  llvm::ArrayRef<unsigned> immediates = {};
  llvm::StringRef narrowedBy = {};
  llvm::ArrayRef<unsigned> narrowedImmediates = {};
  /// A memory operand whose byte count the immediate of this name gives.
  llvm::StringRef sizedBy = {};
  /// The measured fold a source is exposed to (Operand::fold).
  Fold fold = Fold::None;
  /// The chosen token ("sat") that exposes an integer result to
  /// Fold::IntegerSaturation.
  llvm::StringRef saturationBy = {};
  /// Registers from the digits of the token chosen for this slot (.v4: 4),
  /// else `count`.
  llvm::StringRef countFrom = {};
  /// A chosen token that doubles the register count (ldmatrix.m16n16: two
  /// registers per matrix).
  llvm::StringRef countDoubledBy = {};
  /// A memory operand's space from the token chosen for this slot (generic
  /// when none), else `space`.
  llvm::StringRef spaceFrom = {};
  /// An immediate that takes every value from 0 to this one, when
  /// `immediates` is empty, that is a multiple of `immediateStep`.
  unsigned maxImmediate = 0;
  unsigned immediateStep = 1;
  /// See Operand::readAt.
  unsigned readAt = 0;
  /// See Operand::joinedByBar.
  bool joinedByBar = false;
  /// See Operand::barBefore.
  bool barBefore = false;
  /// See Operand::exactRegister.
  bool exactRegister = false;
  /// See Operand::axes and Operand::accumulator.
  llvm::StringRef axes = {};
  bool accumulator = false;
  /// See Operand::braced.
  bool braced = false;
  /// With `countFrom` naming a shape slot: the registers are the shape's N
  /// divided by this (wgmma.m64nNk16's D: N / 2 f32 or N / 4 f16x2
  /// registers per thread).
  unsigned shapeNPerRegister = 0;
  /// An immediate's values where some are negative (wgmma's imm-scale-a:
  /// -1 or 1); used instead of `immediates` when given.
  llvm::ArrayRef<int> signedImmediates = {};
  /// The operand exists only when this token is chosen (a TMA's ctaMask
  /// with .multicast::cluster, its cache policy with .L2::cache_hint).
  llvm::StringRef onlyWith = {};
  /// See Operand::address, Operand::withinAddress and Operand::box.
  bool address = false;
  bool withinAddress = false;
  bool box = false;
  /// See Operand::bulk.
  bool bulk = false;
  /// See Operand::matrixType: the variant's type at this index (wgmma's d
  /// 0, a and a-desc 1, b-desc 2); -1 for an operand of no matrix.
  int matrixTypeIndex = -1;  /// Escape hook: the register count from the chosen tokens, where no
  /// single slot's digits give it (tcgen05.ld: the .num times the shape's
  /// registers).
  unsigned (*countOf)(Tokens chosen) = nullptr;
};

/// Several operand signatures of one spelling; which one an instruction
/// means follows from its operands (an accumulator tied to the result).
using Signature = llvm::ArrayRef<OperandRecord>;

struct VariantRecord {
  /// The type tokens, positionally: one list of alternatives per position.
  llvm::ArrayRef<Tokens> types;
  llvm::ArrayRef<SlotRecord> slots;
  llvm::ArrayRef<RuleRecord> rules;
  llvm::ArrayRef<FloorRecord> floors;
  llvm::ArrayRef<Signature> signatures;
  /// A variant only for spellings with this qualifier, and the message when
  /// the qualifier comes with types none of those variants take (cvt.rs).
  llvm::StringRef whenToken = {};
  llvm::StringRef whenMessage = {};
  /// The variant takes the previous one's type tuples with other slots,
  /// rules, floors and signatures: a spelling that both take has the forms
  /// of both, the previous one's first (min.f32 d, a, b and, from sm_100,
  /// min.f32 d, a, b, c); one that only this one takes has its forms
  /// (min.abs.f32, three inputs only).
  bool extendsPrevious = false;
  /// See Form::lowered: false for the variants of a lowered family that
  /// are parsed and enumerated before they are lowered (bar.red).
  bool lowered = true;
  /// See Form::sinkResult.
  bool sinkResult = false;
};

struct FamilyRecord {
  /// The leading tokens: "add", or "cp.async" (ptxas knows no "cp").
  llvm::StringRef name;
  /// The family its forms belong to, when not `name`: cvt.pack is a cvt.
  llvm::StringRef family = {};
  /// A record only for spellings with this token, before another of the
  /// same name (prefetch.tensormap's "tensormap", before plain prefetch).
  llvm::StringRef whenToken = {};
  llvm::ArrayRef<VariantRecord> variants;
  /// Qualifiers ptxas takes repeated, as one (add.sat.sat.f32).
  Tokens repeatable = {};
  bool readsMemory = false;
  bool writesMemory = false;
  bool warpCollective = false;
  /// See Form::warpgroupCollective and Form::accessesDescribedMemory.
  bool warpgroupCollective = false;
  bool accessesDescribedMemory = false;
  /// See Form::blockBarrier.
  bool blockBarrier = false;
  /// See Form::observesWarp.
  bool observesWarp = false;
  /// See Form::ordersMemory.
  bool ordersMemory = false;
  /// See Form::synchronizes.
  bool synchronizes = false;
  bool lowered = true;
  /// See Form::guardIgnored.
  bool guardIgnored = false;
  /// See Form::readsCarry (Form::writesCarry follows from a chosen "cc").
  bool readsCarry = false;
  /// See Form::accessesTensorMemory.
  bool accessesTensorMemory = false;
  /// See Form::addressValue.
  bool addressValue = false;
  /// Escape hooks for cvt, whose type tokens are positional among free
  /// qualifiers and whose errors name a destination or a source type:
  /// split the spelling after the name into types and qualifiers (false
  /// with `error` set when it cannot), and explain types no variant takes.
  bool (*splitTypes)(Tokens rest, llvm::SmallVectorImpl<llvm::StringRef> &types,
                     llvm::SmallVectorImpl<llvm::StringRef> &qualifiers,
                     std::string &error) = nullptr;
  std::string (*typeError)(Tokens types) = nullptr;
};

/// Every record; a spelling belongs to the first whose name it begins with.
llvm::ArrayRef<FamilyRecord> familyRecords();

/// The record whose name (add, cp.async) the spelling's tokens begin
/// with, or null.
const FamilyRecord *findRecord(Tokens tokens);

/// Parses `tokens` (the family first) against `record`: the primary form
/// and, after it, the forms of the other signatures.
std::optional<std::vector<Form>> parseRecord(const FamilyRecord &record,
                                             Tokens tokens, std::string &error);

} // namespace mlir::tile::ptx::records

#endif // TILE_LIB_PTX_FORMRECORDS_H
