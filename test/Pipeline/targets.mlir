// RUN: tile-opt %s --tile-attach-target -split-input-file -verify-diagnostics | FileCheck %s

// Every NVVM target of a module gets the PTX version its chip and its
// instructions need, not only the last one.
// CHECK-LABEL: gpu.module @two_targets
// CHECK-SAME: #nvvm.target<chip = "sm_90", features = "+ptx78">
// CHECK-SAME: #nvvm.target<chip = "sm_100a", features = "+ptx86">
module attributes {gpu.container_module} {
  gpu.module @two_targets [#nvvm.target<chip = "sm_90">, #nvvm.target<chip = "sm_100a">] {
  }
}

// -----

// A form must exist on each of the module's chips.
module attributes {gpu.container_module} {
  gpu.module @f32x2 [#nvvm.target<chip = "sm_100a">, #nvvm.target<chip = "sm_90">] {
    gpu.func @k(%r: memref<2x1xi64, 5>) {
      // expected-error @+1 {{'tile.apply' op add.rn.f32x2 requires sm_100 or newer and PTX ISA 8.6, but the target is sm_90}}
      tile.apply "add.rn.f32x2"(%r, %r, %r) : memref<2x1xi64, 5>, memref<2x1xi64, 5>, memref<2x1xi64, 5>
      gpu.return
    }
  }
}

// -----

// A function verified for sm_100a must not be emitted for the default chip.
module attributes {gpu.container_module} {
  gpu.module @mismatch {
    // expected-error @+1 {{tile.target "sm_100a" was verified for that chip, but the module is compiled for sm_90; give the gpu.module that target (or the pipeline that chip)}}
    gpu.func @k(%r: memref<2x1xi64, 5>) attributes {tile.target = "sm_100a"} {
      tile.apply "add.rn.f32x2"(%r, %r, %r) : memref<2x1xi64, 5>, memref<2x1xi64, 5>, memref<2x1xi64, 5>
      gpu.return
    }
  }
}

// -----

// A +ptx feature given on the target is checked like the option.
module attributes {gpu.container_module} {
  // expected-error @+1 {{PTX ISA 6.0 is too old: the chip sm_90 needs PTX ISA 7.8 or newer}}
  gpu.module @old_feature [#nvvm.target<chip = "sm_90", features = "+ptx60">] {
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{PTX ISA 8.0 is too old: cvt.rn.satfinite.e4m3x2.f32 needs PTX ISA 8.1 or newer}}
  gpu.module @old_for_form [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @k(%d: memref<2x1xi16, 5>, %f: memref<2x1xf32, 5>) {
      tile.apply "cvt.rn.satfinite.e4m3x2.f32"(%d, %f, %f) : memref<2x1xi16, 5>, memref<2x1xf32, 5>, memref<2x1xf32, 5>
      gpu.return
    }
  }
}

// -----

// NVPTX stops with a fatal error on other characters in a symbol.
module attributes {gpu.container_module} {
  gpu.module @names {
    // expected-error @+1 {{the kernel name 'my kernel' is not a PTX identifier: a letter, '_' or '$', then letters, digits, '_' or '$'}}
    gpu.func @"my kernel"() kernel {
      gpu.return
    }
  }
}

// -----

// The PTX version follows the form an op selected: min.f32 of three inputs
// needs PTX ISA 8.8, where its two-input form needs only the chip's 8.6.
// CHECK-LABEL: gpu.module @three_inputs
// CHECK-SAME: #nvvm.target<chip = "sm_100a", features = "+ptx88">
// CHECK-LABEL: gpu.module @two_inputs
// CHECK-SAME: #nvvm.target<chip = "sm_100a", features = "+ptx86">
module attributes {gpu.container_module} {
  gpu.module @three_inputs [#nvvm.target<chip = "sm_100a">] {
    gpu.func @k(%r: memref<1x1xf32, 5>) {
      tile.apply "min.f32"(%r, %r, %r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>
      gpu.return
    }
  }
  gpu.module @two_inputs [#nvvm.target<chip = "sm_100a">] {
    gpu.func @k(%r: memref<1x1xf32, 5>) {
      tile.apply "min.f32"(%r, %r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>, memref<1x1xf32, 5>
      gpu.return
    }
  }
}
