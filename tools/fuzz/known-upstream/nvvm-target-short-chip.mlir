module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "rp">] {
  }
}
