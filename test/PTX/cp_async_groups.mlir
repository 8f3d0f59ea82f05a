// cp.async's group instructions as written: commit_group, wait_group with
// its immediate and wait_all, each side-effecting asm that clobbers memory
// (loads of what the copies deliver must not move above the wait). The
// copies themselves are parsed, not lowered yet (issue #27). Through ptxas
// at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90 -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry groups(
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 1;
// CHECK: cp.async.wait_all;
// CHECK: ld.global.b32
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @groups(%A: memref<1x1xi32, 1>, %Out: memref<1x1xi32, 1>) kernel {
      %c1 = arith.constant 1 : i32
      tile.apply "cp.async.commit_group"()
      tile.apply "cp.async.wait_group"(%c1) : i32
      tile.apply "cp.async.wait_all"()
      %r = memref.alloca() : memref<1x1xi32, 5>
      tile.apply "ld.global.b32"(%r, %A) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
      tile.apply "st.global.b32"(%Out, %r) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
      gpu.return
    }
  }
}
