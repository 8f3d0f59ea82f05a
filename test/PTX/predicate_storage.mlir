// A predicate tile written at a thread-dependent slot keeps its memory, as
// bytes (upstream MemRefToLLVM asserts on a store of i1): the PTX stores
// and loads one byte per predicate in local memory and ptxas assembles it.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: setp.lt.u32 [[P:%p[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: selp.b16 [[B:%rs[0-9]+]], 1, 0, [[P]];
// CHECK: st.local.b8 [%rd{{[0-9]+}}], [[B]];
// CHECK: ld.local.b8 [[L:%rs[0-9]+]], [%rd{{[0-9]+}}];
// CHECK: and.b16 [[M:%rs[0-9]+]], [[L]], 1;
// CHECK: setp.ne.b16 [[Q:%p[0-9]+]], [[M]], 0;
// CHECK: selp.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, [[Q]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @pick(%A: memref<4x1xi32, 1>, %Out: memref<4x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %a = memref.alloca() : memref<4x1xi32, 5>
      %p = memref.alloca() : memref<4x1xi1, 5>
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.remui %tid, %c4 : index
      %c7 = arith.constant 7 : i32
      %z = arith.constant 0 : i32
      tile.apply "ld.global.b32"(%a, %A) : memref<4x1xi32, 5>, memref<4x1xi32, 1>
      %s = memref.subview %p[%i, 0] [1, 1] [1, 1] : memref<4x1xi1, 5> to memref<1x1xi1, strided<[1, 1], offset: ?>, 5>
      %as = memref.subview %a[%i, 0] [1, 1] [1, 1] : memref<4x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: ?>, 5>
      tile.apply "setp.lt.u32"(%s, %as, %c7) : memref<1x1xi1, strided<[1, 1], offset: ?>, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 5>, i32
      tile.apply "selp.b32"(%a, %a, %z, %p) : memref<4x1xi32, 5>, memref<4x1xi32, 5>, i32, memref<4x1xi1, 5>
      tile.apply "st.global.b32"(%Out, %a) : memref<4x1xi32, 1>, memref<4x1xi32, 5>
      gpu.return
    }
  }
}
