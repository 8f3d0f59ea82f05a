// RUN: tile-opt %s --tile-expand -split-input-file | FileCheck %s

// One instruction per repeat, in row-major order, with its slot loads before
// and its slot stores after.
// CHECK-LABEL: func.func @row_major
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[A00:.*]] = memref.load %[[A:.*]][%[[C0]], %[[C0]], %[[C0]]]
// CHECK: %[[B00:.*]] = memref.load %[[B:.*]][%[[C0]], %[[C0]], %[[C0]]]
// CHECK: %[[S00:.*]] = tile.instr "sub.s32"(%[[A00]], %[[B00]]) : (i32, i32) -> i32
// CHECK: memref.store %[[S00]], %[[D:.*]][%[[C0]], %[[C0]], %[[C0]]]
// CHECK: memref.load %[[A]][%[[C0]], %[[C1]], %[[C0]]]
// CHECK: memref.load %[[B]][%[[C0]], %[[C1]], %[[C0]]]
// CHECK: tile.instr "sub.s32"
// CHECK: memref.store %{{.*}}, %[[D]][%[[C0]], %[[C1]], %[[C0]]]
// CHECK: memref.load %[[A]][%[[C1]], %[[C0]], %[[C0]]]
// CHECK-COUNT-2: tile.instr "sub.s32"
// CHECK-NOT: tile.instr
// CHECK-NOT: tile.apply
func.func @row_major(%d: memref<2x2x1xi32, 5>, %a: memref<2x2x1xi32, 5>, %b: memref<2x2x1xi32, 5>) {
  tile.apply "sub.s32"(%d, %a, %b) : memref<2x2x1xi32, 5>, memref<2x2x1xi32, 5>, memref<2x2x1xi32, 5>
  return
}

// -----

// A scalar input is reused by every repeat, on the side it was written.
// CHECK-LABEL: func.func @scalar_broadcast
// CHECK-SAME: %[[S:[a-z0-9]+]]: f32
// CHECK: tile.instr "sub.f32"(%[[S]], %{{.*}}) : (f32, f32) -> f32
// CHECK: tile.instr "sub.f32"(%[[S]], %{{.*}}) : (f32, f32) -> f32
// CHECK: tile.instr "sub.f32"(%[[S]], %{{.*}}) : (f32, f32) -> f32
// CHECK-NOT: tile.instr
func.func @scalar_broadcast(%d: memref<3x1xf32, 5>, %s: f32) {
  tile.apply "sub.f32"(%d, %s, %d) : memref<3x1xf32, 5>, f32, memref<3x1xf32, 5>
  return
}

// -----

// The register axis of a vector load binds in increasing order; the memory
// side is addressed at the first element of each repeat.
// CHECK-LABEL: func.func @vector_load
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[V:.*]]:2 = tile.instr "ld.global.v2.f32"() [%[[G:.*]][%[[C0]], %[[C0]]] : memref<2x2xf32, 1>] : () -> (f32, f32)
// CHECK: memref.store %[[V]]#0, %[[R:.*]][%[[C0]], %[[C0]]]
// CHECK: memref.store %[[V]]#1, %[[R]][%[[C0]], %[[C1]]]
// CHECK: tile.instr "ld.global.v2.f32"() [%[[G]][%[[C1]], %[[C0]]] : memref<2x2xf32, 1>]
func.func @vector_load(%r: memref<2x2xf32, 5>, %g: memref<2x2xf32, 1>) {
  tile.apply "ld.global.v2.f32"(%r, %g) : memref<2x2xf32, 5>, memref<2x2xf32, 1>
  return
}

// -----

// The spec's cvt example: d[i] = cvt(a[i][1], a[i][0]) through subviews.
// CHECK-LABEL: func.func @packed_cvt
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[HI:.*]] = memref.load %[[AHI:.*]][%[[C0]], %[[C0]]] {alignment = 4 : i64} : memref<4x1xf32, strided<[2, 1], offset: 1>, 5>
// CHECK: %[[LO:.*]] = memref.load %[[ALO:.*]][%[[C0]], %[[C0]]] {alignment = 4 : i64} : memref<4x1xf32, strided<[2, 1]>, 5>
// CHECK: tile.instr "cvt.rn.f16x2.f32"(%[[HI]], %[[LO]]) : (f32, f32) -> i32
// CHECK-COUNT-3: tile.instr "cvt.rn.f16x2.f32"
// CHECK-NOT: tile.instr
func.func @packed_cvt(%a: memref<4x2xf32, 5>, %d: memref<4x1xi32, 5>) {
  %hi = memref.subview %a[0, 1] [4, 1] [1, 1] : memref<4x2xf32, 5> to memref<4x1xf32, strided<[2, 1], offset: 1>, 5>
  %lo = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x2xf32, 5> to memref<4x1xf32, strided<[2, 1]>, 5>
  tile.apply "cvt.rn.f16x2.f32"(%d, %hi, %lo) : memref<4x1xi32, 5>, memref<4x1xf32, strided<[2, 1], offset: 1>, 5>, memref<4x1xf32, strided<[2, 1]>, 5>
  return
}

// -----

// preserve_dst loads the previous destination value and keeps it.
// CHECK-LABEL: func.func @preserve
// CHECK-SAME: %[[P:[a-z0-9]+]]: i1
// CHECK: %[[OLD:.*]] = memref.load %[[R:.*]][%[[C0:.*]], %[[C0]]]
// CHECK: %[[SRC:.*]] = memref.load %[[R]][%[[C0]], %[[C0]]]
// CHECK: %[[NEW:.*]] = tile.instr "neg.f32"(%[[SRC]]) if %[[P]] keep(%[[OLD]] : f32) : (f32) -> f32
// CHECK: memref.store %[[NEW]], %[[R]][%[[C0]], %[[C0]]]
func.func @preserve(%r: memref<1x1xf32, 5>, %p: i1) {
  tile.apply "neg.f32"(%r, %r) if %p {preserve_dst} : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  return
}

// -----

// Found by scopes work: expanding a group scope needs the gpu dialect, which
// tile-expand loads itself (it used to abort with an uninitialized storage
// uniquer when the input had no gpu op).
// CHECK-LABEL: func.func @gpu_dialect_loaded
// CHECK: gpu.thread_id x
func.func @gpu_dialect_loaded(%g: memref<32x1x1xf32, 1>) {
  %r = memref.alloca() {tile.scope = "warp"} : memref<32x1x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) {scope = "warp"} : memref<32x1x1xf32, 5>, memref<32x1x1xf32, 1>
  return
}

// -----

// Three operands select fma's tied signature (acc, a, b): each repeat reads
// the accumulator, and the instruction's result is stored back into it.
// The instruction names the signature it has: overload 1.
// CHECK-LABEL: func.func @fma_tied
// CHECK-SAME: (%[[ACC:.*]]: memref<2x1xf32, 5>, %[[A:.*]]: memref<2x1xf32, 5>, %[[B:.*]]: f32)
// CHECK: %[[OLD0:.*]] = memref.load %[[ACC]][%[[C0:.*]], %[[C0]]]
// CHECK: %[[A0:.*]] = memref.load %[[A]][%[[C0]], %[[C0]]]
// CHECK: %[[NEW0:.*]] = tile.instr "fma.rn.f32"(%[[OLD0]], %[[A0]], %[[B]]) {overload = 1 : i32} : (f32, f32, f32) -> f32
// CHECK: memref.store %[[NEW0]], %[[ACC]][%[[C0]], %[[C0]]]
// CHECK: %[[OLD1:.*]] = memref.load %[[ACC]][%[[C1:.*]], %[[C0]]]
// CHECK: tile.instr "fma.rn.f32"(%[[OLD1]], %{{.*}}, %[[B]]) {overload = 1 : i32}
func.func @fma_tied(%acc: memref<2x1xf32, 5>, %a: memref<2x1xf32, 5>, %b: f32) {
  tile.apply "fma.rn.f32"(%acc, %a, %b) : memref<2x1xf32, 5>, memref<2x1xf32, 5>, f32
  return
}

// -----

// Four operands select the primary signature, which is not printed.
// CHECK-LABEL: func.func @fma_untied
// CHECK: tile.instr "fma.rn.f32"(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
func.func @fma_untied(%d: memref<1x1xf32, 5>, %a: memref<1x1xf32, 5>, %b: f32) {
  tile.apply "fma.rn.f32"(%d, %a, %b, %b) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, f32, f32
  return
}

// -----

// preserve_dst on a form without dst registers keeps nothing extra: the rw
// accumulator is preserved by its tie.
// CHECK-LABEL: func.func @fma_tied_preserve
// CHECK: tile.instr "fma.rn.f32"(%{{.*}}, %{{.*}}, %{{.*}}) if %{{.*}} {overload = 1 : i32} : (f32, f32, f32) -> f32
func.func @fma_tied_preserve(%acc: memref<1x1xf32, 5>, %a: f32, %p: i1) {
  tile.apply "fma.rn.f32"(%acc, %a, %a) if %p {preserve_dst} : memref<1x1xf32, 5>, f32, f32
  return
}

// -----

// A predicate tile gives each repeat its own predicate: setp writes it,
// the predicated instruction of repeat i reads slot i.
// CHECK-LABEL: func.func @predicate_tile
// CHECK: %[[P0:.*]] = tile.instr "setp.lt.s32"(%{{.*}}, %{{.*}}) : (i32, i32) -> i1
// CHECK: %[[P1:.*]] = tile.instr "setp.lt.s32"(%{{.*}}, %{{.*}}) : (i32, i32) -> i1
// CHECK: tile.instr "neg.s32"(%{{.*}}) if %[[P0]] : (i32) -> i32
// CHECK: tile.instr "neg.s32"(%{{.*}}) if %[[P1]] : (i32) -> i32
// CHECK: tile.instr "selp.b32"(%{{.*}}, %{{.*}}, %[[P0]]) : (i32, i32, i1) -> i32
// CHECK: tile.instr "selp.b32"(%{{.*}}, %{{.*}}, %[[P1]]) : (i32, i32, i1) -> i32
// CHECK-NOT: memref.alloca() : memref<2x1xi1, 5>
func.func @predicate_tile(%a: memref<2x1xi32, 5>, %b: memref<2x1xi32, 5>) {
  %p = memref.alloca() : memref<2x1xi1, 5>
  tile.apply "setp.lt.s32"(%p, %a, %b) : memref<2x1xi1, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>
  tile.apply "neg.s32"(%a, %a) if (%p : memref<2x1xi1, 5>) : memref<2x1xi32, 5>, memref<2x1xi32, 5>
  tile.apply "selp.b32"(%b, %a, %b, %p) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi1, 5>
  return
}
