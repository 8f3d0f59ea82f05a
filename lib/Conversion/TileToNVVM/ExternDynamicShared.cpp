//===- ExternDynamicShared.cpp - Dynamic shared memory as .extern ---------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXTERNDYNAMICSHARED
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

constexpr unsigned kSharedAddressSpace = 3;

struct TileExternDynamicSharedPass
    : public tile::impl::TileExternDynamicSharedBase<
          TileExternDynamicSharedPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::GlobalOp global) {
      // A shared array of no elements holds nothing of its own: it can
      // only name the dynamic region (gpu.dynamic_shared_memory).
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != kSharedAddressSpace || !array ||
          array.getNumElements() != 0 || !global.getInitializerRegion().empty() ||
          global.getValue())
        return;
      global.setLinkage(LLVM::Linkage::External);
    });
  }
};

} // namespace
