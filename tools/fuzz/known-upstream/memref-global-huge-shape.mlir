// MLIR 22.1.8's memref.global parser counts the elements of its initial
// value's type and asserts on int64 overflow ("integer overflow in element
// count computation"); `mlir-opt` on this file aborts the same way. Found
// by CI's fuzz run mutating test/PTX/qualifier_orders.mlir; the fuzzer now
// files any crash that upstream mlir-opt reproduces on the minimized input
// as upstream.
memref.global "private" constant @table : memref<9223372036854775807x8xi32, 4> = dense<7>
