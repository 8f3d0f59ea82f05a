//===- Forms.cpp - The PTX instruction form table -------------------------===//
//
// The entry points of the table: a spelling's characters are checked here,
// then it is parsed against its family's record (FormRecords.cpp, read by
// FormInterpreter.cpp). Also here: targets and their PTX versions, and
// floors.
//
//===----------------------------------------------------------------------===//

#include "tile/PTX/Forms.h"
#include "FormRecords.h"
#include "FormSupport.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::tile::ptx;
using llvm::ArrayRef;
using llvm::SmallVectorImpl;
using llvm::SmallVector;
using llvm::StringRef;

llvm::StringRef mlir::tile::ptx::stringifyRole(Role role) {
  switch (role) {
  case Role::Dst:
    return "dst";
  case Role::Src:
    return "src";
  case Role::ReadWrite:
    return "rw";
  case Role::Imm:
    return "imm";
  }
  llvm_unreachable("unknown role");
}

bool Operand::takesImmediate(int64_t value) const {
  if (immediates.empty())
    return value >= 0 && static_cast<uint64_t>(value) <= maxImmediate &&
           value % immediateStep == 0;
  return llvm::is_contained(immediates, value);
}

std::string Operand::immediateText() const {
  if (immediates.empty() && immediateStep > 1)
    return "a multiple of " + std::to_string(immediateStep) + " from 0 to " +
           std::to_string(maxImmediate);
  if (immediates.empty())
    return "0 to " + std::to_string(maxImmediate);
  std::string text;
  for (auto [i, value] : llvm::enumerate(immediates)) {
    if (i)
      text += i + 1 == immediates.size() ? " or " : ", ";
    text += std::to_string(value);
  }
  return text;
}

llvm::StringRef mlir::tile::ptx::stringifySpace(Space space) {
  switch (space) {
  case Space::Reg:
    return "reg";
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  case Space::SharedCluster:
    return "shared::cluster";
  case Space::Local:
    return "local";
  case Space::Generic:
    return "generic";
  case Space::Const:
    return "const";
  case Space::Param:
    return "param";
  }
  llvm_unreachable("unknown space");
}

using namespace mlir::tile::ptx::detail;

namespace {

/// The families of the records in table order, each once; only the lowered
/// ones when `loweredOnly`.
std::vector<StringRef> recordFamilies(bool loweredOnly) {
  std::vector<StringRef> names;
  for (const records::FamilyRecord &record : records::familyRecords()) {
    StringRef name = record.family.empty() ? record.name : record.family;
    if ((!loweredOnly || record.lowered) && !llvm::is_contained(names, name))
      names.push_back(name);
  }
  return names;
}

} // namespace

std::vector<Form> mlir::tile::ptx::overloadsOf(const Form &primary) {
  SmallVector<StringRef> tokens;
  StringRef(primary.opcode).split(tokens, '.');
  std::string error;
  if (const records::FamilyRecord *record = records::findRecord(tokens))
    if (std::optional<std::vector<Form>> all =
            records::parseRecord(*record, tokens, error))
      return std::move(*all);
  return {primary};
}

llvm::ArrayRef<llvm::StringRef> mlir::tile::ptx::families() {
  static const std::vector<StringRef> lowered = recordFamilies(true);
  return lowered;
}

llvm::ArrayRef<llvm::StringRef> mlir::tile::ptx::tableFamilies() {
  static const std::vector<StringRef> all = recordFamilies(false);
  return all;
}

llvm::StringRef Operand::floatCarrier() const {
  if (type == "f16" || type == "bf16" || type == "f32" || type == "f64")
    return type;
  return "";
}

std::vector<std::string> Operand::carriers() const {
  if (isPredicate())
    return {"i1"};
  std::vector<std::string> result = {"i" + std::to_string(bits),
                                     "ui" + std::to_string(bits),
                                     "si" + std::to_string(bits)};
  if (!floatCarrier().empty())
    result.push_back(floatCarrier().str());
  return result;
}

std::optional<unsigned> Form::memoryOperand() const {
  for (auto [i, operand] : llvm::enumerate(operands))
    if (operand.isMemory())
      return i;
  return std::nullopt;
}

static std::string ptxVersionText(unsigned ptx) {
  return std::to_string(ptx / 10) + "." + std::to_string(ptx % 10);
}

std::string Form::floorText() const {
  std::string text = "sm_" + std::to_string(minSm);
  if (archOnly && maxSm == minSm)
    text += "a (an arch-specific target, and no later one)";
  else if (archOnly)
    text += "a to sm_" + std::to_string(maxSm) + "a (arch-specific targets)";
  else if (archSpecific && maxSm)
    text += "a/f to sm_" + std::to_string(maxSm) +
            "a/f (arch- or family-specific targets)";
  else if (maxSm)
    text = (minSm ? text + " to" : "a target up to") + std::string(" sm_") +
           std::to_string(maxSm);
  else
    text += archSpecific ? "a (an arch-specific target)" : " or newer";
  return minPtx ? text + " and PTX ISA " + ptxVersionText(minPtx) : text;
}

std::optional<Target> Target::parse(llvm::StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  Target target;
  if (chip.ends_with("a") || chip.ends_with("f")) {
    target.suffix = chip.back();
    chip = chip.drop_back();
  }
  static constexpr unsigned kKnown[] = {75, 80, 86, 87, 89, 90,
                                        100, 101, 103, 110, 120, 121};
  if (chip.getAsInteger(10, target.sm) || !llvm::is_contained(kKnown, target.sm))
    return std::nullopt;
  // Arch-specific targets exist from sm_90; family targets from sm_100.
  if ((target.suffix == 'a' && target.sm < 90) ||
      (target.suffix == 'f' && target.sm < 100))
    return std::nullopt;
  return target;
}

std::string Target::str() const {
  std::string text = "sm_" + std::to_string(sm);
  if (suffix)
    text += suffix;
  return text;
}

unsigned Target::maxPtx() { return 88; }

bool Target::isKnownPtx(unsigned ptx) {
  return (ptx >= 60 && ptx <= 65) || (ptx >= 70 && ptx <= 78) ||
         (ptx >= 80 && ptx <= maxPtx());
}

unsigned Target::minPtx() const {
  unsigned floor = 70;
  if (sm >= 86)
    floor = 71;
  if (sm >= 87)
    floor = 74;
  if (sm >= 89)
    floor = 78;
  if (sm >= 90 && suffix)
    floor = 80;
  if (sm >= 100)
    floor = 86;
  if (sm >= 120)
    floor = 87;
  if (sm == 103 || sm == 121 || suffix == 'f')
    floor = 88;
  if (sm >= 110 && sm < 120)
    floor = 90;
  return floor;
}

unsigned Target::maxSharedPerBlock() const {
  constexpr unsigned kKiB = 1024;
  switch (sm) {
  case 75:
    return 64 * kKiB;
  case 80:
  case 87:
    return 163 * kKiB;
  case 86:
  case 89:
  case 120:
  case 121:
    return 99 * kKiB;
  default: // sm_90, sm_100, sm_101, sm_103, sm_110
    return 227 * kKiB;
  }
}

std::optional<Form> mlir::tile::ptx::parseForm(llvm::StringRef opcode,
                                               std::string &error) {
  if (opcode.empty()) {
    error = "the opcode is empty";
    return std::nullopt;
  }
  for (char c : opcode) {
    if (!llvm::isAlnum(c) && c != '.' && c != '_' && c != ':') {
      // A byte of a multi-byte character is not text of its own: name it by
      // value, so a message never holds half a UTF-8 character.
      std::string shown = llvm::isPrint(c)
                              ? "'" + std::string(1, c) + "'"
                              : "the byte 0x" + llvm::utohexstr(
                                                    static_cast<uint8_t>(c),
                                                    /*LowerCase=*/true, 2);
      error = "the opcode contains " + shown +
              ", which no PTX instruction spelling has (only letters, digits, "
              "'.', '_' and ':')";
      return std::nullopt;
    }
  }
  SmallVector<StringRef, 8> tokens;
  opcode.split(tokens, '.');
  if (llvm::is_contained(tokens, StringRef())) {
    error = "'" + opcode.str() + "' has an empty qualifier";
    return std::nullopt;
  }
  const records::FamilyRecord *record = records::findRecord(tokens);
  if (!record) {
    // A first token that begins some records (bar.sync, barrier.arrive):
    // name them rather than the families.
    SmallVector<StringRef> named;
    for (const records::FamilyRecord &candidate : records::familyRecords())
      if (candidate.name.split('.').first == tokens.front() &&
          candidate.name.contains('.'))
        named.push_back(candidate.name);
    if (!named.empty()) {
      error = "'" + opcode.str() + "' is not a form the table knows: " +
              tokens.front().str() + " begins " + joinTokens(named);
      return std::nullopt;
    }
    error = "'" + tokens.front().str() + "' is not a PTX instruction family "
            "the form table knows: expected one of " +
            joinTokens(tableFamilies());
    return std::nullopt;
  }
  std::optional<std::vector<Form>> forms =
      records::parseRecord(*record, tokens, error);
  if (!forms)
    return std::nullopt;
  return std::move(forms->front());
}

llvm::ArrayRef<Form> mlir::tile::ptx::lookupForms(llvm::StringRef opcode,
                                                  std::string &error) {
  // Only legal spellings are kept (MLIR verifies on several threads, hence
  // one cache per thread): they are finitely many, while a fuzzer spells
  // illegal ones without end.
  thread_local llvm::StringMap<std::vector<Form>> cache;
  auto it = cache.find(opcode);
  if (it != cache.end())
    return it->second;
  std::optional<Form> primary = parseForm(opcode, error);
  if (!primary)
    return {};
  if (!primary->lowered) {
    // A family lowered in part (bar.sync but not bar.red) names the form.
    bool familyLowered = llvm::any_of(
        records::familyRecords(), [&](const records::FamilyRecord &record) {
          StringRef family =
              record.family.empty() ? record.name : record.family;
          return family == primary->family && record.lowered;
        });
    error = "'" + opcode.str() + "' is a PTX form the table knows, but "
            "tile-mlir does not lower " +
            (familyLowered ? "this form of the " : "the ") + primary->family +
            " family yet";
    return {};
  }
  std::vector<Form> forms = overloadsOf(*primary);
  return cache.try_emplace(opcode, std::move(forms)).first->second;
}

bool mlir::tile::ptx::isAvailableOn(const Form &form, const Target &target,
                                    std::string &error) {
  bool ok = target.sm >= form.minSm;
  if (form.archSpecific)
    ok = ok && target.suffix != 0;
  if (form.archOnly)
    ok = ok && target.suffix == 'a';
  if (form.maxSm)
    ok = ok && target.sm <= form.maxSm;
  if (form.minPtx > Target::maxPtx())
    ok = false;
  if (!ok)
    error = form.opcode + " requires " + form.floorText() + ", but the "
            "target is " + target.str();
  return ok;
}
