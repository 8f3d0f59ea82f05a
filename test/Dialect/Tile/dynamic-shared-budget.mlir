// RUN: tile-opt %s -split-input-file -tile-attach-target -verify-diagnostics

// A kernel declares its dynamic shared bytes (tile.dynamic_shared_bytes);
// each buffer carved from gpu.dynamic_shared_memory lies within them, and
// the static and dynamic bytes of a block fit the target's most per block
// (the CUDA C++ Programming Guide: 227 KiB on sm_90, 99 KiB on sm_86 and
// sm_120, 163 KiB on sm_80, 64 KiB on sm_75).
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @fits() workgroup(%s : memref<4096xf32, 3>) kernel
        attributes {tile.dynamic_shared_bytes = 216064 : i64} {
      %d = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %c16384 = arith.constant 16384 : index
      %a = memref.view %d[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xf32, #gpu.address_space<workgroup>>
      %b = memref.view %d[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<49920xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    // expected-error @+1 {{too_much needs 232449 bytes of shared memory per block (16384 static, 216065 dynamic); sm_90 gives a block at most 232448 (227 KiB)}}
    gpu.func @too_much() workgroup(%s : memref<4096xf32, 3>) kernel
        attributes {tile.dynamic_shared_bytes = 216065 : i64} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_86">] {
    // expected-error @+1 {{ampere needs 101377 bytes of shared memory per block (0 static, 101377 dynamic); sm_86 gives a block at most 101376 (99 KiB)}}
    gpu.func @ampere() kernel attributes {tile.dynamic_shared_bytes = 101377 : i64} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @past_the_end() kernel attributes {tile.dynamic_shared_bytes = 1024 : i64} {
      %d = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c16 = arith.constant 16 : index
      // expected-error @+1 {{this buffer of the dynamic shared memory ('memref<256xf32, #gpu.address_space<workgroup>>' at byte 16) lies past the 1024 bytes past_the_end declares (tile.dynamic_shared_bytes)}}
      %a = memref.view %d[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @undeclared() kernel {
      %d = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{lies past the 0 bytes undeclared declares}}
      %a = memref.view %d[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @runtime_offset(%i : index) kernel attributes {tile.dynamic_shared_bytes = 1024 : i64} {
      %d = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      // expected-error @+1 {{a buffer of the dynamic shared memory needs a constant byte offset and a static shape of integers or floats, got 'memref<1xf32, #gpu.address_space<workgroup>>'}}
      %a = memref.view %d[%i][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    // expected-error @+1 {{tile.dynamic_shared_bytes is a byte count (an integer of at least 0), got "many"}}
    gpu.func @not_a_count() kernel attributes {tile.dynamic_shared_bytes = "many"} {
      gpu.return
    }
  }
}
