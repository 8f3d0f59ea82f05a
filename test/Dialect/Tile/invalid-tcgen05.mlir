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
