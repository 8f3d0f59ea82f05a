// RUN: tile-opt %s -split-input-file | FileCheck %s
// Legal programs: one rule each, the counterpart of invalid.mlir.

// CHECK-LABEL: func.func @packed_add
// CHECK: tile.apply "add.rn.f16x2"
func.func @packed_add(%r: memref<8x1xi32, 5>) {
  tile.apply "add.rn.f16x2"(%r, %r, %r) : memref<8x1xi32, 5>, memref<8x1xi32, 5>, memref<8x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @unsigned_carrier
// CHECK: tile.apply "mul.rn.bf16x2"
func.func @unsigned_carrier(%r: memref<8x1xui32, 5>) {
  tile.apply "mul.rn.bf16x2"(%r, %r, %r) : memref<8x1xui32, 5>, memref<8x1xui32, 5>, memref<8x1xui32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @float_carrier
// CHECK: tile.apply "sub.rz.ftz.sat.f32"
func.func @float_carrier(%r: memref<4x1xf32, 5>) {
  tile.apply "sub.rz.ftz.sat.f32"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @bits_for_float
// CHECK: tile.apply "add.rm.f32"
func.func @bits_for_float(%r: memref<4x1xi32, 5>) {
  tile.apply "add.rm.f32"(%r, %r, %r) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @reordered_qualifiers
// CHECK: tile.apply "add.sat.ftz.rn.f32"
func.func @reordered_qualifiers(%r: memref<4x1xf32, 5>) {
  tile.apply "add.sat.ftz.rn.f32"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @f64
// CHECK: tile.apply "mul.rp.f64"
func.func @f64(%r: memref<2x1xf64, 5>) {
  tile.apply "mul.rp.f64"(%r, %r, %r) : memref<2x1xf64, 5>, memref<2x1xf64, 5>, memref<2x1xf64, 5>
  return
}

// -----

// CHECK-LABEL: func.func @half_scalar
// CHECK: tile.apply "add.rn.ftz.sat.f16"
func.func @half_scalar(%r: memref<2x1xf16, 5>) {
  tile.apply "add.rn.ftz.sat.f16"(%r, %r, %r) : memref<2x1xf16, 5>, memref<2x1xf16, 5>, memref<2x1xf16, 5>
  return
}

// -----

// CHECK-LABEL: func.func @bf16_sm90
// CHECK: tile.apply "mul.rn.bf16"
func.func @bf16_sm90(%r: memref<2x1xbf16, 5>) attributes {tile.target = "sm_90"} {
  tile.apply "mul.rn.bf16"(%r, %r, %r) : memref<2x1xbf16, 5>, memref<2x1xbf16, 5>, memref<2x1xbf16, 5>
  return
}

// -----

// CHECK-LABEL: func.func @f32x2_sm100
// CHECK: tile.apply "add.rn.f32x2"
func.func @f32x2_sm100(%r: memref<2x1xi64, 5>) attributes {tile.target = "sm_100a"} {
  tile.apply "add.rn.f32x2"(%r, %r, %r) : memref<2x1xi64, 5>, memref<2x1xi64, 5>, memref<2x1xi64, 5>
  return
}

// -----

// CHECK-LABEL: func.func @mixed_precision
// CHECK: tile.apply "add.rn.f32.f16"
func.func @mixed_precision(%d: memref<2x1xf32, 5>, %h: memref<2x1xf16, 5>) attributes {tile.target = "sm_100a"} {
  tile.apply "add.rn.f32.f16"(%d, %h, %d) : memref<2x1xf32, 5>, memref<2x1xf16, 5>, memref<2x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @s16x2
// CHECK: tile.apply "add.s16x2"
func.func @s16x2(%r: memref<2x1xi32, 5>) attributes {tile.target = "sm_90"} {
  tile.apply "add.s16x2"(%r, %r, %r) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @mul_wide
// CHECK: tile.apply "mul.wide.s32"
func.func @mul_wide(%d: memref<2x1xi64, 5>, %a: memref<2x1xi32, 5>) {
  tile.apply "mul.wide.s32"(%d, %a, %a) : memref<2x1xi64, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @mul_hi
// CHECK: tile.apply "mul.hi.u64"
func.func @mul_hi(%r: memref<2x1xi64, 5>) {
  tile.apply "mul.hi.u64"(%r, %r, %r) : memref<2x1xi64, 5>, memref<2x1xi64, 5>, memref<2x1xi64, 5>
  return
}

// -----

// CHECK-LABEL: func.func @add_sat_s32
// CHECK: tile.apply "add.sat.s32"
func.func @add_sat_s32(%r: memref<2x1xsi32, 5>) {
  tile.apply "add.sat.s32"(%r, %r, %r) : memref<2x1xsi32, 5>, memref<2x1xsi32, 5>, memref<2x1xsi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @add_carry
// CHECK: tile.apply "add.cc.u32"
func.func @add_carry(%r: memref<2x1xi32, 5>) {
  tile.apply "add.cc.u32"(%r, %r, %r) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @abs_int
// CHECK: tile.apply "abs.s16"
func.func @abs_int(%r: memref<2x1xi16, 5>) {
  tile.apply "abs.s16"(%r, %r) : memref<2x1xi16, 5>, memref<2x1xi16, 5>
  return
}

// -----

// CHECK-LABEL: func.func @neg_ftz_f16x2
// CHECK: tile.apply "neg.ftz.f16x2"
func.func @neg_ftz_f16x2(%r: memref<2x1xi32, 5>) {
  tile.apply "neg.ftz.f16x2"(%r, %r) : memref<2x1xi32, 5>, memref<2x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @abs_bf16x2
// CHECK: tile.apply "abs.bf16x2"
func.func @abs_bf16x2(%r: memref<2x1xi32, 5>) attributes {tile.target = "sm_80"} {
  tile.apply "abs.bf16x2"(%r, %r) : memref<2x1xi32, 5>, memref<2x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_narrow
// CHECK: tile.apply "cvt.rn.f16.f32"
func.func @cvt_narrow(%h: memref<2x1xf16, 5>, %f: memref<2x1xf32, 5>) {
  tile.apply "cvt.rn.f16.f32"(%h, %f) : memref<2x1xf16, 5>, memref<2x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_widen
// CHECK: tile.apply "cvt.f32.f16"
func.func @cvt_widen(%f: memref<2x1xf32, 5>, %h: memref<2x1xf16, 5>) {
  tile.apply "cvt.f32.f16"(%f, %h) : memref<2x1xf32, 5>, memref<2x1xf16, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_float_to_int
// CHECK: tile.apply "cvt.rni.sat.s32.f32"
func.func @cvt_float_to_int(%i: memref<2x1xi32, 5>, %f: memref<2x1xf32, 5>) {
  tile.apply "cvt.rni.sat.s32.f32"(%i, %f) : memref<2x1xi32, 5>, memref<2x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_int_to_float
// CHECK: tile.apply "cvt.rz.f64.u64"
func.func @cvt_int_to_float(%f: memref<2x1xf64, 5>, %i: memref<2x1xi64, 5>) {
  tile.apply "cvt.rz.f64.u64"(%f, %i) : memref<2x1xf64, 5>, memref<2x1xi64, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_int_narrowing_sat
// CHECK: tile.apply "cvt.sat.s8.s32"
func.func @cvt_int_narrowing_sat(%d: memref<2x1xi8, 5>, %s: memref<2x1xi32, 5>) {
  tile.apply "cvt.sat.s8.s32"(%d, %s) : memref<2x1xi8, 5>, memref<2x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_relu
// CHECK: tile.apply "cvt.rn.relu.bf16.f32"
func.func @cvt_relu(%h: memref<2x1xbf16, 5>, %f: memref<2x1xf32, 5>) attributes {tile.target = "sm_80"} {
  tile.apply "cvt.rn.relu.bf16.f32"(%h, %f) : memref<2x1xbf16, 5>, memref<2x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_packed_fp8
// CHECK: tile.apply "cvt.rn.satfinite.e4m3x2.f32"
func.func @cvt_packed_fp8(%d: memref<2x1xi16, 5>, %f: memref<2x1xf32, 5>) attributes {tile.target = "sm_90"} {
  tile.apply "cvt.rn.satfinite.e4m3x2.f32"(%d, %f, %f) : memref<2x1xi16, 5>, memref<2x1xf32, 5>, memref<2x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_fp8_to_half
// CHECK: tile.apply "cvt.rn.f16x2.e5m2x2"
func.func @cvt_fp8_to_half(%d: memref<2x1xi32, 5>, %s: memref<2x1xi16, 5>) attributes {tile.target = "sm_90"} {
  tile.apply "cvt.rn.f16x2.e5m2x2"(%d, %s) : memref<2x1xi32, 5>, memref<2x1xi16, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_fp4
// CHECK: tile.apply "cvt.rn.satfinite.e2m1x2.f32"
func.func @cvt_fp4(%d: memref<2x1xi8, 5>, %f: memref<2x1xf32, 5>) attributes {tile.target = "sm_100a"} {
  tile.apply "cvt.rn.satfinite.e2m1x2.f32"(%d, %f, %f) : memref<2x1xi8, 5>, memref<2x1xf32, 5>, memref<2x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_tf32
// CHECK: tile.apply "cvt.rna.tf32.f32"
func.func @cvt_tf32(%d: memref<2x1xi32, 5>, %f: memref<2x1xf32, 5>) attributes {tile.target = "sm_80"} {
  tile.apply "cvt.rna.tf32.f32"(%d, %f) : memref<2x1xi32, 5>, memref<2x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @mov
// CHECK: tile.apply "mov.b64"
func.func @mov(%r: memref<2x1xi64, 5>) {
  tile.apply "mov.b64"(%r, %r) : memref<2x1xi64, 5>, memref<2x1xi64, 5>
  return
}

// -----

// CHECK-LABEL: func.func @ld_vector
// CHECK: tile.apply "ld.global.nc.v4.f32"
func.func @ld_vector(%r: memref<4x4xf32, 5>, %g: memref<4x4xf32, 1>) {
  tile.apply "ld.global.nc.v4.f32"(%r, %g) : memref<4x4xf32, 5>, memref<4x4xf32, 1>
  return
}

// -----

// CHECK-LABEL: func.func @ld_shared
// CHECK: tile.apply "ld.shared.b32"
func.func @ld_shared(%r: memref<4x1xi32, 5>, %s: memref<4x1xi32, 3>) {
  tile.apply "ld.shared.b32"(%r, %s) : memref<4x1xi32, 5>, memref<4x1xi32, 3>
  return
}

// -----

// CHECK-LABEL: func.func @ld_shared_gpu_space
// CHECK: tile.apply "ld.shared::cta.b32"
func.func @ld_shared_gpu_space(%r: memref<4x1xi32, 5>, %s: memref<4x1xi32, #gpu.address_space<workgroup>>) {
  tile.apply "ld.shared::cta.b32"(%r, %s) : memref<4x1xi32, 5>, memref<4x1xi32, #gpu.address_space<workgroup>>
  return
}

// -----

// CHECK-LABEL: func.func @ld_generic
// CHECK: tile.apply "ld.b32"
func.func @ld_generic(%r: memref<4x1xi32, 5>, %g: memref<4x1xi32>) {
  tile.apply "ld.b32"(%r, %g) : memref<4x1xi32, 5>, memref<4x1xi32>
  return
}

// -----

// CHECK-LABEL: func.func @ld_acquire
// CHECK: tile.apply "ld.acquire.gpu.global.b32"
func.func @ld_acquire(%r: memref<4x1xi32, 5>, %g: memref<4x1xi32, 1>) {
  tile.apply "ld.acquire.gpu.global.b32"(%r, %g) : memref<4x1xi32, 5>, memref<4x1xi32, 1>
  return
}

// -----

// CHECK-LABEL: func.func @st_release
// CHECK: tile.apply "st.release.sys.global.b32"
func.func @st_release(%g: memref<4x1xi32, 1>, %r: memref<4x1xi32, 5>) {
  tile.apply "st.release.sys.global.b32"(%g, %r) : memref<4x1xi32, 1>, memref<4x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @st_evict
// CHECK: tile.apply "st.global.L1::no_allocate.v2.b64"
func.func @st_evict(%g: memref<4x2xi64, 1>, %r: memref<4x2xi64, 5>) {
  tile.apply "st.global.L1::no_allocate.v2.b64"(%g, %r) : memref<4x2xi64, 1>, memref<4x2xi64, 5>
  return
}

// -----

// CHECK-LABEL: func.func @ld_b8_into_i8
// CHECK: tile.apply "ld.global.u8"
func.func @ld_b8_into_i8(%r: memref<4x1xi8, 5>, %g: memref<4x1xi8, 1>) {
  tile.apply "ld.global.u8"(%r, %g) : memref<4x1xi8, 5>, memref<4x1xi8, 1>
  return
}

// -----

// CHECK-LABEL: func.func @scalar_lhs
// CHECK: tile.apply "sub.f32"
func.func @scalar_lhs(%r: memref<4x1xf32, 5>, %s: f32) {
  tile.apply "sub.f32"(%r, %s, %r) : memref<4x1xf32, 5>, f32, memref<4x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @scalar_carrier_bits
// CHECK: tile.apply "add.rn.f16x2"
func.func @scalar_carrier_bits(%r: memref<4x1xi32, 5>, %s: i32) {
  tile.apply "add.rn.f16x2"(%r, %r, %s) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, i32
  return
}

// -----

// CHECK-LABEL: func.func @broadcast_input
// CHECK: tile.apply "add.f32"
func.func @broadcast_input(%r: memref<8x1xf32, 5>, %b: memref<8x1xf32, strided<[0, 1]>, 5>) {
  tile.apply "add.f32"(%r, %r, %b) : memref<8x1xf32, 5>, memref<8x1xf32, 5>, memref<8x1xf32, strided<[0, 1]>, 5>
  return
}

// -----

// CHECK-LABEL: func.func @gapped_destination
// CHECK: tile.apply "abs.f32"
func.func @gapped_destination(%d: memref<4x1xf32, strided<[3, 1], offset: 2>, 5>, %s: memref<4x1xf32, 5>) {
  tile.apply "abs.f32"(%d, %s) : memref<4x1xf32, strided<[3, 1], offset: 2>, 5>, memref<4x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @multi_axis_repeats
// CHECK: tile.apply "sub.s32"
func.func @multi_axis_repeats(%r: memref<2x3x4x1xi32, 5>) {
  tile.apply "sub.s32"(%r, %r, %r) : memref<2x3x4x1xi32, 5>, memref<2x3x4x1xi32, 5>, memref<2x3x4x1xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @single_instruction
// CHECK: tile.apply "neg.f32"
func.func @single_instruction(%r: memref<1xf32, 5>) {
  tile.apply "neg.f32"(%r, %r) : memref<1xf32, 5>, memref<1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @predicated
// CHECK: tile.apply "neg.f32"
func.func @predicated(%r: memref<4x1xf32, 5>, %p: i1) {
  tile.apply "neg.f32"(%r, %r) if %p : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @preserved
// CHECK: tile.apply "neg.f32"
func.func @preserved(%r: memref<4x1xf32, 5>, %p: i1) {
  tile.apply "neg.f32"(%r, %r) if %p {preserve_dst} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @predicated_store
// CHECK: tile.apply "st.global.f32"
func.func @predicated_store(%g: memref<4x1xf32, 1>, %r: memref<4x1xf32, 5>, %p: i1) {
  tile.apply "st.global.f32"(%g, %r) if %p : memref<4x1xf32, 1>, memref<4x1xf32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @aligned_dynamic_offset
// CHECK: tile.apply "ld.global.v2.f32"
func.func @aligned_dynamic_offset(%r: memref<1x2xf32, 5>, %g: memref<1x2xf32, strided<[2, 1], offset: ?>, 1>) {
  tile.apply "ld.global.v2.f32"(%r, %g) : memref<1x2xf32, 5>, memref<1x2xf32, strided<[2, 1], offset: ?>, 1>
  return
}

// -----

// CHECK-LABEL: func.func @mov_pack
// CHECK: tile.apply "mov.b64"
func.func @mov_pack(%w: memref<4x1xi64, 5>, %p: memref<4x2xi32, 5>) {
  tile.apply "mov.b64"(%w, %p) : memref<4x1xi64, 5>, memref<4x2xi32, 5>
  return
}

// -----

// CHECK-LABEL: func.func @mov_unpack
// CHECK: tile.apply "mov.b128"
func.func @mov_unpack(%q: memref<4x4xi32, 5>, %w: memref<4x1xi128, 5>) {
  tile.apply "mov.b128"(%q, %w) : memref<4x4xi32, 5>, memref<4x1xi128, 5>
  return
}

// -----

// CHECK-LABEL: func.func @cvt_pack
// CHECK: tile.apply "cvt.pack.sat.u4.s32.b32"
func.func @cvt_pack(%d: memref<4x1xi32, 5>, %a: memref<4x1xi32, 5>) {
  tile.apply "cvt.pack.sat.u4.s32.b32"(%d, %a, %a, %d) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

// A carry chain: the writer before its readers in one block, other
// instructions between them.
// CHECK-LABEL: func.func @carry_chain
// CHECK: tile.apply "add.cc.u32"
// CHECK: tile.apply "mul.lo.u32"
// CHECK: tile.apply "addc.cc.u32"
// CHECK: tile.apply "madc.hi.u32"
func.func @carry_chain(%d: memref<4x1xi32, 5>, %a: memref<4x1xi32, 5>) {
  tile.apply "add.cc.u32"(%d, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  tile.apply "mul.lo.u32"(%d, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  tile.apply "addc.cc.u32"(%d, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  tile.apply "madc.hi.u32"(%d, %a, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}
