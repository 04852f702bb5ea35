// phase_vocoder, as torchaudio 0.13's functional.py: magnitudes interpolated
// linearly between the two frames around each output time step, phases
// accumulated from the wrapped phase differences. Without gradients the
// fused kernel of phase_vocoder_slot computes it (Note [phase_vocoder
// arithmetic] in spectral/phase_vocoder_kernels.h); with them, or where no
// kernel runs, the composite of core ops below (autograd, any device).
#include <cmath>
#include <numbers>

#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

#include "spectral/phase_vocoder_kernels.h"

namespace ember::audio {

EMBER_DEFINE_SLOT(phase_vocoder_slot, PhaseVocoderFn, "audio.phase_vocoder");

namespace {

// The composite: torchaudio's tensor program. specs [batch, freq, frames].
Tensor phase_vocoder_composite(const Tensor& specs, const Tensor& time_steps, const Tensor& phase_advance) {
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
  return polar(mag, phase_acc);
}

// The kernel computes the no-gradient case where it has one, with the
// advance in the spectrogram's real dtype (a float32 advance widens exactly
// for complex128; other mixes keep torch's promotion, in the composite) and
// one advance per frequency: [freq, 1], [1, 1] or a single value (a 1-D
// [freq] advance broadcasts against time, as in torch, in the composite).
bool use_kernel(const Tensor& specs, const Tensor& phase_advance, DType real_dtype) {
  if (is_grad_enabled() && (specs.requires_grad() || phase_advance.requires_grad())) return false;
  if (!phase_vocoder_slot.supports(specs.device(), specs.dtype())) return false;
  if (phase_advance.device() != specs.device()) return false;
  if (phase_advance.dim() != 2 && phase_advance.numel() != 1) return false;
  return phase_advance.dtype() == real_dtype || (real_dtype == kFloat64 && phase_advance.dtype() == kFloat32);
}

Tensor run_phase_vocoder_kernel(const Tensor& specs, const Tensor& time_steps, const Tensor& phase_advance,
                                DType real_dtype) {
  const int64_t n_freq = specs.size(1), n_frames = specs.size(2);
  Tensor out = empty({specs.size(0), n_freq, time_steps.numel()}, specs.options());
  // One advance per frequency ([freq, 1], [1, 1], [1] or a scalar).
  const Tensor advance = phase_advance.to(real_dtype).reshape({-1}).expand({n_freq}).contiguous();
  const Tensor rows = specs.contiguous().view({-1, n_frames});
  Tensor out_rows = out.view({-1, time_steps.numel()});
  phase_vocoder_slot(specs.device())(out_rows, rows, time_steps.contiguous(), advance);
  return out;
}

}  // namespace

namespace functional {

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
  const Tensor stretched = use_kernel(specs, phase_advance, real_dtype)
                               ? run_phase_vocoder_kernel(specs, time_steps, phase_advance, real_dtype)
                               : phase_vocoder_composite(specs, time_steps, phase_advance);

  shape.resize(shape.size() - 2);
  shape.push_back(stretched.size(-2));
  shape.push_back(stretched.size(-1));
  return stretched.reshape(shape);
}

}  // namespace functional
}  // namespace ember::audio
