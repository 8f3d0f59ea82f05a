// Every option value reaches the passes only after it is checked: each of
// these aborted in an upstream verifier or spliced text into the pipeline.
// RUN: not tile-opt %s --tile-to-ptx=O=7 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tile-opt %s --tile-to-ptx=format=cubin 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tile-opt %s --tile-to-ptx=format=garbage 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: not tile-opt %s --tile-to-ptx=ptx=60 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not tile-opt %s --tile-to-ptx=ptx=10 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s --tile-to-ptx=ptx=999 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tile-opt %s '--tile-to-ptx=chip=sm_90},canonicalize' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s --tile-attach-target=O=9 2>&1 | FileCheck %s --check-prefix=ATTACH

// OPT: error: tile-to-ptx: O=7 is not 0, 1, 2 or 3
// FORMAT: error: tile-to-ptx: format=cubin is not isa, bin or fatbin
// GARBAGE: error: tile-to-ptx: format=garbage is not isa, bin or fatbin
// OLD: error: tile-to-ptx: ptx=60 is too old for sm_90, which needs ptx=78 or newer
// UNKNOWN: error: tile-to-ptx: ptx=10 is not a PTX ISA version this toolchain emits
// HUGE: error: tile-to-ptx: ptx=999 is not a PTX ISA version this toolchain emits
// CHIP: error: tile-to-ptx: unknown chip 'sm_90},canonicalize': expected sm_XX
// ATTACH: error: tile-attach-target: O=9 is not 0, 1, 2 or 3

module attributes {gpu.container_module} {
  gpu.module @kernels {
  }
}
