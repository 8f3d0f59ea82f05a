// RUN: tile-opt %s -split-input-file -verify-diagnostics

// mma.sync is a warp's instruction over fragments: each thread's own
// registers (scope thread) or a warp's rows of them (scope warp).
func.func @cta_scope() {
  %d = memref.alloca() {tile.scope = "cta"} : memref<1x32x1x1x4xf32, 5>
  %a = memref.alloca() {tile.scope = "cta"} : memref<1x32x1x1x4xi32, 5>
  %b = memref.alloca() {tile.scope = "cta"} : memref<1x32x1x1x2xi32, 5>
  // expected-error @+1 {{'tile.apply' op mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 is a warp's instruction over fragments: scope "thread" or "warp", got "cta"}}
  tile.apply "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"(%d, %a, %b) {scope = "cta"} : memref<1x32x1x1x4xf32, 5>, memref<1x32x1x1x4xi32, 5>, memref<1x32x1x1x2xi32, 5>
  return
}

// -----

// A's k extent (2) differs from B's (3).
func.func @k_mismatch() {
  %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x4xf32, 5>
  %a = memref.alloca() {tile.scope = "warp"} : memref<32x1x2x4xi32, 5>
  %b = memref.alloca() {tile.scope = "warp"} : memref<32x1x3x2xi32, 5>
  // expected-error @+1 {{'tile.apply' op b: repeat axis k has extent 3, but a's has 2}}
  tile.apply "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"(%d, %a, %b) {scope = "warp"} : memref<32x1x1x4xf32, 5>, memref<32x1x2x4xi32, 5>, memref<32x1x3x2xi32, 5>
  return
}

// -----

// D spans (m, n): one repeat axis is missing.
func.func @missing_axis() {
  %d = memref.alloca() {tile.scope = "warp"} : memref<32x2x4xf32, 5>
  %a = memref.alloca() {tile.scope = "warp"} : memref<32x2x1x4xi32, 5>
  %b = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x2xi32, 5>
  // expected-error @+1 {{'tile.apply' op acc: spans the repeat axes (mn): expected a shape of the group axes, 2 repeat axes and 4 registers, got (32, 2, 4)}}
  tile.apply "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"(%d, %a, %b) {scope = "warp"} : memref<32x2x4xf32, 5>, memref<32x2x1x4xi32, 5>, memref<32x1x1x2xi32, 5>
  return
}

// -----

// The register axis counts one instruction's registers: A of m16n8k16 has 4.
func.func @register_count() {
  %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x4xf32, 5>
  %a = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x2xi32, 5>
  %b = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x2xi32, 5>
  // expected-error @+1 {{'tile.apply' op a: the final axis counts the registers of one instruction and must have extent 4 for mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, got (32, 1, 1, 2)}}
  tile.apply "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"(%d, %a, %b) {scope = "warp"} : memref<32x1x1x4xf32, 5>, memref<32x1x1x2xi32, 5>, memref<32x1x1x2xi32, 5>
  return
}

// -----

// A guard would leave lanes of the warp out.
func.func @guarded(%p: i1) {
  %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x4xf32, 5>
  %a = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x4xi32, 5>
  %b = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x2xi32, 5>
  // expected-error @+1 {{'tile.apply' op mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 takes no predicate}}
  tile.apply "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"(%d, %a, %b) if %p {scope = "warp"} : memref<32x1x1x4xf32, 5>, memref<32x1x1x4xi32, 5>, memref<32x1x1x2xi32, 5>
  return
}
