// The sm_100a .b8 shapes of ldmatrix and stmatrix, as written (PTX ISA 8.6,
// 9.7.14.5.15-16): m16n16 .x2 .trans fills 4 registers (2 per matrix),
// m8n16 .x4 of packed 6-bit rows 4, stmatrix m16n8 .x2 .trans stores 2; each
// lane's memory operand is its 16-byte row. ptxas takes them for sm_100a
// (and refuses them for sm_90: tools/ptxas_diff).
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry b8(
// CHECK: ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [[[ROW:%rd[0-9]+]]];
// CHECK: ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32 {[[E0:%r[0-9]+]], [[E1:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}}}, [[[ROW]]];
// CHECK: stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [[[ROW]]], {[[E0]], [[E1]]};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
    gpu.func @b8(%Out: memref<32x4xi32, 1>)
        workgroup(%S: memref<32x16xi8, 3> {llvm.align = 16}) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %row = memref.subview %S[%t, 0] [1, 16] [1, 1] : memref<32x16xi8, 3> to memref<1x16xi8, strided<[16, 1], offset: ?>, 3>
      %d = memref.alloca() : memref<1x4xi32, 5>
      tile.apply "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8"(%d, %row) : memref<1x4xi32, 5>, memref<1x16xi8, strided<[16, 1], offset: ?>, 3>
      %e = memref.alloca() : memref<1x4xi32, 5>
      tile.apply "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32"(%e, %row) : memref<1x4xi32, 5>, memref<1x16xi8, strided<[16, 1], offset: ?>, 3>
      %e1 = memref.subview %e[0, 0] [1, 2] [1, 1] : memref<1x4xi32, 5> to memref<1x2xi32, strided<[4, 1]>, 5>
      tile.apply "stmatrix.sync.aligned.m16n8.x2.trans.shared.b8"(%row, %e1) : memref<1x16xi8, strided<[16, 1], offset: ?>, 3>, memref<1x2xi32, strided<[4, 1]>, 5>
      %o = memref.subview %Out[%t, 0] [1, 4] [1, 1] : memref<32x4xi32, 1> to memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
      tile.apply "st.global.v4.b32"(%o, %d) : memref<1x4xi32, strided<[4, 1], offset: ?>, 1>, memref<1x4xi32, 5>
      gpu.return
    }
  }
}
