//===- FoldBarriers.cpp - Where the measured ptxas folds need a barrier ---===//
//
// Every measured fold (docs/difftest.md, findings 2, 4, 5 and 6) has a
// producer that ptxas can see: an instruction of the same kernel that
// computes the value. A load, a kernel parameter, a special register, a
// constant or a tensor core's result is not one, so a cvt of a loaded value
// needs no barrier, nor does a cvt of the families measured never to fold
// into one (FoldClass::unfolded). Values are followed through what only
// moves bits (mov, bitcasts, casts) and through registers kept as a tile
// (to the last store to the element where it is known, else to every value
// stored to the tile), and what cannot be followed (a tile an instruction
// accesses, a loop-carried value) keeps the barrier. The fold of finding 9
// is the other way round: it needs constants, and a value with a load, a
// kernel parameter or a special register in it is none; finding 14 needs
// both, a computed value beside a constant.
//
//===----------------------------------------------------------------------===//

#include "FoldBarriers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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
  /// A computation of a family not measured to stay apart from a cvt that
  /// reads it (the cvt-source class's `unfolded`).
  MayFoldIntoCvt = 16,
};

/// A computation by `family` of a `result` register: one of the cvt-source
/// class's unfolded families, with a scalar result of 16 or 32 bits (what
/// was measured: ptxas narrows a packed result read as a 16-bit integer,
/// and 64-bit results were not judged), folds into no cvt.
uint8_t computationKind(StringRef family, const ptx::Operand &result) {
  bool unfolded =
      llvm::is_contained(ptx::foldClassOf(ptx::Fold::CvtSource).unfolded,
                         family) &&
      !ptx::isPackedType(result.type) &&
      (result.bits == 16 || result.bits == 32);
  return unfolded ? 0 : MayFoldIntoCvt;
}

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
    return kinds & (Unseen | MayFoldIntoCvt);
  case ptx::FoldProducers::FloatResult:
    return kinds & (Unseen | ScalarFloatResult | PackedFloatResult);
  case ptx::FoldProducers::ScalarFloatResult:
    return kinds & (Unseen | ScalarFloatResult);
  case ptx::FoldProducers::Marked:
    return true;
  case ptx::FoldProducers::ConstantField:
    llvm_unreachable("constant fields are decided by constantFieldFolds");
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
         space == ptx::Space::SharedCluster || space == ptx::Space::Const ||
         space == ptx::Space::Param;
}

bool isOpaqueSpace(MemRefType type) {
  std::optional<unsigned> space = getAddressSpace(type);
  return space && (*space == kGlobalAddressSpace ||
                   *space == kSharedAddressSpace ||
                   *space == kSharedClusterAddressSpace ||
                   *space == kConstAddressSpace);
}

} // namespace

/// The memory a memref addresses: views followed back to a kernel
/// parameter, an allocation or a global.
static Value memoryRoot(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    memref = view.getViewSource();
  }
  return memref;
}

/// The memref an op stores to, or null: a tile.instr st, a memref.store.
static Value storedMemref(Operation *op) {
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getMemRef();
  auto instr = dyn_cast<InstrOp>(op);
  if (!instr || !instr.getMemref())
    return {};
  std::string error;
  const ptx::Form *form = instr.lookupForm(error);
  return !form || form->writesMemory ? instr.getMemref() : Value();
}

std::optional<FoldBarrierMode> mlir::tile::parseFoldBarrierMode(StringRef text) {
  if (text == "auto")
    return FoldBarrierMode::Auto;
  if (text == "always")
    return FoldBarrierMode::Always;
  if (text == "off")
    return FoldBarrierMode::Off;
  return std::nullopt;
}

FoldBarriers::FoldBarriers(Operation *root, FoldBarrierMode mode)
    : mode(mode) {
  if (mode != FoldBarrierMode::Auto && mode != FoldBarrierMode::Off)
    return;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    unsigned position = order.size();
    order[op] = position;
    Value memref = storedMemref(op);
    if (!memref)
      return;
    Value memory = memoryRoot(memref);
    firstStore.try_emplace(memory, position);
    for (Operation *loop = op->getParentOp(); loop;
         loop = loop->getParentOp())
      if (isa<LoopLikeOpInterface>(loop))
        storeLoops[memory].insert(loop);
  });
}

const SmallVector<Value> *FoldBarriers::storedValues(Value memref) {
  Value root = memoryRoot(memref);
  auto known = tileStores.find(root);
  if (known != tileStores.end())
    return known->second ? &*known->second : nullptr;
  std::optional<SmallVector<Value>> &stored = tileStores[root];
  if (!root.getDefiningOp<memref::AllocaOp>())
    return nullptr;
  // Every access through the allocation and its views must be a
  // memref.load or a memref.store to it; anything else (ld.local, a call)
  // may write what this analysis does not see.
  SmallVector<Value> values;
  SmallVector<Value> views = {root};
  while (!views.empty()) {
    Value view = views.pop_back_val();
    for (OpOperand &use : view.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::LoadOp>(user))
        continue;
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && use.get() == store.getMemRef()) {
        values.push_back(store.getValue());
        continue;
      }
      auto viewOp = dyn_cast<ViewLikeOpInterface>(user);
      if (viewOp && viewOp.getViewSource() == view) {
        llvm::append_range(views, user->getResults());
        continue;
      }
      return nullptr;
    }
  }
  stored = std::move(values);
  return &*stored;
}

/// The element a load or store of a private allocation addresses, as an
/// offset in the allocation's elements: known where every index is a
/// constant and the view's layout is static (a view of an allocation's
/// identity layout gives positions in the allocation itself).
static std::optional<int64_t> elementOffset(Value memref, ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto rootType = cast<MemRefType>(memoryRoot(memref).getType());
  if (type.getElementType() != rootType.getElementType() ||
      !rootType.getLayout().isIdentity())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
    APInt constant;
    if (ShapedType::isDynamic(stride) ||
        !matchPattern(index, m_ConstantInt(&constant)))
      return std::nullopt;
    offset += constant.getSExtValue() * stride;
  }
  return offset;
}

Value FoldBarriers::lastStoreBefore(memref::LoadOp load) {
  Value root = memoryRoot(load.getMemRef());
  std::optional<int64_t> element =
      elementOffset(load.getMemRef(), load.getIndices());
  if (!element)
    return {};
  // The ops that hold a store to the allocation in their regions.
  auto [holders, fresh] = storeHolders.try_emplace(root);
  if (fresh) {
    SmallVector<Value> views = {root};
    while (!views.empty()) {
      Value view = views.pop_back_val();
      for (Operation *user : view.getUsers()) {
        if (isa<memref::StoreOp>(user))
          for (Operation *up = user->getParentOp(); up; up = up->getParentOp())
            holders->second.insert(up);
        else if (isa<ViewLikeOpInterface>(user))
          llvm::append_range(views, user->getResults());
      }
    }
  }
  for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (memoryRoot(store.getMemRef()) != root)
        continue;
      std::optional<int64_t> other =
          elementOffset(store.getMemRef(), store.getIndices());
      if (!other)
        return {};
      if (*other == *element)
        return store.getValue();
      continue;
    }
    // An op with regions may store to the allocation inside them
    // (storedValues' precondition: nothing else writes it).
    if (holders->second.contains(op))
      return {};
  }
  return {};
}

bool FoldBarriers::mayReadAStore(Value memref, Operation *load) {
  Value memory = memoryRoot(memref);
  auto first = firstStore.find(memory);
  if (first == firstStore.end())
    return false;
  // A store earlier in program order, or one in a loop around the load,
  // which runs before it in a later iteration.
  if (first->second < order.lookup(load))
    return true;
  auto loops = storeLoops.find(memory);
  if (loops == storeLoops.end())
    return false;
  for (Operation *loop = load->getParentOp(); loop; loop = loop->getParentOp())
    if (loops->second.contains(loop))
      return true;
  return false;
}

uint8_t FoldBarriers::producersOf(Value value) {
  auto it = producers.find(value);
  if (it != producers.end())
    return it->second;
  // A worklist, not recursion: a kernel may chain 10^5 moves.
  uint8_t kinds = 0;
  SmallVector<Value> work = {value};
  llvm::DenseSet<Value> seen = {value};
  while (!work.empty()) {
    Value next = work.pop_back_val();
    auto known = producers.find(next);
    if (known != producers.end()) {
      kinds |= known->second;
      continue;
    }
    SmallVector<Value, 4> sources;
    kinds |= producerOf(next, sources);
    for (Value source : sources)
      if (seen.insert(source).second)
        work.push_back(source);
  }
  producers[value] = kinds;
  return kinds;
}

uint8_t FoldBarriers::producerOf(Value value, SmallVectorImpl<Value> &sources) {
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
  if (movesBits(def)) {
    llvm::append_range(sources, def->getOperands());
    return 0;
  }
  // A load produces nothing ptxas can fold, unless it may read what a store
  // of the kernel wrote: ptxas could forward the stored value (the same
  // pointer and offset) and fold its producer.
  if (auto load = dyn_cast<memref::LoadOp>(def)) {
    if (isOpaqueSpace(load.getMemRefType()))
      return mayReadAStore(load.getMemRef(), load) ? Unseen : 0;
    // Registers kept as a tile (a private allocation only loaded and
    // stored, which becomes registers): the load reads the last value
    // stored to its element before it in its block where that is known,
    // else it may read any value stored to the tile; ptxas may forward none
    // other.
    const SmallVector<Value> *stored = storedValues(load.getMemRef());
    if (!stored)
      return Unseen;
    if (Value last = lastStoreBefore(load)) {
      sources.push_back(last);
      return 0;
    }
    llvm::append_range(sources, *stored);
    return 0;
  }
  auto instr = dyn_cast<InstrOp>(def);
  if (!instr)
    // Any other op is a computation ptxas sees: T.ewise's arith and math.
    return kindOfType(value.getType()) | MayFoldIntoCvt;
  std::string error;
  const ptx::Form *form = instr.lookupForm(error);
  if (!form)
    return Unseen;
  if (form->family == "ld")
    return isOpaqueSpace(form->operands[*form->memoryOperand()].space) &&
                   !mayReadAStore(instr.getMemref(), instr)
               ? 0
               : Unseen;
  if (form->family == "mov") {
    // A move, a pack or an unpack: the bits of its sources.
    llvm::append_range(sources, instr.getInputs());
    return 0;
  }
  // A tensor core's result: no conversion folds an HMMA or HGMMA (without
  // the barriers, an mma.sync kernel's and the Hopper GEMM epilogue's SASS
  // is the same less the barriers, test_fold_barriers.py), so it is no
  // producer.
  if (form->family == "mma" || form->family == "wgmma")
    return 0;
  InstrRegisters registers = getInstrRegisters(*form);
  unsigned result = cast<OpResult>(value).getResultNumber();
  return kindOfType(registers.written[result]->type) |
         computationKind(form->family, *registers.written[result]);
}

bool FoldBarriers::reachesFloatRead(Value value) {
  // A depth-first walk over the values `value` flows into, with an explicit
  // stack: when one reaches a float read, so does every value on the path
  // to it; when the walk ends without one, no value it saw reaches one.
  struct Frame {
    Value value;
    SmallVector<Value, 4> next;
  };
  SmallVector<Frame> path;
  auto enter = [&](Value v) -> std::optional<bool> {
    auto known = floatReads.find(v);
    if (known != floatReads.end())
      return known->second;
    floatReads[v] = false; // seen; set to true if a read is found
    Frame &frame = path.emplace_back();
    frame.value = v;
    if (flowsIntoFloatRead(v, frame.next))
      return true;
    return std::nullopt;
  };
  std::optional<bool> found = enter(value);
  while (!found && !path.empty()) {
    Frame &top = path.back();
    if (top.next.empty()) {
      path.pop_back();
      continue;
    }
    Value next = top.next.pop_back_val();
    if (std::optional<bool> known = enter(next); known && *known)
      found = true;
  }
  if (found && *found) {
    for (Frame &frame : path)
      floatReads[frame.value] = true;
    floatReads[value] = true;
    return true;
  }
  return false;
}

bool FoldBarriers::flowsIntoFloatRead(Value value,
                                      SmallVectorImpl<Value> &next) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (movesBits(user)) {
      llvm::append_range(next, user->getResults());
      continue;
    }
    auto instr = dyn_cast<InstrOp>(user);
    if (!instr) {
      // A value stored to memory, yielded or passed to a block is read
      // where this analysis does not look; any other op reads it as its
      // type says and may pass it on.
      if (isa<memref::StoreOp, LLVM::StoreOp, RegionBranchOpInterface,
              BranchOpInterface>(user) ||
          user->hasTrait<OpTrait::IsTerminator>() ||
          isa<FloatType>(use.get().getType()))
        return true;
      llvm::append_range(next, user->getResults());
      continue;
    }
    std::string error;
    const ptx::Form *form = instr.lookupForm(error);
    if (!form)
      return true;
    // A store ends it: global and shared memory are not read back here.
    if (form->family == "st")
      continue;
    InstrRegisters registers = getInstrRegisters(*form);
    unsigned number = use.getOperandNumber();
    auto positionIn = [&](OperandRange range) -> std::optional<unsigned> {
      if (range.empty() || number < range.getBeginOperandIndex() ||
          number >= range.getBeginOperandIndex() + range.size())
        return std::nullopt;
      return number - range.getBeginOperandIndex();
    };
    std::optional<unsigned> input = positionIn(instr.getInputs());
    if (input && ptx::isFloatType(registers.read[*input]->type))
      return true;
    // Read as an integer (or kept by a predicated instruction): ptxas's
    // range may still travel with the value through a select, a min or a
    // move, so every result is followed. An address or a predicate is not
    // such a read.
    if (input || positionIn(instr.getKeep()))
      llvm::append_range(next, instr.getResults());
  }
  return false;
}

bool FoldBarriers::mayBeConstant(Value value) {
  auto known = constants.find(value);
  if (known != constants.end())
    return known->second;
  // A worklist over what went into the value; it stops at the first
  // runtime source.
  SmallVector<Value> work = {value};
  llvm::DenseSet<Value> seen = {value};
  bool runtime = false;
  auto follow = [&](ValueRange sources) {
    for (Value source : sources)
      if (seen.insert(source).second)
        work.push_back(source);
  };
  while (!work.empty() && !runtime) {
    Value next = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(next)) {
      // A kernel parameter; a loop-carried value or a device function's
      // parameter may be a constant ptxas propagates.
      auto func = dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
      runtime = func && func.isKernel() && arg.getOwner()->isEntryBlock();
      continue;
    }
    Operation *def = next.getDefiningOp();
    if (matchPattern(next, m_Constant()) ||
        isa<LLVM::UndefOp, LLVM::PoisonOp>(def))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      // ptxas may forward a stored constant to a load of local memory or of
      // memory the kernel stores to.
      runtime = isOpaqueSpace(load.getMemRefType()) &&
                !mayReadAStore(load.getMemRef(), load);
      continue;
    }
    if (auto instr = dyn_cast<InstrOp>(def)) {
      std::string error;
      const ptx::Form *form = instr.lookupForm(error);
      if (form && form->family == "ld") {
        runtime = isOpaqueSpace(form->operands[*form->memoryOperand()].space) &&
                  !mayReadAStore(instr.getMemref(), instr);
        continue;
      }
      // Any other access to memory (an atomic's old value), and an
      // instruction of no inputs (a special register, a vote), is known
      // only at run time.
      runtime = instr.getMemref() || instr.getInputs().empty();
      follow(instr.getInputs());
      continue;
    }
    // Special registers; any other op computes from its operands.
    runtime = def->getNumOperands() == 0;
    follow(def->getOperands());
  }
  constants[value] = !runtime;
  return !runtime;
}

bool FoldBarriers::constantFieldFolds(Value position, Value length) {
  // Measured right: a constant position below the width (its low 8 bits,
  // as the ISA reads it) or a constant length of 0.
  APInt constant;
  if (matchPattern(position, m_ConstantInt(&constant)) &&
      (constant.getZExtValue() & 0xff) < 32)
    return false;
  if (matchPattern(length, m_ConstantInt(&constant)) &&
      (constant.getZExtValue() & 0xff) == 0)
    return false;
  return mayBeConstant(position) && mayBeConstant(length);
}

bool FoldBarriers::needsBarrier(const ptx::FoldClass &foldClass, InstrOp op,
                                Value value, unsigned input) {
  if (foldClass.producers == ptx::FoldProducers::ConstantField)
    // The length is the input after the position (bfe d, a, pos, len).
    return input + 1 < op.getInputs().size() &&
           constantFieldFolds(value, op.getInputs()[input + 1]);
  if (foldClass.consumers == ptx::FoldConsumers::FloatRead)
    return reachesFloatRead(value);
  if (foldClass.consumers == ptx::FoldConsumers::ReluMax) {
    // The fused FMA needs max.NaN.xorsign.abs and +0 beside the value.
    SmallVector<StringRef> tokens;
    op.getOpcode().split(tokens, '.');
    if (!llvm::is_contained(tokens, "NaN") ||
        !llvm::is_contained(tokens, "xorsign") || op.getInputs().size() != 2 ||
        !mayBeConstant(op.getInputs()[1 - input]))
      return false;
  }
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
      unsigned position = input;
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
      if (!needsBarrier(foldClass, op, value, position))
        continue;
      if (mode == FoldBarrierMode::Off)
        warnExposed(op, foldClass);
      else
        chosen |= uint64_t(1) << bit;
    }
  }
  return chosen;
}
