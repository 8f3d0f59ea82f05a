//===- TileAttachTarget.cpp - NVVM targets with the right PTX version -----===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEATTACHTARGET
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `name` can name a PTX entry: NVPTX stops with a fatal error on
/// any other character, so the name is checked first.
bool isPTXIdentifier(StringRef name) {
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; };
  return !name.empty() && (llvm::isAlpha(name.front()) || name.front() == '_' ||
                           name.front() == '$') &&
         llvm::all_of(name, isWordChar);
}

/// The PTX ISA version a `+ptxNN` feature names, 0 without one, and
/// std::nullopt for a malformed one.
std::optional<unsigned> featurePtx(StringRef features) {
  size_t at = features.find("+ptx");
  if (at == StringRef::npos)
    return 0;
  StringRef digits = features.drop_front(at + 4).take_while(llvm::isDigit);
  unsigned version;
  if (digits.empty() || digits.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

struct TileAttachTargetPass
    : public tile::impl::TileAttachTargetBase<TileAttachTargetPass> {
  using TileAttachTargetBase::TileAttachTargetBase;

  void runOnOperation() override {
    // Options are checked before any of them reaches NVVMTargetAttr, whose
    // verifier asserts on an optimization level outside 0-3.
    if (optLevel > 3) {
      getOperation().emitError()
          << "tile-attach-target: O=" << static_cast<unsigned>(optLevel)
          << " is not 0, 1, 2 or 3";
      return signalPassFailure();
    }
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>())
      if (failed(attach(module)))
        return signalPassFailure();
  }

  LogicalResult attach(gpu::GPUModuleOp module) {
    for (auto func : module.getOps<FunctionOpInterface>())
      if (!isPTXIdentifier(func.getName()))
        return func.emitError()
               << "the kernel name '" << func.getName()
               << "' is not a PTX identifier: a letter, '_' or '$', then "
                  "letters, digits, '_' or '$'";
    llvm::DenseMap<Operation *, int64_t> staticShared;
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      FailureOr<int64_t> bytes = checkStaticShared(func);
      if (failed(bytes))
        return failure();
      staticShared[func] = *bytes;
    }

    ArrayAttr targets = module.getTargetsAttr();
    SmallVector<Attribute> newTargets;
    bool hasNVVM = false;
    if (targets) {
      for (Attribute attr : targets) {
        auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        hasNVVM |= static_cast<bool>(nvvm);
        if (!nvvm) {
          newTargets.push_back(attr);
          continue;
        }
        FailureOr<Attribute> attached = withPTXVersion(module, nvvm.getChip(),
                                                       nvvm);
        if (failed(attached))
          return failure();
        newTargets.push_back(*attached);
      }
      if (!hasNVVM)
        return success();
    } else {
      FailureOr<Attribute> attached = withPTXVersion(module, chip, {});
      if (failed(attached))
        return failure();
      newTargets.push_back(*attached);
    }
    if (failed(checkExplicitTargets(module, newTargets)))
      return failure();
    for (auto func : module.getOps<gpu::GPUFuncOp>())
      if (failed(checkDynamicShared(func, staticShared.lookup(func),
                                    newTargets)))
        return failure();
    module.setTargetsAttr(ArrayAttr::get(&getContext(), newTargets));
    return success();
  }

  /// The workgroup attributions of `func` (T.alloc_shared) become `.shared`
  /// arrays, laid out in order at their alignments. ptxas (CUDA 13.0)
  /// refuses more than 48 KiB of them on sm_75 to sm_90, sm_100, sm_100f
  /// and sm_120, and takes up to 227 KiB on sm_90a, sm_100a and sm_103a and
  /// 99 KiB on sm_120a (measured); a launch of more than 48 KiB of static
  /// shared memory is not measured, so 48 KiB is the limit on every target.
  /// Each error is located at the buffer that crosses it. Returns the
  /// bytes they take.
  FailureOr<int64_t> checkStaticShared(gpu::GPUFuncOp func) {
    int64_t bytes = 0;
    for (auto [index, buffer] :
         llvm::enumerate(func.getWorkgroupAttributions())) {
      auto type = dyn_cast<MemRefType>(buffer.getType());
      if (!type || !type.hasStaticShape() || hasElementCountOverflow(type) ||
          !type.getElementType().isIntOrFloat())
        return emitError(buffer.getLoc())
               << "shared buffer " << index << " of " << func.getName()
               << " needs a static shape of integers or floats, got "
               << buffer.getType();
      int64_t align = 1;
      if (auto given = dyn_cast_or_null<IntegerAttr>(
              func.getWorkgroupAttributionAttr(index, "llvm.align")))
        align = std::max<int64_t>(1, given.getInt());
      int64_t element =
          llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
      // Checked arithmetic: an element count near 2^63 times its bytes.
      int64_t size;
      if (llvm::MulOverflow(type.getNumElements(), element, size) ||
          size > kMaxStaticSharedBytes)
        size = kMaxStaticSharedBytes + 1;
      bytes = llvm::alignTo(bytes, align) + size;
      if (bytes > kMaxStaticSharedBytes)
        return emitError(buffer.getLoc())
               << "the shared buffers of " << func.getName() << " need "
               << (size > kMaxStaticSharedBytes
                       ? "more than " + std::to_string(kMaxStaticSharedBytes)
                       : std::to_string(bytes))
               << " bytes with this one (" << type
               << "); a kernel declares at most " << kMaxStaticSharedBytes
               << " (48 KiB) of static shared memory";
    }
    return bytes;
  }

  /// The buffers carved from gpu.dynamic_shared_memory (memref.view at a
  /// constant byte offset, T.alloc_dynamic_shared) lie within the bytes the
  /// kernel declares (kDynamicSharedAttrName), which its launches pass; and
  /// the block's static and dynamic bytes fit each target's most per block.
  LogicalResult checkDynamicShared(gpu::GPUFuncOp func, int64_t staticBytes,
                                   ArrayRef<Attribute> targets) {
    Attribute attr = func->getAttr(kDynamicSharedAttrName);
    auto declaredAttr = dyn_cast_or_null<IntegerAttr>(attr);
    if (attr && (!declaredAttr || declaredAttr.getInt() < 0))
      return func.emitError() << kDynamicSharedAttrName
                              << " is a byte count (an integer of at least 0), got "
                              << attr;
    int64_t declared = declaredAttr ? declaredAttr.getInt() : 0;
    WalkResult walk = func.walk([&](memref::ViewOp view) {
      if (!view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>())
        return WalkResult::advance();
      APInt shift;
      MemRefType type = view.getType();
      if (!matchPattern(view.getByteShift(), m_ConstantInt(&shift)) ||
          !type.hasStaticShape() || !type.getElementType().isIntOrFloat()) {
        view.emitError() << "a buffer of the dynamic shared memory needs a "
                            "constant byte offset and a static shape of "
                            "integers or floats, got "
                         << type;
        return WalkResult::interrupt();
      }
      int64_t element =
          llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
      int64_t size, end;
      if (llvm::MulOverflow(type.getNumElements(), element, size) ||
          llvm::AddOverflow(shift.getSExtValue(), size, end) ||
          shift.isNegative() || end > declared) {
        view.emitError() << "this buffer of the dynamic shared memory ("
                         << type << " at byte " << shift.getSExtValue()
                         << ") lies past the " << declared << " bytes "
                         << func.getName() << " declares ("
                         << kDynamicSharedAttrName << ")";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (!declared)
      return success();
    for (Attribute target : targets) {
      auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target);
      std::optional<ptx::Target> parsed =
          nvvm ? ptx::Target::parse(nvvm.getChip()) : std::nullopt;
      if (!parsed)
        continue;
      int64_t most = parsed->maxSharedPerBlock();
      if (staticBytes + declared > most)
        return func.emitError()
               << func.getName() << " needs " << staticBytes + declared
               << " bytes of shared memory per block (" << staticBytes
               << " static, " << declared << " dynamic); "
               << nvvm.getChip() << " gives a block at most " << most
               << " (" << most / 1024 << " KiB)";
    }
    return success();
  }

  /// A `tile.target` inside the module was verified for its chip: the
  /// module must be compiled for that chip, or it was checked for one chip
  /// and emitted for another.
  LogicalResult checkExplicitTargets(gpu::GPUModuleOp module,
                                     ArrayRef<Attribute> targets) {
    SmallVector<StringRef> chips;
    for (Attribute attr : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
        chips.push_back(nvvm.getChip());
    WalkResult result = module.walk([&](Operation *op) {
      auto named = op->getAttrOfType<StringAttr>(kTargetAttrName);
      if (!named || llvm::all_of(chips, [&](StringRef c) {
            return c == named.getValue();
          }))
        return WalkResult::advance();
      op->emitError() << "tile.target \"" << named.getValue()
                      << "\" was verified for that chip, but the module is "
                         "compiled for "
                      << llvm::join(chips, ", ")
                      << "; give the gpu.module that target (or the "
                         "pipeline that chip)";
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  /// `nvvm` (or a new target for `chipName`) with a `+ptxNN` feature that
  /// the chip and every instruction of the module have.
  FailureOr<Attribute> withPTXVersion(gpu::GPUModuleOp module,
                                      StringRef chipName,
                                      NVVM::NVVMTargetAttr nvvm) {
    std::optional<ptx::Target> target = ptx::Target::parse(chipName);
    if (!target)
      return module.emitError()
             << "unknown target chip '" << chipName
             << "': expected sm_XX, sm_XXa or sm_XXf with XX one of 75, 80, "
                "86, 87, 89, 90, 100, 101, 103, 110, 120, 121";
    unsigned needed = target->minPtx();
    std::string why = "the chip " + chipName.str();
    // The form each op selected, not its spelling's first: min.f32 of three
    // inputs needs PTX ISA 8.8, of two none.
    module.walk([&](Operation *op) {
      std::string error;
      const ptx::Form *form = nullptr;
      if (auto apply = dyn_cast<ApplyOp>(op)) {
        ArrayRef<ptx::Form> forms = ptx::lookupForms(apply.getOpcode(), error);
        if (!forms.empty())
          form = &selectForm(forms, apply.getArgs());
      } else if (auto instr = dyn_cast<InstrOp>(op)) {
        form = instr.lookupForm(error);
      }
      if (form && form->minPtx > needed) {
        needed = form->minPtx;
        why = form->opcode;
      }
    });
    std::optional<unsigned> given =
        nvvm ? featurePtx(nvvm.getFeatures()) : std::optional<unsigned>(0);
    if (!given)
      return module.emitError() << "malformed +ptx feature in '"
                                << nvvm.getFeatures() << "'";
    unsigned version = *given ? *given : (unsigned)ptxVersion;
    if (version) {
      auto text = [](unsigned v) {
        return std::to_string(v / 10) + "." + std::to_string(v % 10);
      };
      if (!ptx::Target::isKnownPtx(version))
        return module.emitError()
               << "PTX ISA version " << version << " is not one this "
               << "toolchain emits: 60-65, 70-78 or 80-"
               << ptx::Target::maxPtx() << " (the version times ten)";
      if (version < needed)
        return module.emitError()
               << "PTX ISA " << text(version) << " is too old: " << why
               << " needs PTX ISA " << text(needed) << " or newer";
      if (*given)
        return Attribute(nvvm);
    } else {
      version = needed;
    }
    std::string features = "+ptx" + std::to_string(version);
    if (nvvm && !nvvm.getFeatures().empty())
      features = nvvm.getFeatures().str() + "," + features;
    return Attribute(NVVM::NVVMTargetAttr::get(
        &getContext(), nvvm ? nvvm.getO() : (int)optLevel,
        nvvm ? nvvm.getTriple() : "nvptx64-nvidia-cuda", chipName, features,
        nvvm ? nvvm.getFlags() : DictionaryAttr(),
        nvvm ? nvvm.getLink() : ArrayAttr()));
  }
};

} // namespace
