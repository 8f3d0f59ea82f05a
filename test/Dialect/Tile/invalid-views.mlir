// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A widening view at a runtime offset rounded the address down (it read
// A + ((2*t) & ~3) for odd t); the offset must be provably a multiple.
func.func @widening_at_runtime_offset(%a: memref<8x1xi16, 1>, %t: index) {
  %s = memref.subview %a[%t, 0] [2, 1] [1, 1] : memref<8x1xi16, 1> to memref<2x1xi16, strided<[1, 1], offset: ?>, 1>
  %c = memref.collapse_shape %s [[0, 1]] : memref<2x1xi16, strided<[1, 1], offset: ?>, 1> into memref<2xi16, strided<[1], offset: ?>, 1>
  %e = memref.expand_shape %c [[0, 1]] output_shape [1, 2] : memref<2xi16, strided<[1], offset: ?>, 1> into memref<1x2xi16, strided<[2, 1], offset: ?>, 1>
  // expected-error @+1 {{'tile.view' op a view to 32-bit elements needs an offset that is a multiple of 2 16-bit elements, and the runtime offset of 'memref<1x2xi16, strided<[2, 1], offset: ?>, 1>' is not provably one; write the index as such a multiple (e.g. 2 * t)}}
  %w = tile.view %e : memref<1x2xi16, strided<[2, 1], offset: ?>, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
  return
}

// -----

// 2 * t is provably even.
func.func @widening_at_even_offset(%a: memref<8x1xi16, 1>, %t: index) {
  %c2 = arith.constant 2 : index
  %o = arith.muli %t, %c2 : index
  %s = memref.subview %a[%o, 0] [2, 1] [1, 1] : memref<8x1xi16, 1> to memref<2x1xi16, strided<[1, 1], offset: ?>, 1>
  %c = memref.collapse_shape %s [[0, 1]] : memref<2x1xi16, strided<[1, 1], offset: ?>, 1> into memref<2xi16, strided<[1], offset: ?>, 1>
  %e = memref.expand_shape %c [[0, 1]] output_shape [1, 2] : memref<2xi16, strided<[1], offset: ?>, 1> into memref<1x2xi16, strided<[2, 1], offset: ?>, 1>
  %w = tile.view %e : memref<1x2xi16, strided<[2, 1], offset: ?>, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
  return
}

// -----

// A narrowing view scales any offset exactly.
func.func @narrowing_at_runtime_offset(%a: memref<8x1xi32, 1>, %t: index) {
  %s = memref.subview %a[%t, 0] [1, 1] [1, 1] : memref<8x1xi32, 1> to memref<1x1xi32, strided<[1, 1], offset: ?>, 1>
  %h = tile.view %s : memref<1x1xi32, strided<[1, 1], offset: ?>, 1> to memref<1x2xi16, strided<[2, 1], offset: ?>, 1>
  return
}

// -----

func.func @zero_width(%r: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.view' op a view reinterprets integer or float elements of a nonzero width}}
  %v = tile.view %r : memref<4x1xi32, 5> to memref<4x1xi0, 5>
  return
}

// -----

func.func @broadcast_index(%r: memref<1x1xindex, 5>) {
  // expected-error @+1 {{'tile.broadcast' op a broadcast repeats integer or float elements of a nonzero width, got 'index'}}
  %b = tile.broadcast %r : memref<1x1xindex, 5> to memref<4x1xindex, strided<[0, 1]>, 5>
  return
}
