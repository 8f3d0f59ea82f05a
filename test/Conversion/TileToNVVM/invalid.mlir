// RUN: tile-opt %s --convert-tile-to-nvvm -split-input-file -verify-diagnostics

// An element type LLVM has no type for cannot be addressed (found by
// tools/fuzz: this asserted in MLIR before it was checked). The instruction
// verifier now rejects it as it rejects it on tile.apply.
func.func @tf32_elements(%g: memref<1x1xtf32, 1>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: expected a 32-bit carrier for f32 (i32, ui32, si32 or f32), got tf32}}
  %0 = tile.instr "ld.global.f32"() [%g[%c0, %c0] : memref<1x1xtf32, 1>] : () -> f32
  return %0 : f32
}
