// A register tile allocated inside a branch (a T.if_ body) that holds a
// loop lives in registers, as one at the top does: tile-local-allocas moves
// its alloca to the entry block, which is the only one LLVM promotes. Left
// in the branch it was a 512-byte stack frame in local memory (the Hopper
// GEMM's accumulators in a consumer warpgroup's branch). Through ptxas at
// -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry branch(
// CHECK-NOT: .local
// CHECK-NOT: __local_depot
// CHECK: add.f32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @branch(%In: memref<32x4xf32, 1>, %Out: memref<32x4xf32, 1>, %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %c64 = arith.constant 64 : index
      %low = arith.cmpi ult, %t, %c64 : index
      scf.if %low {
        %r = memref.alloca() : memref<32x4xf32, 5>
        tile.apply "ld.global.v4.f32"(%r, %In) : memref<32x4xf32, 5>, memref<32x4xf32, 1>
        %r1 = memref.expand_shape %r [[0], [1, 2]] output_shape [32, 4, 1] : memref<32x4xf32, 5> into memref<32x4x1xf32, 5>
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        scf.for %i = %c0 to %n step %c1 {
          tile.apply "add.f32"(%r1, %r1, %r1) : memref<32x4x1xf32, 5>, memref<32x4x1xf32, 5>, memref<32x4x1xf32, 5>
        }
        tile.apply "st.global.v4.f32"(%Out, %r) : memref<32x4xf32, 1>, memref<32x4xf32, 5>
      }
      gpu.return
    }
  }
}
