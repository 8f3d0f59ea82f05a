// RUN: tile-opt %s --tile-expand --convert-tile-to-nvvm | FileCheck %s

// Barriers lower to NVVM's barrier intrinsics, which LLVM declares
// convergent (an inline asm could be duplicated into divergent paths), and
// which print the PTX instruction written (bar.sync is the ISA's name of
// barrier.sync.aligned). A barrier is never dead: it orders memory.

// CHECK-LABEL: gpu.func @barriers
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%[[ZERO]]) : (i32) -> ()
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[COUNT:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[ONE]], %[[COUNT]]) : (i32, i32) -> ()
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.all"
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.count"
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @barriers() kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      tile.apply "bar.sync"(%c0) : i32
      tile.apply "barrier.sync.aligned"(%c1, %c64) : i32, i32
      tile.apply "barrier.sync"(%c1) : i32
      tile.apply "barrier.sync"(%c1, %c64) : i32, i32
      tile.apply "bar.arrive"(%c1, %c64) : i32, i32
      tile.apply "barrier.arrive"(%c1, %c64) : i32, i32
      gpu.return
    }
  }
}
