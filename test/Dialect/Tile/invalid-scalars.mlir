// RUN: tile-opt %s -split-input-file -verify-diagnostics

// An integer scalar read as f32 was its bit pattern: 1 added a denormal.
func.func @integer_scalar_for_float(%r: memref<4x1xf32, 5>) {
  %one = arith.constant 1 : i32
  // expected-error @+1 {{'tile.apply' op rhs: a scalar read as f32 must be f32, got 'i32'; reinterpret bits explicitly with arith.bitcast}}
  tile.apply "add.f32"(%r, %r, %one) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, i32
  return
}

// -----

// An integer tile is register storage and carries any 32-bit value.
func.func @integer_tile_for_float(%r: memref<4x1xi32, 5>) {
  %one = arith.constant 1.0 : f32
  tile.apply "add.f32"(%r, %r, %one) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, f32
  return
}

// -----

// Packed and bit types have no float scalar: their integer carrier is right.
func.func @integer_scalar_for_packed(%r: memref<4x1xi32, 5>) {
  %bits = arith.constant 1006648320 : i32
  tile.apply "add.rn.f16x2"(%r, %r, %bits) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, i32
  return
}
