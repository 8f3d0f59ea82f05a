// The spec's packed-add example: eight add.rn.f16x2 over (8,1) words, each
// word holding two halves.
//
//   tile-opt --tile-to-ptx examples/packed_add.mlir     (MLIR with the PTX)
//   tile-ptx examples/packed_add.mlir                   (the PTX alone)
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @packed_add(%A: memref<8x1xi32, 1>, %B: memref<8x1xi32, 1>,
                         %Out: memref<8x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 1, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %a = memref.alloca() : memref<8x1xi32, 5>
      %b = memref.alloca() : memref<8x1xi32, 5>
      tile.apply "ld.global.b32"(%a, %A) : memref<8x1xi32, 5>, memref<8x1xi32, 1>
      tile.apply "ld.global.b32"(%b, %B) : memref<8x1xi32, 5>, memref<8x1xi32, 1>
      tile.apply "add.rn.f16x2"(%a, %a, %b)
          : memref<8x1xi32, 5>, memref<8x1xi32, 5>, memref<8x1xi32, 5>
      tile.apply "st.global.b32"(%Out, %a) : memref<8x1xi32, 1>, memref<8x1xi32, 5>
      gpu.return
    }
  }
}
