// A shared buffer (a workgroup attribution), stores, a barrier and loads of
// another thread's element, through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry rotate(
// CHECK: .shared .align 16 .b8 __wg_rotate_0[128];
// CHECK: st.shared.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0;
// CHECK: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
// CHECK: barrier.sync 1, 32;
// CHECK: bar.arrive 2, 32;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @rotate(%A: memref<32x1xi32, 1>, %Out: memref<32x1xi32, 1>)
        workgroup(%S : memref<32x1xi32, 3> {llvm.align = 16 : i64}) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c32 = arith.constant 32 : i32
      %one = arith.constant 1 : index
      %lanes = arith.constant 32 : index
      %t = gpu.thread_id x
      %next = arith.addi %t, %one : index
      %n = arith.remui %next, %lanes : index
      %r = memref.alloca() : memref<1x1xi32, 5>
      %a = memref.subview %A[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "ld.global.b32"(%r, %a) : memref<1x1xi32, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      %mine = memref.subview %S[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 3> to memref<1x1xi32, strided<[1, 1], offset: ?>, 3>
      tile.apply "st.shared.b32"(%mine, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, 3>, memref<1x1xi32, 5>
      tile.apply "bar.sync"(%c0) : i32
      %theirs = memref.subview %S[%n, 0] [1, 1] [1, 1] : memref<32x1xi32, 3> to memref<1x1xi32, strided<[1, 1], offset: ?>, 3>
      tile.apply "ld.shared.b32"(%r, %theirs) : memref<1x1xi32, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 3>
      tile.apply "barrier.sync"(%c1, %c32) : i32, i32
      tile.apply "bar.arrive"(%c2, %c32) : i32, i32
      %o = memref.subview %Out[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "st.global.b32"(%o, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, 1>, memref<1x1xi32, 5>
      gpu.return
    }
  }
}
