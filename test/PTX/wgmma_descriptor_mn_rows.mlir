// An MN-major B of 128 columns in two 128-byte swizzled rows (PTX ISA
// 9.7.15.5.1: the leading byte offset steps between them): the 3-D tile
// [2, 16, 64] of a buffer whose rows of N are 16 x 64 x 2 = 2048 bytes
// apart gives the leading byte offset 2048 (encoded 128: bits 16-29), with
// the stride byte offset of eight 128-byte rows (1024, encoded 64) and
// layout type 1: 0x4000004000800000 = 4611686293313683456. The K-major A
// keeps 16 (encoded 1, unused). wgmma reads B with imm-trans-b 1. Through
// ptxas.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry mn_rows(
// CHECK-DAG: or.b64 [[A:%rd[0-9]+]], {{%rd[0-9]+}}, 4611686293305360384;
// CHECK-DAG: or.b64 [[B:%rd[0-9]+]], {{%rd[0-9]+}}, 4611686293313683456;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, [[A]], [[B]], %p{{[0-9]+}}, 1, 1, 0, 1;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @mn_rows(%Out: memref<128x64xf32, 1>)
        workgroup(%a : memref<64x64xbf16, 3> {llvm.align = 1024 : i64},
                  %b : memref<2x16x64xbf16, 3> {llvm.align = 1024 : i64}) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %true = arith.constant true
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %sa = tile.swizzle %a {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
      %sb = tile.swizzle %b {bits = 3, base = 4, shift = 3} : memref<2x16x64xbf16, 3>
      %a0 = memref.subview %sa[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
      %da = tile.matrix_descriptor %a0 : memref<64x16xbf16, strided<[64, 1]>, 3>
      %db = tile.matrix_descriptor %sb : memref<2x16x64xbf16, 3>
      %acc = memref.alloca() : memref<1x1x64xf32, 5>
      tile.apply "wgmma.fence.sync.aligned"()
      tile.apply "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"(%acc, %da, %db, %true, %one, %one, %zero, %one)
          : memref<1x1x64xf32, 5>, i64, i64, i1, i32, i32, i32, i32
      tile.apply "wgmma.commit_group.sync.aligned"()
      tile.apply "wgmma.wait_group.sync.aligned"(%zero) : i32
      %t = gpu.thread_id x
      %out = memref.subview %Out[%t, 0] [1, 64] [1, 1] : memref<128x64xf32, 1> to memref<1x64xf32, strided<[64, 1], offset: ?>, 1>
      %o = memref.expand_shape %out [[0], [1, 2]] output_shape [1, 16, 4] : memref<1x64xf32, strided<[64, 1], offset: ?>, 1> into memref<1x16x4xf32, strided<[64, 4, 1], offset: ?>, 1>
      %acc16 = memref.expand_shape %acc [[0], [1], [2, 3]] output_shape [1, 1, 16, 4] : memref<1x1x64xf32, 5> into memref<1x1x16x4xf32, 5>
      %acc2 = memref.collapse_shape %acc16 [[0, 1], [2], [3]] : memref<1x1x16x4xf32, 5> into memref<1x16x4xf32, 5>
      tile.apply "st.global.v4.f32"(%o, %acc2) : memref<1x16x4xf32, strided<[64, 4, 1], offset: ?>, 1>, memref<1x16x4xf32, 5>
      gpu.return
    }
  }
}
