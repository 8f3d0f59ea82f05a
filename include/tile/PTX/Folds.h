//===- Folds.h - The measured ptxas folds, as data ---------------*- C++ -*-===//
//
// Each class is a wrong-code fold that ptxas (CUDA 13.0) was measured to
// make on an H200: it merges an instruction it can see (the producer) into
// one that reads its result (the consumer), and the merged result departs
// from the PTX ISA (docs/difftest.md, findings 2, 4, 5, 6, 9 and 14). The form
// records mark which operand of which family a class touches
// (Operand::fold); the lowering puts the class's barrier on that operand
// only where data flow shows a producer and a consumer of the class meet
// (lib/Conversion/TileToNVVM/FoldBarriers.cpp, docs/design.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PTX_FOLDS_H
#define TILE_PTX_FOLDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::tile::ptx {

/// The measured fold an operand is exposed to; None for most.
enum class Fold : uint8_t {
  None,
  /// A cvt source (finding 2).
  CvtSource,
  /// The amount of a 64-bit shift (finding 4).
  WideShiftAmount,
  /// The source of abs.f16x2 / abs.bf16x2 (finding 5).
  PackedHalfAbs,
  /// An integer .sat result (finding 6).
  IntegerSaturation,
  /// The position of bfe.s32 (finding 9).
  ConstantFieldPosition,
  /// A source of max.NaN.xorsign.abs on 16-bit lanes (finding 14).
  ReluFusion,
};

/// The values that start a fold: what the producer must be.
enum class FoldProducers : uint8_t {
  /// Any instruction ptxas can see that computes the value, but those of
  /// the class's `unfolded` families: the producers measured wrong were
  /// cvt, neg and mul, and a family counts unless its SASS was measured the
  /// same with and without the barrier.
  Computation,
  /// An instruction whose result is a float, scalar or packed.
  FloatResult,
  /// An instruction whose result is a scalar float (packed-half producers
  /// were measured right).
  ScalarFloatResult,
  /// The marked operand's own instruction (its integer .sat result).
  Marked,
  /// Constants: a position past the field's width and a nonzero length,
  /// both values ptxas may know (built from constants only; a load, a
  /// kernel parameter or a special register in a value makes it unknown).
  ConstantField,
};

/// The reads that complete a fold: what the consumer must be.
enum class FoldConsumers : uint8_t {
  /// The marked operand's own instruction.
  Marked,
  /// An instruction that reads the value as a float (min, max and cvt
  /// were measured wrong; other float reads are not measured and count).
  FloatRead,
  /// The marked max when it is max.NaN.xorsign.abs and its other source
  /// may be a constant (ptxas fuses it with +0 into an FMA with .relu).
  ReluMax,
};

/// Where the barrier sits.
enum class FoldBarrier : uint8_t {
  /// The source is read through an identity `max.sN t, src, INT_MIN`.
  IdentityMax,
  /// The result leaves through a split into 16-bit pieces (bytes of a
  /// 16-bit register) and a join.
  SplitAndJoin,
  /// The source is read plus a zero ptxas cannot know (%laneid >> 5), so it
  /// is no longer a constant: ptxas folds through any barrier of constants.
  OpaqueZero,
};

struct FoldClass {
  Fold fold;
  /// A short name for diagnostics and reports: "cvt-source".
  llvm::StringRef name;
  FoldProducers producers;
  FoldConsumers consumers;
  FoldBarrier barrier;
  /// What ptxas does, for the warning of fold-barriers=off.
  llvm::StringRef effect;
  /// Where the measurement is: "docs/difftest.md, finding 2".
  llvm::StringRef finding;
  /// For Computation: the families whose forms ptxas was measured to
  /// assemble the same with and without the barrier before every consumer
  /// (tools/forms/cvt_source_folds.py): no producer where their result is
  /// a scalar of 16 or 32 bits, which is what was measured.
  llvm::ArrayRef<llvm::StringRef> unfolded = {};
};

/// Every class, in the order of Fold (None excluded).
llvm::ArrayRef<FoldClass> foldClasses();

/// The class of `fold`, which is not None.
const FoldClass &foldClassOf(Fold fold);

/// Whether a PTX type token is a floating-point type: f16, bf16, tf32,
/// f32, f64, their pairs and the 8-, 6- and 4-bit float formats.
bool isFloatType(llvm::StringRef type);

/// Whether a PTX type token packs several values into one register
/// (f16x2, bf16x2, e4m3x2, ...).
bool isPackedType(llvm::StringRef type);

} // namespace mlir::tile::ptx

#endif // TILE_PTX_FOLDS_H
