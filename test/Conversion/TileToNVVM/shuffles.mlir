// RUN: tile-opt %s --tile-expand --convert-tile-to-nvvm | FileCheck %s

// shfl.sync lowers to NVVM's convergent shfl.sync intrinsic of its mode,
// the membermask first, one call per repeat.

// CHECK-LABEL: gpu.func @shuffles
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32) -> i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"
// CHECK: llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"
// CHECK: llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @shuffles(%r: memref<2x1xi32, 5>, %o: memref<2x1xi32, 5>) kernel {
      %b = arith.constant 1 : i32
      %c = arith.constant 31 : i32
      %m = arith.constant -1 : i32
      tile.apply "shfl.sync.bfly.b32"(%o, %r, %b, %c, %m) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, i32, i32, i32
      %r0 = memref.subview %r[0, 0] [1, 1] [1, 1] : memref<2x1xi32, 5> to memref<1x1xi32, strided<[1, 1]>, 5>
      %o0 = memref.subview %o[0, 0] [1, 1] [1, 1] : memref<2x1xi32, 5> to memref<1x1xi32, strided<[1, 1]>, 5>
      tile.apply "shfl.sync.up.b32"(%o0, %r0, %b, %c, %m) : memref<1x1xi32, strided<[1, 1]>, 5>, memref<1x1xi32, strided<[1, 1]>, 5>, i32, i32, i32
      tile.apply "shfl.sync.down.b32"(%o0, %r0, %b, %c, %m) : memref<1x1xi32, strided<[1, 1]>, 5>, memref<1x1xi32, strided<[1, 1]>, 5>, i32, i32, i32
      tile.apply "shfl.sync.idx.b32"(%o0, %r0, %b, %c, %m) : memref<1x1xi32, strided<[1, 1]>, 5>, memref<1x1xi32, strided<[1, 1]>, 5>, i32, i32, i32
      gpu.return
    }
  }
}
