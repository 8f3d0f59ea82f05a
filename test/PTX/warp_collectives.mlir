// Warp collectives as written: vote, match, redux, elect and activemask as
// side-effecting inline asm (never moved, merged or removed), the shuffle
// with its predicate result through NVVM's .i32p intrinsic, printed d|p.
// Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry collectives(
// CHECK: ld.global.b32 [[A:%r[0-9]+]], [%rd{{[0-9]+}}];
// CHECK: setp.lt.s32 [[P:%p[0-9]+]], [[A]], [[Z:%r[0-9]+]];
// CHECK: vote.sync.all.pred [[ALL:%p[0-9]+]], [[P]], [[M:%r[0-9]+]];
// CHECK: vote.sync.uni.pred %p{{[0-9]+}}, [[ALL]], [[M]];
// CHECK: vote.sync.ballot.b32 [[B:%r[0-9]+]], [[P]], [[M]];
// CHECK: match.any.sync.b32 %r{{[0-9]+}}, [[A]], [[M]];
// CHECK: match.all.sync.b32 %r{{[0-9]+}}|%p{{[0-9]+}}, [[A]], [[M]];
// CHECK: redux.sync.add.u32 %r{{[0-9]+}}, [[A]], [[M]];
// CHECK: redux.sync.max.s32 %r{{[0-9]+}}, [[A]], [[M]];
// CHECK: redux.sync.xor.b32 %r{{[0-9]+}}, [[B]], [[M]];
// CHECK: elect.sync %r{{[0-9]+}}|%p{{[0-9]+}}, [[M]];
// CHECK: activemask.b32 %r{{[0-9]+}};
// CHECK: shfl.sync.down.b32 %r{{[0-9]+}}|%p{{[0-9]+}}, [[A]], 1, 31, -1;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @collectives(%A: memref<32x1xi32, 1>, %Out: memref<32x16x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %a = memref.alloca() : memref<1x1xi32, 5>
      %p = memref.alloca() : memref<1x1xi1, 5>
      %q = memref.alloca() : memref<1x1xi1, 5>
      %o = memref.alloca() : memref<16x1xi32, 5>
      %o0 = memref.subview %o[0, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1]>, 5>
      %o1 = memref.subview %o[1, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 1>, 5>
      %o2 = memref.subview %o[2, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 2>, 5>
      %o3 = memref.subview %o[3, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 3>, 5>
      %o4 = memref.subview %o[4, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 4>, 5>
      %o5 = memref.subview %o[5, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 5>, 5>
      %o6 = memref.subview %o[6, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 6>, 5>
      %o7 = memref.subview %o[7, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 7>, 5>
      %o8 = memref.subview %o[8, 0] [1, 1] [1, 1] : memref<16x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: 8>, 5>
      %src = memref.subview %A[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "ld.global.b32"(%a, %src) : memref<1x1xi32, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      %zero = arith.constant 0 : i32
      %m = arith.constant -1 : i32
      %one = arith.constant 1 : i32
      %clamp = arith.constant 31 : i32
      tile.apply "setp.lt.s32"(%p, %a, %zero) : memref<1x1xi1, 5>, memref<1x1xi32, 5>, i32
      tile.apply "vote.sync.all.pred"(%q, %p, %m) : memref<1x1xi1, 5>, memref<1x1xi1, 5>, i32
      tile.apply "vote.sync.uni.pred"(%q, %q, %m) : memref<1x1xi1, 5>, memref<1x1xi1, 5>, i32
      tile.apply "vote.sync.ballot.b32"(%o0, %p, %m) : memref<1x1xi32, strided<[1, 1]>, 5>, memref<1x1xi1, 5>, i32
      tile.apply "match.any.sync.b32"(%o1, %a, %m) : memref<1x1xi32, strided<[1, 1], offset: 1>, 5>, memref<1x1xi32, 5>, i32
      tile.apply "match.all.sync.b32"(%o2, %q, %a, %m) : memref<1x1xi32, strided<[1, 1], offset: 2>, 5>, memref<1x1xi1, 5>, memref<1x1xi32, 5>, i32
      tile.apply "redux.sync.add.u32"(%o3, %a, %m) : memref<1x1xi32, strided<[1, 1], offset: 3>, 5>, memref<1x1xi32, 5>, i32
      tile.apply "redux.sync.max.s32"(%o4, %a, %m) : memref<1x1xi32, strided<[1, 1], offset: 4>, 5>, memref<1x1xi32, 5>, i32
      tile.apply "redux.sync.xor.b32"(%o5, %o0, %m) : memref<1x1xi32, strided<[1, 1], offset: 5>, 5>, memref<1x1xi32, strided<[1, 1]>, 5>, i32
      tile.apply "elect.sync"(%o6, %q, %m) : memref<1x1xi32, strided<[1, 1], offset: 6>, 5>, memref<1x1xi1, 5>, i32
      tile.apply "activemask.b32"(%o7) : memref<1x1xi32, strided<[1, 1], offset: 7>, 5>
      tile.apply "shfl.sync.down.b32"(%o8, %q, %a, %one, %clamp, %m) : memref<1x1xi32, strided<[1, 1], offset: 8>, 5>, memref<1x1xi1, 5>, memref<1x1xi32, 5>, i32, i32, i32
      %dst = memref.subview %Out[%t, 0, 0] [1, 16, 1] [1, 1, 1] : memref<32x16x1xi32, 1> to memref<16x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "st.global.b32"(%dst, %o) : memref<16x1xi32, strided<[1, 1], offset: ?>, 1>, memref<16x1xi32, 5>
      gpu.return
    }
  }
}
