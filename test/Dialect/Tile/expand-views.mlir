// RUN: tile-opt %s --tile-expand -split-input-file | FileCheck %s

// A dtype view of registers is a split or a join of SSA values, not memory
// (docs/design.md, register residency): a write through a view makes a
// fragment of the register, a read of exactly a fragment is its value, and
// a read of part of one or of several takes the bits out or joins them.

// Two halves written through a view, the word read whole: the halves are
// joined, low first.
// CHECK-LABEL: func.func @join_halves
// CHECK-NOT: memref.alloca
// CHECK: %[[A:.*]] = tile.instr "cvt.rn.f16.f32"(%{{.*}}) : (f32) -> i16
// CHECK: %[[B:.*]] = tile.instr "cvt.rn.f16.f32"(%{{.*}}) : (f32) -> i16
// CHECK: %[[LO:.*]] = arith.extui %[[A]] {tile.view_bits} : i16 to i32
// CHECK: %[[HI:.*]] = arith.extui %[[B]] {tile.view_bits} : i16 to i32
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[SH:.*]] = arith.shli %[[HI]], %[[C16]] {tile.view_bits} : i32
// CHECK: %[[W:.*]] = arith.ori %[[LO]], %[[SH]] {tile.view_bits} : i32
// CHECK: tile.instr "st.global.b32"(%[[W]])
func.func @join_halves(%x: f32, %y: f32, %o: memref<1x1xi32, 1>) {
  %w = memref.alloca() : memref<1x1xi32, 5>
  %h = tile.view %w : memref<1x1xi32, 5> to memref<1x2xi16, 5>
  %lo = memref.subview %h[0, 0] [1, 1] [1, 1] : memref<1x2xi16, 5> to memref<1x1xi16, strided<[2, 1]>, 5>
  %hi = memref.subview %h[0, 1] [1, 1] [1, 1] : memref<1x2xi16, 5> to memref<1x1xi16, strided<[2, 1], offset: 1>, 5>
  tile.apply "cvt.rn.f16.f32"(%lo, %x) : memref<1x1xi16, strided<[2, 1]>, 5>, f32
  tile.apply "cvt.rn.f16.f32"(%hi, %y) : memref<1x1xi16, strided<[2, 1], offset: 1>, 5>, f32
  tile.apply "st.global.b32"(%o, %w) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
  return
}

// -----

// A half written into a loaded word and read back through the view is the
// value written, with no bit operation; the other half is taken out of
// the word.
// CHECK-LABEL: func.func @overwrite_half
// CHECK: %[[W:.*]] = tile.instr "ld.global.b32"
// CHECK: %[[N:.*]] = tile.instr "neg.s16"
// CHECK: %[[LO:.*]] = arith.trunci %[[W]] {tile.view_bits} : i32 to i16
// CHECK: tile.instr "st.global.v2.b16"(%[[LO]], %[[N]])
func.func @overwrite_half(%g: memref<1x1xi32, 1>, %s: i16, %o: memref<1x2xi16, 1>) {
  %w = memref.alloca() : memref<1x1xi32, 5>
  tile.apply "ld.global.b32"(%w, %g) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
  %h = tile.view %w : memref<1x1xi32, 5> to memref<1x2xi16, 5>
  %hi = memref.subview %h[0, 1] [1, 1] [1, 1] : memref<1x2xi16, 5> to memref<1x1xi16, strided<[2, 1], offset: 1>, 5>
  tile.apply "neg.s16"(%hi, %s) : memref<1x1xi16, strided<[2, 1], offset: 1>, 5>, i16
  tile.apply "st.global.v2.b16"(%o, %h) : memref<1x2xi16, 1>, memref<1x2xi16, 5>
  return
}

// -----

// A float word read as bytes: bitcast, then each byte shifted out.
// CHECK-LABEL: func.func @float_bytes
// CHECK: %[[X:.*]] = tile.instr "ld.global.f32"
// CHECK: %[[B:.*]] = arith.bitcast %[[X]] {tile.view_bits} : f32 to i32
// CHECK: %[[B0:.*]] = arith.trunci %[[B]] {tile.view_bits} : i32 to i8
// CHECK: tile.instr "st.global.b8"(%[[B0]])
// CHECK: arith.constant 8 : i32
// CHECK: tile.instr "st.global.b8"
// CHECK: arith.constant 16 : i32
// CHECK: tile.instr "st.global.b8"
// CHECK: %[[C24:.*]] = arith.constant 24 : i32
// CHECK: %[[S:.*]] = arith.shrui %{{.*}}, %[[C24]] {tile.view_bits} : i32
// CHECK: %[[B3:.*]] = arith.trunci %[[S]] {tile.view_bits} : i32 to i8
// CHECK: tile.instr "st.global.b8"(%[[B3]])
func.func @float_bytes(%g: memref<1x1xf32, 1>, %o: memref<4x1xi8, 1>) {
  %x = memref.alloca() : memref<1x1xf32, 5>
  tile.apply "ld.global.f32"(%x, %g) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
  %b = tile.view %x : memref<1x1xf32, 5> to memref<1x4xi8, 5>
  %c = memref.collapse_shape %b [[0, 1]] : memref<1x4xi8, 5> into memref<4xi8, 5>
  %r = memref.expand_shape %c [[0, 1]] output_shape [4, 1] : memref<4xi8, 5> into memref<4x1xi8, 5>
  tile.apply "st.global.b8"(%o, %r) : memref<4x1xi8, 1>, memref<4x1xi8, 5>
  return
}

// -----

// A widening view: a pair of words read as one 64-bit register (joined),
// and a half of the 64-bit result read back as a word (taken out).
// CHECK-LABEL: func.func @widening
// CHECK: %[[V:.*]]:2 = tile.instr "ld.global.v2.b32"
// CHECK: %[[LO:.*]] = arith.extui %[[V]]#0 {tile.view_bits} : i32 to i64
// CHECK: %[[HI:.*]] = arith.extui %[[V]]#1 {tile.view_bits} : i32 to i64
// CHECK: %[[SH:.*]] = arith.shli %[[HI]], %{{.*}} {tile.view_bits} : i64
// CHECK: %[[J:.*]] = arith.ori %[[LO]], %[[SH]] {tile.view_bits} : i64
// CHECK: %[[D:.*]] = tile.instr "shl.b64"(%[[J]], %{{.*}}) : (i64, i32) -> i64
// CHECK: %[[F:.*]] = arith.trunci %[[D]] {tile.view_bits} : i64 to i32
// CHECK: tile.instr "st.global.b32"(%[[F]])
func.func @widening(%g: memref<1x2xi32, 1>, %n: i32, %o: memref<1x1xi32, 1>) {
  %w = memref.alloca() : memref<1x2xi32, 5>
  tile.apply "ld.global.v2.b32"(%w, %g) : memref<1x2xi32, 5>, memref<1x2xi32, 1>
  %d = tile.view %w : memref<1x2xi32, 5> to memref<1x1xi64, 5>
  tile.apply "shl.b64"(%d, %d, %n) : memref<1x1xi64, 5>, memref<1x1xi64, 5>, i32
  %first = memref.subview %w[0, 0] [1, 1] [1, 1] : memref<1x2xi32, 5> to memref<1x1xi32, strided<[2, 1]>, 5>
  tile.apply "st.global.b32"(%o, %first) : memref<1x1xi32, 1>, memref<1x1xi32, strided<[2, 1]>, 5>
  return
}

// -----

// A half never written reads zero; the defined one is joined to it.
// CHECK-LABEL: func.func @half_undefined
// CHECK: %[[U:.*]] = arith.constant 0 : i16
// CHECK: %[[A:.*]] = tile.instr "neg.s16"
// CHECK: arith.extui %[[A]] {tile.view_bits} : i16 to i32
// CHECK: arith.extui %[[U]] {tile.view_bits} : i16 to i32
func.func @half_undefined(%s: i16, %o: memref<1x1xi32, 1>) {
  %w = memref.alloca() : memref<1x1xi32, 5>
  %h = tile.view %w : memref<1x1xi32, 5> to memref<1x2xi16, 5>
  %lo = memref.subview %h[0, 0] [1, 1] [1, 1] : memref<1x2xi16, 5> to memref<1x1xi16, strided<[2, 1]>, 5>
  tile.apply "neg.s16"(%lo, %s) : memref<1x1xi16, strided<[2, 1]>, 5>, i16
  tile.apply "st.global.b32"(%o, %w) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
  return
}
