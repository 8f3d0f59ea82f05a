// Atomics as written, through ptxas at -O3 and -O0: every repeat of an
// apply updates one location (the memory operand is a source, so a
// broadcast counter is legal), atom returns the old value, cas takes the
// compare and the new value, red returns nothing.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry count(
// CHECK-COUNT-4: atom.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: atom.relaxed.gpu.global.cas.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: red.shared.max.s32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: red.release.sys.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @count(%C: memref<1x1xi32, 1>, %F: memref<1x1xf32, 1>, %Old: memref<4x1xi32, 1>)
        workgroup(%S : memref<1x1xi32, 3>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %one = arith.constant 1 : i32
      %f = arith.constant 1.5 : f32
      %old = memref.alloca() : memref<4x1xi32, 5>
      %counter = memref.subview %C[0, 0] [1, 1] [1, 1] : memref<1x1xi32, 1> to memref<1x1xi32, strided<[1, 1]>, 1>
      %b = tile.broadcast %C : memref<1x1xi32, 1> to memref<4x1xi32, strided<[0, 1]>, 1>
      tile.apply "atom.global.add.u32"(%old, %b, %one) : memref<4x1xi32, 5>, memref<4x1xi32, strided<[0, 1]>, 1>, i32
      %o0 = memref.subview %old[0, 0] [1, 1] [1, 1] : memref<4x1xi32, 5> to memref<1x1xi32, strided<[1, 1]>, 5>
      tile.apply "atom.relaxed.gpu.global.cas.b32"(%o0, %counter, %one, %one) : memref<1x1xi32, strided<[1, 1]>, 5>, memref<1x1xi32, strided<[1, 1]>, 1>, i32, i32
      tile.apply "red.shared.max.s32"(%S, %one) : memref<1x1xi32, 3>, i32
      tile.apply "red.release.sys.global.add.f32"(%F, %f) : memref<1x1xf32, 1>, f32
      tile.apply "st.global.b32"(%Old, %old) : memref<4x1xi32, 1>, memref<4x1xi32, 5>
      gpu.return
    }
  }
}
