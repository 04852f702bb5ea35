// mask_along_axis and mask_along_axis_iid (SpecAugment), as torchaudio 0.13's functional.py.
#include "spectral/masking.h"

#include <algorithm>

#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

namespace ember::audio::functional {
namespace {

int64_t limited_mask_param(int64_t mask_param, double p, int64_t axis_length) {
  if (p == 1.0) return mask_param;
  return std::min(mask_param, static_cast<int64_t>(static_cast<double>(axis_length) * p));
}

void check_mask_args(const char* op, const Tensor& specgram, int64_t mask_param, double p) {
  EMBER_CHECK(specgram.defined() && (specgram.is_floating_point() || specgram.is_complex()), op,
              ": expected a floating-point spectrogram");
  EMBER_CHECK(mask_param >= 0, op, ": mask_param must be non-negative, got ", mask_param);
  EMBER_CHECK(p >= 0.0 && p <= 1.0, op, ": the value of p must be between 0.0 and 1.0 (", p, " given)");
}

// positions [length] of the masked axis (in `dtype`, as torchaudio) against
// per-item [start, end) bounds that broadcast with it.
Tensor band(int64_t length, const Tensor& start, const Tensor& end, DType dtype, Device device) {
  const Tensor positions = arange(0, length, TensorOptions().dtype(dtype).device(device));
  return (positions >= start) & (positions < end);
}

}  // namespace

namespace detail {

Tensor mask_along_axis_iid_drawn(const Tensor& specgrams, int64_t mask_param, double mask_value, int64_t axis,
                                 const Tensor& value_draw, const Tensor& start_draw) {
  const int64_t length = specgrams.size(axis);
  const Tensor value = value_draw * static_cast<double>(mask_param);
  const Tensor min_value = start_draw * (static_cast<double>(length) - value);
  const Tensor start = min_value.to(kInt64).unsqueeze(-1).unsqueeze(-1);
  const Tensor end = (min_value.to(kInt64) + value.to(kInt64)).unsqueeze(-1).unsqueeze(-1);
  const Tensor mask = band(length, start, end, to_real_dtype(specgrams.dtype()), specgrams.device());
  return specgrams.transpose(axis, -1).masked_fill(mask, mask_value).transpose(axis, -1);
}

Tensor mask_along_axis_drawn(const Tensor& specgram, int64_t mask_param, double mask_value, int64_t axis,
                             const Tensor& value_draw, const Tensor& start_draw) {
  const std::vector<int64_t> shape = specgram.sizes().vec();
  const Tensor packed = specgram.reshape({-1, shape[shape.size() - 2], shape.back()});
  const int64_t length = packed.size(axis);
  const Tensor value = value_draw * static_cast<double>(mask_param);
  const Tensor min_value = start_draw * (static_cast<double>(length) - value);
  const Tensor start = min_value.to(kInt64).reshape({});
  const Tensor end = (min_value.to(kInt64) + value.to(kInt64)).reshape({});
  Tensor mask = band(length, start, end, to_real_dtype(specgram.dtype()), specgram.device());
  if (axis == 1) mask = mask.unsqueeze(-1);
  return packed.masked_fill(mask, mask_value).reshape(shape);
}

}  // namespace detail

Tensor mask_along_axis_iid(const Tensor& specgrams, int64_t mask_param, double mask_value, int64_t axis, double p) {
  constexpr const char* op = "mask_along_axis_iid";
  check_mask_args(op, specgrams, mask_param, p);
  EMBER_CHECK(specgrams.dim() == 4, op, ": expected spectrograms [batch, channel, freq, time], got ",
              specgrams.dim(), " dims");
  EMBER_CHECK(axis == 2 || axis == 3, op, ": only frequency (axis 2) and time (axis 3) masking are supported, got axis ",
              axis);
  if (specgrams.numel() == 0) return specgrams;  // nothing to mask
  const int64_t param = limited_mask_param(mask_param, p, specgrams.size(axis));
  if (param < 1) return specgrams;
  const auto options = TensorOptions().dtype(to_real_dtype(specgrams.dtype())).device(specgrams.device());
  const Tensor value_draw = rand({specgrams.size(0), specgrams.size(1)}, options);
  const Tensor start_draw = rand({specgrams.size(0), specgrams.size(1)}, options);
  return detail::mask_along_axis_iid_drawn(specgrams, param, mask_value, axis, value_draw, start_draw);
}

Tensor mask_along_axis(const Tensor& specgram, int64_t mask_param, double mask_value, int64_t axis, double p) {
  constexpr const char* op = "mask_along_axis";
  check_mask_args(op, specgram, mask_param, p);
  EMBER_CHECK(specgram.dim() >= 2, op, ": expected a spectrogram [..., freq, time], got ", specgram.dim(), " dims");
  EMBER_CHECK(axis == 1 || axis == 2, op, ": only frequency (axis 1) and time (axis 2) masking are supported, got axis ",
              axis);
  // Note [mask_along_axis axis]: torchaudio 0.13 limits mask_param by the
  // unpacked input's size(axis) but masks the packed [batch, freq, time] one;
  // both agree for the documented [channel, freq, time] input. The packed size
  // is used here (a 2-D [freq, time] input has no size(2) before packing).
  if (specgram.numel() == 0) return specgram;  // nothing to mask
  const int64_t packed_length = axis == 1 ? specgram.size(-2) : specgram.size(-1);
  const int64_t param = limited_mask_param(mask_param, p, packed_length);
  if (param < 1) return specgram;
  const Tensor value_draw = rand({1}, TensorOptions().dtype(kFloat32).device(specgram.device()));
  const Tensor start_draw = rand({1}, TensorOptions().dtype(kFloat32).device(specgram.device()));
  return detail::mask_along_axis_drawn(specgram, param, mask_value, axis, value_draw, start_draw);
}

}  // namespace ember::audio::functional
