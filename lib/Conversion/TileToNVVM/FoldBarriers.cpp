//===- FoldBarriers.cpp - Where the measured ptxas folds need a barrier ---===//
//
// Every measured fold (docs/difftest.md, findings 2, 4, 5 and 6) has a
// producer that ptxas can see: an instruction of the same kernel that
// computes the value. A load, a kernel parameter, a special register or a
// constant is not one, so a cvt of a loaded value needs no barrier. Values
// are followed through what only moves bits (mov, bitcasts, casts), and
// what cannot be followed (a tile kept in memory, a loop-carried value)
// keeps the barrier.
//
//===----------------------------------------------------------------------===//

#include "FoldBarriers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// What may have produced a value. A load, a parameter, a special register
/// or a constant is none of these (no bit).
enum ProducerKind : uint8_t {
  /// Nothing the compiler can follow: a tile in memory, a loop-carried
  /// value. It may be any instruction.
  Unseen = 1,
  IntegerResult = 2,
  ScalarFloatResult = 4,
  PackedFloatResult = 8,
};

uint8_t kindOfType(StringRef ptxType) {
  if (!ptx::isFloatType(ptxType))
    return IntegerResult;
  return ptx::isPackedType(ptxType) ? PackedFloatResult : ScalarFloatResult;
}

uint8_t kindOfType(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return isa<FloatType>(vector.getElementType()) ? PackedFloatResult
                                                   : IntegerResult;
  return isa<FloatType>(type) ? ScalarFloatResult : IntegerResult;
}

bool matches(uint8_t kinds, ptx::FoldProducers producers) {
  switch (producers) {
  case ptx::FoldProducers::Computation:
    return kinds != 0;
  case ptx::FoldProducers::FloatResult:
    return kinds & (Unseen | ScalarFloatResult | PackedFloatResult);
  case ptx::FoldProducers::ScalarFloatResult:
    return kinds & (Unseen | ScalarFloatResult);
  case ptx::FoldProducers::Marked:
    return true;
  }
  llvm_unreachable("unknown producers");
}

/// Ops that only move bits: their result has the producers of their
/// operands. Besides casts, the shifts, truncations, extensions and ors
/// --tile-expand builds for a dtype view of registers (kViewBitsAttrName);
/// the same ops written by the user (T.ewise) are computations.
bool movesBits(Operation *op) {
  return isa<arith::BitcastOp, LLVM::BitcastOp, UnrealizedConversionCastOp>(
             op) ||
         op->hasAttr(kViewBitsAttrName);
}

/// A memory space whose loads ptxas cannot trace to a store of the same
/// kernel it would fold: global, shared, constant and parameter memory.
/// Local memory (a tile kept in memory) and generic addresses may hold a
/// register's value that ptxas forwards.
bool isOpaqueSpace(ptx::Space space) {
  return space == ptx::Space::Global || space == ptx::Space::Shared ||
         space == ptx::Space::Const || space == ptx::Space::Param;
}

bool isOpaqueSpace(MemRefType type) {
  std::optional<unsigned> space = getAddressSpace(type);
  return space && (*space == kGlobalAddressSpace ||
                   *space == kSharedAddressSpace ||
                   *space == kConstAddressSpace);
}

} // namespace

std::optional<FoldBarrierMode> mlir::tile::parseFoldBarrierMode(StringRef text) {
  if (text == "auto")
    return FoldBarrierMode::Auto;
  if (text == "always")
    return FoldBarrierMode::Always;
  if (text == "off")
    return FoldBarrierMode::Off;
  return std::nullopt;
}

uint8_t FoldBarriers::producersOf(Value value) {
  auto it = producers.find(value);
  if (it != producers.end())
    return it->second;
  uint8_t kinds = computeProducers(value);
  producers[value] = kinds;
  return kinds;
}

uint8_t FoldBarriers::computeProducers(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // A kernel parameter. Any other block argument is carried around a loop
    // or across a branch, or is the parameter of a device function, which
    // ptxas may inline into a caller that computes it.
    auto func = dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
    return func && func.isKernel() && arg.getOwner()->isEntryBlock() ? 0
                                                                     : Unseen;
  }
  Operation *def = value.getDefiningOp();
  if (matchPattern(value, m_Constant()) ||
      isa<LLVM::UndefOp, LLVM::PoisonOp>(def))
    return 0;
  // Special registers.
  if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
          gpu::LaneIdOp>(def) ||
      (def->getName().getDialectNamespace() == "nvvm" &&
       def->getNumOperands() == 0))
    return 0;
  uint8_t kinds = 0;
  if (movesBits(def)) {
    for (Value operand : def->getOperands())
      kinds |= producersOf(operand);
    return kinds;
  }
  if (auto load = dyn_cast<memref::LoadOp>(def))
    return isOpaqueSpace(load.getMemRefType()) ? 0 : Unseen;
  auto instr = dyn_cast<InstrOp>(def);
  if (!instr)
    // Any other op is a computation ptxas sees: T.ewise's arith and math.
    return kindOfType(value.getType());
  std::string error;
  const ptx::Form *form = instr.lookupForm(error);
  if (!form)
    return Unseen;
  if (form->family == "ld")
    return isOpaqueSpace(form->operands[*form->memoryOperand()].space)
               ? 0
               : Unseen;
  if (form->family == "mov") {
    // A move, a pack or an unpack: the bits of its sources.
    for (Value input : instr.getInputs())
      kinds |= producersOf(input);
    return kinds;
  }
  InstrRegisters registers = getInstrRegisters(*form);
  unsigned result = cast<OpResult>(value).getResultNumber();
  return kindOfType(registers.written[result]->type);
}

bool FoldBarriers::reachesFloatRead(Value value) {
  auto it = floatReads.find(value);
  if (it != floatReads.end())
    return it->second;
  // A value reaches itself only through a block argument, which counts as
  // unseen below; the entry guards the recursion regardless.
  floatReads[value] = true;
  bool reaches = computeFloatRead(value);
  floatReads[value] = reaches;
  return reaches;
}

bool FoldBarriers::computeFloatRead(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (movesBits(user)) {
      for (Value result : user->getResults())
        if (reachesFloatRead(result))
          return true;
      continue;
    }
    auto instr = dyn_cast<InstrOp>(user);
    if (!instr) {
      // A value stored to memory, yielded or passed to a block is read
      // where this analysis does not look; any other op reads it as its
      // type says.
      if (isa<memref::StoreOp, LLVM::StoreOp, RegionBranchOpInterface,
              BranchOpInterface>(user) ||
          user->hasTrait<OpTrait::IsTerminator>() ||
          isa<FloatType>(use.get().getType()))
        return true;
      continue;
    }
    std::string error;
    const ptx::Form *form = instr.lookupForm(error);
    if (!form)
      return true;
    InstrRegisters registers = getInstrRegisters(*form);
    unsigned number = use.getOperandNumber();
    auto positionIn = [&](OperandRange range) -> std::optional<unsigned> {
      if (range.empty() || number < range.getBeginOperandIndex() ||
          number >= range.getBeginOperandIndex() + range.size())
        return std::nullopt;
      return number - range.getBeginOperandIndex();
    };
    if (std::optional<unsigned> kept = positionIn(instr.getKeep())) {
      // A predicated instruction that does not run leaves it in its result.
      if (reachesFloatRead(instr.getResult(registers.kept[*kept])))
        return true;
      continue;
    }
    std::optional<unsigned> input = positionIn(instr.getInputs());
    // An address or a predicate is not read as a float.
    if (!input)
      continue;
    if (form->family == "mov") {
      for (Value result : instr.getResults())
        if (reachesFloatRead(result))
          return true;
      continue;
    }
    const ptx::Operand *operand = registers.read[*input];
    if (form->family != "st" && ptx::isFloatType(operand->type))
      return true;
  }
  return false;
}

bool FoldBarriers::needsBarrier(const ptx::FoldClass &foldClass, Value value) {
  if (foldClass.consumers == ptx::FoldConsumers::FloatRead)
    return reachesFloatRead(value);
  return matches(producersOf(value), foldClass.producers);
}

void FoldBarriers::warnExposed(InstrOp op, const ptx::FoldClass &foldClass) {
  if (!warned
           .insert({op.getLoc().getAsOpaquePointer(),
                    static_cast<unsigned>(foldClass.fold)})
           .second)
    return;
  op.emitWarning() << "fold-barriers=off leaves " << op.getOpcode()
                   << " exposed to the " << foldClass.name << " fold: "
                   << foldClass.effect << " (" << foldClass.finding << ")";
}

uint64_t FoldBarriers::choose(InstrOp op, const ptx::Form &form) {
  uint64_t chosen = 0;
  unsigned bit = 0, input = 0, result = 0;
  for (const ptx::Operand &operand : form.operands) {
    if (operand.isMemory())
      continue;
    if (operand.role == ptx::Role::Imm) {
      ++input;
      continue;
    }
    for (unsigned reg = 0; reg < operand.count; ++reg, ++bit) {
      Value value = operand.isWritten() ? op->getResult(result)
                                        : op.getInputs()[input];
      if (operand.isRead())
        ++input;
      if (operand.isWritten())
        ++result;
      if (operand.fold == ptx::Fold::None)
        continue;
      assert(bit < 64 && "a fold operand past a form's 64th register");
      if (mode == FoldBarrierMode::Always) {
        chosen |= uint64_t(1) << bit;
        continue;
      }
      const ptx::FoldClass &foldClass = ptx::foldClassOf(operand.fold);
      if (!needsBarrier(foldClass, value))
        continue;
      if (mode == FoldBarrierMode::Off)
        warnExposed(op, foldClass);
      else
        chosen |= uint64_t(1) << bit;
    }
  }
  return chosen;
}
