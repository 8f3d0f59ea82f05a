// Qualifier orders and repeats as ptxas (CUDA 13.0) takes them, found by
// tools/ptxas_diff/orders.py: the table accepts each, the PTX keeps the
// spelling verbatim, and ptxas assembles it.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: .version 8.2
// CHECK: ld.L1::evict_last.b32
// CHECK: ld.global.mmio.relaxed.sys.b32
// CHECK: cvt.f16.f32.rn
// CHECK: cvt.f16.rp.s32
// CHECK: cvt.s32.f32.rzi.sat
// CHECK: cvt.sat.s16.u64.sat
// CHECK: add.sat.sat.f32
// CHECK: ld.const.b32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" constant @table : memref<1x1xi32, 4> = dense<7>
    gpu.func @orders(%g: memref<1x1xi32>, %gg: memref<1x1xi32, 1>, %oh: memref<3x1xi16, 1>, %or: memref<2x1xi32, 1>) kernel {
      %a = memref.alloca() : memref<1x1xi32, 5>
      %b = memref.alloca() : memref<1x1xi32, 5>
      %d = memref.alloca() : memref<1x1xi64, 5>
      %h = memref.alloca() : memref<3x1xi16, 5>
      %r = memref.alloca() : memref<2x1xi32, 5>
      %h0 = memref.subview %h[0, 0] [1, 1] [1, 1] : memref<3x1xi16, 5> to memref<1x1xi16, strided<[1, 1]>, 5>
      %h1 = memref.subview %h[1, 0] [1, 1] [1, 1] : memref<3x1xi16, 5> to memref<1x1xi16, strided<[1, 1], offset: 1>, 5>
      %h2 = memref.subview %h[2, 0] [1, 1] [1, 1] : memref<3x1xi16, 5> to memref<1x1xi16, strided<[1, 1], offset: 2>, 5>
      %r0 = memref.subview %r[0, 0] [1, 1] [1, 1] : memref<2x1xi32, 5> to memref<1x1xi32, strided<[1, 1]>, 5>
      %r1 = memref.subview %r[1, 0] [1, 1] [1, 1] : memref<2x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 1>, 5>
      tile.apply "ld.L1::evict_last.b32"(%a, %g) : memref<1x1xi32, 5>, memref<1x1xi32>
      tile.apply "ld.global.mmio.relaxed.sys.b32"(%b, %gg) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
      tile.apply "cvt.f16.f32.rn"(%h0, %a) : memref<1x1xi16, strided<[1, 1]>, 5>, memref<1x1xi32, 5>
      tile.apply "cvt.f16.rp.s32"(%h1, %b) : memref<1x1xi16, strided<[1, 1], offset: 1>, 5>, memref<1x1xi32, 5>
      tile.apply "cvt.s32.f32.rzi.sat"(%r0, %a) : memref<1x1xi32, strided<[1, 1]>, 5>, memref<1x1xi32, 5>
      tile.apply "cvt.u64.u32"(%d, %b) : memref<1x1xi64, 5>, memref<1x1xi32, 5>
      tile.apply "cvt.sat.s16.u64.sat"(%h2, %d) : memref<1x1xi16, strided<[1, 1], offset: 2>, 5>, memref<1x1xi64, 5>
      tile.apply "add.sat.sat.f32"(%r1, %a, %b) : memref<1x1xi32, strided<[1, 1], offset: 1>, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>
      %k = memref.get_global @table : memref<1x1xi32, 4>
      %c = memref.alloca() : memref<1x1xi32, 5>
      tile.apply "ld.const.b32"(%c, %k) : memref<1x1xi32, 5>, memref<1x1xi32, 4>
      tile.apply "st.global.b32"(%gg, %c) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
      tile.apply "st.global.b16"(%oh, %h) : memref<3x1xi16, 1>, memref<3x1xi16, 5>
      tile.apply "st.global.b32"(%or, %r) : memref<2x1xi32, 1>, memref<2x1xi32, 5>
      gpu.return
    }
  }
}
