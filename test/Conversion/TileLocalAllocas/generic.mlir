// RUN: tile-opt %s --tile-local-allocas | FileCheck %s

// The storage is at least 16-aligned: slot accesses state their natural
// alignment (up to 16 bytes). It starts as zeros, all 32 x 4 bytes: a
// register read before any write reads 0, not LLVM's undef (finding 12).
// CHECK-LABEL: llvm.func @slots
// CHECK: %[[G:.*]] = llvm.alloca %{{.*}} x f32 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK: %[[L:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr to !llvm.ptr<5>
// CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK: %[[N:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK: "llvm.intr.memset"(%[[G]], %[[Z]], %[[N]]) <{isVolatile = false}>
// CHECK: llvm.store %{{.*}}, %[[L]] : f32, !llvm.ptr<5>
// CHECK-NOT: -> !llvm.ptr<5>
llvm.func @slots(%v: f32) {
  %n = llvm.mlir.constant(32 : i64) : i64
  %a = llvm.alloca %n x f32 {alignment = 4 : i64} : (i64) -> !llvm.ptr<5>
  llvm.store %v, %a : f32, !llvm.ptr<5>
  llvm.return
}

// Generic allocas are left alone.
// CHECK-LABEL: llvm.func @generic
// CHECK: llvm.alloca %{{.*}} x i32 : (i64) -> !llvm.ptr
// CHECK-NOT: llvm.addrspacecast
llvm.func @generic() {
  %n = llvm.mlir.constant(1 : i64) : i64
  %a = llvm.alloca %n x i32 : (i64) -> !llvm.ptr
  llvm.return
}
