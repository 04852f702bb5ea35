// griffinlim, as torchaudio 0.13's functional.py (fast Griffin-Lim of Perraudin
// et al., the librosa port), with the same float operations in the same order.
#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

#include "spectral/spectral_args.h"

namespace ember::audio::functional {

Tensor griffinlim(const Tensor& specgram, const Tensor& window, int64_t n_fft, int64_t hop_length,
                  int64_t win_length, double power, int64_t n_iter, double momentum, std::optional<int64_t> length,
                  bool rand_init) {
  constexpr const char* op = "griffinlim";
  EMBER_CHECK(specgram.defined() && specgram.dim() >= 2, op, ": expected a spectrogram [..., freq, frames]");
  EMBER_CHECK(specgram.is_floating_point(), op, ": expected a real floating-point magnitude spectrogram, got ",
              specgram.dtype());
  EMBER_CHECK(momentum >= 0 && momentum < 1, op, ": momentum must be in range [0, 1), got ", momentum);
  EMBER_CHECK(power > 0, op, ": power must be positive, got ", power);
  EMBER_CHECK(n_iter >= 0, op, ": n_iter must be non-negative, got ", n_iter);
  EMBER_CHECK(!length || *length >= 0, op, ": length must be non-negative, got ", length.value_or(0));
  detail::check_stft_args(op, n_fft, hop_length, win_length, window);
  EMBER_CHECK(specgram.size(-2) == n_fft / 2 + 1, op, ": expected n_fft / 2 + 1 = ", n_fft / 2 + 1,
              " frequencies, got ", specgram.size(-2));

  const double beta = momentum / (1 + momentum);
  std::vector<int64_t> shape = specgram.sizes().vec();
  const Tensor packed = specgram.reshape({-1, shape[shape.size() - 2], shape.back()});
  const Tensor magnitude = detail::pow_scalar(packed, 1 / power);
  const DType complex_dtype = to_complex_dtype(specgram.dtype());
  const auto complex_options = TensorOptions().dtype(complex_dtype).device(specgram.device());
  Tensor angles = rand_init ? rand(magnitude.sizes(), complex_options) : full(magnitude.sizes(), 1, complex_options);

  IstftOptions inverse_options;
  inverse_options.hop_length = hop_length;
  inverse_options.win_length = win_length;
  inverse_options.window = window;
  inverse_options.length = length;
  StftOptions forward_options;
  forward_options.hop_length = hop_length;
  forward_options.win_length = win_length;
  forward_options.window = window;
  forward_options.onesided = true;
  forward_options.return_complex = true;

  Tensor previous;  // the last rebuilt spectrogram; torchaudio's tprev (0 before the first round)
  for (int64_t i = 0; i < n_iter; ++i) {
    const Tensor inverse = istft(magnitude * angles, n_fft, inverse_options);
    const Tensor rebuilt = stft(inverse, n_fft, forward_options);
    angles = rebuilt;
    if (beta != 0 && previous.defined()) angles = angles - previous * beta;
    // torchaudio: angles.div(angles.abs().add(1e-16)), a complex division by a
    // real tensor promoted to complex. Multiplying by the real reciprocal is the
    // same to rounding and several times faster.
    angles = angles * (angles.abs() + 1e-16).reciprocal();
    previous = rebuilt;
  }
  Tensor waveform = istft(magnitude * angles, n_fft, inverse_options);
  shape.resize(shape.size() - 2);
  shape.push_back(waveform.size(-1));
  return waveform.reshape(shape);
}

}  // namespace ember::audio::functional
