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

// -----

// tile.mapa maps a shared tile into the .shared::cluster window (7), with
// its shape, element type and layout.
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @mapa_global(%g: memref<4xi32, 1>, %r: i32) kernel {
    // expected-error @+1 {{'tile.mapa' op mapa maps a shared tile, got 'memref<4xi32, 1>'}}
    %m = tile.mapa %g, %r : memref<4xi32, 1> to memref<4xi32, 7>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @mapa_into_shared(%r: i32) workgroup(%s : memref<4xi32, 3>) kernel {
    // expected-error @+1 {{'tile.mapa' op expected a result in the shared::cluster address space (7), got 'memref<4xi32, 3>'}}
    %m = tile.mapa %s, %r : memref<4xi32, 3> to memref<4xi32, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @mapa_reshaped(%r: i32) workgroup(%s : memref<4xi32, 3>) kernel {
    // expected-error @+1 {{'tile.mapa' op the mapped tile keeps the shape, element type and layout of 'memref<4xi32, 3>', got 'memref<2xi32, 7>'}}
    %m = tile.mapa %s, %r : memref<4xi32, 3> to memref<2xi32, 7>
    gpu.return
  }
}

// -----

// Another block's shared memory is reached only through .shared::cluster:
// .shared (.shared::cta) addresses the block's own window.
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @remote_shared_cta(%r: i32) workgroup(%s : memref<1x1xi32, 3>) kernel {
    %m = tile.mapa %s, %r : memref<1x1xi32, 3> to memref<1x1xi32, 7>
    %v = memref.alloca() : memref<1x1xi32, 5>
    // expected-error @+1 {{'tile.apply' op src: expected a memref in the shared address space (3) for ld.shared::cta.b32, got 'memref<1x1xi32, 7>'; another block's shared memory (tile.mapa) is addressed only through .shared::cluster}}
    tile.apply "ld.shared::cta.b32"(%v, %m) : memref<1x1xi32, 5>, memref<1x1xi32, 7>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @global_in_cluster_window(%g: memref<1x1xi32, 1>) kernel {
    %v = memref.alloca() : memref<1x1xi32, 5>
    // expected-error @+1 {{'tile.apply' op dst: expected a memref in the shared::cluster address space (3 or 7) for st.shared::cluster.b32, got 'memref<1x1xi32, 1>'}}
    tile.apply "st.shared::cluster.b32"(%g, %v) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
    gpu.return
  }
}

// -----

// A swizzled tile is not mapped: its addresses are the swizzle's.
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @mapa_swizzled(%r: i32) workgroup(%s : memref<8x64xi16, 3>) kernel {
    // expected-error @+1 {{'tile.swizzle' op a swizzled buffer is addressed by tile.apply through subviews, reshapes and tile.view, which apply the swizzle; 'tile.mapa' would not}}
    %w = tile.swizzle %s {bits = 3, base = 4, shift = 3} : memref<8x64xi16, 3>
    %m = tile.mapa %w, %r : memref<8x64xi16, 3> to memref<8x64xi16, 7>
    gpu.return
  }
}
