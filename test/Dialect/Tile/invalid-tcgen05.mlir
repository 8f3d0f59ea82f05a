// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Blackwell's tensor-memory family is in the table (parsed, enumerated and
// judged by ptxas: tools/ptxas_diff --sm100) but not lowered yet: an apply
// of it is refused at its line, naming the family; a spelling the table
// refuses names the rule it breaks (docs/families/tcgen05.md).
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @fence() kernel {
    // expected-error @+1 {{'tile.apply' op 'tcgen05.fence::before_thread_sync' is a PTX form the table knows, but tile-mlir does not lower the tcgen05 family yet}}
    tile.apply "tcgen05.fence::before_thread_sync"()
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
