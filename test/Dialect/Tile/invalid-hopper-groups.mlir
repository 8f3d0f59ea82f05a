// RUN: tile-opt %s -split-input-file -verify-diagnostics

// wgmma's group instructions exist on sm_90a alone (ptxas 13.0 refuses them
// on sm_90 and sm_100a); setmaxnreg on the arch-specific targets from it.
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @fence_on_sm_90() kernel {
    // expected-error @+1 {{'tile.apply' op wgmma.fence.sync.aligned requires sm_90a (an arch-specific target, and no later one) and PTX ISA 8.0, but the target is sm_90}}
    tile.apply "wgmma.fence.sync.aligned"()
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @wait_on_sm_100a() kernel {
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{'tile.apply' op wgmma.wait_group.sync.aligned requires sm_90a (an arch-specific target, and no later one) and PTX ISA 8.0, but the target is sm_100a}}
    tile.apply "wgmma.wait_group.sync.aligned"(%c0) : i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @count_not_a_multiple_of_8() kernel {
    %c100 = arith.constant 100 : i32
    // expected-error @+1 {{'tile.apply' op imm-reg-count: immediate 100 is not legal for setmaxnreg.inc.sync.aligned.u32: expected 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248 or 256}}
    tile.apply "setmaxnreg.inc.sync.aligned.u32"(%c100) : i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @fence_needs_aligned() kernel {
    // expected-error @+1 {{'tile.apply' op wgmma.fence needs 'aligned'}}
    tile.apply "wgmma.fence.sync"()
    gpu.return
  }
}
