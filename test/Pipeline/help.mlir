// tile-opt --help starts with the tile passes, in a section of their own,
// and registers only the upstream passes users mix with them.
// RUN: tile-opt --help | FileCheck %s

// CHECK: OVERVIEW: tile optimizer driver
// CHECK-EMPTY:
// CHECK-NEXT: Tile passes (also among the passes below):
// CHECK-NEXT: --tile-attach-target      give every gpu.module an NVVM target
// CHECK-NEXT: --tile-expand             unroll tile.apply into one tile.instr per repeat
// CHECK-NEXT: --convert-tile-to-nvvm    lower tile.instr and tile views to the LLVM dialect
// CHECK-NEXT: --tile-local-allocas
// CHECK-NEXT: --tile-to-ptx             expand and lower tile IR
// CHECK-NOT: --affine-loop-tile
// CHECK-NOT: --test-arm-sme-tile-allocation
// CHECK: --convert-gpu-to-nvvm
// CHECK: --gpu-module-to-binary
