// The bulk copies that are not a tensor's (cp.async.bulk), verbatim: 256
// bytes from global into shared memory completing an mbarrier, the same
// multicast into the blocks of a cluster with an L2 cache policy, and back
// from shared to global memory in a bulk group. The size is the
// immediate the tiles hold; and from the block's shared memory into the
// other block's of its cluster, completing that block's mbarrier
// (tile.mapa). Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry bulk(
// CHECK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 256, [%rd{{[0-9]+}}];
// CHECK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 256, [%rd{{[0-9]+}}], %rs{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK: cp.async.bulk.global.shared::cta.bulk_group [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 256;
// CHECK: mapa.shared::cluster.u64 %rd[[PEER:[0-9]+]], %rd{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: mapa.shared::cluster.u64 %rd[[PEERBAR:[0-9]+]], %rd{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%rd[[PEER]]], [%rd{{[0-9]+}}], 256, [%rd[[PEERBAR]]];
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group 0;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @bulk(%A: memref<128xbf16, 1>, %Out: memref<128xbf16, 1>, %policy: i64)
        workgroup(%buf : memref<128xbf16, 3> {llvm.align = 16 : i64},
                  %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 2, 1, 1>,
                    nvvm.cluster_dim = array<i32: 2, 1, 1>} {
      %size = arith.constant 256 : i32
      %mask = arith.constant 3 : i16
      tile.apply "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"(%buf, %A, %size, %bar)
          : memref<128xbf16, 3>, memref<128xbf16, 1>, i32, memref<1xi64, 3>
      tile.apply "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"(%buf, %A, %size, %bar, %mask, %policy)
          : memref<128xbf16, 3>, memref<128xbf16, 1>, i32, memref<1xi64, 3>, i16, i64
      tile.apply "cp.async.bulk.global.shared::cta.bulk_group"(%Out, %buf, %size)
          : memref<128xbf16, 1>, memref<128xbf16, 3>, i32
      // Into the other block of the cluster, completing its mbarrier.
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %one = arith.constant 1 : i32
      %peer = arith.xori %rank, %one : i32
      %remote = tile.mapa %buf, %peer : memref<128xbf16, 3> to memref<128xbf16, 7>
      %remoteBar = tile.mapa %bar, %peer : memref<1xi64, 3> to memref<1xi64, 7>
      tile.apply "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"(%remote, %buf, %size, %remoteBar)
          : memref<128xbf16, 7>, memref<128xbf16, 3>, i32, memref<1xi64, 7>
      %c0 = arith.constant 0 : i32
      tile.apply "cp.async.bulk.commit_group"()
      tile.apply "cp.async.bulk.wait_group"(%c0) : i32
      gpu.return
    }
  }
}
