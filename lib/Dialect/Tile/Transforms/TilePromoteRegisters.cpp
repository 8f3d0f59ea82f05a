//===- TilePromoteRegisters.cpp - Register tiles to SSA values ------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPROMOTEREGISTERS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Collects the accesses of a register tile; false if any use cannot be
/// promoted.
bool collectAccesses(Value memref, Block *block, Type elementType,
                     SmallVectorImpl<Operation *> &accesses,
                     SmallVectorImpl<Operation *> &views) {
  for (OpOperand &use : memref.getUses()) {
    Operation *user = use.getOwner();
    if (user->getBlock() != block)
      return false;
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      if (!getStaticElementOffset(load.getMemRefType(), load.getIndices()))
        return false;
      accesses.push_back(user);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(user)) {
      if (use.getOperandNumber() != 1 ||
          !getStaticElementOffset(store.getMemRefType(), store.getIndices()))
        return false;
      accesses.push_back(user);
      continue;
    }
    if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
            BroadcastOp>(user)) {
      auto type = cast<MemRefType>(user->getResult(0).getType());
      if (type.getElementType() != elementType)
        return false;
      views.push_back(user);
      if (!collectAccesses(user->getResult(0), block, elementType, accesses,
                           views))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

struct TilePromoteRegistersPass
    : public tile::impl::TilePromoteRegistersBase<TilePromoteRegistersPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaOp> tiles;
    getOperation()->walk([&](memref::AllocaOp alloca) {
      if (getAddressSpace(alloca.getType()) == kRegisterAddressSpace &&
          alloca.getType().hasStaticShape())
        tiles.push_back(alloca);
    });
    for (memref::AllocaOp alloca : tiles)
      promote(alloca);
  }

  void promote(memref::AllocaOp alloca) {
    SmallVector<Operation *> accesses, views;
    Block *block = alloca->getBlock();
    if (!collectAccesses(alloca.getResult(), block,
                         alloca.getType().getElementType(), accesses, views))
      return;
    llvm::SmallPtrSet<Operation *, 16> isAccess(accesses.begin(),
                                                accesses.end());
    llvm::DenseMap<int64_t, Value> slots;
    OpBuilder builder(alloca);
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      if (!isAccess.contains(&op))
        continue;
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        slots[*getStaticElementOffset(store.getMemRefType(), store.getIndices())] =
            store.getValueToStore();
        continue;
      }
      auto load = cast<memref::LoadOp>(op);
      Value &slot = slots[*getStaticElementOffset(load.getMemRefType(), load.getIndices())];
      if (!slot) {
        // A register read before any write holds no defined value.
        builder.setInsertionPoint(alloca);
        slot = LLVM::UndefOp::create(builder, alloca.getLoc(), load.getType());
      }
      load.getResult().replaceAllUsesWith(slot);
    }
    for (Operation *access : accesses)
      access->erase();
    for (Operation *view : llvm::reverse(views))
      view->erase();
    alloca.erase();
  }
};

} // namespace
