//===- TileOps.cpp - Tile operations and their legality rules -------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"

std::optional<unsigned> mlir::tile::getAddressSpace(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return 0;
  if (auto intSpace = dyn_cast<IntegerAttr>(space))
    return intSpace.getInt();
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

std::optional<StringRef> mlir::tile::getTargetChipFor(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp()) {
    if (auto chip = parent->getAttrOfType<StringAttr>(kTargetAttrName))
      return chip.getValue();
    auto module = dyn_cast<gpu::GPUModuleOp>(parent);
    if (!module)
      continue;
    if (ArrayAttr targets = module.getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvmTarget = dyn_cast<NVVM::NVVMTargetAttr>(target))
          return nvvmTarget.getChip();
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> mlir::tile::getStaticElementOffset(MemRefType type,
                                                         ValueRange indices) {
  // Row-major offsets need no strides: this runs once per instruction of a
  // kernel, and deriving strides from an identity layout builds affine maps.
  if (type.getLayout().isIdentity() && type.hasStaticShape()) {
    int64_t element = 0;
    for (auto [index, size] : llvm::zip_equal(indices, type.getShape())) {
      std::optional<int64_t> value = getConstantIntValue(index);
      if (!value)
        return std::nullopt;
      element = element * size + *value;
    }
    return element;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t element = offset;
  for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
    std::optional<int64_t> value = getConstantIntValue(index);
    if (!value)
      return std::nullopt;
    element += *value * stride;
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
      if (auto memref = dyn_cast<MemRefType>(value.getType()))
        return memref.getRank() > 0 && memref.getShape().back() == operand.count &&
               bitWidth(memref.getElementType()) == operand.bits;
      return operand.count == 1 && bitWidth(value.getType()) == operand.bits;
    });
    if (fits)
      return form;
  }
  return forms.front();
}

const ptx::Form &mlir::tile::selectForm(ArrayRef<ptx::Form> forms,
                                        unsigned results, unsigned inputs) {
  for (const ptx::Form &form : forms) {
    unsigned dsts = 0, srcs = 0;
    for (const ptx::Operand &operand : form.operands)
      if (!operand.isMemory())
        (operand.role == ptx::Role::Dst ? dsts : srcs) += operand.count;
    if (dsts == results && srcs == inputs)
      return form;
  }
  return forms.front();
}

std::optional<int64_t> mlir::tile::getKnownBlockThreads(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!func)
    return std::nullopt;
  auto sizes = func->getAttrOfType<DenseI32ArrayAttr>("known_block_size");
  if (!sizes)
    return std::nullopt;
  int64_t threads = 1;
  for (int32_t size : sizes.asArrayRef())
    threads *= size;
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
                                    [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         ")";
}

/// Whether the strided layout of `type` maps distinct coordinates to distinct
/// elements. Returns std::nullopt when its strides are not static.
std::optional<bool> isInjective(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
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

} // namespace

//===----------------------------------------------------------------------===//
// ApplyOp
//===----------------------------------------------------------------------===//

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
    int64_t unit = getScope() == "warpgroup" ? 128 : 32;
    if (threads && (*threads < unit || *threads % unit != 0))
      return emitOpError() << "scope " << getScope() << " needs a block of a "
                           << "multiple of " << unit << " threads, got "
                           << *threads;
  }

  if (std::optional<StringRef> chip = getTargetChipFor(*this)) {
    std::optional<ptx::Target> target = ptx::Target::parse(*chip);
    if (!target)
      return emitOpError() << "unknown target '" << *chip
                           << "': expected sm_XX, sm_XXa or sm_XXf with a "
                              "known XX";
    if (!ptx::isAvailableOn(*form, *target, error))
      return emitOpError() << error;
  }

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

  if (getPreserveDst()) {
    if (!getPred())
      return emitOpError() << "preserve_dst requires a predicate";
    if (form->writesMemory)
      return emitOpError() << "preserve_dst applies to register destinations; "
                           << getOpcode() << " writes memory";
  }

  std::optional<SmallVector<int64_t>> repeatShape;
  StringRef repeatOwner;
  for (auto [value, operand] : llvm::zip_equal(args, form->operands)) {
    auto diag = [&, &operand = operand]() {
      return emitOpError() << operand.name << ": ";
    };
    auto memref = dyn_cast<MemRefType>(value.getType());
    if (!memref) {
      // A scalar SSA value stands for one read register, reused by every
      // repeat. It must already be the whole carrier.
      if (operand.isMemory())
        return diag() << "expected a memref in the "
                      << ptx::stringifySpace(operand.space)
                      << " address space, got " << value.getType();
      if (operand.role == ptx::Role::Dst)
        return diag() << "a destination must be a register tile, not a "
                         "scalar value";
      if (operand.count != 1)
        return diag() << "a scalar can only replace a single-register input, "
                         "but "
                      << getOpcode() << " reads " << operand.count
                      << " registers here";
      if (!fitsCarrier(value.getType(), operand))
        return diag() << carrierMismatch(operand, value.getType());
      continue;
    }

    std::optional<unsigned> space = getAddressSpace(memref);
    unsigned expectedSpace = kRegisterAddressSpace;
    if (operand.space == ptx::Space::Global)
      expectedSpace = kGlobalAddressSpace;
    else if (operand.space == ptx::Space::Shared)
      expectedSpace = kSharedAddressSpace;
    else if (operand.space == ptx::Space::Generic)
      expectedSpace = 0;
    if (space != expectedSpace) {
      if (!operand.isMemory())
        return diag() << "expected a register tile (a memref in address "
                         "space 5, owned by the issuing thread), got "
                      << memref
                      << "; global and shared tensors need explicit ld/st";
      return diag() << "expected a memref in the "
                    << ptx::stringifySpace(operand.space) << " address space ("
                    << expectedSpace << ") for " << getOpcode() << ", got "
                    << memref;
    }
    if (!memref.isStrided())
      return diag() << "expected a strided layout, got " << memref;
    if (!memref.hasStaticShape() || memref.getRank() == 0)
      return diag() << "expected a statically shaped tile with a final "
                       "register axis, got "
                    << memref;
    ArrayRef<int64_t> shape = memref.getShape();
    if (shape.back() != operand.count) {
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
    if (!operand.isMemory()) {
      std::string why;
      FailureOr<StringRef> owner = traceOwner(value, groupRank, why);
      if (failed(owner))
        return diag() << why;
      if (*owner != getScope())
        return diag() << "the tile is owned by scope " << *owner
                      << ", but the apply runs at scope " << getScope()
                      << "; ownership cannot change";
    }
    SmallVector<int64_t> repeats(shape.drop_back());
    if (!repeatShape) {
      repeatShape = repeats;
      repeatOwner = operand.name;
    } else if (*repeatShape != repeats) {
      return diag() << "repeat shape " << shapeText(repeats)
                    << " does not match " << repeatOwner << "'s "
                    << shapeText(*repeatShape);
    }
    if (!fitsCarrier(memref.getElementType(), operand))
      return diag() << carrierMismatch(operand, memref.getElementType());
    if (operand.isMemory() && operand.count > 1) {
      // A vector access moves count contiguous elements at an address
      // aligned to the whole vector. Static layouts are checked here; a
      // dynamic offset is the caller's promise.
      SmallVector<int64_t> strides;
      int64_t offset;
      if (succeeded(memref.getStridesAndOffset(strides, offset))) {
        if (strides.back() != 1)
          return diag() << "a ." << "v" << operand.count
                        << " access needs a contiguous final axis (stride "
                           "1), got layout "
                        << memref.getLayout();
        auto misaligned = [&](int64_t v) {
          return !ShapedType::isDynamic(v) && v % operand.count != 0;
        };
        bool bad = misaligned(offset);
        for (int64_t stride : ArrayRef(strides).drop_back())
          bad |= misaligned(stride);
        if (bad)
          return diag() << "a .v" << operand.count << " access of "
                        << operand.bits << "-bit elements must be aligned to "
                        << operand.count * operand.bits / 8
                        << " bytes, but layout " << memref.getLayout()
                        << " places a repeat at an element offset that is "
                           "not a multiple of "
                        << operand.count;
      }
    }
    if (operand.role == ptx::Role::Dst && isInjective(memref) == false)
      return diag() << "destination slots overlap across repeats (layout "
                    << memref.getLayout()
                    << "); each repeat needs its own registers";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// InstrOp
//===----------------------------------------------------------------------===//

LogicalResult InstrOp::verify() {
  std::string error;
  ArrayRef<ptx::Form> forms = ptx::lookupForms(getOpcode(), error);
  if (forms.empty())
    return emitOpError() << error;
  const ptx::Form *form =
      &selectForm(forms, getResults().size(), getInputs().size());
  SmallVector<const ptx::Operand *> dsts, srcs;
  for (const ptx::Operand &operand : form->operands) {
    if (operand.isMemory())
      continue;
    for (unsigned i = 0; i < operand.count; ++i)
      (operand.role == ptx::Role::Dst ? dsts : srcs).push_back(&operand);
  }
  if (getResults().size() != dsts.size())
    return emitOpError() << "expected " << dsts.size()
                         << " destination registers for " << getOpcode()
                         << ", got " << getResults().size();
  if (getInputs().size() != srcs.size())
    return emitOpError() << "expected " << srcs.size()
                         << " source registers for " << getOpcode() << ", got "
                         << getInputs().size();
  for (auto [value, operand] : llvm::zip_equal(getResults(), dsts))
    if (!fitsCarrier(value.getType(), *operand))
      return emitOpError() << operand->name << ": "
                           << carrierMismatch(*operand, value.getType());
  for (auto [value, operand] : llvm::zip_equal(getInputs(), srcs))
    if (!fitsCarrier(value.getType(), *operand))
      return emitOpError() << operand->name << ": "
                           << carrierMismatch(*operand, value.getType());
  if (form->accessesMemory() != static_cast<bool>(getMemref()))
    return emitOpError() << (form->accessesMemory()
                                 ? "expected a memory operand for "
                                 : "unexpected memory operand for ")
                         << getOpcode();
  if (getMemref() &&
      getIndices().size() != static_cast<size_t>(getMemref().getType().getRank()))
    return emitOpError() << "expected " << getMemref().getType().getRank()
                         << " indices, got " << getIndices().size();
  if (getMemref()) {
    MemRefType type = getMemref().getType();
    if (!getAddressSpace(type))
      return emitOpError() << "memory operand: expected an NVPTX address "
                              "space (an integer or a gpu address space), got "
                           << type;
    if (!type.isStrided())
      return emitOpError() << "memory operand: expected a strided layout, got "
                           << type;
  }
  if (!getKeep().empty()) {
    if (!getPred())
      return emitOpError() << "keep requires a predicate";
    if (getKeep().getTypes() != getResults().getTypes())
      return emitOpError() << "keep must match the destination registers";
  }
  return success();
}

void InstrOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!getMemref())
    return;
  std::string error;
  ArrayRef<ptx::Form> forms = ptx::lookupForms(getOpcode(), error);
  if (forms.empty() || forms.front().readsMemory)
    effects.emplace_back(MemoryEffects::Read::get(), &getMemrefMutable()[0]);
  if (forms.empty() || forms.front().writesMemory)
    effects.emplace_back(MemoryEffects::Write::get(), &getMemrefMutable()[0]);
}

//===----------------------------------------------------------------------===//
// ViewOp and BroadcastOp
//===----------------------------------------------------------------------===//

static LogicalResult getLayout(Operation *op, MemRefType type,
                               SmallVectorImpl<int64_t> &strides,
                               int64_t &offset) {
  if (failed(type.getStridesAndOffset(strides, offset)))
    return op->emitOpError() << "expected a strided layout, got " << type;
  return success();
}

LogicalResult ViewOp::verify() {
  MemRefType source = getSource().getType(), result = getResult().getType();
  if (source.getMemorySpace() != result.getMemorySpace())
    return emitOpError() << "a view cannot change the memory space";
  if (source.getRank() != result.getRank() || source.getRank() == 0)
    return emitOpError() << "a view keeps the rank, which must be at least 1";
  Type srcElem = source.getElementType(), dstElem = result.getElementType();
  if (!srcElem.isIntOrFloat() || !dstElem.isIntOrFloat())
    return emitOpError() << "a view reinterprets integer or float elements";
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
