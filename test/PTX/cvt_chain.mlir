// A float-to-integer cvt and the integer cvt that reads it stay two
// conversions: ptxas (CUDA 13.0) -O3 otherwise fuses them into one F2I.S16,
// which gives -1 for -1.5 where cvt.rzi.u32.f32 then cvt.sat.s16.u32 give 0
// (measured on an H200, docs/difftest.md finding 2). Only the second cvt's
// source has a producer ptxas can fold, so only it is read through the
// identity max; the first reads its load as written, and the saturated
// result goes to a store, which reads no float, so it leaves bare.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// CHECK: ld.global.f32 [[X:%r[0-9]+]]
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: cvt.rzi.u32.f32 [[U:%r[0-9]+]], [[X]];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: { .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, [[U]], -2147483648; cvt.sat.s16.u32 [[S:%rs[0-9]+]], %tile_f1_0; }
// CHECK: st.global.b16 [%rd{{[0-9]+}}], [[S]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @chain(%A: memref<1x1xf32, 1>, %Out: memref<1x1xi16, 1>) kernel
        attributes {known_block_size = array<i32: 1, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %x = memref.alloca() : memref<1x1xf32, 5>
      %u = memref.alloca() : memref<1x1xi32, 5>
      %s = memref.alloca() : memref<1x1xi16, 5>
      tile.apply "ld.global.f32"(%x, %A) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      tile.apply "cvt.rzi.u32.f32"(%u, %x) : memref<1x1xi32, 5>, memref<1x1xf32, 5>
      tile.apply "cvt.sat.s16.u32"(%s, %u) : memref<1x1xi16, 5>, memref<1x1xi32, 5>
      tile.apply "st.global.b16"(%Out, %s) : memref<1x1xi16, 1>, memref<1x1xi16, 5>
      gpu.return
    }
  }
}
