//===- Pipeline.cpp - The tile-to-ptx pass pipeline -----------------------===//

#include "tile/Pipeline/Pipeline.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

std::string mlir::tile::buildTileToPTXPipeline(const std::string &chip,
                                               unsigned ptxVersion,
                                               unsigned optLevel,
                                               const std::string &format) {
  // The target pass comes first: it reads the opcodes to pick a PTX ISA
  // version that has every form.
  return "tile-attach-target{chip=" +
         chip + " ptx=" + std::to_string(ptxVersion) +
         " O=" + std::to_string(optLevel) +
         "}, tile-expand, convert-tile-to-nvvm, "
         "gpu.module(expand-strided-metadata, lower-affine, convert-scf-to-cf, "
         "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true}, "
         "reconcile-unrealized-casts), "
         "gpu-module-to-binary{format=" +
         format + "}";
}

namespace {
struct TileToPTXOptions : public PassPipelineOptions<TileToPTXOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("chip of gpu.modules without a target"),
                           llvm::cl::init("sm_90")};
  Option<unsigned> ptx{*this, "ptx",
                       llvm::cl::desc("PTX ISA version times ten; 0 = lowest that works"),
                       llvm::cl::init(0)};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX), bin (cubin through ptxas) or fatbin"),
      llvm::cl::init("isa")};
};
} // namespace

void mlir::tile::registerTileToPTXPipeline() {
  PassPipelineRegistration<TileToPTXOptions>(
      "tile-to-ptx",
      "expand and lower tile IR, then serialize gpu.modules to PTX or cubin",
      [](OpPassManager &pm, const TileToPTXOptions &options) {
        std::string pipeline = buildTileToPTXPipeline(
            options.chip, options.ptx, options.optLevel, options.format);
        // The names are fixed above; a failure here is a registration bug.
        if (failed(parsePassPipeline(pipeline, pm)))
          llvm::report_fatal_error("tile-to-ptx: a pass it names is not registered");
      });
}

void mlir::tile::registerAllTilePasses() {
  registerTilePasses();
  registerTileConversionPasses();
  registerTileToPTXPipeline();
}
