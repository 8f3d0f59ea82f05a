// Forms an independent ptxas 13.0 corpus found the table rejecting: cvt
// between bf16 and s8/u8 (the 8-bit operand in an 8-bit register, which
// the asm bridges through a .b8: ptxas rejects a 16-bit one), mov.pred,
// and the L2 eviction priorities of 256-bit global accesses (sm_100).
// RUN: tile-ptx %s --module bytes -o %t.ptx
// RUN: FileCheck %s --check-prefix=BYTES < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: tile-ptx %s --module wide -o %t.wide.ptx
// RUN: FileCheck %s --check-prefix=WIDE < %t.wide.ptx
// RUN: ptxas -arch=sm_100a %t.wide.ptx -o %t.wide.cubin

// BYTES: ld.global.s8 %rs{{[0-9]+}}
// BYTES: { .reg .b8 %tile_b1_0; cvt.u8.u16 %tile_b1_0, %rs{{[0-9]+}}; cvt.rn.bf16.s8 [[Y:%rs[0-9]+]], %tile_b1_0; }
// BYTES: cvt.rzi.u8.bf16 %tile_b0_0, %tile_f1_0; cvt.u16.u8 %rs{{[0-9]+}}, %tile_b0_0; }
// BYTES: mov.pred [[Q:%p[0-9]+]], [[P:%p[0-9]+]];
// BYTES: selp.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, [[Q]];
// BYTES: st.global.b16 [%rd{{[0-9]+}}], [[Y]];
// BYTES: st.global.u8 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// WIDE: .target sm_100a
// WIDE: ld.global.L1::evict_last.L2::evict_first.v4.b64 {%rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}}
// WIDE: st.global.L2::evict_last.v8.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
module attributes {gpu.container_module} {
  gpu.module @bytes [#nvvm.target<chip = "sm_90">] {
    gpu.func @bytes(%g: memref<1x1xi8, 1>, %o: memref<1x1xi16, 1>, %o8: memref<1x1xi8, 1>,
                    %a: memref<1x1xi32, 1>, %o32: memref<1x1xi32, 1>) kernel {
      %x = memref.alloca() : memref<1x1xi8, 5>
      %y = memref.alloca() : memref<1x1xi16, 5>
      %z = memref.alloca() : memref<1x1xi8, 5>
      %v = memref.alloca() : memref<1x1xi32, 5>
      %p = memref.alloca() : memref<1x1xi1, 5>
      %q = memref.alloca() : memref<1x1xi1, 5>
      %s = memref.alloca() : memref<1x1xi32, 5>
      %c = arith.constant 7 : i32
      tile.apply "ld.global.s8"(%x, %g) : memref<1x1xi8, 5>, memref<1x1xi8, 1>
      tile.apply "cvt.rn.bf16.s8"(%y, %x) : memref<1x1xi16, 5>, memref<1x1xi8, 5>
      tile.apply "cvt.rzi.u8.bf16"(%z, %y) : memref<1x1xi8, 5>, memref<1x1xi16, 5>
      tile.apply "ld.global.b32"(%v, %a) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
      tile.apply "setp.lt.s32"(%p, %v, %c) : memref<1x1xi1, 5>, memref<1x1xi32, 5>, i32
      tile.apply "mov.pred"(%q, %p) : memref<1x1xi1, 5>, memref<1x1xi1, 5>
      tile.apply "selp.b32"(%s, %v, %c, %q) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, i32, memref<1x1xi1, 5>
      tile.apply "st.global.b16"(%o, %y) : memref<1x1xi16, 1>, memref<1x1xi16, 5>
      tile.apply "st.global.u8"(%o8, %z) : memref<1x1xi8, 1>, memref<1x1xi8, 5>
      tile.apply "st.global.b32"(%o32, %s) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
      gpu.return
    }
  }
  gpu.module @wide [#nvvm.target<chip = "sm_100a">] {
    gpu.func @wide(%g: memref<1x4xi64, 1>, %o: memref<1x8xi32, 1>) kernel {
      %w = memref.alloca() : memref<1x4xi64, 5>
      %h = memref.alloca() : memref<1x8xi32, 5>
      tile.apply "ld.global.L1::evict_last.L2::evict_first.v4.b64"(%w, %g) : memref<1x4xi64, 5>, memref<1x4xi64, 1>
      %hv = tile.view %w : memref<1x4xi64, 5> to memref<1x8xi32, 5>
      tile.apply "st.global.L2::evict_last.v8.b32"(%o, %hv) : memref<1x8xi32, 1>, memref<1x8xi32, 5>
      gpu.return
    }
  }
}
