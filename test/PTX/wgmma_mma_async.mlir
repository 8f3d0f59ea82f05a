// wgmma.mma_async as written, for sm_90a (PTX ISA 9.7.15.5.2): d is read
// and written in place, once in the operand list; the repeat space (m, n,
// k) = (1, 1, 2) issues two instructions, k outermost, the second reading
// the d the first wrote; descriptors are b64 registers, scale-d a
// predicate, the scales -1 or 1 and the transposes 0 or 1 immediates. A in
// registers takes four. Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry wgmma_chain(
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {[[D:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, [[A0:%rd[0-9]+]], [[B0:%rd[0-9]+]], [[P:%p[0-9]+]], 1, -1, 0, 1;
// CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {[[D]]}, {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[P]], 1, -1, 0, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: st.global.v4.f32 [%rd{{[0-9]+}}], {[[D]]};

// A warpgroup's tiles, with both descriptors scalar values: k, which only
// they span, has one step (an axis no tile spans once issued nothing).
// CHECK-LABEL: .visible .entry wgmma_warpgroup(
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {[[W:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, [[DESC:%rd[0-9]+]], [[DESC]], %p{{[0-9]+}}, 1, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: st.global.v4.f32 [%rd{{[0-9]+}}], {[[W]]};

// CHECK-LABEL: .visible .entry wgmma_registers(
// CHECK: wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8.satfinite {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @wgmma_chain(%DA: memref<2x1xi64, 1>, %DB: memref<2x1xi64, 1>, %Out: memref<1x4xf32, 1>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %true = arith.constant true
      %one = arith.constant 1 : i32
      %minus = arith.constant -1 : i32
      %zero = arith.constant 0 : i32
      %a = memref.alloca() : memref<1x2x1xi64, 5>
      %a1 = memref.collapse_shape %a [[0, 1], [2]] : memref<1x2x1xi64, 5> into memref<2x1xi64, 5>
      tile.apply "ld.global.b64"(%a1, %DA) : memref<2x1xi64, 5>, memref<2x1xi64, 1>
      %b = memref.alloca() : memref<1x2x1xi64, 5>
      %b1 = memref.collapse_shape %b [[0, 1], [2]] : memref<1x2x1xi64, 5> into memref<2x1xi64, 5>
      tile.apply "ld.global.b64"(%b1, %DB) : memref<2x1xi64, 5>, memref<2x1xi64, 1>
      %d = memref.alloca() : memref<1x1x4xf32, 5>
      %d1 = memref.collapse_shape %d [[0, 1], [2]] : memref<1x1x4xf32, 5> into memref<1x4xf32, 5>
      tile.apply "ld.global.v4.f32"(%d1, %Out) : memref<1x4xf32, 5>, memref<1x4xf32, 1>
      tile.apply "wgmma.fence.sync.aligned"()
      tile.apply "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"(%d, %a, %b, %true, %one, %minus, %zero, %one)
          : memref<1x1x4xf32, 5>, memref<1x2x1xi64, 5>, memref<1x2x1xi64, 5>, i1, i32, i32, i32, i32
      tile.apply "wgmma.commit_group.sync.aligned"()
      tile.apply "wgmma.wait_group.sync.aligned"(%zero) : i32
      tile.apply "st.global.v4.f32"(%Out, %d1) : memref<1x4xf32, 1>, memref<1x4xf32, 5>
      gpu.return
    }
    gpu.func @wgmma_warpgroup(%desc: i64, %In: memref<4x32x1x4xf32, 1>, %Out: memref<4x32x1x4xf32, 1>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %true = arith.constant true
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %d = memref.alloca() {tile.scope = "warpgroup"} : memref<4x32x1x1x4xf32, 5>
      %d1 = memref.collapse_shape %d [[0], [1], [2, 3], [4]] : memref<4x32x1x1x4xf32, 5> into memref<4x32x1x4xf32, 5>
      tile.apply "ld.global.v4.f32"(%d1, %In) {scope = "warpgroup"} : memref<4x32x1x4xf32, 5>, memref<4x32x1x4xf32, 1>
      tile.apply "wgmma.fence.sync.aligned"()
      tile.apply "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"(%d, %desc, %desc, %true, %one, %one, %one, %one) {scope = "warpgroup"}
          : memref<4x32x1x1x4xf32, 5>, i64, i64, i1, i32, i32, i32, i32
      tile.apply "wgmma.commit_group.sync.aligned"()
      tile.apply "wgmma.wait_group.sync.aligned"(%zero) : i32
      tile.apply "st.global.v4.f32"(%Out, %d1) {scope = "warpgroup"} : memref<4x32x1x4xf32, 1>, memref<4x32x1x4xf32, 5>
      gpu.return
    }
    gpu.func @wgmma_registers(%Desc: memref<1x1xi64, 1>, %In: memref<1x4xi32, 1>, %Out: memref<2x4xi32, 1>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %true = arith.constant true
      %zero = arith.constant 0 : i32
      %b = memref.alloca() : memref<1x1x1xi64, 5>
      %b1 = memref.collapse_shape %b [[0, 1], [2]] : memref<1x1x1xi64, 5> into memref<1x1xi64, 5>
      tile.apply "ld.global.b64"(%b1, %Desc) : memref<1x1xi64, 5>, memref<1x1xi64, 1>
      %a = memref.alloca() : memref<1x1x4xi32, 5>
      %a1 = memref.collapse_shape %a [[0, 1], [2]] : memref<1x1x4xi32, 5> into memref<1x4xi32, 5>
      tile.apply "ld.global.v4.b32"(%a1, %In) : memref<1x4xi32, 5>, memref<1x4xi32, 1>
      %d = memref.alloca() : memref<1x1x8xi32, 5>
      %d1 = memref.collapse_shape %d [[0, 1, 2]] : memref<1x1x8xi32, 5> into memref<8xi32, 5>
      %d2 = memref.expand_shape %d1 [[0, 1]] output_shape [2, 4] : memref<8xi32, 5> into memref<2x4xi32, 5>
      tile.apply "ld.global.v4.b32"(%d2, %Out) : memref<2x4xi32, 5>, memref<2x4xi32, 1>
      tile.apply "wgmma.fence.sync.aligned"()
      tile.apply "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8.satfinite"(%d, %a, %b, %true)
          : memref<1x1x8xi32, 5>, memref<1x1x4xi32, 5>, memref<1x1x1xi64, 5>, i1
      tile.apply "wgmma.commit_group.sync.aligned"()
      tile.apply "wgmma.wait_group.sync.aligned"(%zero) : i32
      tile.apply "st.global.v4.b32"(%Out, %d2) : memref<2x4xi32, 1>, memref<2x4xi32, 5>
      gpu.return
    }
  }
}
