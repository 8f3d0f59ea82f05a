// RUN: tile-opt %s --tile-expand -verify-diagnostics

// A shape that would expand to 2^30 instructions fails fast.
func.func @too_many(%r: memref<32768x32768x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op expands to more than 16777216 instructions per thread, the limit of --tile-expand}}
  tile.apply "abs.f32"(%r, %r) : memref<32768x32768x1xf32, 5>, memref<32768x32768x1xf32, 5>
  return
}
