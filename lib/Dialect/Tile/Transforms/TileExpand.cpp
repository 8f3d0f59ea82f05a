//===- TileExpand.cpp - Unroll tile.apply into tile.instr -----------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/DenseMap.h"


namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXPAND
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Index constants shared by every apply of a function: created once, in
/// increasing order, at the start of the entry block of the closest
/// isolated-from-above ancestor, so each instruction's loads, instruction
/// and stores stay together in the output and large expansions do not
/// repeat them.
class IndexPool {
public:
  Value get(Operation *user, int64_t value) {
    Operation *scope = user->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    Block *block = &scope->getRegion(0).front();
    SmallVector<Value> &pool = pools[block];
    if (value < static_cast<int64_t>(pool.size()))
      return pool[value];
    OpBuilder builder(user->getContext());
    if (pool.empty())
      builder.setInsertionPointToStart(block);
    else
      builder.setInsertionPointAfter(pool.back().getDefiningOp());
    for (int64_t i = pool.size(); i <= value; ++i)
      pool.push_back(arith::ConstantIndexOp::create(builder, user->getLoc(), i));
    return pool[value];
  }

private:
  llvm::DenseMap<Block *, SmallVector<Value>> pools;
};

/// Emits the instructions of one tile.apply.
class ApplyExpander {
public:
  ApplyExpander(ApplyOp apply, const ptx::Form &form, IndexPool &indices)
      : apply(apply), form(form), builder(apply), indices(indices) {
    groupRank = getScopeGroupShape(apply.getScope(), apply)->size();
  }

  void expand() {
    if (groupRank)
      groupCoordinates();
    SmallVector<int64_t> repeats = repeatShape();
    int64_t total = 1;
    for (int64_t extent : repeats)
      total *= extent;
    int64_t maxIndex = 1;
    for (int64_t extent : repeats)
      maxIndex = std::max(maxIndex, extent);
    for (const ptx::Operand &operand : form.operands)
      maxIndex = std::max<int64_t>(maxIndex, operand.count);
    indices.get(apply, maxIndex - 1);
    SmallVector<int64_t> coord(repeats.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
      emitInstruction(coord);
      for (int i = static_cast<int>(repeats.size()) - 1; i >= 0; --i) {
        if (++coord[i] < repeats[i])
          break;
        coord[i] = 0;
      }
    }
  }

private:
  SmallVector<int64_t> repeatShape() {
    for (Value arg : apply.getArgs())
      if (auto type = dyn_cast<MemRefType>(arg.getType()))
        return SmallVector<int64_t>(
            type.getShape().drop_front(groupRank).drop_back());
    return {};
  }

  /// This thread's coordinates in the group: (lane) for warp, (warp % 4,
  /// lane) for warpgroup, (warp, lane) for cta, from the linear thread id.
  void groupCoordinates() {
    Location loc = apply.getLoc();
    auto id = [&](gpu::Dimension dim) -> Value {
      return gpu::ThreadIdOp::create(builder, loc, dim);
    };
    auto dim = [&](gpu::Dimension d) -> Value {
      return gpu::BlockDimOp::create(builder, loc, d);
    };
    Value tid = id(gpu::Dimension::x);
    Value bx = dim(gpu::Dimension::x);
    Value y = arith::MulIOp::create(builder, loc, id(gpu::Dimension::y), bx);
    Value bxy = arith::MulIOp::create(builder, loc, bx, dim(gpu::Dimension::y));
    Value z = arith::MulIOp::create(builder, loc, id(gpu::Dimension::z), bxy);
    tid = arith::AddIOp::create(builder, loc, tid, y);
    tid = arith::AddIOp::create(builder, loc, tid, z);
    Value c32 = arith::ConstantIndexOp::create(builder, loc, 32);
    Value lane = arith::RemUIOp::create(builder, loc, tid, c32);
    Value warp = arith::DivUIOp::create(builder, loc, tid, c32);
    if (apply.getScope() == "warpgroup") {
      Value c4 = arith::ConstantIndexOp::create(builder, loc, 4);
      warp = arith::RemUIOp::create(builder, loc, warp, c4);
    }
    if (groupRank == 2)
      memoryGroup.push_back(warp);
    memoryGroup.push_back(lane);
  }

  /// Indices of a slot. In a register tile a thread holds only its own
  /// group row, at group index 0 of its private storage; in memory the
  /// group axes select this thread's row.
  SmallVector<Value> slot(ArrayRef<int64_t> coord, int64_t reg,
                          bool memory = false) {
    SmallVector<Value> result;
    for (unsigned axis = 0; axis < groupRank; ++axis)
      result.push_back(memory ? memoryGroup[axis] : indices.get(apply, 0));
    for (int64_t c : coord)
      result.push_back(indices.get(apply, c));
    result.push_back(indices.get(apply, reg));
    return result;
  }

  void emitInstruction(ArrayRef<int64_t> coord) {
    Location loc = apply.getLoc();
    SmallVector<Value> inputs, keep;
    SmallVector<Type> resultTypes;
    Value memref;
    SmallVector<Value> memIndices;
    for (auto [value, operand] : llvm::zip_equal(apply.getArgs(), form.operands)) {
      if (operand.isMemory()) {
        memref = value;
        memIndices = slot(coord, 0, /*memory=*/true);
        continue;
      }
      auto tile = dyn_cast<MemRefType>(value.getType());
      if (operand.role == ptx::Role::Src) {
        if (!tile) {
          inputs.push_back(value);
          continue;
        }
        for (unsigned reg = 0; reg < operand.count; ++reg)
          inputs.push_back(
              memref::LoadOp::create(builder, loc, value, slot(coord, reg)));
        continue;
      }
      for (unsigned reg = 0; reg < operand.count; ++reg) {
        resultTypes.push_back(tile.getElementType());
        if (apply.getPreserveDst())
          keep.push_back(
              memref::LoadOp::create(builder, loc, value, slot(coord, reg)));
      }
    }
    auto instr = InstrOp::create(builder, loc, resultTypes,
                                 apply.getOpcodeAttr(), inputs, memref,
                                 memIndices, apply.getPred(), keep);
    unsigned result = 0;
    for (auto [value, operand] : llvm::zip_equal(apply.getArgs(), form.operands)) {
      if (operand.isMemory() || operand.role != ptx::Role::Dst)
        continue;
      for (unsigned reg = 0; reg < operand.count; ++reg)
        memref::StoreOp::create(builder, loc, instr.getResult(result++), value,
                                slot(coord, reg));
    }
  }

  ApplyOp apply;
  const ptx::Form &form;
  OpBuilder builder;
  IndexPool &indices;
  unsigned groupRank = 0;
  SmallVector<Value> memoryGroup;
};

constexpr int64_t kMaxInstructions = int64_t(1) << 24;

struct TileExpandPass : public tile::impl::TileExpandBase<TileExpandPass> {
  void runOnOperation() override {
    SmallVector<ApplyOp> applies;
    getOperation()->walk([&](ApplyOp apply) { applies.push_back(apply); });
    IndexPool indices;
    for (ApplyOp apply : applies) {
      std::string error;
      std::optional<ptx::Form> form = ptx::parseForm(apply.getOpcode(), error);
      if (!form) {
        apply.emitOpError() << error;
        return signalPassFailure();
      }
      form = selectForm(*form, apply.getArgs());
      // Expansion is linear in the repeats; past this many instructions per
      // apply the input is a mistake, not a kernel (LLVM could not compile
      // it), so fail fast instead of exhausting memory.
      int64_t instructions = 1;
      for (Value arg : apply.getArgs())
        if (auto type = dyn_cast<MemRefType>(arg.getType())) {
          unsigned groupRank =
              getScopeGroupShape(apply.getScope(), apply)->size();
          for (int64_t extent : type.getShape().drop_front(groupRank).drop_back())
            instructions = extent != 0 && instructions > kMaxInstructions / extent
                               ? kMaxInstructions + 1
                               : instructions * extent;
          break;
        }
      if (instructions > kMaxInstructions) {
        apply.emitOpError() << "expands to more than " << kMaxInstructions
                            << " instructions per thread, the limit of "
                               "--tile-expand";
        return signalPassFailure();
      }
      ApplyExpander(apply, *form, indices).expand();
      apply.erase();
    }
  }
};

} // namespace
