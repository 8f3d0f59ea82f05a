// A register tile indexed at run time stays in local memory, and the PTX
// addresses that memory through the local stack pointer %SPL. Before
// tile-local-allocas, LLVM 22 addressed it through the generic %SP with
// st.local/ld.local, which faulted on the H200 (tools/gpu runtime_slice).
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: add.u64 [[BASE:%rd[0-9]+]], %SPL, 0;
// CHECK: st.local.b32 [[[BASE]]],
// CHECK-NOT: cvta.local
// CHECK: ld.local.b32
// CHECK: neg.f32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @pick(%a: memref<32x1xf32, 1>, %o: memref<32x1xf32, 1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %t = gpu.thread_id x
      %r = memref.alloca() : memref<32x1xf32, 5>
      tile.apply "ld.global.f32"(%r, %a) : memref<32x1xf32, 5>, memref<32x1xf32, 1>
      %s = memref.subview %r[%t, 0] [1, 1] [1, 1] : memref<32x1xf32, 5> to memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
      %os = memref.subview %o[%t, 0] [1, 1] [1, 1] : memref<32x1xf32, 1> to memref<1x1xf32, strided<[1, 1], offset: ?>, 1>
      tile.apply "neg.f32"(%s, %s) : memref<1x1xf32, strided<[1, 1], offset: ?>, 5>, memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
      tile.apply "st.global.f32"(%os, %s) : memref<1x1xf32, strided<[1, 1], offset: ?>, 1>, memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
      gpu.return
    }
  }
}
