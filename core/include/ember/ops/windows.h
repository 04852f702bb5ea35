#pragma once
// Window functions for spectral analysis (torch.hann_window & co.).
//
// `periodic` (the default, as in PyTorch) gives the window for spectral
// analysis with stft: the first window_length points of a symmetric window of
// window_length + 1 points, so the window tiles with hop window_length.
// periodic = false gives the symmetric window used in filter design.
// window_length 0 gives an empty tensor, 1 gives [1]. The dtype must be a
// floating point one (default: the default float dtype). Values are computed
// in double and rounded once to the requested dtype.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

// 0.5 - 0.5 cos(2 pi n / (N - 1))
Tensor hann_window(int64_t window_length, bool periodic = true, const TensorOptions& options = {});
// alpha - beta cos(2 pi n / (N - 1))
Tensor hamming_window(int64_t window_length, bool periodic = true, double alpha = 0.54, double beta = 0.46,
                      const TensorOptions& options = {});
// 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))
Tensor blackman_window(int64_t window_length, bool periodic = true, const TensorOptions& options = {});
// 1 - |2 n / (N - 1) - 1|
Tensor bartlett_window(int64_t window_length, bool periodic = true, const TensorOptions& options = {});
// I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2
Tensor kaiser_window(int64_t window_length, bool periodic = true, double beta = 12.0,
                     const TensorOptions& options = {});

}  // namespace ember
