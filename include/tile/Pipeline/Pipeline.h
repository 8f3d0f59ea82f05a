#ifndef TILE_PIPELINE_PIPELINE_H
#define TILE_PIPELINE_PIPELINE_H

#include <string>

namespace mlir::tile {

/// The passes, as text to nest in a builtin.module anchor, from tile IR to a gpu.binary holding PTX
/// (format "isa") or a cubin (format "bin", through ptxas). With
/// `barePointers`, a kernel's memref parameters are bare pointers (their
/// shapes are static); without, memref descriptors (pointers, offset, sizes
/// and strides), which dynamic sizes need. `foldBarriers` is
/// convert-tile-to-nvvm's fold-barriers: auto, always or off.
std::string buildTileToPTXPipeline(const std::string &chip = "sm_90",
                                   unsigned ptxVersion = 0,
                                   unsigned optLevel = 3,
                                   const std::string &format = "isa",
                                   bool barePointers = true,
                                   const std::string &foldBarriers = "auto");

/// Checks the options of --tile-to-ptx before any pass sees them: a known
/// chip, a PTX ISA version this toolchain emits (0: the lowest that works)
/// and not below the chip's, an optimization level 0-3 and a format of isa,
/// bin or fatbin, and fold barriers auto, always or off. Returns the message for the first bad one, "" when all
/// are good. Upstream passes abort on such values (NVVMTargetAttr's
/// verifier, gpu-module-to-binary), and the chip is spliced into pipeline
/// text, so nothing unchecked may reach them.
std::string checkTileToPTXOptions(const std::string &chip, unsigned ptxVersion,
                                  unsigned optLevel, const std::string &format,
                                  const std::string &foldBarriers = "auto");

/// Registers --tile-to-ptx. The upstream passes it names must be registered.
void registerTileToPTXPipeline();

/// Registers the tile passes and the --tile-to-ptx pipeline.
void registerAllTilePasses();

} // namespace mlir::tile

#endif
