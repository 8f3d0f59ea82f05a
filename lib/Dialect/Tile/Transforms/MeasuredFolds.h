//===- MeasuredFolds.h - warnings for measured ptxas chain folds --------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_MEASUREDFOLDS_H
#define TILE_DIALECT_TILE_TRANSFORMS_MEASUREDFOLDS_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/PTX/Forms.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {

/// Watches the applies of a function in program order and warns at a
/// measured ptxas fold of two instructions that no form's caveat can name.
class FoldWatch {
public:
  void visit(ApplyOp apply, const ptx::Form &form);

private:
  /// Tiles that a saturating cvt to u32 wrote.
  llvm::DenseSet<Value> saturated;
};

} // namespace mlir::tile

#endif
