//===- tile-opt.cpp - The tile optimizer driver ---------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Pipeline/Pipeline.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tile::registerAllTilePasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::tile::TileDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
