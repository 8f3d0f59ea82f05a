// min.f32 of three inputs (sm_100, PTX ISA 8.8) alone in a kernel: the
// module gets the PTX version that form needs, and ptxas assembles it.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK: .version 8.8
// CHECK: min.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
    gpu.func @min3(%A: memref<3x1xf32, 1>, %Out: memref<1x1xf32, 1>) kernel {
      %a = memref.alloca() : memref<3x1xf32, 5>
      %d = memref.alloca() : memref<1x1xf32, 5>
      tile.apply "ld.global.f32"(%a, %A) : memref<3x1xf32, 5>, memref<3x1xf32, 1>
      %x = memref.subview %a[0, 0] [1, 1] [1, 1] : memref<3x1xf32, 5> to memref<1x1xf32, strided<[1, 1]>, 5>
      %y = memref.subview %a[1, 0] [1, 1] [1, 1] : memref<3x1xf32, 5> to memref<1x1xf32, strided<[1, 1], offset: 1>, 5>
      %z = memref.subview %a[2, 0] [1, 1] [1, 1] : memref<3x1xf32, 5> to memref<1x1xf32, strided<[1, 1], offset: 2>, 5>
      tile.apply "min.f32"(%d, %x, %y, %z) : memref<1x1xf32, 5>, memref<1x1xf32, strided<[1, 1]>, 5>, memref<1x1xf32, strided<[1, 1], offset: 1>, 5>, memref<1x1xf32, strided<[1, 1], offset: 2>, 5>
      tile.apply "st.global.f32"(%Out, %d) : memref<1x1xf32, 1>, memref<1x1xf32, 5>
      gpu.return
    }
  }
}
