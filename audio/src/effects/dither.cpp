// dither (torchaudio 0.13's filtering.py): 16-bit quantization after adding a
// dither value, with optional noise shaping; core ops only (device-generic).
#include <ember/audio/functional/effects.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>
#include <ember/ops/windows.h>

#include "effects/effect_checks.h"

namespace ember::audio::functional {

// Note [Dither draws]
// torchaudio's "dither" values are not noise: TPDF adds a Bartlett window over
// time (deterministic), RPDF adds one sample of the waveform minus 0.5, GPDF
// the sum of seven samples. The samples come from torch.randint draws over
// rows [0, R-2] and times [0, T-2] of the waveform packed to [R, T] (the last
// row and time are never drawn): one channel and one time always (even for
// TPDF, which ignores them), then for GPDF six more (channel, time) pairs.
// Ember draws the same ranges in the same order from its default generator
// (ember::randint_scalar; Philox, so the draws are not torch's). Two
// deliberate differences, both where torchaudio misbehaves:
// - GPDF accumulates into the first drawn sample in place: it modifies the
//   caller's waveform (and, with noise shaping, the error term at that
//   sample), and a later draw of that same sample reads the running sum, so
//   that even a constant waveform's GPDF offset depends on the draws. Ember
//   adds the seven samples as they are and leaves its input alone.
// - torchaudio's GPDF fails on a single row or a single time (randint(0));
//   Ember draws 0 there, as torchaudio itself does for the first pair.
Tensor dither(const Tensor& waveform, const std::string& density_function, bool noise_shaping) {
  const char* op = "dither";
  audio::effects::check_waveform(waveform, op);
  EMBER_CHECK(density_function == "TPDF" || density_function == "RPDF" || density_function == "GPDF", op,
              ": density_function must be \"TPDF\", \"RPDF\" or \"GPDF\", got \"", density_function, "\"");
  if (waveform.numel() == 0) return waveform.clone();
  const auto shape = waveform.sizes().vec();
  const int64_t time = waveform.size(-1);
  const Tensor rows = waveform.reshape({-1, time});
  const int64_t channel_size = rows.size(0) - 1;
  const int64_t time_size = time - 1;
  auto draw = [](int64_t n) { return n > 0 ? randint_scalar(0, n) : int64_t{0}; };
  const int64_t random_channel = draw(channel_size);
  const int64_t random_time = draw(time_size);

  constexpr int64_t kUpScaling = (int64_t{1} << 15) - 2;
  constexpr int64_t kDownScaling = int64_t{1} << 15;
  const Tensor signal_scaled = rows * kUpScaling;
  Tensor dithered;
  if (density_function == "RPDF") {
    dithered = signal_scaled + (rows.select(0, random_channel).select(0, random_time) - 0.5);
  } else if (density_function == "GPDF") {
    Tensor gaussian = rows.select(0, random_channel).select(0, random_time).clone();
    for (int i = 0; i < 6; ++i) {
      const int64_t channel = draw(channel_size);
      const int64_t t = draw(time_size);
      gaussian = gaussian + rows.select(0, channel).select(0, t);
    }
    dithered = signal_scaled + gaussian;
  } else {
    dithered = signal_scaled + bartlett_window(time, true, rows.options());
  }
  Tensor quantised = dithered.round() / kDownScaling;
  if (noise_shaping) {
    // noise_shaped[n] = quantised[n] + (quantised - waveform)[n - 1].
    const Tensor error = quantised - rows;
    const Tensor previous = cat({zeros({rows.size(0), 1}, rows.options()), error.narrow(1, 0, time - 1)}, 1);
    quantised = quantised + previous;
  }
  return quantised.reshape(shape);
}

}  // namespace ember::audio::functional
