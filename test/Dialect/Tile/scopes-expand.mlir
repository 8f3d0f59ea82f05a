// RUN: tile-opt %s --tile-expand | FileCheck %s

// Each lane executes its own repeats: the global rows are indexed by the
// lane id, and the register tile holds the lane's row at group index 0.
// CHECK-LABEL: func.func @warp_lanes
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: tile.instr "ld.global.f32"() [%{{.*}}[%[[LANE]], %[[C0]], %[[C0]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C0]], %[[C0]], %[[C0]]]
// CHECK: tile.instr "ld.global.f32"() [%{{.*}}[%[[LANE]], %[[C1]], %[[C0]]]
// CHECK-NOT: gpu.shuffle
func.func @warp_lanes(%g: memref<32x2x1xf32, 1>) {
  %r = memref.alloca() {tile.scope = "warp"} : memref<32x2x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) {scope = "warp"} : memref<32x2x1xf32, 5>, memref<32x2x1xf32, 1>
  return
}
