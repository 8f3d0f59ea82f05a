// RUN: tile-opt %s | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @apply_forms
// CHECK-SAME: (%[[P:.*]]: i1, %[[S:.*]]: f32)
func.func @apply_forms(%p: i1, %s: f32) {
  // CHECK: %[[A:.*]] = memref.alloca() : memref<8x1xi32, 5>
  %a = memref.alloca() : memref<8x1xi32, 5>
  %r = memref.alloca() : memref<4x1xf32, 5>
  // CHECK: tile.apply "add.rn.f16x2"(%[[A]], %[[A]], %[[A]]) : memref<8x1xi32, 5>, memref<8x1xi32, 5>, memref<8x1xi32, 5>
  tile.apply "add.rn.f16x2"(%a, %a, %a) : memref<8x1xi32, 5>, memref<8x1xi32, 5>, memref<8x1xi32, 5>
  // CHECK: tile.apply "abs.f32"(%[[R:.*]], %[[R]]) if %[[P]] {preserve_dst} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  tile.apply "abs.f32"(%r, %r) if %p {preserve_dst} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  // CHECK: tile.apply "add.f32"(%[[R]], %[[R]], %[[S]]) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, f32
  tile.apply "add.f32"(%r, %r, %s) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, f32
  // CHECK: tile.apply "neg.f32"(%[[R]], %[[R]]) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  tile.apply "neg.f32"(%r, %r) {scope = "thread"} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// CHECK-LABEL: func.func @instr_forms
func.func @instr_forms(%g: memref<8x1xi32, 1>, %x: i32, %p: i1) -> i32 {
  %c0 = arith.constant 0 : index
  // CHECK: tile.instr "ld.global.b32"() [%{{.*}}[%{{.*}}, %{{.*}}] : memref<8x1xi32, 1>] : () -> i32
  %v = tile.instr "ld.global.b32"() [%g[%c0, %c0] : memref<8x1xi32, 1>] : () -> i32
  // CHECK: tile.instr "add.rn.f16x2"(%{{.*}}, %{{.*}}) if %{{.*}} keep(%{{.*}} : i32) : (i32, i32) -> i32
  %w = tile.instr "add.rn.f16x2"(%v, %x) if %p keep(%x : i32) : (i32, i32) -> i32
  // CHECK: tile.instr "st.global.b32"(%{{.*}}) [%{{.*}}[%{{.*}}, %{{.*}}] : memref<8x1xi32, 1>] : (i32) -> ()
  tile.instr "st.global.b32"(%w) [%g[%c0, %c0] : memref<8x1xi32, 1>] : (i32) -> ()
  return %w : i32
}

// CHECK-LABEL: func.func @views
func.func @views() {
  %w = memref.alloca() : memref<4x1xi32, 5>
  // CHECK: tile.view %{{.*}} : memref<4x1xi32, 5> to memref<4x2xi16, 5>
  %h = tile.view %w : memref<4x1xi32, 5> to memref<4x2xi16, 5>
  // CHECK: memref.subview
  %h1 = memref.subview %h[0, 1] [4, 1] [1, 1] : memref<4x2xi16, 5> to memref<4x1xi16, strided<[2, 1], offset: 1>, 5>
  %s = memref.alloca() : memref<1x1xf32, 5>
  // CHECK: tile.broadcast %{{.*}} : memref<1x1xf32, 5> to memref<8x1xf32, strided<[0, 1]>, 5>
  %b = tile.broadcast %s : memref<1x1xf32, 5> to memref<8x1xf32, strided<[0, 1]>, 5>
  return
}

// A predicate tile is written with its type, in parentheses.
// CHECK-LABEL: func.func @predicate_tile
func.func @predicate_tile(%a: memref<4x1xi32, 5>) {
  // CHECK: %[[P:.*]] = memref.alloca() : memref<4x1xi1, 5>
  %p = memref.alloca() : memref<4x1xi1, 5>
  // CHECK: tile.apply "setp.lt.s32"(%[[P]], %{{.*}}, %{{.*}}) : memref<4x1xi1, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  tile.apply "setp.lt.s32"(%p, %a, %a) : memref<4x1xi1, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  // CHECK: tile.apply "neg.s32"(%{{.*}}, %{{.*}}) if (%[[P]] : memref<4x1xi1, 5>) {preserve_dst} : memref<4x1xi32, 5>, memref<4x1xi32, 5>
  tile.apply "neg.s32"(%a, %a) if (%p : memref<4x1xi1, 5>) {preserve_dst} : memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}
