// The spec's abs/neg example: -abs(A) as four abs.f32 then four neg.f32.
//
//   tile-ptx examples/abs_neg.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @negative_magnitude(%A: memref<4x1xf32, 1>, %Out: memref<4x1xf32, 1>) kernel
        attributes {known_block_size = array<i32: 1, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %r = memref.alloca() : memref<4x1xf32, 5>
      tile.apply "ld.global.f32"(%r, %A) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
      tile.apply "abs.f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
      tile.apply "neg.f32"(%r, %r) : memref<4x1xf32, 5>, memref<4x1xf32, 5>
      tile.apply "st.global.f32"(%Out, %r) : memref<4x1xf32, 1>, memref<4x1xf32, 5>
      gpu.return
    }
  }
}
