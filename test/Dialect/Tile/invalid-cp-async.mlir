// RUN: tile-opt %s -split-input-file -verify-diagnostics

// cp.async copies cp-size bytes: each memory operand's final axis holds
// them, contiguous and aligned to their size.
gpu.module @m {
  gpu.func @bytes(%g: memref<4x4xi32, 1>) workgroup(%s: memref<4x4xi32, 3>) kernel {
    %c16 = arith.constant 16 : i32
    %c8 = arith.constant 8 : i32
    // 16 bytes: four 32-bit elements.
    tile.apply "cp.async.cg.shared.global"(%s, %g, %c16) : memref<4x4xi32, 3>, memref<4x4xi32, 1>, i32
    // expected-error @+1 {{'tile.apply' op dst: the final axis holds the cp-size bytes of one copy: 8, got (4, 4) of 'i32'}}
    tile.apply "cp.async.ca.shared.global"(%s, %g, %c8) : memref<4x4xi32, 3>, memref<4x4xi32, 1>, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @misaligned(%g: memref<4x5xi32, 1>) workgroup(%s: memref<4x4xi32, 3>) kernel {
    %c16 = arith.constant 16 : i32
    %v = memref.subview %g[0, 1] [4, 4] [1, 1] : memref<4x5xi32, 1> to memref<4x4xi32, strided<[5, 1], offset: 1>, 1>
    // expected-error @+1 {{'tile.apply' op src: a .v4 access of 32-bit elements must be aligned to 16 bytes, but layout strided<[5, 1], offset: 1> places an access at an element offset that is not a multiple of 4}}
    tile.apply "cp.async.cg.shared.global"(%s, %v, %c16) : memref<4x4xi32, 3>, memref<4x4xi32, strided<[5, 1], offset: 1>, 1>, i32
    gpu.return
  }
}

// -----

// .cg copies 16 bytes only.
gpu.module @m {
  gpu.func @cg_size(%g: memref<4x1xi32, 1>) workgroup(%s: memref<4x1xi32, 3>) kernel {
    %c4 = arith.constant 4 : i32
    // expected-error @+1 {{'tile.apply' op cp-size: immediate 4 is not legal for cp.async.cg.shared.global: expected 16}}
    tile.apply "cp.async.cg.shared.global"(%s, %g, %c4) : memref<4x1xi32, 3>, memref<4x1xi32, 1>, i32
    gpu.return
  }
}

// -----

// The size is an immediate: a runtime value cannot size the copy.
gpu.module @m {
  gpu.func @runtime_size(%g: memref<4x4xi32, 1>, %n: i32) workgroup(%s: memref<4x4xi32, 3>) kernel {
    // expected-error @+1 {{'tile.apply' op dst: the final axis holds the cp-size bytes of one copy, so cp-size must be a constant}}
    tile.apply "cp.async.cg.shared.global"(%s, %g, %n) : memref<4x4xi32, 3>, memref<4x4xi32, 1>, i32
    gpu.return
  }
}
