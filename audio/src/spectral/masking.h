#pragma once
// The SpecAugment masks given their random draws (audio/src/spectral/masking.cpp).
// mask_along_axis(_iid) draw the numbers from the default generator and call
// these; the tests feed them the numbers torch drew for torchaudio's fixtures.
#include <cstdint>

#include <ember/core/tensor.h>

namespace ember::audio::functional::detail {

// specgrams [batch, channel, freq, time]; value_draw and start_draw [batch, channel]
// uniform in [0, 1) (the input's dtype), mask_param already limited by p.
Tensor mask_along_axis_iid_drawn(const Tensor& specgrams, int64_t mask_param, double mask_value, int64_t axis,
                                 const Tensor& value_draw, const Tensor& start_draw);

// specgram [..., freq, time]; value_draw and start_draw one float32 number each.
Tensor mask_along_axis_drawn(const Tensor& specgram, int64_t mask_param, double mask_value, int64_t axis,
                             const Tensor& value_draw, const Tensor& start_draw);

}  // namespace ember::audio::functional::detail
