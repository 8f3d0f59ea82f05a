// RUN: tile-opt %s -split-input-file -verify-diagnostics

// An immediate is a constant the form takes: lop3's table is 0 to 255.
func.func @immediate_out_of_range(%r: memref<2x1xi32, 5>) {
  %lut = arith.constant 256 : i32
  // expected-error @+1 {{'tile.apply' op lut: immediate 256 is not legal for lop3.b32: expected 0 to 255}}
  tile.apply "lop3.b32"(%r, %r, %r, %r, %lut) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, i32
  return
}

// -----

// arith.constant prints an i8 0xE8 as -24: read as signed, it is not a table.
func.func @immediate_negative(%r: memref<2x1xi32, 5>) {
  %lut = arith.constant -24 : i8
  // expected-error @+1 {{'tile.apply' op lut: immediate -24 is not legal for lop3.b32: expected 0 to 255}}
  tile.apply "lop3.b32"(%r, %r, %r, %r, %lut) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, i8
  return
}

// -----

func.func @immediate_at_run_time(%r: memref<2x1xi32, 5>, %lut: i32) {
  // expected-error @+1 {{'tile.apply' op lut: an immediate must be a constant (arith.constant), not a value computed at run time}}
  tile.apply "lop3.b32"(%r, %r, %r, %r, %lut) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, i32
  return
}

// -----

func.func @immediate_as_tile(%r: memref<2x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op lut: an immediate must be an integer constant, got 'memref<2x1xi32, 5>'}}
  tile.apply "lop3.b32"(%r, %r, %r, %r, %r) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>
  return
}

// -----

func.func @immediate_float(%r: memref<2x1xi32, 5>) {
  %lut = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.apply' op lut: an immediate must be an integer constant, got 'f32'}}
  tile.apply "lop3.b32"(%r, %r, %r, %r, %lut) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, f32
  return
}

// -----

// tile.instr checks its immediates too: IR written by hand reaches the
// lowering only through the verifier.
func.func @instr_immediate(%a: i32) {
  %lut = arith.constant 300 : i32
  // expected-error @+1 {{'tile.instr' op lut: immediate 300 is not legal for lop3.b32: expected 0 to 255}}
  %0 = tile.instr "lop3.b32"(%a, %a, %a, %lut) : (i32, i32, i32, i32) -> i32
  return
}
