//===- TileOps.cpp - Tile operations and their legality rules -------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

/// `if %p` for an i1 predicate, `if (%p : memref<...>)` for a predicate
/// tile: the parenthesis keeps its type apart from the operands' types.
static ParseResult
parsePredicate(OpAsmParser &parser,
               std::optional<OpAsmParser::UnresolvedOperand> &pred,
               Type &type) {
  OpAsmParser::UnresolvedOperand operand;
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseOperand(operand) || parser.parseColonType(type) ||
        parser.parseRParen())
      return failure();
  } else {
    OptionalParseResult parsed = parser.parseOptionalOperand(operand);
    if (!parsed.has_value())
      return success();
    if (failed(*parsed))
      return failure();
    type = parser.getBuilder().getI1Type();
  }
  pred = operand;
  return success();
}

static void printPredicate(OpAsmPrinter &printer, Operation *, Value pred,
                           Type type) {
  if (type.isInteger(1)) {
    printer << pred;
    return;
  }
  printer << "(" << pred << " : " << type << ")";
}

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"

std::optional<unsigned> mlir::tile::getAddressSpace(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return 0;
  if (auto intSpace = dyn_cast<IntegerAttr>(space)) {
    // NVPTX numbers address spaces with 32 bits; a larger value is no space
    // (it once truncated 2^32 + 1 to global).
    const APInt &value = intSpace.getValue();
    if (value.isNegative() || !value.isIntN(32))
      return std::nullopt;
    return static_cast<unsigned>(value.getZExtValue());
  }
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
    return getAddressSpace(gpuSpace.getValue());
  return std::nullopt;
}

std::optional<unsigned> mlir::tile::getAddressSpace(gpu::AddressSpace space) {
  // gpu.func workgroup attributions and global buffers may carry the GPU
  // dialect's spelling; private memory has no NVPTX number of its own here.
  switch (space) {
  case gpu::AddressSpace::Global:
    return kGlobalAddressSpace;
  case gpu::AddressSpace::Workgroup:
    return kSharedAddressSpace;
  case gpu::AddressSpace::Private:
    return std::nullopt;
  }
  return std::nullopt;
}

SmallVector<StringRef> mlir::tile::getTargetChipsFor(Operation *op) {
  SmallVector<StringRef> chips;
  for (Operation *parent = op; parent; parent = parent->getParentOp()) {
    if (auto chip = parent->getAttrOfType<StringAttr>(kTargetAttrName)) {
      chips.push_back(chip.getValue());
      return chips;
    }
    auto module = dyn_cast<gpu::GPUModuleOp>(parent);
    if (!module)
      continue;
    // A module compiled for several chips must be legal on each of them.
    if (ArrayAttr targets = module.getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvmTarget = dyn_cast<NVVM::NVVMTargetAttr>(target))
          chips.push_back(nvvmTarget.getChip());
    return chips;
  }
  return chips;
}

std::optional<int64_t> mlir::tile::getStaticElementOffset(MemRefType type,
                                                         ValueRange indices) {
  // Row-major offsets need no strides: this runs once per instruction of a
  // kernel, and deriving strides from an identity layout builds affine maps.
  if (type.getLayout().isIdentity() && type.hasStaticShape()) {
    std::optional<int64_t> element = 0;
    for (auto [index, size] : llvm::zip_equal(indices, type.getShape())) {
      std::optional<int64_t> value = getConstantIntValue(index);
      if (!value)
        return std::nullopt;
      element = llvm::checkedMul(*element, size);
      if (element)
        element = llvm::checkedAdd(*element, *value);
      if (!element)
        return std::nullopt;
    }
    return element;
  }
  if (hasElementCountOverflow(type))
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  std::optional<int64_t> element = offset;
  for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
    std::optional<int64_t> value = getConstantIntValue(index);
    if (!value)
      return std::nullopt;
    std::optional<int64_t> term = llvm::checkedMul(*value, stride);
    element = term ? llvm::checkedAdd(*element, *term) : std::nullopt;
    if (!element)
      return std::nullopt;
  }
  return element;
}

static unsigned bitWidth(Type type) {
  return type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
}

const ptx::Form &mlir::tile::selectForm(ArrayRef<ptx::Form> forms,
                                        ValueRange args) {
  for (const ptx::Form &form : forms) {
    if (form.operands.size() != args.size())
      continue;
    bool fits = llvm::all_of(llvm::zip(args, form.operands), [](auto pair) {
      auto [value, operand] = pair;
      // An immediate takes a constant; a form whose operand may also be a
      // register (bar.sync) has a signature for a runtime value after it.
      if (operand.role == ptx::Role::Imm)
        return isa<IntegerType, IndexType>(value.getType()) &&
               matchPattern(value, m_Constant());
      if (auto memref = dyn_cast<MemRefType>(value.getType()))
        return memref.getRank() > 0 && memref.getShape().back() == operand.count &&
               bitWidth(memref.getElementType()) == operand.bits;
      return operand.count == 1 && bitWidth(value.getType()) == operand.bits;
    });
    if (fits)
      return form;
  }
  // None fits: the one with as many operands, whose diagnostics name what
  // is wrong with them, else the primary form.
  for (const ptx::Form &form : forms)
    if (form.operands.size() == args.size())
      return form;
  return forms.front();
}

InstrRegisters mlir::tile::getInstrRegisters(const ptx::Form &form) {
  InstrRegisters registers;
  std::optional<unsigned> memory = form.memoryOperand();
  for (auto [index, operand] : llvm::enumerate(form.operands)) {
    // A second memory operand (cp.async's source) reaches tile.instr as its
    // 64-bit address, an input; the first is the instruction's memref.
    if (operand.isMemory() && index != memory) {
      registers.read.push_back(&operand);
      continue;
    }
    for (unsigned reg = 0; reg < operand.count; ++reg) {
      if (operand.role == ptx::Role::Dst && !operand.isMemory())
        registers.kept.push_back(registers.written.size());
      if (operand.isWritten())
        registers.written.push_back(&operand);
      if (operand.isRead())
        registers.read.push_back(&operand);
    }
  }
  return registers;
}

bool mlir::tile::hasElementCountOverflow(MemRefType type) {
  // Identity strides are products of the sizes: MemRefType asserts when one
  // overflows, so no layout question may be asked of such a type.
  int64_t count = 1;
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size))
      continue;
    std::optional<int64_t> product = llvm::checkedMul(count, size);
    if (!product)
      return true;
    count = *product;
  }
  return false;
}

std::optional<int64_t> mlir::tile::getKnownBlockThreads(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!func)
    return std::nullopt;
  auto sizes = func->getAttrOfType<DenseI32ArrayAttr>("known_block_size");
  if (!sizes)
    return std::nullopt;
  // Each size is at most 2^31, so the product of three fits in 2^93 only as
  // a saturated value: anything over kMaxBlockThreads is rejected anyway.
  int64_t threads = 1;
  for (int32_t size : sizes.asArrayRef()) {
    if (size < 1)
      return 0;
    threads = std::min<int64_t>(threads * size, kMaxBlockThreads + 1);
  }
  return threads;
}

std::optional<SmallVector<int64_t>>
mlir::tile::getScopeGroupShape(StringRef scope, Operation *op) {
  if (scope == "thread")
    return SmallVector<int64_t>{};
  if (scope == "warp")
    return SmallVector<int64_t>{32};
  if (scope == "warpgroup")
    return SmallVector<int64_t>{4, 32};
  if (scope == "cta") {
    std::optional<int64_t> threads = getKnownBlockThreads(op);
    int64_t warps = threads && *threads % 32 == 0 ? *threads / 32 : ShapedType::kDynamic;
    return SmallVector<int64_t>{warps, 32};
  }
  return std::nullopt;
}

static std::optional<int64_t> knownOffsetResidue(Value memref, int64_t modulus,
                                                 int depth = 0);

namespace {

/// The scope that owns a register tile, found by walking its views back to
/// the allocation; fails (with `why`) where a view takes group axes apart,
/// which would hand one thread's registers to another.
FailureOr<StringRef> traceOwner(Value tile, unsigned groupRank,
                                std::string &why) {
  Value value = tile;
  while (Operation *def = value.getDefiningOp()) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(def)) {
      auto scope = alloca->getAttrOfType<StringAttr>(kScopeAttrName);
      return scope ? scope.getValue() : StringRef("thread");
    }
    if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
      ArrayRef<int64_t> sourceShape = subview.getSourceType().getShape();
      for (unsigned axis = 0; axis < groupRank; ++axis) {
        if (subview.getStaticOffsets()[axis] != 0 ||
            subview.getStaticStrides()[axis] != 1 ||
            subview.getStaticSizes()[axis] != sourceShape[axis]) {
          why = "a subview that slices group axis " + std::to_string(axis) +
                " would move registers between threads; group axes must be "
                "taken whole";
          return failure();
        }
      }
      value = subview.getSource();
      continue;
    }
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
      auto groups = expand.getReassociationIndices();
      for (unsigned axis = 0; axis < groupRank; ++axis)
        if (axis >= groups.size() || groups[axis].size() != 1) {
          why = "a reshape that splits group axes would move registers "
                "between threads";
          return failure();
        }
      value = expand.getSrc();
      continue;
    }
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
      auto groups = collapse.getReassociationIndices();
      for (unsigned axis = 0; axis < groupRank; ++axis)
        if (axis >= groups.size() || groups[axis].size() != 1) {
          why = "a reshape that merges group axes would move registers "
                "between threads";
          return failure();
        }
      value = collapse.getSrc();
      continue;
    }
    if (isa<ViewOp, BroadcastOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    break;
  }
  return StringRef("thread");
}

std::string joinCarriers(const ptx::Operand &operand) {
  std::vector<std::string> carriers = operand.carriers();
  std::string text;
  for (size_t i = 0; i < carriers.size(); ++i) {
    if (i)
      text += i + 1 == carriers.size() ? " or " : ", ";
    text += carriers[i];
  }
  return text;
}

/// Whether `type` can carry one register of `operand`: an integer of the same
/// width, or exactly the operand's scalar float type.
bool fitsCarrier(Type type, const ptx::Operand &operand) {
  if (operand.isPredicate())
    return type.isSignlessInteger(1);
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() == operand.bits;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    StringRef expected = operand.floatCarrier();
    return (expected == "f16" && floatType.isF16()) ||
           (expected == "bf16" && floatType.isBF16()) ||
           (expected == "f32" && floatType.isF32()) ||
           (expected == "f64" && floatType.isF64());
  }
  return false;
}

std::string carrierMismatch(const ptx::Operand &operand, Type got) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "expected a " << operand.bits << "-bit carrier for " << operand.type
     << " (" << joinCarriers(operand) << "), got " << got;
  return text;
}

std::string shapeText(ArrayRef<int64_t> shape) {
  return "(" +
         llvm::join(llvm::map_range(shape,
                                    [](int64_t d) {
                                      return ShapedType::isDynamic(d)
                                                 ? std::string("?")
                                                 : std::to_string(d);
                                    }),
                    ", ") +
         ")";
}

/// Whether the strided layout of `type` maps distinct coordinates to distinct
/// elements. Returns std::nullopt when its strides are not static or an
/// element offset does not fit in int64 (it would wrap onto another).
std::optional<bool> isInjective(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (hasElementCountOverflow(type) ||
      failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  // An axis of extent 1 never multiplies its stride: a runtime one there
  // (a row of a runtime-sized tensor) moves nothing.
  for (auto [extent, stride] : llvm::zip_equal(shape, strides)) {
    if (extent == 1)
      stride = 0;
    else if (ShapedType::isDynamic(stride))
      return std::nullopt;
  }
  // The span of each axis, checked: a layout that wraps is not a layout.
  std::optional<int64_t> low = 0, high = 0;
  for (auto [extent, stride] : llvm::zip_equal(shape, strides)) {
    if (extent == 0)
      return true;
    std::optional<int64_t> reach = llvm::checkedMul(extent - 1, stride);
    if (!reach)
      return std::nullopt;
    (*reach < 0 ? low : high) =
        llvm::checkedAdd(*(*reach < 0 ? low : high), *reach);
    if (!low || !high)
      return std::nullopt;
  }
  int64_t count = type.getNumElements();
  // Small tiles are enumerated; larger ones use the sufficient condition that
  // each axis's stride clears the span of all finer axes.
  if (count <= (1 << 20)) {
    std::vector<int64_t> positions;
    positions.reserve(count);
    SmallVector<int64_t> coord(shape.size(), 0);
    for (int64_t n = 0; n < count; ++n) {
      int64_t pos = 0;
      for (size_t i = 0; i < shape.size(); ++i)
        pos += coord[i] * strides[i];
      positions.push_back(pos);
      for (int i = shape.size() - 1; i >= 0; --i) {
        if (++coord[i] < shape[i])
          break;
        coord[i] = 0;
      }
    }
    llvm::sort(positions);
    return std::adjacent_find(positions.begin(), positions.end()) ==
           positions.end();
  }
  SmallVector<std::pair<int64_t, int64_t>> axes;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] > 1)
      axes.push_back({std::abs(strides[i]), shape[i]});
  llvm::sort(axes);
  int64_t span = 1;
  for (auto [stride, extent] : axes) {
    if (stride < span)
      return false;
    span = stride * (extent - 1) + span;
  }
  return true;
}

using DiagFn = llvm::function_ref<InFlightDiagnostic()>;

/// A register tile passed to an apply at `scope` must be owned by it.
LogicalResult verifyOwnership(DiagFn diag, Value tile, unsigned groupRank,
                              StringRef scope) {
  std::string why;
  FailureOr<StringRef> owner = traceOwner(tile, groupRank, why);
  if (failed(owner))
    return diag() << why;
  if (*owner != scope)
    return diag() << "the tile is owned by scope " << *owner
                  << ", but the apply runs at scope " << scope
                  << "; ownership cannot change";
  return success();
}

LogicalResult verifyElementCount(DiagFn diag, MemRefType memref) {
  if (hasElementCountOverflow(memref))
    return diag() << "the shape of " << memref
                  << " holds more elements than a 64-bit index counts";
  return success();
}

/// The NVPTX address space the memory operand of `operand` is in.
unsigned expectedAddressSpace(const ptx::Operand &operand) {
  switch (operand.space) {
  case ptx::Space::Global:
    return kGlobalAddressSpace;
  case ptx::Space::Shared:
  case ptx::Space::SharedCluster:
    return kSharedAddressSpace;
  case ptx::Space::Generic:
    return 0;
  case ptx::Space::Const:
    return kConstAddressSpace;
  case ptx::Space::Param:
    return kParamAddressSpace;
  case ptx::Space::Local:
  case ptx::Space::Reg:
    return kRegisterAddressSpace;
  }
  return kRegisterAddressSpace;
}

/// What every memory access needs, in tile.apply and tile.instr alike: the
/// form's state space, a countable strided layout, and elements that carry
/// the operand (a whole number of bytes, so addresses are distinct).
LogicalResult verifyMemoryType(DiagFn diag, StringRef opcode,
                               const ptx::Operand &operand, MemRefType memref) {
  unsigned expected = expectedAddressSpace(operand);
  std::optional<unsigned> space = getAddressSpace(memref);
  // The .shared::cluster window holds the block's own shared memory and,
  // through tile.mapa, every other block's of its cluster.
  bool clusterWindow = operand.space == ptx::Space::SharedCluster &&
                       space == kSharedClusterAddressSpace;
  if (space != expected && !clusterWindow) {
    InFlightDiagnostic error = diag()
                               << "expected a memref in the "
                               << ptx::stringifySpace(operand.space)
                               << " address space (" << expected;
    if (operand.space == ptx::Space::SharedCluster)
      error << " or " << kSharedClusterAddressSpace;
    error << ") for " << opcode << ", got " << memref;
    if (space == kSharedClusterAddressSpace)
      error << "; another block's shared memory (tile.mapa) is addressed "
               "only through .shared::cluster";
    return error;
  }
  if (failed(verifyElementCount(diag, memref)))
    return failure();
  if (!memref.isStrided())
    return diag() << "expected a strided layout, got " << memref;
  // A memory operand sized by an immediate (cp.async's cp-size) holds bytes
  // of any integer or float elements, and a box those of its tensor map;
  // ApplyOp::verify checks their count.
  if (operand.sizedBy.empty() && !operand.box &&
      !fitsCarrier(memref.getElementType(), operand))
    return diag() << carrierMismatch(operand, memref.getElementType());
  return success();
}

/// A bulk copy's (cp.async.bulk) addresses are aligned to this (PTX ISA
/// 9.0, cp.async.bulk).
constexpr int64_t kBulkAlignment = 16;

/// A vector access moves count contiguous elements at an address aligned to
/// the whole vector. Static layouts are checked here; a dynamic offset is
/// the caller's promise, and a broken one faults (misaligned address) rather
/// than computing a wrong value.
LogicalResult verifyVectorLayout(DiagFn diag, const ptx::Operand &operand,
                                 MemRefType memref,
                                 std::optional<int64_t> element = {},
                                 StringRef family = {}) {
  if (operand.count == 1)
    return success();
  // A lane's row of ldmatrix/stmatrix: 16 contiguous bytes aligned to 16.
  bool row = family == "ldmatrix" || family == "stmatrix";
  std::string access = row ? ("an " + family + " row of " +
                              std::to_string(operand.count))
                                 .str()
                       : operand.bulk ? "a bulk copy of"
                                      : "a .v" + std::to_string(operand.count) +
                                            " access of";
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return success();
  if (strides.back() != 1)
    return diag() << (row ? "an " + family.str() + " row" : access.substr(0, access.size() - 3))
                  << " needs a contiguous final axis (stride 1), got "
                     "layout "
                  << memref.getLayout();
  auto misaligned = [&](int64_t v) {
    return !ShapedType::isDynamic(v) && v % operand.count != 0;
  };
  bool bad = misaligned(offset) || (element && misaligned(*element));
  for (int64_t stride : ArrayRef(strides).drop_back())
    bad |= misaligned(stride);
  if (bad)
    return diag() << access << " " << operand.bits
                  << "-bit elements must be aligned to "
                  << operand.count * operand.bits / 8 << " bytes, but layout "
                  << memref.getLayout()
                  << " places an access at an element offset that is not a "
                     "multiple of "
                  << operand.count;
  return success();
}

/// An access of `count` elements through `memref` whose runtime offset is
/// provably not a multiple of `count` (a row index times 8 words plus 2,
/// for a .v4): the chip would fault on it (misaligned address), so it is an
/// error here. A runtime offset the proof cannot fix passes (the chip
/// checks it; so does the interpreter).
LogicalResult verifyRuntimeAlignment(DiagFn diag, Value memref, int64_t count) {
  if (count <= 1)
    return success();
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      !ShapedType::isDynamic(offset))
    return success();
  std::optional<int64_t> residue = knownOffsetResidue(memref, count);
  if (!residue || *residue == 0)
    return success();
  return diag() << "an access of " << count
                << " elements must start at a multiple of " << count
                << ", but its runtime offset is " << *residue
                << " past one (modulo " << count << ")";
}

/// A memory operand addressed through a tile.swizzle: each access of
/// `bytes` stays inside one unit the swizzle moves whole (2^base bytes).
/// The layout check proved the access aligned to its size where the offset
/// is static, and the chip faults where a runtime one is not, so its bytes
/// stay contiguous and aligned under the swizzle.
LogicalResult verifySwizzledAccess(DiagFn diag, Value memref, int64_t bytes) {
  SwizzleOp swizzle = getSwizzle(memref);
  if (!swizzle || bytes <= (int64_t(1) << swizzle.getBase()))
    return success();
  return diag() << "a " << bytes
                << "-byte access must stay in one unit of its swizzle, but "
                   "swizzle {bits = "
                << swizzle.getBits() << ", base = " << swizzle.getBase()
                << ", shift = " << swizzle.getShift() << "} moves units of "
                << (int64_t(1) << swizzle.getBase()) << " bytes";
}

/// An immediate operand is an integer constant that the form takes.
LogicalResult verifyImmediate(DiagFn diag, StringRef opcode,
                              const ptx::Operand &operand, Value value) {
  if (!isa<IntegerType, IndexType>(value.getType()))
    return diag() << "an immediate must be an integer constant, got "
                  << value.getType();
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return diag() << "an immediate must be a constant (arith.constant), not "
                     "a value computed at run time";
  // Read as signed, as arith.constant prints it: 0xFF in an i8 is -1.
  if (constant.getSignificantBits() > 33 ||
      !operand.takesImmediate(constant.getSExtValue()))
    return diag() << "immediate " << llvm::toString(constant, 10, true)
                  << " is not legal for " << opcode << ": expected "
                  << operand.immediateText();
  return success();
}

/// A form must exist on every chip the op is compiled for.
LogicalResult verifyTargets(Operation *op, const ptx::Form &form) {
  for (StringRef chip : getTargetChipsFor(op)) {
    std::optional<ptx::Target> target = ptx::Target::parse(chip);
    if (!target)
      return op->emitOpError() << "unknown target '" << chip
                               << "': expected sm_XX, sm_XXa or sm_XXf with a "
                                  "known XX";
    std::string error;
    if (!ptx::isAvailableOn(form, *target, error))
      return op->emitOpError() << error;
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// ApplyOp
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::verifyThreadRegisterTile(DiagFn diag, Value tile,
                                                 bool destination) {
  auto memref = dyn_cast<MemRefType>(tile.getType());
  if (!memref || getAddressSpace(memref) != kRegisterAddressSpace)
    return diag() << "expected a register tile (a memref in address space 5, "
                     "owned by the issuing thread), got "
                  << tile.getType()
                  << "; global and shared tensors need explicit ld/st";
  if (failed(verifyElementCount(diag, memref)))
    return failure();
  if (!memref.hasStaticShape() || !memref.isStrided())
    return diag() << "expected a statically shaped, strided tile, got "
                  << memref;
  if (failed(verifyOwnership(diag, tile, /*groupRank=*/0, "thread")))
    return failure();
  if (!destination)
    return success();
  std::optional<bool> injective = isInjective(memref);
  if (!injective)
    return diag() << "destination layout " << memref.getLayout()
                  << " addresses elements beyond the 64-bit index range";
  if (!*injective)
    return diag() << "destination slots overlap (layout "
                  << memref.getLayout()
                  << "); each element needs its own register";
  return success();
}

/// A warp collective's constant membermask names only lanes the block has:
/// in a block of 48 threads the second warp has lanes 0-15, and a mask
/// with a higher lane (a full mask) waits for threads that do not exist.
static LogicalResult verifyMemberMask(ApplyOp op, const ptx::Form &form) {
  for (auto [value, operand] : llvm::zip(op.getArgs(), form.operands)) {
    APInt mask;
    if (operand.name != "membermask" || !matchPattern(value, m_ConstantInt(&mask)))
      continue;
    std::optional<int64_t> threads = getKnownBlockThreads(op);
    if (!threads || *threads % 32 == 0)
      continue;
    uint64_t lanes = mask.getZExtValue() & 0xffffffffu;
    int64_t last = *threads % 32;
    if (lanes >> last)
      return op.emitOpError()
             << "membermask 0x" << llvm::utohexstr(lanes, /*LowerCase=*/true)
             << " names lanes " << last << "-31 of the last warp, which a "
             << "block of " << *threads << " threads does not have";
  }
  return success();
}

/// The value of the immediate operand `name` of an apply, if constant.
static std::optional<int64_t> sizeOf(StringRef name, const ptx::Form &form,
                                     ValueRange args) {
  for (auto [value, operand] : llvm::zip(args, form.operands)) {
    APInt constant;
    if (operand.name == name && matchPattern(value, m_ConstantInt(&constant)))
      return constant.getSExtValue();
  }
  return std::nullopt;
}

/// A wgmma's descriptor made by tile.matrix_descriptor in place describes
/// the operand the instruction reads: for a-desc (b-desc) of
/// m64nNkK, K-major (imm-trans 0, or a form without it) a tile of M (N)
/// rows and K columns; MN-major a tile of K rows and M (N) columns, or a
/// 3-D one of swizzled rows whose columns add up to M (N); elements as
/// wide as the instruction's input type. The form table gives the shape
/// and each descriptor's element type.
static LogicalResult verifyDescriptorShapes(ApplyOp op,
                                            const ptx::Form &form) {
  if (!form.matrixShape)
    return success();
  auto [m, n, k] = *form.matrixShape;
  for (auto [value, operand] : llvm::zip(op.getArgs(), form.operands)) {
    bool isA = operand.name == "a-desc";
    if (!isA && operand.name != "b-desc")
      continue;
    auto descriptor = value.getDefiningOp<MatrixDescriptorOp>();
    // b1 elements have no tile type to describe them.
    if (!descriptor || operand.matrixBits == 1)
      continue;
    StringRef trans = isA ? "imm-trans-a" : "imm-trans-b";
    std::optional<int64_t> transposed = sizeOf(trans, form, op.getArgs());
    bool mnMajor = transposed && *transposed == 1;
    int64_t mn = isA ? m : n;
    MemRefType type = descriptor.getTile().getType();
    ArrayRef<int64_t> shape = type.getShape();
    if (type.getElementTypeBitWidth() != operand.matrixBits)
      return op.emitOpError()
             << operand.name << " describes a tile of "
             << type.getElementTypeBitWidth() << "-bit elements, but "
             << form.opcode << " reads " << operand.matrixType << " ("
             << operand.matrixBits << " bits)";
    int64_t columns =
        shape.size() == 3 ? shape[0] * shape[2] : shape.back();
    int64_t rows = shape[shape.size() - 2];
    bool fits = mnMajor ? rows == k && columns == mn
                        : shape.size() == 2 && rows == mn && columns == k;
    if (!fits) {
      InFlightDiagnostic diag = op.emitOpError();
      diag << operand.name << " describes a ";
      llvm::interleave(shape, diag, "x");
      diag << " tile, but " << form.opcode << " reads "
           << (isA ? "A" : "B") << " "
           << (mnMajor ? "MN-major" : "K-major") << " as ";
      if (mnMajor)
        diag << k << " rows of K by " << mn << " columns of "
             << (isA ? "M" : "N");
      else
        diag << mn << " rows of " << (isA ? "M" : "N") << " by " << k
             << " columns of K (a 2-D tile)";
      return diag;
    }
  }
  return success();
}

/// Checks that each descriptor operand made by tile.matrix_descriptor has
/// the format its instruction reads: wgmma sm_90's, tcgen05 (mma's a-desc
/// and b-desc, cp's s-desc) sm_100's, whose version field differs.
static LogicalResult verifyDescriptorFormats(ApplyOp op,
                                             const ptx::Form &form) {
  StringRef wanted = form.family == "tcgen05" ? "tcgen05" : "wgmma";
  for (auto [value, operand] : llvm::zip(op.getArgs(), form.operands)) {
    auto descriptor = value.getDefiningOp<MatrixDescriptorOp>();
    if (!descriptor ||
        (operand.name != "a-desc" && operand.name != "b-desc" &&
         operand.name != "s-desc"))
      continue;
    if (descriptor.getFormat() != wanted)
      return op.emitOpError()
             << operand.name << " is a " << descriptor.getFormat()
             << " descriptor, but " << form.opcode << " reads "
             << (wanted == "tcgen05" ? "sm_100's" : "sm_90's")
             << ": tile.matrix_descriptor {format = \"" << wanted << "\"}";
  }
  return success();
}

/// Checks that `tile`, the box operand of a TMA of `dims` dimensions, is
/// the box of `map`: its shape, element width, layout, swizzle and
/// alignment.
static LogicalResult verifyTensorBox(DiagFn diag, Value tile,
                                     StringRef opcode, TensorMapOp map,
                                     unsigned dims);

/// Whether `op` is a tile.apply or tile.instr whose opcode writes the carry
/// flag (a .cc form).
static bool writesCarry(Operation *op) {
  StringRef opcode;
  if (auto apply = dyn_cast<ApplyOp>(op))
    opcode = apply.getOpcode();
  else if (auto instr = dyn_cast<InstrOp>(op))
    opcode = instr.getOpcode();
  else
    return false;
  std::string error;
  ArrayRef<ptx::Form> forms = ptx::lookupForms(opcode, error);
  return !forms.empty() && forms.front().writesCarry;
}

/// A reader of the carry flag (addc, subc, madc) needs a writer before it
/// in its block: the flag is state between instructions, and one set in
/// another block (before a branch, in a loop's previous trip) is not
/// proven to reach it.
static LogicalResult verifyCarryChain(Operation *op, StringRef opcode,
                                      const ptx::Form &form) {
  if (!form.readsCarry)
    return success();
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (writesCarry(prev))
      return success();
  return op->emitOpError()
         << opcode << " reads the carry flag (CC.CF), which no instruction "
         << "before it in its block writes: begin the chain in the same "
         << "block with a form that writes it (add.cc, sub.cc, mad.lo.cc, "
         << "addc.cc, ...)";
}

LogicalResult ApplyOp::verify() {
  std::string error;
  ArrayRef<ptx::Form> forms = ptx::lookupForms(getOpcode(), error);
  if (forms.empty())
    return emitOpError() << error;
  const ptx::Form *form = &selectForm(forms, getArgs());

  std::optional<SmallVector<int64_t>> groupShape =
      getScopeGroupShape(getScope(), *this);
  if (!groupShape)
    return emitOpError() << "scope \"" << getScope()
                         << "\" is not supported: supported scopes are "
                            "thread, warp, warpgroup, cta";
  unsigned groupRank = groupShape->size();
  if (groupRank) {
    // The group is distributed over the threads of the block, so the block
    // must hold whole groups.
    std::optional<int64_t> threads = getKnownBlockThreads(*this);
    if (threads && (*threads < 1 || *threads > kMaxBlockThreads))
      return emitOpError() << "known_block_size must hold 1 to "
                           << kMaxBlockThreads << " threads";
    int64_t unit = getScope() == "warpgroup" ? 128 : 32;
    if (threads && (*threads < unit || *threads % unit != 0))
      return emitOpError() << "scope " << getScope() << " needs a block of a "
                           << "multiple of " << unit << " threads, got "
                           << *threads;
  }

  if (failed(verifyTargets(*this, *form)))
    return failure();
  if (failed(verifyCarryChain(*this, getOpcode(), *form)))
    return failure();

  ValueRange args = getArgs();
  if (args.size() != form->operands.size()) {
    SmallVector<StringRef> names;
    for (const ptx::Operand &operand : form->operands)
      names.push_back(operand.name);
    return emitOpError() << "expected " << form->operands.size()
                         << " operands for " << getOpcode() << " ("
                         << llvm::join(names, ", ") << "), got "
                         << args.size();
  }

  if (form->blockBarrier && getPred())
    return emitOpError() << getOpcode()
                         << " takes no predicate: a barrier is reached by "
                            "every thread it counts, and a guard would leave "
                            "part of them behind";
  if (form->blockBarrier && getScope() != "thread")
    return emitOpError() << getOpcode()
                         << " is issued by each thread: scope \"thread\", "
                            "got \"" << getScope() << "\"";

  if (form->warpgroupCollective && getPred())
    return emitOpError() << getOpcode()
                         << " takes no predicate: every thread of the "
                            "warpgroup executes it (a guard false in one "
                            "thread leaves the others waiting)";
  if (form->warpCollective && getPred())
    return emitOpError() << getOpcode()
                         << " takes no predicate: every lane of its "
                            "membermask executes it (a guard false in one "
                            "lane leaves the others waiting)";
  if (form->warpCollective && failed(verifyMemberMask(*this, *form)))
    return failure();
  if (failed(verifyDescriptorFormats(*this, *form)))
    return failure();
  if (form->warpgroupCollective && failed(verifyDescriptorShapes(*this, *form)))
    return failure();

  if (getPreserveDst()) {
    if (!getPred())
      return emitOpError() << "preserve_dst requires a predicate";
    if (form->writesMemory)
      return emitOpError() << "preserve_dst applies to register destinations; "
                           << getOpcode() << " writes memory";
  }

  // A form whose operands span named repeat axes (an mma's (m, n, k)) is a
  // warp's instruction over fragments: each operand's repeat axes are its
  // letters, and a letter has one extent in every operand that spans it.
  // Each thread holds its own fragment registers, so the tiles are the
  // thread's (scope thread) or a warp's rows of them (scope warp).
  bool namedAxes = llvm::any_of(
      form->operands, [](const ptx::Operand &o) { return !o.axes.empty(); });
  if (form->warpgroupCollective && getScope() != "warpgroup" &&
      getScope() != "thread")
    return emitOpError() << getOpcode()
                         << " is a warpgroup's instruction over fragments: "
                            "scope \"thread\" or \"warpgroup\", got \""
                         << getScope() << "\"";
  if (namedAxes && !form->warpgroupCollective && getScope() != "warp" &&
      getScope() != "thread")
    return emitOpError() << getOpcode()
                         << " is a warp's instruction over fragments: scope "
                            "\"thread\" or \"warp\", got \""
                         << getScope() << "\"";
  llvm::StringMap<std::pair<int64_t, StringRef>> axisExtents;

  std::optional<SmallVector<int64_t>> repeatShape;
  StringRef repeatOwner;
  for (auto [value, operand] : llvm::zip_equal(args, form->operands)) {
    auto diag = [&, &operand = operand]() {
      return emitOpError() << operand.name << ": ";
    };
    if (operand.role == ptx::Role::Imm) {
      if (failed(verifyImmediate(diag, getOpcode(), operand, value)))
        return failure();
      continue;
    }
    if (operand.address && operand.bits == 64 &&
        form->accessesDescribedMemory) {
      // The only address of a tensor map a kernel has is its parameter's,
      // a generic one. (createpolicy.range's address only bounds a range;
      // a tensor-memory address, tcgen05's [taddr], is a b32.)
      if (!value.getDefiningOp<TensorMapOp>())
        return diag() << "expected the address of a tensor map, which "
                         "tile.tensor_map gives";
    }
    if (operand.box) {
      TensorMapOp mapOp;
      const ptx::Operand *coords = nullptr;
      for (auto [other, spec] : llvm::zip(args, form->operands)) {
        if (spec.address)
          mapOp = other.getDefiningOp<TensorMapOp>();
        if (spec.withinAddress)
          coords = &spec;
      }
      if (!coords || !mapOp)
        return diag() << "the box is the tensor map's: tensorMap must come "
                         "from tile.tensor_map, which states it";
      if (!isa<MemRefType>(value.getType()))
        return diag() << "expected a shared tile, got " << value.getType();
      if (failed(verifyTensorBox(diag, value, getOpcode(), mapOp,
                                 coords->count)))
        return failure();
      continue;
    }
    auto memref = dyn_cast<MemRefType>(value.getType());
    if (!memref) {
      // A scalar SSA value stands for one read register, reused by every
      // repeat. It must already be the whole carrier.
      if (operand.isMemory())
        return diag() << "expected a memref in the "
                      << ptx::stringifySpace(operand.space)
                      << " address space, got " << value.getType();
      if (operand.isWritten())
        return diag() << (operand.role == ptx::Role::Dst
                              ? "a destination"
                              : "a read-write operand")
                      << " must be a register tile, not a scalar value";
      if (operand.count != 1)
        return diag() << "a scalar can only replace a single-register input, "
                         "but "
                      << getOpcode() << " reads " << operand.count
                      << " registers here";
      if (!fitsCarrier(value.getType(), operand))
        return diag() << carrierMismatch(operand, value.getType());
      // A scalar is a value, not register storage: an integer constant read
      // as f32 would be its bit pattern (1 became a denormal), so a float
      // operand takes a scalar of its own type and bits are reinterpreted
      // explicitly (arith.bitcast).
      StringRef floatType = operand.floatCarrier();
      if (!floatType.empty() && !isa<FloatType>(value.getType()))
        return diag() << "a scalar read as " << operand.type << " must be "
                      << floatType << ", got " << value.getType()
                      << "; reinterpret bits explicitly with arith.bitcast";
      continue;
    }

    if (!operand.isMemory()) {
      if (getAddressSpace(memref) != kRegisterAddressSpace)
        return diag() << "expected a register tile (a memref in address "
                         "space 5, owned by the issuing thread), got "
                      << memref
                      << "; global and shared tensors need explicit ld/st";
      if (failed(verifyElementCount(diag, memref)))
        return failure();
      if (!memref.isStrided())
        return diag() << "expected a strided layout, got " << memref;
    } else if (failed(verifyMemoryType(diag, getOpcode(), operand, memref))) {
      return failure();
    }
    if (!memref.hasStaticShape() || memref.getRank() == 0)
      return diag() << "expected a statically shaped tile with a final "
                       "register axis, got "
                    << memref;
    ArrayRef<int64_t> shape = memref.getShape();
    if (!operand.sizedBy.empty()) {
      // The final axis holds the immediate's bytes, contiguous and aligned
      // to their size (cp.async's cp-size).
      std::optional<int64_t> bytes = sizeOf(operand.sizedBy, *form, args);
      if (!bytes)
        return diag() << "the final axis holds the " << operand.sizedBy
                      << " bytes of one copy, so " << operand.sizedBy
                      << " must be a constant";
      Type element = memref.getElementType();
      int64_t width = element.isIntOrFloat()
                          ? element.getIntOrFloatBitWidth() / 8
                          : 0;
      if (width == 0 || shape.back() * width != *bytes)
        return diag() << "the final axis holds the " << operand.sizedBy
                      << " bytes of one copy: " << *bytes << ", got "
                      << shapeText(shape) << " of " << element;
      ptx::Operand sized = operand;
      sized.count = shape.back();
      sized.bits = width * 8;
      // A size the form does not take is the immediate's own error.
      const ptx::Operand *size = llvm::find_if(
          form->operands,
          [&](const ptx::Operand &o) { return o.name == operand.sizedBy; });
      if (!size->takesImmediate(*bytes))
        continue;
      // A bulk copy's bytes start at an address aligned to 16: one vector
      // of 16 bytes stands for the alignment.
      if (operand.bulk)
        sized.count = kBulkAlignment / width;
      if (failed(verifyVectorLayout(diag, sized, memref)) ||
          failed(verifyRuntimeAlignment(diag, value, sized.count)) ||
          failed(verifySwizzledAccess(diag, value, *bytes)))
        return failure();
    } else if (shape.back() != operand.count) {
      if (operand.count == 1)
        return diag() << "the final axis counts the registers of one "
                         "instruction and must have extent 1, got "
                      << shapeText(shape)
                      << "; add a singleton register axis";
      return diag() << "the final axis counts the registers of one "
                       "instruction and must have extent "
                    << operand.count << " for " << getOpcode() << ", got "
                    << shapeText(shape);
    }
    if (shape.size() < groupRank + 1 ||
        llvm::any_of(llvm::zip(shape.take_front(groupRank), *groupShape),
                     [](auto pair) {
                       auto [got, want] = pair;
                       return !ShapedType::isDynamic(want) && got != want;
                     }))
      return diag() << "scope " << getScope() << " needs leading group axes "
                    << shapeText(*groupShape) << " before the repeat and "
                    << "register axes, got " << shapeText(shape);
    if (!operand.isMemory() &&
        failed(verifyOwnership(diag, value, groupRank, getScope())))
      return failure();
    if (!operand.axes.empty()) {
      ArrayRef<int64_t> own = shape.drop_front(groupRank).drop_back();
      if (own.size() != operand.axes.size())
        return diag() << "spans the repeat axes (" << operand.axes
                      << "): expected a shape of the group axes, "
                      << operand.axes.size() << " repeat axes and "
                      << operand.count << " registers, got "
                      << shapeText(shape);
      for (auto [letter, extent] : llvm::zip(operand.axes, own)) {
        auto [it, fresh] = axisExtents.try_emplace(
            StringRef(&letter, 1), extent, operand.name);
        if (!fresh && it->second.first != extent)
          return diag() << "repeat axis " << letter << " has extent "
                        << extent << ", but " << it->second.second
                        << "'s has " << it->second.first;
      }
    } else {
      SmallVector<int64_t> repeats(shape.drop_back());
      if (!repeatShape) {
        repeatShape = repeats;
        repeatOwner = operand.name;
      } else if (*repeatShape != repeats) {
        return diag() << "repeat shape " << shapeText(repeats)
                      << " does not match " << repeatOwner << "'s "
                      << shapeText(*repeatShape);
      }
    }
    // A memory operand's carrier was checked with its space, above.
    if (!operand.isMemory() && !fitsCarrier(memref.getElementType(), operand))
      return diag() << carrierMismatch(operand, memref.getElementType());
    if (operand.isMemory() && operand.sizedBy.empty() &&
        (failed(verifyVectorLayout(diag, operand, memref, {}, form->family)) ||
         failed(verifyRuntimeAlignment(diag, value, operand.count)) ||
         failed(verifySwizzledAccess(
             diag, value,
             operand.count * (memref.getElementTypeBitWidth() / 8)))))
      return failure();
    if (operand.role == ptx::Role::Dst ||
        operand.role == ptx::Role::ReadWrite) {
      std::optional<bool> injective = isInjective(memref);
      if (!injective && llvm::any_of(memref.getStridesAndOffset().first,
                                     ShapedType::isDynamic))
        return diag() << "destination layout " << memref.getLayout()
                      << " repeats along a runtime stride: its slots "
                         "cannot be proven distinct";
      if (!injective)
        return diag() << "destination layout " << memref.getLayout()
                      << " addresses elements beyond the 64-bit index range";
      if (!*injective)
        return diag() << "destination slots overlap across repeats (layout "
                      << memref.getLayout()
                      << "); each repeat needs its own registers";
    }
  }
  bool copiesBox =
      llvm::any_of(form->operands, [](const ptx::Operand &o) { return o.box; });
  if (copiesBox && repeatShape &&
      llvm::any_of(*repeatShape, [](int64_t extent) { return extent != 1; }))
    return emitOpError() << getOpcode() << " copies one box and is not "
                         << "repeated: its register operands have no repeat "
                         << "axes, got repeat shape " << shapeText(*repeatShape);
  if (auto tile = dyn_cast_if_present<MemRefType>(
          getPred() ? getPred().getType() : Type()))
    return verifyPredicateTile(tile, repeatShape.value_or(*groupShape),
                               groupRank);
  return success();
}

LogicalResult ApplyOp::verifyPredicateTile(MemRefType tile,
                                           ArrayRef<int64_t> repeatShape,
                                           unsigned groupRank) {
  auto diag = [&]() { return emitOpError() << "pred: "; };
  if (getAddressSpace(tile) != kRegisterAddressSpace ||
      !tile.getElementType().isSignlessInteger(1))
    return diag() << "a predicate tile is a register tile of i1 (a memref in "
                     "address space 5), got "
                  << tile;
  if (failed(verifyElementCount(diag, tile)))
    return failure();
  if (!tile.hasStaticShape() || !tile.isStrided())
    return diag() << "expected a statically shaped, strided tile, got " << tile;
  SmallVector<int64_t> expected(repeatShape);
  expected.push_back(1);
  if (tile.getShape() != ArrayRef<int64_t>(expected))
    return diag() << "a predicate tile holds one predicate per repeat: "
                     "expected shape "
                  << shapeText(expected) << ", got " << shapeText(tile.getShape());
  return verifyOwnership(diag, getPred(), groupRank, getScope());
}

//===----------------------------------------------------------------------===//
// InstrOp
//===----------------------------------------------------------------------===//

const ptx::Form *InstrOp::lookupForm(std::string &error) {
  ArrayRef<ptx::Form> forms = ptx::lookupForms(getOpcode(), error);
  if (forms.empty())
    return nullptr;
  // The attribute is an i32; its accessor reads it unsigned, which printed
  // -1 as 4294967295.
  int64_t overload = static_cast<int32_t>(getOverload());
  if (overload < 0 || static_cast<size_t>(overload) >= forms.size()) {
    error = "overload " + std::to_string(overload) + " does not exist: " +
            getOpcode().str() + " has " + std::to_string(forms.size()) +
            " operand signature" + (forms.size() == 1 ? "" : "s");
    return nullptr;
  }
  return &forms[overload];
}

LogicalResult InstrOp::verify() {
  std::string error;
  const ptx::Form *form = lookupForm(error);
  if (!form)
    return emitOpError() << error;
  if (failed(verifyCarryChain(*this, getOpcode(), *form)))
    return failure();
  InstrRegisters registers = getInstrRegisters(*form);
  if (getResults().size() != registers.written.size() ||
      getInputs().size() != registers.read.size()) {
    InFlightDiagnostic diag =
        getResults().size() != registers.written.size()
            ? emitOpError() << "expected " << registers.written.size()
                            << " destination registers for " << getOpcode()
                            << ", got " << getResults().size()
            : emitOpError() << "expected " << registers.read.size()
                            << " source registers and immediates for "
                            << getOpcode() << ", got " << getInputs().size();
    // The counts are those of another signature: name it.
    for (auto [index, other] :
         llvm::enumerate(ptx::lookupForms(getOpcode(), error))) {
      InstrRegisters counts = getInstrRegisters(other);
      if (counts.written.size() == getResults().size() &&
          counts.read.size() == getInputs().size())
        return diag << "; overload " << index << " of " << getOpcode()
                    << " takes these counts ({overload = " << index
                    << " : i32})";
    }
    return diag;
  }
  for (auto [value, operand] : llvm::zip_equal(getResults(), registers.written))
    if (!fitsCarrier(value.getType(), *operand))
      return emitOpError() << operand->name << ": "
                           << carrierMismatch(*operand, value.getType());
  for (auto [value, operand] : llvm::zip_equal(getInputs(), registers.read)) {
    auto diag = [&, operand = operand]() {
      return emitOpError() << operand->name << ": ";
    };
    if (operand->role == ptx::Role::Imm) {
      if (failed(verifyImmediate(diag, getOpcode(), *operand, value)))
        return failure();
    } else if (operand->isMemory()) {
      if (!value.getType().isInteger(64))
        return diag() << "the address of a second memory operand is an i64, "
                         "got "
                      << value.getType();
    } else if (!fitsCarrier(value.getType(), *operand)) {
      return diag() << carrierMismatch(*operand, value.getType());
    }
  }
  if (form->blockBarrier && getPred())
    return emitOpError() << getOpcode()
                         << " takes no predicate: a barrier is reached by "
                            "every thread it counts";
  if (form->takesAddress() != static_cast<bool>(getMemref()))
    return emitOpError() << (form->takesAddress()
                                 ? "expected a memory operand for "
                                 : "unexpected memory operand for ")
                         << getOpcode();
  if (getMemref() &&
      getIndices().size() != static_cast<size_t>(getMemref().getType().getRank()))
    return emitOpError() << "expected " << getMemref().getType().getRank()
                         << " indices, got " << getIndices().size();
  if (getMemref()) {
    // The same rules as tile.apply: IR written by hand or by another pass
    // reaches the lowering only through them.
    MemRefType type = getMemref().getType();
    for (auto [axis, index] : llvm::enumerate(getIndices())) {
      APInt constant;
      int64_t extent = type.getDimSize(axis);
      if (!matchPattern(index, m_ConstantInt(&constant)) ||
          ShapedType::isDynamic(extent))
        continue;
      int64_t position = constant.getSExtValue();
      if (position < 0 || position >= extent)
        return emitOpError() << "memory operand: index " << position
                             << " of axis " << axis
                             << " is out of range for extent " << extent;
    }
    const ptx::Operand &operand = form->operands[*form->memoryOperand()];
    auto diag = [&]() { return emitOpError() << "memory operand: "; };
    if (failed(verifyMemoryType(diag, getOpcode(), operand, type)))
      return failure();
    std::optional<int64_t> element =
        getStaticElementOffset(type, getIndices());
    if (!operand.box &&
        failed(verifyVectorLayout(diag, operand, type, element)))
      return failure();
  }
  if (failed(verifyTargets(*this, *form)))
    return failure();
  if (!getKeep().empty()) {
    if (!getPred())
      return emitOpError() << "keep requires a predicate";
    if (getKeep().size() != registers.kept.size() ||
        llvm::any_of(llvm::zip(getKeep(), registers.kept), [&](auto pair) {
          auto [value, result] = pair;
          return value.getType() != getResult(result).getType();
        }))
      return emitOpError() << "keep must match the destination registers";
  }
  return success();
}

namespace {
/// The carry flag CC.CF: state between instructions that no operand shows.
/// Its readers read and its writers write this resource, so MLIR keeps a
/// chain's order and never merges or drops a link of it.
struct CarryFlagResource
    : public SideEffects::Resource::Base<CarryFlagResource> {
  StringRef getName() final { return "CC.CF"; }
};
/// Blackwell's tensor memory: tcgen05's addresses are b32 values, not
/// memrefs, so its readers and writers name this resource instead.
struct TensorMemoryResource
    : public SideEffects::Resource::Base<TensorMemoryResource> {
  StringRef getName() final { return "TMEM"; }
};
} // namespace

void InstrOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  std::string error;
  const ptx::Form *form = lookupForm(error);
  if (form && (form->blockBarrier || form->ordersMemory ||
               form->synchronizes || form->warpCollective ||
               form->observesWarp || form->accessesDescribedMemory)) {
    // A barrier orders the memory accesses of the threads it joins, and a
    // fence those of its thread: each reads and writes every resource, so
    // nothing is removed, hoisted or sunk across it (and it is never
    // dead); so does an acquire or a release (an mbarrier operation). A
    // warp collective's result depends on which threads execute
    // it with it: the same effects keep MLIR from merging two of them or
    // moving one out of the control flow that decides those threads. A
    // wgmma reads shared memory its descriptors name, which no operand
    // shows.
    effects.emplace_back(MemoryEffects::Read::get());
    effects.emplace_back(MemoryEffects::Write::get());
    return;
  }
  if (form && form->accessesTensorMemory) {
    effects.emplace_back(MemoryEffects::Read::get(),
                         TensorMemoryResource::get());
    effects.emplace_back(MemoryEffects::Write::get(),
                         TensorMemoryResource::get());
  }
  if (form && form->readsCarry)
    effects.emplace_back(MemoryEffects::Read::get(), CarryFlagResource::get());
  if (form && form->writesCarry)
    effects.emplace_back(MemoryEffects::Write::get(), CarryFlagResource::get());
  if (!getMemref())
    return;
  if (!form || form->readsMemory)
    effects.emplace_back(MemoryEffects::Read::get(), &getMemrefMutable()[0]);
  if (!form || form->writesMemory)
    effects.emplace_back(MemoryEffects::Write::get(), &getMemrefMutable()[0]);
}

//===----------------------------------------------------------------------===//
// ViewOp and BroadcastOp
//===----------------------------------------------------------------------===//

static LogicalResult getLayout(Operation *op, MemRefType type,
                               SmallVectorImpl<int64_t> &strides,
                               int64_t &offset) {
  if (hasElementCountOverflow(type))
    return op->emitOpError() << "the shape of " << type
                             << " holds more elements than a 64-bit index "
                                "counts";
  if (failed(type.getStridesAndOffset(strides, offset)))
    return op->emitOpError() << "expected a strided layout, got " << type;
  return success();
}

static constexpr int kMaxProofDepth = 16;

/// A number that the runtime index `value` is a multiple of, read off its
/// arith definition (0: the value is 0; 1: nothing is known).
static int64_t knownMultiple(Value value, int depth = 0) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return *constant == INT64_MIN ? 1 : std::abs(*constant);
  Operation *def = value.getDefiningOp();
  if (!def || depth > kMaxProofDepth)
    return 1;
  if (isa<arith::MulIOp>(def)) {
    int64_t lhs = knownMultiple(def->getOperand(0), depth + 1);
    int64_t rhs = knownMultiple(def->getOperand(1), depth + 1);
    return llvm::checkedMul(lhs, rhs).value_or(1);
  }
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(knownMultiple(def->getOperand(0), depth + 1),
                    knownMultiple(def->getOperand(1), depth + 1));
  if (isa<arith::ShLIOp>(def))
    if (std::optional<int64_t> shift = getConstantIntValue(def->getOperand(1)))
      if (*shift >= 0 && *shift < 62)
        return llvm::checkedMul(knownMultiple(def->getOperand(0), depth + 1),
                                int64_t(1) << *shift)
            .value_or(1);
  return 1;
}

/// A number that the element offset of `memref` is a multiple of (0: the
/// offset is 0), following the subviews and views that produced it.
static int64_t knownOffsetMultiple(Value memref, int depth = 0) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (hasElementCountOverflow(type) ||
      failed(type.getStridesAndOffset(strides, offset)))
    return 1;
  if (!ShapedType::isDynamic(offset))
    return offset == INT64_MIN ? 1 : std::abs(offset);
  Operation *def = memref.getDefiningOp();
  if (!def || depth > kMaxProofDepth)
    return 1;
  if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, BroadcastOp>(def))
    return knownOffsetMultiple(def->getOperand(0), depth + 1);
  if (auto view = dyn_cast<ViewOp>(def)) {
    int64_t srcBits = view.getSource().getType().getElementTypeBitWidth();
    int64_t dstBits = type.getElementTypeBitWidth();
    int64_t bits = llvm::checkedMul(
                       knownOffsetMultiple(view.getSource(), depth + 1), srcBits)
                       .value_or(srcBits);
    return bits % dstBits == 0 ? bits / dstBits : 1;
  }
  auto subview = dyn_cast<memref::SubViewOp>(def);
  if (!subview)
    return 1;
  SmallVector<int64_t> sourceStrides;
  int64_t sourceOffset;
  MemRefType sourceType = subview.getSourceType();
  if (hasElementCountOverflow(sourceType) ||
      failed(sourceType.getStridesAndOffset(sourceStrides, sourceOffset)))
    return 1;
  int64_t multiple = knownOffsetMultiple(subview.getSource(), depth + 1);
  for (auto [offsetValue, stride] :
       llvm::zip_equal(subview.getMixedOffsets(), sourceStrides)) {
    if (ShapedType::isDynamic(stride))
      return 1;
    int64_t term;
    if (auto attr = dyn_cast<Attribute>(offsetValue))
      term = cast<IntegerAttr>(attr).getInt();
    else
      term = knownMultiple(cast<Value>(offsetValue), depth + 1);
    std::optional<int64_t> scaled = llvm::checkedMul(term, stride);
    if (!scaled || *scaled == INT64_MIN)
      return 1;
    multiple = std::gcd(multiple, std::abs(*scaled));
  }
  return multiple;
}

/// `value` modulo `modulus` where its arith definition fixes it: constants,
/// multiples of the modulus, and sums, differences and products of values
/// with a known residue.
static std::optional<int64_t> knownResidue(Value value, int64_t modulus,
                                           int depth = 0) {
  auto reduce = [&](int64_t v) { return ((v % modulus) + modulus) % modulus; };
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return reduce(*constant);
  if (knownMultiple(value, depth) % modulus == 0)
    return 0;
  Operation *def = value.getDefiningOp();
  if (!def || depth > kMaxProofDepth ||
      !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  std::optional<int64_t> lhs = knownResidue(def->getOperand(0), modulus, depth + 1);
  std::optional<int64_t> rhs = knownResidue(def->getOperand(1), modulus, depth + 1);
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return reduce(*lhs + *rhs);
  if (isa<arith::SubIOp>(def))
    return reduce(*lhs - *rhs);
  std::optional<int64_t> product = llvm::checkedMul(*lhs, *rhs);
  return product ? std::optional<int64_t>(reduce(*product)) : std::nullopt;
}

/// The element offset of `memref` modulo `modulus`, following the
/// subviews and views that produced it, where they fix it.
static std::optional<int64_t> knownOffsetResidue(Value memref, int64_t modulus,
                                                 int depth) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (modulus < 1 || hasElementCountOverflow(type) ||
      failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  auto reduce = [&](int64_t v) { return ((v % modulus) + modulus) % modulus; };
  if (!ShapedType::isDynamic(offset))
    return reduce(offset);
  Operation *def = memref.getDefiningOp();
  if (!def || depth > kMaxProofDepth)
    return std::nullopt;
  if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, BroadcastOp,
          SwizzleOp>(def))
    return knownOffsetResidue(def->getOperand(0), modulus, depth + 1);
  if (auto view = dyn_cast<ViewOp>(def)) {
    // Offsets scale by the width ratio: wider source elements multiply
    // them (the residue modulo the same modulus does), narrower ones divide
    // them (which needs the residue modulo the modulus times the ratio).
    int64_t srcBits = view.getSource().getType().getElementTypeBitWidth();
    int64_t dstBits = type.getElementTypeBitWidth();
    if (srcBits % dstBits == 0) {
      std::optional<int64_t> r =
          knownOffsetResidue(view.getSource(), modulus, depth + 1);
      return r ? std::optional<int64_t>(reduce(*r * (srcBits / dstBits)))
               : std::nullopt;
    }
    if (dstBits % srcBits)
      return std::nullopt;
    int64_t ratio = dstBits / srcBits;
    std::optional<int64_t> wide = llvm::checkedMul(modulus, ratio);
    std::optional<int64_t> r =
        wide ? knownOffsetResidue(view.getSource(), *wide, depth + 1)
             : std::nullopt;
    return r && *r % ratio == 0 ? std::optional<int64_t>(*r / ratio)
                                : std::nullopt;
  }
  auto subview = dyn_cast<memref::SubViewOp>(def);
  if (!subview)
    return std::nullopt;
  SmallVector<int64_t> sourceStrides;
  int64_t sourceOffset;
  MemRefType sourceType = subview.getSourceType();
  if (hasElementCountOverflow(sourceType) ||
      failed(sourceType.getStridesAndOffset(sourceStrides, sourceOffset)))
    return std::nullopt;
  std::optional<int64_t> residue =
      knownOffsetResidue(subview.getSource(), modulus, depth + 1);
  if (!residue)
    return std::nullopt;
  int64_t total = *residue;
  for (auto [offsetValue, stride] :
       llvm::zip_equal(subview.getMixedOffsets(), sourceStrides)) {
    if (ShapedType::isDynamic(stride))
      return std::nullopt;
    // Along a stride the modulus divides, any offset adds a multiple of it
    // (a runtime pipeline stage of whole swizzled tiles).
    if (reduce(stride) == 0)
      continue;
    std::optional<int64_t> term =
        isa<Attribute>(offsetValue)
            ? std::optional<int64_t>(
                  reduce(cast<IntegerAttr>(cast<Attribute>(offsetValue)).getInt()))
            : knownResidue(cast<Value>(offsetValue), modulus, depth + 1);
    if (!term)
      return std::nullopt;
    total = reduce(total + reduce(*term * reduce(stride)));
  }
  return total;
}

LogicalResult ViewOp::verify() {
  MemRefType source = getSource().getType(), result = getResult().getType();
  if (source.getMemorySpace() != result.getMemorySpace())
    return emitOpError() << "a view cannot change the memory space";
  if (source.getRank() != result.getRank() || source.getRank() == 0)
    return emitOpError() << "a view keeps the rank, which must be at least 1";
  Type srcElem = source.getElementType(), dstElem = result.getElementType();
  if (!srcElem.isIntOrFloat() || !dstElem.isIntOrFloat() ||
      srcElem.getIntOrFloatBitWidth() == 0 ||
      dstElem.getIntOrFloatBitWidth() == 0)
    return emitOpError() << "a view reinterprets integer or float elements "
                            "of a nonzero width";
  unsigned srcBits = srcElem.getIntOrFloatBitWidth();
  unsigned dstBits = dstElem.getIntOrFloatBitWidth();
  SmallVector<int64_t> srcStrides, dstStrides;
  int64_t srcOffset, dstOffset;
  if (failed(getLayout(*this, source, srcStrides, srcOffset)) ||
      failed(getLayout(*this, result, dstStrides, dstOffset)))
    return failure();
  if (srcStrides.back() != 1 || dstStrides.back() != 1)
    return emitOpError() << "the final axis must be contiguous (stride 1) on "
                            "both sides of a view";
  // Scale sizes, strides and offset from source elements to result elements.
  auto scale = [&](int64_t value, int64_t &out) {
    if (ShapedType::isDynamic(value)) {
      out = value;
      return true;
    }
    if ((value * srcBits) % dstBits != 0)
      return false;
    out = value * srcBits / dstBits;
    return true;
  };
  ArrayRef<int64_t> srcShape = source.getShape(), dstShape = result.getShape();
  for (int64_t i = 0, e = source.getRank(); i < e; ++i) {
    int64_t expectedSize = srcShape[i], expectedStride = srcStrides[i];
    bool last = i == e - 1;
    if (last && !scale(srcShape[i], expectedSize))
      return emitOpError() << "the final axis of " << srcShape[i] << " x "
                           << srcBits << " bits cannot be split into "
                           << dstBits << "-bit elements";
    if (!last && !scale(srcStrides[i], expectedStride))
      return emitOpError() << "stride " << srcStrides[i] << " of axis " << i
                           << " is not a whole number of " << dstBits
                           << "-bit elements";
    if (dstShape[i] != expectedSize || (!last && dstStrides[i] != expectedStride))
      return emitOpError() << "expected axis " << i << " of the result to have "
                           << "extent " << expectedSize << (last ? "" : " and stride ")
                           << (last ? "" : std::to_string(expectedStride))
                           << ", got " << result;
  }
  if (dstBits > srcBits) {
    // The lowering divides a runtime offset by the width ratio; one that is
    // not a multiple of it would round the address down (it read
    // A + ((2*t) & ~3) for odd t), so it must be provably one.
    for (int64_t i = 0, e = source.getRank() - 1; i < e; ++i)
      if (ShapedType::isDynamic(srcStrides[i]))
        return emitOpError() << "a view to " << dstBits
                             << "-bit elements needs static strides, but "
                                "axis "
                             << i << " of " << source << " has a runtime stride";
    if (ShapedType::isDynamic(srcOffset) &&
        (knownOffsetMultiple(getSource()) * srcBits) % dstBits != 0)
      return emitOpError()
             << "a view to " << dstBits << "-bit elements needs an offset "
             << "that is a multiple of " << dstBits / std::gcd(srcBits, dstBits)
             << " " << srcBits << "-bit elements, and the runtime offset of "
             << source << " is not provably one; write the index as such a "
                          "multiple (e.g. "
             << dstBits / std::gcd(srcBits, dstBits) << " * t)";
  }
  int64_t expectedOffset;
  if (!scale(srcOffset, expectedOffset) || expectedOffset != dstOffset)
    return emitOpError() << "the offset does not scale to " << dstBits
                         << "-bit elements: expected "
                         << (ShapedType::isDynamic(expectedOffset)
                                 ? std::string("?")
                                 : std::to_string(expectedOffset))
                         << ", got " << result;
  return success();
}

Value ViewOp::getViewSource() { return getSource(); }

LogicalResult BroadcastOp::verify() {
  MemRefType source = getSource().getType(), result = getResult().getType();
  if (source.getMemorySpace() != result.getMemorySpace() ||
      source.getElementType() != result.getElementType() ||
      source.getRank() != result.getRank())
    return emitOpError() << "a broadcast keeps the element type, memory space "
                            "and rank";
  if (!source.getElementType().isIntOrFloat() ||
      source.getElementType().getIntOrFloatBitWidth() == 0)
    return emitOpError() << "a broadcast repeats integer or float elements of "
                            "a nonzero width, got "
                         << source.getElementType();
  SmallVector<int64_t> srcStrides, dstStrides;
  int64_t srcOffset, dstOffset;
  if (failed(getLayout(*this, source, srcStrides, srcOffset)) ||
      failed(getLayout(*this, result, dstStrides, dstOffset)))
    return failure();
  if (srcOffset != dstOffset)
    return emitOpError() << "a broadcast keeps the offset";
  for (int64_t i = 0, e = source.getRank(); i < e; ++i) {
    int64_t srcSize = source.getDimSize(i), dstSize = result.getDimSize(i);
    if (srcSize == dstSize && srcStrides[i] == dstStrides[i])
      continue;
    if (srcSize == 1 && dstStrides[i] == 0)
      continue;
    return emitOpError() << "axis " << i << " of extent " << srcSize
                         << " can only be kept or, if it is 1, broadcast "
                            "with stride 0";
  }
  return success();
}

Value BroadcastOp::getViewSource() { return getSource(); }

SwizzleOp mlir::tile::getSwizzle(Value memref) {
  for (Operation *def = memref.getDefiningOp(); def;) {
    if (auto swizzle = dyn_cast<SwizzleOp>(def))
      return swizzle;
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             ViewOp, BroadcastOp>(def))
      break;
    def = cast<ViewLikeOpInterface>(def).getViewSource().getDefiningOp();
  }
  return SwizzleOp();
}

LogicalResult SwizzleOp::verify() {
  MemRefType type = getSource().getType();
  if (getAddressSpace(type) != kSharedAddressSpace)
    return emitOpError() << "a swizzle places the bytes of a shared buffer, "
                            "got "
                         << type;
  int64_t bits = getBits(), base = getBase(), shift = getShift();
  if (bits < 1 || base < 0 || shift < bits)
    return emitOpError() << "expected bits >= 1, base >= 0 and shift >= bits "
                            "(the offset bits a swizzle reads must not be "
                            "those it changes), got bits = "
                         << bits << ", base = " << base
                         << ", shift = " << shift;
  if (base + shift + bits > 32)
    return emitOpError() << "a swizzle reads offset bits up to "
                         << base + shift + bits
                         << ", past a 32-bit shared address";
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(getLayout(*this, type, strides, offset)))
    return failure();
  if (offset != 0)
    return emitOpError() << "a swizzle counts offsets from the start of a "
                            "buffer: its source must have offset 0, got "
                         << type;
  if (getSwizzle(getSource()))
    return emitOpError() << "a buffer takes one swizzle; its source is "
                            "already swizzled";
  // Only instructions address through the swizzle (their lowering applies
  // it); a memref.load of a view would read the unswizzled address.
  SmallVector<Value> views = {getResult()};
  while (!views.empty()) {
    for (Operation *user : views.pop_back_val().getUsers()) {
      // A second swizzle reports itself.
      if (isa<ApplyOp, InstrOp, SwizzleOp, MatrixDescriptorOp>(user))
        continue;
      if (isa<memref::SubViewOp, memref::ExpandShapeOp,
              memref::CollapseShapeOp, ViewOp, BroadcastOp>(user)) {
        views.push_back(user->getResult(0));
        continue;
      }
      return emitOpError() << "a swizzled buffer is addressed by tile.apply "
                              "through subviews, reshapes and tile.view, "
                              "which apply the swizzle; '"
                           << user->getName() << "' would not";
    }
  }
  return success();
}

Value SwizzleOp::getViewSource() { return getSource(); }

//===----------------------------------------------------------------------===//
// MapaOp
//===----------------------------------------------------------------------===//

LogicalResult MapaOp::verify() {
  MemRefType source = getSource().getType(), result = getResult().getType();
  if (getAddressSpace(source) != kSharedAddressSpace)
    return emitOpError() << "mapa maps a shared tile, got " << source;
  if (getAddressSpace(result) != kSharedClusterAddressSpace)
    return emitOpError() << "expected a result in the shared::cluster "
                            "address space ("
                         << kSharedClusterAddressSpace << "), got " << result;
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType() ||
      source.getLayout() != result.getLayout())
    return emitOpError() << "the mapped tile keeps the shape, element type "
                            "and layout of "
                         << source << ", got " << result;
  return success();
}

Value MapaOp::getViewSource() { return getSource(); }

//===----------------------------------------------------------------------===//
// MatrixDescriptorOp
//===----------------------------------------------------------------------===//

int64_t MatrixDescriptorOp::getRowBytes() {
  SwizzleOp swizzle = getSwizzle(getTile());
  return swizzle ? int64_t(16) << swizzle.getBits() : 0;
}

int64_t MatrixDescriptorOp::getLayoutType() {
  return 4 - getSwizzle(getTile()).getBits();
}

/// The alignment of the dynamic shared region's start
/// (tile-extern-dynamic-shared declares it).
constexpr int64_t kDynamicSharedAlign = 1024;

/// The alignment in bytes of the shared buffer `buffer` (a workgroup
/// attribution of its gpu.func, with llvm.align, or a view of the dynamic
/// region at a constant byte offset), or 0 when unknown.
static int64_t sharedBufferAlignment(Value buffer) {
  if (auto view = buffer.getDefiningOp<memref::ViewOp>()) {
    APInt shift;
    if (!view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>() ||
        !matchPattern(view.getByteShift(), m_ConstantInt(&shift)))
      return 0;
    uint64_t offset = shift.getZExtValue();
    return offset ? std::min<int64_t>(kDynamicSharedAlign,
                                      int64_t(1) << llvm::countr_zero(offset))
                  : kDynamicSharedAlign;
  }
  auto argument = dyn_cast<BlockArgument>(buffer);
  if (!argument)
    return 0;
  auto func = dyn_cast<gpu::GPUFuncOp>(argument.getOwner()->getParentOp());
  if (!func || argument.getOwner() != &func.getBody().front())
    return 0;
  for (auto [index, attribution] :
       llvm::enumerate(func.getWorkgroupAttributions()))
    if (attribution == argument) {
      auto align = func.getWorkgroupAttributionAttr(index, "llvm.align");
      return align ? cast<IntegerAttr>(align).getInt() : 0;
    }
  return 0;
}

int64_t MatrixDescriptorOp::getLeadingByteOffset() {
  MemRefType type = getTile().getType();
  if (type.getRank() != 3)
    return 16;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return 0;
  return strides[0] * type.getElementTypeBitWidth() / 8;
}

LogicalResult MatrixDescriptorOp::verify() {
  if (getFormat() != "wgmma" && getFormat() != "tcgen05")
    return emitOpError() << "format is \"wgmma\" (sm_90's descriptor) or "
                            "\"tcgen05\" (sm_100's), got \""
                         << getFormat() << "\"";
  MemRefType type = getTile().getType();
  if (getAddressSpace(type) != kSharedAddressSpace)
    return emitOpError() << "a matrix descriptor describes a shared tile, got "
                         << type;
  if ((type.getRank() != 2 && type.getRank() != 3) || !type.hasStaticShape())
    return emitOpError() << "expected a statically shaped 2-D tile (rows of "
                            "M or N, columns of K), or a 3-D one (swizzled "
                            "rows of an MN-major operand, rows of K, columns "
                            "of M or N), got "
                         << type;
  int64_t bits = type.getElementTypeBitWidth();
  if (bits != 8 && bits != 16 && bits != 32)
    return emitOpError() << "a wgmma operand has 8-, 16- or 32-bit elements, "
                            "got "
                         << type.getElementType();
  int64_t elementBytes = bits / 8;
  // A 3-D tile is (atoms, rows, columns): each atom one swizzled row wide,
  // the atoms the leading byte offset apart.
  ArrayRef<int64_t> shape = type.getShape().take_back(2);
  int64_t atoms = type.getRank() == 3 ? type.getDimSize(0) : 1;
  if (shape[0] % 8 != 0)
    return emitOpError() << "rows come in groups of 8 (a core matrix): "
                            "expected a multiple of 8 rows, got "
                         << shape[0];
  SwizzleOp swizzle = getSwizzle(getTile());
  if (!swizzle || swizzle.getBase() != 4 || swizzle.getShift() != 3 ||
      swizzle.getBits() < 1 || swizzle.getBits() > 3)
    return emitOpError()
           << "the tile's buffer must be swizzled for wgmma: tile.swizzle "
              "with bits = 1, 2 or 3, base = 4 and shift = 3 (rows of 32, 64 "
              "or 128 bytes); the unswizzled (interleaved) mode is not "
              "supported";
  int64_t rowBytes = getRowBytes();
  int64_t groupBytes = 8 * rowBytes;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return emitOpError() << "expected static strides, got " << type;
  // Every element where the tile puts it and where the descriptor reads
  // it, from the same start: row r at (r / 8) groups and r % 8 rows, then
  // its column's bytes.
  ArrayRef<int64_t> rowStrides = ArrayRef<int64_t>(strides).take_back(2);
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c = 0; c < shape[1]; ++c) {
      int64_t tile = (r * rowStrides[0] + c * rowStrides[1]) * elementBytes;
      int64_t read = (r / 8) * groupBytes + (r % 8) * rowBytes +
                     c * elementBytes;
      if (tile != read)
        return emitOpError()
               << "element (" << r << ", " << c << ") of the tile is "
               << tile << " bytes from its start, but the descriptor reads "
               << read << " there: with " << rowBytes
               << "-byte swizzled rows, a row's K elements are contiguous "
                  "and rows are "
               << rowBytes << " bytes apart (strides [" << rowBytes / elementBytes
               << ", 1] in elements), got strides [" << rowStrides[0] << ", "
               << rowStrides[1] << "]";
    }
  if (atoms > 1) {
    // The chip reads an MN-major operand's M or N elements along a whole
    // swizzled row, then steps the leading byte offset to the next: each
    // atom must fill its rows, and the offset fits the field (bits 16-29,
    // in 16-byte units).
    if (shape[1] * elementBytes != rowBytes)
      return emitOpError() << "an operand of " << atoms
                           << " swizzled rows reads each row whole: expected "
                           << rowBytes / elementBytes
                           << " columns (the row's " << rowBytes
                           << " bytes), got " << shape[1];
    int64_t leading = getLeadingByteOffset();
    if (leading <= 0 || leading % 16 != 0 || leading >= (int64_t(1) << 18))
      return emitOpError() << "the swizzled rows are " << leading
                           << " bytes apart, but the leading byte offset is "
                              "a positive multiple of 16 below 262144";
  }
  std::optional<int64_t> residue =
      knownOffsetResidue(getTile(), rowBytes / elementBytes);
  if (!residue)
    return emitOpError() << "the tile's offset must be known modulo a "
                         << rowBytes
                         << "-byte row, to prove its K bytes stay in one "
                            "swizzled row";
  if (*residue * elementBytes % 16 != 0)
    return emitOpError() << "a descriptor addresses 16-byte units: the tile "
                            "starts "
                         << *residue * elementBytes
                         << " bytes into a swizzled row, not a multiple of 16";
  if (*residue * elementBytes + shape[1] * elementBytes > rowBytes)
    return emitOpError() << "a row of the tile spans bytes "
                         << *residue * elementBytes << " to "
                         << (*residue + shape[1]) * elementBytes
                         << " of its swizzled row, past its " << rowBytes
                         << " bytes";
  int64_t align = sharedBufferAlignment(swizzle.getSource());
  if (align < groupBytes)
    return emitOpError() << "wgmma swizzles shared addresses, which equals "
                            "the buffer's swizzle only when the buffer is "
                            "aligned to the swizzle's repeat of "
                         << groupBytes << " bytes: "
                         << (align ? "got an alignment of " +
                                         std::to_string(align)
                                   : std::string("its alignment is unknown"))
                         << " (a static shared buffer with align=" << groupBytes
                         << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor maps and the boxes they copy
//===----------------------------------------------------------------------===//

/// The TMA swizzle of `bytes` (32, 64, 128) as tile.swizzle's bits with base
/// 4 and shift 3; 0 for none.
static int64_t swizzleBitsOf(int64_t bytes) {
  return bytes == 32 ? 1 : bytes == 64 ? 2 : bytes == 128 ? 3 : 0;
}

LogicalResult TensorMapOp::verify() {
  auto argument = dyn_cast<BlockArgument>(getParam());
  auto func = argument ? dyn_cast<gpu::GPUFuncOp>(
                             argument.getOwner()->getParentOp())
                       : gpu::GPUFuncOp();
  if (!func || !func.isKernel() ||
      argument.getOwner() != &func.getBody().front() ||
      argument.getArgNumber() >= func.getNumArguments())
    return emitOpError() << "the tensor map must be a parameter of the "
                            "kernel: the runtime encodes it on the host and "
                            "passes its 128 bytes by value";
  MemRefType tensor = getTensor().getType();
  if (getAddressSpace(tensor) != kGlobalAddressSpace)
    return emitOpError() << "a tensor map describes a global tensor, got "
                         << tensor;
  if (!tensor.getLayout().isIdentity())
    return emitOpError() << "a tensor map describes a contiguous row-major "
                            "tensor (the identity layout), got "
                         << tensor;
  Type element = tensor.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return emitOpError() << "a tensor map's elements are 8, 16, 32 or 64 "
                            "bits wide, got "
                         << element;
  ArrayRef<int64_t> box = getBox();
  if (box.empty() || box.size() > 5 ||
      box.size() != static_cast<size_t>(tensor.getRank()))
    return emitOpError() << "the box has one extent per axis of the tensor, "
                            "1 to 5 of them: the tensor has rank "
                         << tensor.getRank() << ", the box " << box.size();
  for (auto [axis, extent] : llvm::enumerate(box))
    if (extent < 1 || extent > 256)
      return emitOpError() << "box extent " << extent << " of axis " << axis
                           << " is not 1 to 256";
  int64_t elementBytes = bits / 8;
  int64_t innerBytes = box.back() * elementBytes;
  if (innerBytes % 16 != 0)
    return emitOpError() << "the innermost box extent must span a multiple "
                            "of 16 bytes, got "
                         << box.back() << " x " << elementBytes << " bytes";
  int64_t swizzle = getSwizzle();
  if (swizzle != 0 && !swizzleBitsOf(swizzle))
    return emitOpError() << "swizzle is the bytes of the swizzle span: 0, "
                            "32, 64 or 128, got "
                         << swizzle;
  if (swizzle && innerBytes != swizzle)
    return emitOpError() << "a swizzled box's innermost extent spans the "
                            "swizzle's "
                         << swizzle << " bytes, got " << innerBytes;
  // The global strides past the innermost axis, in bytes, are multiples of
  // 16 (cuTensorMapEncodeTiled); dynamic extents are checked at launch.
  int64_t stride = elementBytes;
  for (int64_t axis = tensor.getRank() - 1; axis > 0; --axis) {
    int64_t extent = tensor.getDimSize(axis);
    if (ShapedType::isDynamic(extent))
      break;
    stride *= extent;
    if (stride % 16 != 0)
      return emitOpError() << "the tensor's stride along axis " << axis - 1
                           << " is " << stride
                           << " bytes; a tensor map needs multiples of 16";
  }
  return success();
}

/// The buffer a shared tile is a view of: the swizzle's source, or the value
/// its subviews and reshapes start from.
static Value sharedBufferOf(Value tile) {
  if (SwizzleOp swizzle = getSwizzle(tile))
    return swizzle.getSource();
  while (Operation *def = tile.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp>(def))
      break;
    tile = cast<ViewLikeOpInterface>(def).getViewSource();
  }
  return tile;
}

static LogicalResult verifyTensorBox(DiagFn diag, Value tile,
                                     StringRef opcode, TensorMapOp map,
                                     unsigned dims) {
  ArrayRef<int64_t> box = map.getBox();
  if (box.size() != dims)
    return diag() << opcode << " copies a " << dims
                  << "-d box, but the tensor map's box has rank "
                  << box.size();
  auto type = cast<MemRefType>(tile.getType());
  if (getAddressSpace(type) != kSharedAddressSpace)
    return diag() << "expected a shared tile (address space 3), got " << type;
  if (!type.hasStaticShape() || type.getShape() != box)
    return diag() << "the tile is the tensor map's box, "
                  << shapeText(box) << ", got " << type;
  Type element = type.getElementType();
  int64_t elementBytes = map.getElementBytes();
  if (!element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() != elementBytes * 8)
    return diag() << "the box holds " << elementBytes * 8
                  << "-bit elements of " << map.getTensor().getType()
                  << ", got " << element;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return diag() << "expected a strided layout, got " << type;
  int64_t expected = 1;
  for (int64_t axis = type.getRank() - 1; axis >= 0; --axis) {
    if (box[axis] > 1 && strides[axis] != expected)
      return diag() << "the box is written row-major and contiguous, got "
                    << type;
    expected *= box[axis];
  }
  int64_t swizzle = map.getSwizzle();
  SwizzleOp swizzled = getSwizzle(tile);
  if (!swizzle && swizzled)
    return diag() << "the tensor map does not swizzle, but the tile is a "
                     "view of tile.swizzle";
  if (swizzle && (!swizzled || swizzled.getBits() != swizzleBitsOf(swizzle) ||
                  swizzled.getBase() != 4 || swizzled.getShift() != 3))
    return diag() << "the tensor map swizzles " << swizzle
                  << "-byte spans: the tile must be a view of tile.swizzle "
                     "with bits = "
                  << swizzleBitsOf(swizzle) << ", base = 4 and shift = 3";
  // The copy swizzles shared addresses, which equals the buffer's swizzle
  // when the box starts on a repeat of it (eight spans) in a buffer aligned
  // to one; an unswizzled box starts on 128 bytes (PTX ISA 9.7.9.27).
  int64_t repeat = swizzle ? 8 * swizzle : 128;
  std::optional<int64_t> residue =
      knownOffsetResidue(tile, repeat / elementBytes);
  if (!residue || *residue != 0)
    return diag() << "the box must start on a multiple of " << repeat
                  << " bytes of its buffer: "
                  << (residue ? "it starts " +
                                    std::to_string(*residue * elementBytes) +
                                    " bytes past one"
                              : std::string("its offset is unknown"));
  int64_t align = sharedBufferAlignment(sharedBufferOf(tile));
  if (align < repeat)
    return diag() << "the box's buffer must be aligned to " << repeat
                  << " bytes: "
                  << (align ? "got an alignment of " + std::to_string(align)
                            : std::string("its alignment is unknown"))
                  << " (a static shared buffer with align=" << repeat << ")";
  return success();
}
