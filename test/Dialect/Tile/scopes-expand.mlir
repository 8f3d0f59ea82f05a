// RUN: tile-opt %s --tile-expand -split-input-file | FileCheck %s

// Each lane executes its own repeats: the global rows are indexed by the
// lane id, and the lane's registers flow from its loads to its stores.
// CHECK-LABEL: func.func @warp_lanes
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[X0:.*]] = tile.instr "ld.global.f32"() [%{{.*}}[%[[LANE]], %[[C0]], %[[C0]]]
// CHECK: %[[X1:.*]] = tile.instr "ld.global.f32"() [%{{.*}}[%[[LANE]], %[[C1]], %[[C0]]]
// CHECK: tile.instr "st.global.f32"(%[[X0]]) [%{{.*}}[%{{.*}}, %[[C0]], %[[C0]]]
// CHECK: tile.instr "st.global.f32"(%[[X1]]) [%{{.*}}[%{{.*}}, %[[C1]], %[[C0]]]
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: memref.alloca
func.func @warp_lanes(%g: memref<32x2x1xf32, 1>, %o: memref<32x2x1xf32, 1>) {
  %r = memref.alloca() {tile.scope = "warp"} : memref<32x2x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) {scope = "warp"} : memref<32x2x1xf32, 5>, memref<32x2x1xf32, 1>
  tile.apply "st.global.f32"(%o, %r) {scope = "warp"} : memref<32x2x1xf32, 1>, memref<32x2x1xf32, 5>
  return
}

// -----

// A warp tile that stays in memory (also read at a runtime index) holds the
// lane's row at group index 0 of the lane's private storage.
// CHECK-LABEL: func.func @warp_memory
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: tile.instr "ld.global.b32"() [%{{.*}}[%[[LANE]], %[[C0]], %[[C0]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C0]], %[[C0]], %[[C0]]]
func.func @warp_memory(%g: memref<32x1x1xi32, 1>, %i: index) -> i32 {
  %c0 = arith.constant 0 : index
  %r = memref.alloca() {tile.scope = "warp"} : memref<32x1x1xi32, 5>
  tile.apply "ld.global.b32"(%r, %g) {scope = "warp"} : memref<32x1x1xi32, 5>, memref<32x1x1xi32, 1>
  %x = memref.load %r[%c0, %c0, %i] : memref<32x1x1xi32, 5>
  return %x : i32
}
