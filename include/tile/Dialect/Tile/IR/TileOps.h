#ifndef TILE_DIALECT_TILE_IR_TILEOPS_H
#define TILE_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/PTX/Forms.h"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::gpu {
enum class AddressSpace : uint32_t;
} // namespace mlir::gpu

namespace mlir::tile {

/// Address spaces of tile operands, as numbered by NVPTX. Register tiles are
/// memrefs in the local space; --tile-expand forwards their slots as SSA
/// values where it can, and LLVM promotes the rest to registers.
constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;
/// The .shared::cluster window: another block's shared memory, which
/// tile.mapa maps a shared tile to.
constexpr unsigned kSharedClusterAddressSpace = 7;
constexpr unsigned kRegisterAddressSpace = 5;
/// NVPTX's constant and kernel-parameter spaces, for ld.const and
/// ld/st.param (a tile has no way to make a param-space memref yet).
constexpr unsigned kConstAddressSpace = 4;
constexpr unsigned kParamAddressSpace = 101;

/// The NVPTX address space of a memref, or std::nullopt when its memory space
/// is neither an integer nor a GPU global/workgroup space.
std::optional<unsigned> getAddressSpace(MemRefType type);
std::optional<unsigned> getAddressSpace(gpu::AddressSpace space);

/// The chips that gate `op`: the closest `tile.target` string attribute on
/// an ancestor, else the chip of every NVVM target of the enclosing
/// gpu.module; empty when neither names one.
SmallVector<StringRef> getTargetChipsFor(Operation *op);

/// The name of the attribute that names a target explicitly.
constexpr llvm::StringLiteral kTargetAttrName = "tile.target";

/// The attribute on a register tile's memref.alloca naming the scope whose
/// group owns it ("warp", "warpgroup", "cta"); absent means "thread".
constexpr llvm::StringLiteral kScopeAttrName = "tile.scope";

/// The attribute --tile-expand puts on the arith ops that take bits out of a
/// forwarded register or put them in, where a tile.view reads or writes a
/// part of a register (or several): the fold-barrier analysis follows values
/// through them as through a mov.
constexpr llvm::StringLiteral kViewBitsAttrName = "tile.view_bits";

/// The leading group axes of operands at `scope`: () for thread, (32) for
/// warp, (4, 32) for warpgroup, (W, 32) for cta with W the warps of the
/// block (ShapedType::kDynamic when the block size is unknown). Returns
/// std::nullopt for an unknown scope.
std::optional<SmallVector<int64_t>> getScopeGroupShape(StringRef scope,
                                                        Operation *op);

/// The form among `forms` (ptx::lookupForms: the primary form, then its
/// overloads) that an apply's operands select by their register counts and
/// widths; the primary form when none fits, so that its diagnostics explain
/// what is wrong.
const ptx::Form &selectForm(ArrayRef<ptx::Form> forms, ValueRange args);

/// One entry per register or immediate of an instruction, in the order
/// tile.instr binds them: the operand it belongs to.
struct InstrRegisters {
  /// Registers written: tile.instr's results (dst and rw operands).
  SmallVector<const ptx::Operand *> written;
  /// Values read: tile.instr's inputs (src and rw registers, immediates,
  /// and the 64-bit address of a second memory operand).
  SmallVector<const ptx::Operand *> read;
  /// The positions in `written` of the dst registers: what `keep`
  /// preserves (an rw register keeps its value by being read).
  SmallVector<unsigned> kept;
};
InstrRegisters getInstrRegisters(const ptx::Form &form);

/// The element that constant `indices` address in a memref of static strided
/// layout, counted from its allocation's aligned base; std::nullopt when an
/// index or the layout is not static.
std::optional<int64_t> getStaticElementOffset(MemRefType type, ValueRange indices);

/// The threads of the block of the gpu.func around `op`, when it declares a
/// known_block_size: 0 when a size is not positive, and kMaxBlockThreads + 1
/// for any product larger than kMaxBlockThreads.
std::optional<int64_t> getKnownBlockThreads(Operation *op);

/// The most threads a CUDA block holds.
constexpr int64_t kMaxBlockThreads = 1024;

/// The static shared memory (workgroup attributions) one kernel may declare:
/// 48 KiB, which ptxas (CUDA 13.0) takes on every target (measured).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// The gpu.func attribute declaring the bytes of dynamic shared memory its
/// launches give it (T.alloc_dynamic_shared): tile-attach-target checks the
/// buffers carved from gpu.dynamic_shared_memory against it and the total
/// against the target; the runtime and the interpreter size the region by
/// it.
constexpr llvm::StringLiteral kDynamicSharedAttrName =
    "tile.dynamic_shared_bytes";

/// Whether the static sizes of `type` multiply past int64: such a type has
/// no strides MLIR can compute, and asking for them asserts.
bool hasElementCountOverflow(MemRefType type);

/// The rules a register tile meets wherever thread code reads or writes it
/// outside tile.apply (the script front end's ewise): the register space, a
/// static strided layout, ownership by the issuing thread (traced through
/// views to the allocation, as an apply at thread scope checks it), and, for
/// a destination, a register of its own for every element. Emits through
/// `diag` and fails at the first rule broken.
LogicalResult
verifyThreadRegisterTile(llvm::function_ref<InFlightDiagnostic()> diag,
                         Value tile, bool destination);

/// The swizzle a shared view addresses through: the tile.swizzle it was
/// taken from by subviews, reshapes, tile.view and tile.broadcast, which
/// keep the buffer's start; nullptr when there is none. (A swizzle's
/// verifier admits no other view between it and an instruction.)
SwizzleOp getSwizzle(Value memref);

} // namespace mlir::tile
#endif
