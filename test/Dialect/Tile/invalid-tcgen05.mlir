// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Blackwell's tensor-memory family is in the table (judged by ptxas:
// tools/ptxas_diff --sm100) and lowered as written (test/PTX/tcgen05.mlir):
// an apply on a target without it, an address of the wrong width and a
// spelling the table refuses are each refused at their line, naming the
// rule (docs/families/tcgen05.md).
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @on_hopper() kernel {
    // expected-error @+1 {{'tile.apply' op tcgen05.fence::before_thread_sync requires sm_100a/f to sm_110a/f (arch- or family-specific targets) and PTX ISA 8.6, but the target is sm_90a}}
    tile.apply "tcgen05.fence::before_thread_sync"()
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100f">] {
  gpu.func @shift_on_a_family_target(%t: i32) kernel {
    // expected-error @+1 {{'tile.apply' op tcgen05.shift.cta_group::1.down requires sm_100a to sm_110a (arch-specific targets) and PTX ISA 8.6, but the target is sm_100f}}
    tile.apply "tcgen05.shift.cta_group::1.down"(%t) : i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @wide_address(%t: i64) kernel {
    // expected-error @+1 {{'tile.apply' op taddr: expected a 32-bit carrier for b32 (i32, ui32 or si32), got i64}}
    tile.apply "tcgen05.shift.cta_group::1.down"(%t) : i64
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @too_many_registers(%t: i32) kernel {
    // expected-error @+1 {{'tile.apply' op tcgen05.ld.b32: .16x256b takes .x1 to .x32 (4 registers each, at most 128 a thread), got .x64}}
    tile.apply "tcgen05.ld.sync.aligned.16x256b.x64.b32"(%t) : i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @copy_without_multicast(%t: i32, %d: i64) kernel {
    // expected-error @+1 {{'tile.apply' op tcgen05.cp.64x128b needs a multicast, .warpx2::02_13 or .warpx2::01_23}}
    tile.apply "tcgen05.cp.cta_group::1.64x128b"(%t, %d) : i32, i64
    gpu.return
  }
}

// -----

// A descriptor's format is its reader's: wgmma's (sm_90) or tcgen05's
// (sm_100, whose version field differs).
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @wgmma_descriptor_to_tcgen05(%t: i32, %i: i32) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %true = arith.constant true
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %k0 = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    %d = tile.matrix_descriptor %k0 : memref<64x16xbf16, strided<[64, 1]>, 3>
    // expected-error @+1 {{'tile.apply' op a-desc is a wgmma descriptor, but tcgen05.mma.cta_group::1.kind::f16 reads sm_100's: tile.matrix_descriptor {format = "tcgen05"}}}
    tile.apply "tcgen05.mma.cta_group::1.kind::f16"(%t, %d, %d, %i, %true) : i32, i64, i64, i32, i1
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @tcgen05_descriptor_to_wgmma() workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %true = arith.constant true
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %k0 = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    %d = tile.matrix_descriptor %k0 {format = "tcgen05"} : memref<64x16xbf16, strided<[64, 1]>, 3>
    %acc = memref.alloca() : memref<1x1x32xf32, 5>
    // expected-error @+1 {{'tile.apply' op a-desc is a tcgen05 descriptor, but wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 reads sm_90's: tile.matrix_descriptor {format = "wgmma"}}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"(%acc, %d, %d, %true, %one, %one, %zero, %zero)
        : memref<1x1x32xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @unknown_format() workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %k0 = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op format is "wgmma" (sm_90's descriptor) or "tcgen05" (sm_100's), got "sm100"}}
    %d = tile.matrix_descriptor %k0 {format = "sm100"} : memref<64x16xbf16, strided<[64, 1]>, 3>
    gpu.return
  }
}
