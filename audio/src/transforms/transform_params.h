#pragma once
// Shared pieces of the audio transforms' params() and factories: optional
// values and the window options, written and read back the same way by every
// spectral transform.
#include <optional>
#include <string>

#include <ember/transforms/serialize.h>

#include "ember/audio/transforms/window.h"

namespace ember::audio::transforms::detail {

using ::ember::transforms::Params;

inline IValue optional_value(const std::optional<double>& v) { return v ? IValue(*v) : IValue(); }
inline IValue optional_value(const std::optional<int64_t>& v) { return v ? IValue(*v) : IValue(); }
inline IValue optional_value(const std::optional<std::string>& v) { return v ? IValue(*v) : IValue(); }

// window_fn, window_periodic, window_kaiser_beta.
void add_window_params(Params& p, const WindowOptions& w);
WindowOptions read_window_params(const Params& p, const std::string& type);

// torchaudio's defaults: win_length = n_fft, hop_length = win_length / 2
// (`hop_divisor` 4 for PitchShift); checks all three.
template <class Options>
void fill_lengths(Options& o, const char* transform, int64_t hop_divisor = 2) {
  EMBER_CHECK(o.n_fft > 0, transform, ": n_fft must be positive, got ", o.n_fft);
  if (!o.win_length) o.win_length = o.n_fft;
  if (!o.hop_length) o.hop_length = *o.win_length / hop_divisor;
  EMBER_CHECK(*o.win_length > 0 && *o.win_length <= o.n_fft, transform, ": win_length must be in [1, n_fft = ",
              o.n_fft, "], got ", *o.win_length);
  EMBER_CHECK(*o.hop_length > 0, transform, ": hop_length must be positive, got ", *o.hop_length);
}

}  // namespace ember::audio::transforms::detail
