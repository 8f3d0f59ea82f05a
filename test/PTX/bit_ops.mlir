// lop3's table is an immediate: the constant reaches the PTX as a literal
// (inline asm's "n"), and an rw accumulator (fma d, a, b, d) is one
// register written and read. Every line goes through ptxas.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK-LABEL: .entry majority
// CHECK: ld.global.b32 [[A:%r[0-9]+]]
// CHECK: ld.global.b32 [[B:%r[0-9]+]]
// CHECK: ld.global.b32 [[C:%r[0-9]+]]
// CHECK: lop3.b32 [[D:%r[0-9]+]], [[A]], [[B]], [[C]], 232;
// CHECK: st.global.b32 [%rd{{[0-9]+}}], [[D]];

// CHECK-LABEL: .entry accumulate
// CHECK: ld.global.f32 [[ACC:%r[0-9]+]]
// CHECK: ld.global.f32 [[X:%r[0-9]+]]
// CHECK: fma.rn.f32 [[ACC]], [[X]], [[X]], [[ACC]];
// CHECK: st.global.f32 [%rd{{[0-9]+}}], [[ACC]];
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @majority(%A: memref<1x1xi32, 1>, %B: memref<1x1xi32, 1>, %C: memref<1x1xi32, 1>,
                       %D: memref<1x1xi32, 1>) kernel {
      %a = memref.alloca() : memref<1x1xi32, 5>
      %b = memref.alloca() : memref<1x1xi32, 5>
      %c = memref.alloca() : memref<1x1xi32, 5>
      %d = memref.alloca() : memref<1x1xi32, 5>
      %lut = arith.constant 232 : i32
      tile.apply "ld.global.b32"(%a, %A) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
      tile.apply "ld.global.b32"(%b, %B) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
      tile.apply "ld.global.b32"(%c, %C) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
      tile.apply "lop3.b32"(%d, %a, %b, %c, %lut) : memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>, memref<1x1xi32, 5>, i32
      tile.apply "st.global.b32"(%D, %d) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
      gpu.return
    }
    gpu.func @accumulate(%Acc: memref<1x1xf32, 1>, %X: memref<1x1xf32, 1>) kernel {
      %acc = memref.alloca() : memref<1x1xf32, 5>
      %x = memref.alloca() : memref<1x1xf32, 5>
      tile.apply "ld.global.f32"(%acc, %Acc) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      tile.apply "ld.global.f32"(%x, %X) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      tile.apply "fma.rn.f32"(%acc, %x, %x) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>
      tile.apply "st.global.f32"(%Acc, %acc) : memref<1x1xf32, 1>, memref<1x1xf32, 5>
      gpu.return
    }
  }
}
