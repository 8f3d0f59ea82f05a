// RUN: tile-opt %s --tile-extern-dynamic-shared | FileCheck %s

// The dynamic region convert-gpu-to-nvvm declares becomes external (PTX's
// .extern .shared array), aligned to 1024 bytes (the 128-byte swizzle's
// repeat, for wgmma and TMA); static shared arrays and other spaces stay.
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_buffer() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK: llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
llvm.mlir.global internal @static_buffer() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
