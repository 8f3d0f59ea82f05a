//===- tile-opt.cpp - The tile optimizer driver ---------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Pipeline/Pipeline.h"

namespace {

/// The upstream passes users mix with tile's: those of the tile-to-ptx
/// pipeline, the LLVM conversions around it, and the generic cleanups. The
/// other ~400 upstream passes are left out of tile-opt (and of --help).
void registerUpstreamPasses() {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerInlinerPass();
  mlir::memref::registerExpandStridedMetadataPass();
  mlir::registerLowerAffinePass();
  mlir::registerSCFToControlFlowPass();
  mlir::registerConvertGpuOpsToNVVMOpsPass();
  mlir::registerGpuNVVMAttachTargetPass();
  mlir::registerGpuModuleToBinaryPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertMathToLLVMPass();
  mlir::registerConvertIndexToLLVMPass();
  mlir::registerConvertFuncToLLVMPass();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerFinalizeMemRefToLLVMConversionPass();
  mlir::registerConvertNVVMToLLVMPass();
}

/// --help's overview: the tile passes first, in a section of their own,
/// with the descriptions they are registered with.
std::string overview() {
  std::string text = "tile optimizer driver\n\nTile passes (also among the "
                     "passes below):\n";
  auto line = [&](llvm::StringRef argument, llvm::StringRef description) {
    text += "  --" + argument.str() +
            std::string(24 - std::min<size_t>(22, argument.size()), ' ') +
            description.str() + "\n";
  };
  for (llvm::StringRef argument : {"tile-attach-target", "tile-expand",
                                   "convert-tile-to-nvvm", "tile-local-allocas"})
    if (const mlir::PassInfo *info = mlir::PassInfo::lookup(argument))
      line(argument, info->getPassDescription());
  if (const mlir::PassPipelineInfo *info =
          mlir::PassPipelineInfo::lookup("tile-to-ptx"))
    line("tile-to-ptx", info->getPassDescription());
  return text;
}

} // namespace

int main(int argc, char **argv) {
  registerUpstreamPasses();
  mlir::tile::registerAllTilePasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::tile::TileDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, overview(), registry));
}
