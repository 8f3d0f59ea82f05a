// sm_100's shared-memory matrix descriptor (PTX ISA 9.7.16.4.1), built
// from a swizzled shared tile as wgmma's is ({format = "tcgen05"}): the
// tile's shared address >> 4 in bits 0-13, a leading byte offset of 16
// (bit 16), the stride byte offset of eight 128-byte rows (1024 >> 4: bit
// 38), the version 1 in bits 46-47 (bit 46) and the 128-byte swizzle's
// layout type 2 in bits 61-63 (bit 62): 0x4000404000010000 | (address &
// 0x3FFFF) >> 4, which LLVM masks after the shift and, knowing the buffer
// aligned to 1024, with 0x3FC0. The k = 1 tile starts 32 bytes further.
// tcgen05.mma reads both as written; through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_100a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry descriptors(
// CHECK: .shared .align 1024 .b8 [[BUF:[_a-z0-9]+]][8192];
// CHECK: mov.b64 [[ADDR:%rd[0-9]+]], [[BUF]];
// CHECK: shr.u64 [[START:%rd[0-9]+]], [[ADDR]], 4;
// CHECK: and.b64 [[LOW:%rd[0-9]+]], [[START]], 16320;
// CHECK: or.b64 [[D0:%rd[0-9]+]], [[LOW]], 4611756662049538048;
// CHECK: add.s64 [[ADDR1:%rd[0-9]+]], [[ADDR]], 32;
// CHECK: shr.u64 [[START1:%rd[0-9]+]], [[ADDR1]], 4;
// CHECK: and.b64 [[LOW1:%rd[0-9]+]], [[START1]], 16322;
// CHECK: or.b64 [[D1:%rd[0-9]+]], [[LOW1]], 4611756662049538048;
// CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [[D0]], [[D0]], %r{{[0-9]+}}, %p{{[0-9]+}};
// CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [[D1]], [[D1]], %r{{[0-9]+}}, %p{{[0-9]+}};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
    gpu.func @descriptors(%T: memref<1xi32, 1>)
        workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %true = arith.constant true
      %idesc = arith.constant 136314000 : i32
      %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
      %k0 = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
      %k1 = memref.subview %s[0, 16] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1], offset: 16>, 3>
      %d0 = tile.matrix_descriptor %k0 {format = "tcgen05"} : memref<64x16xbf16, strided<[64, 1]>, 3>
      %d1 = tile.matrix_descriptor %k1 {format = "tcgen05"} : memref<64x16xbf16, strided<[64, 1], offset: 16>, 3>
      %taddr = memref.alloca() : memref<1xi32, 5>
      tile.apply "ld.global.b32"(%taddr, %T) : memref<1xi32, 5>, memref<1xi32, 1>
      tile.apply "tcgen05.mma.cta_group::1.kind::f16"(%taddr, %d0, %d0, %idesc, %true) : memref<1xi32, 5>, i64, i64, i32, i1
      tile.apply "tcgen05.mma.cta_group::1.kind::f16"(%taddr, %d1, %d1, %idesc, %true) : memref<1xi32, 5>, i64, i64, i32, i1
      gpu.return
    }
  }
}
