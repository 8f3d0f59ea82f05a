// mma.sync over a warp's fragments: the repeat space (m, n, k) = (2, 1, 2)
// issues four instructions, k outermost; C feeds k = 0 and each k = 1
// instruction reads the D its k = 0 instruction wrote (PTX ISA: D = A B + C).
// Fragments are braced, B's single register too. Through ptxas at -O3 and
// -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry mma_chain(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {[[D0:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, {[[A00:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, {[[B0:%r[0-9]+, %r[0-9]+]]}, {[[C0:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]};
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {[[D1:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, {{{.*}}}, {[[B0]]}, {{{.*}}};
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {[[E0:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, {{{.*}}}, {[[B1:%r[0-9]+, %r[0-9]+]]}, {[[D0]]};
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {[[E1:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, {{{.*}}}, {[[B1]]}, {[[D1]]};
// CHECK: st.global.v4.f32 [%rd{{[0-9]+}}], {[[E0]]};
// CHECK: st.global.v4.f32 [%rd{{[0-9]+}}], {[[E1]]};

// CHECK-LABEL: .visible .entry mma_accumulate(
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {[[X:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}}, {[[X]]};
// CHECK: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {[[F:%rd[0-9]+]], %rd{{[0-9]+}}}, {[[F]]}, {[[F]]}, {[[F]], %rd{{[0-9]+}}};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @mma_chain(%A: memref<32x2x2x4xi32, 1>, %B: memref<32x1x2x2xi32, 1>,
                        %C: memref<32x2x1x4xf32, 1>, %D: memref<32x2x1x4xf32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %a = memref.alloca() {tile.scope = "warp"} : memref<32x2x2x4xi32, 5>
      %b = memref.alloca() {tile.scope = "warp"} : memref<32x1x2x2xi32, 5>
      %c = memref.alloca() {tile.scope = "warp"} : memref<32x2x1x4xf32, 5>
      %d = memref.alloca() {tile.scope = "warp"} : memref<32x2x1x4xf32, 5>
      %a1 = memref.collapse_shape %a [[0], [1, 2], [3]] : memref<32x2x2x4xi32, 5> into memref<32x4x4xi32, 5>
      %A1 = memref.collapse_shape %A [[0], [1, 2], [3]] : memref<32x2x2x4xi32, 1> into memref<32x4x4xi32, 1>
      tile.apply "ld.global.v4.b32"(%a1, %A1) {scope = "warp"} : memref<32x4x4xi32, 5>, memref<32x4x4xi32, 1>
      %b1 = memref.collapse_shape %b [[0], [1, 2], [3]] : memref<32x1x2x2xi32, 5> into memref<32x2x2xi32, 5>
      %B1 = memref.collapse_shape %B [[0], [1, 2], [3]] : memref<32x1x2x2xi32, 1> into memref<32x2x2xi32, 1>
      tile.apply "ld.global.v2.b32"(%b1, %B1) {scope = "warp"} : memref<32x2x2xi32, 5>, memref<32x2x2xi32, 1>
      %c1 = memref.collapse_shape %c [[0], [1, 2], [3]] : memref<32x2x1x4xf32, 5> into memref<32x2x4xf32, 5>
      %C1 = memref.collapse_shape %C [[0], [1, 2], [3]] : memref<32x2x1x4xf32, 1> into memref<32x2x4xf32, 1>
      tile.apply "ld.global.v4.f32"(%c1, %C1) {scope = "warp"} : memref<32x2x4xf32, 5>, memref<32x2x4xf32, 1>
      tile.apply "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"(%d, %a, %b, %c) {scope = "warp"}
          : memref<32x2x1x4xf32, 5>, memref<32x2x2x4xi32, 5>, memref<32x1x2x2xi32, 5>, memref<32x2x1x4xf32, 5>
      %d1 = memref.collapse_shape %d [[0], [1, 2], [3]] : memref<32x2x1x4xf32, 5> into memref<32x2x4xf32, 5>
      %D1 = memref.collapse_shape %D [[0], [1, 2], [3]] : memref<32x2x1x4xf32, 1> into memref<32x2x4xf32, 1>
      tile.apply "st.global.v4.f32"(%D1, %d1) {scope = "warp"} : memref<32x2x4xf32, 1>, memref<32x2x4xf32, 5>
      gpu.return
    }
    gpu.func @mma_accumulate(%A: memref<32x2xi32, 1>, %Acc: memref<32x4xf32, 1>, %I: memref<32x4xi32, 1>,
                             %F: memref<32x2xf64, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %a = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x2xi32, 5>
      %b = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x1xi32, 5>
      %acc = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x4xf32, 5>
      %a2 = memref.collapse_shape %a [[0], [1, 2], [3]] : memref<32x1x1x2xi32, 5> into memref<32x1x2xi32, 5>
      %A2 = memref.expand_shape %A [[0], [1, 2]] output_shape [32, 1, 2] : memref<32x2xi32, 1> into memref<32x1x2xi32, 1>
      tile.apply "ld.global.v2.b32"(%a2, %A2) {scope = "warp"} : memref<32x1x2xi32, 5>, memref<32x1x2xi32, 1>
      %b2 = memref.collapse_shape %b [[0], [1, 2], [3]] : memref<32x1x1x1xi32, 5> into memref<32x1x1xi32, 5>
      %A1 = memref.subview %A2[0, 0, 0] [32, 1, 1] [1, 1, 1] : memref<32x1x2xi32, 1> to memref<32x1x1xi32, strided<[2, 2, 1]>, 1>
      tile.apply "ld.global.b32"(%b2, %A1) {scope = "warp"} : memref<32x1x1xi32, 5>, memref<32x1x1xi32, strided<[2, 2, 1]>, 1>
      %acc2 = memref.collapse_shape %acc [[0], [1, 2], [3]] : memref<32x1x1x4xf32, 5> into memref<32x1x4xf32, 5>
      %Acc2 = memref.expand_shape %Acc [[0], [1, 2]] output_shape [32, 1, 4] : memref<32x4xf32, 1> into memref<32x1x4xf32, 1>
      tile.apply "ld.global.v4.f32"(%acc2, %Acc2) {scope = "warp"} : memref<32x1x4xf32, 5>, memref<32x1x4xf32, 1>
      tile.apply "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"(%acc, %a, %b) {scope = "warp"}
          : memref<32x1x1x4xf32, 5>, memref<32x1x1x2xi32, 5>, memref<32x1x1x1xi32, 5>
      tile.apply "st.global.v4.f32"(%Acc2, %acc2) {scope = "warp"} : memref<32x1x4xf32, 1>, memref<32x1x4xf32, 5>
      %i = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x4xi32, 5>
      %i2 = memref.collapse_shape %i [[0], [1, 2], [3]] : memref<32x1x1x4xi32, 5> into memref<32x1x4xi32, 5>
      %I2 = memref.expand_shape %I [[0], [1, 2]] output_shape [32, 1, 4] : memref<32x4xi32, 1> into memref<32x1x4xi32, 1>
      tile.apply "ld.global.v4.b32"(%i2, %I2) {scope = "warp"} : memref<32x1x4xi32, 5>, memref<32x1x4xi32, 1>
      %ib = memref.subview %i[0, 0, 0, 0] [32, 1, 1, 2] [1, 1, 1, 1] : memref<32x1x1x4xi32, 5> to memref<32x1x1x2xi32, strided<[4, 4, 4, 1]>, 5>
      tile.apply "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32"(%i, %i, %ib) {scope = "warp"}
          : memref<32x1x1x4xi32, 5>, memref<32x1x1x4xi32, 5>, memref<32x1x1x2xi32, strided<[4, 4, 4, 1]>, 5>
      tile.apply "st.global.v4.b32"(%I2, %i2) {scope = "warp"} : memref<32x1x4xi32, 1>, memref<32x1x4xi32, 5>
      %f = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x2xf64, 5>
      %f2 = memref.collapse_shape %f [[0], [1, 2], [3]] : memref<32x1x1x2xf64, 5> into memref<32x1x2xf64, 5>
      %F2 = memref.expand_shape %F [[0], [1, 2]] output_shape [32, 1, 2] : memref<32x2xf64, 1> into memref<32x1x2xf64, 1>
      tile.apply "ld.global.v2.f64"(%f2, %F2) {scope = "warp"} : memref<32x1x2xf64, 5>, memref<32x1x2xf64, 1>
      %f1 = memref.subview %f[0, 0, 0, 0] [32, 1, 1, 1] [1, 1, 1, 1] : memref<32x1x1x2xf64, 5> to memref<32x1x1x1xf64, strided<[2, 2, 2, 1]>, 5>
      tile.apply "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"(%f, %f1, %f1) {scope = "warp"}
          : memref<32x1x1x2xf64, 5>, memref<32x1x1x1xf64, strided<[2, 2, 2, 1]>, 5>, memref<32x1x1x1xf64, strided<[2, 2, 2, 1]>, 5>
      tile.apply "st.global.v2.f64"(%F2, %f2) {scope = "warp"} : memref<32x1x2xf64, 1>, memref<32x1x2xf64, 5>
      gpu.return
    }
  }
}
