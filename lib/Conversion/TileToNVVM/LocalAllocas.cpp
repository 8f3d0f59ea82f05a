//===- LocalAllocas.cpp - Generic allocas for local memory ----------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOCALALLOCAS
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

constexpr unsigned kLocalAddressSpace = 5;
constexpr uint64_t kMinAlignment = 16;

struct TileLocalAllocasPass
    : public tile::impl::TileLocalAllocasBase<TileLocalAllocasPass> {
  void runOnOperation() override {
    SmallVector<LLVM::AllocaOp> locals;
    getOperation()->walk([&](LLVM::AllocaOp alloca) {
      if (alloca.getType().getAddressSpace() == kLocalAddressSpace)
        locals.push_back(alloca);
    });
    for (LLVM::AllocaOp alloca : locals) {
      OpBuilder builder(alloca);
      // A register tile allocated inside a branch or a loop (a T.if_ body)
      // moves to the entry block: LLVM promotes only the entry block's
      // static allocas to registers, and left there it was a stack frame
      // in local memory. Its storage is the same for every entry into the
      // region, which only ever holds one instance of it at a time.
      auto func = alloca->getParentOfType<LLVM::LLVMFuncOp>();
      APInt size;
      if (func && alloca->getBlock() != &func.getBody().front() &&
          matchPattern(alloca.getArraySize(), m_ConstantInt(&size))) {
        builder.setInsertionPointToStart(&func.getBody().front());
        Value count = LLVM::ConstantOp::create(
            builder, alloca.getLoc(), alloca.getArraySize().getType(),
            size.getSExtValue());
        alloca.getArraySizeMutable().assign(count);
      }
      // At least 16 bytes: the expansion's slot accesses state their
      // natural alignment (up to 16 for 128-bit registers), which the
      // storage must honour whatever data layout LLVM is given.
      auto generic = LLVM::AllocaOp::create(
          builder, alloca.getLoc(), LLVM::LLVMPointerType::get(&getContext()),
          alloca.getElemType(), alloca.getArraySize(),
          std::max<uint64_t>(alloca.getAlignment().value_or(0), kMinAlignment));
      auto local = LLVM::AddrSpaceCastOp::create(
          builder, alloca.getLoc(), alloca.getType(), generic.getResult());
      // A register read before any write (through a runtime index, inside a
      // T.if_) reads 0, not LLVM's undef: ptxas's code for a never-written
      // register broke the warp on the H200 (docs/difftest.md, finding 12).
      // LLVM drops the zeros that every path overwrites.
      if (matchPattern(alloca.getArraySize(), m_ConstantInt(&size))) {
        uint64_t bytes = size.getZExtValue() *
                         DataLayout::closest(alloca).getTypeSize(
                             alloca.getElemType());
        Value zero = LLVM::ConstantOp::create(builder, alloca.getLoc(),
                                              builder.getI8Type(), 0);
        Value length = LLVM::ConstantOp::create(
            builder, alloca.getLoc(), builder.getI64Type(), bytes);
        LLVM::MemsetOp::create(builder, alloca.getLoc(), generic.getResult(),
                               zero, length, /*isVolatile=*/false);
      }
      alloca.replaceAllUsesWith(local.getResult());
      alloca.erase();
    }
  }
};

} // namespace
