//===- TileModule.cpp - The tile_mlir._tile extension ---------------------===//
//
// Binds the tile dialect's C API and the PTX form table. MLIR objects cross
// the boundary as C API handles, so this extension shares the one MLIR copy
// of the `mlir` package in the process.
//
//===----------------------------------------------------------------------===//

#include "mlir/Bindings/Python/NanobindAdaptors.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "tile-c/Tile.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/PTX/Forms.h"
#include "tile/Pipeline/Pipeline.h"

#include <mutex>

#include "llvm/Support/ErrorHandling.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <stdexcept>

namespace nb = nanobind;
namespace ptx = mlir::tile::ptx;

static nb::dict formToDict(const ptx::Form &form) {
  nb::list operands;
  for (const ptx::Operand &operand : form.operands) {
    nb::dict entry;
    entry["name"] = operand.name;
    entry["role"] = ptx::stringifyRole(operand.role).str();
    entry["space"] = ptx::stringifySpace(operand.space).str();
    entry["type"] = operand.type;
    entry["bits"] = operand.bits;
    entry["count"] = operand.count;
    entry["register_bits"] = operand.registerBits();
    nb::list carriers;
    for (const std::string &carrier : operand.carriers())
      carriers.append(carrier);
    entry["carriers"] = carriers;
    nb::list immediates;
    for (int64_t value : operand.immediates)
      immediates.append(value);
    entry["immediates"] = immediates;
    entry["max_immediate"] = operand.maxImmediate;
    entry["immediate_step"] = operand.immediateStep;
    entry["read_at"] = operand.readAt;
    entry["joined_by_bar"] = operand.joinedByBar;
    entry["bar_before"] = operand.barBefore;
    entry["sized_by"] = operand.sizedBy;
    entry["axes"] = operand.axes;
    entry["accumulator"] = operand.accumulator;
    entry["braced"] = operand.braced;
    entry["address"] = operand.address;
    entry["within_address"] = operand.withinAddress;
    entry["box"] = operand.box;
    entry["bulk"] = operand.bulk;
    entry["matrix_type"] = operand.matrixType;
    entry["matrix_bits"] = operand.matrixBits;
    operands.append(entry);
  }
  nb::dict result;
  result["opcode"] = form.opcode;
  result["family"] = form.family;
  result["operands"] = operands;
  if (form.matrixShape)
    result["matrix_shape"] = nb::make_tuple(
        form.matrixShape->m, form.matrixShape->n, form.matrixShape->k);
  else
    result["matrix_shape"] = nb::none();
  result["min_sm"] = form.minSm;
  result["min_ptx"] = form.minPtx;
  result["arch_specific"] = form.archSpecific;
  result["arch_only"] = form.archOnly;
  result["max_sm"] = form.maxSm;
  result["reads_memory"] = form.readsMemory;
  result["writes_memory"] = form.writesMemory;
  result["address_value"] = form.addressValue;
  result["warp_collective"] = form.warpCollective;
  result["warpgroup_collective"] = form.warpgroupCollective;
  result["accesses_described_memory"] = form.accessesDescribedMemory;
  result["block_barrier"] = form.blockBarrier;
  result["observes_warp"] = form.observesWarp;
  result["sink_result"] = form.sinkResult;
  result["orders_memory"] = form.ordersMemory;
  result["reads_carry"] = form.readsCarry;
  result["writes_carry"] = form.writesCarry;
  result["accesses_tensor_memory"] = form.accessesTensorMemory;
  result["lowered"] = form.lowered;
  result["caveat"] = form.caveat;
  return result;
}

ptx::Target parseTarget(const std::string &chip) {
  std::optional<ptx::Target> target = ptx::Target::parse(chip);
  if (!target)
    throw nb::value_error(
        ("unknown target '" + chip + "': expected sm_XX, sm_XXa or sm_XXf")
            .c_str());
  return *target;
}

/// The reason of the first LLVM fatal error this process raised, or empty.
static std::mutex fatalErrorMutex;
static std::string firstFatalError;

/// A fatal error in LLVM or MLIR ends the process: exit(1), or abort() for
/// a crash diagnostic. tile-mlir checks every user input before upstream
/// code sees it; should one still get through, the error becomes a C++
/// exception that unwinds to the binding that made the call, which raises it
/// in Python as a RuntimeError, instead of ending the interpreter. Work done
/// on a worker thread cannot unwind this way; kernels compiled from Python
/// run their passes on the calling thread (script.PrimFunc).
///
/// LLVM is built without exceptions, so the frames unwound run no
/// destructors: what they held is left half-built. Measured: the next
/// gpu-module-to-binary freed a stack address and returned empty PTX. The
/// error is therefore remembered, and tile_mlir refuses to compile again in
/// this process (fatal_error_seen).
[[noreturn]] static void raiseFatalError(void *, const char *reason, bool) {
  {
    std::lock_guard<std::mutex> lock(fatalErrorMutex);
    if (firstFatalError.empty())
      firstFatalError = reason && *reason ? reason : "(no reason given)";
  }
  throw std::runtime_error(std::string("LLVM fatal error: ") + reason);
}

NB_MODULE(_tile, m) {
  m.doc() = "Native part of tile_mlir: dialect registration and the PTX form table";
  llvm::remove_fatal_error_handler();
  llvm::install_fatal_error_handler(raiseFatalError);

  m.def(
      "insert_dialect",
      [](MlirDialectRegistry registry) {
        mlirDialectHandleInsertDialect(mlirGetDialectHandle__tile__(), registry);
      },
      nb::arg("registry"), "Adds the tile dialect to a DialectRegistry.");
  m.def(
      "register_dialect",
      [](MlirContext context, bool load) {
        MlirDialectHandle handle = mlirGetDialectHandle__tile__();
        mlirDialectHandleRegisterDialect(handle, context);
        if (load)
          mlirDialectHandleLoadDialect(handle, context);
      },
      nb::arg("context"), nb::arg("load") = true,
      "Registers (and loads) the tile dialect in a Context.");
  m.def("register_passes", &tileRegisterPasses,
        "Registers the tile passes and the tile-to-ptx pipeline.");
  m.def(
      "pipeline",
      [](const std::string &chip, unsigned ptxVersion, unsigned optLevel,
         const std::string &format, bool barePointers,
         const std::string &foldBarriers) {
        std::string error = mlir::tile::checkTileToPTXOptions(
            chip, ptxVersion, optLevel, format, foldBarriers);
        if (!error.empty())
          throw nb::value_error(error.c_str());
        return "builtin.module(" +
               mlir::tile::buildTileToPTXPipeline(chip, ptxVersion, optLevel,
                                                  format, barePointers,
                                                  foldBarriers) +
               ")";
      },
      nb::arg("chip") = "sm_90", nb::arg("ptx") = 0, nb::arg("opt_level") = 3,
      nb::arg("format") = "isa", nb::arg("bare_pointers") = true,
      nb::arg("fold_barriers") = "auto",
      "The textual tile-to-ptx pass pipeline, anchored on builtin.module; "
      "raises ValueError for an option value the pipeline does not take.");
  m.def("check_options", &mlir::tile::checkTileToPTXOptions, nb::arg("chip"),
        nb::arg("ptx"), nb::arg("opt_level"), nb::arg("format"),
        nb::arg("fold_barriers") = "auto",
        "The message for the first tile-to-ptx option the pipeline does not "
        "take, \"\" when all are good.");
  m.def(
      "parse_form",
      [](const std::string &opcode, std::optional<std::string> target) {
        std::string error;
        std::optional<ptx::Form> form = ptx::parseForm(opcode, error);
        if (!form)
          throw nb::value_error(error.c_str());
        if (target && !ptx::isAvailableOn(*form, parseTarget(*target), error))
          throw nb::value_error(error.c_str());
        return formToDict(*form);
      },
      nb::arg("opcode"), nb::arg("target") = nb::none(),
      "Parses a PTX opcode; raises ValueError with the table's message.");
  m.def(
      "overloads",
      [](const std::string &opcode, std::optional<std::string> target) {
        std::string error;
        std::optional<ptx::Form> form = ptx::parseForm(opcode, error);
        if (!form)
          throw nb::value_error(error.c_str());
        std::optional<ptx::Target> parsed;
        if (target)
          parsed = parseTarget(*target);
        nb::list result;
        for (const ptx::Form &overload : ptx::overloadsOf(*form))
          if (!parsed || ptx::isAvailableOn(overload, *parsed, error))
            result.append(formToDict(overload));
        return result;
      },
      nb::arg("opcode"), nb::arg("target") = nb::none(),
      "Every form a spelling names (mov also packs and unpacks with braces), "
      "only those that exist on `target` when given.");
  m.def(
      "check_thread_register_tile",
      [](MlirValue tile, bool destination) -> std::optional<std::string> {
        mlir::Value value = unwrap(tile);
        std::optional<std::string> message;
        mlir::ScopedDiagnosticHandler capture(
            value.getContext(), [&](mlir::Diagnostic &diagnostic) {
              message = diagnostic.str();
              return mlir::success();
            });
        (void)mlir::tile::verifyThreadRegisterTile(
            [&]() { return mlir::emitError(value.getLoc()); }, value,
            destination);
        return message;
      },
      nb::arg("tile"), nb::arg("destination"),
      "The first rule of tile.apply's register operands at thread scope that "
      "`tile` breaks (mlir::tile::verifyThreadRegisterTile), or None.");
  m.def(
      "fatal_error_seen",
      []() -> std::optional<std::string> {
        std::lock_guard<std::mutex> lock(fatalErrorMutex);
        if (firstFatalError.empty())
          return std::nullopt;
        return firstFatalError;
      },
      "The reason of the first LLVM fatal error raised in this process, or "
      "None: after one, LLVM's state is undefined (see raiseFatalError).");
  m.def("families", []() {
    nb::list result;
    for (llvm::StringRef family : ptx::families())
      result.append(family.str());
    return result;
  });
  m.def("table_families", []() {
    nb::list result;
    for (llvm::StringRef family : ptx::tableFamilies())
      result.append(family.str());
    return result;
  });
  m.def(
      "enumerate_forms",
      [](const std::string &family) {
        nb::list result;
        for (const std::string &spelling : ptx::enumerateForms(family))
          result.append(spelling);
        return result;
      },
      nb::arg("family"),
      "Every legal spelling of a record family, one per qualifier set.");
}
