// cp.async as written: the shared destination's address, the global
// source's and the size immediate (ptxas makes it LDGSTS: the SASS check is
// test/python/test_cp_async.py). Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry copy(
// CHECK: ld.param.b64 [[A:%rd[0-9]+]], [copy_param_0];
// CHECK: add.s64 [[SRC:%rd[0-9]+]], %rd{{[0-9]+}}, [[A]];
// CHECK: mov.b64 [[S:%rd[0-9]+]], __wg_copy_0;
// CHECK: add.s64 [[DST:%rd[0-9]+]], [[S]], %rd{{[0-9]+}};
// CHECK: cp.async.cg.shared.global [[[DST]]], [[[SRC]]], 16;
// CHECK: cp.async.ca.shared.global.L2::128B [[[DST]]], [[[SRC]]], 4;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 0;
// CHECK: ld.shared.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [[[DST]]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @copy(%A: memref<64x4xi32, 1>, %Out: memref<64x4xi32, 1>)
        workgroup(%S: memref<64x4xi32, 3> {llvm.align = 16}) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %t = gpu.thread_id x
      %c16 = arith.constant 16 : i32
      %c4 = arith.constant 4 : i32
      %s = memref.subview %S[%t, 0] [1, 4] [1, 1] : memref<64x4xi32, 3> to memref<1x4xi32, strided<[4, 1], offset: ?>, 3>
      %a = memref.subview %A[%t, 0] [1, 4] [1, 1] : memref<64x4xi32, 1> to memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
      tile.apply "cp.async.cg.shared.global"(%s, %a, %c16) : memref<1x4xi32, strided<[4, 1], offset: ?>, 3>, memref<1x4xi32, strided<[4, 1], offset: ?>, 1>, i32
      %s1 = memref.subview %s[0, 0] [1, 1] [1, 1] : memref<1x4xi32, strided<[4, 1], offset: ?>, 3> to memref<1x1xi32, strided<[4, 1], offset: ?>, 3>
      %a1 = memref.subview %a[0, 0] [1, 1] [1, 1] : memref<1x4xi32, strided<[4, 1], offset: ?>, 1> to memref<1x1xi32, strided<[4, 1], offset: ?>, 1>
      tile.apply "cp.async.ca.shared.global.L2::128B"(%s1, %a1, %c4) : memref<1x1xi32, strided<[4, 1], offset: ?>, 3>, memref<1x1xi32, strided<[4, 1], offset: ?>, 1>, i32
      tile.apply "cp.async.commit_group"()
      %c0 = arith.constant 0 : i32
      tile.apply "cp.async.wait_group"(%c0) : i32
      %r = memref.alloca() : memref<1x4xi32, 5>
      tile.apply "ld.shared.v4.b32"(%r, %s) : memref<1x4xi32, 5>, memref<1x4xi32, strided<[4, 1], offset: ?>, 3>
      %o = memref.subview %Out[%t, 0] [1, 4] [1, 1] : memref<64x4xi32, 1> to memref<1x4xi32, strided<[4, 1], offset: ?>, 1>
      tile.apply "st.global.v4.b32"(%o, %r) : memref<1x4xi32, strided<[4, 1], offset: ?>, 1>, memref<1x4xi32, 5>
      gpu.return
    }
  }
}
