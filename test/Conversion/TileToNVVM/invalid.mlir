// RUN: tile-opt %s --convert-tile-to-nvvm -split-input-file -verify-diagnostics

// An element type LLVM has no type for cannot be addressed (found by
// tools/fuzz: this asserted in MLIR before it was checked).
func.func @tf32_elements(%g: memref<1x1xtf32, 1>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op operand or result of type 'memref<1x1xtf32, 1>' has no LLVM type to lower to}}
  %0 = tile.instr "ld.global.f32"() [%g[%c0, %c0] : memref<1x1xtf32, 1>] : () -> f32
  return %0 : f32
}
