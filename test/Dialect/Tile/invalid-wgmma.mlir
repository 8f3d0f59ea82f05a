// RUN: tile-opt %s -split-input-file -verify-diagnostics

// wgmma.mma_async's rules (PTX ISA 9.7.15.5.2, checked against ptxas 13.0):
// sm_90a alone; the scales -1 or 1 and the transposes 0 or 1; D holds N/2
// registers of f32 per thread; a warpgroup's instruction, so no guard and
// scope thread or warpgroup.
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @on_sm_90(%d: memref<1x1x4xf32, 5>, %desc: i64, %p: i1) kernel {
    %c1 = arith.constant 1 : i32
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{'tile.apply' op wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 requires sm_90a (an arch-specific target, and no later one) and PTX ISA 8.0, but the target is sm_90}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"(%d, %desc, %desc, %p, %c1, %c1, %c0, %c0)
        : memref<1x1x4xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @scale_zero(%d: memref<1x1x4xf32, 5>, %desc: i64, %p: i1) kernel {
    %c1 = arith.constant 1 : i32
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{'tile.apply' op imm-scale-b: immediate 0 is not legal for wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16: expected -1 or 1}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"(%d, %desc, %desc, %p, %c1, %c0, %c0, %c0)
        : memref<1x1x4xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @transpose_two(%d: memref<1x1x4xf32, 5>, %desc: i64, %p: i1) kernel {
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    // expected-error @+1 {{'tile.apply' op imm-trans-a: immediate 2 is not legal for wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16: expected 0 or 1}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"(%d, %desc, %desc, %p, %c1, %c1, %c2, %c1)
        : memref<1x1x4xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @accumulator_count(%desc: i64, %p: i1) kernel {
    %c1 = arith.constant 1 : i32
    %d = memref.alloca() : memref<1x1x8xf32, 5>
    // expected-error @+1 {{'tile.apply' op d: the final axis counts the registers of one instruction and must have extent 64 for wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16, got (1, 1, 8)}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"(%d, %desc, %desc, %p, %c1, %c1, %c1, %c1)
        : memref<1x1x8xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @warp_scope(%desc: i64, %p: i1) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %d = memref.alloca() {tile.scope = "warp"} : memref<32x1x1x4xi32, 5>
    // expected-error @+1 {{'tile.apply' op wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 is a warpgroup's instruction over fragments: scope "thread" or "warpgroup", got "warp"}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8"(%d, %desc, %desc, %p) {scope = "warp"}
        : memref<32x1x1x4xi32, 5>, i64, i64, i1
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @guarded(%desc: i64, %p: i1) kernel {
    %d = memref.alloca() : memref<1x1x4xi32, 5>
    // expected-error @+1 {{'tile.apply' op wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 takes no predicate: every thread of the warpgroup executes it (a guard false in one thread leaves the others waiting)}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8"(%d, %desc, %desc, %p) if %p
        : memref<1x1x4xi32, 5>, i64, i64, i1
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @desc_not_b64(%d: memref<1x1x4xi32, 5>, %desc: i32, %b: i64, %p: i1) kernel {
    // expected-error @+1 {{'tile.apply' op a-desc: expected a 64-bit carrier for b64 (i64, ui64 or si64), got i32}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8"(%d, %desc, %b, %p)
        : memref<1x1x4xi32, 5>, i32, i64, i1
    gpu.return
  }
}
