// RUN: tile-opt %s --tile-expand -split-input-file | FileCheck %s

// A register slice at a runtime offset has no slot known at compile time:
// the tile keeps its memory and the slot is addressed when the kernel runs
// (forwarding once dropped the write and stored an undefined register).
// CHECK-LABEL: func.func @runtime_slice
// CHECK-SAME: (%[[G:.*]]: memref<4x1xf32, 1>, %[[O:.*]]: memref<1x1xf32, 1>, %[[T:.*]]: index)
// CHECK: %[[R:.*]] = memref.alloca() : memref<4x1xf32, 5>
// CHECK: %[[X:.*]] = tile.instr "ld.global.f32"
// CHECK: memref.store %[[X]], %[[R]]
// CHECK: %[[S:.*]] = memref.subview %[[R]][%[[T]], 0]
// CHECK: %[[V:.*]] = memref.load %[[S]]
// CHECK: %[[N:.*]] = tile.instr "neg.f32"(%[[V]])
// CHECK: memref.store %[[N]], %[[S]]
// CHECK: %[[W:.*]] = memref.load %[[S]]
// CHECK: tile.instr "st.global.f32"(%[[W]]) [%[[O]]
// CHECK-NOT: llvm.mlir.undef
func.func @runtime_slice(%g: memref<4x1xf32, 1>, %o: memref<1x1xf32, 1>, %t: index) {
  %r = memref.alloca() : memref<4x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
  %s = memref.subview %r[%t, 0] [1, 1] [1, 1] : memref<4x1xf32, 5> to memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
  tile.apply "neg.f32"(%s, %s) : memref<1x1xf32, strided<[1, 1], offset: ?>, 5>, memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
  tile.apply "st.global.f32"(%o, %s) : memref<1x1xf32, 1>, memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
  return
}

// -----

// The same for a broadcast of such a slice.
// CHECK-LABEL: func.func @runtime_broadcast
// CHECK: memref.alloca() : memref<4x1xf32, 5>
// CHECK: tile.broadcast
// CHECK-COUNT-4: memref.load
// CHECK-NOT: llvm.mlir.undef
func.func @runtime_broadcast(%g: memref<4x1xf32, 1>, %o: memref<4x1xf32, 1>, %t: index) {
  %r = memref.alloca() : memref<4x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
  %s = memref.subview %r[%t, 0] [1, 1] [1, 1] : memref<4x1xf32, 5> to memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
  %b = tile.broadcast %s : memref<1x1xf32, strided<[1, 1], offset: ?>, 5> to memref<4x1xf32, strided<[0, 1], offset: ?>, 5>
  tile.apply "st.global.f32"(%o, %b) : memref<4x1xf32, 1>, memref<4x1xf32, strided<[0, 1], offset: ?>, 5>
  return
}

// -----

// A hand-written subview at a runtime index, read with memref.load.
// CHECK-LABEL: func.func @runtime_subview_load
// CHECK: %[[R:.*]] = memref.alloca() : memref<4x1xf32, 5>
// CHECK: memref.store {{.*}}, %[[R]]
// CHECK: %[[S:.*]] = memref.subview %[[R]]
// CHECK: memref.load %[[S]]
func.func @runtime_subview_load(%g: memref<4x1xf32, 1>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %r = memref.alloca() : memref<4x1xf32, 5>
  tile.apply "ld.global.f32"(%r, %g) : memref<4x1xf32, 5>, memref<4x1xf32, 1>
  %s = memref.subview %r[%i, 0] [1, 1] [1, 1] : memref<4x1xf32, 5> to memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
  %v = memref.load %s[%c0, %c0] : memref<1x1xf32, strided<[1, 1], offset: ?>, 5>
  return %v : f32
}

// -----

// Unsigned carriers read before any write read the zero of their signless
// twin, cast the way the lowering casts such carriers.
// CHECK-LABEL: func.func @unsigned_undefined
// CHECK: %[[U:.*]] = arith.constant 0 : i32
// CHECK: %[[C:.*]] = builtin.unrealized_conversion_cast %[[U]] : i32 to ui32
// CHECK: tile.instr "st.global.b32"(%[[C]])
func.func @unsigned_undefined(%g: memref<1x1xui32, 1>) {
  %r = memref.alloca() : memref<1x1xui32, 5>
  tile.apply "st.global.b32"(%g, %r) : memref<1x1xui32, 1>, memref<1x1xui32, 5>
  return
}

// -----

// An empty repeat axis expands to nothing, however large the other axis
// (2^40 index constants ran out of memory).
// CHECK-LABEL: func.func @empty_axis
// CHECK-NEXT: return
func.func @empty_axis(%r: memref<0x1099511627776x1xf32, 5>) {
  tile.apply "abs.f32"(%r, %r) : memref<0x1099511627776x1xf32, 5>, memref<0x1099511627776x1xf32, 5>
  return
}

// -----

// A slot in memory is accessed at its natural alignment: MLIR would
// otherwise translate a 64-bit access as 4-aligned, NVPTX split it into two
// st.local.b32 of a 64-bit register, and ptxas (CUDA 13.0) assembles that
// wrongly (found by tools/difftest on the H200).
// CHECK-LABEL: func.func @aligned_slots
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<4x1xi64, 5>
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<1x1xi64, strided<[1, 1], offset: ?>, 5>
func.func @aligned_slots(%g: memref<4x1xi64, 1>, %o: memref<1x1xi64, 1>, %t: index) {
  %r = memref.alloca() : memref<4x1xi64, 5>
  tile.apply "ld.global.b64"(%r, %g) : memref<4x1xi64, 5>, memref<4x1xi64, 1>
  %s = memref.subview %r[%t, 0] [1, 1] [1, 1] : memref<4x1xi64, 5> to memref<1x1xi64, strided<[1, 1], offset: ?>, 5>
  tile.apply "st.global.b64"(%o, %s) : memref<1x1xi64, 1>, memref<1x1xi64, strided<[1, 1], offset: ?>, 5>
  return
}

// -----

// A predicate tile that keeps its memory is stored as bytes: upstream
// MemRefToLLVM asserts on a store of i1 (the Python API aborted).
// CHECK-LABEL: func.func @runtime_predicate
// CHECK: %[[P:.*]] = memref.alloca() : memref<4x1xi8, 5>
// CHECK: %[[S:.*]] = memref.subview %[[P]][%{{.*}}, 0] [1, 1] [1, 1] : memref<4x1xi8, 5> to memref<1x1xi8, strided<[1, 1], offset: ?>, 5>
// CHECK: %[[T:.*]] = tile.instr "setp.lt.u32"
// CHECK: %[[B:.*]] = arith.extui %[[T]] : i1 to i8
// CHECK: memref.store %[[B]], %[[S]]
// CHECK: %[[L:.*]] = memref.load %[[P]]
// CHECK: %[[Q:.*]] = arith.trunci %[[L]] : i8 to i1
// CHECK: tile.instr "neg.s32"(%{{.*}}) if %[[Q]]
func.func @runtime_predicate(%a: memref<4x1xi32, 5>, %t: index) {
  %p = memref.alloca() : memref<4x1xi1, 5>
  %s = memref.subview %p[%t, 0] [1, 1] [1, 1] : memref<4x1xi1, 5> to memref<1x1xi1, strided<[1, 1], offset: ?>, 5>
  %as = memref.subview %a[%t, 0] [1, 1] [1, 1] : memref<4x1xi32, 5> to memref<1x1xi32, strided<[1, 1], offset: ?>, 5>
  %c = arith.constant 7 : i32
  tile.apply "setp.lt.u32"(%s, %as, %c) : memref<1x1xi1, strided<[1, 1], offset: ?>, 5>, memref<1x1xi32, strided<[1, 1], offset: ?>, 5>, i32
  tile.apply "neg.s32"(%a, %a) if (%p : memref<4x1xi1, 5>) : memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}
