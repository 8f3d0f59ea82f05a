// A wgmma matrix descriptor built from a swizzled shared tile (PTX ISA
// 9.7.15.5.1): the tile's shared address >> 4 in bits 0-13, a leading byte
// offset of 16 (encoded 1, bit 16), the stride byte offset of eight
// 128-byte rows (1024, encoded 64: bit 38) and layout type 1 (128-byte
// swizzle, bit 62): 0x4000004000010000 | (address & 0x3FFFF) >> 4, which
// LLVM masks after the shift and, knowing the buffer aligned to 1024, with
// 0x3FC0. The k = 1 tile starts 32 bytes further. Through ptxas at -O3 and
// -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry descriptors(
// CHECK: .shared .align 1024 .b8 [[BUF:[_a-z0-9]+]][8192];
// CHECK: mov.b64 [[ADDR:%rd[0-9]+]], [[BUF]];
// CHECK: shr.u64 [[START:%rd[0-9]+]], [[ADDR]], 4;
// CHECK: and.b64 [[LOW:%rd[0-9]+]], [[START]], 16320;
// CHECK: or.b64 [[D0:%rd[0-9]+]], [[LOW]], 4611686293305360384;
// CHECK: add.s64 [[ADDR1:%rd[0-9]+]], [[ADDR]], 32;
// CHECK: shr.u64 [[START1:%rd[0-9]+]], [[ADDR1]], 4;
// CHECK: and.b64 [[LOW1:%rd[0-9]+]], [[START1]], 16322;
// CHECK: or.b64 [[D1:%rd[0-9]+]], [[LOW1]], 4611686293305360384;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, [[D0]], [[D0]], %p{{[0-9]+}}, 1, 1, 0, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, [[D1]], [[D1]], %p{{[0-9]+}}, 1, 1, 0, 0;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @descriptors(%Out: memref<1x2x32xf32, 1>)
        workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %true = arith.constant true
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
      %k0 = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
      %k1 = memref.subview %s[0, 16] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1], offset: 16>, 3>
      %d0 = tile.matrix_descriptor %k0 : memref<64x16xbf16, strided<[64, 1]>, 3>
      %d1 = tile.matrix_descriptor %k1 : memref<64x16xbf16, strided<[64, 1], offset: 16>, 3>
      %acc = memref.alloca() : memref<1x1x32xf32, 5>
      %acc1 = memref.collapse_shape %acc [[0, 1], [2]] : memref<1x1x32xf32, 5> into memref<1x32xf32, 5>
      tile.apply "wgmma.fence.sync.aligned"()
      tile.apply "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"(%acc, %d0, %d0, %true, %one, %one, %zero, %zero)
          : memref<1x1x32xf32, 5>, i64, i64, i1, i32, i32, i32, i32
      tile.apply "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"(%acc, %d1, %d1, %true, %one, %one, %zero, %zero)
          : memref<1x1x32xf32, 5>, i64, i64, i1, i32, i32, i32, i32
      tile.apply "wgmma.commit_group.sync.aligned"()
      tile.apply "wgmma.wait_group.sync.aligned"(%zero) : i32
      %out = memref.subview %Out[0, 0, 0] [1, 1, 32] [1, 1, 1] : memref<1x2x32xf32, 1> to memref<1x1x32xf32, strided<[64, 32, 1]>, 1>
      %o = memref.collapse_shape %out [[0, 1], [2]] : memref<1x1x32xf32, strided<[64, 32, 1]>, 1> into memref<1x32xf32, strided<[64, 1]>, 1>
      %acc8 = memref.expand_shape %acc1 [[0], [1, 2]] output_shape [1, 8, 4] : memref<1x32xf32, 5> into memref<1x8x4xf32, 5>
      %o8 = memref.expand_shape %o [[0], [1, 2]] output_shape [1, 8, 4] : memref<1x32xf32, strided<[64, 1]>, 1> into memref<1x8x4xf32, strided<[64, 4, 1]>, 1>
      tile.apply "st.global.v4.f32"(%o8, %acc8) : memref<1x8x4xf32, strided<[64, 4, 1]>, 1>, memref<1x8x4xf32, 5>
      gpu.return
    }
  }
}
