//===- Folds.cpp - The measured ptxas folds, as data ----------------------===//

#include "tile/PTX/Folds.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir::tile::ptx;

namespace {

// Measured by tools/forms/cvt_source_folds.py (ptxas 13.0 -O3, sm_90;
// tools/forms/results/cvt_source_folds_unfolded.json): every form of each
// family with a scalar 16- or 32-bit result, read only by every cvt of its
// result's type, assembles to the same computations with and without the
// barrier (15,435 pairs). Its packed results are not covered: ptxas
// narrows ex2, tanh and min of bf16x2 read as a 16-bit integer. Every
// other family had a pair that differed in the spread of all families
// (tools/forms/results/cvt_source_folds.json), or is finding 2's own
// producer (cvt: the spread's pairs missed its folds, the reproducers
// show them).
constexpr llvm::StringRef kCvtUnfolded[] = {
    "bfe", "bfi",  "bfind", "brev", "copysign", "cos", "ex2", "lg2", "lop3",
    "min", "not", "prmt",  "shl",  "shr",      "sin", "sqrt", "tanh"};

constexpr FoldClass kFoldClasses[] = {
    {Fold::CvtSource, "cvt-source", FoldProducers::Computation,
     FoldConsumers::Marked, FoldBarrier::IdentityMax,
     "ptxas -O3 folds the instruction that produced a cvt source into the "
     "conversion, with a wrong result",
     "docs/difftest.md, finding 2", kCvtUnfolded},
    {Fold::WideShiftAmount, "wide-shift-amount",
     FoldProducers::ScalarFloatResult, FoldConsumers::Marked,
     FoldBarrier::IdentityMax,
     "ptxas assembles a 64-bit shift by a float result as a shift by the "
     "float converted to an integer, at every -O level",
     "docs/difftest.md, finding 4"},
    {Fold::PackedHalfAbs, "packed-half-abs", FoldProducers::FloatResult,
     FoldConsumers::Marked, FoldBarrier::IdentityMax,
     "ptxas -O3 drops abs of packed halves after a float result it knows is "
     "not negative, so the low half keeps its sign",
     "docs/difftest.md, finding 5"},
    {Fold::IntegerSaturation, "integer-saturation", FoldProducers::Marked,
     FoldConsumers::FloatRead, FoldBarrier::SplitAndJoin,
     "ptxas -O3 takes an integer .sat result for a float in [0.0, 1.0] and "
     "drops a float min, max or saturation that such a value would not "
     "change",
     "docs/difftest.md, finding 6"},
    {Fold::ConstantFieldPosition, "constant-field-position",
     FoldProducers::ConstantField, FoldConsumers::Marked,
     FoldBarrier::OpaqueZero,
     "ptxas -O3 folds bfe.s32 with a constant position of 32 or more and a "
     "constant nonzero length to -1, whatever the sign of the source",
     "docs/difftest.md, finding 9"},
    {Fold::ReluFusion, "relu-fusion", FoldProducers::FloatResult,
     FoldConsumers::ReluMax, FoldBarrier::IdentityMax,
     "ptxas -O3 fuses an add, sub, mul or fma of halves and a "
     "max.NaN.xorsign.abs of it with +0 into an FMA with .relu, which drops "
     "the xorsign.abs",
     "docs/difftest.md, finding 14"},
};

} // namespace

llvm::ArrayRef<FoldClass> mlir::tile::ptx::foldClasses() {
  return kFoldClasses;
}

const FoldClass &mlir::tile::ptx::foldClassOf(Fold fold) {
  for (const FoldClass &foldClass : kFoldClasses)
    if (foldClass.fold == fold)
      return foldClass;
  llvm_unreachable("Fold::None has no class");
}

bool mlir::tile::ptx::isFloatType(llvm::StringRef type) {
  return type.starts_with("f") || type.starts_with("bf") ||
         type.starts_with("tf") || type.starts_with("e") ||
         type.starts_with("ue");
}

bool mlir::tile::ptx::isPackedType(llvm::StringRef type) {
  return type.contains('x');
}
