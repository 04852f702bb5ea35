#pragma once
// get_mel_banks with its errors named after the calling feature (fbank, mfcc).
#include <utility>

#include <ember/ember.h>

namespace ember::audio::kaldi::detail {

std::pair<Tensor, Tensor> mel_banks(const char* fn, int64_t num_bins, int64_t window_length_padded,
                                    double sample_freq, double low_freq, double high_freq, double vtln_low,
                                    double vtln_high, double vtln_warp_factor);

}  // namespace ember::audio::kaldi::detail
