// A saturated integer result that a float min reads leaves its instruction
// through a split into 16-bit pieces and a join: ptxas (CUDA 13.0) -O3 otherwise takes cvt.sat.u32.s64
// for a float .sat, a value at most 1.0, and drops the min.f32 with
// 30000.0 that follows (measured on an H200,
// tools/difftest/results/sat_range.json). The loaded source of the cvt has
// no producer to fold, so it is read as written. The PTX assembles at -O3
// and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK: ld.global.b64 [[X:%rd[0-9]+]]
// CHECK: { .reg .b32 %tile_s0_0; .reg .b16 %tile_s0_0p0, %tile_s0_0p1; cvt.sat.u32.s64 %tile_s0_0, [[X]]; mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; mov.b32 [[N:%r[0-9]+]], {%tile_s0_0p0, %tile_s0_0p1}; }
// CHECK: min.f32 [[M:%r[0-9]+]], [[N]], %r{{[0-9]+}};
// CHECK: st.global.b32 [%rd{{[0-9]+}}], [[M]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @clamp(%X: memref<1x1xi64, 1>, %Out: memref<1x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 1, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %x = memref.alloca() : memref<1x1xi64, 5>
      %n = memref.alloca() : memref<1x1xi32, 5>
      %m = memref.alloca() : memref<1x1xi32, 5>
      %c = arith.constant 30000.0 : f32
      tile.apply "ld.global.b64"(%x, %X) : memref<1x1xi64, 5>, memref<1x1xi64, 1>
      tile.apply "cvt.sat.u32.s64"(%n, %x) : memref<1x1xi32, 5>, memref<1x1xi64, 5>
      tile.apply "min.f32"(%m, %n, %c) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, f32
      tile.apply "st.global.b32"(%Out, %m) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
      gpu.return
    }
  }
}
