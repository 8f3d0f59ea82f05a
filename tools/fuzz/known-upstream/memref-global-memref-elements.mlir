// MLIR 22.1.8's memref.global parser builds a tensor type for the initial
// value from the memref's element type; with memref elements the type is
// invalid and TensorType::get asserts ("invalid tensor element type", then
// StorageUniquerSupport.h:179). `mlir-opt` on this file aborts the same way.
// Found by tools/fuzz mutating test/PTX/qualifier_orders.mlir.
memref.global "private" constant @table : memref<1x1xmemref<2xf32>, 4> = dense<7>
