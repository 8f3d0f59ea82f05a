//===- Tile.cpp - C API of the tile dialect -------------------------------===//

#include "tile-c/Tile.h"

#include "mlir/CAPI/Registration.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Pipeline/Pipeline.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, mlir::tile::TileDialect)

void tileRegisterPasses(void) { mlir::tile::registerAllTilePasses(); }
