#ifndef TILE_CONVERSION_TILETONVVM_TILETONVVM_H
#define TILE_CONVERSION_TILETONVVM_TILETONVVM_H

#include "mlir/Pass/Pass.h"
#include "tile/PTX/Forms.h"

#include <string>

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;

namespace tile {

#define GEN_PASS_DECL_CONVERTTILETONVVM
#include "tile/Conversion/Passes.h.inc"

/// The inline-asm text and constraint string of one instruction of `form`.
/// Outputs (dst and rw registers) are numbered first, then the source
/// registers and immediates in operand order, the address, the predicate,
/// the inputs tied to rw registers and the tied previous destinations, in
/// that order. A non-zero
/// `addressOffset` is added to the address as an immediate ([$n+8]). Bit k
/// of `barriers` puts the fold barrier of its class (ptx::Fold) on the k-th
/// register of the form's register operands, counted in operand order
/// without immediates and memory operands, where that operand has a class;
/// the default guards every such register.
struct InlineAsm {
  std::string text;
  std::string constraints;
};
InlineAsm buildInlineAsm(const ptx::Form &form, bool predicated,
                         bool preserveDst, int64_t addressOffset = 0,
                         uint64_t barriers = ~uint64_t(0));

/// The inline-asm constraint letter of a register of `bits` bits, or 0 when
/// NVPTX has none.
char constraintLetter(unsigned bits);

/// The width of the LLVM value that carries a register of `operand` through
/// inline asm: 8-bit registers travel in 16 bits.
unsigned asmRegisterBits(const ptx::Operand &operand);

/// The unit attribute that marks the llvm.ptrtoint of a tensor map's kernel
/// parameter (tile.tensor_map) for tile-tensor-map-params.
constexpr llvm::StringLiteral kTensorMapParamAttrName = "tile.tensor_map_param";

/// Patterns that turn tile.view and tile.broadcast into memref descriptor
/// updates, and tile.swizzle, tile.matrix_descriptor and tile.tensor_map
/// into LLVM values. tile.instr is lowered by the pass itself, a 1:1 walk.
void populateTileToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns);

} // namespace tile
} // namespace mlir

#endif
