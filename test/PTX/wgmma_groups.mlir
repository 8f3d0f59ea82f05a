// wgmma's ordering and group instructions and setmaxnreg as written, for
// sm_90a (PTX ISA 9.7.15.6-7, 9.7.19.4): side-effecting asm that clobbers
// memory, never moved or merged. Through ptxas at -O3 and -O0.
// RUN: tile-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_90a -O0 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry groups(
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @groups(%Out: memref<1x1xi32, 1>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>,
                    known_grid_size = array<i32: 1, 1, 1>} {
      %c1 = arith.constant 1 : i32
      %c40 = arith.constant 40 : i32
      %c232 = arith.constant 232 : i32
      tile.apply "setmaxnreg.dec.sync.aligned.u32"(%c40) : i32
      tile.apply "wgmma.fence.sync.aligned"()
      tile.apply "wgmma.commit_group.sync.aligned"()
      tile.apply "wgmma.wait_group.sync.aligned"(%c1) : i32
      tile.apply "setmaxnreg.inc.sync.aligned.u32"(%c232) : i32
      gpu.return
    }
  }
}
