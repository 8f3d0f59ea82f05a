// RUN: tile-opt %s -split-input-file -verify-diagnostics

// ptxas takes mul's mode only before the type.
func.func @mode_after_type(%r: memref<2x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'lo' must come before the type in mul.s32: ptxas takes mul's mode first (mul.lo.s32)}}
  tile.apply "mul.s32.lo"(%r, %r, %r) : memref<2x1xi32, 5>, memref<2x1xi32, 5>, memref<2x1xi32, 5>
  return
}

// -----

func.func @nc_last_use(%r: memref<2x1xi32, 5>, %g: memref<2x1xi32, 1>) {
  // expected-error @+1 {{'tile.apply' op 'lu' is not a cache operator of ld.global.nc: one of ca, cg, cs}}
  tile.apply "ld.global.nc.lu.b32"(%r, %g) : memref<2x1xi32, 5>, memref<2x1xi32, 1>
  return
}

// -----

func.func @mmio_scope(%r: memref<2x1xi32, 5>, %g: memref<2x1xi32, 1>) {
  // expected-error @+1 {{'tile.apply' op 'mmio' needs relaxed.sys in ld.b32}}
  tile.apply "ld.global.mmio.relaxed.gpu.b32"(%r, %g) : memref<2x1xi32, 5>, memref<2x1xi32, 1>
  return
}

// -----

func.func @evict_shared(%r: memref<2x1xi32, 5>, %s: memref<2x1xi32, 3>) {
  // expected-error @+1 {{'tile.apply' op 'L1::evict_last' needs the global or the generic state space}}
  tile.apply "ld.shared.L1::evict_last.b32"(%r, %s) : memref<2x1xi32, 5>, memref<2x1xi32, 3>
  return
}

// -----

// cvt keeps its destination type before its source type.
func.func @cvt_types_swapped(%h: memref<2x1xi16, 5>, %r: memref<2x1xi32, 5>) {
  // expected-error @+1 {{cvt.f32.f16}}
  tile.apply "cvt.f32.rn.f16"(%h, %r) : memref<2x1xi16, 5>, memref<2x1xi32, 5>
  return
}

// -----

// The constant space is read-only; const and param take .weak at most.
func.func @const_store(%c: memref<2x1xi32, 4>, %r: memref<2x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'const' is not a qualifier of st.b32}}
  tile.apply "st.const.b32"(%c, %r) : memref<2x1xi32, 4>, memref<2x1xi32, 5>
  return
}

// -----

func.func @const_ordering(%r: memref<2x1xi32, 5>, %c: memref<2x1xi32, 4>) {
  // expected-error @+1 {{'tile.apply' op const memory takes no memory ordering but weak}}
  tile.apply "ld.const.relaxed.sys.b32"(%r, %c) : memref<2x1xi32, 5>, memref<2x1xi32, 4>
  return
}

// -----

func.func @const_needs_space_4(%r: memref<2x1xi32, 5>, %g: memref<2x1xi32, 1>) {
  // expected-error @+1 {{'tile.apply' op src: expected a memref in the const address space (4) for ld.const.b32, got 'memref<2x1xi32, 1>'}}
  tile.apply "ld.const.b32"(%r, %g) : memref<2x1xi32, 5>, memref<2x1xi32, 1>
  return
}

// -----

// cvt.rs exists on sm_100a to sm_103a only (ptxas 13.0 rejects it on the
// family and the newer arch-specific targets).
func.func @stochastic_on_sm120a(%d: memref<1x1xi32, 5>, %f: memref<1x4xf32, 5>, %r: memref<1x1xi32, 5>) attributes {tile.target = "sm_120a"} {
  // expected-error @+1 {{'tile.apply' op cvt.rs.satfinite.e4m3x4.f32 requires sm_100a to sm_103a (arch-specific targets) and PTX ISA 8.7, but the target is sm_120a}}
  tile.apply "cvt.rs.satfinite.e4m3x4.f32"(%d, %f, %r) : memref<1x1xi32, 5>, memref<1x4xf32, 5>, memref<1x1xi32, 5>
  return
}

// -----

func.func @stochastic_quad_needs_satfinite(%d: memref<1x1xi32, 5>, %f: memref<1x4xf32, 5>, %r: memref<1x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op cvt.e4m3x4.f32 needs 'satfinite'}}
  tile.apply "cvt.rs.e4m3x4.f32"(%d, %f, %r) : memref<1x1xi32, 5>, memref<1x4xf32, 5>, memref<1x1xi32, 5>
  return
}

// -----

// An L2 eviction priority needs a 256-bit access (ptxas: "Instruction 'ld'
// requires '.v8.b32/.v4.b64' type with '.L2::evict_last' modifier").
func.func @l2_evict_narrow(%r: memref<1x2xi64, 5>, %g: memref<1x2xi64, 1>) {
  // expected-error @+1 {{'tile.apply' op 'L2::evict_last' needs a 256-bit access in ld.b64: v8 of 32-bit or v4 of 64-bit elements}}
  tile.apply "ld.global.L2::evict_last.v2.b64"(%r, %g) : memref<1x2xi64, 5>, memref<1x2xi64, 1>
  return
}

// -----

// bf16 converts from s8 with a rounding mode, and to s8 with an integer
// one, without .sat (ptxas 13.0 rejects cvt.rzi.sat.s8.bf16).
func.func @bf16_to_s8_sat(%d: memref<1x1xi8, 5>, %s: memref<1x1xi16, 5>) {
  // expected-error @+1 {{'tile.apply' op 'sat' is not a qualifier of cvt.s8.bf16: expected integer rounding mode (rni, rzi, rmi, rpi)}}
  tile.apply "cvt.rzi.sat.s8.bf16"(%d, %s) : memref<1x1xi8, 5>, memref<1x1xi16, 5>
  return
}
