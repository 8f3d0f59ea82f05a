// L2 cache policies, verbatim: createpolicy.fractional without and with its
// fraction, .range over an address and .cvt.L2, and loads, stores and
// cp.async copies whose .L2::cache_hint takes a policy as their last
// operand (after cp.async's src-size). Through ptxas at -O3
// and -O0 (sm_80 and PTX ISA 7.4 at the least).
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry policies(
// CHECK: createpolicy.fractional.L2::evict_last.b64 %rd[[LAST:[0-9]+]];
// CHECK: createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd[[HALF:[0-9]+]], %r{{[0-9]+}};
// CHECK: createpolicy.range.global.L2::evict_normal.b64 %rd[[RANGE:[0-9]+]], [%rd{{[0-9]+}}], %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: createpolicy.cvt.L2.b64 %rd[[CONVERTED:[0-9]+]], %rd{{[0-9]+}};
// CHECK: ld.global.L2::cache_hint.v4.f32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}], %rd[[LAST]];
// CHECK: st.global.L2::cache_hint.v4.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd[[HALF]];
// CHECK: ld.L2::cache_hint.f32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %rd[[RANGE]];
// CHECK: st.global.cs.L2::cache_hint.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}}, %rd[[CONVERTED]];
// CHECK: cp.async.cg.shared.global.L2::cache_hint [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %rd[[LAST]];
// CHECK: cp.async.ca.shared.global.L2::cache_hint.L2::128B [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}}, %rd[[LAST]];
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @staged : memref<32x4xf32, 3>
    gpu.func @policies(%a: memref<32x4xf32, 1>, %o: memref<32x4xf32, 1>, %base: i64, %property: i64)
        kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %t = gpu.thread_id x
      %last = memref.alloca() : memref<1x1xi64, 5>
      %half = memref.alloca() : memref<1x1xi64, 5>
      %range = memref.alloca() : memref<1x1xi64, 5>
      %converted = memref.alloca() : memref<1x1xi64, 5>
      %fraction = arith.constant 0.5 : f32
      %primary = arith.constant 4096 : i32
      %total = arith.constant 16384 : i32
      tile.apply "createpolicy.fractional.L2::evict_last.b64"(%last) : memref<1x1xi64, 5>
      tile.apply "createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64"(%half, %fraction) : memref<1x1xi64, 5>, f32
      tile.apply "createpolicy.range.global.L2::evict_normal.b64"(%range, %base, %primary, %total) : memref<1x1xi64, 5>, i64, i32, i32
      tile.apply "createpolicy.cvt.L2.b64"(%converted, %property) : memref<1x1xi64, 5>, i64
      %x = memref.alloca() : memref<1x4xf32, 5>
      %at = memref.subview %a[%t, 0] [1, 4] [1, 1] : memref<32x4xf32, 1> to memref<1x4xf32, strided<[4, 1], offset: ?>, 1>
      tile.apply "ld.global.L2::cache_hint.v4.f32"(%x, %at, %last) : memref<1x4xf32, 5>, memref<1x4xf32, strided<[4, 1], offset: ?>, 1>, memref<1x1xi64, 5>
      %ot = memref.subview %o[%t, 0] [1, 4] [1, 1] : memref<32x4xf32, 1> to memref<1x4xf32, strided<[4, 1], offset: ?>, 1>
      tile.apply "st.global.L2::cache_hint.v4.f32"(%ot, %x, %half) : memref<1x4xf32, strided<[4, 1], offset: ?>, 1>, memref<1x4xf32, 5>, memref<1x1xi64, 5>
      // A generic load and a store with a cache operator
      // beside the hint (an L1 priority may not join a cache operator).
      %g = memref.memory_space_cast %a : memref<32x4xf32, 1> to memref<32x4xf32>
      %y = memref.alloca() : memref<1x1xf32, 5>
      %gt = memref.subview %g[%t, 0] [1, 1] [1, 1] : memref<32x4xf32> to memref<1x1xf32, strided<[4, 1], offset: ?>>
      tile.apply "ld.L2::cache_hint.f32"(%y, %gt, %range) : memref<1x1xf32, 5>, memref<1x1xf32, strided<[4, 1], offset: ?>>, memref<1x1xi64, 5>
      %o1 = memref.subview %o[%t, 1] [1, 1] [1, 1] : memref<32x4xf32, 1> to memref<1x1xf32, strided<[4, 1], offset: ?>, 1>
      tile.apply "st.global.cs.L2::cache_hint.f32"(%o1, %y, %converted) : memref<1x1xf32, strided<[4, 1], offset: ?>, 1>, memref<1x1xf32, 5>, memref<1x1xi64, 5>
      // Copies into shared memory with the evict_last policy, the second
      // zero-filling all but its first 8 bytes.
      %staged = memref.get_global @staged : memref<32x4xf32, 3>
      %st = memref.subview %staged[%t, 0] [1, 4] [1, 1] : memref<32x4xf32, 3> to memref<1x4xf32, strided<[4, 1], offset: ?>, 3>
      %size = arith.constant 16 : i32
      %part = arith.constant 8 : i32
      tile.apply "cp.async.cg.shared.global.L2::cache_hint"(%st, %at, %size, %last) : memref<1x4xf32, strided<[4, 1], offset: ?>, 3>, memref<1x4xf32, strided<[4, 1], offset: ?>, 1>, i32, memref<1x1xi64, 5>
      tile.apply "cp.async.ca.shared.global.L2::cache_hint.L2::128B"(%st, %at, %size, %part, %last) : memref<1x4xf32, strided<[4, 1], offset: ?>, 3>, memref<1x4xf32, strided<[4, 1], offset: ?>, 1>, i32, i32, memref<1x1xi64, 5>
      tile.apply "cp.async.wait_all"()
      gpu.return
    }
  }
}
