// Truncate, AddToken, StrToIntTransform, LabelToIndex, Sequential (torchtext 0.14).
#include <algorithm>
#include <charconv>

#include <ember/core/error.h>

#include "ember/text/transforms.h"
#include "transforms/sequences.h"

namespace ember::text::transforms {

TruncateImpl::TruncateImpl(int64_t max_seq_len) : TextTransformImpl("Truncate"), max_seq_len_(max_seq_len) {
  EMBER_CHECK(max_seq_len >= 0, "Truncate: max_seq_len must be >= 0, got ", max_seq_len);
}

IValue TruncateImpl::forward(const IValue& input) {
  return detail::map_sequences(input, "Truncate", [this](const IValue& seq) {
    const auto& items = seq.to_list();
    const size_t keep = std::min(items.size(), static_cast<size_t>(max_seq_len_));
    return IValue::list(std::vector<IValue>(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(keep)));
  });
}

AddTokenImpl::AddTokenImpl(IValue token, bool begin) : TextTransformImpl("AddToken"), token_(std::move(token)), begin_(begin) {
  EMBER_CHECK(token_.is_int() || token_.is_string(), "AddToken: the token must be an int id or a str, got ",
              token_.type_name());
}

IValue AddTokenImpl::forward(const IValue& input) {
  return detail::map_sequences(input, "AddToken", [this](const IValue& seq) {
    const auto& items = seq.to_list();
    EMBER_CHECK(items.empty() || items.front().is_int() == token_.is_int(), "AddToken: a ",
                token_.type_name(), " token cannot be added to a sequence of ", items.front().type_name(), "s");
    std::vector<IValue> out;
    out.reserve(items.size() + 1);
    if (begin_) out.push_back(token_);
    out.insert(out.end(), items.begin(), items.end());
    if (!begin_) out.push_back(token_);
    return IValue::list(std::move(out));
  });
}

namespace {

int64_t parse_int(const std::string& s) {
  // Python's int(): optional sign and surrounding whitespace.
  size_t b = s.find_first_not_of(" \t\n\r\f\v"), e = s.find_last_not_of(" \t\n\r\f\v");
  EMBER_CHECK(b != std::string::npos, "StrToIntTransform: '", s, "' is not an integer");
  std::string_view v(s.data() + b, e - b + 1);
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  int64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  EMBER_CHECK(ec == std::errc() && end == v.data() + v.size() && !v.empty(), "StrToIntTransform: '", s,
              "' is not an integer", ec == std::errc::result_out_of_range ? " in the int64 range" : "");
  return out;
}

}  // namespace

IValue StrToIntTransformImpl::forward(const IValue& input) {
  return detail::map_sequences(input, "StrToIntTransform", [](const IValue& seq) {
    std::vector<int64_t> out;
    for (const std::string& s : to_strings(seq, "StrToIntTransform")) out.push_back(parse_int(s));
    return to_value(out);
  });
}

LabelToIndexImpl::LabelToIndexImpl(std::vector<std::string> label_names, bool sort_names)
    : TextTransformImpl("LabelToIndex"), names_(std::move(label_names)), sort_names_(sort_names) {
  EMBER_CHECK(!names_.empty(), "LabelToIndex: needs at least one label name");
  if (sort_names_) std::sort(names_.begin(), names_.end());
  std::vector<std::string> sorted = names_;
  std::sort(sorted.begin(), sorted.end());
  const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  EMBER_CHECK(dup == sorted.end(), "LabelToIndex: label '", dup == sorted.end() ? "" : *dup, "' is given twice");
}

IValue LabelToIndexImpl::forward(const IValue& input) {
  const auto index = [this](const IValue& label) -> IValue {
    EMBER_CHECK(label.is_string(), "LabelToIndex: expected a str label, got ", label.type_name());
    const auto it = std::find(names_.begin(), names_.end(), label.to_string());
    EMBER_CHECK(it != names_.end(), "LabelToIndex: unknown label '", label.to_string(), "'");
    return IValue(static_cast<int64_t>(it - names_.begin()));
  };
  if (input.is_string()) return index(input);
  EMBER_CHECK(input.is_sequence(), "LabelToIndex: expected a str or a list of str, got ", input.type_name());
  std::vector<IValue> out;
  for (const IValue& label : input.to_list()) out.push_back(index(label));
  return IValue::list(std::move(out));
}

Params LabelToIndexImpl::params() const {
  std::vector<IValue> names(names_.begin(), names_.end());
  return {{"label_names", IValue::list(std::move(names))}, {"sort_names", sort_names_}};
}

SequentialImpl::SequentialImpl(std::vector<TextTransformPtr> transforms)
    : TextTransformImpl("Sequential"), transforms_(std::move(transforms)) {
  for (size_t i = 0; i < transforms_.size(); ++i) {
    EMBER_CHECK(transforms_[i] != nullptr, "Sequential: transform ", i, " is empty");
    register_module(std::to_string(i), transforms_[i]);
  }
}

IValue SequentialImpl::forward(const IValue& input) {
  IValue x = input;
  for (const auto& t : transforms_) x = t->forward(x);
  return x;
}

}  // namespace ember::text::transforms
