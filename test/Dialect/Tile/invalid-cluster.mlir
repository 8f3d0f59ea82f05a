// RUN: tile-opt %s -split-input-file -verify-diagnostics

// barrier.cluster is reached by every thread of the cluster: it takes no
// guard and no scope but the thread's, and needs sm_90 (a semantics PTX 8.0).
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @guarded(%p: i1) kernel {
    // expected-error @+1 {{'tile.apply' op barrier.cluster.arrive takes no predicate: a barrier is reached by every thread it counts, and a guard would leave part of them behind}}
    tile.apply "barrier.cluster.arrive"() if %p
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @warp_scope() kernel {
    // expected-error @+1 {{'tile.apply' op barrier.cluster.wait is issued by each thread: scope "thread", got "warp"}}
    tile.apply "barrier.cluster.wait"() {scope = "warp"}
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_80">] {
  gpu.func @too_old() kernel {
    // expected-error @+1 {{'tile.apply' op barrier.cluster.arrive.relaxed requires sm_90 or newer and PTX ISA 8.0}}
    tile.apply "barrier.cluster.arrive.relaxed"()
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @acquire_arrival() kernel {
    // expected-error @+1 {{'tile.apply' op 'acquire' is not a qualifier of barrier.cluster.arrive: expected semantics (release, relaxed), aligned}}
    tile.apply "barrier.cluster.arrive.acquire"()
    gpu.return
  }
}
