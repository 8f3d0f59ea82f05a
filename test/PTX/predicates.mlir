// Predicates as data: setp writes a predicate tile, a later apply is
// predicated per repeat by it, and selp selects with it, all in predicate
// registers (no predicate is stored); the PTX goes through ptxas.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK-LABEL: .entry clamp_negative
// CHECK: ld.global.b32 [[X0:%r[0-9]+]]
// CHECK: ld.global.b32 [[X1:%r[0-9]+]]
// CHECK: setp.lt.s32 [[P0:%p[0-9]+]], [[X0]], [[Z:%r[0-9]+]];
// CHECK: setp.lt.s32 [[P1:%p[0-9]+]], [[X1]], [[Z]];
// CHECK: @[[P0]] neg.s32 [[X0]], [[X0]];
// CHECK: @[[P1]] neg.s32 [[X1]], [[X1]];
// CHECK: selp.b32 [[S0:%r[0-9]+]], [[Z]], [[X0]], [[P0]];
// CHECK: selp.b32 [[S1:%r[0-9]+]], [[Z]], [[X1]], [[P1]];
// CHECK-NOT: st.local
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @clamp_negative(%X: memref<2x1xi32, 1>, %Abs: memref<2x1xi32, 1>, %Relu: memref<2x1xi32, 1>) kernel {
      %zero = arith.constant 0 : i32
      %x = memref.alloca() : memref<2x1xi32, 5>
      %r = memref.alloca() : memref<2x1xi32, 5>
      %p = memref.alloca() : memref<2x1xi1, 5>
      tile.apply "ld.global.b32"(%x, %X) : memref<2x1xi32, 5>, memref<2x1xi32, 1>
      tile.apply "setp.lt.s32"(%p, %x, %zero) : memref<2x1xi1, 5>, memref<2x1xi32, 5>, i32
      // |x| where x < 0, in place: the predicated neg keeps the rest.
      tile.apply "neg.s32"(%x, %x) if (%p : memref<2x1xi1, 5>) {preserve_dst} : memref<2x1xi32, 5>, memref<2x1xi32, 5>
      tile.apply "st.global.b32"(%Abs, %x) : memref<2x1xi32, 1>, memref<2x1xi32, 5>
      // 0 where x was negative, else |x| (= x): a relu.
      tile.apply "selp.b32"(%r, %zero, %x, %p) : memref<2x1xi32, 5>, i32, memref<2x1xi32, 5>, memref<2x1xi1, 5>
      tile.apply "st.global.b32"(%Relu, %r) : memref<2x1xi32, 1>, memref<2x1xi32, 5>
      gpu.return
    }
  }
}
