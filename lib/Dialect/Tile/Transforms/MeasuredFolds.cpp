//===- MeasuredFolds.cpp - warnings for measured ptxas chain folds ------===//
//
// A ptxas defect that depends on two instructions, not one form, so no
// form's caveat can carry it: ptxas (CUDA 13.0) -O3 drops min.f32 whose
// source a cvt.sat.u32.s32 or cvt.sat.u32.s64 wrote, as if the u32 were a
// float saturated to 1.0, and no barrier the lowering has stops it
// (difftest campaign 7, tools/difftest/results/fold_probe.json, minmax_*;
// docs/difftest.md, finding 6). tile-expand warns at the min until a
// barrier is measured.
//
//===----------------------------------------------------------------------===//

#include "MeasuredFolds.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The tile a view addresses: the allocation, or the argument, beneath its
/// views.
Value rootTile(Value tile) {
  while (auto view = dyn_cast_or_null<ViewLikeOpInterface>(tile.getDefiningOp()))
    tile = view.getViewSource();
  return tile;
}

bool isSaturatingToUnsigned32(const ptx::Form &form) {
  if (form.family != "cvt" || form.operands.size() != 2 ||
      !llvm::is_contained(llvm::split(form.opcode, '.'), "sat"))
    return false;
  StringRef source = form.operands[1].type;
  return form.operands[0].type == "u32" && (source == "s32" || source == "s64");
}

bool isFloatMin(const ptx::Form &form) {
  return form.family == "min" && !form.operands.empty() &&
         form.operands[0].type == "f32";
}

} // namespace

void mlir::tile::FoldWatch::visit(ApplyOp apply, const ptx::Form &form) {
  ValueRange args = apply.getArgs();
  if (isSaturatingToUnsigned32(form)) {
    saturated.insert(rootTile(args[0]));
    return;
  }
  if (!isFloatMin(form))
    return;
  for (Value arg : args.drop_front()) {
    if (!saturated.contains(rootTile(arg)))
      continue;
    apply.emitWarning()
        << "ptxas (CUDA 13.0) -O3 drops " << form.opcode
        << " of a tile that cvt.sat to u32 wrote (measured on an H200): "
           "the min is not computed; assemble with -O0 until a barrier is "
           "measured";
    return;
  }
}
