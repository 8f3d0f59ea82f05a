// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @bad_rounding(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'rz' cannot follow 'rn' in add.f32: one rounding mode of rn, rz, rm, rp}}
  tile.apply "add.rn.rz.f32"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @unknown_family(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'fma' is not a PTX instruction family the form table knows: expected one of add, sub, mul, abs, neg, cvt, mov, ld, st}}
  tile.apply "fma.rn.f32"(%r, %r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>, memref<4x1xf32, 5>
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
  // expected-error @+1 {{'tile.apply' op scope "warp" is not supported: supported scopes are thread}}
  tile.apply "abs.f32"(%r, %r) {scope = "warp"} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
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
