// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @bad_rounding(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'rz' cannot follow 'rn' in add.f32: one rounding mode of rn, rz, rm, rp}}
  tile.apply "add.rn.rz.f32"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @unknown_family(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'frob' is not a PTX instruction family the form table knows: expected one of add, sub, mul, abs, neg, fma}}
  tile.apply "frob.rn.f32"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @operand_count(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op expected 3 operands for add.f32 (dst, lhs, rhs), got 2}}
  tile.apply "add.f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @global_register_operand(%g: memref<4x1xf32, 1>, %r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op src: expected a register tile (a memref in address space 5, owned by the issuing thread), got 'memref<4x1xf32, 1>'; global and shared tensors need explicit ld/st}}
  tile.apply "abs.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
  return
}

// -----

func.func @load_from_register(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op src: expected a memref in the global address space (1) for ld.global.f32, got 'memref<4x1xf32, 5>'}}
  tile.apply "ld.global.f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @missing_register_axis(%r: memref<8xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: the final axis counts the registers of one instruction and must have extent 1, got (8); add a singleton register axis}}
  tile.apply "abs.f32"(%r, %r) : memref<8xf32, 5>, memref<8xf32, 5>
  return
}

// -----

func.func @vector_register_axis(%r: memref<4x1xf32, 5>, %g: memref<4x2xf32, 1>) {
  // expected-error @+1 {{'tile.apply' op dst: the final axis counts the registers of one instruction and must have extent 2 for ld.global.v2.f32, got (4, 1)}}
  tile.apply "ld.global.v2.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x2xf32, 1>
  return
}

// -----

func.func @repeat_mismatch(%a: memref<8x1xi32, 5>, %b: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op rhs: repeat shape (4) does not match dst's (8)}}
  tile.apply "add.rn.f16x2"(%a, %a, %b) : memref<8x1xi32, 5>, memref<8x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @half_tensor_for_packed(%a: memref<8x1xi32, 5>, %h: memref<8x1xf16, 5>) {
  // expected-error @+1 {{'tile.apply' op rhs: expected a 32-bit carrier for f16x2 (i32, ui32 or si32), got f16}}
  tile.apply "add.rn.f16x2"(%a, %a, %h) : memref<8x1xi32, 5>, memref<8x1xi32, 5>, memref<8x1xf16, 5>
  return
}

// -----

func.func @even_extent_is_not_packing(%h: memref<8x2xf16, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: the final axis counts the registers of one instruction and must have extent 1, got (8, 2); add a singleton register axis}}
  tile.apply "add.rn.f16x2"(%h, %h, %h) : memref<8x2xf16, 5>, memref<8x2xf16, 5>, memref<8x2xf16, 5>
  return
}

// -----

func.func @float_is_not_a_bit_container(%a: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 32-bit carrier for s32 (i32, ui32 or si32), got f32}}
  tile.apply "abs.s32"(%a, %a) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @wide_destination(%d: memref<4x1xi32, 5>, %a: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 64-bit carrier for s64 (i64, ui64 or si64), got i32}}
  tile.apply "mul.wide.s32"(%d, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @scalar_destination(%s: f32, %r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: a destination must be a register tile, not a scalar value}}
  tile.apply "abs.f32"(%s, %r) : f32, memref<4x1xf32, 5>
  return
}

// -----

func.func @scalar_wrong_carrier(%s: f16, %r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op rhs: expected a 32-bit carrier for f32 (i32, ui32, si32 or f32), got f16}}
  tile.apply "add.f32"(%r, %r, %s) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, f16
  return
}

// -----

func.func @broadcast_destination(%s: memref<1x1xf32, 5>, %r: memref<8x1xf32, 5>) {
  %b = tile.broadcast %s : memref<1x1xf32, 5> to memref<8x1xf32, strided<[0, 1]>, 5>
  // expected-error @+1 {{'tile.apply' op dst: destination slots overlap across repeats (layout strided<[0, 1]>); each repeat needs its own registers}}
  tile.apply "abs.f32"(%b, %r) : memref<8x1xf32, strided<[0, 1]>, 5>, memref<8x1xf32, 5>
  return
}

// -----

func.func @preserve_without_pred(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op preserve_dst requires a predicate}}
  tile.apply "abs.f32"(%r, %r) {preserve_dst} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @preserve_on_store(%g: memref<4x1xf32, 1>, %r: memref<4x1xf32, 5>, %p: i1) {
  // expected-error @+1 {{'tile.apply' op preserve_dst applies to register destinations; st.global.f32 writes memory}}
  tile.apply "st.global.f32"(%g, %r) if %p {preserve_dst} : memref<4x1xf32, 1>, memref<4x1xf32, 5>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @pred_is_i1(%r: memref<4x1xf32, 5>, %p: i32) {
  // expected-error @+1 {{use of value '%p' expects different type than prior uses: 'i1' vs 'i32'}}
  tile.apply "abs.f32"(%r, %r) if %p : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @unsupported_scope(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op scope "grid" is not supported: supported scopes are thread, warp, warpgroup, cta}}
  tile.apply "abs.f32"(%r, %r) {scope = "grid"} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @f32x2_needs_sm100(%r: memref<4x1xi64, 5>) kernel {
      // expected-error @+1 {{'tile.apply' op add.rn.f32x2 requires sm_100 or newer and PTX ISA 8.6, but the target is sm_90}}
      tile.apply "add.rn.f32x2"(%r, %r, %r) : memref<4x1xi64, 5>, memref<4x1xi64, 5>, memref<4x1xi64, 5>
      gpu.return
    }
  }
}

// -----

func.func @explicit_target(%r: memref<4x1xi32, 5>) attributes {tile.target = "sm_80"} {
  // expected-error @+1 {{'tile.apply' op add.s16x2 requires sm_90 or newer and PTX ISA 8.0, but the target is sm_80}}
  tile.apply "add.s16x2"(%r, %r, %r) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @view_bad_split(%w: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.view' op expected axis 1 of the result to have extent 2, got 'memref<4x3xi16, strided<[2, 1]>, 5>'}}
  %h = tile.view %w : memref<4x1xi32, 5> to memref<4x3xi16, strided<[2, 1]>, 5>
  return
}

// -----

func.func @broadcast_non_unit(%s: memref<2x1xf32, 5>) {
  // expected-error @+1 {{'tile.broadcast' op axis 0 of extent 2 can only be kept or, if it is 1, broadcast with stride 0}}
  %b = tile.broadcast %s : memref<2x1xf32, 5> to memref<8x1xf32, strided<[0, 1]>, 5>
  return
}

// -----

func.func @unknown_explicit_target(%r: memref<4x1xf32, 5>) attributes {tile.target = "sm_42"} {
  // expected-error @+1 {{'tile.apply' op unknown target 'sm_42': expected sm_XX, sm_XXa or sm_XXf with a known XX}}
  tile.apply "abs.f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_42">] {
    gpu.func @unknown_module_target(%r: memref<4x1xf32, 5>) kernel {
      // expected-error @+1 {{'tile.apply' op unknown target 'sm_42': expected sm_XX, sm_XXa or sm_XXf with a known XX}}
      tile.apply "abs.f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
      gpu.return
    }
  }
}

// -----

func.func @arch_specific_needs_a(%d: memref<4x1xi8, 5>, %a: memref<4x1xf32, 5>) attributes {tile.target = "sm_100"} {
  // expected-error @+1 {{'tile.apply' op cvt.rn.satfinite.e2m1x2.f32 requires sm_100a (an arch-specific target) and PTX ISA 8.6, but the target is sm_100}}
  tile.apply "cvt.rn.satfinite.e2m1x2.f32"(%d, %a, %a) : memref<4x1xi8, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @bf16_needs_sm90(%r: memref<4x1xbf16, 5>) attributes {tile.target = "sm_80"} {
  // expected-error @+1 {{'tile.apply' op add.rn.bf16 requires sm_90 or newer and PTX ISA 7.8, but the target is sm_80}}
  tile.apply "add.rn.bf16"(%r, %r, %r) : memref<4x1xbf16, 5>, memref<4x1xbf16, 5>, memref<4x1xbf16, 5>
  return
}

// -----

func.func @misaligned_vector_load(%r: memref<4x2xf32, 5>, %g: memref<4x2xf32, strided<[3, 1], offset: 1>, 1>) {
  // expected-error @+1 {{'tile.apply' op src: a .v2 access of 32-bit elements must be aligned to 8 bytes, but layout strided<[3, 1], offset: 1> places an access at an element offset that is not a multiple of 2}}
  tile.apply "ld.global.v2.f32"(%r, %g) : memref<4x2xf32, 5>, memref<4x2xf32, strided<[3, 1], offset: 1>, 1>
  return
}

// -----

func.func @noncontiguous_vector_load(%r: memref<4x2xf32, 5>, %g: memref<4x2xf32, strided<[8, 2]>, 1>) {
  // expected-error @+1 {{'tile.apply' op src: a .v2 access needs a contiguous final axis (stride 1), got layout strided<[8, 2]>}}
  tile.apply "ld.global.v2.f32"(%r, %g) : memref<4x2xf32, 5>, memref<4x2xf32, strided<[8, 2]>, 1>
  return
}

// -----

func.func @scalar_memory_operand(%r: memref<4x1xf32, 5>, %s: f32) {
  // expected-error @+1 {{'tile.apply' op src: expected a memref in the global address space, got 'f32'}}
  tile.apply "ld.global.f32"(%r, %s) : memref<4x1xf32, 5>, f32
  return
}

// -----

func.func @scalar_store_destination(%r: memref<4x1xf32, 5>, %s: f32) {
  // expected-error @+1 {{'tile.apply' op dst: expected a memref in the global address space, got 'f32'}}
  tile.apply "st.global.f32"(%s, %r) : f32, memref<4x1xf32, 5>
  return
}

// -----

func.func @store_from_shared(%g: memref<4x1xf32, 1>, %s: memref<4x1xf32, 3>) {
  // expected-error @+1 {{'tile.apply' op src: expected a register tile (a memref in address space 5, owned by the issuing thread), got 'memref<4x1xf32, 3>'; global and shared tensors need explicit ld/st}}
  tile.apply "st.global.f32"(%g, %s) : memref<4x1xf32, 1>, memref<4x1xf32, 3>
  return
}

// -----

func.func @shared_load_from_global(%r: memref<4x1xf32, 5>, %g: memref<4x1xf32, 1>) {
  // expected-error @+1 {{'tile.apply' op src: expected a memref in the shared address space (3) for ld.shared.f32, got 'memref<4x1xf32, 1>'}}
  tile.apply "ld.shared.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
  return
}

// -----

func.func @generic_load_from_global(%r: memref<4x1xf32, 5>, %g: memref<4x1xf32, 1>) {
  // expected-error @+1 {{'tile.apply' op src: expected a memref in the generic address space (0) for ld.f32, got 'memref<4x1xf32, 1>'}}
  tile.apply "ld.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
  return
}

// -----

func.func @register_operand_in_shared(%r: memref<4x1xf32, 5>, %s: memref<4x1xf32, 3>) {
  // expected-error @+1 {{'tile.apply' op src: expected a register tile (a memref in address space 5, owned by the issuing thread), got 'memref<4x1xf32, 3>'; global and shared tensors need explicit ld/st}}
  tile.apply "neg.f32"(%r, %s) : memref<4x1xf32, 5>, memref<4x1xf32, 3>
  return
}

// -----

func.func @dynamic_tile(%r: memref<?x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a statically shaped tile with a final register axis, got 'memref<?x1xf32, 5>'}}
  tile.apply "abs.f32"(%r, %r) : memref<?x1xf32, 5>, memref<?x1xf32, 5>
  return
}

// -----

func.func @rank_zero_tile(%r: memref<f32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a statically shaped tile with a final register axis, got 'memref<f32, 5>'}}
  tile.apply "abs.f32"(%r, %r) : memref<f32, 5>, memref<f32, 5>
  return
}

// -----

func.func @repeat_rank_mismatch(%d: memref<2x1xf32, 5>, %s: memref<2x1x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op src: repeat shape (2, 1) does not match dst's (2)}}
  tile.apply "abs.f32"(%d, %s) : memref<2x1xf32, 5>, memref<2x1x1xf32, 5>
  return
}

// -----

func.func @packed_cvt_half_sources(%d: memref<4x1xi32, 5>, %h: memref<4x1xf16, 5>) {
  // expected-error @+1 {{'tile.apply' op src: expected a 32-bit carrier for f32 (i32, ui32, si32 or f32), got f16}}
  tile.apply "cvt.rn.f16x2.f32"(%d, %h, %h) : memref<4x1xi32, 5>, memref<4x1xf16, 5>, memref<4x1xf16, 5>
  return
}

// -----

func.func @narrowing_cvt_destination(%d: memref<4x1xi32, 5>, %a: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 16-bit carrier for f16 (i16, ui16, si16 or f16), got i32}}
  tile.apply "cvt.rn.f16.f32"(%d, %a) : memref<4x1xi32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @wide_u16_destination(%d: memref<4x1xi16, 5>, %a: memref<4x1xi16, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 32-bit carrier for u32 (i32, ui32 or si32), got i16}}
  tile.apply "mul.wide.u16"(%d, %a, %a) : memref<4x1xi16, 5>, memref<4x1xi16, 5>, memref<4x1xi16, 5>
  return
}

// -----

func.func @f32x2_in_float_carrier(%r: memref<4x1xf32, 5>) attributes {tile.target = "sm_100a"} {
  // expected-error @+1 {{'tile.apply' op dst: expected a 64-bit carrier for f32x2 (i64, ui64 or si64), got f32}}
  tile.apply "add.rn.f32x2"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @bf16_for_f16(%r: memref<4x1xbf16, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 16-bit carrier for f16 (i16, ui16, si16 or f16), got bf16}}
  tile.apply "abs.f16"(%r, %r) : memref<4x1xbf16, 5>, memref<4x1xbf16, 5>
  return
}

// -----

func.func @f32_for_f64(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 64-bit carrier for f64 (i64, ui64, si64 or f64), got f32}}
  tile.apply "neg.f64"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @index_elements(%r: memref<4x1xindex, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 32-bit carrier for s32 (i32, ui32 or si32), got index}}
  tile.apply "abs.s32"(%r, %r) : memref<4x1xindex, 5>, memref<4x1xindex, 5>
  return
}

// -----

func.func @scalar_for_vector_input(%g: memref<4x2xf32, 1>, %s: f32) {
  // expected-error @+1 {{'tile.apply' op src: a scalar can only replace a single-register input, but st.global.v2.f32 reads 2 registers here}}
  tile.apply "st.global.v2.f32"(%g, %s) : memref<4x2xf32, 1>, f32
  return
}

// -----

func.func @overlap_through_layout(%d: memref<3x2x1xf32, strided<[1, 1, 1]>, 5>, %s: memref<3x2x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: destination slots overlap across repeats (layout strided<[1, 1, 1]>); each repeat needs its own registers}}
  tile.apply "abs.f32"(%d, %s) : memref<3x2x1xf32, strided<[1, 1, 1]>, 5>, memref<3x2x1xf32, 5>
  return
}

// -----

func.func @overlapping_store(%g: memref<4x1xf32, strided<[0, 1]>, 1>, %r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: destination slots overlap across repeats (layout strided<[0, 1]>); each repeat needs its own registers}}
  tile.apply "st.global.f32"(%g, %r) : memref<4x1xf32, strided<[0, 1]>, 1>, memref<4x1xf32, 5>
  return
}

// -----

func.func @overlap_through_view(%w: memref<2x1xi32, 5>, %s: memref<4x1xi16, 5>) {
  %h = tile.view %w : memref<2x1xi32, 5> to memref<2x2xi16, 5>
  %b = tile.broadcast %h : memref<2x2xi16, 5> to memref<2x2xi16, 5>
  %c = memref.subview %h[0, 0] [2, 1] [1, 1] : memref<2x2xi16, 5> to memref<2x1xi16, strided<[2, 1]>, 5>
  %z = tile.broadcast %c : memref<2x1xi16, strided<[2, 1]>, 5> to memref<2x1xi16, strided<[2, 1]>, 5>
  %one = memref.subview %h[0, 0] [1, 1] [1, 1] : memref<2x2xi16, 5> to memref<1x1xi16, strided<[2, 1]>, 5>
  %bad = tile.broadcast %one : memref<1x1xi16, strided<[2, 1]>, 5> to memref<4x1xi16, strided<[0, 1]>, 5>
  // expected-error @+1 {{'tile.apply' op dst: destination slots overlap across repeats (layout strided<[0, 1]>); each repeat needs its own registers}}
  tile.apply "neg.s16"(%bad, %s) : memref<4x1xi16, strided<[0, 1]>, 5>, memref<4x1xi16, 5>
  return
}

// -----

func.func @no_type(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op add needs a type: one of u16, u32, u64, s16, s32, s64, f16, f16x2, bf16, bf16x2, f32, f32x2, f64, u16x2, s16x2}}
  tile.apply "add.rn"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @unknown_type(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'f128' is not a type of add: expected one of u16, u32, u64, s16, s32, s64, f16, f16x2, bf16, bf16x2, f32, f32x2, f64, u16x2, s16x2}}
  tile.apply "add.rn.f128"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @two_types(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'f32' and 'f64' are both types; abs takes one}}
  tile.apply "abs.f32.f64"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @mul_needs_mode(%r: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op mul.s32 needs a mode: one of hi, lo, wide}}
  tile.apply "mul.s32"(%r, %r, %r) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @wide_64(%r: memref<4x1xi64, 5>) {
  // expected-error @+1 {{'tile.apply' op 'wide' is not available for mul.s64: wide multiplies 16- and 32-bit operands only}}
  tile.apply "mul.wide.s64"(%r, %r, %r) : memref<4x1xi64, 5>, memref<4x1xi64, 5>, memref<4x1xi64, 5>
  return
}

// -----

func.func @sat_unsigned(%r: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'sat' is not a qualifier of add.u32: expected cc}}
  tile.apply "add.sat.u32"(%r, %r, %r) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @sat_with_carry(%r: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'sat' cannot be combined with 'cc' in add.s32}}
  tile.apply "add.cc.sat.s32"(%r, %r, %r) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @rounding_on_widening(%d: memref<4x1xf32, 5>, %h: memref<4x1xf16, 5>) {
  // expected-error @+1 {{'tile.apply' op 'rn' is not a qualifier of cvt.f32.f16: expected ftz, sat}}
  tile.apply "cvt.rn.f32.f16"(%d, %h) : memref<4x1xf32, 5>, memref<4x1xf16, 5>
  return
}

// -----

func.func @narrowing_needs_rounding(%h: memref<4x1xf16, 5>, %f: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op cvt.f16.f32 needs a rounding mode: one of rn, rz, rm, rp}}
  tile.apply "cvt.f16.f32"(%h, %f) : memref<4x1xf16, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @integer_rounding_to_float(%f: memref<4x1xf32, 5>, %i: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'rni' is not a qualifier of cvt.f32.s32: expected rounding mode (rn, rz, rm, rp), ftz, sat}}
  tile.apply "cvt.rni.f32.s32"(%f, %i) : memref<4x1xf32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @cvt_pack_without_c(%r: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op cvt.pack.s8 takes the source types s32.b32, got 's32'}}
  tile.apply "cvt.pack.sat.s8.s32"(%r, %r, %r) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @two_vector_widths(%r: memref<4x2xf32, 5>, %g: memref<4x2xf32, 1>) {
  // expected-error @+1 {{'tile.apply' op 'v4' cannot follow 'v2' in ld.f32: one vector width of v2, v4, v8}}
  tile.apply "ld.global.v2.v4.f32"(%r, %g) : memref<4x2xf32, 5>, memref<4x2xf32, 1>
  return
}

// -----

func.func @relaxed_needs_scope(%r: memref<4x1xf32, 5>, %g: memref<4x1xf32, 1>) {
  // expected-error @+1 {{'tile.apply' op 'relaxed' needs a scope in ld.f32: one of cta, cluster, gpu, sys}}
  tile.apply "ld.relaxed.global.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
  return
}

// -----

func.func @nc_on_shared(%r: memref<4x1xf32, 5>, %s: memref<4x1xf32, 3>) {
  // expected-error @+1 {{'tile.apply' op 'nc' needs the global state space and no memory ordering}}
  tile.apply "ld.shared.nc.f32"(%r, %s) : memref<4x1xf32, 5>, memref<4x1xf32, 3>
  return
}

// -----

func.func @vector_b128(%r: memref<4x2xi128, 5>, %g: memref<4x2xi128, 1>) {
  // expected-error @+1 {{'tile.apply' op 'v2' is not available for ld.b128: b128 is not vectorized}}
  tile.apply "ld.global.v2.b128"(%r, %g) : memref<4x2xi128, 5>, memref<4x2xi128, 1>
  return
}

// -----

func.func @v8_halves(%r: memref<1x8xi16, 5>, %g: memref<1x8xi16, 1>) {
  // expected-error @+1 {{'tile.apply' op 'v8' with 16-bit elements is not supported: PTX defines .v8 for 32-bit elements, and ptxas (CUDA 13.0) accepts it but crashes on 16-bit loads and moves one element of 8-bit ones (measured on an H200); use v4 of 32-bit elements over a narrower view}}
  tile.apply "ld.global.v8.b16"(%r, %g) : memref<1x8xi16, 5>, memref<1x8xi16, 1>
  return
}

// -----

func.func @store_cache_operator(%g: memref<4x1xf32, 1>, %r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'ca' is not a qualifier of st.f32: expected memory ordering (weak, volatile, relaxed, release), scope (cta, cluster, gpu, sys), state space (global, shared, shared::cta, shared::cluster, local, param), cache operator (wb, cg, cs, wt), mmio, eviction priority (L1::evict_normal, L1::evict_unchanged, L1::evict_first, L1::evict_last, L1::no_allocate), L2 eviction priority (L2::evict_normal, L2::evict_first, L2::evict_last), L2::cache_hint, vector width (v2, v4, v8)}}
  tile.apply "st.global.ca.f32"(%g, %r) : memref<4x1xf32, 1>, memref<4x1xf32, 5>
  return
}

// -----

func.func @mov_qualifier(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'rn' is not a qualifier of mov, which takes none}}
  tile.apply "mov.rn.f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @hostile_characters(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op the opcode contains ' ', which no PTX instruction spelling has}}
  tile.apply "abs.f32 %r1; trap"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @empty_opcode(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op the opcode is empty}}
  tile.apply ""(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @empty_qualifier(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'abs..f32' has an empty qualifier}}
  tile.apply "abs..f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @view_space(%w: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.view' op a view cannot change the memory space}}
  %h = tile.view %w : memref<4x1xi32, 5> to memref<4x2xi16, 1>
  return
}

// -----

func.func @view_noncontiguous(%w: memref<4x2xi32, strided<[4, 2]>, 5>) {
  // expected-error @+1 {{'tile.view' op the final axis must be contiguous (stride 1) on both sides of a view}}
  %h = tile.view %w : memref<4x2xi32, strided<[4, 2]>, 5> to memref<4x4xi16, strided<[8, 1]>, 5>
  return
}

// -----

func.func @view_offset(%w: memref<4x1xi32, strided<[1, 1], offset: 1>, 5>) {
  // expected-error @+1 {{'tile.view' op the offset does not scale to 16-bit elements: expected 2, got 'memref<4x2xi16, strided<[2, 1], offset: 1>, 5>'}}
  %h = tile.view %w : memref<4x1xi32, strided<[1, 1], offset: 1>, 5> to memref<4x2xi16, strided<[2, 1], offset: 1>, 5>
  return
}

// -----

func.func @view_odd_merge(%h: memref<4x3xi16, strided<[4, 1]>, 5>) {
  // expected-error @+1 {{'tile.view' op the final axis of 3 x 16 bits cannot be split into 32-bit elements}}
  %w = tile.view %h : memref<4x3xi16, strided<[4, 1]>, 5> to memref<4x1xi32, strided<[2, 1]>, 5>
  return
}

// -----

func.func @view_vector_elements(%w: memref<4x1xvector<2xf16>, 5>) {
  // expected-error @+1 {{'tile.view' op a view reinterprets integer or float elements}}
  %h = tile.view %w : memref<4x1xvector<2xf16>, 5> to memref<4x2xf16, 5>
  return
}

// -----

func.func @broadcast_element_type(%s: memref<1x1xf32, 5>) {
  // expected-error @+1 {{'tile.broadcast' op a broadcast keeps the element type, memory space and rank}}
  %b = tile.broadcast %s : memref<1x1xf32, 5> to memref<8x1xi32, strided<[0, 1]>, 5>
  return
}

// -----

func.func @instr_results(%a: i32) {
  // expected-error @+1 {{'tile.instr' op expected 1 destination registers for add.rn.f16x2, got 0}}
  tile.instr "add.rn.f16x2"(%a, %a) : (i32, i32) -> ()
  return
}

// -----

func.func @instr_inputs(%a: i32) {
  // expected-error @+1 {{'tile.instr' op expected 2 source registers and immediates for add.rn.f16x2, got 1}}
  %0 = tile.instr "add.rn.f16x2"(%a) : (i32) -> i32
  return
}

// -----

func.func @instr_missing_address() {
  // expected-error @+1 {{'tile.instr' op expected a memory operand for ld.global.f32}}
  %0 = tile.instr "ld.global.f32"() : () -> f32
  return
}

// -----

func.func @instr_unexpected_address(%g: memref<1x1xf32, 1>, %x: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op unexpected memory operand for abs.f32}}
  %0 = tile.instr "abs.f32"(%x) [%g[%c0, %c0] : memref<1x1xf32, 1>] : (f32) -> f32
  return
}

// -----

func.func @instr_index_count(%g: memref<1x1xf32, 1>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op expected 2 indices, got 1}}
  %0 = tile.instr "ld.global.f32"() [%g[%c0] : memref<1x1xf32, 1>] : () -> f32
  return
}

// -----

func.func @instr_keep_without_pred(%x: f32) {
  // expected-error @+1 {{'tile.instr' op keep requires a predicate}}
  %0 = tile.instr "abs.f32"(%x) keep(%x : f32) : (f32) -> f32
  return
}

// -----

func.func @instr_result_carrier(%x: f32) {
  // expected-error @+1 {{'tile.instr' op dst: expected a 32-bit carrier for f32 (i32, ui32, si32 or f32), got f16}}
  %0 = tile.instr "abs.f32"(%x) : (f32) -> f16
  return
}

// -----

// Found by tools/conformance on the H200: the load moved one of eight bytes.
func.func @v8_bytes(%r: memref<1x8xi8, 5>, %g: memref<1x8xi8, 1>) {
  // expected-error @+1 {{'tile.apply' op 'v8' with 8-bit elements is not supported: PTX defines .v8 for 32-bit elements, and ptxas (CUDA 13.0) accepts it but crashes on 16-bit loads and moves one element of 8-bit ones (measured on an H200); use v4 of 32-bit elements over a narrower view}}
  tile.apply "ld.global.v8.b8"(%r, %g) : memref<1x8xi8, 5>, memref<1x8xi8, 1>
  return
}

// -----

// Found by tools/fuzz: a permuted layout reached the lowering.
func.func @non_strided_layout(%r: memref<4x4xf32, 5>, %g: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>) {
  // expected-error @+1 {{'tile.apply' op src: expected a strided layout, got 'memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>'}}
  tile.apply "ld.global.v4.f32"(%r, %g) : memref<4x4xf32, 5>, memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>
  return
}

// -----

// mov packs 16-bit elements or wider: no form takes two 64-bit registers.
func.func @mov_pack_too_wide(%w: memref<4x1xi64, 5>, %p: memref<4x2xi64, 5>) {
  // expected-error @+1 {{'tile.apply' op src: the final axis counts the registers of one instruction and must have extent 1, got (4, 2); add a singleton register axis}}
  tile.apply "mov.b64"(%w, %p) : memref<4x1xi64, 5>, memref<4x2xi64, 5>
  return
}

// -----

func.func @cvt_pack_without_sat(%r: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op cvt.pack needs 'sat': its conversions always saturate}}
  tile.apply "cvt.pack.u16.s32"(%r, %r, %r) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

// Found by tools/fuzz: these reached the lowering and asserted in MLIR.
func.func @instr_unknown_memory_space(%l: memref<2x1xi32, "x">) -> i32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: expected a memref in the local address space (5) for ld.local.b32, got 'memref<2x1xi32, "x">'}}
  %0 = tile.instr "ld.local.b32"() [%l[%c0, %c0] : memref<2x1xi32, "x">] : () -> i32
  return %0 : i32
}

// -----

func.func @instr_non_strided(%l: memref<2x2xi32, affine_map<(d0, d1) -> (d1 floordiv 2, d0)>, 1>) -> i32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: expected a strided layout, got 'memref<2x2xi32, affine_map<(d0, d1) -> (d1 floordiv 2, d0)>, 1>'}}
  %0 = tile.instr "ld.global.b32"() [%l[%c0, %c0] : memref<2x2xi32, affine_map<(d0, d1) -> (d1 floordiv 2, d0)>, 1>] : () -> i32
  return %0 : i32
}

// -----

func.func @instr_overload_out_of_range(%a: f32) {
  // expected-error @+1 {{'tile.instr' op overload 2 does not exist: fma.rn.f32 has 2 operand signatures}}
  %0 = tile.instr "fma.rn.f32"(%a, %a, %a) {overload = 2 : i32} : (f32, f32, f32) -> f32
  return
}

// -----

// The i32 attribute was read unsigned: -1 printed as 4294967295.
func.func @instr_overload_negative(%a: f32) {
  // expected-error @+1 {{'tile.instr' op overload -1 does not exist: fma.rn.f32 has 2 operand signatures}}
  %0 = tile.instr "fma.rn.f32"(%a, %a, %a) {overload = -1 : i32} : (f32, f32, f32) -> f32
  return
}

// -----

func.func @instr_static_index_out_of_bounds(%A: memref<8x1xi32, 1>) {
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.instr' op memory operand: index 8 of axis 0 is out of range for extent 8}}
  %v = tile.instr "ld.global.b32"() [%A[%c8, %c0] : memref<8x1xi32, 1>] : () -> i32
  return
}

// -----

func.func @instr_negative_static_index(%A: memref<8x1xi32, 1>, %v: i32) {
  %c0 = arith.constant 0 : index
  %m1 = arith.constant -1 : index
  // expected-error @+1 {{'tile.instr' op memory operand: index -1 of axis 1 is out of range for extent 1}}
  tile.instr "st.global.b32"(%v) [%A[%c0, %m1] : memref<8x1xi32, 1>] : (i32) -> ()
  return
}

// -----

func.func @instr_counts_of_another_overload(%lo: i32, %hi: i32) {
  // expected-error @+1 {{'tile.instr' op expected 1 source registers and immediates for mov.b64, got 2; overload 1 of mov.b64 takes these counts ({overload = 1 : i32})}}
  %0 = tile.instr "mov.b64"(%lo, %hi) : (i32, i32) -> i64
  return
}

// -----

func.func @rw_scalar(%a: f32) {
  // expected-error @+1 {{'tile.apply' op acc: a read-write operand must be a register tile, not a scalar value}}
  tile.apply "fma.rn.f32"(%a, %a, %a) : f32, f32, f32
  return
}

// -----

func.func @rw_overlapping(%acc: memref<2x1xf32, strided<[0, 1]>, 5>, %a: f32) {
  // expected-error @+1 {{'tile.apply' op acc: destination slots overlap across repeats (layout strided<[0, 1]>); each repeat needs its own registers}}
  tile.apply "fma.rn.f32"(%acc, %a, %a) : memref<2x1xf32, strided<[0, 1]>, 5>, f32, f32
  return
}

// -----

func.func @carry_reader_without_writer(%d: memref<4x1xi32, 5>, %a: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op addc.cc.u32 reads the carry flag (CC.CF), which no instruction before it in its block writes: begin the chain in the same block with a form that writes it (add.cc, sub.cc, mad.lo.cc, addc.cc, ...)}}
  tile.apply "addc.cc.u32"(%d, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @carry_writer_in_another_block(%d: memref<4x1xi32, 5>, %a: memref<4x1xi32, 5>, %p: i1) {
  tile.apply "add.cc.u32"(%d, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  scf.if %p {
    // expected-error @+1 {{'tile.apply' op madc.hi.u32 reads the carry flag (CC.CF), which no instruction before it in its block writes}}
    tile.apply "madc.hi.u32"(%d, %a, %a, %a) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  }
  return
}
