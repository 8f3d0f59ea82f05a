// The newest conversions (PTX ISA 8.6-8.7, arch-specific sm_100 targets):
// stochastic rounding with a random-bits operand, four f32 sources in
// braces, and ue8m0 scale pairs; ptxas assembles them for sm_100a.
// RUN: tile-ptx %s --chip sm_100a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK: .version 8.7
// Loaded sources are read as written; the ue8m0 pair that a cvt produced
// reaches the last cvt through the identity max (docs/difftest.md,
// finding 2).
// CHECK: ld.global.v4.f32 {[[A:%r[0-9]+]], [[B:%r[0-9]+]], [[C:%r[0-9]+]], [[D:%r[0-9]+]]}
// CHECK: ld.global.b32 [[R:%r[0-9]+]]
// CHECK: cvt.rs.satfinite.e4m3x4.f32 %r{{[0-9]+}}, {[[A]], [[B]], [[C]], [[D]]}, [[R]];
// CHECK: cvt.rs.relu.bf16x2.f32 %r{{[0-9]+}}, [[A]], [[B]], [[R]];
// CHECK: cvt.rz.satfinite.ue8m0x2.f32 [[H:%rs[0-9]+]], [[A]], [[B]];
// CHECK: { .reg .b16 %tile_f1_0; max.s16 %tile_f1_0, [[H]], -32768; cvt.rn.bf16x2.ue8m0x2 %r{{[0-9]+}}, %tile_f1_0; }
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @newest(%in: memref<1x4xf32, 1>, %bits: memref<1x1xi32, 1>, %o: memref<3x1xi32, 1>, %oh: memref<1x1xi16, 1>) kernel {
      %f = memref.alloca() : memref<1x4xf32, 5>
      %r = memref.alloca() : memref<1x1xi32, 5>
      %d = memref.alloca() : memref<3x1xi32, 5>
      %h = memref.alloca() : memref<1x1xi16, 5>
      tile.apply "ld.global.v4.f32"(%f, %in) : memref<1x4xf32, 5>, memref<1x4xf32, 1>
      tile.apply "ld.global.b32"(%r, %bits) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
      %d0 = memref.subview %d[0, 0] [1, 1] [1, 1] : memref<3x1xi32, 5> to memref<1x1xi32, strided<[1, 1]>, 5>
      %d1 = memref.subview %d[1, 0] [1, 1] [1, 1] : memref<3x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 1>, 5>
      %d2 = memref.subview %d[2, 0] [1, 1] [1, 1] : memref<3x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 2>, 5>
      %a = memref.subview %f[0, 0] [1, 1] [1, 1] : memref<1x4xf32, 5> to memref<1x1xf32, strided<[4, 1]>, 5>
      %b = memref.subview %f[0, 1] [1, 1] [1, 1] : memref<1x4xf32, 5> to memref<1x1xf32, strided<[4, 1], offset: 1>, 5>
      tile.apply "cvt.rs.satfinite.e4m3x4.f32"(%d0, %f, %r) : memref<1x1xi32, strided<[1, 1]>, 5>, memref<1x4xf32, 5>, memref<1x1xi32, 5>
      tile.apply "cvt.rs.relu.bf16x2.f32"(%d1, %a, %b, %r) : memref<1x1xi32, strided<[1, 1], offset: 1>, 5>, memref<1x1xf32, strided<[4, 1]>, 5>, memref<1x1xf32, strided<[4, 1], offset: 1>, 5>, memref<1x1xi32, 5>
      tile.apply "cvt.rz.satfinite.ue8m0x2.f32"(%h, %a, %b) : memref<1x1xi16, 5>, memref<1x1xf32, strided<[4, 1]>, 5>, memref<1x1xf32, strided<[4, 1], offset: 1>, 5>
      tile.apply "cvt.rn.bf16x2.ue8m0x2"(%d2, %h) : memref<1x1xi32, strided<[1, 1], offset: 2>, 5>, memref<1x1xi16, 5>
      tile.apply "st.global.b32"(%o, %d) : memref<3x1xi32, 1>, memref<3x1xi32, 5>
      tile.apply "st.global.b16"(%oh, %h) : memref<1x1xi16, 1>, memref<1x1xi16, 5>
      gpu.return
    }
  }
}
