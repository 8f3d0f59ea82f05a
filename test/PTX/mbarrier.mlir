// The mbarrier operations as written (PTX ISA 9.7.13.15): init, an arrival
// returning its state, one with .expect_tx, the .shared::cluster arrival
// into the sink _, expect_tx, test_wait on a state, try_wait.parity with a
// suspend hint, pending_count, inval, and cp.async.mbarrier.arrive.noinc;
// each side-effecting asm that clobbers memory (an acquire or a release
// orders the accesses around it). Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry phases(
// CHECK: mbarrier.init.shared::cta.b64 [%rd[[BAR:[0-9]+]]], %r{{[0-9]+}};
// CHECK: mbarrier.arrive.shared::cta.b64 %rd[[STATE:[0-9]+]], [%rd[[BAR]]];
// CHECK: mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd{{[0-9]+}}, [%rd[[BAR]]], %r{{[0-9]+}};
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rd[[BAR]]];
// CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%rd[[BAR]]], %r{{[0-9]+}};
// CHECK: mbarrier.test_wait.shared::cta.b64 %p{{[0-9]+}}, [%rd[[BAR]]], %rd[[STATE]];
// CHECK: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p{{[0-9]+}}, [%rd[[BAR]]], %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: mbarrier.pending_count.b64 %r{{[0-9]+}}, %rd[[STATE]];
// CHECK: cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%rd[[BAR]]];
// CHECK: mbarrier.inval.shared::cta.b64 [%rd[[BAR]]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @phases(%Out: memref<1x2xi32, 1>)
        workgroup(%B : memref<1x1xi64, 3> {llvm.align = 8 : i64}) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %c0 = arith.constant 0 : i32
      %c32 = arith.constant 32 : i32
      %c128 = arith.constant 128 : i32
      %hint = arith.constant 1000 : i32
      %state = memref.alloca() : memref<1x1xi64, 5>
      %other = memref.alloca() : memref<1x1xi64, 5>
      %done = memref.alloca() : memref<2x1xi1, 5>
      %r = memref.alloca() : memref<1x2xi32, 5>
      %p0 = memref.subview %done[0, 0] [1, 1] [1, 1] : memref<2x1xi1, 5> to memref<1x1xi1, strided<[1, 1]>, 5>
      %p1 = memref.subview %done[1, 0] [1, 1] [1, 1] : memref<2x1xi1, 5> to memref<1x1xi1, strided<[1, 1], offset: 1>, 5>
      %r0 = memref.subview %r[0, 0] [1, 1] [1, 1] : memref<1x2xi32, 5> to memref<1x1xi32, strided<[2, 1]>, 5>
      tile.apply "mbarrier.init.shared::cta.b64"(%B, %c32) : memref<1x1xi64, 3>, i32
      tile.apply "mbarrier.arrive.shared::cta.b64"(%state, %B) : memref<1x1xi64, 5>, memref<1x1xi64, 3>
      tile.apply "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64"(%other, %B, %c128) : memref<1x1xi64, 5>, memref<1x1xi64, 3>, i32
      tile.apply "mbarrier.arrive.release.cluster.shared::cluster.b64"(%B) : memref<1x1xi64, 3>
      tile.apply "mbarrier.expect_tx.relaxed.cta.shared::cta.b64"(%B, %c128) : memref<1x1xi64, 3>, i32
      tile.apply "mbarrier.test_wait.shared::cta.b64"(%p0, %B, %state) : memref<1x1xi1, strided<[1, 1]>, 5>, memref<1x1xi64, 3>, memref<1x1xi64, 5>
      tile.apply "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64"(%p1, %B, %c0, %hint) : memref<1x1xi1, strided<[1, 1], offset: 1>, 5>, memref<1x1xi64, 3>, i32, i32
      tile.apply "mbarrier.pending_count.b64"(%r0, %state) : memref<1x1xi32, strided<[2, 1]>, 5>, memref<1x1xi64, 5>
      tile.apply "cp.async.mbarrier.arrive.noinc.shared::cta.b64"(%B) : memref<1x1xi64, 3>
      tile.apply "mbarrier.inval.shared::cta.b64"(%B) : memref<1x1xi64, 3>
      %o = memref.subview %Out[0, 0] [1, 1] [1, 1] : memref<1x2xi32, 1> to memref<1x1xi32, strided<[2, 1]>, 1>
      tile.apply "st.global.b32"(%o, %r0) : memref<1x1xi32, strided<[2, 1]>, 1>, memref<1x1xi32, strided<[2, 1]>, 5>
      gpu.return
    }
  }
}
