//===- FoldBarriers.h - Where the measured ptxas folds need a barrier -----===//
//
// The lowering's choice of fold barriers (include/tile/PTX/Folds.h): a
// barrier goes on an operand only where data flow shows a producer and a
// consumer of its class meet, so an instruction fed by a load, a kernel
// parameter, a special register or a constant is emitted as written.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETONVVM_FOLDBARRIERS_H
#define TILE_LIB_CONVERSION_TILETONVVM_FOLDBARRIERS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

namespace mlir::tile {

/// auto: barriers where data flow needs them; always: on every operand a
/// class marks (the lowering before data flow chose them); off: none, with
/// a warning at each instruction that auto would have guarded.
enum class FoldBarrierMode { Auto, Always, Off };

std::optional<FoldBarrierMode> parseFoldBarrierMode(StringRef text);

/// Answers, per tile.instr, which registers take their fold barrier. Run
/// it on instructions before any is lowered: it follows their operands and
/// results through the tile IR.
class FoldBarriers {
public:
  /// Looks at the kernels under `root` once: which memory they store to.
  FoldBarriers(Operation *root, FoldBarrierMode mode);

  /// Bit k set: the k-th register of `form`'s register operands (operand
  /// order, immediates and memory operands not counted), the numbering of
  /// buildInlineAsm, takes its barrier.
  uint64_t choose(InstrOp op, const ptx::Form &form);

private:
  /// What may have produced a value, as a set of ProducerKind bits.
  uint8_t producersOf(Value value);
  /// The producer kinds of `value`'s defining op, or, for one that only
  /// moves bits, none, with the values it moves in `sources`.
  uint8_t producerOf(Value value, SmallVectorImpl<Value> &sources);
  /// Whether a value may be read as a float, or by something unseen, here
  /// or through the values it flows into.
  bool reachesFloatRead(Value value);
  /// Whether a use of `value` reads it as a float or where this analysis
  /// does not look; the values it flows into go to `next`.
  bool flowsIntoFloatRead(Value value, SmallVectorImpl<Value> &next);
  /// Whether ptxas may know `value` as a constant: no load, kernel
  /// parameter or special register went into it.
  bool mayBeConstant(Value value);
  /// Whether the constant-field fold applies to the instruction whose
  /// field position is `position` and length `length`.
  bool constantFieldFolds(Value position, Value length);
  /// `value` is the marked operand, the instruction's input `input`.
  bool needsBarrier(const ptx::FoldClass &foldClass, InstrOp op, Value value,
                    unsigned input);
  void warnExposed(InstrOp op, const ptx::FoldClass &foldClass);

  /// Whether a load from `memref` at `load` may read what a store of the
  /// kernel wrote: ptxas may then forward the stored value, and its
  /// producer, to the load.
  bool mayReadAStore(Value memref, Operation *load);
  /// The values stored to the private allocation `memref` views, when
  /// memref.load and memref.store are its only accesses; null otherwise.
  const SmallVector<Value> *storedValues(Value memref);
  /// The value `load` reads from a private allocation (storedValues not
  /// null): the last store before it in its block to the same element,
  /// where that element and those of the stores between are known; null
  /// otherwise.
  Value lastStoreBefore(memref::LoadOp load);

  FoldBarrierMode mode;
  /// Program order of every op under the root.
  llvm::DenseMap<Operation *, unsigned> order;
  /// Per memory root (a kernel parameter, an allocation): the first store
  /// to it in program order, and the loops that contain a store to it.
  llvm::DenseMap<Value, unsigned> firstStore;
  llvm::DenseMap<Value, llvm::SmallPtrSet<Operation *, 2>> storeLoops;
  llvm::DenseMap<Value, uint8_t> producers;
  /// Per private allocation: the values stored to it, or none when it has
  /// other accesses.
  llvm::DenseMap<Value, std::optional<SmallVector<Value>>> tileStores;
  /// Per private allocation: the ops whose regions hold a store to it.
  llvm::DenseMap<Value, llvm::SmallPtrSet<Operation *, 8>> storeHolders;
  llvm::DenseMap<Value, bool> floatReads;
  llvm::DenseMap<Value, bool> constants;
  llvm::DenseSet<std::pair<const void *, unsigned>> warned;
};

} // namespace mlir::tile

#endif // TILE_LIB_CONVERSION_TILETONVVM_FOLDBARRIERS_H
