// A 64-bit shift whose amount a float op produced reads it through an
// identity max: ptxas (CUDA 13.0) otherwise assembles neg.f32 then shr.b64
// as F2I.U64.TRUNC of the negated float, at -O0 as at -O3 (measured on an
// H200, tools/difftest/results/fold_probe.json).
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK: neg.f32 [[N:%r[0-9]+]], %r{{[0-9]+}};
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: { .reg .b32 %tile_f2_0; max.s32 %tile_f2_0, [[N]], -2147483648; shr.b64 [[D:%rd[0-9]+]], %rd{{[0-9]+}}, %tile_f2_0; }
// CHECK: st.global.b64 [%rd{{[0-9]+}}], [[D]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @shift(%A: memref<1x1xf32, 1>, %X: memref<1x1xi64, 1>, %Out: memref<1x1xi64, 1>) kernel
        attributes {known_block_size = array<i32: 1, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %a = memref.alloca() : memref<1x1xf32, 5>
      %x = memref.alloca() : memref<1x1xi64, 5>
      %n = memref.alloca() : memref<1x1xi32, 5>
      %d = memref.alloca() : memref<1x1xi64, 5>
      tile.apply "ld.global.f32"(%a, %A) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      tile.apply "ld.global.b64"(%x, %X) : memref<1x1xi64, 5>, memref<1x1xi64, 1>
      tile.apply "neg.f32"(%n, %a) : memref<1x1xi32, 5>, memref<1x1xf32, 5>
      tile.apply "shr.b64"(%d, %x, %n) : memref<1x1xi64, 5>, memref<1x1xi64, 5>, memref<1x1xi32, 5>
      tile.apply "st.global.b64"(%Out, %d) : memref<1x1xi64, 1>, memref<1x1xi64, 5>
      gpu.return
    }
  }
}
