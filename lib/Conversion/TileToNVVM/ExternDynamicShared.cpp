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
/// The dynamic region starts at the repeat of the 128-byte swizzle that
/// wgmma and TMA apply to shared addresses, so buffers carved from it can
/// be their operands (tile.matrix_descriptor checks the alignment); the
/// cost is at most 1008 bytes after the static shared memory.
constexpr uint64_t kDynamicSharedAlign = 1024;

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
      global.setAlignment(kDynamicSharedAlign);
    });
  }
};

} // namespace
