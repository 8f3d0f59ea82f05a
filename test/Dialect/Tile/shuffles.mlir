// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A guard false in one lane leaves the others of the mask waiting.
func.func @guarded_shuffle(%r: memref<1x1xi32, 5>, %p: i1) {
  %b = arith.constant 1 : i32
  %c = arith.constant 31 : i32
  %m = arith.constant -1 : i32
  // expected-error @+1 {{'tile.apply' op shfl.sync.bfly.b32 takes no predicate: every lane of its membermask executes it (a guard false in one lane leaves the others waiting)}}
  tile.apply "shfl.sync.bfly.b32"(%r, %r, %b, %c, %m) if %p : memref<1x1xi32, 5>, memref<1x1xi32, 5>, i32, i32, i32
  return
}

// -----

// A block of 48 threads: the second warp has lanes 0-15 only.
gpu.module @kernels {
  gpu.func @partial_warp(%r: memref<1x1xi32, 5>) kernel
      attributes {known_block_size = array<i32: 48, 1, 1>} {
    %b = arith.constant 1 : i32
    %c = arith.constant 31 : i32
    %m = arith.constant -1 : i32
    // expected-error @+1 {{'tile.apply' op membermask 0xffffffff names lanes 16-31 of the last warp, which a block of 48 threads does not have}}
    tile.apply "shfl.sync.bfly.b32"(%r, %r, %b, %c, %m) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, i32, i32, i32
    %low = arith.constant 65535 : i32
    tile.apply "shfl.sync.bfly.b32"(%r, %r, %b, %c, %low) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, i32, i32, i32
    gpu.return
  }
}

// -----

// shfl without .sync is not in the table: ptxas 13.0 refuses it on sm_70
// and newer ("not supported on .target sm_70 and higher").
func.func @shuffle_without_sync(%r: memref<1x1xi32, 5>) {
  %b = arith.constant 1 : i32
  // expected-error @+1 {{'tile.apply' op shfl.b32 needs 'sync'}}
  tile.apply "shfl.bfly.b32"(%r, %r, %b, %b, %b) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, i32, i32, i32
  return
}
