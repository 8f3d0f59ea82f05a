// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A swizzle places the bytes of a shared buffer, not of a global tensor.
gpu.module @m {
  gpu.func @global(%g: memref<16x64xi16, 1>) kernel {
    // expected-error @+1 {{'tile.swizzle' op a swizzle places the bytes of a shared buffer, got 'memref<16x64xi16, 1>'}}
    %z = tile.swizzle %g {bits = 3, base = 4, shift = 3} : memref<16x64xi16, 1>
    gpu.return
  }
}

// -----

// The bits it reads (from base + shift up) must not be the bits it changes.
gpu.module @m {
  gpu.func @overlapping() workgroup(%s: memref<16x64xi16, 3>) kernel {
    // expected-error @+1 {{'tile.swizzle' op expected bits >= 1, base >= 0 and shift >= bits (the offset bits a swizzle reads must not be those it changes), got bits = 3, base = 4, shift = 2}}
    %z = tile.swizzle %s {bits = 3, base = 4, shift = 2} : memref<16x64xi16, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @wide() workgroup(%s: memref<16x64xi16, 3>) kernel {
    // expected-error @+1 {{'tile.swizzle' op a swizzle reads offset bits up to 33, past a 32-bit shared address}}
    %z = tile.swizzle %s {bits = 8, base = 17, shift = 8} : memref<16x64xi16, 3>
    gpu.return
  }
}

// -----

// Offsets count from the buffer's start: a view inside it is not one.
gpu.module @m {
  gpu.func @offset() workgroup(%s: memref<16x64xi16, 3>) kernel {
    %v = memref.subview %s[1, 0] [8, 64] [1, 1] : memref<16x64xi16, 3> to memref<8x64xi16, strided<[64, 1], offset: 64>, 3>
    // expected-error @+1 {{'tile.swizzle' op a swizzle counts offsets from the start of a buffer: its source must have offset 0, got 'memref<8x64xi16, strided<[64, 1], offset: 64>, 3>'}}
    %z = tile.swizzle %v {bits = 3, base = 4, shift = 3} : memref<8x64xi16, strided<[64, 1], offset: 64>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @twice() workgroup(%s: memref<16x64xi16, 3>) kernel {
    %z = tile.swizzle %s {bits = 3, base = 4, shift = 3} : memref<16x64xi16, 3>
    // expected-error @+1 {{'tile.swizzle' op a buffer takes one swizzle; its source is already swizzled}}
    %y = tile.swizzle %z {bits = 2, base = 4, shift = 3} : memref<16x64xi16, 3>
    gpu.return
  }
}

// -----

// An ldmatrix row is 16 bytes: a swizzle of 4-byte units would scatter it.
// The same row under 16-byte units is taken.
gpu.module @m {
  gpu.func @row_split() workgroup(%s: memref<32x8xi16, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x4xi32, 5>
    %ok = tile.swizzle %s {bits = 2, base = 4, shift = 3} : memref<32x8xi16, 3>
    %r = memref.expand_shape %ok [[0], [1, 2]] output_shape [32, 1, 8] : memref<32x8xi16, 3> into memref<32x1x8xi16, 3>
    tile.apply "ldmatrix.sync.aligned.m8n8.x4.shared.b16"(%d, %r) {scope = "warp"} : memref<32x1x4xi32, 5>, memref<32x1x8xi16, 3>
    gpu.return
  }
  gpu.func @row_scattered() workgroup(%s: memref<32x8xi16, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x4xi32, 5>
    %z = tile.swizzle %s {bits = 2, base = 2, shift = 3} : memref<32x8xi16, 3>
    %r = memref.expand_shape %z [[0], [1, 2]] output_shape [32, 1, 8] : memref<32x8xi16, 3> into memref<32x1x8xi16, 3>
    // expected-error @+1 {{'tile.apply' op a: a 16-byte access must stay in one unit of its swizzle, but swizzle {bits = 2, base = 2, shift = 3} moves units of 4 bytes}}
    tile.apply "ldmatrix.sync.aligned.m8n8.x4.shared.b16"(%d, %r) {scope = "warp"} : memref<32x1x4xi32, 5>, memref<32x1x8xi16, 3>
    gpu.return
  }
}

// -----

// cp.async's 16 bytes land in one unit or are rejected; 8 bytes fit 8-byte units.
gpu.module @m {
  gpu.func @copy(%g: memref<64x4xi32, 1>) workgroup(%s: memref<64x4xi32, 3>) kernel {
    %c16 = arith.constant 16 : i32
    %c8 = arith.constant 8 : i32
    %z = tile.swizzle %s {bits = 1, base = 3, shift = 3} : memref<64x4xi32, 3>
    %d2 = memref.subview %z[0, 0] [1, 2] [1, 1] : memref<64x4xi32, 3> to memref<1x2xi32, strided<[4, 1]>, 3>
    %a2 = memref.subview %g[0, 0] [1, 2] [1, 1] : memref<64x4xi32, 1> to memref<1x2xi32, strided<[4, 1]>, 1>
    tile.apply "cp.async.ca.shared.global"(%d2, %a2, %c8) : memref<1x2xi32, strided<[4, 1]>, 3>, memref<1x2xi32, strided<[4, 1]>, 1>, i32
    %d = memref.subview %z[0, 0] [1, 4] [1, 1] : memref<64x4xi32, 3> to memref<1x4xi32, strided<[4, 1]>, 3>
    %a = memref.subview %g[0, 0] [1, 4] [1, 1] : memref<64x4xi32, 1> to memref<1x4xi32, strided<[4, 1]>, 1>
    // expected-error @+1 {{'tile.apply' op dst: a 16-byte access must stay in one unit of its swizzle, but swizzle {bits = 1, base = 3, shift = 3} moves units of 8 bytes}}
    tile.apply "cp.async.cg.shared.global"(%d, %a, %c16) : memref<1x4xi32, strided<[4, 1]>, 3>, memref<1x4xi32, strided<[4, 1]>, 1>, i32
    gpu.return
  }
}

// -----

// A view that moves the buffer's start would address from somewhere else.
gpu.module @m {
  gpu.func @moved() workgroup(%s: memref<16x64xi16, 3>) kernel {
    // expected-error @+1 {{'tile.swizzle' op a swizzled buffer is addressed by tile.apply through subviews, reshapes and tile.view, which apply the swizzle; 'memref.reinterpret_cast' would not}}
    %z = tile.swizzle %s {bits = 3, base = 4, shift = 3} : memref<16x64xi16, 3>
    %x = memref.reinterpret_cast %z to offset: [8], sizes: [1, 8], strides: [64, 1] : memref<16x64xi16, 3> to memref<1x8xi16, strided<[64, 1], offset: 8>, 3>
    %w = tile.view %x : memref<1x8xi16, strided<[64, 1], offset: 8>, 3> to memref<1x4xi32, strided<[32, 1], offset: 4>, 3>
    %r = memref.alloca() : memref<1x4xi32, 5>
    tile.apply "ld.shared.v4.b32"(%r, %w) : memref<1x4xi32, 5>, memref<1x4xi32, strided<[32, 1], offset: 4>, 3>
    gpu.return
  }
}

// -----

// memref.load would read the address before the swizzle.
gpu.module @m {
  gpu.func @plain_load() workgroup(%s: memref<16x64xi16, 3>) kernel {
    // expected-error @+1 {{'tile.swizzle' op a swizzled buffer is addressed by tile.apply through subviews, reshapes and tile.view, which apply the swizzle; 'memref.load' would not}}
    %z = tile.swizzle %s {bits = 3, base = 4, shift = 3} : memref<16x64xi16, 3>
    %c0 = arith.constant 0 : index
    %v = memref.subview %z[1, 0] [1, 64] [1, 1] : memref<16x64xi16, 3> to memref<1x64xi16, strided<[64, 1], offset: 64>, 3>
    %x = memref.load %v[%c0, %c0] : memref<1x64xi16, strided<[64, 1], offset: 64>, 3>
    gpu.return
  }
}
