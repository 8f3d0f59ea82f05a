#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let summary = "Explicit per-thread PTX register instructions over register tiles";
  let description = [{
    `tile.apply` names one exact PTX instruction form and applies it to every
    repeat of its register-tile operands. Register tiles are memrefs in the
    local (register) address space; global and shared tensors are memrefs in
    their own address spaces. `tile.instr` is one expanded instruction on SSA
    register values.
  }];
  let cppNamespace = "::mlir::tile";
  // tile.tensor_map takes its kernel parameter as an !llvm.ptr.
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []> :
    Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TD
