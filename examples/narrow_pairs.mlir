// The spec's cvt example: eight float32 values to four packed half pairs.
// Each output word holds converted a[i][0] in its low half and a[i][1] in its
// high half, because the first source of cvt.rn.f16x2.f32 is the high half.
//
//   tile-ptx examples/narrow_pairs.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @narrow_pairs(%A: memref<4x2xf32, 1>, %Out: memref<4x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 1, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %a = memref.alloca() : memref<4x2xf32, 5>
      %d = memref.alloca() : memref<4x1xi32, 5>
      tile.apply "ld.global.v2.f32"(%a, %A) : memref<4x2xf32, 5>, memref<4x2xf32, 1>
      %hi = memref.subview %a[0, 1] [4, 1] [1, 1]
          : memref<4x2xf32, 5> to memref<4x1xf32, strided<[2, 1], offset: 1>, 5>
      %lo = memref.subview %a[0, 0] [4, 1] [1, 1]
          : memref<4x2xf32, 5> to memref<4x1xf32, strided<[2, 1]>, 5>
      tile.apply "cvt.rn.f16x2.f32"(%d, %hi, %lo)
          : memref<4x1xi32, 5>, memref<4x1xf32, strided<[2, 1], offset: 1>, 5>,
            memref<4x1xf32, strided<[2, 1]>, 5>
      tile.apply "st.global.b32"(%Out, %d) : memref<4x1xi32, 1>, memref<4x1xi32, 5>
      gpu.return
    }
  }
}
