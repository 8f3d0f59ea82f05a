//===- TileToNVVM.cpp - Lower tile instructions to LLVM inline asm --------===//

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "FoldBarriers.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

char mlir::tile::constraintLetter(unsigned bits) {
  switch (bits) {
  case 1:
    return 'b';
  case 16:
    return 'h';
  case 32:
    return 'r';
  case 64:
    return 'l';
  case 128:
    return 'q';
  default:
    return 0;
  }
}

unsigned mlir::tile::asmRegisterBits(const ptx::Operand &operand) {
  if (operand.isPredicate())
    return 1;
  return std::max(16u, operand.registerBits());
}

namespace {

/// The asm operand numbers of one instruction's registers, in the order
/// buildInlineAsm documents.
struct AsmNumbering {
  explicit AsmNumbering(const ptx::Form &form, bool predicated) {
    unsigned outputs = 0, inputs = 0;
    std::optional<unsigned> memory = form.memoryOperand();
    for (auto [index, operand] : llvm::enumerate(form.operands)) {
      if (operand.isWritten())
        outputs += operand.count;
      else if (operand.isRead())
        inputs += operand.count;
      else if (operand.isMemory() && index != memory)
        inputs += 1;  // a second memory operand's address
    }
    nextOutput = 0;
    nextInput = outputs;
    address = outputs + inputs;
    pred = address + (form.takesAddress() ? 1 : 0);
    guard = predicated ? "@$" + std::to_string(pred) + " " : "";
  }

  unsigned nextOutput, nextInput, address, pred;
  std::string guard;
};

} // namespace

/// Declares the scoped register the instruction writes instead of `ref`
/// and appends the split into 16-bit pieces (bytes of a 16-bit register)
/// and the join that move it to `ref`; returns the scoped register. Halves
/// of a 64-bit register do not end ptxas's range (measured), 16-bit pieces
/// do.
static std::string splitAndJoin(const std::string &ref, unsigned bits,
                                size_t operand, unsigned reg,
                                const std::string &guard,
                                std::string &scopedDecls, std::string &after) {
  std::string name =
      "%tile_s" + std::to_string(operand) + "_" + std::to_string(reg);
  unsigned pieceBits = bits == 16 ? 8 : 16;
  SmallVector<std::string> pieces;
  for (unsigned k = 0; k < bits / pieceBits; ++k)
    pieces.push_back(name + "p" + std::to_string(k));
  std::string width = std::to_string(bits);
  std::string joined = "{" + llvm::join(pieces, ", ") + "}";
  scopedDecls += ".reg .b" + width + " " + name + "; .reg .b" +
                 std::to_string(pieceBits) + " " + llvm::join(pieces, ", ") +
                 "; ";
  after += " " + guard + "mov.b" + width + " " + joined + ", " + name + "; " +
           guard + "mov.b" + width + " " + ref + ", " + joined + ";";
  return name;
}

InlineAsm mlir::tile::buildInlineAsm(const ptx::Form &form, bool predicated,
                                     bool preserveDst, int64_t addressOffset,
                                     uint64_t barriers) {
  AsmNumbering number(form, predicated);
  // Scoped registers inside the asm block: a true 8-bit register (an e2m1x2
  // pair) has no inline-asm register class, so it travels in a 16-bit
  // register and moves through a .b8 one; a register whose fold barrier is
  // chosen (Folds.h) is read through a copy made by an identity max, or
  // written to a scoped register that a split and join move to its own.
  std::string scopedDecls, before, after;
  // The text of each PTX operand position.
  std::vector<std::string> pieces;
  // Whether each piece follows the previous one after a bar (d|p).
  std::vector<bool> afterBar;
  std::vector<std::pair<unsigned, std::string>> repeated;
  std::vector<std::string> outputs, inputs, tied, kept;
  unsigned registerIndex = 0;
  // Only a kept destination can tell: without preserve_dst a guarded
  // instruction leaves it undefined where the guard is false.
  bool moveUnderGuard = form.guardIgnored && predicated && preserveDst;
  std::optional<unsigned> memory = form.memoryOperand();
  for (auto [i, operand] : llvm::enumerate(form.operands)) {
    std::string &text = pieces.emplace_back();
    afterBar.push_back(operand.barBefore);
    if (operand.isMemory() && i != memory) {
      // A second memory operand: its address is an input ("l").
      text += "[$" + std::to_string(number.nextInput++) + "]";
      inputs.push_back("l");
      continue;
    }
    if (operand.isMemory() && form.addressValue) {
      // The address itself is the operand (isspacep p, %rd1).
      text += "$" + std::to_string(number.address);
      continue;
    }
    if (operand.isMemory()) {
      text += "[$" + std::to_string(number.address);
      // ptxas reads [%rd1+-16] and rejects [%rd1-16].
      if (addressOffset)
        text += "+" + std::to_string(addressOffset);
      text += "]";
      continue;
    }
    if (operand.role == ptx::Role::Imm) {
      // "n": LLVM prints the constant itself into the text.
      text += "$" + std::to_string(number.nextInput++);
      inputs.push_back("n");
      continue;
    }
    bool narrow = operand.registerBits() == 8;
    std::string letter(1, constraintLetter(asmRegisterBits(operand)));
    bool braces = (operand.count > 1 || operand.braced) && !operand.joinedByBar;
    if (braces)
      text += "{";
    for (unsigned reg = 0; reg < operand.count; ++reg, ++registerIndex) {
      if (reg)
        text += operand.joinedByBar ? "|" : ", ";
      bool barrier = operand.fold != ptx::Fold::None && registerIndex < 64 &&
                     (barriers >> registerIndex & 1);
      std::string ref;
      if (operand.isWritten()) {
        // An rw register is an output whose input is tied to it.
        unsigned output = number.nextOutput++;
        ref = "$" + std::to_string(output);
        outputs.push_back("=" + letter);
        (operand.role == ptx::Role::ReadWrite ? tied : kept)
            .push_back(std::to_string(output));
      } else {
        ref = "$" + std::to_string(number.nextInput++);
        inputs.push_back(letter);
      }
      ptx::FoldBarrier kind =
          barrier ? ptx::foldClassOf(operand.fold).barrier
                  : ptx::FoldBarrier::IdentityMax;
      if (barrier && kind == ptx::FoldBarrier::SplitAndJoin)
        ref = splitAndJoin(ref, asmRegisterBits(operand), i, reg, number.guard,
                           scopedDecls, after);
      if (moveUnderGuard && operand.isWritten()) {
        // Form::guardIgnored: the result goes to a scoped register that a
        // guarded mov moves to the kept destination.
        unsigned bits = asmRegisterBits(operand);
        std::string temp =
            "%tile_g" + std::to_string(i) + "_" + std::to_string(reg);
        std::string type = operand.isPredicate() ? "pred" : "b" + std::to_string(bits);
        scopedDecls += ".reg ." + type + " " + temp + "; ";
        after += " " + number.guard + "mov." + type + " " + ref + ", " + temp + ";";
        ref = temp;
      }
      if (barrier && kind == ptx::FoldBarrier::OpaqueZero) {
        // %laneid >> 5 is 0, which ptxas does not know.
        std::string temp = "%tile_z" + std::to_string(i) + "_" + std::to_string(reg);
        scopedDecls += ".reg .b32 " + temp + "; ";
        before += "mov.u32 " + temp + ", %laneid; shr.u32 " + temp + ", " +
                  temp + ", 5; add.u32 " + temp + ", " + temp + ", " + ref +
                  "; ";
        ref = temp;
      }
      if (barrier && kind == ptx::FoldBarrier::IdentityMax) {
        unsigned bits = asmRegisterBits(operand);
        std::string temp = "%tile_f" + std::to_string(i) + "_" + std::to_string(reg);
        scopedDecls += ".reg .b" + std::to_string(bits) + " " + temp + "; ";
        before += "max.s" + std::to_string(bits) + " " + temp + ", " + ref +
                  ", " + std::to_string(llvm::minIntN(bits)) + "; ";
        ref = temp;
      }
      if (!narrow) {
        text += ref;
        continue;
      }
      std::string temp = "%tile_b" + std::to_string(i) + "_" + std::to_string(reg);
      scopedDecls += ".reg .b8 " + temp + "; ";
      if (operand.isWritten())
        after += " " + number.guard + "cvt.u16.u8 " + ref + ", " + temp + ";";
      if (operand.isRead())
        before += "cvt.u8.u16 " + temp + ", " + ref + "; ";
      text += temp;
    }
    if (braces)
      text += "}";
    if (operand.address)
      text = "[" + text + "]";
    if (operand.role == ptx::Role::ReadWrite && operand.readAt)
      repeated.emplace_back(operand.readAt, text);
  }
  // Coordinates go inside the brackets of the address before them:
  // [%rd1, {%r1, %r2}].
  for (size_t i = form.operands.size(); i-- > 1;) {
    if (!form.operands[i].withinAddress)
      continue;
    std::string &address = pieces[i - 1];
    address.insert(address.size() - 1, ", " + pieces[i]);
    pieces.erase(pieces.begin() + i);
    afterBar.erase(afterBar.begin() + i);
  }
  // Positions in ascending order, so each insertion lands where PTX reads.
  llvm::sort(repeated, llvm::less_first());
  for (auto &[position, text] : repeated) {
    size_t at = std::min<size_t>(position, pieces.size());
    pieces.insert(pieces.begin() + at, text);
    afterBar.insert(afterBar.begin() + at, false);
  }
  // A result the instruction has but does not return: the sink.
  if (form.sinkResult) {
    pieces.insert(pieces.begin(), "_");
    afterBar.insert(afterBar.begin(), false);
  }
  std::string operandText;
  for (auto [i, piece] : llvm::enumerate(pieces))
    operandText += (i == 0 ? "" : afterBar[i] ? "|" : ", ") + piece;
  std::string text = (moveUnderGuard ? "" : number.guard) + form.opcode +
                     (operandText.empty() ? "" : " ") + operandText + ";";
  if (!scopedDecls.empty())
    text = "{ " + scopedDecls + before + text + after + " }";
  if (form.takesAddress())
    inputs.push_back("l");
  if (predicated)
    inputs.push_back("b");
  llvm::append_range(inputs, tied);
  if (preserveDst)
    llvm::append_range(inputs, kept);
  std::string constraints;
  for (const std::string &c : llvm::concat<std::string>(outputs, inputs))
    constraints += (constraints.empty() ? "" : ",") + c;
  // A fence orders memory accesses LLVM sees too (a kernel's own loads of
  // its parameters, for one), and so does an acquire or a release (an
  // mbarrier wait or arrival): it clobbers memory. So does a wgmma, which
  // reads the shared memory its descriptors name.
  if (form.ordersMemory || form.synchronizes || form.accessesDescribedMemory)
    constraints += constraints.empty() ? "~{memory}" : ",~{memory}";
  return {text, constraints};
}

namespace {

/// Moves a carrier value into the integer register type inline asm takes.
Value toRegister(OpBuilder &b, Location loc, Value value, unsigned regBits) {
  Type regType = b.getIntegerType(regBits);
  unsigned bits = value.getType().getIntOrFloatBitWidth();
  if (isa<FloatType>(value.getType()))
    value = LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), value);
  if (bits < regBits)
    value = LLVM::ZExtOp::create(b, loc, regType, value);
  return value;
}

/// Moves an inline-asm register result back into its carrier type.
Value fromRegister(OpBuilder &b, Location loc, Value reg, Type carrier) {
  unsigned bits = carrier.getIntOrFloatBitWidth();
  if (reg.getType().getIntOrFloatBitWidth() > bits)
    reg = LLVM::TruncOp::create(b, loc, b.getIntegerType(bits), reg);
  if (isa<FloatType>(carrier))
    reg = LLVM::BitcastOp::create(b, loc, carrier, reg);
  return reg;
}

/// The byte offset of the element `op` addresses from its memref's aligned
/// pointer, when the indices are constants and the layout is static and the
/// offset fits PTX's 32-bit signed immediate.
std::optional<int64_t> constantByteOffset(InstrOp op) {
  MemRefType type = op.getMemref().getType();
  std::optional<int64_t> element = getStaticElementOffset(type, op.getIndices());
  if (!element)
    return std::nullopt;
  int64_t bytes = *element * (type.getElementTypeBitWidth() / 8);
  if (bytes < INT32_MIN || bytes > INT32_MAX)
    return std::nullopt;
  return bytes;
}

/// Lowers tile.instr ops to inline asm. An instruction becomes one asm op
/// and its register results keep their types, so this is a walk, not a
/// dialect conversion: on a kernel of 10^5 instructions the framework's
/// bookkeeping took most of the pass (bench/README.md). Memref operands
/// cross into LLVM types through unrealized casts, as a conversion would
/// materialize them, and each memref's base address is computed once, after
/// its definition, for all the instructions that address it.
class InstrLowering {
public:
  explicit InstrLowering(const LLVMTypeConverter &converter)
      : converter(converter),
        sideEffects(UnitAttr::get(&converter.getContext())),
        noTailCall(LLVM::TailCallKindAttr::get(&converter.getContext(),
                                               LLVM::TailCallKind::None)) {}

  /// Lowers `op`, whose registers in `barriers` take their fold barrier
  /// (FoldBarriers::choose).
  LogicalResult lower(InstrOp op, uint64_t barriers) {
    std::string error;
    const ptx::Form *form = op.lookupForm(error);
    if (!form)
      return op.emitOpError() << error;
    // Types the verifier lets through but LLVM has no type for (a tf32
    // element, found by tools/fuzz) are an error here, not an assertion.
    for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (!lowerable(value.getType()))
        return op.emitOpError() << "operand or result of type " << value.getType()
                                << " has no LLVM type to lower to";
    if (form->blockBarrier)
      return lowerBarrier(op, *form);
    if (form->family == "shfl")
      return lowerShuffle(op, *form);
    OpBuilder builder(op);
    Location loc = op.getLoc();
    InstrRegisters registers = getInstrRegisters(*form);

    SmallVector<Value> asmOperands, tiedInputs;
    for (auto [value, operand] : llvm::zip_equal(op.getInputs(), registers.read)) {
      if (operand->role == ptx::Role::Imm) {
        // The verifier proved it a constant; "n" wants an LLVM constant.
        APInt constant;
        (void)matchPattern(value, m_ConstantInt(&constant));
        asmOperands.push_back(LLVM::ConstantOp::create(
            builder, loc, builder.getI32Type(), constant.getZExtValue()));
        continue;
      }
      if (operand->isMemory()) {
        // A second memory operand's 64-bit address (cp.async's source).
        asmOperands.push_back(toLLVM(builder, value));
        continue;
      }
      Value reg = toRegister(builder, loc, toLLVM(builder, value),
                             asmRegisterBits(*operand));
      (operand->role == ptx::Role::ReadWrite ? tiedInputs : asmOperands)
          .push_back(reg);
    }
    int64_t addressOffset = 0;
    if (Value memref = op.getMemref()) {
      SwizzleOp swizzle = getSwizzle(memref);
      // A local (addrspace 5) memref's address is a local address: the
      // pipeline's tile-local-allocas pass gives its alloca the form whose
      // address NVPTX computes from %SPL. tools/conformance checks ld.local
      // and st.local on the GPU.
      if (std::optional<int64_t> offset = constantByteOffset(op)) {
        // A static element of a swizzled view: its swizzled offset, static
        // too.
        if (swizzle)
          offset = swizzle.apply(*offset);
        // A static element: a base register plus an immediate offset, as
        // hand-written PTX addresses it ([%rd1+4]). Each 64 KiB window of a
        // memref gets its own base, so a kernel spells at most 64 Ki
        // distinct offsets: on 10^6 instructions, uniquing an asm string per
        // offset made lowering and printing 20% slower.
        int64_t window = llvm::divideFloorSigned(*offset, kAddressWindowBytes);
        asmOperands.push_back(windowAddress(memref, window));
        addressOffset = *offset - window * kAddressWindowBytes;
        for (Value index : op.getIndices())
          if (Operation *constant = index.getDefiningOp())
            foldedIndices.insert(constant);
      } else if (swizzle) {
        asmOperands.push_back(
            swizzledAddress(builder, loc, op, swizzle, addressOffset));
      } else {
        SmallVector<Value> indices;
        for (Value index : op.getIndices())
          indices.push_back(castTo(builder, loc, index,
                                   converter.getIndexType()));
        Value address = LLVM::getStridedElementPtr(
            builder, loc, converter, op.getMemref().getType(),
            descriptor(memref), indices);
        asmOperands.push_back(LLVM::PtrToIntOp::create(
            builder, loc, builder.getI64Type(), address));
      }
      if (form->addressValue && addressOffset) {
        // An address read as a value is one register (isspacep p, %rd1):
        // PTX takes %rd1+16 only inside brackets.
        Value offset = LLVM::ConstantOp::create(builder, loc, builder.getI64Type(), addressOffset);
        asmOperands.back() = LLVM::AddOp::create(builder, loc, asmOperands.back(), offset);
        addressOffset = 0;
      }
    }
    if (Value pred = op.getPred())
      asmOperands.push_back(pred);
    llvm::append_range(asmOperands, tiedInputs);
    for (auto [value, result] : llvm::zip_equal(op.getKeep(), registers.kept))
      asmOperands.push_back(
          toRegister(builder, loc, toLLVM(builder, value),
                     asmRegisterBits(*registers.written[result])));

    SmallVector<Type> regTypes;
    for (const ptx::Operand *operand : registers.written)
      regTypes.push_back(builder.getIntegerType(asmRegisterBits(*operand)));
    Type resultType;
    if (regTypes.size() == 1)
      resultType = regTypes.front();
    else if (regTypes.size() > 1)
      resultType = LLVM::LLVMStructType::getLiteral(op.getContext(), regTypes);
    else
      resultType = LLVM::LLVMVoidType::get(op.getContext());

    auto [text, constraints] =
        asmStrings(*form, static_cast<bool>(op.getPred()),
                   !op.getKeep().empty(), addressOffset, barriers);
    auto inlineAsm = LLVM::InlineAsmOp::create(
        builder, loc, resultType, asmOperands, text, constraints,
        // The carry flag and tensor memory are state no operand shows: their
        // readers and writers keep their order and are never merged or
        // dropped.
        /*has_side_effects=*/form->accessesMemory() || form->warpCollective ||
                form->observesWarp || form->ordersMemory ||
                form->accessesDescribedMemory || form->readsCarry ||
                form->writesCarry || form->accessesTensorMemory
            ? sideEffects
            : UnitAttr(),
        /*is_align_stack=*/UnitAttr(), noTailCall, LLVM::AsmDialectAttr(),
        /*operand_attrs=*/ArrayAttr());

    for (auto [i, value] : llvm::enumerate(op.getResults())) {
      Value reg = regTypes.size() == 1
                      ? inlineAsm.getResult(0)
                      : LLVM::ExtractValueOp::create(builder, loc,
                                                     inlineAsm.getResult(0), i)
                            .getResult();
      replaceWithRegister(builder, loc, value, reg);
    }
    op.erase();
    return success();
  }

  /// A cluster barrier becomes NVVM's operation of the same PTX
  /// instruction, convergent as a block barrier's: barrier.cluster.arrive
  /// {.relaxed}{.aligned} and barrier.cluster.wait{.aligned}, without the
  /// default .release and .acquire the ISA gives them.
  LogicalResult lowerClusterBarrier(InstrOp op, ArrayRef<StringRef> tokens) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    UnitAttr aligned = llvm::is_contained(tokens, "aligned")
                           ? builder.getUnitAttr()
                           : UnitAttr();
    if (llvm::is_contained(tokens, "wait"))
      NVVM::ClusterWaitOp::create(builder, loc, aligned);
    else if (llvm::is_contained(tokens, "relaxed"))
      NVVM::ClusterArriveRelaxedOp::create(builder, loc, aligned);
    else
      NVVM::ClusterArriveOp::create(builder, loc, aligned);
    op.erase();
    return success();
  }

  /// A barrier becomes NVVM's barrier intrinsic of the same PTX
  /// instruction: LLVM declares those convergent, so no pass duplicates one
  /// into divergent paths, as it may an inline asm. They print bar.sync,
  /// bar.arrive (the aligned forms: bar.sync is barrier.sync.aligned in
  /// the ISA), barrier.sync and barrier.arrive, with the same immediates.
  LogicalResult lowerBarrier(InstrOp op, const ptx::Form &form) {
    SmallVector<StringRef> tokens;
    StringRef(form.opcode).split(tokens, '.');
    if (form.family == "barrier.cluster")
      return lowerClusterBarrier(op, tokens);
    bool aligned =
        tokens.front() == "bar" || llvm::is_contained(tokens, "aligned");
    bool arrive = llvm::is_contained(tokens, "arrive");
    // bar.red.popc.u32 d, a{, b}, c: the reduction of predicate c over the
    // block, through the intrinsic of its operation.
    StringRef reduction;
    for (StringRef token : tokens)
      if (token == "popc" || token == "and" || token == "or")
        reduction = token;
    // The id and the count (a and b): immediates or registers.
    unsigned immediates = llvm::count_if(form.operands, [](const auto &o) {
      return o.name == "a" || o.name == "b";
    });
    std::string name =
        std::string("llvm.nvvm.barrier.cta.") +
        (!reduction.empty() ? "red." + reduction.str()
                            : (arrive ? "arrive" : "sync")) +
        (aligned ? ".aligned" : "") + (immediates == 2 ? ".count" : ".all");
    OpBuilder builder(op);
    Location loc = op.getLoc();
    SmallVector<Value> args;
    for (Value value : op.getInputs()) {
      APInt constant;
      if (value.getType().isInteger(1)) {
        args.push_back(value);
      } else if (matchPattern(value, m_ConstantInt(&constant))) {
        args.push_back(LLVM::ConstantOp::create(
            builder, loc, builder.getI32Type(), constant.getZExtValue()));
      } else {
        // A register id or count (the same in every thread, as the ISA
        // asks): the intrinsic takes it as an i32 value.
        args.push_back(toRegister(builder, loc, toLLVM(builder, value), 32));
      }
    }
    if (reduction.empty()) {
      LLVM::CallIntrinsicOp::create(builder, loc, builder.getStringAttr(name),
                                    args);
      op.erase();
      return success();
    }
    Value result = op.getResult(0);
    Type returned = reduction == "popc" ? builder.getI32Type()
                                        : builder.getI1Type();
    auto call = LLVM::CallIntrinsicOp::create(
        builder, loc, returned, builder.getStringAttr(name), args);
    replaceWithRegister(builder, loc, result, call.getResult(0));
    op.erase();
    return success();
  }

  /// A shuffle becomes NVVM's shfl.sync intrinsic of its mode, convergent
  /// like the barriers (an inline asm shuffle could be duplicated into
  /// divergent paths, where lanes wait on each other's copy). NVPTX prints
  /// it as written: shfl.sync.bfly.b32 d, a, b, c, membermask, with
  /// constants as immediates; with the predicate result, the .i32p
  /// intrinsic, printed shfl.sync.bfly.b32 d|p, a, b, c, membermask.
  LogicalResult lowerShuffle(InstrOp op, const ptx::Form &form) {
    SmallVector<StringRef> tokens;
    StringRef(form.opcode).split(tokens, '.');
    StringRef mode = *llvm::find_if(tokens, [](StringRef token) {
      return token == "up" || token == "down" || token == "bfly" ||
             token == "idx";
    });
    OpBuilder builder(op);
    Location loc = op.getLoc();
    // d = shfl(a, b, c, membermask); the intrinsic takes the mask first.
    SmallVector<Value> regs;
    for (Value value : op.getInputs())
      regs.push_back(toRegister(builder, loc, toLLVM(builder, value), 32));
    SmallVector<Value> args = {regs[3], regs[0], regs[1], regs[2]};
    bool withPredicate = op.getNumResults() == 2;
    Type i32 = builder.getI32Type(), i1 = builder.getI1Type();
    Type callType = withPredicate ? LLVM::LLVMStructType::getLiteral(
                                        op.getContext(), {i32, i1})
                                  : i32;
    auto call = LLVM::CallIntrinsicOp::create(
        builder, loc, callType,
        builder.getStringAttr("llvm.nvvm.shfl.sync." + mode.str() +
                              (withPredicate ? ".i32p" : ".i32")),
        args);
    Value reg = call.getResult(0);
    if (withPredicate) {
      op.getResult(1).replaceAllUsesWith(
          LLVM::ExtractValueOp::create(builder, loc, reg, 1).getResult());
      reg = LLVM::ExtractValueOp::create(builder, loc, reg, 0);
    }
    replaceWithRegister(builder, loc, op.getResult(0), reg);
    op.erase();
    return success();
  }

  /// Erases the constant indices that only instructions now lowered with an
  /// immediate address offset used: a kernel addresses each of its repeats
  /// through one, and nothing reads them any more.
  void eraseFoldedIndices() {
    for (Operation *constant : foldedIndices)
      if (constant->use_empty())
        constant->erase();
  }

private:
  /// Replaces `result` by the register `reg` an instruction wrote, moved
  /// into the result's carrier type (and cast to it where that differs).
  void replaceWithRegister(OpBuilder &builder, Location loc, Value result,
                           Value reg) {
    Type carrier = converter.convertType(result.getType());
    Value value = fromRegister(builder, loc, reg, carrier);
    if (carrier != result.getType())
      value = castTo(builder, loc, value, result.getType());
    result.replaceAllUsesWith(value);
  }

  bool lowerable(Type type) {
    auto [it, inserted] = lowerableTypes.try_emplace(type);
    if (inserted) {
      Type converted = converter.convertType(type);
      it->second = isa<MemRefType, IndexType>(type)
                       ? static_cast<bool>(converted)
                       : converted && LLVM::isCompatibleType(converted);
    }
    return it->second;
  }

  /// The asm text and constraints of an instruction, built once per form,
  /// predication, offset and barriers: a kernel repeats a few of them many
  /// times.
  std::pair<StringAttr, StringAttr>
  asmStrings(const ptx::Form &form, bool predicated, bool preserveDst,
             int64_t addressOffset, uint64_t barriers) {
    auto key = std::make_tuple(
        &form, unsigned(predicated) | unsigned(preserveDst) << 1, addressOffset,
        barriers);
    auto [it, inserted] = asmCache.try_emplace(key);
    if (inserted) {
      InlineAsm asmText = buildInlineAsm(form, predicated, preserveDst,
                                         addressOffset, barriers);
      MLIRContext *context = &converter.getContext();
      it->second = {StringAttr::get(context, asmText.text),
                    StringAttr::get(context, asmText.constraints)};
    }
    return it->second;
  }

  static Value castTo(OpBuilder &builder, Location loc, Value value,
                      Type type) {
    return UnrealizedConversionCastOp::create(builder, loc, type, value)
        .getResult(0);
  }

  /// A carrier as LLVM types it: signed and unsigned integers (ui32) become
  /// signless through a cast that the memref lowering reconciles.
  Value toLLVM(OpBuilder &builder, Value value) {
    Type type = converter.convertType(value.getType());
    return type == value.getType()
               ? value
               : castTo(builder, value.getLoc(), value, type);
  }

  /// The LLVM descriptor of a memref, cast once right after its definition.
  Value descriptor(Value memref) {
    Value &result = descriptors[memref];
    if (!result) {
      OpBuilder builder(memref.getContext());
      builder.setInsertionPointAfterValue(memref);
      result = castTo(builder, memref.getLoc(), memref,
                      converter.convertType(memref.getType()));
    }
    return result;
  }

  /// The aligned base address of a memref as an i64, computed once right
  /// after its descriptor.
  Value baseAddress(Value memref) {
    Value &result = baseAddresses[memref];
    if (!result) {
      Value desc = descriptor(memref);
      OpBuilder builder(memref.getContext());
      builder.setInsertionPointAfterValue(desc);
      Value aligned = MemRefDescriptor(desc).alignedPtr(builder, memref.getLoc());
      result = LLVM::PtrToIntOp::create(builder, memref.getLoc(),
                                        builder.getI64Type(), aligned);
    }
    return result;
  }

  /// The address of the element `op` addresses through `swizzle`: the
  /// view's aligned address (the swizzled buffer's start, which its views
  /// keep) plus the swizzled byte offset of the element, split as
  /// swizzle(D + low) + high. The offset is D, its runtime terms, plus a
  /// constant, and `high` is the constant's multiple of the swizzle's period
  /// 2^(base + shift + bits): adding it changes no bit the swizzle reads
  /// or writes, so it becomes the instruction's immediate offset and
  /// instructions that differ only by it share one swizzled register (the
  /// ldmatrix of each 16-row block of a tile: CUTLASS's precomputed
  /// offsets). Sets `immediate` to `high`.
  Value swizzledAddress(OpBuilder &builder, Location loc, InstrOp op,
                        SwizzleOp swizzle, int64_t &immediate) {
    Value memref = op.getMemref();
    Type i64 = builder.getI64Type();
    auto constant = [&](int64_t value) {
      return LLVM::ConstantOp::create(builder, loc, i64, value).getResult();
    };
    int64_t constantBytes = 0;
    SmallVector<std::pair<Value, int64_t>> terms;
    if (!linearBytes(op, swizzle, terms, constantBytes)) {
      // A dynamic stride: the offset from the descriptor, swizzled whole.
      terms.clear();
      constantBytes = 0;
      MemRefType type = op.getMemref().getType();
      MemRefDescriptor desc(descriptor(memref));
      Value linear = desc.offset(builder, loc);
      for (auto [axis, index] : llvm::enumerate(op.getIndices()))
        linear = LLVM::AddOp::create(
            builder, loc, linear,
            LLVM::MulOp::create(
                builder, loc,
                castTo(builder, loc, index, converter.getIndexType()),
                desc.stride(builder, loc, axis)));
      terms.push_back({linear, type.getElementTypeBitWidth() / 8});
    }
    int64_t period = int64_t(1)
                     << (swizzle.getBase() + swizzle.getShift() +
                         swizzle.getBits());
    int64_t high = llvm::divideFloorSigned(constantBytes, period) * period;
    Value bytes = constant(constantBytes - high);
    for (auto [value, scale] : terms) {
      Value term = value.getType() == i64
                       ? value
                       : castTo(builder, loc, value, converter.getIndexType());
      bytes = LLVM::AddOp::create(
          builder, loc, bytes,
          LLVM::MulOp::create(builder, loc, term, constant(scale)));
    }
    int64_t mask = ((int64_t(1) << swizzle.getBits()) - 1) << swizzle.getBase();
    Value moved = LLVM::AndOp::create(
        builder, loc,
        LLVM::LShrOp::create(builder, loc, bytes, constant(swizzle.getShift())),
        constant(mask));
    Value placed = LLVM::XOrOp::create(builder, loc, bytes, moved);
    Value address =
        LLVM::AddOp::create(builder, loc, baseAddress(memref), placed);
    immediate = 0;
    if (high >= INT32_MIN && high <= INT32_MAX)
      immediate = high;
    else
      address = LLVM::AddOp::create(builder, loc, address, constant(high));
    return address;
  }

  /// The byte offset of the element `op` addresses from `swizzle`'s start,
  /// read off the views between them: runtime index values times their
  /// byte strides in `terms`, and the constants (static offsets and indices,
  /// constant addends of an index) summed in `bytes`. False where a stride
  /// is dynamic.
  static bool linearBytes(InstrOp op, SwizzleOp swizzle,
                          SmallVectorImpl<std::pair<Value, int64_t>> &terms,
                          int64_t &bytes) {
    auto add = [&](Value index, int64_t scale) {
      APInt value;
      while (!matchPattern(index, m_ConstantInt(&value))) {
        auto sum = index.getDefiningOp<arith::AddIOp>();
        if (sum && matchPattern(sum.getRhs(), m_ConstantInt(&value)))
          index = sum.getLhs();
        else if (sum && matchPattern(sum.getLhs(), m_ConstantInt(&value)))
          index = sum.getRhs();
        else
          return terms.push_back({index, scale});
        bytes += value.getSExtValue() * scale;
      }
      bytes += value.getSExtValue() * scale;
    };
    // Adds sum(index * stride) over the axes of `type`, in bytes.
    auto addAxes = [&](MemRefType type, ArrayRef<int64_t> staticIndices,
                       ValueRange dynamicIndices) {
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(type.getStridesAndOffset(strides, offset)) ||
          llvm::any_of(strides, ShapedType::isDynamic))
        return false;
      int64_t element = type.getElementTypeBitWidth() / 8;
      auto dynamic = dynamicIndices.begin();
      for (auto [axis, stride] : llvm::enumerate(strides)) {
        int64_t fixed = staticIndices.empty() ? ShapedType::kDynamic
                                              : staticIndices[axis];
        if (ShapedType::isDynamic(fixed))
          add(*dynamic++, stride * element);
        else
          bytes += fixed * stride * element;
      }
      return true;
    };
    if (!addAxes(op.getMemref().getType(), {}, op.getIndices()))
      return false;
    for (Value view = op.getMemref(); view != swizzle.getResult();) {
      Operation *def = view.getDefiningOp();
      if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
        if (!addAxes(subview.getSource().getType(),
                     subview.getStaticOffsets(), subview.getOffsets()))
          return false;
      }
      // Reshapes, tile.view and tile.broadcast keep the byte offset.
      view = cast<ViewLikeOpInterface>(def).getViewSource();
    }
    return true;
  }

  /// The base address of a window of a memref: its aligned address plus
  /// `window` times kAddressWindowBytes, computed once.
  Value windowAddress(Value memref, int64_t window) {
    Value base = baseAddress(memref);
    if (window == 0)
      return base;
    Value &result = windowAddresses[{memref, window}];
    if (!result) {
      OpBuilder builder(memref.getContext());
      builder.setInsertionPointAfterValue(base);
      Value bytes = LLVM::ConstantOp::create(builder, memref.getLoc(),
                                             builder.getI64Type(),
                                             window * kAddressWindowBytes);
      result = LLVM::AddOp::create(builder, memref.getLoc(), base, bytes);
    }
    return result;
  }

  static constexpr int64_t kAddressWindowBytes = 1 << 16;

  const LLVMTypeConverter &converter;
  UnitAttr sideEffects;
  LLVM::TailCallKindAttr noTailCall;
  llvm::SetVector<Operation *> foldedIndices;
  llvm::DenseMap<std::tuple<const ptx::Form *, unsigned, int64_t, uint64_t>,
                 std::pair<StringAttr, StringAttr>>
      asmCache;
  llvm::DenseMap<Type, bool> lowerableTypes;
  llvm::DenseMap<Value, Value> descriptors;
  llvm::DenseMap<Value, Value> baseAddresses;
  llvm::DenseMap<std::pair<Value, int64_t>, Value> windowAddresses;
};

/// Builds the descriptor of a view whose static layout is in the result type;
/// dynamic entries are taken from the source, scaled by num/den.
template <typename ViewLikeOp>
struct ViewLowering : public ConvertOpToLLVMPattern<ViewLikeOp> {
  using ConvertOpToLLVMPattern<ViewLikeOp>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename ViewLikeOp::Adaptor;

  LogicalResult
  matchAndRewrite(ViewLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemRefType sourceType = op.getSource().getType();
    MemRefType resultType = op.getResult().getType();
    int64_t num = sourceType.getElementType().getIntOrFloatBitWidth();
    int64_t den = resultType.getElementType().getIntOrFloatBitWidth();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(resultType.getStridesAndOffset(strides, offset)))
      return rewriter.notifyMatchFailure(op, "not a strided layout");

    MemRefDescriptor source(adaptor.getSource());
    Type descType = this->getTypeConverter()->convertType(resultType);
    auto result = MemRefDescriptor::poison(rewriter, loc, descType);
    result.setAllocatedPtr(rewriter, loc, source.allocatedPtr(rewriter, loc));
    result.setAlignedPtr(rewriter, loc, source.alignedPtr(rewriter, loc));
    Type indexType = this->getTypeConverter()->getIndexType();
    auto scaled = [&](Value value) {
      if (num == den)
        return value;
      Value n = LLVM::ConstantOp::create(rewriter, loc, indexType, num);
      Value d = LLVM::ConstantOp::create(rewriter, loc, indexType, den);
      Value product = LLVM::MulOp::create(rewriter, loc, value, n);
      return LLVM::SDivOp::create(rewriter, loc, product, d).getResult();
    };
    if (ShapedType::isDynamic(offset))
      result.setOffset(rewriter, loc, scaled(source.offset(rewriter, loc)));
    else
      result.setConstantOffset(rewriter, loc, offset);
    for (int64_t i = 0, e = resultType.getRank(); i < e; ++i) {
      int64_t size = resultType.getDimSize(i);
      if (ShapedType::isDynamic(size))
        return rewriter.notifyMatchFailure(op, "dynamic sizes");
      result.setConstantSize(rewriter, loc, i, size);
      if (ShapedType::isDynamic(strides[i]))
        result.setStride(rewriter, loc, i,
                         scaled(source.stride(rewriter, loc, i)));
      else
        result.setConstantStride(rewriter, loc, i, strides[i]);
    }
    rewriter.replaceOp(op, {result});
    return success();
  }
};

/// A swizzle changes no descriptor: the instructions that address through
/// it were lowered with its offsets (InstrLowering::swizzledAddress).
struct SwizzleLowering : public ConvertOpToLLVMPattern<SwizzleOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(SwizzleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

/// A wgmma matrix descriptor (PTX ISA 9.7.15.5.1): bits 0-13 the start
/// address's bits 4-17, 16-29 the leading byte offset / 16, 32-45 the
/// stride byte offset / 16, 62-63 the layout type. The start is the tile's
/// unswizzled address (the verifier proved the buffer aligned to the
/// swizzle's repeat, so wgmma's swizzle of the address is the buffer's).
struct MatrixDescriptorLowering
    : public ConvertOpToLLVMPattern<MatrixDescriptorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MatrixDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    MemRefDescriptor tile(adaptor.getTile());
    auto constant = [&](int64_t value) {
      return LLVM::ConstantOp::create(rewriter, loc, i64, value);
    };
    int64_t elementBytes = op.getTile().getType().getElementTypeBitWidth() / 8;
    Value base =
        LLVM::PtrToIntOp::create(rewriter, loc, i64, tile.alignedPtr(rewriter, loc));
    Value offset = LLVM::MulOp::create(rewriter, loc, tile.offset(rewriter, loc),
                                       constant(elementBytes));
    Value address = LLVM::AddOp::create(rewriter, loc, base, offset);
    Value start = LLVM::LShrOp::create(
        rewriter, loc, LLVM::AndOp::create(rewriter, loc, address, constant(0x3FFFF)),
        constant(4));
    // The sm_100 format (tcgen05) adds its version, 1 in bits 46-47; its
    // three-bit layout types at 61 are wgmma's two-bit ones at 62.
    int64_t fields = ((op.getLeadingByteOffset() / 16) << 16) |
                     ((8 * op.getRowBytes() / 16) << 32) |
                     (int64_t(op.isTcgen05()) << 46) |
                     (op.getLayoutType() << 62);
    rewriter.replaceOp(op, LLVM::OrOp::create(rewriter, loc, start, constant(fields)));
    return success();
  }
};

/// A tensor map's address: the generic address of its kernel parameter.
/// The cast is marked for tile-tensor-map-params, which makes the
/// parameter a 64-byte aligned .param whose address the kernel may take
/// once convert-gpu-to-nvvm has made the kernel an llvm.func.
struct TensorMapLowering : public ConvertOpToLLVMPattern<TensorMapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(TensorMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto address = LLVM::PtrToIntOp::create(rewriter, op.getLoc(),
                                            rewriter.getI64Type(),
                                            adaptor.getParam());
    address->setAttr(kTensorMapParamAttrName, rewriter.getUnitAttr());
    rewriter.replaceOp(op, address);
    return success();
  }
};

/// A mapped tile: its descriptor with both pointers mapped by
/// mapa.shared::cluster (NVVM's mapa on a shared pointer), the offset,
/// sizes and strides kept.
struct MapaLowering : public ConvertOpToLLVMPattern<MapaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MapaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemRefType resultType = op.getResult().getType();
    Type descType = getTypeConverter()->convertType(resultType);
    if (!descType)
      return rewriter.notifyMatchFailure(op, "no descriptor type");
    MemRefDescriptor source(adaptor.getSource());
    auto pointerType =
        LLVM::LLVMPointerType::get(getContext(), kSharedClusterAddressSpace);
    auto map = [&](Value pointer) {
      return NVVM::MapaOp::create(rewriter, loc, pointerType, pointer,
                                  adaptor.getRank())
          .getResult();
    };
    auto result = MemRefDescriptor::poison(rewriter, loc, descType);
    // Only the aligned pointer addresses; LLVM drops the allocated one's
    // mapa (it has no side effects) when nothing uses it.
    result.setAllocatedPtr(rewriter, loc, map(source.allocatedPtr(rewriter, loc)));
    result.setAlignedPtr(rewriter, loc, map(source.alignedPtr(rewriter, loc)));
    result.setOffset(rewriter, loc, source.offset(rewriter, loc));
    for (int64_t i = 0, e = resultType.getRank(); i < e; ++i) {
      result.setSize(rewriter, loc, i, source.size(rewriter, loc, i));
      result.setStride(rewriter, loc, i, source.stride(rewriter, loc, i));
    }
    rewriter.replaceOp(op, {result});
    return success();
  }
};

struct ConvertTileToNVVMPass
    : public tile::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  using ConvertTileToNVVMBase::ConvertTileToNVVMBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    WalkResult unexpanded = root->walk([](ApplyOp apply) {
      apply.emitOpError() << "must be expanded first: run --tile-expand "
                             "before --convert-tile-to-nvvm";
      return WalkResult::interrupt();
    });
    if (unexpanded.wasInterrupted())
      return signalPassFailure();

    LLVMTypeConverter converter(&getContext());
    // The same numbering as convert-gpu-to-nvvm, so that the descriptors
    // this pass builds reconcile with the ones it builds.
    converter.addTypeAttributeConversion(
        [](BaseMemRefType type, gpu::AddressSpaceAttr space) -> Attribute {
          std::optional<unsigned> number = getAddressSpace(space.getValue());
          return IntegerAttr::get(IntegerType::get(type.getContext(), 64),
                                  number.value_or(0));
        });
    std::optional<FoldBarrierMode> mode = parseFoldBarrierMode(foldBarriers);
    if (!mode) {
      root->emitError() << "fold-barriers=" << foldBarriers
                        << " is not auto, always or off";
      return signalPassFailure();
    }
    // Every choice before any instruction is lowered: the analysis follows
    // values through the tile IR, which lowering replaces.
    FoldBarriers folds(root, *mode);
    SmallVector<std::pair<InstrOp, uint64_t>> work;
    root->walk([&](InstrOp op) {
      std::string error;
      const ptx::Form *form = op.lookupForm(error);
      work.emplace_back(op, form ? folds.choose(op, *form) : 0);
    });
    InstrLowering instrs(converter);
    for (auto [op, barriers] : work)
      if (failed(instrs.lower(op, barriers)))
        return signalPassFailure();
    instrs.eraseFoldedIndices();

    RewritePatternSet patterns(&getContext());
    populateTileToNVVMConversionPatterns(converter, patterns);
    ConversionTarget target(getContext());
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addIllegalDialect<TileDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tile::populateTileToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ViewLowering<ViewOp>, ViewLowering<BroadcastOp>,
               SwizzleLowering, MatrixDescriptorLowering, TensorMapLowering,
               MapaLowering>(
      converter);
}
