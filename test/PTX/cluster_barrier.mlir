// barrier.cluster (PTX ISA 9.7.13.2) through NVVM's convergent operations:
// each form as written, .release and .acquire being the ISA's defaults;
// the kernel's cluster (nvvm.cluster_dim) is .reqnctapercluster. Through
// ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry cluster(
// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: barrier.cluster.arrive.relaxed;
// CHECK-NEXT: barrier.cluster.wait;
// CHECK: barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait.aligned;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @cluster(%Out: memref<1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
      tile.apply "barrier.cluster.arrive.aligned"()
      tile.apply "barrier.cluster.wait.aligned"()
      tile.apply "barrier.cluster.arrive.relaxed"()
      tile.apply "barrier.cluster.wait.acquire"()
      tile.apply "barrier.cluster.arrive.release"()
      tile.apply "barrier.cluster.wait.aligned.acquire"()
      gpu.return
    }
  }
}
