//===- PredicateStorage.h - byte storage for predicate tiles ----*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PREDICATESTORAGE_H
#define TILE_DIALECT_TILE_TRANSFORMS_PREDICATESTORAGE_H

#include "mlir/IR/Operation.h"

namespace mlir::tile {

/// Stores the predicate (i1) register tiles that keep their memory after
/// expansion (a runtime index, a use in a nested region) as bytes: the
/// allocation and its views become i8, a load truncates, a store extends.
/// Upstream MemRefToLLVM asserts on a load or store of an element narrower
/// than a byte, so any such access left afterwards is an error.
LogicalResult widenPredicateStorage(Operation *root);

} // namespace mlir::tile

#endif
