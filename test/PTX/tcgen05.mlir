// tcgen05 lowered as written (docs/families/tcgen05.md): an allocation into
// shared memory, the permit, the fences around a barrier, a store into
// tensor memory and a load back with their waits, a copy from shared
// memory by descriptor, an MMA, a shift, a commit onto an mbarrier and the
// deallocation, each one instruction in the order written, with nothing
// added (the check skips the inline-asm markers); the TMEM address is the b32 register loaded from the slot. No
// result of shift, st, cp, mma or commit keeps them alive: their effects
// on tensor memory do. Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: grep -v 'inline asm' %t.ptx | FileCheck %s
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_100a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry tensor_memory(
// CHECK: mov.b64 [[SLOT:%rd[0-9]+]], __wg_tensor_memory_0;
// CHECK-NEXT: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [[[SLOT]]], 32;
// CHECK-NEXT: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK-NEXT: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: bar.sync 1;
// CHECK-NEXT: tcgen05.fence::after_thread_sync;
// CHECK-NEXT: ld.shared.b32 [[T:%r[0-9]+]], [[[SLOT]]];
// CHECK-NEXT: ld.global.v4.b32 {[[A:%r[0-9]+]], [[B:%r[0-9]+]], [[C:%r[0-9]+]], [[D:%r[0-9]+]]}, [%rd{{[0-9]+}}];
// CHECK-NEXT: tcgen05.st.sync.aligned.32x32b.x4.b32 [[[T]]], {[[A]], [[B]], [[C]], [[D]]};
// CHECK-NEXT: tcgen05.wait::st.sync.aligned;
// CHECK-NEXT: tcgen05.ld.sync.aligned.32x32b.x4.b32 {[[E:%r[0-9]+]], [[F:%r[0-9]+]], [[G:%r[0-9]+]], [[H:%r[0-9]+]]}, [[[T]]];
// CHECK-NEXT: tcgen05.wait::ld.sync.aligned;
// CHECK-NEXT: st.global.v4.b32 [%rd{{[0-9]+}}], {[[E]], [[F]], [[G]], [[H]]};
// CHECK-NEXT: mov.b64 [[DESC:%rd[0-9]+]], 4611686293305360384;
// CHECK-NEXT: tcgen05.cp.cta_group::1.128x256b [[[T]]], [[DESC]];
// CHECK-NEXT: mov.b32 [[IDESC:%r[0-9]+]], 136314000;
// CHECK-NEXT: mov.pred [[P:%p[0-9]+]], -1;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f16 [[[T]]], [[DESC]], [[DESC]], [[IDESC]], [[P]];
// CHECK-NEXT: tcgen05.shift.cta_group::1.down [[[T]]];
// CHECK-NEXT: mov.b64 [[BAR:%rd[0-9]+]], __wg_tensor_memory_1;
// CHECK-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[BAR]]];
// CHECK-NEXT: tcgen05.dealloc.cta_group::1.sync.aligned.b32 [[T]], 32;
// CHECK-NEXT: ret;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
    gpu.func @tensor_memory(%In: memref<4xi32, 1>, %Out: memref<4xi32, 1>)
        workgroup(%slot : memref<1xi32, 3> {llvm.align = 16 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %c32 = arith.constant 32 : i32
      %c1 = arith.constant 1 : i32
      %taddr = memref.alloca() : memref<1xi32, 5>
      %v = memref.alloca() : memref<4xi32, 5>
      tile.apply "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"(%slot, %c32) : memref<1xi32, 3>, i32
      tile.apply "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"()
      tile.apply "tcgen05.fence::before_thread_sync"()
      tile.apply "bar.sync"(%c1) : i32
      tile.apply "tcgen05.fence::after_thread_sync"()
      tile.apply "ld.shared.b32"(%taddr, %slot) : memref<1xi32, 5>, memref<1xi32, 3>
      tile.apply "ld.global.v4.b32"(%v, %In) : memref<4xi32, 5>, memref<4xi32, 1>
      tile.apply "tcgen05.st.sync.aligned.32x32b.x4.b32"(%taddr, %v) : memref<1xi32, 5>, memref<4xi32, 5>
      tile.apply "tcgen05.wait::st.sync.aligned"()
      tile.apply "tcgen05.ld.sync.aligned.32x32b.x4.b32"(%v, %taddr) : memref<4xi32, 5>, memref<1xi32, 5>
      tile.apply "tcgen05.wait::ld.sync.aligned"()
      tile.apply "st.global.v4.b32"(%Out, %v) : memref<4xi32, 1>, memref<4xi32, 5>
      %desc = arith.constant 4611686293305360384 : i64
      %idesc = arith.constant 136314000 : i32
      %accumulate = arith.constant true
      tile.apply "tcgen05.cp.cta_group::1.128x256b"(%taddr, %desc) : memref<1xi32, 5>, i64
      tile.apply "tcgen05.mma.cta_group::1.kind::f16"(%taddr, %desc, %desc, %idesc, %accumulate) : memref<1xi32, 5>, i64, i64, i32, i1
      tile.apply "tcgen05.shift.cta_group::1.down"(%taddr) : memref<1xi32, 5>
      tile.apply "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"(%bar) : memref<1xi64, 3>
      tile.apply "tcgen05.dealloc.cta_group::1.sync.aligned.b32"(%taddr, %c32) : memref<1xi32, 5>, i32
      gpu.return
    }
  }
}
