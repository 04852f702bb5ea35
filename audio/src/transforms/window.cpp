// make_window: torchaudio's window_fn(win_length, **wkwargs) by name.
#include "ember/audio/transforms/window.h"

#include <ember/ops/factories.h>
#include <ember/ops/windows.h>

#include "transforms/transform_params.h"

namespace ember::audio::transforms {

Tensor make_window(const WindowOptions& window, int64_t length, const char* transform) {
  EMBER_CHECK(length > 0, transform, ": the window length must be positive, got ", length);
  const TensorOptions f32 = TensorOptions().dtype(kFloat32);
  if (window.fn == "hann") return hann_window(length, window.periodic, f32);
  if (window.fn == "hamming") return hamming_window(length, window.periodic, 0.54, 0.46, f32);
  if (window.fn == "blackman") return blackman_window(length, window.periodic, f32);
  if (window.fn == "bartlett") return bartlett_window(length, window.periodic, f32);
  if (window.fn == "kaiser") return kaiser_window(length, window.periodic, window.kaiser_beta, f32);
  if (window.fn == "rectangular") return ones({length}, f32);
  EMBER_FAIL(transform, ": unknown window '", window.fn,
             "' (expected hann, hamming, blackman, bartlett, kaiser or rectangular)");
}

namespace detail {

void add_window_params(Params& p, const WindowOptions& w) {
  p.emplace("window_fn", w.fn);
  p.emplace("window_periodic", w.periodic);
  p.emplace("window_kaiser_beta", w.kaiser_beta);
}

WindowOptions read_window_params(const Params& p, const std::string& type) {
  return {.fn = ::ember::transforms::param<std::string>(p, "window_fn", type),
          .periodic = ::ember::transforms::param<bool>(p, "window_periodic", type),
          .kaiser_beta = ::ember::transforms::param<double>(p, "window_kaiser_beta", type)};
}

}  // namespace detail
}  // namespace ember::audio::transforms
