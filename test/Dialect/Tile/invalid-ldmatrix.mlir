// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Each lane's row of ldmatrix is 16 contiguous bytes aligned to 16: rows at
// a 16-byte offset are taken, a row
// that starts 2 bytes in is rejected.
gpu.module @m {
  gpu.func @misaligned_row() workgroup(%s: memref<33x8xi16, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x4xi32, 5>
    %w = memref.subview %s[1, 0] [32, 8] [1, 1] : memref<33x8xi16, 3> to memref<32x8xi16, strided<[8, 1], offset: 8>, 3>
    %r = memref.expand_shape %w [[0], [1, 2]] output_shape [32, 1, 8] : memref<32x8xi16, strided<[8, 1], offset: 8>, 3> into memref<32x1x8xi16, strided<[8, 8, 1], offset: 8>, 3>
    tile.apply "ldmatrix.sync.aligned.m8n8.x4.shared.b16"(%d, %r) {scope = "warp"} : memref<32x1x4xi32, 5>, memref<32x1x8xi16, strided<[8, 8, 1], offset: 8>, 3>
    %u = memref.alloca() {tile.scope = "warp"} : memref<32x1x4xi32, 5>
    %x = memref.reinterpret_cast %s to offset: [1], sizes: [32, 1, 8], strides: [8, 8, 1] : memref<33x8xi16, 3> to memref<32x1x8xi16, strided<[8, 8, 1], offset: 1>, 3>
    // expected-error @+1 {{'tile.apply' op a: an ldmatrix row of 8 16-bit elements must be aligned to 16 bytes, but layout strided<[8, 8, 1], offset: 1> places an access at an element offset that is not a multiple of 8}}
    tile.apply "ldmatrix.sync.aligned.m8n8.x4.shared.b16"(%u, %x) {scope = "warp"} : memref<32x1x4xi32, 5>, memref<32x1x8xi16, strided<[8, 8, 1], offset: 1>, 3>
    gpu.return
  }
}

// -----

// A row's 8 elements must be contiguous.
gpu.module @m {
  gpu.func @strided_row() workgroup(%s: memref<32x16xi16, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x4xi32, 5>
    %x = memref.reinterpret_cast %s to offset: [0], sizes: [32, 1, 8], strides: [16, 16, 2] : memref<32x16xi16, 3> to memref<32x1x8xi16, strided<[16, 16, 2]>, 3>
    // expected-error @+1 {{'tile.apply' op a: an ldmatrix row needs a contiguous final axis (stride 1), got layout strided<[16, 16, 2]>}}
    tile.apply "ldmatrix.sync.aligned.m8n8.x4.shared.b16"(%d, %x) {scope = "warp"} : memref<32x1x4xi32, 5>, memref<32x1x8xi16, strided<[16, 16, 2]>, 3>
    gpu.return
  }
}

// -----

// The sm_100a .b8 shapes: not on sm_90, and their rules (PTX ISA 8.6,
// measured with ptxas 13.0: tools/ptxas_diff).
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @b8_on_sm_90() workgroup(%S: memref<32x16xi8, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x2xi32, 5>
    %r = memref.expand_shape %S [[0], [1, 2]] output_shape [32, 1, 16] : memref<32x16xi8, 3> into memref<32x1x16xi8, 3>
    // expected-error @+1 {{'tile.apply' op ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 requires sm_100a (an arch-specific target) and PTX ISA 8.6, but the target is sm_90}}
    tile.apply "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8"(%d, %r) {scope = "warp"} : memref<32x1x2xi32, 5>, memref<32x1x16xi8, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @b8_rule_0() workgroup(%S: memref<32x16xi8, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x2xi32, 5>
    %r = memref.expand_shape %S [[0], [1, 2]] output_shape [32, 1, 16] : memref<32x16xi8, 3> into memref<32x1x16xi8, 3>
    // expected-error @+1 {{'tile.apply' op ldmatrix.m16n16 loads 1 or 2 matrices (x1, x2), got x4}}
    tile.apply "ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8"(%d, %r) {scope = "warp"} : memref<32x1x2xi32, 5>, memref<32x1x16xi8, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @b8_rule_1() workgroup(%S: memref<32x16xi8, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x2xi32, 5>
    %r = memref.expand_shape %S [[0], [1, 2]] output_shape [32, 1, 16] : memref<32x16xi8, 3> into memref<32x1x16xi8, 3>
    // expected-error @+1 {{'tile.apply' op ldmatrix.m8n16 takes no '.trans'}}
    tile.apply "ldmatrix.sync.aligned.m8n16.x1.trans.shared.b8x16.b6x16_p32"(%d, %r) {scope = "warp"} : memref<32x1x2xi32, 5>, memref<32x1x16xi8, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @b8_rule_2() workgroup(%S: memref<32x16xi8, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x2xi32, 5>
    %r = memref.expand_shape %S [[0], [1, 2]] output_shape [32, 1, 16] : memref<32x16xi8, 3> into memref<32x1x16xi8, 3>
    // expected-error @+1 {{'tile.apply' op ldmatrix.m16n16 needs '.trans': its matrices are loaded transposed}}
    tile.apply "ldmatrix.sync.aligned.m16n16.x1.shared.b8x16.b6x16_p32"(%d, %r) {scope = "warp"} : memref<32x1x2xi32, 5>, memref<32x1x16xi8, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @b8_rule_3() workgroup(%S: memref<32x16xi8, 3>) kernel {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x4xi32, 5>
    %r = memref.expand_shape %S [[0], [1, 2]] output_shape [32, 1, 16] : memref<32x16xi8, 3> into memref<32x1x16xi8, 3>
    // expected-error @+1 {{'tile.apply' op d: the final axis counts the registers of one instruction and must have extent 2 for ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8, got (32, 1, 4)}}
    tile.apply "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8"(%d, %r) {scope = "warp"} : memref<32x1x4xi32, 5>, memref<32x1x16xi8, 3>
    gpu.return
  }
}
