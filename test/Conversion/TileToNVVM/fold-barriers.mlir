// Fold barriers by data flow (include/tile/PTX/Folds.h): a barrier goes on
// an operand only where a producer of its class, which ptxas can see,
// meets a consumer of its class. With fold-barriers=always every operand a
// class marks has one; with fold-barriers=off none has, and each
// instruction auto would have guarded gets a warning.
// RUN: tile-opt %s --convert-tile-to-nvvm -split-input-file | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-nvvm=fold-barriers=always -split-input-file | FileCheck %s --check-prefix=ALWAYS
// RUN: tile-opt %s --convert-tile-to-nvvm=fold-barriers=off -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=OFF

// A cvt of a load, a kernel parameter, a constant or a special register is
// emitted as written.
// CHECK-LABEL: gpu.func @cvt_without_producer
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "cvt.rn.f32.u32 $0, $1;", "=r,r"
// ALWAYS-LABEL: gpu.func @cvt_without_producer
// ALWAYS-COUNT-3: max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0;
// ALWAYS: max.s32 %tile_f1_0, $1, -2147483648; cvt.rn.f32.u32 $0, %tile_f1_0;
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @cvt_without_producer(%g: memref<1xf32, 1>, %o: memref<4xi32, 1>, %s: f32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %k = arith.constant 2.5 : f32
      %x = tile.instr "ld.global.f32"() [%g[%c0] : memref<1xf32, 1>] : () -> f32
      %a = tile.instr "cvt.rzi.s32.f32"(%x) : (f32) -> i32
      %b = tile.instr "cvt.rzi.s32.f32"(%s) : (f32) -> i32
      %c = tile.instr "cvt.rzi.s32.f32"(%k) : (f32) -> i32
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %d = tile.instr "cvt.rn.f32.u32"(%t) : (i32) -> i32
      tile.instr "st.global.b32"(%a) [%o[%c0] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%b) [%o[%c1] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%c) [%o[%c2] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%d) [%o[%c3] : memref<4xi32, 1>] : (i32) -> ()
      gpu.return
    }
  }
}

// -----

// A cvt of a computed value reads it through the identity max, also when
// the value travels through a mov and a bitcast; a value that only moved
// from a load does not.
// CHECK-LABEL: gpu.func @cvt_of_a_computation
// CHECK: llvm.inline_asm "neg.f32 $0, $1;"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0; }", "=r,r"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0; }", "=r,r"
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0; }", "=r,r"
// OFF-LABEL: gpu.func @cvt_of_a_computation
// OFF-NOT: max.s
// OFF: gpu.return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @cvt_of_a_computation(%g: memref<1xi32, 1>, %o: memref<4xi32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %w = tile.instr "ld.global.b32"() [%g[%c0] : memref<1xi32, 1>] : () -> i32
      %x = arith.bitcast %w : i32 to f32
      %n = tile.instr "neg.f32"(%x) : (f32) -> f32
      // expected-warning @+1 {{fold-barriers=off leaves cvt.rzi.s32.f32 exposed to the cvt-source fold: ptxas -O3 folds the instruction that produced a cvt source into the conversion, with a wrong result (docs/difftest.md, finding 2)}}
      %a = tile.instr "cvt.rzi.s32.f32"(%n) : (f32) -> i32
      %m = tile.instr "mov.b32"(%a) : (i32) -> i32
      %mf = arith.bitcast %m : i32 to f32
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %b = tile.instr "cvt.rzi.s32.f32"(%mf) : (f32) -> i32
      %lw = tile.instr "mov.b32"(%w) : (i32) -> i32
      %lf = arith.bitcast %lw : i32 to f32
      %c = tile.instr "cvt.rzi.s32.f32"(%lf) : (f32) -> i32
      // A T.ewise result is a computation too.
      %e = arith.mulf %x, %x : f32
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %d = tile.instr "cvt.rzi.s32.f32"(%e) : (f32) -> i32
      tile.instr "st.global.b32"(%a) [%o[%c0] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%b) [%o[%c1] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%c) [%o[%c2] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%d) [%o[%c3] : memref<4xi32, 1>] : (i32) -> ()
      gpu.return
    }
  }
}

// -----

// Where the producer cannot be seen the barrier stays: a tile kept in
// memory, a loop-carried value, a local load, a device function's
// parameter.
// CHECK-LABEL: gpu.func @cvt_of_an_unseen_value
// CHECK-COUNT-3: max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0;
// CHECK-LABEL: func.func @device_function
// CHECK: max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0;
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @cvt_of_an_unseen_value(%o: memref<3xi32, 1>, %i: index, %s: f32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %t = memref.alloca() : memref<4xf32, 5>
      %x = memref.load %t[%i] : memref<4xf32, 5>
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %a = tile.instr "cvt.rzi.s32.f32"(%x) : (f32) -> i32
      %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%v = %s) -> (f32) {
        %n = arith.addf %v, %v : f32
        scf.yield %n : f32
      }
      %l = tile.instr "ld.local.f32"() [%t[%c1] : memref<4xf32, 5>] : () -> f32
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %b = tile.instr "cvt.rzi.s32.f32"(%l) : (f32) -> i32
      %rr = scf.for %j = %c0 to %c4 step %c1 iter_args(%v = %s) -> (f32) {
        // expected-warning @+1 {{exposed to the cvt-source fold}}
        %q = tile.instr "cvt.rzi.s32.f32"(%v) : (f32) -> i32
        scf.yield %v : f32
      }
      tile.instr "st.global.b32"(%a) [%o[%c0] : memref<3xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%b) [%o[%c1] : memref<3xi32, 1>] : (i32) -> ()
      gpu.return
    }
  }
  func.func @device_function(%x: f32) -> i32 {
    // expected-warning @+1 {{exposed to the cvt-source fold}}
    %a = tile.instr "cvt.rzi.s32.f32"(%x) : (f32) -> i32
    return %a : i32
  }
}

// -----

// A cvt of a scalar result of a family that ptxas was measured never to
// fold into a conversion (ex2, min, prmt and 14 more:
// tools/forms/cvt_source_folds.py) is emitted as written; a packed result
// of the same family (ptxas narrows ex2 of bf16x2 read as a 16-bit
// integer) and a measured producer (mul) keep the barrier.
// CHECK-LABEL: gpu.func @cvt_of_unfolded_families
// CHECK: llvm.inline_asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "cvt.rn.f32.s32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.u16.u32 $0, %tile_f1_0; }"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rn.f16.f32 $0, %tile_f1_0; }"
// ALWAYS-LABEL: gpu.func @cvt_of_unfolded_families
// ALWAYS: max.s32 %tile_f1_0, $1, -2147483648; max.s32 %tile_f2_0, $2, -2147483648; cvt.rn.bf16x2.f32 $0, %tile_f1_0, %tile_f2_0;
// ALWAYS: max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0;
// OFF-LABEL: gpu.func @cvt_of_unfolded_families
// OFF-NOT: max.s32
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @cvt_of_unfolded_families(%g: memref<2xf32, 1>, %o: memref<5xi32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %x = tile.instr "ld.global.f32"() [%g[%c0] : memref<2xf32, 1>] : () -> f32
      %y = tile.instr "ld.global.f32"() [%g[%c1] : memref<2xf32, 1>] : () -> f32
      %e0 = tile.instr "ex2.approx.ftz.f32"(%x) : (f32) -> f32
      %e1 = tile.instr "ex2.approx.ftz.f32"(%y) : (f32) -> f32
      %p = tile.instr "cvt.rn.bf16x2.f32"(%e1, %e0) : (f32, f32) -> i32
      %m = tile.instr "min.f32"(%x, %y) : (f32, f32) -> f32
      %a = tile.instr "cvt.rzi.s32.f32"(%m) : (f32) -> i32
      %bits = arith.bitcast %x : f32 to i32
      %q = tile.instr "prmt.b32"(%bits, %bits, %bits) : (i32, i32, i32) -> i32
      %b = tile.instr "cvt.rn.f32.s32"(%q) : (i32) -> f32
      %h = tile.instr "ex2.approx.ftz.bf16x2"(%bits) : (i32) -> i32
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %c = tile.instr "cvt.u16.u32"(%h) : (i32) -> i16
      %n = tile.instr "mul.rn.f32"(%x, %y) : (f32, f32) -> f32
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %d = tile.instr "cvt.rn.f16.f32"(%n) : (f32) -> f16
      gpu.return
    }
  }
}

// -----

// A load from registers kept as a tile reads the last store before it in
// its block to the same element, where every element is known: there the
// producer is that store's value alone. An ex2 that overwrites an fma's
// element leaves only the ex2 (no barrier); the fma's own element, a store
// to an element not known, or an overwrite inside an scf.if bring the
// fma back (the barrier).
// CHECK-LABEL: gpu.func @cvt_of_the_last_store
// CHECK: llvm.inline_asm "cvt.rn.f16.f32 $0, $1;"
// CHECK-COUNT-4: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rn.f16.f32 $0, %tile_f1_0; }"
// CHECK-NOT: cvt.rn.f16.f32
// CHECK: gpu.return
// OFF-LABEL: gpu.func @cvt_of_the_last_store
// OFF-NOT: max.s32
// OFF: gpu.return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @cvt_of_the_last_store(%g: memref<1xf32, 1>, %i: index, %c: i1) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %x = tile.instr "ld.global.f32"() [%g[%c0] : memref<1xf32, 1>] : () -> f32
      %f = tile.instr "fma.rn.f32"(%x, %x, %x) : (f32, f32, f32) -> f32
      %e = tile.instr "ex2.approx.ftz.f32"(%x) : (f32) -> f32
      %tile = memref.alloca() : memref<2xf32, 5>
      %row = memref.subview %tile[1] [1] [1] : memref<2xf32, 5> to memref<1xf32, strided<[1], offset: 1>, 5>
      memref.store %f, %tile[%c0] : memref<2xf32, 5>
      memref.store %f, %tile[%c1] : memref<2xf32, 5>
      memref.store %e, %row[%c0] : memref<1xf32, strided<[1], offset: 1>, 5>
      %y = memref.load %tile[%c1] : memref<2xf32, 5>
      %a = tile.instr "cvt.rn.f16.f32"(%y) : (f32) -> f16
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %b = tile.instr "cvt.rn.f16.f32"(%f) : (f32) -> f16
      %z = memref.load %tile[%c0] : memref<2xf32, 5>
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %d = tile.instr "cvt.rn.f16.f32"(%z) : (f32) -> f16
      memref.store %e, %tile[%i] : memref<2xf32, 5>
      %w = memref.load %tile[%c1] : memref<2xf32, 5>
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %h = tile.instr "cvt.rn.f16.f32"(%w) : (f32) -> f16
      %maybe = memref.alloca() : memref<1xf32, 5>
      memref.store %f, %maybe[%c0] : memref<1xf32, 5>
      scf.if %c {
        memref.store %e, %maybe[%c0] : memref<1xf32, 5>
      }
      %v = memref.load %maybe[%c0] : memref<1xf32, 5>
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %k = tile.instr "cvt.rn.f16.f32"(%v) : (f32) -> f16
      gpu.return
    }
  }
}

// -----

// Registers kept as a tile (a private allocation that only memref.load and
// memref.store touch, as --tile-expand leaves a T.alloc_local tile): a
// load may read any value stored to it, so it has their producers. A
// tensor core's result is no producer: no conversion folds an HMMA.
// CHECK-LABEL: gpu.func @cvt_of_registers_in_a_tile
// CHECK: llvm.inline_asm "neg.f32 $0, $1;"
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0; }", "=r,r"
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: llvm.inline_asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0; }", "=r,r"
// ALWAYS-LABEL: gpu.func @cvt_of_registers_in_a_tile
// ALWAYS-COUNT-2: max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0;
// ALWAYS: max.s32 %tile_f1_0, $1, -2147483648; max.s32 %tile_f2_0, $2, -2147483648; cvt.rn.bf16x2.f32 $0, %tile_f1_0, %tile_f2_0;
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @cvt_of_registers_in_a_tile(%g: memref<1xf32, 1>, %o: memref<4xi32, 1>, %i: index, %r: i32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %x = tile.instr "ld.global.f32"() [%g[%c0] : memref<1xf32, 1>] : () -> f32
      %n = tile.instr "neg.f32"(%x) : (f32) -> f32
      // Only loaded values stored: no barrier, whichever slot is read.
      %loaded = memref.alloca() : memref<2xf32, 5>
      memref.store %x, %loaded[%c0] : memref<2xf32, 5>
      %view = memref.subview %loaded[1] [1] [1] : memref<2xf32, 5> to memref<1xf32, strided<[1], offset: 1>, 5>
      memref.store %x, %view[%c0] : memref<1xf32, strided<[1], offset: 1>, 5>
      %y = memref.load %loaded[%i] : memref<2xf32, 5>
      %a = tile.instr "cvt.rzi.s32.f32"(%y) : (f32) -> i32
      // A computed value stored: the barrier.
      %computed = memref.alloca() : memref<1xf32, 5>
      memref.store %n, %computed[%c0] : memref<1xf32, 5>
      %z = memref.load %computed[%c0] : memref<1xf32, 5>
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %b = tile.instr "cvt.rzi.s32.f32"(%z) : (f32) -> i32
      // Accumulators that start at zero and hold an mma's results.
      %acc = memref.alloca() : memref<4xf32, 5>
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %acc[%c0] : memref<4xf32, 5>
      memref.store %zero, %acc[%c1] : memref<4xf32, 5>
      memref.store %zero, %acc[%c2] : memref<4xf32, 5>
      memref.store %zero, %acc[%c3] : memref<4xf32, 5>
      %c_0 = memref.load %acc[%c0] : memref<4xf32, 5>
      %c_1 = memref.load %acc[%c1] : memref<4xf32, 5>
      %c_2 = memref.load %acc[%c2] : memref<4xf32, 5>
      %c_3 = memref.load %acc[%c3] : memref<4xf32, 5>
      %d:4 = tile.instr "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"(%r, %r, %r, %r, %r, %r, %c_0, %c_1, %c_2, %c_3) : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
      memref.store %d#0, %acc[%c0] : memref<4xf32, 5>
      memref.store %d#1, %acc[%c1] : memref<4xf32, 5>
      %e0 = memref.load %acc[%c0] : memref<4xf32, 5>
      %e1 = memref.load %acc[%c1] : memref<4xf32, 5>
      %p = tile.instr "cvt.rn.bf16x2.f32"(%e1, %e0) : (f32, f32) -> i32
      // A tile that an instruction also writes (st.local): unseen.
      %written = memref.alloca() : memref<1xf32, 5>
      tile.instr "st.local.f32"(%x) [%written[%c0] : memref<1xf32, 5>] : (f32) -> ()
      memref.store %x, %written[%c0] : memref<1xf32, 5>
      %w = memref.load %written[%c0] : memref<1xf32, 5>
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %q = tile.instr "cvt.rzi.s32.f32"(%w) : (f32) -> i32
      tile.instr "st.global.b32"(%a) [%o[%c0] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%b) [%o[%c1] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%p) [%o[%c2] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%q) [%o[%c3] : memref<4xi32, 1>] : (i32) -> ()
      gpu.return
    }
  }
}

// -----

// A 64-bit shift's amount is guarded after a scalar float result only
// (finding 4): integer and packed-half producers were measured right.
// CHECK-LABEL: gpu.func @wide_shift_amounts
// CHECK: llvm.inline_asm "shr.b64 $0, $1, $2;"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f2_0; max.s32 %tile_f2_0, $2, -2147483648; shr.b64 $0, $1, %tile_f2_0; }"
// CHECK: llvm.inline_asm "shl.b64 $0, $1, $2;"
// CHECK: llvm.inline_asm "shl.b64 $0, $1, $2;"
// CHECK: llvm.inline_asm "shl.b64 $0, $1, $2;"
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @wide_shift_amounts(%g: memref<2xi32, 1>, %a: i64, %o: memref<5xi64, 1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %n = tile.instr "ld.global.b32"() [%g[%c0] : memref<2xi32, 1>] : () -> i32
      %d0 = tile.instr "shr.b64"(%a, %n) : (i64, i32) -> i64
      %f = arith.bitcast %n : i32 to f32
      %neg = tile.instr "neg.f32"(%f) : (f32) -> f32
      %nb = arith.bitcast %neg : f32 to i32
      // expected-warning @+1 {{fold-barriers=off leaves shr.b64 exposed to the wide-shift-amount fold: ptxas assembles a 64-bit shift by a float result as a shift by the float converted to an integer, at every -O level (docs/difftest.md, finding 4)}}
      %d1 = tile.instr "shr.b64"(%a, %nb) : (i64, i32) -> i64
      %and = tile.instr "and.b32"(%n, %n) : (i32, i32) -> i32
      %d2 = tile.instr "shl.b64"(%a, %and) : (i64, i32) -> i64
      %h = tile.instr "add.rn.f16x2"(%n, %n) : (i32, i32) -> i32
      %d3 = tile.instr "shl.b64"(%a, %h) : (i64, i32) -> i64
      %i = arith.addi %n, %n : i32
      %d4 = tile.instr "shl.b64"(%a, %i) : (i64, i32) -> i64
      tile.instr "st.global.b64"(%d0) [%o[%c0] : memref<5xi64, 1>] : (i64) -> ()
      tile.instr "st.global.b64"(%d1) [%o[%c1] : memref<5xi64, 1>] : (i64) -> ()
      tile.instr "st.global.b64"(%d2) [%o[%c2] : memref<5xi64, 1>] : (i64) -> ()
      tile.instr "st.global.b64"(%d3) [%o[%c3] : memref<5xi64, 1>] : (i64) -> ()
      tile.instr "st.global.b64"(%d4) [%o[%c4] : memref<5xi64, 1>] : (i64) -> ()
      gpu.return
    }
  }
}

// -----

// abs of packed halves is guarded after a float result (finding 5), scalar
// or packed; integer producers were measured right.
// CHECK-LABEL: gpu.func @packed_half_abs
// CHECK: llvm.inline_asm "abs.f16x2 $0, $1;"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; abs.bf16x2 $0, %tile_f1_0; }"
// CHECK: llvm.inline_asm "abs.ftz.f16x2 $0, $1;"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; abs.f16x2 $0, %tile_f1_0; }"
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @packed_half_abs(%g: memref<1xi32, 1>, %o: memref<4xi32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %w = tile.instr "ld.global.b32"() [%g[%c0] : memref<1xi32, 1>] : () -> i32
      %a = tile.instr "abs.f16x2"(%w) : (i32) -> i32
      %f = arith.bitcast %w : i32 to f32
      %sat = tile.instr "mul.rp.sat.f32"(%f, %f) : (f32, f32) -> f32
      %sb = arith.bitcast %sat : f32 to i32
      // expected-warning @+1 {{fold-barriers=off leaves abs.bf16x2 exposed to the packed-half-abs fold}}
      %b = tile.instr "abs.bf16x2"(%sb) : (i32) -> i32
      %and = tile.instr "and.b32"(%w, %w) : (i32, i32) -> i32
      %c = tile.instr "abs.ftz.f16x2"(%and) : (i32) -> i32
      %h = tile.instr "add.rn.f16x2"(%w, %w) : (i32, i32) -> i32
      // expected-warning @+1 {{exposed to the packed-half-abs fold}}
      %d = tile.instr "abs.f16x2"(%h) : (i32) -> i32
      tile.instr "st.global.b32"(%a) [%o[%c0] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%b) [%o[%c1] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%c) [%o[%c2] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%d) [%o[%c3] : memref<4xi32, 1>] : (i32) -> ()
      gpu.return
    }
  }
}

// -----

// An integer .sat result leaves through the split and join only where it
// may be read as a float (finding 6): a float min, also through a mov, a
// predicated instruction's kept value, integer instructions and T.ewise ops
// that pass it on, memory, or a T.ewise float op; not where it only reaches
// a store.
// CHECK-LABEL: gpu.func @integer_saturation
// CHECK: llvm.inline_asm "add.sat.s32 $0, $1, $2;"
// CHECK: llvm.inline_asm "sub.sat.s32 $0, $1, $2;"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_s0_0; .reg .b16 %tile_s0_0p0, %tile_s0_0p1; add.sat.s32 %tile_s0_0, $1, $2; mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; mov.b32 $0, {%tile_s0_0p0, %tile_s0_0p1}; }"
// CHECK-COUNT-6: mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; mov.b32 $0, {%tile_s0_0p0, %tile_s0_0p1}; }"
// CHECK-NOT: %tile_s
// CHECK: gpu.return
// ALWAYS-LABEL: gpu.func @integer_saturation
// ALWAYS-COUNT-8: mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; mov.b32 $0, {%tile_s0_0p0, %tile_s0_0p1}; }"
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @integer_saturation(%g: memref<2xi32, 1>, %o: memref<8xi32, 1>, %p: i1, %i: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %k = arith.constant 3.0e4 : f32
      %a = tile.instr "ld.global.b32"() [%g[%c0] : memref<2xi32, 1>] : () -> i32
      %b = tile.instr "ld.global.b32"() [%g[%c1] : memref<2xi32, 1>] : () -> i32
      %s0 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
      tile.instr "st.global.b32"(%s0) [%o[%c0] : memref<8xi32, 1>] : (i32) -> ()
      %s1 = tile.instr "sub.sat.s32"(%a, %b) : (i32, i32) -> i32
      %i1 = tile.instr "add.s32"(%s1, %a) : (i32, i32) -> i32
      tile.instr "st.global.b32"(%i1) [%o[%c1] : memref<8xi32, 1>] : (i32) -> ()
      // expected-warning @+1 {{fold-barriers=off leaves add.sat.s32 exposed to the integer-saturation fold: ptxas -O3 takes an integer .sat result for a float in [0.0, 1.0] and drops a float min, max or saturation that such a value would not change (docs/difftest.md, finding 6)}}
      %s2 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
      %f2 = arith.bitcast %s2 : i32 to f32
      %m2 = tile.instr "min.f32"(%f2, %k) : (f32, f32) -> f32
      %w2 = arith.bitcast %m2 : f32 to i32
      tile.instr "st.global.b32"(%w2) [%o[%c2] : memref<8xi32, 1>] : (i32) -> ()
      // expected-warning @+1 {{exposed to the integer-saturation fold}}
      %s3 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
      %v3 = tile.instr "mov.b32"(%s3) : (i32) -> i32
      %f3 = arith.bitcast %v3 : i32 to f32
      %m3 = tile.instr "min.f32"(%f3, %k) : (f32, f32) -> f32
      %w3 = arith.bitcast %m3 : f32 to i32
      tile.instr "st.global.b32"(%w3) [%o[%c3] : memref<8xi32, 1>] : (i32) -> ()
      // expected-warning @+1 {{exposed to the integer-saturation fold}}
      %s4 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
      %k4 = tile.instr "add.s32"(%a, %b) if %p keep(%s4 : i32) : (i32, i32) -> i32
      %f4 = arith.bitcast %k4 : i32 to f32
      %m4 = tile.instr "max.f32"(%f4, %k) : (f32, f32) -> f32
      %w4 = arith.bitcast %m4 : f32 to i32
      tile.instr "st.global.b32"(%w4) [%o[%c4] : memref<8xi32, 1>] : (i32) -> ()
      // expected-warning @+1 {{exposed to the integer-saturation fold}}
      %s5 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
      %t = memref.alloca() : memref<4xi32, 5>
      memref.store %s5, %t[%i] : memref<4xi32, 5>
      // expected-warning @+1 {{exposed to the integer-saturation fold}}
      %s6 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
      %f6 = arith.bitcast %s6 : i32 to f32
      %e6 = arith.addf %f6, %k : f32
      %w6 = arith.bitcast %e6 : f32 to i32
      tile.instr "st.global.b32"(%w6) [%o[%c4] : memref<8xi32, 1>] : (i32) -> ()
      // ptxas's range may travel through an integer read that passes the
      // value on (a select, a min): every result is followed to a float read.
      // expected-warning @+1 {{exposed to the integer-saturation fold}}
      %s7 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
      %p7 = tile.instr "setp.lt.s32"(%a, %b) : (i32, i32) -> i1
      %v7 = tile.instr "selp.b32"(%s7, %a, %p7) : (i32, i32, i1) -> i32
      %m7 = tile.instr "min.s32"(%v7, %b) : (i32, i32) -> i32
      %f7 = arith.bitcast %m7 : i32 to f32
      %x7 = tile.instr "max.f32"(%f7, %k) : (f32, f32) -> f32
      %w7 = arith.bitcast %x7 : f32 to i32
      tile.instr "st.global.b32"(%w7) [%o[%c4] : memref<8xi32, 1>] : (i32) -> ()
      // expected-warning @+1 {{exposed to the integer-saturation fold}}
      %s8 = tile.instr "sub.sat.s32"(%a, %b) : (i32, i32) -> i32
      %i8 = arith.addi %s8, %a : i32
      %f8 = arith.bitcast %i8 : i32 to f32
      %x8 = tile.instr "min.f32"(%f8, %k) : (f32, f32) -> f32
      %w8 = arith.bitcast %x8 : f32 to i32
      tile.instr "st.global.b32"(%w8) [%o[%c4] : memref<8xi32, 1>] : (i32) -> ()
      gpu.return
    }
  }
}

// -----

// A load that may read what the kernel stored, through the same pointer,
// may be forwarded the stored value by ptxas, and with it its producer: it
// counts as unseen. A load before any store to its memory, or from memory
// the kernel stores to through another parameter only, does not.
// CHECK-LABEL: gpu.func @loads_after_stores
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0; }"
// CHECK: llvm.inline_asm "cvt.rzi.s32.f32 $0, $1;"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.s32.f32 $0, %tile_f1_0; }"
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @loads_after_stores(%g: memref<4xf32, 1>, %h: memref<4xf32, 1>, %o: memref<4xi32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %x = tile.instr "ld.global.f32"() [%g[%c0] : memref<4xf32, 1>] : () -> f32
      %a = tile.instr "cvt.rzi.s32.f32"(%x) : (f32) -> i32
      %n = tile.instr "neg.f32"(%x) : (f32) -> f32
      tile.instr "st.global.f32"(%n) [%g[%c1] : memref<4xf32, 1>] : (f32) -> ()
      %y = tile.instr "ld.global.f32"() [%g[%c1] : memref<4xf32, 1>] : () -> f32
      // expected-warning @+1 {{exposed to the cvt-source fold}}
      %b = tile.instr "cvt.rzi.s32.f32"(%y) : (f32) -> i32
      %z = tile.instr "ld.global.f32"() [%h[%c1] : memref<4xf32, 1>] : () -> f32
      %c = tile.instr "cvt.rzi.s32.f32"(%z) : (f32) -> i32
      tile.instr "st.global.b32"(%a) [%o[%c0] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%b) [%o[%c1] : memref<4xi32, 1>] : (i32) -> ()
      tile.instr "st.global.b32"(%c) [%o[%c0] : memref<4xi32, 1>] : (i32) -> ()
      scf.for %i = %c0 to %c4 step %c1 {
        %v = memref.subview %h[%i] [1] [1] : memref<4xf32, 1> to memref<1xf32, strided<[1], offset: ?>, 1>
        %w = tile.instr "ld.global.f32"() [%v[%c0] : memref<1xf32, strided<[1], offset: ?>, 1>] : () -> f32
        // expected-warning @+1 {{exposed to the cvt-source fold}}
        %d = tile.instr "cvt.rzi.s32.f32"(%w) : (f32) -> i32
        %df = arith.bitcast %d : i32 to f32
        tile.instr "st.global.f32"(%df) [%h[%c0] : memref<4xf32, 1>] : (f32) -> ()
      }
      gpu.return
    }
  }
}

// -----

// bfe.s32 with a position of 32 or more and a nonzero length that ptxas may
// know as constants (finding 9) reads its position plus %laneid >> 5. A
// constant position below 32 (its low 8 bits), a constant length of 0 (low
// 8 bits), a loaded position or length, and bfe.u32 are emitted as written.
// CHECK-LABEL: gpu.func @bfe_constant_position
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_z2_0; mov.u32 %tile_z2_0, %laneid; shr.u32 %tile_z2_0, %tile_z2_0, 5; add.u32 %tile_z2_0, %tile_z2_0, $2; bfe.s32 $0, $1, %tile_z2_0, $3; }", "=r,r,r,r"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_z2_0; {{.*}} bfe.s32 $0, $1, %tile_z2_0, $3; }"
// CHECK-COUNT-5: llvm.inline_asm "bfe.{{[su]}}32 $0, $1, $2, $3;"
// ALWAYS-LABEL: gpu.func @bfe_constant_position
// ALWAYS-COUNT-6: bfe.s32 $0, $1, %tile_z2_0, $3;
// ALWAYS: llvm.inline_asm "bfe.u32 $0, $1, $2, $3;"
// OFF-LABEL: gpu.func @bfe_constant_position
// OFF-NOT: laneid
// OFF: gpu.return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @bfe_constant_position(%g: memref<2xi32, 1>, %o: memref<1xi32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %p40 = arith.constant 40 : i32
      %p296 = arith.constant 296 : i32
      %p5 = arith.constant 5 : i32
      %l8 = arith.constant 8 : i32
      %l256 = arith.constant 256 : i32
      %a = tile.instr "ld.global.b32"() [%g[%c0] : memref<2xi32, 1>] : () -> i32
      %r = tile.instr "ld.global.b32"() [%g[%c1] : memref<2xi32, 1>] : () -> i32
      // expected-warning @+1 {{fold-barriers=off leaves bfe.s32 exposed to the constant-field-position fold: ptxas -O3 folds bfe.s32 with a constant position of 32 or more and a constant nonzero length to -1, whatever the sign of the source (docs/difftest.md, finding 9)}}
      %d0 = tile.instr "bfe.s32"(%a, %p40, %l8) : (i32, i32, i32) -> i32
      // A position computed from constants only is a constant to ptxas.
      %p = tile.instr "add.s32"(%p5, %p5) : (i32, i32) -> i32
      %q = tile.instr "shl.b32"(%p, %p5) : (i32, i32) -> i32
      // expected-warning @+1 {{exposed to the constant-field-position fold}}
      %d1 = tile.instr "bfe.s32"(%a, %q, %l8) : (i32, i32, i32) -> i32
      %d2 = tile.instr "bfe.s32"(%a, %p5, %l8) : (i32, i32, i32) -> i32
      %d3 = tile.instr "bfe.s32"(%a, %p296, %l256) : (i32, i32, i32) -> i32
      %d4 = tile.instr "bfe.s32"(%a, %p40, %r) : (i32, i32, i32) -> i32
      %rp = tile.instr "add.s32"(%r, %p40) : (i32, i32) -> i32
      %d5 = tile.instr "bfe.s32"(%a, %rp, %l8) : (i32, i32, i32) -> i32
      %d6 = tile.instr "bfe.u32"(%a, %p40, %l8) : (i32, i32, i32) -> i32
      %s0 = tile.instr "xor.b32"(%d0, %d1) : (i32, i32) -> i32
      %s1 = tile.instr "xor.b32"(%s0, %d2) : (i32, i32) -> i32
      %s2 = tile.instr "xor.b32"(%s1, %d3) : (i32, i32) -> i32
      %s3 = tile.instr "xor.b32"(%s2, %d4) : (i32, i32) -> i32
      %s4 = tile.instr "xor.b32"(%s3, %d5) : (i32, i32) -> i32
      %s5 = tile.instr "xor.b32"(%s4, %d6) : (i32, i32) -> i32
      tile.instr "st.global.b32"(%s5) [%o[%c0] : memref<1xi32, 1>] : (i32) -> ()
      gpu.return
    }
  }
}

// -----

// A half computation beside a constant in max.NaN.xorsign.abs (finding 14:
// ptxas -O3 fuses them into HFMA2.RELU, dropping the xorsign.abs) reads the
// computed source through the identity max, whichever side it is on. Beside
// a loaded value, without .NaN, from a load, and in min, it is as written.
// CHECK-LABEL: gpu.func @relu_fusion
// CHECK: "{ .reg .b16 %tile_f1_0; max.s16 %tile_f1_0, $1, -32768; max.NaN.xorsign.abs.f16 $0, %tile_f1_0, $2; }"
// CHECK: "{ .reg .b16 %tile_f2_0; max.s16 %tile_f2_0, $2, -32768; max.NaN.xorsign.abs.f16 $0, $1, %tile_f2_0; }"
// CHECK: "max.NaN.xorsign.abs.f16 $0, $1, $2;"
// CHECK: "max.xorsign.abs.f16 $0, $1, $2;"
// CHECK: "max.NaN.xorsign.abs.f16 $0, $1, $2;"
// CHECK: "min.NaN.xorsign.abs.f16 $0, $1, $2;"
// ALWAYS-LABEL: gpu.func @relu_fusion
// ALWAYS-COUNT-5: max.s16 %tile_f1_0, $1, -32768; max.s16 %tile_f2_0, $2, -32768; max.
// ALWAYS: "min.NaN.xorsign.abs.f16 $0, $1, $2;"
// OFF-LABEL: gpu.func @relu_fusion
// OFF-NOT: max.s16
// OFF: gpu.return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @relu_fusion(%g: memref<4xi16, 1>, %o: memref<4xi16, 1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0.0 : f16
      %ai = tile.instr "ld.global.b16"() [%g[%c0] : memref<4xi16, 1>] : () -> i16
      %bi = tile.instr "ld.global.b16"() [%g[%c1] : memref<4xi16, 1>] : () -> i16
      %a = arith.bitcast %ai : i16 to f16
      %b = arith.bitcast %bi : i16 to f16
      %p = tile.instr "mul.rn.f16"(%a, %b) : (f16, f16) -> f16
      // expected-warning @+1 {{fold-barriers=off leaves max.NaN.xorsign.abs.f16 exposed to the relu-fusion fold: ptxas -O3 fuses an add, sub, mul or fma of halves and a max.NaN.xorsign.abs of it with +0 into an FMA with .relu, which drops the xorsign.abs (docs/difftest.md, finding 14)}}
      %d0 = tile.instr "max.NaN.xorsign.abs.f16"(%p, %z) : (f16, f16) -> f16
      // expected-warning @+1 {{exposed to the relu-fusion fold}}
      %d1 = tile.instr "max.NaN.xorsign.abs.f16"(%z, %p) : (f16, f16) -> f16
      %d2 = tile.instr "max.NaN.xorsign.abs.f16"(%p, %b) : (f16, f16) -> f16
      %d3 = tile.instr "max.xorsign.abs.f16"(%p, %z) : (f16, f16) -> f16
      %d4 = tile.instr "max.NaN.xorsign.abs.f16"(%a, %z) : (f16, f16) -> f16
      %d5 = tile.instr "min.NaN.xorsign.abs.f16"(%p, %z) : (f16, f16) -> f16
      %s0 = arith.addf %d0, %d1 : f16
      %s1 = arith.addf %s0, %d2 : f16
      %s2 = arith.addf %s1, %d3 : f16
      %s3 = arith.addf %s2, %d4 : f16
      %s4 = arith.addf %s3, %d5 : f16
      %si = arith.bitcast %s4 : f16 to i16
      tile.instr "st.global.b16"(%si) [%o[%c0] : memref<4xi16, 1>] : (i16) -> ()
      gpu.return
    }
  }
}
