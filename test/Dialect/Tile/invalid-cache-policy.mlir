// RUN: tile-opt %s -split-input-file -verify-diagnostics

// L2 cache policies (createpolicy) and the accesses that take one
// (.L2::cache_hint), by the rules ptxas 13.0 applies (tools/ptxas_diff).

func.func @hint_without_policy(%g: memref<1x1xf32, 1>, %r: memref<1x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op expected 3 operands for ld.global.L2::cache_hint.f32 (dst, src, cache-policy), got 2}}
  tile.apply "ld.global.L2::cache_hint.f32"(%r, %g) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
  return
}

// -----

func.func @hint_on_shared(%s: memref<1x1xf32, 3>, %r: memref<1x1xf32, 5>, %p: i64) {
  // expected-error @+1 {{'tile.apply' op 'L2::cache_hint' needs the global or the generic state space}}
  tile.apply "ld.shared.L2::cache_hint.f32"(%r, %s, %p) : memref<1x1xf32, 5>, memref<1x1xf32, 3>, i64
  return
}

// -----

func.func @hint_on_volatile(%g: memref<1x1xf32, 1>, %r: memref<1x1xf32, 5>, %p: i64) {
  // expected-error @+1 {{'tile.apply' op 'L2::cache_hint' cannot be combined with 'volatile'}}
  tile.apply "st.volatile.global.L2::cache_hint.f32"(%g, %r, %p) : memref<1x1xf32, 1>, memref<1x1xf32, 5>, i64
  return
}

// -----

func.func @policy_of_32_bits(%g: memref<1x1xf32, 1>, %r: memref<1x1xf32, 5>, %p: i32) {
  // expected-error @+1 {{'tile.apply' op cache-policy: expected a 64-bit carrier for b64 (i64, ui64 or si64), got i32}}
  tile.apply "ld.global.L2::cache_hint.f32"(%r, %g, %p) : memref<1x1xf32, 5>, memref<1x1xf32, 1>, i32
  return
}

// -----

func.func @no_priority(%p: memref<1x1xi64, 5>) {
  // expected-error @+1 {{'tile.apply' op createpolicy.fractional.b64 needs a primary priority: one of L2::evict_last, L2::evict_normal, L2::evict_first, L2::evict_unchanged}}
  tile.apply "createpolicy.fractional.b64"(%p) : memref<1x1xi64, 5>
  return
}

// -----

func.func @secondary_evict_last(%p: memref<1x1xi64, 5>) {
  // expected-error @+1 {{'tile.apply' op 'L2::evict_last' cannot follow 'L2::evict_first' in createpolicy.fractional.b64: one primary priority of L2::evict_last, L2::evict_normal, L2::evict_first, L2::evict_unchanged}}
  tile.apply "createpolicy.fractional.L2::evict_first.L2::evict_last.b64"(%p) : memref<1x1xi64, 5>
  return
}

// -----

func.func @range_of_shared(%p: memref<1x1xi64, 5>, %a: i64, %n: i32) {
  // expected-error @+1 {{'tile.apply' op 'shared' is not a qualifier of createpolicy.range.b64: expected global, primary priority (L2::evict_last, L2::evict_normal, L2::evict_first, L2::evict_unchanged), secondary priority (L2::evict_first, L2::evict_unchanged)}}
  tile.apply "createpolicy.range.shared.L2::evict_last.b64"(%p, %a, %n, %n) : memref<1x1xi64, 5>, i64, i32, i32
  return
}

// -----

func.func @cvt_without_level(%p: memref<1x1xi64, 5>, %a: i64) {
  // expected-error @+1 {{'tile.apply' op createpolicy.cvt.b64 needs 'L2'}}
  tile.apply "createpolicy.cvt.b64"(%p, %a) : memref<1x1xi64, 5>, i64
  return
}

// -----

func.func @policy_before_sm80(%p: memref<1x1xi64, 5>) attributes {tile.target = "sm_75"} {
  // expected-error @+1 {{'tile.apply' op createpolicy.fractional.L2::evict_last.b64 requires sm_80 or newer and PTX ISA 7.4, but the target is sm_75}}
  tile.apply "createpolicy.fractional.L2::evict_last.b64"(%p) : memref<1x1xi64, 5>
  return
}
