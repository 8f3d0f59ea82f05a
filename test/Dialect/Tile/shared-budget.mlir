// RUN: tile-opt %s -split-input-file -tile-attach-target -verify-diagnostics

// A kernel declares at most 48 KiB of static shared memory: ptxas (CUDA
// 13.0) refuses 49153 bytes on sm_75 to sm_90, sm_100 and sm_120 ("uses too
// much shared data (0xc001 bytes, 0xc000 max)"). Buffers are laid out in
// order at their alignments; the error is at the buffer that crosses it.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @fits() workgroup(%a : memref<8192xf32, 3>, %b : memref<4096xf32, 3>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    // expected-error @+1 {{the shared buffers of too_much need 49153 bytes with this one ('memref<1xi8, 3>'); a kernel declares at most 49152 (48 KiB) of static shared memory}}
    gpu.func @too_much() workgroup(%a : memref<12288xf32, 3>, %b : memref<1xi8, 3>) kernel {
      gpu.return
    }
  }
}

// -----

// The padding an alignment adds counts: 1 byte, then 49148 at 16 (49149
// bytes without the padding, which would fit).
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    // expected-error @+1 {{need 49164 bytes with this one}}
    gpu.func @padded() workgroup(%a : memref<1xi8, 3>, %b : memref<12287xf32, 3> {llvm.align = 16 : i64}) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    // expected-error @+1 {{more than 49152 bytes with this one}}
    gpu.func @huge() workgroup(%a : memref<4611686018427387904xi32, 3>) kernel {
      gpu.return
    }
  }
}
