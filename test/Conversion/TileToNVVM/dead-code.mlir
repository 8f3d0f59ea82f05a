// RUN: tile-opt %s --convert-tile-to-nvvm --canonicalize | FileCheck %s

// An unused register result may be removed; an unused load may not.
// CHECK-LABEL: func.func @unused
// CHECK-NOT: abs.f32
// CHECK: llvm.inline_asm has_side_effects "ld.global.f32
// CHECK-NOT: abs.f32
func.func @unused(%g: memref<1x1xf32, 1>, %x: f32) {
  %c0 = arith.constant 0 : index
  %0 = tile.instr "abs.f32"(%x) : (f32) -> f32
  %1 = tile.instr "ld.global.f32"() [%g[%c0, %c0] : memref<1x1xf32, 1>] : () -> f32
  return
}
