//===- FormInterpreter.cpp - Parse and enumerate the family records --------===//
//
// One interpreter for every record (FormRecords.cpp): it splits a spelling
// into positional type tokens and free-order qualifiers, picks the variant
// whose type tuple matches, assigns the qualifiers to its slots, checks the
// rules, applies the floors and builds the operands of each signature. The
// enumerator spells every slot combination of every type tuple and keeps
// what the interpreter accepts, so the two cannot disagree.
//
//===----------------------------------------------------------------------===//

#include "FormRecords.h"
#include "FormSupport.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir::tile::ptx;
using namespace mlir::tile::ptx::records;
using namespace mlir::tile::ptx::detail;

namespace {

/// The first-position types of the single-type variants, in record order:
/// what a diagnostic lists as legal.
SmallVector<StringRef> singleTypes(const FamilyRecord &record) {
  llvm::SetVector<StringRef> types;
  for (const VariantRecord &variant : record.variants)
    if (variant.types.size() == 1)
      types.insert(variant.types.front().begin(), variant.types.front().end());
  return SmallVector<StringRef>(types.begin(), types.end());
}

std::string tupleText(const VariantRecord &variant) {
  SmallVector<std::string> positions;
  for (Tokens alternatives : variant.types)
    positions.push_back(llvm::join(alternatives, "|"));
  return llvm::join(positions, ".");
}

/// The error for type tokens no variant takes.
std::string typeError(const FamilyRecord &record, ArrayRef<StringRef> tokens,
                      ArrayRef<StringRef> types) {
  std::string family = record.name.str();
  SmallVector<StringRef> legal = singleTypes(record);
  if (types.empty()) {
    // A last token shaped like a type (f128, s7) is a bad type; anything
    // else (add.rn) is a missing one.
    StringRef last = tokens.back();
    bool typeShaped = tokens.size() > 1 && last.size() > 1 &&
                      StringRef("bsuft").contains(last.front()) &&
                      llvm::isDigit(last[1]);
    if (typeShaped && !legal.empty())
      return "'" + last.str() + "' is not a type of " + family +
             ": expected one of " + joinTokens(legal);
    if (!legal.empty())
      return family + " needs a type: one of " + joinTokens(legal);
  }
  if (types.size() == 1 && !legal.empty())
    return "'" + types[0].str() + "' is not a type of " + family +
           ": expected one of " + joinTokens(legal);
  if (types.size() > 1 && !legal.empty())
    return "'" + types[0].str() + "' and '" + types[1].str() +
           "' are both types; " + family + " takes one";
  SmallVector<std::string> tuples;
  for (const VariantRecord &variant : record.variants)
    if (variant.types.size() > 1)
      tuples.push_back(tupleText(variant));
  return "'" + llvm::join(types, ".") + "' are not the types of any " +
         family + " form: expected " + llvm::join(tuples, " or ");
}

/// The first variant that takes `types`. A qualifier some variants are
/// for (cvt's rs) limits the choice to those variants; `selector` returns
/// their first, for its message.
/// Whether `variant`'s type tuples include `types`.
bool takesTypes(const VariantRecord &variant, ArrayRef<StringRef> types) {
  if (variant.types.size() != types.size())
    return false;
  return llvm::all_of(llvm::zip(variant.types, types), [](auto pair) {
    return llvm::is_contained(std::get<0>(pair), std::get<1>(pair));
  });
}

const VariantRecord *selectVariant(const FamilyRecord &record,
                                   ArrayRef<StringRef> types,
                                   ArrayRef<StringRef> qualifiers,
                                   const VariantRecord *&selector) {
  selector = nullptr;
  for (const VariantRecord &variant : record.variants)
    if (!variant.whenToken.empty() &&
        llvm::is_contained(qualifiers, variant.whenToken)) {
      selector = &variant;
      break;
    }
  for (const VariantRecord &variant : record.variants) {
    if (selector ? variant.whenToken != selector->whenToken
                 : !variant.whenToken.empty())
      continue;
    if (takesTypes(variant, types))
      return &variant;
  }
  return nullptr;
}

std::string fill(StringRef message, StringRef context, StringRef token,
                 StringRef other, StringRef type) {
  std::string text;
  while (!message.empty()) {
    size_t open = message.find('{');
    text += message.take_front(open).str();
    if (open == StringRef::npos)
      break;
    message = message.drop_front(open);
    StringRef key = message.take_until([](char c) { return c == '}'; });
    message = message.drop_front(std::min(message.size(), key.size() + 1));
    text += key == "{ctx"     ? context.str()
            : key == "{tok"   ? token.str()
            : key == "{other" ? other.str()
                              : type.str();
  }
  return text;
}

bool slotApplies(const SlotRecord &slot, ArrayRef<StringRef> types) {
  if (!slot.onlyFor.empty() &&
      (slot.typeIndex >= types.size() ||
       !llvm::is_contained(slot.onlyFor, types[slot.typeIndex])))
    return false;
  return !slot.appliesIf || slot.appliesIf(types);
}

/// The token chosen for the slot named `name`, or `name` when it is a
/// chosen qualifier, or "".
StringRef chosenOf(StringRef name, ArrayRef<const SlotRecord *> slots,
                   ArrayRef<StringRef> chosen) {
  if (name.empty())
    return {};
  for (auto [slot, token] : llvm::zip(slots, chosen))
    if (slot->what == name)
      return token;
  return llvm::is_contained(chosen, name) ? name : StringRef();
}

/// Whether `rule` rejects the spelling; `chosen` is keyed by slot.
bool violates(const RuleRecord &rule, ArrayRef<StringRef> tokens,
              ArrayRef<const SlotRecord *> slots, ArrayRef<StringRef> chosen,
              ArrayRef<StringRef> types) {
  StringRef firstType = types.empty() ? StringRef() : types.front();
  if (!rule.types.empty() && !llvm::is_contained(rule.types, firstType))
    return false;
  StringRef subject = chosenOf(rule.token, slots, chosen);
  StringRef other = chosenOf(rule.other, slots, chosen);
  auto position = [&](StringRef token) {
    return llvm::find(tokens, token) - tokens.begin();
  };
  unsigned bits = lookupType(firstType) ? lookupType(firstType)->bits : 0;
  switch (rule.kind) {
  case RuleRecord::Excludes:
    return !subject.empty() && !other.empty() &&
           !llvm::is_contained(rule.allowed, other);
  case RuleRecord::Chosen:
    return !subject.empty();
  case RuleRecord::NarrowerThan:
    return !subject.empty() && bits < rule.bits;
  case RuleRecord::AtLeast:
    return !subject.empty() && bits >= rule.bits;
  case RuleRecord::SlotAfterType:
    return !subject.empty() && position(subject) > position(firstType);
  case RuleRecord::Before:
    return !subject.empty() && !other.empty() &&
           position(other) < position(subject);
  case RuleRecord::RequiresAny:
    return !subject.empty() && llvm::none_of(rule.allowed, [&](StringRef t) {
      return llvm::is_contained(chosen, t);
    });
  case RuleRecord::Requires:
    return !subject.empty() && other.empty();
  case RuleRecord::Absent:
    return subject.empty();
  case RuleRecord::Hook:
    return rule.holds(types, chosen);
  case RuleRecord::Caveat:
    return false;
  }
  return false;
}

/// Whether a Caveat rule describes the spelling: its first type is one of
/// `types`, `token` is chosen and so is one of `allowed`, each when given.
bool appliesAsCaveat(const RuleRecord &rule, ArrayRef<const SlotRecord *> slots,
                     ArrayRef<StringRef> chosen, StringRef firstType) {
  if (!rule.types.empty() && !llvm::is_contained(rule.types, firstType))
    return false;
  if (!rule.token.empty() && chosenOf(rule.token, slots, chosen).empty())
    return false;
  return rule.allowed.empty() ||
         llvm::any_of(rule.allowed, [&](StringRef token) {
           return llvm::is_contained(chosen, token);
         });
}

Space spaceOf(StringRef token) {
  return llvm::StringSwitch<Space>(token)
      .Case("", Space::Generic)
      .Case("global", Space::Global)
      .Case("local", Space::Local)
      .Case("const", Space::Const)
      .Case("param", Space::Param)
      .Case("param::entry", Space::Param)
      .Case("shared::cluster", Space::SharedCluster)
      .StartsWith("shared", Space::Shared)
      .Default(Space::Generic);
}

Operand buildOperand(const OperandRecord &spec, ArrayRef<StringRef> types,
                     ArrayRef<const SlotRecord *> slots,
                     ArrayRef<StringRef> chosen) {
  StringRef typeName = spec.fixedType.empty() ? types[spec.typeIndex]
                                              : spec.fixedType;
  const TypeInfo *type = lookupType(typeName);
  if (!spec.widenedBy.empty() && llvm::is_contained(chosen, spec.widenedBy)) {
    std::string wide = typeName.take_front(1).str() +
                       std::to_string(type->bits * 2);
    type = lookupType(wide);
  }
  unsigned count = spec.count;
  if (StringRef token = chosenOf(spec.countFrom, slots, chosen);
      !token.empty() && spec.shapeNPerRegister) {
    std::optional<Form::MatrixShape> shape = parseMatrixShape(token);
    count = shape ? shape->n / spec.shapeNPerRegister : 0;
  } else if (!token.empty()) {
    // The token's digits: v4, x2, 3d.
    token.drop_until(llvm::isDigit).take_while(llvm::isDigit).getAsInteger(
        10, count);
  }
  if (!spec.countDoubledBy.empty() &&
      llvm::is_contained(chosen, spec.countDoubledBy))
    count *= 2;
  if (spec.countOf)
    count = spec.countOf(chosen);
  Space space = spec.spaceFrom.empty()
                    ? spec.space
                    : spaceOf(chosenOf(spec.spaceFrom, slots, chosen));
  Operand operand = space == Space::Reg
                        ? reg(spec.name, spec.role, type, count)
                        : mem(spec.name, spec.role, space, type, count);
  bool narrowed = !spec.narrowedBy.empty() &&
                  llvm::is_contained(chosen, spec.narrowedBy);
  ArrayRef<unsigned> values =
      narrowed ? spec.narrowedImmediates : spec.immediates;
  operand.immediates.assign(values.begin(), values.end());
  if (!spec.signedImmediates.empty())
    operand.immediates.assign(spec.signedImmediates.begin(),
                              spec.signedImmediates.end());
  operand.maxImmediate = spec.maxImmediate;
  operand.immediateStep = spec.immediateStep;
  operand.readAt = spec.readAt;
  operand.joinedByBar = spec.joinedByBar;
  operand.barBefore = spec.barBefore;
  operand.exactRegister |= spec.exactRegister;
  operand.axes = spec.axes.str();
  operand.accumulator = spec.accumulator;
  operand.braced = spec.braced;
  operand.address = spec.address;
  operand.withinAddress = spec.withinAddress;
  operand.box = spec.box;
  operand.bulk = spec.bulk;
  operand.sizedBy = spec.sizedBy.str();
  operand.fold = spec.fold;
  if (spec.matrixTypeIndex >= 0) {
    operand.matrixType = types[spec.matrixTypeIndex].str();
    // b1, the single-bit multiply's, is no register's type.
    const TypeInfo *element = lookupType(operand.matrixType);
    operand.matrixBits = element ? element->bits : 1;
  }
  if (!spec.saturationBy.empty() &&
      llvm::is_contained(chosen, spec.saturationBy) &&
      (type->kind == 'u' || type->kind == 's'))
    operand.fold = Fold::IntegerSaturation;
  return operand;
}

/// Parses a spelling whose types `variant` takes: its qualifiers against
/// the variant's slots and rules, then one form per signature.
std::optional<std::vector<Form>>
parseVariant(const FamilyRecord &record, const VariantRecord &variant,
             Tokens spelling, ArrayRef<StringRef> types,
             ArrayRef<StringRef> qualifiers, std::string &error) {
  bool anySlots = llvm::any_of(record.variants, [](const VariantRecord &v) {
    return !v.slots.empty();
  });
  std::string context = record.name.str();
  if (anySlots)
    for (StringRef type : types)
      context += "." + type.str();
  StringRef firstType = types.empty() ? StringRef() : types.front();

  SmallVector<Slot> slots;
  SmallVector<const SlotRecord *> slotRecords;
  for (const SlotRecord &slot : variant.slots) {
    if (!slotApplies(slot, types))
      continue;
    slots.push_back(Slot{slot.what, {slot.tokens.begin(), slot.tokens.end()},
                         slot.required});
    slotRecords.push_back(&slot);
  }
  SmallVector<StringRef> chosen;
  if (!matchQualifiers(qualifiers, slots, context, chosen, error))
    return std::nullopt;
  for (const RuleRecord &rule : variant.rules) {
    if (violates(rule, spelling, slotRecords, chosen, types)) {
      error = fill(rule.message, context,
                   chosenOf(rule.token, slotRecords, chosen),
                   chosenOf(rule.other, slotRecords, chosen), firstType);
      return std::nullopt;
    }
  }

  Form form;
  for (const RuleRecord &rule : variant.rules)
    if (rule.kind == RuleRecord::Caveat &&
        appliesAsCaveat(rule, slotRecords, chosen, firstType))
      form.caveat = fill(rule.message, context, rule.token, {}, firstType);
  form.opcode = llvm::join(spelling, ".");
  form.family = (record.family.empty() ? record.name : record.family).str();
  form.readsMemory = record.readsMemory;
  form.writesMemory = record.writesMemory;
  form.addressValue = record.addressValue;
  form.warpCollective = record.warpCollective;
  form.warpgroupCollective = record.warpgroupCollective;
  form.accessesDescribedMemory = record.accessesDescribedMemory;
  form.blockBarrier = record.blockBarrier;
  form.observesWarp = record.observesWarp;
  form.ordersMemory = record.ordersMemory;
  form.synchronizes = record.synchronizes;
  form.guardIgnored = record.guardIgnored;
  form.readsCarry = record.readsCarry;
  form.accessesTensorMemory = record.accessesTensorMemory;
  form.writesCarry = llvm::is_contained(chosen, StringRef("cc"));
  form.lowered = record.lowered && variant.lowered;
  form.sinkResult = variant.sinkResult;
  for (auto [slot, token] : llvm::zip(slotRecords, chosen))
    if (slot->what == "shape")
      form.matrixShape = parseMatrixShape(token);
  for (const FloorRecord &floor : variant.floors) {
    if (!floor.types.empty() &&
        !llvm::is_contained(floor.types, types[floor.typeIndex]))
      continue;
    if ((!floor.token.empty() &&
         chosenOf(floor.token, slotRecords, chosen).empty()) ||
        (!floor.token2.empty() &&
         chosenOf(floor.token2, slotRecords, chosen).empty()))
      continue;
    form.minSm = std::max(form.minSm, floor.sm);
    form.minPtx = std::max(form.minPtx, floor.ptx);
    form.archSpecific |= floor.archSpecific || floor.archOnly;
    form.archOnly |= floor.archOnly;
    // The narrowest bound of the floors that apply (tcgen05.mma.kind::i8:
    // the family's sm_110 and the kind's sm_100).
    if (floor.maxSm)
      form.maxSm = form.maxSm ? std::min(form.maxSm, floor.maxSm) : floor.maxSm;
  }
  std::vector<Form> forms;
  for (Signature signature : variant.signatures) {
    Form overload = form;
    for (const OperandRecord &spec : signature)
      if (spec.onlyWith.empty() ||
          !chosenOf(spec.onlyWith, slotRecords, chosen).empty())
        overload.operands.push_back(
          buildOperand(spec, types, slotRecords, chosen));
    forms.push_back(std::move(overload));
  }
  return forms;
}

} // namespace

std::optional<std::vector<Form>>
mlir::tile::ptx::records::parseRecord(const FamilyRecord &record,
                                      Tokens spelling, std::string &error) {
  unsigned nameTokens = llvm::count(record.name, '.') + 1;
  SmallVector<StringRef> types, qualifiers;
  Tokens rest = spelling.drop_front(nameTokens);
  if (record.splitTypes) {
    if (!record.splitTypes(rest, types, qualifiers, error))
      return std::nullopt;
  } else {
    for (StringRef token : rest)
      (lookupType(token) ? types : qualifiers).push_back(token);
  }
  for (StringRef token : record.repeatable)
    while (llvm::count(qualifiers, token) > 1)
      qualifiers.erase(llvm::find(qualifiers, token));

  const VariantRecord *selector;
  const VariantRecord *variant =
      selectVariant(record, types, qualifiers, selector);
  if (!variant) {
    // {ctx} of a variant's message is the family's name (bar.red takes
    // ..., atom vectors take ...).
    // {type} of a variant's message is every type token (f16.f16.f16.f32).
    std::string allTypes = llvm::join(types, ".");
    error = selector         ? fill(selector->whenMessage, record.name, {}, {}, allTypes)
            : record.typeError ? record.typeError(types)
                               : typeError(record, spelling, types);
    return std::nullopt;
  }
  std::optional<std::vector<Form>> forms =
      parseVariant(record, *variant, spelling, types, qualifiers, error);
  // When no variant takes the spelling, the first one's error is the
  // answer unless it only says a qualifier is not its own and an extending
  // variant that takes every qualifier names the rule it breaks
  // (mbarrier.arrive.noComplete.relaxed: the variant with .noComplete says
  // it excludes .relaxed).
  bool onlyForeign = !forms && StringRef(error).contains("is not a qualifier of");
  for (const VariantRecord *next = variant + 1;
       next != record.variants.end() && next->extendsPrevious; ++next) {
    if (!takesTypes(*next, types))
      continue;
    std::string nextError;
    std::optional<std::vector<Form>> more =
        parseVariant(record, *next, spelling, types, qualifiers, nextError);
    if (!more) {
      if (onlyForeign && !StringRef(nextError).contains("is not a qualifier of")) {
        error = nextError;
        onlyForeign = false;
      }
      continue;
    }
    if (!forms)
      forms.emplace();
    llvm::append_range(*forms, *more);
  }
  return forms;
}

namespace {

/// Whether a rule that stays broken once broken (Excludes, Chosen) is
/// broken by the slots decided so far: the enumerator's pruning.
bool brokenSoFar(const VariantRecord &variant, ArrayRef<StringRef> types,
                 ArrayRef<const SlotRecord *> slots,
                 ArrayRef<StringRef> picked) {
  // Neither kind looks at token positions, so no spelling is needed.
  return llvm::any_of(variant.rules, [&](const RuleRecord &rule) {
    return (rule.kind == RuleRecord::Excludes ||
            rule.kind == RuleRecord::Chosen) &&
           violates(rule, /*tokens=*/{}, slots, picked, types);
  });
}

/// Spells every combination of the applicable slots of `variant` for one
/// type tuple, each slot absent (unless required) or one of its tokens,
/// depth first, pruning combinations a rule already rejects; the
/// interpreter has the last word on each full spelling.
void spellCombinations(const FamilyRecord &record, const VariantRecord &variant,
                       ArrayRef<StringRef> types,
                       ArrayRef<const SlotRecord *> slots,
                       SmallVectorImpl<StringRef> &picked,
                       std::vector<std::string> &out) {
  if (picked.size() == slots.size()) {
    SmallVector<StringRef> tokens = {record.name};
    for (StringRef token : picked)
      if (!token.empty())
        tokens.push_back(token);
    tokens.append(types.begin(), types.end());
    std::string spelling = llvm::join(tokens, ".");
    SmallVector<StringRef> split;
    StringRef(spelling).split(split, '.');
    std::string error;
    if (parseRecord(record, split, error))
      out.push_back(spelling);
    return;
  }
  const SlotRecord *slot = slots[picked.size()];
  SmallVector<StringRef> options;
  if (!slot->required)
    options.push_back(StringRef());
  options.append(slot->tokens.begin(), slot->tokens.end());
  for (StringRef option : options) {
    picked.push_back(option);
    if (!brokenSoFar(variant, types, slots.take_front(picked.size()), picked))
      spellCombinations(record, variant, types, slots, picked, out);
    picked.pop_back();
  }
}

void spellTuples(const FamilyRecord &record, const VariantRecord &variant,
                 SmallVectorImpl<StringRef> &prefix,
                 std::vector<std::string> &out) {
  if (prefix.size() == variant.types.size()) {
    SmallVector<const SlotRecord *> slots;
    for (const SlotRecord &slot : variant.slots)
      if (slotApplies(slot, prefix))
        slots.push_back(&slot);
    SmallVector<StringRef> picked;
    spellCombinations(record, variant, prefix, slots, picked, out);
    return;
  }
  for (StringRef type : variant.types[prefix.size()]) {
    prefix.push_back(type);
    spellTuples(record, variant, prefix, out);
    prefix.pop_back();
  }
}

} // namespace

std::vector<std::string> mlir::tile::ptx::enumerateForms(llvm::StringRef family) {
  std::vector<std::string> out;
  for (const FamilyRecord &record : familyRecords()) {
    if ((record.family.empty() ? record.name : record.family) != family)
      continue;
    for (const VariantRecord &variant : record.variants) {
      SmallVector<StringRef> prefix;
      spellTuples(record, variant, prefix, out);
    }
  }
  // A variant that extends the previous one spells some of its spellings
  // again.
  llvm::StringSet<> seen;
  llvm::erase_if(out, [&](const std::string &spelling) {
    return !seen.insert(spelling).second;
  });
  return out;
}
