// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Legal: a warp tile, whole group axes through a subview of repeats.
func.func @warp_tile(%g: memref<32x4x1xf32, 1>) attributes {tile.target = "sm_90"} {
  %r = memref.alloca() {tile.scope = "warp"} : memref<32x4x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) {scope = "warp"} : memref<32x4x1xf32, 5>, memref<32x4x1xf32, 1>
  %half = memref.subview %r[0, 0, 0] [32, 2, 1] [1, 1, 1] : memref<32x4x1xf32, 5> to memref<32x2x1xf32, strided<[4, 1, 1]>, 5>
  tile.apply "neg.f32"(%half, %half) {scope = "warp"} : memref<32x2x1xf32, strided<[4, 1, 1]>, 5>, memref<32x2x1xf32, strided<[4, 1, 1]>, 5>
  return
}

// -----

func.func @warpgroup_tile(%g: memref<4x32x2x1xi32, 1>) {
  %r = memref.alloca() {tile.scope = "warpgroup"} : memref<4x32x2x1xi32, 5>
  tile.apply "ld.global.b32"(%r, %g) {scope = "warpgroup"} : memref<4x32x2x1xi32, 5>, memref<4x32x2x1xi32, 1>
  return
}

// -----

func.func @missing_group_axis(%r: memref<4x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: scope warp needs leading group axes (32) before the repeat and register axes, got (4, 1)}}
  tile.apply "abs.f32"(%r, %r) {scope = "warp"} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
  return
}

// -----

func.func @thread_tile_at_warp_scope(%r: memref<32x1xf32, 5>) {
  // expected-error @+1 {{'tile.apply' op dst: the tile is owned by scope thread, but the apply runs at scope warp; ownership cannot change}}
  tile.apply "abs.f32"(%r, %r) {scope = "warp"} : memref<32x1xf32, 5>, memref<32x1xf32, 5>
  return
}

// -----

func.func @warp_tile_at_thread_scope() {
  %r = memref.alloca() {tile.scope = "warp"} : memref<32x1xf32, 5>
  // expected-error @+1 {{'tile.apply' op dst: the tile is owned by scope warp, but the apply runs at scope thread; ownership cannot change}}
  tile.apply "abs.f32"(%r, %r) : memref<32x1xf32, 5>, memref<32x1xf32, 5>
  return
}

// -----

func.func @source_owned_by_another_scope(%g: memref<32x1xf32, 1>) {
  %d = memref.alloca() {tile.scope = "warp"} : memref<32x1xf32, 5>
  %s = memref.alloca() {tile.scope = "cta"} : memref<32x1xf32, 5>
  // expected-error @+1 {{'tile.apply' op src: the tile is owned by scope cta, but the apply runs at scope warp; ownership cannot change}}
  tile.apply "abs.f32"(%d, %s) {scope = "warp"} : memref<32x1xf32, 5>, memref<32x1xf32, 5>
  return
}

// -----

func.func @another_lanes_registers() {
  %r = memref.alloca() {tile.scope = "warp"} : memref<64x1xf32, 5>
  %shifted = memref.subview %r[1, 0] [32, 1] [1, 1] : memref<64x1xf32, 5> to memref<32x1xf32, strided<[1, 1], offset: 1>, 5>
  %d = memref.alloca() {tile.scope = "warp"} : memref<32x1xf32, 5>
  // expected-error @+1 {{'tile.apply' op src: a subview that slices group axis 0 would move registers between threads; group axes must be taken whole}}
  tile.apply "abs.f32"(%d, %shifted) {scope = "warp"} : memref<32x1xf32, 5>, memref<32x1xf32, strided<[1, 1], offset: 1>, 5>
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @small_block(%g: memref<4x32x1xf32, 1>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %r = memref.alloca() {tile.scope = "warpgroup"} : memref<4x32x1xf32, 5>
      // expected-error @+1 {{'tile.apply' op scope warpgroup needs a block of a multiple of 128 threads, got 64}}
      tile.apply "ld.global.f32"(%r, %g) {scope = "warpgroup"} : memref<4x32x1xf32, 5>, memref<4x32x1xf32, 1>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @cta_group(%g: memref<3x32x1xf32, 1>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %r = memref.alloca() {tile.scope = "cta"} : memref<3x32x1xf32, 5>
      // expected-error @+1 {{'tile.apply' op dst: scope cta needs leading group axes (2, 32) before the repeat and register axes, got (3, 32, 1)}}
      tile.apply "ld.global.f32"(%r, %g) {scope = "cta"} : memref<3x32x1xf32, 5>, memref<3x32x1xf32, 1>
      gpu.return
    }
  }
}

// -----

// An unknown block size is printed as '?', not as kDynamic.
gpu.module @unknown_block {
  gpu.func @k(%r: memref<4x1xf32, 5>) {
    // expected-error @+1 {{'tile.apply' op dst: scope cta needs leading group axes (?, 32) before the repeat and register axes, got (4, 1)}}
    tile.apply "abs.f32"(%r, %r) {scope = "cta"} : memref<4x1xf32, 5>, memref<4x1xf32, 5>
    gpu.return
  }
}

// -----

// The block size product once overflowed int64 in this message.
gpu.module @huge_block {
  gpu.func @k(%r: memref<32x1x1xf32, 5>) kernel attributes {known_block_size = array<i32: 2147483647, 2147483647, 2147483647>} {
    // expected-error @+1 {{'tile.apply' op known_block_size must hold 1 to 1024 threads}}
    tile.apply "abs.f32"(%r, %r) {scope = "warp"} : memref<32x1x1xf32, 5>, memref<32x1x1xf32, 5>
    gpu.return
  }
}
