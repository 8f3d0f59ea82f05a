#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileExpand : Pass<"tile-expand"> {
  let summary = "unroll tile.apply into one tile.instr per repeat";
  let description = [{
    For each row-major repeat coordinate of a `tile.apply`, binds each tile's
    final register axis in increasing order and emits exactly one
    `tile.instr`, with explicit slot loads before it and slot stores after it.
    Scalar inputs are reused. Nothing else is inserted.

    A register tile (`memref.alloca` in address space 5, static shape) whose
    every use, through subviews, reshapes and broadcasts of its element type,
    is a `tile.apply` or a constant-index `memref.load`/`memref.store` in the
    tile's block needs no memory: its slots are forwarded as SSA values (each
    read takes the value last written to the slot, `llvm.mlir.undef` before
    any write) and the tile is erased. The expansion is then one op per
    instruction and LLVM receives SSA registers instead of an alloca to take
    apart. Tiles read through a `tile.view` or used in nested regions keep
    their loads and stores; a predicate (`i1`) tile that keeps them is
    stored as bytes (its allocation and views become `i8`, a load
    truncates, a store extends), since no memory holds a lone bit.

    ```mlir
    tile.apply "abs.f32"(%d, %s) : memref<2x1xf32, 5>, memref<2x1xf32, 5>
    ```
    becomes
    ```mlir
    %0 = memref.load %s[%c0, %c0] : memref<2x1xf32, 5>
    %1 = tile.instr "abs.f32"(%0) : (f32) -> f32
    memref.store %1, %d[%c0, %c0] : memref<2x1xf32, 5>
    %2 = memref.load %s[%c1, %c0] : memref<2x1xf32, 5>
    %3 = tile.instr "abs.f32"(%2) : (f32) -> f32
    memref.store %3, %d[%c1, %c0] : memref<2x1xf32, 5>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TileAttachTarget : Pass<"tile-attach-target", "::mlir::ModuleOp"> {
  let summary = "give every gpu.module an NVVM target with a sufficient PTX ISA version";
  let description = [{
    A gpu.module without targets gets `#nvvm.target` for `chip`. A gpu.module
    whose NVVM target names no PTX ISA version gets the lowest version that
    its chip and every tile instruction in it need (or `ptx`, if given), so
    forms such as `cvt.rn.satfinite.e4m3x2.f32` (PTX ISA 8.1) are emitted
    with a version that has them.
  }];
  let options = [
    Option<"chip", "chip", "std::string", [{"sm_90"}],
           "the chip for gpu.modules that have no target">,
    Option<"ptxVersion", "ptx", "unsigned", "0",
           "PTX ISA version times ten (e.g. 86); 0 picks the lowest that works">,
    Option<"optLevel", "O", "unsigned", "3", "LLVM optimization level">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

#endif
