//===- TensorMapParams.cpp - Tensor maps as grid-constant parameters -------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETENSORMAPPARAMS
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// The bytes of a CUtensorMap (cuda.h), and the alignment it needs.
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlign = 64;

struct TileTensorMapParamsPass
    : public tile::impl::TileTensorMapParamsBase<TileTensorMapParamsPass> {
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](LLVM::PtrToIntOp cast) {
      if (!cast->removeAttr(tile::kTensorMapParamAttrName))
        return WalkResult::advance();
      auto argument = dyn_cast<BlockArgument>(cast.getArg());
      auto func = argument ? dyn_cast<LLVM::LLVMFuncOp>(
                                 argument.getOwner()->getParentOp())
                           : LLVM::LLVMFuncOp();
      if (!func || argument.getOwner() != &func.getBody().front()) {
        cast.emitOpError() << "a tensor map's address must be taken of a "
                              "kernel parameter";
        return WalkResult::interrupt();
      }
      MLIRContext *context = func.getContext();
      unsigned index = argument.getArgNumber();
      func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          IntegerType::get(context, 8), kTensorMapBytes)));
      func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                      IntegerAttr::get(IntegerType::get(context, 64),
                                       kTensorMapAlign));
      func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                      UnitAttr::get(context));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
