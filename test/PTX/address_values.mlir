// Addresses read as values (Form::addressValue): isspacep, cvta.to and
// getctarank write the view's address register itself, without brackets,
// a static element's offset added into it (PTX takes %rd1+16 only inside
// brackets); tensormap.replace edits a field of the map at its address, in
// brackets as every memory operand (a static offset there), with its
// ordinal an immediate. Through ptxas for sm_90a at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry asked(
// CHECK: add.s64 %rd[[A16:[0-9]+]], %rd{{[0-9]+}}, 16;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: isspacep.global %p{{[0-9]+}}, %rd[[A16]];
// CHECK: mapa.shared::cluster.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: getctarank.shared::cluster.u64 %r{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK: cvta.to.shared.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK: tensormap.replace.tile.global_dim.global.b1024.b32 [%rd{{[0-9]+}}+128], 1, %r{{[0-9]+}};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @asked(%arg0: memref<64xui32, 1>, %arg1: memref<256xui8, 1>, %arg2: memref<2x64xui32, 1>, %arg3: memref<64xui64, 1>) workgroup(%arg4 : memref<64xui32, 3> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
      %thread_id_x = gpu.thread_id  x
      %0 = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %1 = arith.index_castui %0 : i32 to index
      %alloca = memref.alloca() : memref<1xi1, 5>
      %alloca_0 = memref.alloca() : memref<1xui32, 5>
      %alloca_1 = memref.alloca() : memref<1xui64, 5>
      %2 = tile.view %arg0 : memref<64xui32, 1> to memref<256xui8, strided<[1]>, 1>
      %subview = memref.subview %2[16] [1] [1] : memref<256xui8, strided<[1]>, 1> to memref<1xui8, strided<[1], offset: 16>, 1>
      %memspacecast = memref.memory_space_cast %subview : memref<1xui8, strided<[1], offset: 16>, 1> to memref<1xui8, strided<[1], offset: 16>>
      tile.apply "isspacep.global"(%alloca, %memspacecast) : memref<1xi1, 5>, memref<1xui8, strided<[1], offset: 16>>
      %c1_i32 = arith.constant 1 : i32
      %c0_i32 = arith.constant 0 : i32
      tile.apply "selp.b32"(%alloca_0, %c1_i32, %c0_i32, %alloca) : memref<1xui32, 5>, i32, i32, memref<1xi1, 5>
      %subview_2 = memref.subview %arg2[0, %thread_id_x] [1, 1] [1, 1] : memref<2x64xui32, 1> to memref<1xui32, strided<[1], offset: ?>, 1>
      tile.apply "st.global.b32"(%subview_2, %alloca_0) : memref<1xui32, strided<[1], offset: ?>, 1>, memref<1xui32, 5>
      %c1 = arith.constant 1 : index
      %3 = arith.xori %1, %c1 : index
      %4 = arith.index_cast %3 : index to i32
      %5 = tile.mapa %arg4, %4 : memref<64xui32, 3> to memref<64xui32, 7>
      %6 = tile.view %5 : memref<64xui32, 7> to memref<256xui8, strided<[1]>, 7>
      %c4 = arith.constant 4 : index
      %7 = arith.muli %thread_id_x, %c4 : index
      %subview_3 = memref.subview %6[%7] [1] [1] : memref<256xui8, strided<[1]>, 7> to memref<1xui8, strided<[1], offset: ?>, 7>
      tile.apply "getctarank.shared::cluster.u64"(%alloca_0, %subview_3) : memref<1xui32, 5>, memref<1xui8, strided<[1], offset: ?>, 7>
      %subview_4 = memref.subview %arg2[1, %thread_id_x] [1, 1] [1, 1] : memref<2x64xui32, 1> to memref<1xui32, strided<[1], offset: ?>, 1>
      tile.apply "st.global.b32"(%subview_4, %alloca_0) : memref<1xui32, strided<[1], offset: ?>, 1>, memref<1xui32, 5>
      %8 = tile.view %arg4 : memref<64xui32, 3> to memref<256xui8, strided<[1]>, 3>
      %c4_5 = arith.constant 4 : index
      %9 = arith.muli %thread_id_x, %c4_5 : index
      %subview_6 = memref.subview %8[%9] [1] [1] : memref<256xui8, strided<[1]>, 3> to memref<1xui8, strided<[1], offset: ?>, 3>
      %memspacecast_7 = memref.memory_space_cast %subview_6 : memref<1xui8, strided<[1], offset: ?>, 3> to memref<1xui8, strided<[1], offset: ?>>
      tile.apply "cvta.to.shared.u64"(%alloca_1, %memspacecast_7) : memref<1xui64, 5>, memref<1xui8, strided<[1], offset: ?>>
      %subview_8 = memref.subview %arg3[%thread_id_x] [1] [1] : memref<64xui64, 1> to memref<1xui64, strided<[1], offset: ?>, 1>
      tile.apply "st.global.b64"(%subview_8, %alloca_1) : memref<1xui64, strided<[1], offset: ?>, 1>, memref<1xui64, 5>
      %subview_9 = memref.subview %arg1[128] [1] [1] : memref<256xui8, 1> to memref<1xui8, strided<[1], offset: 128>, 1>
      %c1_i64 = arith.constant 1 : i64
      tile.apply "tensormap.replace.tile.global_dim.global.b1024.b32"(%subview_9, %c1_i64, %alloca_0) : memref<1xui8, strided<[1], offset: 128>, 1>, i64, memref<1xui32, 5>
      tile.apply "barrier.cluster.arrive.aligned"()
      tile.apply "barrier.cluster.wait.aligned"()
      gpu.return
    }
  }
}

