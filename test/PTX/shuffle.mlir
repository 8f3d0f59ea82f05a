// A warp's butterfly step: shfl.sync.bfly.b32 as written (constants as
// immediates), between the loads and the add, through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry warp_step(
// CHECK: ld.global.b32 [[A:%r[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: shfl.sync.bfly.b32 [[S:%r[0-9]+]], [[A]], 16, 31, -1;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: add.s32 %r{{[0-9]+}}, [[A]], [[S]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @warp_step(%A: memref<32x1xi32, 1>, %Out: memref<32x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %r = memref.alloca() : memref<1x1xi32, 5>
      %o = memref.alloca() : memref<1x1xi32, 5>
      %a = memref.subview %A[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "ld.global.b32"(%r, %a) : memref<1x1xi32, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      %b = arith.constant 16 : i32
      %c = arith.constant 31 : i32
      %m = arith.constant -1 : i32
      tile.apply "shfl.sync.bfly.b32"(%o, %r, %b, %c, %m) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, i32, i32, i32
      tile.apply "add.s32"(%r, %r, %o) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>
      %x = memref.subview %Out[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "st.global.b32"(%x, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, 1>, memref<1x1xi32, 5>
      gpu.return
    }
  }
}
