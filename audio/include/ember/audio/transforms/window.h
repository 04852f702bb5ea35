#pragma once
// The window a spectral transform builds (torchaudio's window_fn and wkwargs),
// by name so that the transform saves as JSON.
#include <cstdint>
#include <string>

#include <ember/core/tensor.h>

namespace ember::audio::transforms {

struct WindowOptions {
  // "hann" (torch.hann_window, torchaudio's default), "hamming", "blackman",
  // "bartlett", "kaiser" or "rectangular" (ones).
  std::string fn = "hann";
  bool periodic = true;      // torch's window functions' `periodic`
  double kaiser_beta = 12.0;  // kaiser only
};

// The float32 window of `length` points, as torchaudio's window_fn(length, **wkwargs) makes it.
Tensor make_window(const WindowOptions& window, int64_t length, const char* transform);

}  // namespace ember::audio::transforms
