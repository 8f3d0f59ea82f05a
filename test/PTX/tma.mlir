// A TMA load and store of a 64x64 bf16 box (PTX ISA 9.7.9.27.1), 128-byte
// swizzled, verbatim: the tensor map is the kernel's 64-byte aligned
// .param of 128 bytes, its generic address taken with cvta.param
// (tile.tensor_map; nvvm.grid_constant, so not copied to local memory);
// the coordinates go inside its brackets, innermost first; the box starts
// at the buffer, the mbarrier is the second shared address. Through ptxas
// at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry copy(
// CHECK: .param .align 64 .b8 [[MAP:copy_param_[0-9]+]][128]
// CHECK: .shared .align 1024 .b8 [[BUF:[_a-z0-9]+]][8192];
// CHECK: mov.b64 [[P:%rd[0-9]+]], [[MAP]];
// CHECK: cvta.param.u64 [[ADDR:%rd[0-9]+]], [[P]];
// CHECK: prefetch.tensormap [[[ADDR]]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [[[ADDR]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [[[ADDR]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group.read 0;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @copy(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr, %row: i32, %col: i32)
        workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64},
                  %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
      %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
      %coords = memref.alloca() : memref<2xi32, 5>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      memref.store %col, %coords[%c0] : memref<2xi32, 5>
      memref.store %row, %coords[%c1] : memref<2xi32, 5>
      %zero = arith.constant 0 : i32
      tile.apply "prefetch.tensormap"(%m) : i64
      tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"(%s, %m, %coords, %bar)
          : memref<64x64xbf16, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
      tile.apply "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"(%m, %coords, %s)
          : i64, memref<2xi32, 5>, memref<64x64xbf16, 3>
      tile.apply "cp.async.bulk.commit_group"()
      tile.apply "cp.async.bulk.wait_group.read"(%zero) : i32
      gpu.return
    }
  }
}
