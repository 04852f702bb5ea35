// phase_vocoder, as torchaudio 0.13's functional.py: magnitudes interpolated
// linearly between the two frames around each output time step, phases
// accumulated from the wrapped phase differences.
#include <cmath>
#include <numbers>

#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

namespace ember::audio::functional {

Tensor phase_vocoder(const Tensor& complex_specgrams, double rate, const Tensor& phase_advance) {
  constexpr const char* op = "phase_vocoder";
  EMBER_CHECK(complex_specgrams.defined() && complex_specgrams.is_complex(), op,
              ": expected a complex spectrogram [..., freq, frames]");
  EMBER_CHECK(complex_specgrams.dim() >= 2, op, ": expected a spectrogram [..., freq, frames], got ",
              complex_specgrams.dim(), " dims");
  EMBER_CHECK(std::isfinite(rate) && rate > 0, op, ": rate must be positive and finite, got ", rate);
  EMBER_CHECK(phase_advance.defined() && phase_advance.is_floating_point(), op,
              ": phase_advance must be a real floating-point tensor [freq, 1]");
  EMBER_CHECK(phase_advance.dim() <= 2 && (phase_advance.dim() < 2 || phase_advance.size(-1) == 1) &&
                  (phase_advance.dim() == 0 || phase_advance.size(0) == 1 ||
                   phase_advance.size(0) == complex_specgrams.size(-2)),
              op, ": phase_advance must have shape [freq = ", complex_specgrams.size(-2), ", 1], got ",
              phase_advance.sizes());
  EMBER_CHECK(complex_specgrams.size(-2) > 0 && complex_specgrams.size(-1) > 0, op,
              ": expected at least one frequency and one frame, got shape ", complex_specgrams.sizes());
  if (rate == 1.0) return complex_specgrams;

  std::vector<int64_t> shape = complex_specgrams.sizes().vec();
  const int64_t n_freq = shape[shape.size() - 2];
  const int64_t n_frames = shape.back();
  const Tensor specs = complex_specgrams.reshape({-1, n_freq, n_frames});
  const DType real_dtype = to_real_dtype(specs.dtype());
  const auto real_options = TensorOptions().dtype(real_dtype).device(specs.device());

  const Tensor time_steps = arange(0, n_frames, rate, real_options);
  const Tensor alphas = time_steps.remainder(1.0);

  // torchaudio pads the spectrogram with two zero frames, gathers the frames
  // around each time step and takes their angles and magnitudes. The angles
  // and magnitudes of the input are taken once here and gathered instead (the
  // same numbers: a zero frame has angle 0 and magnitude 0), which halves the
  // transcendental work at rate 1.25 and avoids copying complex frames.
  const Tensor angles = ember::pad(specs.angle(), {0, 2});
  const Tensor norms = ember::pad(specs.abs(), {0, 2});
  const Tensor index_0 = time_steps.to(kInt64);
  const Tensor index_1 = (time_steps + 1).to(kInt64);
  const Tensor phase_0 = angles.narrow(-1, 0, 1);
  const Tensor norm_0 = norms.index_select(-1, index_0);
  const Tensor norm_1 = norms.index_select(-1, index_1);

  constexpr double two_pi = 2 * std::numbers::pi;
  Tensor phase = angles.index_select(-1, index_1) - angles.index_select(-1, index_0) - phase_advance;
  phase = phase - two_pi * (phase / two_pi).round();
  phase = phase + phase_advance;
  phase = cat({phase_0, phase.narrow(-1, 0, phase.size(-1) - 1)}, -1);
  const Tensor phase_acc = phase.cumsum(-1);
  const Tensor mag = alphas * norm_1 + (1 - alphas) * norm_0;
  const Tensor stretched = polar(mag, phase_acc);

  shape.resize(shape.size() - 2);
  shape.push_back(stretched.size(-2));
  shape.push_back(stretched.size(-1));
  return stretched.reshape(shape);
}

}  // namespace ember::audio::functional
