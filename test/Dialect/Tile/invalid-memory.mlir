// RUN: tile-opt %s -split-input-file -verify-diagnostics

// tile.instr checks its memory operand by the rules tile.apply checks: IR
// written by hand or by another pass reaches the lowering only through them.
func.func @global_load_of_shared(%s: memref<2x1xi32, 3>) -> i32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: expected a memref in the global address space (1) for ld.global.b32, got 'memref<2x1xi32, 3>'}}
  %0 = tile.instr "ld.global.b32"() [%s[%c0, %c0] : memref<2x1xi32, 3>] : () -> i32
  return %0 : i32
}

// -----

func.func @local_store_to_global(%g: memref<2x1xi32, 1>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: expected a memref in the local address space (5) for st.local.b32, got 'memref<2x1xi32, 1>'}}
  tile.instr "st.local.b32"(%v) [%g[%c0, %c0] : memref<2x1xi32, 1>] : (i32) -> ()
  return
}

// -----

func.func @misaligned_vector(%g: memref<4x2xf32, 1>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.instr' op memory operand: a .v2 access of 32-bit elements must be aligned to 8 bytes, but layout affine_map<(d0, d1) -> (d0, d1)> places an access at an element offset that is not a multiple of 2}}
  %0:2 = tile.instr "ld.global.v2.f32"() [%g[%c0, %c1] : memref<4x2xf32, 1>] : () -> (f32, f32)
  return %0#0, %0#1 : f32, f32
}

// -----

// Sub-byte elements have no byte address of their own.
func.func @bit_elements(%g: memref<8x1xi1, 1>) -> i8 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: expected a 8-bit carrier for b8 (i8, ui8 or si8), got i1}}
  %0 = tile.instr "ld.global.b8"() [%g[%c0, %c0] : memref<8x1xi1, 1>] : () -> i8
  return %0 : i8
}

// -----

func.func @index_elements(%g: memref<8x1xindex, 1>) -> i32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: expected a 32-bit carrier for b32 (i32, ui32 or si32), got index}}
  %0 = tile.instr "ld.global.b32"() [%g[%c0, %c0] : memref<8x1xindex, 1>] : () -> i32
  return %0 : i32
}

// -----

// 2^32 + 1 once truncated to 1, the global space.
func.func @huge_address_space(%r: memref<4x1xi32, 5>, %g: memref<4x1xi32, 4294967297>) {
  // expected-error @+1 {{'tile.apply' op src: expected a memref in the global address space (1) for ld.global.b32, got 'memref<4x1xi32, 4294967297>'}}
  tile.apply "ld.global.b32"(%r, %g) : memref<4x1xi32, 5>, memref<4x1xi32, 4294967297>
  return
}

// -----

// Element offsets that wrap int64 would store every repeat to one address.
func.func @wrapping_strides(%g: memref<4x1xi32, 1>, %r: memref<4x1xi32, strided<[4611686018427387904, 1]>, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: destination layout strided<[4611686018427387904, 1]> addresses elements beyond the 64-bit index range}}
  tile.apply "ld.global.b32"(%r, %g) : memref<4x1xi32, strided<[4611686018427387904, 1]>, 5>, memref<4x1xi32, 1>
  return
}

// -----

// MemRefType asserts when asked for the strides of such a shape.
func.func @overflowing_count(%r: memref<4294967296x4294967296x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: the shape of 'memref<4294967296x4294967296x1xi32, 5>' holds more elements than a 64-bit index counts}}
  tile.apply "abs.s32"(%r, %r) : memref<4294967296x4294967296x1xi32, 5>, memref<4294967296x4294967296x1xi32, 5>
  return
}

// -----

// A runtime stride on an axis of extent 1 moves nothing: one row of a
// runtime-sized tensor is a destination. Two rows along it cannot be
// proven distinct.
gpu.module @m {
  gpu.func @runtime_rows(%g: memref<?x?xi32, 1>, %i: index) kernel {
    %r = memref.alloca() : memref<2x1xi32, 5>
    %one = memref.subview %g[%i, 0] [1, 1] [1, 1] : memref<?x?xi32, 1> to memref<1x1xi32, strided<[?, 1], offset: ?>, 1>
    %r1 = memref.subview %r[0, 0] [1, 1] [1, 1] : memref<2x1xi32, 5> to memref<1x1xi32, strided<[1, 1]>, 5>
    tile.apply "st.global.b32"(%one, %r1) : memref<1x1xi32, strided<[?, 1], offset: ?>, 1>, memref<1x1xi32, strided<[1, 1]>, 5>
    %two = memref.subview %g[%i, 0] [2, 1] [1, 1] : memref<?x?xi32, 1> to memref<2x1xi32, strided<[?, 1], offset: ?>, 1>
    // expected-error @+1 {{'tile.apply' op dst: destination layout strided<[?, 1], offset: ?> repeats along a runtime stride: its slots cannot be proven distinct}}
    tile.apply "st.global.b32"(%two, %r) : memref<2x1xi32, strided<[?, 1], offset: ?>, 1>, memref<2x1xi32, 5>
    gpu.return
  }
}

// -----

// A runtime offset the verifier can fix modulo the access: row * 8 + 4
// words starts a .v4 at a multiple of 4; row * 8 + 2 never does (the chip
// would fault: misaligned address). row * 8 + %k (unknown) passes.
gpu.module @m {
  gpu.func @runtime_misaligned(%g: memref<64x8xi32, 1>, %k: index) kernel {
    %t = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %flat = memref.collapse_shape %g [[0, 1]] : memref<64x8xi32, 1> into memref<512xi32, 1>
    %row = arith.muli %t, %c8 : index
    %r = memref.alloca() : memref<1x4xi32, 5>
    %at4 = arith.addi %row, %c4 : index
    %v4 = memref.subview %flat[%at4] [4] [1] : memref<512xi32, 1> to memref<4xi32, strided<[1], offset: ?>, 1>
    %w4 = memref.expand_shape %v4 [[0, 1]] output_shape [1, 4] : memref<4xi32, strided<[1], offset: ?>, 1> into memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
    tile.apply "ld.global.v4.b32"(%r, %w4) : memref<1x4xi32, 5>, memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
    %atk = arith.addi %row, %k : index
    %vk = memref.subview %flat[%atk] [4] [1] : memref<512xi32, 1> to memref<4xi32, strided<[1], offset: ?>, 1>
    %wk = memref.expand_shape %vk [[0, 1]] output_shape [1, 4] : memref<4xi32, strided<[1], offset: ?>, 1> into memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
    tile.apply "ld.global.v4.b32"(%r, %wk) : memref<1x4xi32, 5>, memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
    %at2 = arith.addi %row, %c2 : index
    %v2 = memref.subview %flat[%at2] [4] [1] : memref<512xi32, 1> to memref<4xi32, strided<[1], offset: ?>, 1>
    %w2 = memref.expand_shape %v2 [[0, 1]] output_shape [1, 4] : memref<4xi32, strided<[1], offset: ?>, 1> into memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
    // expected-error @+1 {{'tile.apply' op src: an access of 4 elements must start at a multiple of 4, but its runtime offset is 2 past one (modulo 4)}}
    tile.apply "ld.global.v4.b32"(%r, %w2) : memref<1x4xi32, 5>, memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
    gpu.return
  }
}
