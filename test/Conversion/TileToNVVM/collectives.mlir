// RUN: tile-opt %s --tile-expand --convert-tile-to-nvvm | FileCheck %s

// Warp collectives and activemask are side-effecting inline asm, as
// written (LLVM never hoists, merges or removes one); the shuffle with its
// predicate is NVVM's .i32p intrinsic; a fence is side-effecting asm that
// clobbers memory; bar.red is NVVM's barrier reduction intrinsic.

// CHECK-LABEL: gpu.func @collectives
// CHECK: llvm.inline_asm has_side_effects {{.*}}"vote.sync.ballot.b32 $0, $1, $2;", "=r,b,r"
// CHECK: llvm.inline_asm has_side_effects {{.*}}"elect.sync $0|$1, $2;", "=r,=b,r"
// CHECK: llvm.inline_asm has_side_effects {{.*}}"activemask.b32 $0;", "=r"
// CHECK: llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32p"({{.*}}) : (i32, i32, i32, i32) -> !llvm.struct<(i32, i1)>
// CHECK: llvm.inline_asm has_side_effects {{.*}}"fence.acq_rel.gpu;", "~{memory}"
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.red.popc.aligned.all"({{.*}}) : (i32, i1) -> i32
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @collectives(%r: memref<1x1xi32, 5>) kernel {
      %p = memref.alloca() : memref<1x1xi1, 5>
      %m = arith.constant -1 : i32
      %one = arith.constant 1 : i32
      %clamp = arith.constant 31 : i32
      %zero = arith.constant 0 : i32
      tile.apply "vote.sync.ballot.b32"(%r, %p, %m) : memref<1x1xi32, 5>, memref<1x1xi1, 5>, i32
      tile.apply "elect.sync"(%r, %p, %m) : memref<1x1xi32, 5>, memref<1x1xi1, 5>, i32
      tile.apply "activemask.b32"(%r) : memref<1x1xi32, 5>
      tile.apply "shfl.sync.down.b32"(%r, %p, %r, %one, %clamp, %m) : memref<1x1xi32, 5>, memref<1x1xi1, 5>, memref<1x1xi32, 5>, i32, i32, i32
      tile.apply "fence.acq_rel.gpu"()
      tile.apply "bar.red.popc.u32"(%r, %zero, %p) : memref<1x1xi32, 5>, i32, memref<1x1xi1, 5>
      gpu.return
    }
  }
}
