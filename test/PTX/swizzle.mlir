// Accesses through tile.swizzle {bits = 3, base = 4, shift = 3} (the 128B
// mode over 128-byte rows): the byte at offset o of the buffer is at
// o ^ ((o >> 3) & 0x70). Offsets derived by hand from that formula:
// - row 3, halves 8..15: o = 3 * 128 + 16 = 400, (400 >> 3) & 0x70 = 48,
//   400 ^ 48 = 416, a static address;
// - row t + 8, halves 8..15: o = 128 t + 1040. 1024 of it is a multiple of
//   the swizzle's period (2^10) and changes no bit the swizzle reads or
//   writes: it stays the immediate, and the register holds
//   swizzle(128 t + 16) = (128 t + 16) ^ 16 t (t < 8: the block has 8
//   threads, which LLVM knows);
// - row t: swizzle(128 t) = 128 t + 16 t, the same 16 t.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry swizzled(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: mov.b64 [[S:%rd[0-9]+]], __wg_swizzled_0;
// CHECK: ld.shared.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [[[S]]+416];
// CHECK: mul.wide.u32 [[T128:%rd[0-9]+]], [[TID]], 128;
// CHECK: or.b64 [[LOW:%rd[0-9]+]], [[T128]], 16;
// CHECK: mul.wide.u32 [[T16:%rd[0-9]+]], [[TID]], 16;
// CHECK: xor.b64 [[PLACED:%rd[0-9]+]], [[LOW]], [[T16]];
// CHECK: add.s64 [[A:%rd[0-9]+]], [[PLACED]], [[S]];
// CHECK: st.shared.v4.b32 [[[A]]+1024], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK: add.s64 [[B:%rd[0-9]+]], [[T16]], [[S]];
// CHECK: add.s64 [[C:%rd[0-9]+]], [[B]], [[T128]];
// CHECK: st.shared.v4.b32 [[[C]]], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// A view with a runtime stride (a subview's step): the offset comes from
// the descriptor, swizzled whole. Row `step`, words 4..7: o = 128 step + 16,
// swizzled (128 step + 16) ^ ((16 step + 2) & 0x70) = (128 step + 16) ^ (16 step & 0x70).
// CHECK-LABEL: .visible .entry strided(
// CHECK: ld.param.b64 [[STEP:%rd[0-9]+]], [strided_param_1];
// CHECK: shl.b64 [[S128:%rd[0-9]+]], [[STEP]], 7;
// CHECK: or.b64 [[O:%rd[0-9]+]], [[S128]], 16;
// CHECK: shl.b64 [[S16:%rd[0-9]+]], [[STEP]], 4;
// CHECK: and.b64 [[MOVED:%rd[0-9]+]], [[S16]], 112;
// CHECK: xor.b64 [[PLACED:%rd[0-9]+]], [[MOVED]], [[O]];
// CHECK: mov.b64 [[BASE:%rd[0-9]+]], __wg_strided_0;
// CHECK: add.s64 [[A:%rd[0-9]+]], [[PLACED]], [[BASE]];
// CHECK: ld.shared.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [[[A]]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @swizzled(%Out: memref<64x4xi32, 1>)
        workgroup(%S: memref<16x64xi16, 3> {llvm.align = 16}) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %z = tile.swizzle %S {bits = 3, base = 4, shift = 3} : memref<16x64xi16, 3>
      %w = memref.subview %z[3, 8] [1, 8] [1, 1] : memref<16x64xi16, 3> to memref<1x8xi16, strided<[64, 1], offset: 200>, 3>
      %w32 = tile.view %w : memref<1x8xi16, strided<[64, 1], offset: 200>, 3> to memref<1x4xi32, strided<[32, 1], offset: 100>, 3>
      %r = memref.alloca() : memref<1x4xi32, 5>
      tile.apply "ld.shared.v4.b32"(%r, %w32) : memref<1x4xi32, 5>, memref<1x4xi32, strided<[32, 1], offset: 100>, 3>
      %c8 = arith.constant 8 : index
      %row = arith.addi %t, %c8 : index
      %h = memref.subview %z[%row, 8] [1, 8] [1, 1] : memref<16x64xi16, 3> to memref<1x8xi16, strided<[64, 1], offset: ?>, 3>
      %h32 = tile.view %h : memref<1x8xi16, strided<[64, 1], offset: ?>, 3> to memref<1x4xi32, strided<[32, 1], offset: ?>, 3>
      tile.apply "st.shared.v4.b32"(%h32, %r) : memref<1x4xi32, strided<[32, 1], offset: ?>, 3>, memref<1x4xi32, 5>
      %d = memref.subview %z[%t, 0] [1, 8] [1, 1] : memref<16x64xi16, 3> to memref<1x8xi16, strided<[64, 1], offset: ?>, 3>
      %d32 = tile.view %d : memref<1x8xi16, strided<[64, 1], offset: ?>, 3> to memref<1x4xi32, strided<[32, 1], offset: ?>, 3>
      tile.apply "st.shared.v4.b32"(%d32, %r) : memref<1x4xi32, strided<[32, 1], offset: ?>, 3>, memref<1x4xi32, 5>
      gpu.return
    }
    gpu.func @strided(%Out: memref<64x4xi32, 1>, %step: index)
        workgroup(%S: memref<16x32xi32, 3> {llvm.align = 16}) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %z = tile.swizzle %S {bits = 3, base = 4, shift = 3} : memref<16x32xi32, 3>
      %rows = memref.subview %z[0, 0] [2, 32] [%step, 1] : memref<16x32xi32, 3> to memref<2x32xi32, strided<[?, 1]>, 3>
      %w = memref.subview %rows[1, 4] [1, 4] [1, 1] : memref<2x32xi32, strided<[?, 1]>, 3> to memref<1x4xi32, strided<[?, 1], offset: ?>, 3>
      %r = memref.alloca() : memref<1x4xi32, 5>
      tile.apply "ld.shared.v4.b32"(%r, %w) : memref<1x4xi32, 5>, memref<1x4xi32, strided<[?, 1], offset: ?>, 3>
      %o = memref.subview %Out[%t, 0] [1, 4] [1, 1] : memref<64x4xi32, 1> to memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
      tile.apply "st.global.v4.b32"(%o, %r) : memref<1x4xi32, strided<[4, 1], offset: ?>, 1>, memref<1x4xi32, 5>
      gpu.return
    }
  }
}
