// TMA reductions (cp.reduce.async.bulk.tensor), verbatim: a 32x32 f32 box
// added into the tensor, and the same box's maximum with a cache policy,
// in a bulk group. Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry reduce(
// CHECK: cvta.param.u64 [[ADDR:%rd[0-9]+]], %rd{{[0-9]+}};
// CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [[[ADDR]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
// CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.bulk_group.L2::cache_hint [[[ADDR]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group 0;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @reduce(%A: memref<64x64xf32, 1>, %map: !llvm.ptr, %row: i32, %col: i32, %policy: i64)
        workgroup(%buf : memref<32x32xf32, 3> {llvm.align = 128 : i64}) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %m = tile.tensor_map %map for %A {box = array<i64: 32, 32>, swizzle = 0 : i64} : memref<64x64xf32, 1>
      %coords = memref.alloca() : memref<2xi32, 5>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      memref.store %col, %coords[%c0] : memref<2xi32, 5>
      memref.store %row, %coords[%c1] : memref<2xi32, 5>
      %zero = arith.constant 0 : i32
      tile.apply "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"(%m, %coords, %buf)
          : i64, memref<2xi32, 5>, memref<32x32xf32, 3>
      tile.apply "cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.bulk_group.L2::cache_hint"(%m, %coords, %buf, %policy)
          : i64, memref<2xi32, 5>, memref<32x32xf32, 3>, i64
      tile.apply "cp.async.bulk.commit_group"()
      tile.apply "cp.async.bulk.wait_group"(%zero) : i32
      gpu.return
    }
  }
}
