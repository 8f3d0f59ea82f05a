//===- TileAttachTarget.cpp - NVVM targets with the right PTX version -----===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEATTACHTARGET
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The lowest PTX ISA version (times ten) that knows `target`.
unsigned chipFloor(const ptx::Target &target) {
  unsigned floor = 70;
  if (target.sm >= 86)
    floor = 71;
  if (target.sm >= 87)
    floor = 74;
  if (target.sm >= 89)
    floor = 78;
  if (target.sm >= 90 && target.suffix)
    floor = 80;
  if (target.sm >= 100)
    floor = 86;
  if (target.sm >= 120)
    floor = 87;
  if (target.sm == 103 || target.sm == 121 || target.suffix == 'f')
    floor = 88;
  if (target.sm >= 110 && target.sm < 120)
    floor = 90;
  return floor;
}

struct TileAttachTargetPass
    : public tile::impl::TileAttachTargetBase<TileAttachTargetPass> {
  using TileAttachTargetBase::TileAttachTargetBase;

  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      ArrayAttr targets = module.getTargetsAttr();
      NVVM::NVVMTargetAttr nvvm;
      if (targets)
        for (Attribute attr : targets)
          if (auto t = dyn_cast<NVVM::NVVMTargetAttr>(attr))
            nvvm = t;
      if (targets && !nvvm)
        continue;
      std::string chipName = nvvm ? nvvm.getChip().str() : chip;
      std::optional<ptx::Target> target = ptx::Target::parse(chipName);
      if (!target) {
        module.emitError() << "unknown target chip '" << chipName << "'";
        return signalPassFailure();
      }
      if (nvvm && nvvm.getFeatures().contains("+ptx"))
        continue;
      unsigned version = ptxVersion ? (unsigned)ptxVersion : chipFloor(*target);
      if (!ptxVersion) {
        module.walk([&](Operation *op) {
          StringAttr opcode = op->getAttrOfType<StringAttr>("opcode");
          if (!opcode || !isa<ApplyOp, InstrOp>(op))
            return;
          std::string error;
          if (auto form = ptx::parseForm(opcode.getValue(), error))
            version = std::max(version, form->minPtx);
        });
      }
      std::string features = "+ptx" + std::to_string(version);
      if (nvvm && !nvvm.getFeatures().empty())
        features = nvvm.getFeatures().str() + "," + features;
      auto attached = NVVM::NVVMTargetAttr::get(
          &getContext(), nvvm ? nvvm.getO() : (int)optLevel,
          nvvm ? nvvm.getTriple() : "nvptx64-nvidia-cuda", chipName, features,
          nvvm ? nvvm.getFlags() : DictionaryAttr(),
          nvvm ? nvvm.getLink() : ArrayAttr());
      SmallVector<Attribute> newTargets;
      if (targets)
        for (Attribute attr : targets)
          if (attr != nvvm)
            newTargets.push_back(attr);
      newTargets.insert(newTargets.begin(), attached);
      module.setTargetsAttr(ArrayAttr::get(&getContext(), newTargets));
    }
  }
};

} // namespace
