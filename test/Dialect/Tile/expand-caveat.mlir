// RUN: tile-opt --tile-expand %s -split-input-file -verify-diagnostics

// A form whose measured behaviour departs from the PTX ISA warns once per
// apply, not once per expanded instruction.
func.func @ftz_dropped(%d: memref<2x1xi16, 5>, %s: memref<2x1xf32, 5>) {
  // expected-warning @+1 {{ptxas (CUDA 13.0) assembles cvt.f16.f32 with rm or rp without its .ftz (F2F.F16.F32, measured on an H200): a subnormal f32 input is rounded as it is, not flushed to zero}}
  tile.apply "cvt.rp.ftz.f16.f32"(%d, %s) : memref<2x1xi16, 5>, memref<2x1xf32, 5>
  return
}

// -----

// Round to nearest or to zero gives zero for a subnormal f32 either way.
func.func @ftz_kept(%d: memref<2x1xi16, 5>, %s: memref<2x1xf32, 5>) {
  tile.apply "cvt.rn.ftz.f16.f32"(%d, %s) : memref<2x1xi16, 5>, memref<2x1xf32, 5>
  return
}

// -----

// 64-bit bfe and bfi are ptxas's own: the form carries the measured caveat.
func.func @bfe64_caveat(%r: memref<1x1xi64, 5>, %p: i32) {
  // expected-warning @+1 {{ptxas (CUDA 13.0) computes 64-bit bfe with the whole 32-bit position and length (measured on an H200), where the PTX ISA takes their low 8 bits: a position or length of 256 or more differs}}
  tile.apply "bfe.u64"(%r, %r, %p, %p) : memref<1x1xi64, 5>, memref<1x1xi64, 5>, i32, i32
  return
}

// -----

// A measured error above the ISA's bound (tools/conformance/approx.py).
func.func @cos_error_caveat(%r: memref<1x1xf32, 5>) {
  // expected-warning @+1 {{cos.approx.f32's measured absolute error in [-2pi, 2pi] is 2^-20.44 on an H200 (at x = 4.8267), above the PTX ISA's 2^-20.5}}
  tile.apply "cos.approx.f32"(%r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  return
}

// -----

// A min.f32 of what cvt.sat to u32 wrote does not warn: ptxas -O3 dropped
// it (finding 6 of docs/difftest.md) until the lowering gave saturated
// integer results their barrier (Operand::saturationBarrier).
func.func @min_after_unsigned_saturation(%u: memref<2x1xui32, 5>, %s: memref<2x1xi64, 5>, %d: memref<2x1xf32, 5>, %c: f32) {
  tile.apply "cvt.sat.u32.s64"(%u, %s) : memref<2x1xui32, 5>, memref<2x1xi64, 5>
  tile.apply "min.ftz.f32"(%d, %c, %u) : memref<2x1xf32, 5>, f32, memref<2x1xui32, 5>
  return
}

// -----

// cp.async with an L2 policy: ptxas 13.0 can encode it as an LDGSTS the
// H200 refuses (tools/gpu/cp_async_policy.py); without one it does not warn.
func.func @cp_async_policy(%d: memref<1x4xi32, 3>, %s: memref<1x4xi32, 1>, %policy: memref<1x1xi64, 5>) {
  %size = arith.constant 16 : i32
  // expected-warning @+1 {{ptxas (CUDA 13.0, -O1 and above) can assemble cp.async with .L2::cache_hint into an LDGSTS that names uniform registers nothing writes, when the shared address is a uniform value plus a register: an H200 stops the kernel with an illegal instruction (measured; ptxas -O0 runs it)}}
  tile.apply "cp.async.cg.shared.global.L2::cache_hint"(%d, %s, %size, %policy) : memref<1x4xi32, 3>, memref<1x4xi32, 1>, i32, memref<1x1xi64, 5>
  tile.apply "cp.async.cg.shared.global.L2::256B"(%d, %s, %size) : memref<1x4xi32, 3>, memref<1x4xi32, 1>, i32
  return
}
