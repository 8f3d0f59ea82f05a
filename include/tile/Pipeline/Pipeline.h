#ifndef TILE_PIPELINE_PIPELINE_H
#define TILE_PIPELINE_PIPELINE_H

#include <string>

namespace mlir::tile {

/// The passes, as text to nest in a builtin.module anchor, from tile IR to a gpu.binary holding PTX
/// (format "isa") or a cubin (format "bin", through ptxas).
std::string buildTileToPTXPipeline(const std::string &chip = "sm_90",
                                   unsigned ptxVersion = 0,
                                   unsigned optLevel = 3,
                                   const std::string &format = "isa");

/// Registers --tile-to-ptx. The upstream passes it names must be registered.
void registerTileToPTXPipeline();

/// Registers the tile passes and the --tile-to-ptx pipeline.
void registerAllTilePasses();

} // namespace mlir::tile

#endif
