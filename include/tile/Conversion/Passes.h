#ifndef TILE_CONVERSION_PASSES_H
#define TILE_CONVERSION_PASSES_H

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

namespace mlir::tile {

#define GEN_PASS_DECL_TILELOCALALLOCAS
#define GEN_PASS_DECL_TILEEXTERNDYNAMICSHARED
#define GEN_PASS_DECL_TILETENSORMAPPARAMS
#include "tile/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Conversion/Passes.h.inc"

} // namespace mlir::tile

#endif
