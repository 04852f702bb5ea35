// IValue <-> C++ containers for the text transforms, and the shape checks
// they share (a sequence, or a batch of sequences).
#include <ember/core/error.h>

#include "ember/text/transforms.h"
#include "transforms/sequences.h"

namespace ember::text::transforms {

IValue to_value(const std::vector<std::string>& tokens) {
  std::vector<IValue> items(tokens.begin(), tokens.end());
  return IValue::list(std::move(items));
}

IValue to_value(const std::vector<std::vector<std::string>>& batch) {
  std::vector<IValue> items;
  items.reserve(batch.size());
  for (const auto& tokens : batch) items.push_back(to_value(tokens));
  return IValue::list(std::move(items));
}

IValue to_value(const std::vector<int64_t>& ids) {
  std::vector<IValue> items(ids.begin(), ids.end());
  return IValue::list(std::move(items));
}

IValue to_value(const std::vector<std::vector<int64_t>>& batch) {
  std::vector<IValue> items;
  items.reserve(batch.size());
  for (const auto& ids : batch) items.push_back(to_value(ids));
  return IValue::list(std::move(items));
}

std::vector<std::string> to_strings(const IValue& value, const char* op) {
  EMBER_CHECK(value.is_sequence(), op, ": expected a list of strings, got ", value.type_name());
  std::vector<std::string> out;
  out.reserve(value.to_list().size());
  for (const IValue& item : value.to_list()) {
    EMBER_CHECK(item.is_string(), op, ": expected a list of strings, found a ", item.type_name());
    out.push_back(item.to_string());
  }
  return out;
}

std::vector<int64_t> to_ints(const IValue& value, const char* op) {
  EMBER_CHECK(value.is_sequence(), op, ": expected a list of ints, got ", value.type_name());
  std::vector<int64_t> out;
  out.reserve(value.to_list().size());
  for (const IValue& item : value.to_list()) {
    EMBER_CHECK(item.is_int(), op, ": expected a list of ints, found a ", item.type_name());
    out.push_back(item.to_int());
  }
  return out;
}

namespace detail {

bool is_batch(const IValue& input, const char* op) {
  EMBER_CHECK(input.is_sequence(), op, ": expected a list (a sequence or a batch of sequences), got ",
              input.type_name());
  const auto& items = input.to_list();
  if (items.empty()) return false;
  const bool nested = items.front().is_sequence();
  for (const IValue& item : items) {
    EMBER_CHECK(item.is_sequence() == nested, op, ": a list must hold only sequences (a batch) or only items");
    if (!nested) {
      EMBER_CHECK(item.is_int() || item.is_string(), op, ": sequence items must be ints or strings, found a ",
                  item.type_name());
    }
  }
  return nested;
}

IValue map_sequences(const IValue& input, const char* op, const std::function<IValue(const IValue&)>& f) {
  if (!is_batch(input, op)) return f(input);
  std::vector<IValue> out;
  out.reserve(input.to_list().size());
  for (const IValue& sequence : input.to_list()) {
    EMBER_CHECK(!is_batch(sequence, op), op, ": expected at most two levels of lists");
    out.push_back(f(sequence));
  }
  return IValue::list(std::move(out));
}

}  // namespace detail
}  // namespace ember::text::transforms
