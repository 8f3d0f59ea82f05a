// RUN: tile-opt %s --tile-expand -split-input-file -verify-diagnostics

// Elements narrower than a byte have no memory outside register tiles:
// upstream MemRefToLLVM would assert on this store.
func.func @global_predicates(%g: memref<4xi1, 1>, %v: i1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.store' op accesses 'memref<4xi1, 1>' in memory: elements narrower than a byte are stored only in register tiles (address space 5)}}
  memref.store %v, %g[%c0] : memref<4xi1, 1>
  return
}

// -----

// A use of a kept predicate tile that cannot be retyped to bytes.
func.func @predicate_tile_called(%t: index) {
  %p = memref.alloca() : memref<4x1xi1, 5>
  %s = memref.subview %p[%t, 0] [1, 1] [1, 1] : memref<4x1xi1, 5> to memref<1x1xi1, strided<[1, 1], offset: ?>, 5>
  // expected-error @+1 {{'func.call' op uses a predicate tile that keeps its memory; only loads, stores and views of it can be stored as bytes}}
  func.call @use(%p) : (memref<4x1xi1, 5>) -> ()
  return
}
func.func private @use(memref<4x1xi1, 5>)
