// Fences as written, in program order between the memory accesses they
// order (side-effecting asm that clobbers memory), through ptxas at -O3
// and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry publish(
// CHECK: st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: fence.acq_rel.gpu;
// CHECK: membar.gl;
// CHECK: fence.sc.cta;
// CHECK: fence.proxy.async.shared::cta;
// CHECK: fence.release.sys;
// CHECK: st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @publish(%Data: memref<32x2xi32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %one = arith.constant 1 : i32
      %d = memref.subview %Data[%t, 0] [1, 1] [1, 1] : memref<32x2xi32, 1> to memref<1x1xi32, strided<[2, 1], offset: ?>, 1>
      %f = memref.subview %Data[%t, 1] [1, 1] [1, 1] : memref<32x2xi32, 1> to memref<1x1xi32, strided<[2, 1], offset: ?>, 1>
      tile.apply "st.global.b32"(%d, %one) : memref<1x1xi32, strided<[2, 1], offset: ?>, 1>, i32
      tile.apply "fence.acq_rel.gpu"()
      tile.apply "membar.gl"()
      tile.apply "fence.sc.cta"()
      tile.apply "fence.proxy.async.shared::cta"()
      tile.apply "fence.release.sys"()
      tile.apply "st.global.b32"(%f, %one) : memref<1x1xi32, strided<[2, 1], offset: ?>, 1>, i32
      gpu.return
    }
  }
}
