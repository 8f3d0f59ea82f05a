// RUN: tile-opt %s --tile-expand -split-input-file | FileCheck %s

// A register tile used only in its block needs no memory: each read takes
// the value last written to its slot, and the tile is gone.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[G:.*]]: memref<2x1xf32, 1>)
// CHECK-NOT: memref.alloca
// CHECK: %[[X0:.*]] = tile.instr "ld.global.f32"() [%[[G]]
// CHECK: %[[X1:.*]] = tile.instr "ld.global.f32"() [%[[G]]
// CHECK: %[[A0:.*]] = tile.instr "abs.f32"(%[[X0]])
// CHECK: %[[A1:.*]] = tile.instr "abs.f32"(%[[X1]])
// CHECK: tile.instr "st.global.f32"(%[[A0]])
// CHECK: tile.instr "st.global.f32"(%[[A1]])
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store
func.func @chain(%g: memref<2x1xf32, 1>) {
  %r = memref.alloca() : memref<2x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) : memref<2x1xf32, 5>, memref<2x1xf32, 1>
  tile.apply "abs.f32"(%r, %r) : memref<2x1xf32, 5>, memref<2x1xf32, 5>
  tile.apply "st.global.f32"(%g, %r) : memref<2x1xf32, 1>, memref<2x1xf32, 5>
  return
}

// -----

// Subviews address the same slots: the high half of each pair is [i][1].
// CHECK-LABEL: func.func @through_subviews
// CHECK: %[[V:.*]]:2 = tile.instr "ld.global.v2.f32"
// CHECK: tile.instr "cvt.rn.f16x2.f32"(%[[V]]#1, %[[V]]#0)
// CHECK-NOT: memref.alloca
func.func @through_subviews(%g: memref<1x2xf32, 1>, %o: memref<1x1xi32, 1>) {
  %a = memref.alloca() : memref<1x2xf32, 5>
  %d = memref.alloca() : memref<1x1xi32, 5>
  tile.apply "ld.global.v2.f32"(%a, %g) : memref<1x2xf32, 5>, memref<1x2xf32, 1>
  %hi = memref.subview %a[0, 1] [1, 1] [1, 1] : memref<1x2xf32, 5> to memref<1x1xf32, strided<[2, 1], offset: 1>, 5>
  %lo = memref.subview %a[0, 0] [1, 1] [1, 1] : memref<1x2xf32, 5> to memref<1x1xf32, strided<[2, 1]>, 5>
  tile.apply "cvt.rn.f16x2.f32"(%d, %hi, %lo) : memref<1x1xi32, 5>, memref<1x1xf32, strided<[2, 1], offset: 1>, 5>, memref<1x1xf32, strided<[2, 1]>, 5>
  tile.apply "st.global.b32"(%o, %d) : memref<1x1xi32, 1>, memref<1x1xi32, 5>
  return
}

// -----

// A read before any write reads zero (one of the values the ISA allows;
// ptxas mishandles an undefined source: docs/difftest.md, finding 12).
// CHECK-LABEL: func.func @uninitialized
// CHECK-NOT: llvm.mlir.undef
// CHECK: %[[U:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: tile.instr "neg.f32"(%[[U]])
func.func @uninitialized(%g: memref<1x1xf32, 1>) {
  %r = memref.alloca() : memref<1x1xf32, 5>
  tile.apply "neg.f32"(%r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  tile.apply "st.global.f32"(%g, %r) : memref<1x1xf32, 1>, memref<1x1xf32, 5>
  return
}

// -----

// A tile read through a dtype view is forwarded too: each half of the
// loaded word is taken out of it (marked for the fold-barrier analysis).
// CHECK-LABEL: func.func @viewed
// CHECK-NOT: memref.alloca
// CHECK: %[[W:.*]] = tile.instr "ld.global.b32"
// CHECK: %[[LO:.*]] = arith.trunci %[[W]] {tile.view_bits} : i32 to i16
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[S:.*]] = arith.shrui %[[W]], %[[C16]] {tile.view_bits} : i32
// CHECK: %[[HI:.*]] = arith.trunci %[[S]] {tile.view_bits} : i32 to i16
// CHECK: tile.instr "st.global.v2.b16"(%[[LO]], %[[HI]])
// CHECK-NOT: tile.view
func.func @viewed(%g: memref<1x1xi32, 1>, %o: memref<1x2xi16, 1>) {
  %w = memref.alloca() : memref<1x1xi32, 5>
  tile.apply "ld.global.b32"(%w, %g) : memref<1x1xi32, 5>, memref<1x1xi32, 1>
  %h = tile.view %w : memref<1x1xi32, 5> to memref<1x2xi16, 5>
  tile.apply "st.global.v2.b16"(%o, %h) : memref<1x2xi16, 1>, memref<1x2xi16, 5>
  return
}

// -----

// Hand-written slot accesses in the tile's block are forwarded as well.
// CHECK-LABEL: func.func @explicit_accesses
// CHECK-SAME: (%[[G:.*]]: memref<1x1xf32, 1>, %[[X:.*]]: f32)
// CHECK: %[[N:.*]] = tile.instr "neg.f32"(%[[X]])
// CHECK: tile.instr "st.global.f32"(%[[N]])
// CHECK-NOT: memref.alloca
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store
func.func @explicit_accesses(%g: memref<1x1xf32, 1>, %x: f32) {
  %c0 = arith.constant 0 : index
  %r = memref.alloca() : memref<1x1xf32, 5>
  memref.store %x, %r[%c0, %c0] : memref<1x1xf32, 5>
  tile.apply "neg.f32"(%r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  %v = memref.load %r[%c0, %c0] : memref<1x1xf32, 5>
  memref.store %v, %g[%c0, %c0] : memref<1x1xf32, 1>
  tile.apply "st.global.f32"(%g, %r) : memref<1x1xf32, 1>, memref<1x1xf32, 5>
  return
}

// -----

// A tile used inside a loop body keeps its memory: its slots are not
// straight-line values of one block.
// CHECK-LABEL: func.func @loop_body
// CHECK: memref.alloca
// CHECK: scf.for
// CHECK: %[[V:.*]] = memref.load
// CHECK: tile.instr "abs.f32"(%[[V]])
// CHECK: memref.store
func.func @loop_body(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.alloca() : memref<1x1xf32, 5>
  scf.for %i = %c0 to %n step %c1 {
    tile.apply "abs.f32"(%r, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  }
  return
}

// -----

// A tile that ld.local/st.local address as memory keeps its storage; the
// register tile beside it is forwarded.
// CHECK-LABEL: func.func @local_memory
// CHECK: %[[M:.*]] = memref.alloca() : memref<1x1xf32, 5>
// CHECK-NOT: memref.alloca
// CHECK: %[[X:.*]] = tile.instr "ld.global.f32"()
// CHECK: tile.instr "st.local.f32"(%[[X]]) [%[[M]]
// CHECK: %[[Y:.*]] = tile.instr "ld.local.f32"() [%[[M]]
// CHECK: tile.instr "st.global.f32"(%[[Y]])
func.func @local_memory(%g: memref<1x1xf32, 1>) {
  %m = memref.alloca() : memref<1x1xf32, 5>
  %r = memref.alloca() : memref<1x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) : memref<1x1xf32, 5>, memref<1x1xf32, 1>
  tile.apply "st.local.f32"(%m, %r) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  tile.apply "ld.local.f32"(%r, %m) : memref<1x1xf32, 5>, memref<1x1xf32, 5>
  tile.apply "st.global.f32"(%g, %r) : memref<1x1xf32, 1>, memref<1x1xf32, 5>
  return
}
