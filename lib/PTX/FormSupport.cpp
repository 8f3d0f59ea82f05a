//===- FormSupport.cpp - Pieces the form parsers share ---------------------===//

#include "FormSupport.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::tile::ptx::detail {

const TypeInfo *lookupType(StringRef name) {
  for (const TypeInfo &type : kTypes)
    if (type.name == name)
      return &type;
  return nullptr;
}

std::optional<Form::MatrixShape> parseMatrixShape(StringRef token) {
  Form::MatrixShape shape;
  StringRef rest = token;
  auto number = [&](char letter, unsigned &value) {
    if (!rest.consume_front(StringRef(&letter, 1)))
      return false;
    StringRef digits = rest.take_while(llvm::isDigit);
    rest = rest.drop_front(digits.size());
    return !digits.empty() && !digits.getAsInteger(10, value);
  };
  if (number('m', shape.m) && number('n', shape.n) && number('k', shape.k) &&
      rest.empty())
    return shape;
  return std::nullopt;
}

std::string describeSlot(const Slot &slot) {
  if (slot.tokens.size() == 1)
    return slot.tokens.front().str();
  return slot.what.str() + " (" + joinTokens(slot.tokens) + ")";
}

bool matchQualifiers(ArrayRef<StringRef> quals, ArrayRef<Slot> slots,
                     StringRef context, SmallVectorImpl<StringRef> &chosen,
                     std::string &error) {
  chosen.assign(slots.size(), StringRef());
  for (StringRef token : quals) {
    // A token two slots take (cp.async.bulk's shared::cta, a destination
    // or a source) goes to the first of them still empty, in spelling
    // order; else to the last, which then reports the repetition.
    int slotIndex = -1;
    for (auto [i, slot] : llvm::enumerate(slots))
      if (llvm::is_contained(slot.tokens, token) &&
          (slotIndex < 0 || !chosen[slotIndex].empty()))
        slotIndex = i;
    if (slotIndex < 0) {
      SmallVector<std::string> expected;
      for (const Slot &slot : slots)
        expected.push_back(describeSlot(slot));
      error = "'" + token.str() + "' is not a qualifier of " + context.str();
      if (expected.empty())
        error += ", which takes none";
      else
        error += ": expected " + llvm::join(expected, ", ");
      return false;
    }
    const Slot &slot = slots[slotIndex];
    if (!chosen[slotIndex].empty()) {
      error = "'" + token.str() + "' cannot follow '" +
              chosen[slotIndex].str() + "' in " + context.str() + ": one " +
              slot.what.str() + " of " + joinTokens(slot.tokens);
      return false;
    }
    chosen[slotIndex] = token;
  }
  for (auto [i, slot] : llvm::enumerate(slots)) {
    if (slot.required && chosen[i].empty()) {
      error = slot.tokens.size() == 1
                  ? context.str() + " needs '" + slot.tokens.front().str() + "'"
                  : context.str() + " needs a " + slot.what.str() +
                        ": one of " + joinTokens(slot.tokens);
      return false;
    }
  }
  return true;
}

} // namespace mlir::tile::ptx::detail
