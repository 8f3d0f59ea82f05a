//===- Pipeline.cpp - The tile-to-ptx pass pipeline -----------------------===//

#include "tile/Pipeline/Pipeline.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/PTX/Forms.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

std::string mlir::tile::buildTileToPTXPipeline(const std::string &chip,
                                               unsigned ptxVersion,
                                               unsigned optLevel,
                                               const std::string &format,
                                               bool barePointers,
                                               const std::string &foldBarriers) {
  // The target pass comes first: it reads the opcodes to pick a PTX ISA
  // version that has every form.
  return "tile-attach-target{chip=" +
         chip + " ptx=" + std::to_string(ptxVersion) +
         " O=" + std::to_string(optLevel) +
         "}, tile-expand, convert-tile-to-nvvm" +
         (foldBarriers == "auto" ? std::string()
                                 : "{fold-barriers=" + foldBarriers + "}") +
         ", "
         "gpu.module(expand-strided-metadata, lower-affine, convert-scf-to-cf, "
         "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=" +
         (barePointers ? "true" : "false") + "}, "
         "reconcile-unrealized-casts, tile-local-allocas, "
         "tile-extern-dynamic-shared, tile-tensor-map-params), "
         "gpu-module-to-binary{format=" +
         format + "}";
}

std::string mlir::tile::checkTileToPTXOptions(const std::string &chip,
                                              unsigned ptxVersion,
                                              unsigned optLevel,
                                              const std::string &format,
                                              const std::string &foldBarriers) {
  std::optional<ptx::Target> target = ptx::Target::parse(chip);
  if (!target)
    return "unknown chip '" + chip +
           "': expected sm_XX, sm_XXa or sm_XXf with XX one of 75, 80, 86, "
           "87, 89, 90, 100, 101, 103, 110, 120, 121";
  if (ptxVersion && !ptx::Target::isKnownPtx(ptxVersion))
    return "ptx=" + std::to_string(ptxVersion) +
           " is not a PTX ISA version this toolchain emits: 60-65, 70-78 or "
           "80-" +
           std::to_string(ptx::Target::maxPtx()) +
           " (the version times ten), or 0 for the lowest that works";
  if (ptxVersion && ptxVersion < target->minPtx())
    return "ptx=" + std::to_string(ptxVersion) + " is too old for " + chip +
           ", which needs ptx=" + std::to_string(target->minPtx()) +
           " or newer";
  if (optLevel > 3)
    return "O=" + std::to_string(optLevel) + " is not 0, 1, 2 or 3";
  if (format != "isa" && format != "bin" && format != "fatbin")
    return "format=" + format + " is not isa, bin or fatbin";
  if (foldBarriers != "auto" && foldBarriers != "always" &&
      foldBarriers != "off")
    return "fold-barriers=" + foldBarriers + " is not auto, always or off";
  return "";
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
  Option<bool> barePointers{
      *this, "bare-pointers",
      llvm::cl::desc("memref kernel parameters as bare pointers (static "
                     "shapes) rather than descriptors"),
      llvm::cl::init(true)};
  Option<std::string> foldBarriers{
      *this, "fold-barriers",
      llvm::cl::desc("barriers against measured ptxas folds: auto (where data "
                     "flow needs them), always or off"),
      llvm::cl::init("auto")};
};
} // namespace

void mlir::tile::registerTileToPTXPipeline() {
  // Registered by hand rather than through PassPipelineRegistration so that
  // a bad option value is reported as an error instead of reaching the
  // passes.
  registerPassPipeline(
      "tile-to-ptx",
      "expand and lower tile IR, then serialize gpu.modules to PTX or cubin",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TileToPTXOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string error = checkTileToPTXOptions(
            options.chip, options.ptx, options.optLevel, options.format,
            options.foldBarriers);
        if (!error.empty())
          return errorHandler("tile-to-ptx: " + error);
        std::string pipeline =
            buildTileToPTXPipeline(options.chip, options.ptx, options.optLevel,
                                   options.format, options.barePointers,
                                   options.foldBarriers);
        return parsePassPipeline(pipeline, pm);
      },
      [](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(TileToPTXOptions());
      });
}

void mlir::tile::registerAllTilePasses() {
  registerTilePasses();
  registerTileConversionPasses();
  registerTileToPTXPipeline();
}
