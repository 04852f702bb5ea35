// ToTensor and PadTransform (torchtext 0.14).
#include <ember/ember.h>

#include "ember/text/transforms.h"
#include "transforms/sequences.h"

namespace ember::text::transforms {

ToTensorImpl::ToTensorImpl(std::optional<int64_t> padding_value)
    : TextTransformImpl("ToTensor"), padding_value_(padding_value) {}

IValue ToTensorImpl::forward(const IValue& input) {
  if (!detail::is_batch(input, "ToTensor")) {
    const std::vector<int64_t> ids = to_ints(input, "ToTensor");
    return IValue(tensor(ids, TensorOptions().dtype(kInt64)));
  }
  std::vector<std::vector<int64_t>> rows;
  size_t width = 0;
  for (const IValue& seq : input.to_list()) {
    rows.push_back(to_ints(seq, "ToTensor"));
    width = std::max(width, rows.back().size());
  }
  for (const auto& row : rows)
    EMBER_CHECK(row.size() == width || padding_value_.has_value(), "ToTensor: sequences of lengths ", row.size(),
                " and ", width, " need a padding_value");
  Tensor out = full({static_cast<int64_t>(rows.size()), static_cast<int64_t>(width)}, padding_value_.value_or(0),
                    TensorOptions().dtype(kInt64));
  int64_t* data = out.data_ptr<int64_t>();
  for (size_t r = 0; r < rows.size(); ++r) std::copy(rows[r].begin(), rows[r].end(), data + r * width);
  return IValue(out);
}

Params ToTensorImpl::params() const {
  return {{"padding_value", padding_value_ ? IValue(*padding_value_) : IValue()}};
}

PadTransformImpl::PadTransformImpl(int64_t max_length, int64_t pad_value)
    : TextTransformImpl("PadTransform"), max_length_(max_length), pad_value_(pad_value) {
  EMBER_CHECK(max_length >= 0, "PadTransform: max_length must be >= 0, got ", max_length);
}

IValue PadTransformImpl::forward(const IValue& input) {
  EMBER_CHECK(input.is_tensor() && input.to_tensor().defined() && input.to_tensor().dim() >= 1,
              "PadTransform: expected a tensor [..., L], got ", input.type_name());
  const Tensor& x = input.to_tensor();
  const int64_t length = x.size(-1);
  if (length >= max_length_) return input;
  return IValue(pad(x, {0, max_length_ - length}, "constant", static_cast<double>(pad_value_)));
}

}  // namespace ember::text::transforms
