// Dynamic shared memory: the region is PTX's .extern .shared array of no
// size (tile-extern-dynamic-shared), so ptxas counts no static shared
// memory and the buffers start at the launch's dynamic region, aligned to
// 1024 bytes (the 128-byte swizzle's repeat). Without the
// pass NVPTX demoted it to a static `.shared .align 16 .b8
// __dynamic_shmem__0;` of 1 byte. Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK-LABEL: .visible .entry rotate(
// CHECK-NOT: .shared .align
// CHECK: mov.b64 [[BASE:%rd[0-9]+]], __dynamic_shmem__0;
// CHECK: st.shared.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers{{$}}
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @rotate(%A: memref<32x1xi32, 1>, %Out: memref<32x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>,
                    tile.dynamic_shared_bytes = 65664 : i64} {
      %t = gpu.thread_id x
      %d = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c128 = arith.constant 128 : index
      %S = memref.view %d[%c128][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384x1xi32, #gpu.address_space<workgroup>>
      %r = memref.alloca() : memref<1x1xi32, 5>
      %a = memref.subview %A[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "ld.global.b32"(%r, %a) : memref<1x1xi32, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      %s = memref.subview %S[%t, 0] [1, 1] [1, 1] : memref<16384x1xi32, #gpu.address_space<workgroup>> to memref<1x1xi32, strided<[1, 1], offset: ?>, #gpu.address_space<workgroup>>
      tile.apply "st.shared.b32"(%s, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<1x1xi32, 5>
      %c0 = arith.constant 0 : i32
      tile.apply "bar.sync"(%c0) : i32
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %n = arith.addi %t, %c1 : index
      %j = arith.remui %n, %c32 : index
      %sj = memref.subview %S[%j, 0] [1, 1] [1, 1] : memref<16384x1xi32, #gpu.address_space<workgroup>> to memref<1x1xi32, strided<[1, 1], offset: ?>, #gpu.address_space<workgroup>>
      tile.apply "ld.shared.b32"(%r, %sj) : memref<1x1xi32, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, #gpu.address_space<workgroup>>
      %o = memref.subview %Out[%t, 0] [1, 1] [1, 1] : memref<32x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
      tile.apply "st.global.b32"(%o, %r) : memref<1x1xi32, strided<[1, 1], offset: ?>, 1>, memref<1x1xi32, 5>
      gpu.return
    }
  }
}
