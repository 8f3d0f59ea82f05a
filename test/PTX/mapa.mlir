// Distributed shared memory: tile.mapa maps a shared tile into the
// .shared::cluster window (mapa.shared::cluster on its base address), and
// ld, st, red and the mbarrier arrival address another block's copy as
// written. The block's own tile is a .shared::cluster address too. Through
// ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry exchange(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: mov.u32 %r[[RANK:[0-9]+]], %cluster_ctarank;
// CHECK: xor.b32 %r[[PEER:[0-9]+]], %r[[RANK]], 1;
// CHECK: mapa.shared::cluster.u64 %rd[[REMOTE:[0-9]+]], %rd{{[0-9]+}}, %r[[PEER]];
// CHECK: st.shared::cluster.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: ld.shared::cluster.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
// CHECK: red.relaxed.cluster.shared::cluster.add.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: mapa.shared::cluster.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r[[PEER]];
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rd{{[0-9]+}}];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @exchange(%Out: memref<64x1xi32, 1>)
        workgroup(%S : memref<32x1xi32, 3> {llvm.align = 16 : i64},
                  %B : memref<1x1xi64, 3> {llvm.align = 8 : i64}) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 2, 1, 1>,
                    nvvm.cluster_dim = array<i32: 2, 1, 1>} {
      %c1 = arith.constant 1 : i32
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %peer = arith.xori %rank, %c1 : i32
      %remote = tile.mapa %S, %peer : memref<32x1xi32, 3> to memref<32x1xi32, 7>
      %r = memref.alloca() : memref<1x1xi32, 5>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %r[%c0, %c0] : memref<1x1xi32, 5>
      %theirs = memref.subview %remote[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 7> to memref<1x1xi32, strided<[1, 1], offset: ?>, 7>
      tile.apply "st.shared::cluster.b32"(%theirs, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, 7>, memref<1x1xi32, 5>
      tile.apply "barrier.cluster.arrive.aligned"()
      tile.apply "barrier.cluster.wait.aligned"()
      %mine = memref.subview %S[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 3> to memref<1x1xi32, strided<[1, 1], offset: ?>, 3>
      tile.apply "ld.shared::cluster.b32"(%r, %mine) : memref<1x1xi32, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 3>
      tile.apply "red.relaxed.cluster.shared::cluster.add.u32"(%theirs, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, 7>, memref<1x1xi32, 5>
      %remoteBar = tile.mapa %B, %peer : memref<1x1xi64, 3> to memref<1x1xi64, 7>
      tile.apply "mbarrier.arrive.release.cluster.shared::cluster.b64"(%remoteBar) : memref<1x1xi64, 7>
      %row = arith.muli %b, %c32 : index
      %at = arith.addi %row, %t : index
      %o = memref.subview %Out[%at, 0] [1, 1] [1, 1] : memref<64x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "st.global.b32"(%o, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, 1>, memref<1x1xi32, 5>
      gpu.return
    }
  }
}
