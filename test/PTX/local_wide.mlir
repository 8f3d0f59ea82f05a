// 64-bit registers kept in local memory move as one st.local.b64: never as
// two st.local.b32 of a 64-bit register, which ptxas (CUDA 13.0) assembles
// wrongly (tools/difftest seed 3008981: 109 wrong words on the H200).
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: .local .align 16 .b8
// CHECK: st.local.b64
// CHECK-NOT: st.local.b32
// CHECK: ld.local.b64
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wide(%a: memref<32x4x1xi64, 1>, %o: memref<32x1xi64, 1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %t = gpu.thread_id x
      %r = memref.alloca() : memref<4x1xi64, 5>
      %at = memref.subview %a[%t, 0, 0] [1, 4, 1] [1, 1, 1] : memref<32x4x1xi64, 1> to memref<4x1xi64, strided<[1, 1], offset: ?>, 1>
      tile.apply "ld.global.b64"(%r, %at) : memref<4x1xi64, 5>, memref<4x1xi64, strided<[1, 1], offset: ?>, 1>
      %c3 = arith.constant 3 : index
      %i = arith.remui %t, %c3 : index
      %s = memref.subview %r[%i, 0] [1, 1] [1, 1] : memref<4x1xi64, 5> to memref<1x1xi64, strided<[1, 1], offset: ?>, 5>
      %ot = memref.subview %o[%t, 0] [1, 1] [1, 1] : memref<32x1xi64, 1> to memref<1x1xi64, strided<[1, 1], offset: ?>, 1>
      tile.apply "st.global.b64"(%ot, %s) : memref<1x1xi64, strided<[1, 1], offset: ?>, 1>, memref<1x1xi64, strided<[1, 1], offset: ?>, 5>
      gpu.return
    }
  }
}
