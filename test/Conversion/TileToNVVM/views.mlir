// RUN: tile-opt %s --convert-tile-to-nvvm -split-input-file | FileCheck %s

// A dtype view keeps the pointers and rescales the layout to the new element.
// CHECK-LABEL: func.func @halves
// CHECK: %[[SRC:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<4x1xi32, 5> to !llvm.struct
// CHECK: %[[PTR:.*]] = llvm.extractvalue %[[SRC]][1]
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[1]
// CHECK: %[[ROWS:.*]] = llvm.mlir.constant(4 : index) : i64
// CHECK-NEXT: llvm.insertvalue %[[ROWS]], %{{.*}}[3, 0]
// CHECK-NEXT: %[[ROW_STRIDE:.*]] = llvm.mlir.constant(2 : index) : i64
// CHECK-NEXT: llvm.insertvalue %[[ROW_STRIDE]], %{{.*}}[4, 0]
// CHECK-NEXT: %[[HALVES:.*]] = llvm.mlir.constant(2 : index) : i64
// CHECK-NEXT: llvm.insertvalue %[[HALVES]], %{{.*}}[3, 1]
func.func @halves(%w: memref<4x1xi32, 5>) -> memref<4x2xi16, 5> {
  %h = tile.view %w : memref<4x1xi32, 5> to memref<4x2xi16, 5>
  return %h : memref<4x2xi16, 5>
}

// -----

// A broadcast sets stride 0 on the expanded axis.
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[ROWS:.*]] = llvm.mlir.constant(8 : index) : i64
// CHECK-NEXT: llvm.insertvalue %[[ROWS]], %{{.*}}[3, 0]
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK-NEXT: llvm.insertvalue %[[ZERO]], %{{.*}}[4, 0]
func.func @broadcast(%s: memref<1x1xf32, 5>) -> memref<8x1xf32, strided<[0, 1]>, 5> {
  %b = tile.broadcast %s : memref<1x1xf32, 5> to memref<8x1xf32, strided<[0, 1]>, 5>
  return %b : memref<8x1xf32, strided<[0, 1]>, 5>
}
