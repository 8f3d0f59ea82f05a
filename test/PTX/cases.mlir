// End to end, each kernel through tile-ptx and ptxas.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

module attributes {gpu.container_module} {
  gpu.module @cases [#nvvm.target<chip = "sm_90">] {

    // A gapped destination and a zero-stride (broadcast) input: 4 adds, each
    // reading the one broadcast register.
    // CHECK-LABEL: .entry gapped_broadcast(
    // CHECK: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, [[B:%r[0-9]+]];
    // CHECK-COUNT-3: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, [[B]];
    // CHECK-NOT: add.rn.f32
    // CHECK: ret;
    gpu.func @gapped_broadcast(%A: memref<4x1xf32, 1>, %S: memref<1x1xf32, 1>, %O: memref<4x1xf32, 1>) kernel {
      %a = memref.alloca() : memref<4x1xf32, 5>
      %s = memref.alloca() : memref<1x1xf32, 5>
      %wide = memref.alloca() : memref<8x1xf32, 5>
      tile.apply "ld.global.f32"(%a, %A) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
      tile.apply "ld.global.f32"(%s, %S) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      %b = tile.broadcast %s : memref<1x1xf32, 5> to memref<4x1xf32, strided<[0, 1]>, 5>
      %gapped = memref.subview %wide[1, 0] [4, 1] [2, 1] : memref<8x1xf32, 5> to memref<4x1xf32, strided<[2, 1], offset: 1>, 5>
      tile.apply "add.rn.f32"(%gapped, %a, %b) : memref<4x1xf32, strided<[2, 1], offset: 1>, 5>, memref<4x1xf32, 5>, memref<4x1xf32, strided<[0, 1]>, 5>
      tile.apply "st.global.f32"(%O, %gapped) : memref<4x1xf32, 1>, memref<4x1xf32, strided<[2, 1], offset: 1>, 5>
      gpu.return
    }

    // Predicated with preserve_dst: the guarded instruction writes the
    // register that already holds the previous value.
    // CHECK-LABEL: .entry predicated(
    // CHECK: ld.global.f32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
    // CHECK: ld.global.f32 [[OLD:%r[0-9]+]], [%rd{{[0-9]+}}];
    // CHECK: @%p{{[0-9]+}} neg.f32 [[OLD]], %r{{[0-9]+}};
    // CHECK: st.global.f32 [%rd{{[0-9]+}}], [[OLD]];
    gpu.func @predicated(%A: memref<1x1xf32, 1>, %K: memref<1x1xf32, 1>, %p: i1) kernel {
      %a = memref.alloca() : memref<1x1xf32, 5>
      %k = memref.alloca() : memref<1x1xf32, 5>
      tile.apply "ld.global.f32"(%a, %A) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      tile.apply "ld.global.f32"(%k, %K) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      tile.apply "neg.f32"(%k, %a) if %p {preserve_dst} : memref<1x1xf32, 5>, memref<1x1xf32, 5>
      tile.apply "st.global.f32"(%K, %k) : memref<1x1xf32, 1>, memref<1x1xf32, 5>
      gpu.return
    }

    // An unused register result is removed; an unused load stays.
    // CHECK-LABEL: .entry unused(
    // CHECK-NOT: abs.f32
    // CHECK: ld.global.f32
    // CHECK-NOT: abs.f32
    // CHECK: ret;
    gpu.func @unused(%A: memref<1x1xf32, 1>) kernel {
      %a = memref.alloca() : memref<1x1xf32, 5>
      %d = memref.alloca() : memref<1x1xf32, 5>
      tile.apply "ld.global.f32"(%a, %A) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
      tile.apply "abs.f32"(%d, %a) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
      gpu.return
    }
  }
}
