// RUN: tile-opt %s -split-input-file -verify-diagnostics

// min/max: xorsign and abs come together with two inputs (ptxas: "Modifier
// '.xorsign' requires modifier '.abs'").
func.func @xorsign_without_abs(%r: memref<1x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'xorsign' needs 'abs' in min.f32: the qualifier is xorsign.abs}}
  tile.apply "min.xorsign.f32"(%r, %r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>
  return
}

// -----

func.func @abs_alone_is_three_inputs(%r: memref<1x1xf16, 5>) {
  // expected-error @+1 {{'tile.apply' op 'abs' needs 'xorsign' in max.f16: two inputs take xorsign.abs; abs alone is min/max.abs.f32 of three inputs}}
  tile.apply "max.abs.f16"(%r, %r, %r) : memref<1x1xf16, 5>, memref<1x1xf16, 5>, memref<1x1xf16, 5>
  return
}

// -----

func.func @relu_on_unsigned(%r: memref<1x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'relu' is not a qualifier of min.u32, which takes none}}
  tile.apply "min.relu.u32"(%r, %r, %r) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>
  return
}

// -----

// min.f32 of three inputs exists from sm_100 on; its two-input form
// everywhere. The operand count selects the signature, then its floor.
module attributes {tile.target = "sm_90"} {
  func.func @three_inputs_on_sm90(%r: memref<1x1xf32, 5>) {
    tile.apply "min.f32"(%r, %r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>
    // expected-error @+1 {{'tile.apply' op min.f32 requires sm_100 or newer and PTX ISA 8.8, but the target is sm_90}}
    tile.apply "min.f32"(%r, %r, %r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>
    return
  }
}

// -----

func.func @ftz_on_bf16(%r: memref<1x1xbf16, 5>) {
  // expected-error @+1 {{'tile.apply' op 'ftz' is not a qualifier of min.bf16: expected NaN, xorsign, abs}}
  tile.apply "min.ftz.bf16"(%r, %r, %r) : memref<1x1xbf16, 5>, memref<1x1xbf16, 5>, memref<1x1xbf16, 5>
  return
}

// -----

// Shift amounts, bit positions and lengths are u32 whatever the type.
func.func @shift_amount_is_u32(%r: memref<1x1xi64, 5>) {
  // expected-error @+1 {{'tile.apply' op b: expected a 32-bit carrier for u32 (i32, ui32 or si32), got i64}}
  tile.apply "shl.b64"(%r, %r, %r) : memref<1x1xi64, 5>, memref<1x1xi64, 5>, memref<1x1xi64, 5>
  return
}

// -----

func.func @popc_counts_into_u32(%d: memref<1x1xi64, 5>, %a: memref<1x1xi64, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: expected a 32-bit carrier for u32 (i32, ui32 or si32), got i64}}
  tile.apply "popc.b64"(%d, %a) : memref<1x1xi64, 5>, memref<1x1xi64, 5>
  return
}

// -----

func.func @bit_ops_take_bit_types(%r: memref<1x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'u32' is not a type of and: expected one of pred, b16, b32, b64}}
  tile.apply "and.u32"(%r, %r, %r) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>
  return
}

// -----

// div, sqrt and rcp of f32 need one mode: a rounding, or approx (or full).
func.func @div_needs_a_mode(%r: memref<1x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op div.f32 needs a mode: one of rn, rz, rm, rp, full, approx}}
  tile.apply "div.f32"(%r, %r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>
  return
}

// -----

func.func @integer_div_has_no_rounding(%r: memref<1x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'rn' is not a qualifier of div.s32, which takes none}}
  tile.apply "div.rn.s32"(%r, %r, %r) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>
  return
}

// -----

func.func @gross_reciprocal_needs_ftz(%r: memref<1x1xf64, 5>) {
  // expected-error @+1 {{'tile.apply' op 'approx' needs 'ftz' in rcp.f64: the gross approximation is rcp.approx.ftz.f64}}
  tile.apply "rcp.approx.f64"(%r, %r) : memref<1x1xf64, 5>, memref<1x1xf64, 5>
  return
}

// -----

func.func @bf16_exponential_flushes(%r: memref<1x1xbf16, 5>) {
  // expected-error @+1 {{'tile.apply' op ex2.bf16 needs 'ftz'}}
  tile.apply "ex2.approx.bf16"(%r, %r) : memref<1x1xbf16, 5>, memref<1x1xbf16, 5>
  return
}

// -----

func.func @transcendentals_are_approximate(%r: memref<1x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op sin.f32 needs 'approx'}}
  tile.apply "sin.f32"(%r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  return
}

// -----

func.func @testp_writes_a_predicate(%d: memref<1x1xf32, 5>, %a: memref<1x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op p: expected a 1-bit carrier for pred (i1), got f32}}
  tile.apply "testp.finite.f32"(%d, %a) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  return
}

// -----

// ptxas takes fma.rz.bf16 but computes an f16 fma (measured on an H200).
func.func @bf16_fma_rounds_to_nearest(%r: memref<1x1xbf16, 5>) {
  // expected-error @+1 {{'tile.apply' op 'rz' is not available for fma.bf16: the PTX ISA defines fma.rn for bf16 only, and ptxas (CUDA 13.0) computes fma.rz.bf16 as an f16 fma (measured on an H200)}}
  tile.apply "fma.rz.bf16"(%r, %r, %r, %r) : memref<1x1xbf16, 5>, memref<1x1xbf16, 5>, memref<1x1xbf16, 5>, memref<1x1xbf16, 5>
  return
}

// -----

func.func @mad_mode_first(%r: memref<1x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'hi' must come first in mad.s32: ptxas takes mad's mode before 'sat' (mad.hi.sat.s32)}}
  tile.apply "mad.sat.hi.s32"(%r, %r, %r, %r) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>
  return
}

// -----

// mad.wide doubles the destination and the addend.
func.func @mad_wide_addend(%d: memref<1x1xi64, 5>, %a: memref<1x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op c: expected a 64-bit carrier for s64 (i64, ui64 or si64), got i32}}
  tile.apply "mad.wide.s32"(%d, %a, %a, %a) : memref<1x1xi64, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>
  return
}
