/*===- tile-c/Tile.h - C API of the tile dialect -------------------*- C -*-===*/

#ifndef TILE_C_TILE_H
#define TILE_C_TILE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);

/// Registers the tile passes and the tile-to-ptx pipeline globally.
MLIR_CAPI_EXPORTED void tileRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif
