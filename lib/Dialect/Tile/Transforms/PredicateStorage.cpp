//===- PredicateStorage.cpp - byte storage for predicate tiles ------------===//

#include "PredicateStorage.h"

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isSubByte(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() < 8;
}

MemRefType asBytes(MemRefType type) {
  return MemRefType::Builder(type).setElementType(
      IntegerType::get(type.getContext(), 8));
}

/// Retypes `memref` (the allocation or a view of it) and every view of it to
/// bytes, and converts the values its loads and stores carry.
LogicalResult widen(Value memref) {
  memref.setType(asBytes(cast<MemRefType>(memref.getType())));
  for (Operation *user : llvm::make_early_inc_range(memref.getUsers())) {
    OpBuilder builder(user);
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      Type predicate = load.getType();
      load.getResult().setType(builder.getI8Type());
      builder.setInsertionPointAfter(load);
      auto truncated =
          arith::TruncIOp::create(builder, load.getLoc(), predicate, load);
      load.getResult().replaceAllUsesExcept(truncated, truncated);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(user)) {
      Value byte = arith::ExtUIOp::create(builder, store.getLoc(),
                                          builder.getI8Type(),
                                          store.getValueToStore());
      store.getValueMutable().assign(byte);
      continue;
    }
    if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
            BroadcastOp>(user)) {
      if (failed(widen(user->getResult(0))))
        return failure();
      continue;
    }
    return user->emitOpError()
           << "uses a predicate tile that keeps its memory; only loads, stores "
              "and views of it can be stored as bytes";
  }
  return success();
}

} // namespace

LogicalResult mlir::tile::widenPredicateStorage(Operation *root) {
  SmallVector<memref::AllocaOp> tiles;
  root->walk([&](memref::AllocaOp alloca) {
    if (getAddressSpace(alloca.getType()) == kRegisterAddressSpace &&
        isSubByte(alloca.getType().getElementType()))
      tiles.push_back(alloca);
  });
  for (memref::AllocaOp tile : tiles)
    if (failed(widen(tile.getResult())))
      return failure();
  WalkResult left = root->walk([](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef();
    if (!memref ||
        !isSubByte(cast<MemRefType>(memref.getType()).getElementType()))
      return WalkResult::advance();
    op->emitOpError() << "accesses " << memref.getType()
                      << " in memory: elements narrower than a byte are "
                         "stored only in register tiles (address space "
                      << kRegisterAddressSpace << ")";
    return WalkResult::interrupt();
  });
  return failure(left.wasInterrupted());
}
