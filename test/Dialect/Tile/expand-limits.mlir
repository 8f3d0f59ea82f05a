// RUN: tile-opt %s --tile-expand -split-input-file -verify-diagnostics

// A shape that would expand to 2^30 instructions fails fast.
func.func @too_many(%r: memref<32768x32768x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op expands to more than 16777216 instructions per thread, the limit of --tile-expand}}
  tile.apply "abs.f32"(%r, %r) : memref<32768x32768x1xf32, 5>, memref<32768x32768x1xf32, 5>
  return
}

// -----

// The limit holds per function too, checked before anything is expanded.
func.func @too_many_together(%r: memref<4096x4096x1xf32, 5>, %s: memref<2x1xf32, 5>) {
  tile.apply "abs.f32"(%r, %r) : memref<4096x4096x1xf32, 5>, memref<4096x4096x1xf32, 5>
  // expected-error @+1 {{'tile.apply' op brings its function past 16777216 instructions per thread, the limit of --tile-expand for one kernel}}
  tile.apply "abs.f32"(%s, %s) : memref<2x1xf32, 5>, memref<2x1xf32, 5>
  return
}

// -----

// Unverified IR with an unknown scope once dereferenced an empty optional.
// RUN: tile-opt %s --tile-expand --mlir-very-unsafe-disable-verifier-on-parsing -split-input-file -verify-diagnostics
func.func @unknown_scope(%r: memref<2x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op scope "galaxy" is not supported}}
  tile.apply "abs.f32"(%r, %r) {scope = "galaxy"} : memref<2x1xf32, 5>, memref<2x1xf32, 5>
  return
}
